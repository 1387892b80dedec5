"""What nginx and the adapter add around the API core: request body limits,
nginx's own errors as Status, watch streaming (promptness, timeouts,
backpressure, clients going away), several workers, graceful exit."""

import gzip
import http.client
import json
import os
import random
import socket
import subprocess
import threading
import time

import pytest

from gcp_server import GcpServer, free_port
from gcp_wait import eventually

LIMIT = 3145728

TOO_LARGE = (b'{"kind":"Status","apiVersion":"v1","metadata":{},'
             b'"status":"Failure","message":"Request entity too large: '
             b'limit is 3145728","reason":"RequestEntityTooLarge",'
             b'"code":413}')


def connect(srv, timeout=20):
    return http.client.HTTPConnection("127.0.0.1", srv.port,
                                      timeout=timeout)


def configmap(name, data):
    return json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                       "metadata": {"name": name}, "data": data}).encode()


def create_configmap(srv, ns, name, data):
    c = connect(srv)
    try:
        c.request("POST", "/api/v1/namespaces/%s/configmaps" % ns,
                  body=configmap(name, data),
                  headers={"Content-Type": "application/json"})
        r = c.getresponse()
        body = r.read()
        assert r.status == 201, body
        return json.loads(body)
    finally:
        c.close()


def start_watch(srv, path, timeout=30, headers=None):
    """Returns (connection, response) of a watch whose headers arrived."""
    c = connect(srv, timeout)
    c.request("GET", path, headers=headers or {})
    r = c.getresponse()
    assert r.status == 200, r.read()
    return c, r


def raw_exchange(srv, data, timeout=10):
    """Sends raw bytes, returns everything the server answers until it
    closes the connection."""
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=timeout)
    try:
        s.sendall(data)
        out = b""
        while True:
            d = s.recv(65536)
            if not d:
                return out
            out += d
    finally:
        s.close()


def split_response(raw):
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers.setdefault(k.strip().lower(), []).append(v.strip())
    return status, headers, body


# ---------------------------------------------------------------- bodies


def test_body_over_limit_with_content_length(server):
    c = connect(server)
    c.request("POST", "/api/v1/namespaces/default/configmaps",
              body=b"x" * (4 * 1024 * 1024),
              headers={"Content-Type": "application/json"})
    r = c.getresponse()

    assert r.status == 413
    assert r.getheader("Content-Type") == "application/json"
    assert r.read() == TOO_LARGE


def test_body_over_limit_chunked(server):
    def chunks():
        for _ in range(64):
            yield b"x" * 65536

    c = connect(server)
    c.request("POST", "/api/v1/namespaces/default/configmaps",
              body=chunks(), encode_chunked=True,
              headers={"Content-Type": "application/json",
                       "Transfer-Encoding": "chunked"})
    r = c.getresponse()

    assert r.status == 413
    assert r.getheader("Content-Type") == "application/json"
    assert r.read() == TOO_LARGE


@pytest.mark.parametrize("chunked", [False, True])
def test_large_body_reaches_the_core_whole(server, namespace, unique_name,
                                           chunked):
    # over client_body_buffer_size: nginx spools it to a file, the
    # adapter reads it back into one buffer
    value = ("0123456789abcdef" * 65536)[:1000000]
    name = unique_name("big")
    body = configmap(name, {"v": value})

    c = connect(server)
    path = "/api/v1/namespaces/%s/configmaps" % namespace
    headers = {"Content-Type": "application/json"}
    if chunked:
        headers["Transfer-Encoding"] = "chunked"
        c.request("POST", path, encode_chunked=True, headers=headers,
                  body=(body[i:i + 100000]
                        for i in range(0, len(body), 100000)))
    else:
        c.request("POST", path, body=body, headers=headers)
    r = c.getresponse()
    assert r.status == 201, r.read()
    r.read()

    c.request("GET", "%s/%s" % (path, name))
    r = c.getresponse()
    assert r.status == 200
    assert json.loads(r.read())["data"] == {"v": value}


# ---------------------------------------------------------------- errors


BIG = "a" * 70000


@pytest.mark.parametrize("request_bytes, status, message, reason", [
    (b"GARBAGE\r\n\r\n", 400, "Bad Request", "BadRequest"),
    (("GET /%s HTTP/1.1\r\nHost: x\r\n\r\n" % BIG).encode(), 414,
     "Request-URI Too Large", "BadRequest"),
    (("GET /api HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\n\r\n" % BIG).encode(),
     400, "Bad Request", "BadRequest"),
    (b"GET /api HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501,
     "Not Implemented", "InternalError"),
], ids=["bad-request-line", "uri-too-long", "header-too-large",
        "unknown-transfer-encoding"])
def test_nginx_errors_are_status(server, request_bytes, status, message,
                                 reason):
    got, headers, body = split_response(raw_exchange(server, request_bytes))

    assert got == status
    assert headers["content-type"] == ["application/json"]
    assert headers["cache-control"] == ["no-cache, private"]
    assert "server" not in headers
    assert json.loads(body) == {
        "kind": "Status", "apiVersion": "v1", "metadata": {},
        "status": "Failure", "message": message, "reason": reason,
        "code": status}
    assert int(headers["content-length"][0]) == len(body)


def test_core_responses_pass_untouched(server):
    # the core's own 404 for a non-API path is text/plain, not a Status
    c = connect(server)
    c.request("GET", "/nosuchpath")
    r = c.getresponse()

    assert r.status == 404
    assert r.getheader("Content-Type") == "text/plain; charset=utf-8"
    assert r.read() == b"404 page not found\n"
    assert r.getheader("Server") is None


def test_each_warning_is_a_header(server, namespace, unique_name):
    name = unique_name("warn")
    body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                       "metadata": {"name": name, "unknownMeta": 1},
                       "data": {"k": "v"}, "spec": {"x": 1}}).encode()
    c = connect(server)
    c.request("POST", "/api/v1/namespaces/%s/configmaps?fieldValidation=Warn"
              % namespace, body=body,
              headers={"Content-Type": "application/json"})
    r = c.getresponse()
    r.read()

    assert r.status == 201
    assert r.msg.get_all("Warning") == [
        '299 - "unknown field \\"metadata.unknownMeta\\""',
        '299 - "unknown field \\"spec\\""']


def test_gzip_for_large_responses_only(server, namespace, unique_name):
    for i in range(2):
        create_configmap(server, namespace, unique_name("gz"),
                         {"v": "x" * 100000})
    c = connect(server)
    gz = {"Accept-Encoding": "gzip"}

    c.request("GET", "/api/v1/namespaces/%s/configmaps" % namespace,
              headers=gz)
    r = c.getresponse()
    assert r.status == 200
    assert r.getheader("Content-Encoding") == "gzip"
    assert len(json.loads(gzip.decompress(r.read()))["items"]) == 2

    c.request("GET", "/api/v1/namespaces/%s" % namespace, headers=gz)
    r = c.getresponse()
    assert r.status == 200
    assert r.getheader("Content-Encoding") is None
    assert json.loads(r.read())["metadata"]["name"] == namespace


# ---------------------------------------------------------------- watches


def test_watch_streams_promptly_and_ends_at_timeout(server, namespace,
                                                    unique_name):
    t0 = time.monotonic()
    c, r = start_watch(server, "/api/v1/namespaces/%s/configmaps?watch=1"
                       "&timeoutSeconds=2" % namespace,
                       headers={"Accept-Encoding": "gzip"})
    sock = c.sock

    # headers at once, chunked, never compressed
    assert time.monotonic() - t0 < 1
    assert r.getheader("Transfer-Encoding") == "chunked"
    assert r.getheader("Content-Type") == "application/json"
    assert r.getheader("Content-Encoding") is None
    assert r.getheader("Vary") is None

    time.sleep(0.2)
    name = unique_name("w")
    create_configmap(server, namespace, name, {"k": "v"})
    created = time.monotonic()

    event = json.loads(r.readline())
    arrived = time.monotonic()
    assert event["type"] == "ADDED"
    assert event["object"]["metadata"]["name"] == name
    assert arrived - created < 0.5

    assert r.read() == b""
    ended = time.monotonic() - t0
    assert 1.9 <= ended < 3.5

    # the connection is kept alive after a clean end
    assert not r.will_close
    c.request("GET", "/api/v1/namespaces/%s" % namespace)
    r = c.getresponse()
    assert r.status == 200
    r.read()
    assert c.sock is sock


def test_watch_client_going_away_frees_the_watch(server, namespace,
                                                 unique_name):
    path = "/api/v1/namespaces/%s/configmaps?watch=1" % namespace
    s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % path).encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(4096)
    assert head.startswith(b"HTTP/1.1 200")
    s.close()

    # noticed while the watch is idle, not at the next event
    assert eventually(lambda: any("client prematurely closed connection"
                                  in line and path in line
                                  for line in server.logs().splitlines()),
                      5), "the server did not notice the client went away"

    # an event for the cancelled watch must go nowhere
    create_configmap(server, namespace, unique_name("gone"), {"k": "v"})
    time.sleep(0.2)
    assert server.crash_lines() == []


def test_watch_clients_going_away_at_any_moment(server, namespace):
    """Watches of every start (an initial list or not) whose clients go
    away at once, after a little, or mid-stream, while configmaps are
    written: on etcd the initial list may still be in flight then, and
    the request's memory must outlive it."""
    stop = []

    def writer():
        i = 0
        while not stop:
            create_configmap(server, namespace, "churn-%d" % i, {"k": "v"})
            i += 1

    queries = ["watch=1", "watch=1&resourceVersion=0",
               "watch=1&allowWatchBookmarks=true",
               "watch=1&sendInitialEvents=true"
               "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"]
    accepts = ["application/json", "application/vnd.kubernetes.protobuf",
               "application/yaml"]
    rnd = random.Random(4080)
    t = threading.Thread(target=writer)
    t.start()
    try:
        for n in range(150):
            path = "/api/v1/namespaces/%s/configmaps?%s" % (
                namespace, rnd.choice(queries))
            s = socket.create_connection(("127.0.0.1", server.port))
            s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nAccept: %s\r\n\r\n"
                       % (path, rnd.choice(accepts))).encode())
            if n % 3 == 1:
                s.recv(100)
            elif n % 3 == 2:
                time.sleep(rnd.random() / 50)
            s.close()
    finally:
        stop.append(1)
        t.join()

    time.sleep(0.3)
    assert server.crash_lines() == []


@pytest.fixture(scope="module")
def tuned():
    """Two workers on a reuseport listener (connections spread over both),
    small socket buffers and a 1 MiB watch buffer; an HTTP/2 (h2c)
    listener beside."""
    h2_port = free_port()
    srv = GcpServer(workers=2, listen_params="reuseport sndbuf=32k",
                    http_extra="gcp_watch_buffer 1m;",
                    server_extra="listen 127.0.0.1:%d http2;" % h2_port)
    srv.h2_port = h2_port
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


def new_namespace(srv, prefix):
    name = "%s-%s" % (prefix, os.urandom(4).hex())
    c = connect(srv)
    c.request("POST", "/api/v1/namespaces", headers={
        "Content-Type": "application/json"}, body=json.dumps({
            "apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": name}}).encode())
    r = c.getresponse()
    assert r.status == 201, r.read()
    c.close()
    return name


def test_stalled_watch_client_is_cut_off(tuned):
    ns = new_namespace(tuned, "stall")
    path = "/api/v1/namespaces/%s/configmaps?watch=1&timeoutSeconds=" % ns

    stalled = socket.socket()
    stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stalled.connect(("127.0.0.1", tuned.port))
    stalled.sendall(("GET %s60 HTTP/1.1\r\nHost: x\r\n\r\n"
                     % path).encode())

    n = 40
    size = 65536
    events = []

    def reader():
        c, r = start_watch(tuned, path + "30")
        try:
            while len(events) < n:
                line = r.readline()
                if not line:
                    break
                events.append(json.loads(line)["type"])
        except http.client.HTTPException as e:
            events.append(repr(e))
        c.close()

    t = threading.Thread(target=reader)
    t.start()
    time.sleep(0.5)

    # 2.5 MiB of events, more than the stalled client's socket buffers and
    # watch buffer hold; each written once the reading watcher got the
    # previous one
    for i in range(n):
        create_configmap(tuned, ns, "cm-%d" % i, {"v": "x" * size})
        assert eventually(lambda: len(events) > i, 5), "no event %d" % i

    # the reading watcher got everything
    t.join(30)
    assert events == ["ADDED"] * n

    # the stalled one was cut off: what it can read ends early
    assert eventually(lambda: any("watch client too slow" in line
                                  for line in tuned.logs().splitlines()),
                      5), "the slow watch was not ended"
    stalled.settimeout(10)
    got = 0
    try:
        while True:
            d = stalled.recv(1 << 20)
            if not d:
                break
            got += len(d)
    except ConnectionResetError:
        pass
    stalled.close()
    assert got < n * size
    assert tuned.crash_lines() == []


def test_large_initial_events_are_not_cut_off(tuned):
    # 2.5 MiB of initial ADDED events, written at once, over the 1 MiB
    # watch buffer: they are the data's size, not a slow client
    ns = new_namespace(tuned, "initial")
    n = 40
    for i in range(n):
        create_configmap(tuned, ns, "cm-%d" % i, {"v": "x" * 65536})

    c, r = start_watch(tuned, "/api/v1/namespaces/%s/configmaps?watch=1"
                       "&timeoutSeconds=2" % ns)
    events = []
    while True:
        line = r.readline()
        if not line:
            break
        events.append(json.loads(line)["object"]["metadata"]["name"])
    c.close()

    assert sorted(events) == sorted("cm-%d" % i for i in range(n))


def worker_of_connections(srv, client_ports):
    """Maps each worker pid to how many of the given client connections
    (local ports of our sockets) it holds, from /proc."""
    inode_of = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            local, remote, inode = fields[1], fields[2], fields[9]
            if int(local.split(":")[1], 16) != srv.port:
                continue
            if int(remote.split(":")[1], 16) in client_ports:
                inode_of[inode] = True
    counts = {}
    for pid in srv.worker_pids():
        n = 0
        for fd in os.listdir("/proc/%d/fd" % pid):
            try:
                target = os.readlink("/proc/%d/fd/%s" % (pid, fd))
            except OSError:
                continue
            if target.startswith("socket:[") and target[8:-1] in inode_of:
                n += 1
        counts[pid] = n
    return counts


def test_write_in_one_worker_reaches_watches_in_all(tuned):
    ns = new_namespace(tuned, "workers")
    watches = [start_watch(tuned, "/api/v1/namespaces/%s/configmaps?watch=1"
                           "&timeoutSeconds=20" % ns) for _ in range(16)]
    ports = {c.sock.getsockname()[1] for c, _ in watches}

    counts = worker_of_connections(tuned, ports)
    assert len(counts) == 2
    assert all(n > 0 for n in counts.values()), counts
    assert sum(counts.values()) == 16

    for i in range(3):
        create_configmap(tuned, ns, "cm-%d" % i, {"i": str(i)})

    for c, r in watches:
        c.sock.settimeout(5)
        names = [json.loads(r.readline())["object"]["metadata"]["name"]
                 for _ in range(3)]
        assert names == ["cm-0", "cm-1", "cm-2"]
        c.close()


def test_watch_over_http2(tuned):
    ns = new_namespace(tuned, "h2")
    create_configmap(tuned, ns, "one", {"k": "v"})
    t0 = time.monotonic()
    p = subprocess.run(
        ["curl", "-sS", "-N", "--http2-prior-knowledge",
         "http://127.0.0.1:%d/api/v1/namespaces/%s/configmaps?watch=1"
         "&timeoutSeconds=1" % (tuned.h2_port, ns)],
        capture_output=True, timeout=20)
    took = time.monotonic() - t0

    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == 1
    event = json.loads(lines[0])
    assert (event["type"], event["object"]["metadata"]["name"]) == \
        ("ADDED", "one")
    assert 0.9 <= took < 3


# ---------------------------------------------------------------- processes


def open_watches(srv, ns, n):
    return [start_watch(srv, "/api/v1/namespaces/%s/configmaps?watch=1" % ns)
            for _ in range(n)]


def assert_ended_cleanly(watches):
    for c, r in watches:
        c.sock.settimeout(5)
        # a missing terminating chunk raises IncompleteRead
        assert r.read() == b""
        c.close()


def test_graceful_quit_with_open_watches_exits_promptly():
    srv = GcpServer(workers=2).start()
    try:
        ns = new_namespace(srv, "quit")
        watches = open_watches(srv, ns, 6)
        took = srv.quit()
        assert took < 3
        assert_ended_cleanly(watches)
    finally:
        srv.stop()


def test_reload_ends_watches_and_old_workers_exit():
    srv = GcpServer(workers=2).start()
    try:
        ns = new_namespace(srv, "reload")
        old = srv.worker_pids()
        watches = open_watches(srv, ns, 6)

        srv.reload()
        assert eventually(lambda: not any(os.path.exists("/proc/%d" % p)
                                          for p in old),
                          3), "the old workers did not exit"
        assert_ended_cleanly(watches)

        assert eventually(lambda: len(srv.worker_pids()) == 2, 5), \
            "no new workers"
        srv.kubectl("get", "namespace", ns)
    finally:
        srv.stop()


# ---------------------------------------------------------------- gcp-run


@pytest.mark.parametrize("listen, server_url", [
    ("127.0.0.1:7443", "http://127.0.0.1:7443"),
    ("0.0.0.0:7443", "http://127.0.0.1:7443"),
    ("7443", "http://127.0.0.1:7443"),
    ("[::]:7443", "http://[::1]:7443"),
])
def test_gcp_run_writes_conf_and_kubeconfig(tmp_path, listen, server_url):
    from gcp_server import GCP_RUN
    import yaml

    data = tmp_path / "data"
    env = dict(os.environ, GCP_MODULE="/nonexistent/mod.so",
               GCP_DATA=str(data), GCP_LISTEN=listen)
    env.pop("GCP_WORKERS", None)
    subprocess.run([GCP_RUN, "--config-only"], env=env, check=True,
                   capture_output=True)

    kc = yaml.safe_load((data / "kubeconfig").read_text())
    assert kc["clusters"][0]["cluster"]["server"] == server_url
    assert kc["current-context"] == kc["contexts"][0]["name"]

    conf = (data / "nginx.conf").read_text()
    assert "load_module /nonexistent/mod.so;" in conf
    assert "worker_processes auto;" in conf
    assert "listen %s;" % listen in conf
    assert ("user root;" in conf) == (os.geteuid() == 0)
    assert "gcp_storage lmdb %s/db;" % data in conf
    assert "@" not in conf.split("load_module", 1)[1]
