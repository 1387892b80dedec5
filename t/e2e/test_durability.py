"""Durability: a write is acknowledged only once it is on disk.  Clients
create objects from several threads while the master and every worker are
killed with SIGKILL; after a restart on the same data directory every
create that was answered 201 is there, unchanged, and the server works."""

import errno
import http.client
import os
import subprocess
import threading
import time

import pytest

from gcp_http import call, configmap, create_namespace
from gcp_server import GcpServer
import gcp_wait

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


class OutsideLogServer(GcpServer):
    """A server whose logs are kept outside its data directory."""

    def __init__(self, log_dir, **kw):
        self.log_dir = log_dir
        super().__init__(**kw)

    @property
    def error_log(self):
        return os.path.join(self.log_dir, "error.log")

    @property
    def stderr_log(self):
        return os.path.join(self.log_dir, "stderr.log")

    def _env(self):
        env = super()._env()
        env["GCP_PID"] = os.path.join(self.log_dir, "nginx.pid")
        return env


@pytest.fixture
def small_disk(tmp_path):
    """A 32 MiB tmpfs for a data directory (root only)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mnt = tmp_path / "disk"
    mnt.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs",
                    str(mnt)], check=True)
    try:
        yield str(mnt)
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_full_disk(small_disk, tmp_path, storage):
    """On a full disk a server with an intact database starts (gcp-run
    does not write an unchanged nginx.conf or kubeconfig again) and serves
    reads; a write fails with a 5xx that the error log shows."""
    if storage != "lmdb":
        pytest.skip("the database of this test is LMDB")
    logs = tmp_path / "logs"
    logs.mkdir()
    srv = OutsideLogServer(str(logs), workers=2, data_dir=small_disk)
    srv.start()
    try:
        r = call(srv, "POST", "/api/v1/namespaces/default/configmaps",
                 configmap("kept", {"k": "v"}))
        assert r.status == 201, r
    finally:
        srv.stop()

    # fill the disk
    with open(os.path.join(small_disk, "fill"), "wb") as f:
        try:
            while True:
                f.write(b"\0" * (1 << 20))
                f.flush()
        except OSError as e:
            assert e.errno == errno.ENOSPC

    srv.start()
    try:
        r = call(srv, "GET", "/api/v1/namespaces/default/configmaps/kept")
        assert r.status == 200, r
        assert r.json["data"] == {"k": "v"}

        r = call(srv, "POST", "/api/v1/namespaces/default/configmaps",
                 configmap("big", {"k": "x" * (100 << 10)}))
        assert r.status >= 500, r

        def logged():
            with open(srv.error_log, errors="replace") as f:
                return [l for l in f if "gcp: %d for POST" % r.status in l]
        assert gcp_wait.eventually(logged)
    finally:
        srv.stop()
