"""ngx_gcp on etcd (gcp_storage etcd): what only etcd gives.

- the objects are etcd keys /registry/RESOURCE/NAMESPACE/NAME holding the
  object's JSON, readable with etcdctl, resourceVersion = mod_revision;
- two ngx_gcp instances (separate nginx masters, separate ports) on one
  etcd: a write through one is seen by the other's reads (at once with
  consistent_reads=quorum, within the freshness window with the default
  consistent_reads=instance) and by its watchers; concurrent conditional
  updates through both keep exactly one winner per resourceVersion;
- within one instance, a read on any worker sees every write acknowledged
  before it (the shared write watermark), without a probe per read;
- etcd serving HTTPS and requiring client certificates: the cacert=,
  cert= and key= options of gcp_storage etcd;
- a three-member etcd cluster on loopback: killing the member in use
  during a create load loses no acknowledged create and the service goes
  on; without quorum requests fail fast with 503/504 Status errors; with
  the members back the same nginx serves again;
- a write is sent to etcd once: when the kept-alive connection carrying
  a create dies after etcd applied it (a proxy in front of etcd drops
  the answer), the client is told the outcome is unknown (500), never
  409 AlreadyExists for its own create (libcurl would send it again).

The suites shared with LMDB run on etcd with `pytest --storage=etcd`.
"""

import base64
import json
import socket
import threading
import time
import urllib.error
import urllib.request

import pytest

from etcd_cluster import EtcdCluster
from gcp_http import assert_status, call, configmap, connect, create_namespace
from gcp_server import GcpServer, free_port
from gcp_wait import eventually

# every test starts its own etcd: nothing here depends on the session's
# backend, so the etcd session need not run them again (conftest.py)
STORAGE_INDEPENDENT = True


@pytest.fixture(scope="module")
def etcd():
    with EtcdCluster(members=1) as cluster:
        yield cluster


def run_threads(n, target):
    """Runs target(i) in n threads; returns their results (an exception in
    a thread is raised here)."""
    results = [None] * n
    errors = []

    def run(i):
        try:
            results[i] = target(i)
        except BaseException as e:  # noqa: B902 (raised below)
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads), "threads hang"
    if errors:
        raise errors[0]
    return results


def test_objects_are_etcd_keys(etcd, unique_name):
    ns = unique_name("ns")
    with GcpServer(workers=2, etcd=etcd.endpoints,
                   storage_opts="prefix=/registry") as srv:
        create_namespace(srv, ns)
        srv.kubectl("-n", ns, "create", "configmap", "cm1",
                    "--from-literal=color=blue")
        rv = srv.kubectl("-n", ns, "get", "cm", "cm1", "-o",
                         "jsonpath={.metadata.resourceVersion}").stdout

        out = etcd.etcdctl("get", "--prefix", "/registry/configmaps/%s/" % ns)
        key, value = out.splitlines()[:2]
        assert key == "/registry/configmaps/%s/cm1" % ns
        obj = json.loads(value)
        assert obj["kind"] == "ConfigMap"
        assert obj["data"] == {"color": "blue"}
        assert obj["metadata"]["name"] == "cm1"
        assert "resourceVersion" not in obj["metadata"]

        kv = json.loads(etcd.etcdctl("get", "/registry/configmaps/%s/cm1"
                                     % ns, "-w", "json"))["kvs"][0]
        assert str(kv["mod_revision"]) == rv

        out = etcd.etcdctl("get", "/registry/namespaces/%s" % ns,
                           "--print-value-only")
        assert json.loads(out)["metadata"]["name"] == ns

        # written with etcdctl (in the stored form: compact, ordered as
        # Go prints it): served within the freshness window (this instance
        # did not write it), with its revision
        stored = ('{"kind":"ConfigMap","apiVersion":"v1","metadata":'
                  '{"name":"cm2","namespace":"%s","uid":"0f0c8e5e-2f8e-4c8e'
                  '-9a4e-6a1c2b3d4e5f","creationTimestamp":'
                  '"2024-01-01T00:00:00Z"},"data":{"by":"etcdctl"}}' % ns)
        etcd.etcdctl("put", "/registry/configmaps/%s/cm2" % ns, stored)
        r = seen_within_freshness(
            lambda: call(srv, "GET",
                         "/api/v1/namespaces/%s/configmaps/cm2" % ns),
            lambda r: r.status == 200)
        assert r.json["data"] == {"by": "etcdctl"}
        rv2 = r.json["metadata"]["resourceVersion"]
        assert int(rv2) > int(rv)

        # the data outlives nginx
        srv.restart()
        r = call(srv, "GET", "/api/v1/namespaces/%s/configmaps/cm1" % ns)
        assert r.status == 200, r
        assert r.json["metadata"]["resourceVersion"] == rv


def shut(*socks):
    """Shuts both directions of each socket, whatever state it is in."""
    for s in socks:
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class UnreadyServer(GcpServer):
    """A server whose storage is out of reach: started once it answers
    HTTP at all (its /readyz says 503 meanwhile)."""

    def _ready(self):
        try:
            with urllib.request.urlopen(self.url + "/readyz", timeout=2):
                return True
        except urllib.error.HTTPError:
            return True
        except OSError:
            return False


def test_etcd_over_tls_with_client_certificate(unique_name):
    ns = unique_name("ns")
    with EtcdCluster(members=1, tls=True) as etcd:
        assert etcd.endpoints.startswith("https://")
        tls = "cacert=%s cert=%s key=%s" % (etcd.cacert, etcd.cert, etcd.key)
        with GcpServer(workers=2, etcd=etcd.endpoints,
                       storage_opts="prefix=/tls " + tls) as srv:
            create_namespace(srv, ns)
            srv.kubectl("-n", ns, "create", "configmap", "c",
                        "--from-literal=k=v")
            out = etcd.etcdctl("get", "/tls/configmaps/%s/c" % ns,
                               "--print-value-only")
            assert json.loads(out)["data"] == {"k": "v"}
            r = call(srv, "GET", "/api/v1/namespaces/%s/configmaps/c" % ns)
            assert r.status == 200 and r.json["data"] == {"k": "v"}, r

        # without a client certificate etcd refuses the connection: the
        # server answers Status errors within the timeout, never hangs
        with UnreadyServer(workers=1, etcd=etcd.endpoints,
                           storage_opts="prefix=/tls timeout=1s cacert=%s"
                           % etcd.cacert) as srv:
            for _ in range(3):
                t0 = time.time()
                r = call(srv, "GET", "/api/v1/namespaces/%s/configmaps/c"
                         % ns)
                assert r.status in (503, 504), r
                assert r.json["kind"] == "Status"
                assert r.json["code"] == r.status
                assert time.time() - t0 < 3.0
            # curl's sockets leave the event loop cleanly (no EBADF)
            with open(srv.error_log) as f:
                assert "epoll_ctl" not in f.read()


def watch_lines(srv, path, out, ready, stop_after):
    """Reads watch events from srv into out until stop_after arrived."""
    c = connect(srv, timeout=30)
    c.request("GET", path)
    r = c.getresponse()
    assert r.status == 200
    ready.set()
    buf = b""
    while len(out) < stop_after:
        chunk = r.read1(65536)
        if not chunk:
            break
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            if line.strip():
                out.append(json.loads(line))
    c.close()


FRESHNESS = 1.0  # gcp_storage etcd freshness=, its default


def seen_within_freshness(read, seen):
    """read() until seen(answer), called as soon as a write made elsewhere
    (another instance, etcdctl) was acknowledged: with the default
    consistent_reads=instance a read started more than FRESHNESS after it
    must see it (docs/storage.md, "Consistent reads"), an earlier one may
    not.  Returns the answer that saw it."""
    answers = []

    def check():
        answers.append(read())
        return seen(answers[-1])

    assert eventually(check, FRESHNESS, interval=0.005), answers[-1]
    return answers[-1]


def test_two_instances_one_etcd(etcd, unique_name):
    ns = unique_name("ns")
    prefix = "prefix=/two-" + unique_name("p")
    # a: the default consistent_reads=instance; b: quorum
    with GcpServer(workers=2, etcd=etcd.endpoints, storage_opts=prefix) as a, \
            GcpServer(workers=2, etcd=etcd.endpoints,
                      storage_opts=prefix + " consistent_reads=quorum") as b:
        assert a.master_pid != b.master_pid and a.port != b.port
        create_namespace(a, ns)
        path = "/api/v1/namespaces/%s/configmaps" % ns

        # a watcher on b sees what is written through a
        r = call(b, "GET", path)
        assert r.status == 200, r
        events, ready = [], threading.Event()
        t = threading.Thread(target=watch_lines, args=(
            b, path + "?watch=1&resourceVersion=%s"
            % r.json["metadata"]["resourceVersion"], events, ready, 3))
        t.start()
        assert ready.wait(10)

        created = []
        for i in range(3):
            r = call(a, "POST", path, configmap("w%d" % i, {"i": str(i)}))
            assert r.status == 201, r
            created.append(r.json)
            # and b's reads see it at once (quorum reads)
            r = call(b, "GET", path + "/w%d" % i)
            assert r.status == 200, r
            assert r.json["metadata"]["resourceVersion"] == \
                created[-1]["metadata"]["resourceVersion"]

        t.join(20)
        assert [e["type"] for e in events] == ["ADDED"] * 3
        assert [e["object"]["metadata"]["resourceVersion"] for e in events] \
            == [c["metadata"]["resourceVersion"] for c in created]

        # conditional updates through both: one winner per version
        r = call(a, "POST", path, configmap("counter", {"n": "0"}))
        assert r.status == 201, r
        servers = [a, b]

        def writer(i):
            srv = servers[i % 2]
            wins, done = [], 0
            while done < 10:
                r = call(srv, "GET", path + "/counter")
                assert r.status == 200, r
                cm = r.json
                n = int(cm["data"]["n"])
                cm["data"]["n"] = str(n + 1)
                r = call(srv, "PUT", path + "/counter", cm)
                if r.status == 409:
                    assert_status(r, 409, "Conflict")
                    continue
                assert r.status == 200, r
                wins.append((n + 1, int(r.json["metadata"]
                                        ["resourceVersion"])))
                done += 1
            return wins

        wins = sorted(w for ws in run_threads(8, writer) for w in ws)
        assert [n for n, _ in wins] == list(range(1, 81))
        revs = [rv for _, rv in wins]
        assert revs == sorted(revs) and len(set(revs)) == 80
        r = call(b, "GET", path + "/counter")
        assert r.json["data"]["n"] == "80"

        # a's reads see writes made through b within the freshness window
        r = call(b, "PUT", path + "/counter", r.json)
        assert r.status == 200, r
        rv = r.json["metadata"]["resourceVersion"]
        seen_within_freshness(
            lambda: call(a, "GET", path + "/counter"),
            lambda r: r.json["metadata"]["resourceVersion"] == rv)


def test_reads_after_writes_across_workers(etcd, unique_name):
    ns = unique_name("ns")
    with GcpServer(workers=4, etcd=etcd.endpoints,
                   storage_opts="prefix=/raw-" + unique_name("p")) as srv:
        create_namespace(srv, ns)
        path = "/api/v1/namespaces/%s/configmaps" % ns
        r = call(srv, "POST", path, configmap("c", {"n": "0"}))
        assert r.status == 201, r
        for i in range(1, 101):
            cm = r.json
            cm["data"]["n"] = str(i)
            # each call on a new connection: any worker answers
            r = call(srv, "PUT", path + "/c", cm)
            assert r.status == 200, r
            got = call(srv, "GET", path + "/c")
            assert got.status == 200, got
            assert got.json["metadata"]["resourceVersion"] == \
                r.json["metadata"]["resourceVersion"], i
            lst = call(srv, "GET", path)
            assert lst.json["items"][0]["data"]["n"] == str(i), i


class Load:
    """Threads creating ConfigMaps until stopped; records what got 201."""

    def __init__(self, srv, ns, threads=4):
        self.srv, self.ns = srv, ns
        self.acked, self.failed = [], []
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self.run, args=(i,))
                        for i in range(threads)]

    def run(self, i):
        n = 0
        while not self.stop.is_set():
            name = "t%d-%05d" % (i, n)
            n += 1
            try:
                r = call(self.srv, "POST", "/api/v1/namespaces/%s/configmaps"
                         % self.ns, configmap(name), timeout=10)
            except OSError as e:
                self.failed.append((time.time(), name, str(e)))
                continue
            if r.status == 201:
                self.acked.append((time.time(), name))
            else:
                # 500 without a reason: sent to a member that went away,
                # its outcome unknown (as kube-apiserver answers it)
                assert r.status in (503, 504) or (
                    r.status == 500 and "reason" not in r.json), r
                assert r.json["kind"] == "Status"
                self.failed.append((time.time(), name, r.status))

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads:
            t.join(30)


def test_three_members_failover_and_quorum(unique_name):
    ns = unique_name("ns")
    with EtcdCluster(members=3) as etcd, \
            GcpServer(workers=2, etcd=etcd.endpoints,
                      storage_opts="timeout=2s") as srv:
        create_namespace(srv, ns)
        path = "/api/v1/namespaces/%s/configmaps" % ns

        # the member every worker starts with dies during a create load
        with Load(srv, ns) as load:
            time.sleep(1.0)
            killed = time.time()
            etcd.kill(0)
            time.sleep(3.0)
        after = [t for t, _ in load.acked if t > killed + 1.5]
        assert len(after) > 10, (len(load.acked), load.failed[:5])

        # no acknowledged create is lost
        r = call(srv, "GET", path)
        assert r.status == 200, r
        names = {i["metadata"]["name"] for i in r.json["items"]}
        lost = [n for _, n in load.acked if n not in names]
        assert lost == []

        # no quorum: Status errors within the timeout, nothing hangs (the
        # write first: reads are served from the workers' copies until
        # the freshness window, 1s, runs out)
        etcd.kill(1)
        for method, body in (("POST", configmap("nq")), ("GET", None)):
            t0 = time.time()
            r = call(srv, method, path if body else path + "?limit=1", body)
            took = time.time() - t0
            assert r.status in (503, 504), r
            assert r.json["kind"] == "Status" and r.json["code"] == r.status
            assert took < 4.0, took

        # quorum back: the same nginx serves again
        etcd.restart(0)
        etcd.restart(1)
        for i in range(3):
            etcd.wait(i)
        deadline = time.time() + 30
        while time.time() < deadline:
            r = call(srv, "POST", path, configmap("back"))
            if r.status == 201:
                break
            time.sleep(0.2)
        assert r.status == 201, r
        r = call(srv, "GET", path + "/back")
        assert r.status == 200, r
        r = call(srv, "GET", path)
        names = {i["metadata"]["name"] for i in r.json["items"]}
        assert {n for _, n in load.acked} <= names


def test_crd_served_by_other_instance(etcd, unique_name):
    """A CRD created through one instance is served by another on the same
    etcd within a second of being Established."""
    from test_crd import GROUP, crd_path, established, widget_crd

    prefix = "prefix=/crd-" + unique_name("p")
    with GcpServer(workers=2, etcd=etcd.endpoints, storage_opts=prefix) as a, \
            GcpServer(workers=2, etcd=etcd.endpoints,
                      storage_opts=prefix) as b:
        crd = widget_crd(plural="twins", kind="Twin", short=(),
                         categories=())
        assert call(a, "POST", crd_path(), crd).status == 201
        assert eventually(lambda: established(a, "twins." + GROUP))
        assert eventually(lambda: call(b, "GET", "/apis/%s/v1/twins"
                                       % GROUP).status == 200, timeout=1.0)


class DroppingProxy:
    """A TCP proxy in front of one etcd member.  arm(needle) makes it drop
    the answer to the next /v3/kv/txn request holding needle that comes on
    a connection which carried a request before (a kept-alive one): the
    request reaches etcd, which applies it, then the proxy closes the
    connection without a byte of the answer, as a member that dies at
    that moment.  txns[needle] counts such requests forwarded."""

    def __init__(self, upstream):
        host, port = upstream.rsplit("//", 1)[1].rsplit(":", 1)
        self.upstream = (host, int(port))
        self.lock = threading.Lock()
        self.needle = None
        self.dropped = 0
        self.txns = 0
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", free_port()))
        self.listener.listen(64)
        self.url = "http://127.0.0.1:%d" % self.listener.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def arm(self, needle):
        with self.lock:
            self.needle, self.txns = needle, 0

    def accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.upstream, timeout=10)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            conn = {"drop": False}
            threading.Thread(target=self.up, args=(client, server, conn),
                             daemon=True).start()
            threading.Thread(target=self.down, args=(client, server, conn),
                             daemon=True).start()

    def up(self, client, server, conn):
        requests, buf = 0, b""
        while True:
            try:
                data = client.recv(65536)
            except OSError:
                data = b""
            if not data:
                break
            buf = (buf + data)[-65536:]
            requests += data.count(b"POST /v3/")
            with self.lock:
                if (self.needle and b"POST /v3/kv/txn" in buf
                        and self.needle in buf):
                    self.txns += 1
                    if requests > 1 and not self.dropped:
                        conn["drop"] = True
                        self.dropped += 1
                    buf = b""
            try:
                server.sendall(data)
            except OSError:
                break
        shut(client, server)

    def down(self, client, server, conn):
        while True:
            try:
                data = server.recv(65536)
            except OSError:
                data = b""
            if not data or conn["drop"]:
                break
            try:
                client.sendall(data)
            except OSError:
                break
        shut(client, server)
        client.close()
        server.close()

    def close(self):
        self.listener.close()


def test_write_sent_once_when_connection_dies(etcd, unique_name):
    """etcd applies a create, the kept-alive connection dies before its
    answer: the client hears 500 (outcome unknown), not 409 for its own
    create; the object exists once, and the next creates succeed."""
    ns = unique_name("ns")
    proxy = DroppingProxy(etcd.endpoints.split(",")[0])
    try:
        with GcpServer(workers=1, etcd=proxy.url,
                       storage_opts="prefix=/once") as srv:
            create_namespace(srv, ns)
            path = "/api/v1/namespaces/%s/configmaps" % ns
            # connections to keep alive and reuse
            for i in range(3):
                r = call(srv, "POST", path, configmap("warm-%d" % i))
                assert r.status == 201, r

            key = "/once/configmaps/%s/target" % ns
            proxy.arm(base64.b64encode(key.encode()))
            r = call(srv, "POST", path, configmap("target"))
            assert proxy.dropped == 1
            assert r.status != 409, r
            assert r.status == 500 and r.json["kind"] == "Status", r
            assert "reason" not in r.json, r
            # sent once: curl's re-send on a fresh connection is refused
            assert proxy.txns == 1

            # applied once (served once the watch brought it)
            assert eventually(lambda: call(
                srv, "GET", path + "/target").status == 200)
            out = etcd.etcdctl("get", "--prefix", key, "--keys-only")
            assert [k for k in out.splitlines() if k] == [key]

            r = call(srv, "POST", path, configmap("after"))
            assert r.status == 201, r
    finally:
        proxy.close()
