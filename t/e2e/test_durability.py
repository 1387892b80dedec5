"""Durability: a write is acknowledged only once it is on disk.  Clients
create objects from several threads while the master and every worker are
killed with SIGKILL; after a restart on the same data directory every
create that was answered 201 is there, unchanged, and the server works."""

import http.client
import threading
import time

import pytest

from gcp_http import call, configmap, create_namespace
from gcp_server import GcpServer

THREADS = 6


@pytest.fixture
def own_server():
    srv = GcpServer(workers=2).start()
    try:
        yield srv
    finally:
        srv.stop()


def create_load(srv, ns, stop, acked, failed, tid):
    """Creates configmaps until stop is set or the server goes away;
    records every 201 in acked (name -> (uid, resourceVersion))."""
    path = "/api/v1/namespaces/%s/configmaps" % ns
    i = 0
    while not stop.is_set():
        name = "t%d-%d" % (tid, i)
        i += 1
        try:
            r = call(srv, "POST", path,
                     configmap(name, {"thread": str(tid), "i": str(i),
                                      "pad": "x" * 512}), timeout=10)
        except (OSError, http.client.HTTPException):
            failed.append(name)
            return
        if r.status != 201:
            failed.append(name)
            return
        acked[name] = (r.json["metadata"]["uid"],
                       r.json["metadata"]["resourceVersion"])


def test_acknowledged_creates_survive_kill9(own_server):
    srv = own_server
    ns = "durable"
    create_namespace(srv, ns)

    stop = threading.Event()
    acked = {}
    failed = []
    threads = [threading.Thread(target=create_load,
                                args=(srv, ns, stop, acked, failed, t))
               for t in range(THREADS)]
    for t in threads:
        t.start()

    # kill in the middle of the load
    deadline = time.monotonic() + 20
    while len(acked) < 200 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(acked) >= 200, "the load did not get going"
    workers = srv.worker_pids()
    assert len(workers) == 2
    srv.kill9()
    for pid in workers:
        assert not _alive(pid)

    # the threads run on until the dead server refuses them (setting stop
    # now would let a thread that was slow to be scheduled end quietly)
    for t in threads:
        t.join(30)
    stop.set()
    assert not any(t.is_alive() for t in threads)
    # every thread was cut off by the kill, in the middle of its work
    assert len(failed) == THREADS

    snapshot = dict(acked)
    srv.start()

    # every acknowledged create is there, as it was answered
    path = "/api/v1/namespaces/%s/configmaps" % ns
    lst = call(srv, "GET", path)
    assert lst.status == 200
    stored = {i["metadata"]["name"]: i for i in lst.json["items"]}
    missing = [n for n in snapshot if n not in stored]
    assert missing == []
    for name, (uid, rv) in snapshot.items():
        obj = stored[name]
        assert obj["metadata"]["uid"] == uid
        assert obj["metadata"]["resourceVersion"] == rv
        assert obj["data"]["pad"] == "x" * 512

    # the ones in flight at the kill are either whole or absent
    for name in failed:
        if name in stored:
            assert stored[name]["data"]["pad"] == "x" * 512

    # single reads agree (through either worker)
    for name in list(snapshot)[:50]:
        r = call(srv, "GET", "%s/%s" % (path, name))
        assert r.status == 200
        assert r.json["metadata"]["uid"] == snapshot[name][0]

    # and the server works: revisions continue after the newest stored
    newest = max(int(i["metadata"]["resourceVersion"])
                 for i in stored.values())
    r = call(srv, "POST", path, configmap("after-restart", {"k": "v"}))
    assert r.status == 201, r
    assert int(r.json["metadata"]["resourceVersion"]) > newest
    assert call(srv, "GET", path + "/after-restart").json["data"] == {
        "k": "v"}
    r = call(srv, "DELETE", path + "/" + next(iter(snapshot)))
    assert r.status == 200, r

    # a watch from before the kill replays what came after it
    c_rv = lst.json["metadata"]["resourceVersion"]
    r = call(srv, "GET", path + "?watch=1&timeoutSeconds=1&resourceVersion="
             + c_rv)
    types = [line.split(b'"')[3] for line in r.body.splitlines()]
    assert types == [b"ADDED", b"DELETED"]


def _alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
