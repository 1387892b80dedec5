"""List and watch at Kubernetes fidelity, across nginx workers.

The informer loop of the official Python client (list, watch from the
list's resourceVersion, resume after the server closes the watch), kubectl
get -w and --chunk-size, a thousand watchers spread over two workers with a
write burst, a stalled reader among them, compacted start points (410 and
relist) and expired continue tokens.
"""

import asyncio
import json
import threading
import time
import urllib.error
import urllib.request

import pytest
from kubernetes import client, watch

from gcp_server import GcpServer
from kubectl_watch import KubectlWatch


def http(base, method, path, body=None, ctype="application/json"):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", ctype)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def cm(name, **labels):
    return {"metadata": {"name": name, "labels": labels},
            "data": {"k": name}}


# ------------------------------------------------------------ informer loop


def test_python_informer_loop_resumes(server, namespace):
    """List, then watch from the list's resourceVersion; the server ends
    each watch (timeoutSeconds=1); the loop resumes from the last
    resourceVersion seen and misses nothing."""
    with server.api_client() as api:
        core = client.CoreV1Api(api)
        for i in range(3):
            core.create_namespaced_config_map(
                namespace, client.V1ConfigMap(
                    metadata=client.V1ObjectMeta(name="pre-%d" % i)))

        lst = core.list_namespaced_config_map(namespace)
        assert sorted(i.metadata.name for i in lst.items) == \
            ["pre-0", "pre-1", "pre-2"]
        rv = lst.metadata.resource_version

        expected = []

        def writer():
            for i in range(12):
                name = "w-%02d" % i
                core.create_namespaced_config_map(
                    namespace, client.V1ConfigMap(
                        metadata=client.V1ObjectMeta(name=name)))
                expected.append(("ADDED", name))
                if i % 3 == 0:
                    core.delete_namespaced_config_map(name, namespace)
                    expected.append(("DELETED", name))
                time.sleep(0.15)

        t = threading.Thread(target=writer)
        t.start()

        seen = []
        rounds = 0
        deadline = time.time() + 30
        while len(seen) < 16 and time.time() < deadline:
            rounds += 1
            w = watch.Watch()
            for ev in w.stream(core.list_namespaced_config_map, namespace,
                               resource_version=rv, timeout_seconds=1):
                seen.append((ev["type"], ev["object"].metadata.name))
                rv = ev["object"].metadata.resource_version
        t.join()

        assert seen == expected
        assert rounds >= 2          # the server ended watches; we resumed


def test_watch_bookmarks_and_initial_events(server, namespace):
    base = server.url
    assert http(base, "POST", "/api/v1/namespaces/%s/configmaps"
                % namespace, cm("a"))[0] == 201

    path = ("/api/v1/namespaces/%s/configmaps?watch=1&sendInitialEvents=true"
            "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
            "&timeoutSeconds=3" % namespace)
    with urllib.request.urlopen(base + path, timeout=10) as resp:
        lines = [json.loads(l) for l in resp.read().splitlines() if l]

    assert lines[0]["type"] == "ADDED"
    assert lines[0]["object"]["metadata"]["name"] == "a"
    assert lines[1]["type"] == "BOOKMARK"
    ann = lines[1]["object"]["metadata"]["annotations"]
    assert ann["k8s.io/initial-events-end"] == "true"
    # a bookmark before the timeout, at the store's revision then (other
    # writes, e.g. the controllers' lease renewals, may have moved it)
    assert lines[-1]["type"] == "BOOKMARK"
    assert int(lines[-1]["object"]["metadata"]["resourceVersion"]) >= \
        int(lines[1]["object"]["metadata"]["resourceVersion"])


# ------------------------------------------------------------ kubectl


def test_kubectl_get_watch(server, namespace):
    with KubectlWatch(server, "-n", namespace, "get", "configmaps",
                      "-w") as w:
        base = server.url
        http(base, "POST", "/api/v1/namespaces/%s/configmaps" % namespace,
             cm("watched"))
        http(base, "PATCH", "/api/v1/namespaces/%s/configmaps/watched"
             % namespace, {"data": {"a": "1", "b": "2"}},
             "application/merge-patch+json")
        assert w.until(lambda out: sum(l.startswith("watched ")
                                       for l in out) >= 2), w.out

    out = "".join(w.out)
    rows = [l.split() for l in out.splitlines()]
    assert rows[0] == ["NAME", "DATA", "AGE"]
    names = [r[0] for r in rows[1:]]
    # kube-root-ca.crt first when the server publishes a root CA (its
    # controller creates it with the namespace), then ours
    if names and names[0] == "kube-root-ca.crt":
        rows = rows[1:]
        names = names[1:]
    assert names == ["watched", "watched"]
    assert rows[1][1] == "1"
    assert rows[2][1] == "3"


def test_kubectl_chunk_size(server, namespace):
    for i in range(7):
        http(server.url, "POST",
             "/api/v1/namespaces/%s/configmaps" % namespace, cm("c-%d" % i))

    out = server.kubectl("-n", namespace, "get", "configmaps",
                         "--chunk-size=2", "-o", "name", "-v=6")
    names = [l for l in out.stdout.splitlines() if l.startswith("configmap")]
    assert names == ["configmap/c-%d" % i for i in range(7)]
    # four pages: 2 + 2 + 2 + 1
    assert out.stderr.count("limit=2") == 4
    assert out.stderr.count("continue=") == 3


# ------------------------------------------------------------ scale


async def _watcher(port, path, n_events, got, stall=False):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(("GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % path).encode())
    await writer.drain()
    line = await reader.readline()
    assert line.startswith(b"HTTP/1.1 200"), line
    while (await reader.readline()) != b"\r\n":
        pass
    if stall:
        got.append(("stalled", writer))
        return
    names = []
    buf = b""
    while len(names) < n_events:
        size = int((await reader.readline()).strip(), 16)
        if size == 0:
            break
        buf += await reader.readexactly(size)
        await reader.readexactly(2)
        while b"\n" in buf:
            ev, buf = buf.split(b"\n", 1)
            ev = json.loads(ev)
            names.append((ev["type"], ev["object"]["metadata"]["name"]))
    writer.close()
    got.append(names)


def test_thousand_watchers_two_workers(unique_name):
    """1,000 watchers over 2 workers, plus a few that never read; a burst
    of writes; every reading watcher gets every event, in order; the
    stalled ones are cut off and the others do not suffer."""
    with GcpServer(workers=2, http_extra="gcp_watch_buffer 256k;") as srv:
        ns = unique_name("fan")
        assert http(srv.url, "POST", "/api/v1/namespaces",
                    {"metadata": {"name": ns}})[0] == 201
        path = ("/api/v1/namespaces/%s/configmaps?watch=1&"
                "sendInitialEvents=false&resourceVersionMatch=NotOlderThan&"
                "timeoutSeconds=120" % ns)
        n = 60
        big = "x" * 8000

        async def run():
            got = []
            tasks = [asyncio.ensure_future(
                _watcher(srv.port, path, n, got)) for _ in range(1000)]
            stalled = [asyncio.ensure_future(
                _watcher(srv.port, path, n, got, stall=True))
                for _ in range(5)]
            await asyncio.sleep(2.0)

            def burst():
                for i in range(n):
                    body = cm("e-%03d" % i)
                    body["data"]["big"] = big
                    st, _ = http(srv.url, "POST",
                                 "/api/v1/namespaces/%s/configmaps" % ns,
                                 body)
                    assert st == 201

            await asyncio.get_event_loop().run_in_executor(None, burst)
            await asyncio.wait_for(asyncio.gather(*tasks), 90)
            await asyncio.gather(*stalled)
            return got

        got = asyncio.new_event_loop().run_until_complete(run())

        readers = [g for g in got if isinstance(g, list)]
        assert len(readers) == 1000
        expected = [("ADDED", "e-%03d" % i) for i in range(n)]
        assert all(r == expected for r in readers)

        # both workers served watches
        pids = srv.worker_pids()
        assert len(pids) == 2

        # the stalled readers were disconnected by the server
        for g in got:
            if isinstance(g, tuple):
                g[1].close()


# ------------------------------------------------------------ compaction


def test_compacted_start_point_and_relist(unique_name):
    with GcpServer(workers=2, http_extra="gcp_compact_interval 500ms;") as \
            srv:
        ns = unique_name("cmp")
        base = srv.url
        http(base, "POST", "/api/v1/namespaces", {"metadata": {"name": ns}})
        st, first = http(base, "POST", "/api/v1/namespaces/%s/configmaps"
                         % ns, cm("one"))
        old_rv = first["metadata"]["resourceVersion"]
        for i in range(5):
            http(base, "POST", "/api/v1/namespaces/%s/configmaps" % ns,
                 cm("x-%d" % i))

        # a continue token taken now
        st, page = http(base, "GET", "/api/v1/namespaces/%s/configmaps?"
                        "limit=2" % ns)
        token = page["metadata"]["continue"]

        # writes after the token, so that compaction passes its revision
        # (two ticks: the compactor keeps one interval of history)
        for i in range(6):
            http(base, "POST", "/api/v1/namespaces/%s/configmaps" % ns,
                 cm("later-%d" % i))
            time.sleep(0.4)
        time.sleep(1.2)

        path = ("/api/v1/namespaces/%s/configmaps?watch=1&resourceVersion=%s"
                "&timeoutSeconds=5" % (ns, old_rv))
        with urllib.request.urlopen(base + path, timeout=10) as resp:
            assert resp.status == 200
            lines = [json.loads(l) for l in resp.read().splitlines() if l]
        assert len(lines) == 1
        assert lines[0]["type"] == "ERROR"
        status = lines[0]["object"]
        assert status["code"] == 410 and status["reason"] == "Expired"
        assert status["message"].startswith("too old resource version: %s ("
                                            % old_rv)

        # an exact list there: 410 too
        st, body = http(base, "GET", "/api/v1/namespaces/%s/configmaps?"
                        "resourceVersion=%s&resourceVersionMatch=Exact"
                        % (ns, old_rv))
        assert st == 410 and body["reason"] == "Expired"

        # the old continue token: 410 with a fresh one that still works
        st, body = http(base, "GET", "/api/v1/namespaces/%s/configmaps?"
                        "limit=2&continue=%s" % (ns, token))
        assert st == 410 and body["reason"] == "Expired"
        fresh = body["metadata"]["continue"]
        st, rest = http(base, "GET", "/api/v1/namespaces/%s/configmaps?"
                        "limit=10&continue=%s" % (ns, fresh))
        assert st == 200
        assert [i["metadata"]["name"] for i in rest["items"]] == \
            ["x-1", "x-2", "x-3", "x-4"]

        # relist, then watch from the new resourceVersion: works
        st, lst = http(base, "GET", "/api/v1/namespaces/%s/configmaps" % ns)
        rv = lst["metadata"]["resourceVersion"]
        done = []

        def later():
            time.sleep(0.5)
            http(base, "POST", "/api/v1/namespaces/%s/configmaps" % ns,
                 cm("after"))
            done.append(1)

        threading.Thread(target=later).start()
        path = ("/api/v1/namespaces/%s/configmaps?watch=1&resourceVersion=%s"
                "&timeoutSeconds=2" % (ns, rv))
        with urllib.request.urlopen(base + path, timeout=10) as resp:
            lines = [json.loads(l) for l in resp.read().splitlines() if l]
        assert [(l["type"], l["object"]["metadata"]["name"])
                for l in lines] == [("ADDED", "after")]


def test_future_resource_version(server, namespace):
    """A list at a resourceVersion the store has not reached waits, then
    answers 504 Too large resource version with Retry-After; a watch from
    it stays silent until its timeout."""
    base = server.url
    t0 = time.time()
    req = urllib.request.Request(
        base + "/api/v1/namespaces/%s/configmaps?resourceVersion=999999999"
        "&resourceVersionMatch=NotOlderThan" % namespace)
    with pytest.raises(urllib.error.HTTPError) as ei:
        urllib.request.urlopen(req, timeout=20)
    elapsed = time.time() - t0
    assert ei.value.code == 504
    assert ei.value.headers["Retry-After"] == "1"
    body = json.loads(ei.value.read())
    assert body["reason"] == "Timeout"
    assert body["message"].startswith("Timeout: Too large resource "
                                      "version: 999999999, current: ")
    assert body["details"]["causes"] == [
        {"reason": "ResourceVersionTooLarge",
         "message": "Too large resource version"}]
    assert body["details"]["retryAfterSeconds"] == 1
    assert 2.5 <= elapsed < 10

    path = ("/api/v1/namespaces/%s/configmaps?watch=1&resourceVersion="
            "999999999&timeoutSeconds=2" % namespace)
    with urllib.request.urlopen(base + path, timeout=10) as resp:
        assert resp.status == 200
        assert resp.read() == b""
