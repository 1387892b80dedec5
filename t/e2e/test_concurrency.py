"""Many clients at once, each on its own connections (so that both nginx
workers serve them): optimistic concurrency with resourceVersions must
neither lose an update nor let two writers win the same version, and a
name can be created only once."""

import json
import threading

from gcp_http import assert_status, call, configmap, connect, read_response

WRITERS = 12
INCREMENTS = 15
CREATORS = 24


def run_threads(n, target):
    """Runs target(i) in n threads started together; returns their results
    (an exception in a thread is re-raised here)."""
    results = [None] * n
    errors = []
    barrier = threading.Barrier(n)

    def run(i):
        try:
            barrier.wait()
            results[i] = target(i)
        except BaseException as e:  # noqa: B902 (re-raised below)
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


def test_read_modify_write_loses_no_update(server, namespace):
    path = "/api/v1/namespaces/%s/configmaps" % namespace
    r = call(server, "POST", path, configmap("counter", {"n": "0"}))
    assert r.status == 201, r

    def writer(i):
        wins = []
        conflicts = 0
        done = 0
        while done < INCREMENTS:
            # a new connection each time: requests spread over the workers
            r = call(server, "GET", path + "/counter")
            assert r.status == 200, r
            cm = r.json
            n = int(cm["data"]["n"])
            cm["data"]["n"] = str(n + 1)
            cm["data"]["last"] = "writer-%d" % i
            r = call(server, "PUT", path + "/counter", cm)
            if r.status == 409:
                s = assert_status(r, 409, "Conflict")
                assert s["message"] == (
                    'Operation cannot be fulfilled on configmaps "counter": '
                    'the object has been modified; please apply your '
                    'changes to the latest version and try again')
                conflicts += 1
                continue
            assert r.status == 200, r
            out = r.json
            assert out["data"]["n"] == str(n + 1)
            assert int(out["metadata"]["resourceVersion"]) > int(
                cm["metadata"]["resourceVersion"])
            wins.append((cm["metadata"]["resourceVersion"],
                         out["metadata"]["resourceVersion"], n + 1))
            done += 1
        return wins, conflicts

    results = run_threads(WRITERS, writer)
    wins = [w for ws, _ in results for w in ws]
    conflicts = sum(c for _, c in results)

    final = call(server, "GET", path + "/counter").json
    assert int(final["data"]["n"]) == WRITERS * INCREMENTS == len(wins)

    # one winner per version read, a distinct new version per success,
    # and each success wrote the value after the one it read
    read_rvs = [w[0] for w in wins]
    new_rvs = [w[1] for w in wins]
    assert len(set(read_rvs)) == len(wins)
    assert len(set(new_rvs)) == len(wins)
    assert sorted(w[2] for w in wins) == list(range(1, len(wins) + 1))
    by_rv = sorted(wins, key=lambda w: int(w[1]))
    assert [w[2] for w in by_rv] == list(range(1, len(wins) + 1))
    assert final["metadata"]["resourceVersion"] == by_rv[-1][1]
    # with this many writers some must have collided
    assert conflicts > 0


def test_concurrent_patches_all_apply(server, namespace):
    # patches without a precondition are retried by the server on a lost
    # race: every one of them lands
    path = "/api/v1/namespaces/%s/configmaps" % namespace
    assert call(server, "POST", path, configmap("merged")).status == 201

    def patcher(i):
        r = call(server, "PATCH", path + "/merged",
                 {"data": {"k%02d" % i: str(i)}},
                 content_type="application/merge-patch+json")
        assert r.status == 200, r
        return r.json["metadata"]["resourceVersion"]

    rvs = run_threads(WRITERS * 2, patcher)
    assert len(set(rvs)) == len(rvs)
    data = call(server, "GET", path + "/merged").json["data"]
    assert data == {"k%02d" % i: str(i) for i in range(WRITERS * 2)}


def test_concurrent_creates_of_one_name(server, namespace):
    path = "/api/v1/namespaces/%s/configmaps" % namespace

    def creator(i):
        r = call(server, "POST", path, configmap("only", {"by": str(i)}))
        return i, r

    results = run_threads(CREATORS, creator)
    created = [(i, r) for i, r in results if r.status == 201]
    refused = [r for _, r in results if r.status != 201]

    assert len(created) == 1
    assert len(refused) == CREATORS - 1
    for r in refused:
        assert_status(r, 409, "AlreadyExists",
                      'configmaps "only" already exists',
                      {"name": "only", "kind": "configmaps"})

    winner, r = created[0]
    got = call(server, "GET", path + "/only").json
    assert got["data"] == {"by": str(winner)}
    assert got["metadata"]["uid"] == r.json["metadata"]["uid"]


def test_concurrent_deletes_of_one_name(server, namespace):
    path = "/api/v1/namespaces/%s/configmaps" % namespace
    assert call(server, "POST", path, configmap("gone")).status == 201

    results = run_threads(CREATORS,
                          lambda i: call(server, "DELETE", path + "/gone"))
    assert sorted(r.status for r in results) == [200] + [404] * (
        CREATORS - 1)
    for r in results:
        if r.status == 404:
            assert_status(r, 404, "NotFound", 'configmaps "gone" not found')


def test_keepalive_connections_on_both_workers(server, namespace):
    # long-lived connections, many requests each; the answers of every
    # worker agree with each other
    path = "/api/v1/namespaces/%s/configmaps" % namespace

    def client(i):
        c = connect(server)
        try:
            seen = set()
            for j in range(20):
                body = json.dumps(configmap("k-%d-%d" % (i, j)))
                c.request("POST", path, body=body,
                          headers={"Content-Type": "application/json"})
                r = read_response(c.getresponse())
                assert r.status == 201, r
                seen.add(int(r.json["metadata"]["resourceVersion"]))
            return seen
        finally:
            c.close()

    results = run_threads(8, client)
    rvs = set().union(*results)
    assert len(rvs) == 8 * 20

    items = call(server, "GET", path).json["items"]
    assert len(items) == 8 * 20
    assert {int(i["metadata"]["resourceVersion"]) for i in items} == rvs
