"""ngx_gcp on etcd with one copy per instance (gcp_storage etcd
mirror=DIR, docs/storage.md "One copy per instance"):

- one etcd watch stream for the instance, whatever its workers
  (etcd_debugging_mvcc_watch_stream_total on etcd's /metrics);
- the feeding worker (the holder of DIR/feeder.lock, found in
  /proc/locks) killed with SIGKILL: writes made meanwhile are read at
  once through every worker (new connections), a watch started before
  gets every change once and in order, another worker feeds;
- across `nginx -s reload`: the same, the new generation feeds.
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
    ino = os.stat(os.path.join(srv.data_dir, "mirror",
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
