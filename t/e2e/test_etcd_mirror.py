"""ngx_gcp on etcd with one copy per instance (gcp_storage etcd
mirror=DIR, docs/storage.md "One copy per instance"):

- one etcd watch stream for the instance, whatever its workers
  (etcd_debugging_mvcc_watch_stream_total on etcd's /metrics);
- the feeding worker (the holder of DIR/feeder.lock, found in
  /proc/locks) killed with SIGKILL: writes made meanwhile are read at
  once through every worker (new connections), a watch started before
  gets every change once and in order, another worker feeds;
- across `nginx -s reload`: the same, the new generation feeds;
- /readyz's etcd-mirror check and the mirror's metrics (its revision,
  lag, feeder takeovers, loads, changes applied); the check fails while
  no worker feeds the mirror (etcd gone);
- a worker whose bootstrap failed (etcd down at start) tries again;
- the mirror's identity: a restart against another prefix, or after etcd
  compacted past the mirror, loads it again from a fresh range and never
  serves the old copy; a restart against the same etcd and prefix keeps
  it (no load).
"""

import http.client
import json
import os
import signal
import threading
import urllib.request

import pytest

from etcd_cluster import EtcdCluster
from gcp_http import call, configmap, connect, create_namespace
from gcp_prom import samples, value
from gcp_server import GcpServer
from gcp_wait import eventually

# it starts its own etcd (conftest.py: LMDB session only)
STORAGE_INDEPENDENT = True


@pytest.fixture(scope="module")
def etcd():
    with EtcdCluster(members=1) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def srv(etcd):
    # the default mirror (etcd-mirror in the nginx prefix), whatever the
    # session's --etcd-mirror
    saved = GcpServer.etcd_mirror
    GcpServer.etcd_mirror = True
    try:
        s = GcpServer(workers=3, etcd=etcd.endpoints)
    finally:
        GcpServer.etcd_mirror = saved
    s.start(timeout=60)
    try:
        yield s
    finally:
        # the feeder this file kills is the only crash allowed
        bad = [line for line in s.crash_lines()
               if "exited on signal 9" not in line]
        s.stop(check=False)
    assert not bad, bad


def feeder_pid(srv):
    """The pid holding the mirror's feeder lock, or None."""
    ino = os.stat(os.path.join(srv.data_dir, "etcd-mirror",
                               "feeder.lock")).st_ino
    with open("/proc/locks") as f:
        for line in f:
            p = line.split()
            # "1: FLOCK  ADVISORY  WRITE 1234 00:2a:5678 0 EOF"
            if p[1] == "FLOCK" and p[5].split(":")[2] == str(ino):
                return int(p[4])
    return None


def watch_streams(etcd):
    with urllib.request.urlopen(etcd.endpoint(0) + "/metrics",
                                timeout=10) as r:
        for line in r.read().decode().splitlines():
            if line.startswith("etcd_debugging_mvcc_watch_stream_total "):
                return int(float(line.split()[1]))
    raise AssertionError("no watch stream gauge on etcd's /metrics")


class Watcher:
    """Reads watch events of a path in a thread."""

    def __init__(self, srv, path):
        self.events = []
        self.conn = connect(srv, timeout=60)
        self.conn.request("GET", path)
        self.resp = self.conn.getresponse()
        assert self.resp.status == 200
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        buf = b""
        try:
            while True:
                chunk = self.resp.read1(65536)
                if not chunk:
                    return
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    if line.strip():
                        self.events.append(json.loads(line))
        except (OSError, ValueError, AttributeError,
                http.client.HTTPException):
            return          # closed by the test, or by a worker exiting

    def last_rv(self):
        objs = [e["object"] for e in self.events]
        return objs[-1]["metadata"]["resourceVersion"] if objs else None

    def names(self):
        return [e["object"]["metadata"]["name"] for e in self.events
                if e["type"] != "BOOKMARK"]

    def close(self):
        try:
            if self.conn.sock is not None:
                self.conn.sock.shutdown(2)
        except OSError:
            pass
        self.conn.close()


def create_and_read(srv, ns, names):
    """Creates each ConfigMap, then reads it on new connections (any
    worker): each read sees it at once."""
    for n in names:
        r = call(srv, "POST", "/api/v1/namespaces/%s/configmaps" % ns,
                 configmap(n, {"k": n}))
        assert r.status == 201, r
        rv = r.json["metadata"]["resourceVersion"]
        for _ in range(3):
            g = call(srv, "GET", "/api/v1/namespaces/%s/configmaps/%s"
                     % (ns, n))
            assert g.status == 200, g
            assert g.json["metadata"]["resourceVersion"] == rv


def test_one_stream_per_instance(srv, etcd):
    assert len(srv.worker_pids()) == 3
    assert eventually(lambda: feeder_pid(srv) in srv.worker_pids(),
                      timeout=30)
    # the feeder's stream; the workers open none of their own
    assert eventually(lambda: watch_streams(etcd) == 1, timeout=30)


def check_failover(srv, etcd, ns, prefix, disrupt):
    lst = call(srv, "GET", "/api/v1/namespaces/%s/configmaps" % ns)
    rv = lst.json["metadata"]["resourceVersion"]
    w = Watcher(srv, "/api/v1/namespaces/%s/configmaps?watch=1"
                "&resourceVersion=%s" % (ns, rv))
    try:
        create_and_read(srv, ns, ["%s-a%d" % (prefix, i) for i in range(5)])
        old = feeder_pid(srv)
        assert old in srv.worker_pids()

        disrupt(old)
        create_and_read(srv, ns, ["%s-b%d" % (prefix, i) for i in range(5)])

        assert eventually(lambda: feeder_pid(srv) not in (None, old)
                          and feeder_pid(srv) in srv.worker_pids(),
                          timeout=30)
        want = (["%s-a%d" % (prefix, i) for i in range(5)]
                + ["%s-b%d" % (prefix, i) for i in range(5)])
        names = []
        last = rv
        for _ in range(5):
            # a watch on the worker that went away ends: as a client,
            # watch again from the last resourceVersion it saw
            eventually(lambda: len(names) + len(w.names()) >= 10
                       or not w.thread.is_alive(), timeout=30)
            w.close()
            w.thread.join(10)
            assert all(e["type"] == "ADDED" for e in w.events
                       if e["type"] != "BOOKMARK")
            names += w.names()
            last = w.last_rv() or last
            if len(names) >= 10:
                break
            w = Watcher(srv, "/api/v1/namespaces/%s/configmaps?watch=1"
                        "&resourceVersion=%s" % (ns, last))
        assert names == want
        assert eventually(lambda: watch_streams(etcd) == 1, timeout=30)
    finally:
        w.close()


def test_feeder_killed(srv, etcd):
    ns = "mirror-kill"
    create_namespace(srv, ns)
    check_failover(srv, etcd, ns, "k",
                   lambda pid: os.kill(pid, signal.SIGKILL))


def test_reload(srv, etcd):
    ns = "mirror-reload"
    create_namespace(srv, ns)
    check_failover(srv, etcd, ns, "r", lambda pid: srv.reload())


def metrics(srv):
    r = call(srv, "GET", "/metrics", headers={"Accept": "text/plain"})
    assert r.status == 200, r
    return samples(r.body.decode())


def test_readyz_and_metrics(srv, etcd):
    ns = "mirror-obs"
    create_namespace(srv, ns)
    r = call(srv, "POST", "/api/v1/namespaces/%s/configmaps" % ns,
             configmap("obs", {"k": "v"}))
    assert r.status == 201, r
    rv = int(r.json["metadata"]["resourceVersion"])

    # every worker answers it (new connections; the workers of the
    # reload before may still be bootstrapping a moment)
    assert eventually(lambda: all(
        call(srv, "GET", "/readyz").status == 200 for _ in range(6)),
        timeout=30)
    for _ in range(6):
        ready = call(srv, "GET", "/readyz?verbose",
                     headers={"Accept": "text/plain"})
        assert ready.status == 200, ready
        text = ready.body.decode()
        assert "[+]etcd-mirror ok\n" in text, text
        assert text.index("[+]etcd-readiness ok") \
            < text.index("[+]etcd-mirror ok"), text
    one = call(srv, "GET", "/readyz/etcd-mirror")
    assert one.status == 200 and one.body == b"ok", one

    def fed():
        m = metrics(srv)
        return (value(m, "ngx_gcp_etcd_mirror_revision") >= rv
                and value(m, "ngx_gcp_etcd_mirror_events_total") >= 1) \
            and m
    m = eventually(fed, timeout=30)
    assert m
    assert value(m, "ngx_gcp_etcd_mirror_feeder_takeovers_total") >= 1
    assert value(m, "ngx_gcp_etcd_mirror_loads_total") >= 1
    assert "ngx_gcp_etcd_mirror_lag_revisions" in m


def test_readyz_without_feeder():
    """etcd gone: no worker feeds the mirror, the check fails; etcd back:
    it passes again."""
    with EtcdCluster(members=1) as own:
        s = GcpServer(workers=2, etcd=own.endpoints,
                      storage_opts="mirror=%s" % "MIRROR")
        s.storage_opts = s.storage_opts.replace(
            "MIRROR", os.path.join(s.data_dir, "mirror"))
        s.start(timeout=60)
        try:
            assert eventually(lambda: call(
                s, "GET", "/readyz/etcd-mirror").status == 200, timeout=30)
            own.kill(0)

            def failing():
                r = call(s, "GET", "/readyz?verbose",
                         headers={"Accept": "text/plain"})
                return (r.status == 500
                        and "[-]etcd-mirror failed: reason withheld"
                        in r.body.decode())
            assert eventually(failing, timeout=30)
            own.restart(0)
            own.wait(0)
            assert eventually(lambda: call(
                s, "GET", "/readyz/etcd-mirror").status == 200, timeout=60)
        finally:
            s.stop(check=False)


def loaded_again(srv):
    return [line for line in srv.logs().splitlines()
            if "is loaded again" in line]


def too_old_events(srv, path, rv):
    r = call(srv, "GET", path + "?watch=1&resourceVersion=%d"
             "&timeoutSeconds=5" % rv)
    assert r.status == 200, r
    return [json.loads(line) for line in r.body.splitlines() if line]


def too_old_base(srv, path, rv):
    """The oldest resourceVersion named by the 410 of a watch from rv."""
    lines = too_old_events(srv, path, rv)
    assert len(lines) == 1 and lines[0]["type"] == "ERROR", lines
    msg = lines[0]["object"]["message"]
    assert msg.startswith("too old resource version: %d (" % rv), msg
    return int(msg.rsplit("(", 1)[1].rstrip(")"))


def check_too_old(srv, path, base):
    """A watch from base - 1 ends with 410 Expired naming base, as
    kube-apiserver's watch cache answers below its window; one from base
    sees a change made after it."""
    assert base > 1
    lines = too_old_events(srv, path, base - 1)
    assert lines == [{"type": "ERROR", "object": {
        "kind": "Status", "apiVersion": "v1", "metadata": {},
        "status": "Failure", "reason": "Expired", "code": 410,
        "message": "too old resource version: %d (%d)"
                   % (base - 1, base)}}], lines

    w = Watcher(srv, path + "?watch=1&resourceVersion=%d" % base)
    try:
        c = call(srv, "POST", path, configmap("after-base", {"k": "v"}))
        assert c.status == 201, c
        assert eventually(lambda: "after-base" in w.names(), timeout=30)
        assert all(e["type"] != "ERROR" for e in w.events), w.events
    finally:
        w.close()
    d = call(srv, "DELETE", path + "/after-base")
    assert d.status == 200, d


def test_identity(etcd):
    """The mirror directory outlives its instance: kept for the same etcd
    and prefix, loaded again for another prefix or after a compaction
    past it."""
    s = GcpServer(workers=2, etcd=etcd.endpoints,
                  storage_opts="prefix=/gcp-ident mirror=MIRROR")
    s.storage_opts = s.storage_opts.replace(
        "MIRROR", os.path.join(s.data_dir, "mirror"))
    path = "/api/v1/namespaces/default/configmaps"
    s.start(timeout=60)
    try:
        r = call(s, "POST", path, configmap("ident", {"k": "v"}))
        assert r.status == 201, r

        # same etcd, same prefix: kept, resumed without a load
        s.restart(timeout=60)
        assert loaded_again(s) == []
        assert call(s, "GET", path + "/ident").status == 200
        assert value(metrics(s), "ngx_gcp_etcd_mirror_loads_total") == 0

        # another prefix: the old copy is never served
        s.storage_opts = s.storage_opts.replace("/gcp-ident",
                                                "/gcp-ident-other")
        s.restart(timeout=60)
        assert any("another etcd cluster or prefix" in line
                   for line in loaded_again(s)), s.logs()
        assert call(s, "GET", path + "/ident").status == 404
        lst = call(s, "GET", path)
        assert lst.status == 200 and lst.json["items"] == [], lst

        # the mirror's history begins at its load: a watch from before it
        # gets the watch cache's 410 naming the oldest resourceVersion a
        # watch may start from, and a watch from there works
        check_too_old(s, path, too_old_base(s, path, 1))

        # back to the first prefix: loaded again, the object is there
        s.storage_opts = s.storage_opts.replace("/gcp-ident-other",
                                                "/gcp-ident")
        s.restart(timeout=60)
        assert call(s, "GET", path + "/ident").status == 200
        s.quit()

        # etcd compacted past the mirror while the instance was down
        rev = None
        for i in range(3):
            st, body = etcd.post(0, "/v3/kv/put", {"key": "L2djcC14",
                                                   "value": "eA=="})
            assert st == 200, body
            rev = body["header"]["revision"]
        st, body = etcd.post(0, "/v3/kv/compaction", {"revision": rev})
        assert st == 200, body
        before = len(loaded_again(s))
        s.start(timeout=60)
        assert any("compacted" in line
                   for line in loaded_again(s)[before:]), s.logs()
        assert call(s, "GET", path + "/ident").status == 200
        assert eventually(lambda: value(
            metrics(s), "ngx_gcp_etcd_mirror_loads_total") == 1, timeout=30)
    finally:
        s.stop(check=False)


def test_bootstrap_retried():
    """A worker whose bootstrap failed (etcd down at start, past the
    timeout) tries it again until it succeeds: ready once etcd is back."""
    with EtcdCluster(members=1) as own:
        own.kill(0)
        s = GcpServer(workers=2, etcd=own.endpoints,
                      storage_opts="mirror=MIRROR")
        s.storage_opts = s.storage_opts.replace(
            "MIRROR", os.path.join(s.data_dir, "mirror"))
        started = []
        t = threading.Thread(target=lambda: started.append(
            s.start(timeout=120)), daemon=True)
        t.start()
        try:
            assert eventually(lambda: "bootstrap failed" in s.logs(),
                              timeout=60)
            own.restart(0)
            own.wait(0)
            t.join(120)
            assert started, s.logs()[-3000:]
            assert eventually(lambda: all(
                call(s, "GET", "/readyz").status == 200
                for _ in range(4)), timeout=60)
            ns = call(s, "GET", "/api/v1/namespaces/default")
            assert ns.status == 200, ns
        finally:
            t.join(5)
            s.stop(check=False)


ALICE = "tok-alice,alice,uid-alice\n"
ALICE_RBAC = """
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: ns-reader}
rules:
- {apiGroups: [""], resources: [namespaces], verbs: [list]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: ns-reader}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole,
          name: ns-reader}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}
"""


def alice_lists(s, timeout=30):
    return call(s, "GET", "/api/v1/namespaces",
                headers={"Authorization": "Bearer tok-alice"},
                conn=s.connection(None, timeout=timeout))


def test_reload_waits_for_caches():
    """New workers of a reload hold their first requests until their
    caches (the RBAC policy, the flowcontrol configuration) are loaded:
    with etcd stopped across the reload (the mirror cannot be checked, it
    is loaded again), a user allowed by RBAC is neither refused nor
    classified by the mandatory configuration only: held, then served as
    the old workers served it once etcd answers (or 503 after the storage
    timeout, never 403)."""
    with EtcdCluster(members=1) as own:
        s = GcpServer(workers=2, etcd=own.endpoints, tls=True,
                      token_file=ALICE,
                      storage_opts="timeout=3s mirror=MIRROR")
        s.storage_opts = s.storage_opts.replace(
            "MIRROR", os.path.join(s.data_dir, "mirror"))
        s.start(timeout=60)
        stopped = False
        try:
            s.kubectl("apply", "-f", "-", input=ALICE_RBAC)
            fs = call(s, "GET", "/apis/flowcontrol.apiserver.k8s.io/v1/"
                      "flowschemas/global-default",
                      conn=s.connection())
            assert fs.status == 200, fs
            uid = fs.json["metadata"]["uid"]

            def served():
                r = alice_lists(s)
                return (r.status == 200 and r.header(
                    "x-kubernetes-pf-flowschema-uid") == uid)
            assert eventually(lambda: all(served() for _ in range(4)),
                              timeout=30)

            old = s.worker_pids()
            os.kill(own.procs[0].pid, signal.SIGSTOP)
            stopped = True
            s.reload()
            assert eventually(lambda: not any(p in s.worker_pids()
                                              for p in old)
                              and len(s.worker_pids()) == 2, timeout=60)

            got = []
            t = threading.Thread(target=lambda: got.append(
                alice_lists(s, timeout=120)), daemon=True)
            t.start()
            t.join(1)
            # held: an answer now could only come from caches not loaded
            assert not got, got[0]
            os.kill(own.procs[0].pid, signal.SIGCONT)
            stopped = False
            t.join(120)
            assert got, "no answer"
            r = got[0]
            if r.status == 503:
                # held past the storage timeout (a loaded machine)
                assert "loading its caches" in r.json["message"], r
                assert eventually(served, timeout=60)
            else:
                assert r.status == 200, r
                assert r.header("x-kubernetes-pf-flowschema-uid") == uid, \
                    r.headers
        finally:
            if stopped:
                os.kill(own.procs[0].pid, signal.SIGCONT)
            s.stop(check=False)


def test_etcd_replaced():
    """Another etcd (another cluster id) under the instance's endpoint at
    run time: the feeder sees it in the first reply, empties the mirror
    and has the instance reloaded; the new workers load the mirror from
    the new etcd, whose objects are served, never the old cluster's; a
    watch from before ends."""
    a = EtcdCluster(members=1).start()
    b = None
    s = GcpServer(workers=2, etcd=a.endpoints)
    try:
        s.start(timeout=60)
        create_namespace(s, "replaced")
        path = "/api/v1/namespaces/replaced/configmaps"
        c = call(s, "POST", path, configmap("old-cm", {"k": "v"}))
        assert c.status == 201, c
        rv = c.json["metadata"]["resourceVersion"]
        w = Watcher(s, path + "?watch=1&resourceVersion=%s" % rv)

        # etcd B on A's client port, with other data (a cluster id of
        # its own: another token)
        b = EtcdCluster(members=1)
        b.client_ports = list(a.client_ports)
        a.kill(0)
        b.start()

        assert eventually(lambda: "another cluster id" in s.logs(),
                          timeout=60)
        # the new workers serve etcd B: the old objects are gone
        assert eventually(lambda: call(
            s, "GET", "/api/v1/namespaces/default").status == 200,
            timeout=60)
        r = call(s, "GET", path + "/old-cm")
        assert r.status == 404, r
        names = [n["metadata"]["name"] for n in call(
            s, "GET", "/api/v1/namespaces").json["items"]]
        assert "replaced" not in names and "default" in names, names
        # a watch from before the replacement has ended
        w.thread.join(60)
        assert not w.thread.is_alive()
        # (nothing of etcd B's revisions: its 410 is left to do)
        assert all(e["type"] == "ERROR" for e in w.events), w.events
        # writes go to etcd B and are read back
        create_namespace(s, "after")
        c = call(s, "POST", "/api/v1/namespaces/after/configmaps",
                 configmap("new-cm", {"k": "w"}))
        assert c.status == 201, c
        assert call(s, "GET", "/api/v1/namespaces/after/configmaps/"
                    "new-cm").status == 200
    finally:
        s.stop(check=False)
        if b is not None:
            b.stop()
        a.stop()
