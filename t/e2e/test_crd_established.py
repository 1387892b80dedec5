"""A CRD shown Established is served at once by every worker (issue 11).

Each worker learns the CRDs from its own store watch, so the worker a
request lands on may not have applied yet the CRD that another worker
shows Established.  kube-apiserver sets Established from the process that
serves the API: a client that sees it can use the API at once.  Here a
worker about to answer 404 under a group reads that CRD from the store
first.  The test creates CRDs in a server of several workers, waits for
Established, then at once creates custom resources through many fresh
connections (they land on every worker), without waiting for anything
else."""

import concurrent.futures

import pytest

from gcp_http import call
from gcp_server import GcpServer

GROUP = "est.example.com"
ROUNDS = 8
CONNS = 24


@pytest.fixture(scope="module")
def srv(storage):
    with GcpServer(workers=8) as s:
        r = call(s, "POST", "/api/v1/namespaces",
                 {"metadata": {"name": "est"}})
        assert r.status == 201, r
        yield s


def schema():
    """A schema of some size: each worker compiles it when it applies the
    CRD, which is the moment a lagging worker answered 404."""
    props = {}
    for i in range(40):
        props["p%d" % i] = {"type": "string", "maxLength": 63,
                            "pattern": "^[a-z]([-a-z0-9]*[a-z0-9])?$",
                            "default": "x"}
    return {"type": "object",
            "properties": {"spec": {"type": "object", "properties": props}}}


def crd(plural, kind):
    return {"apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "%s.%s" % (plural, GROUP)},
            "spec": {"group": GROUP, "scope": "Namespaced",
                     "names": {"plural": plural, "singular": plural[:-1],
                               "kind": kind},
                     "versions": [{"name": "v1", "served": True,
                                   "storage": True,
                                   "schema": {"openAPIV3Schema":
                                              schema()}}]}}


def is_established(s, name):
    r = call(s, "GET", "/apis/apiextensions.k8s.io/v1/"
             "customresourcedefinitions/" + name)
    assert r.status == 200, r
    return any(c["type"] == "Established" and c["status"] == "True"
               for c in r.json.get("status", {}).get("conditions") or [])


def create_established(srv, plural, kind):
    """Creates the CRD and returns at the first answer that says it is
    Established: polled without a pause (bounded by the number of polls,
    not by time), so that what follows comes right after it."""
    r = call(srv, "POST", "/apis/apiextensions.k8s.io/v1/"
             "customresourcedefinitions", crd(plural, kind))
    assert r.status == 201, r
    for _ in range(20000):
        if is_established(srv, "%s.%s" % (plural, GROUP)):
            return
    pytest.fail("%s never Established" % plural)


def test_established_is_served_by_every_worker(srv):
    failures = []
    for rnd in range(ROUNDS):
        plural, kind = "gadget%ds" % rnd, "Gadget%d" % rnd
        create_established(srv, plural, kind)

        path = "/apis/%s/v1/namespaces/est/%s" % (GROUP, plural)

        def make(i):
            body = {"apiVersion": GROUP + "/v1", "kind": kind,
                    "metadata": {"name": "g-%d" % i}, "spec": {}}
            return call(srv, "POST", path, body)

        with concurrent.futures.ThreadPoolExecutor(CONNS) as pool:
            answers = list(pool.map(make, range(CONNS)))

        failed = ["round %d: %r" % (rnd, a) for a in answers
                  if a.status != 201]
        if failed:
            failures += failed
            continue

        # every object, defaulted by the schema, from every worker
        for _ in range(8):
            r = call(srv, "GET", path)
            assert r.status == 200, r
            items = r.json["items"]
            assert len(items) == CONNS
            assert all(o["spec"]["p0"] == "x" for o in items)

    assert not failures, "\n".join(failures)


AGGREGATED = ("application/json;g=apidiscovery.k8s.io;v=v2;"
              "as=APIGroupDiscoveryList")


def discovered(s, plural):
    """What fresh connections (any worker) see of plural right away: the
    group-version's resource list, aggregated discovery (kubectl's), and
    OpenAPI v3's index."""
    seen = []
    r = call(s, "GET", "/apis/%s/v1" % GROUP)
    seen.append(r.status == 200
                and plural in [x["name"] for x in r.json["resources"]])
    r = call(s, "GET", "/apis", headers={"Accept": AGGREGATED})
    assert r.status == 200, r
    seen.append(any(plural == res["resource"]
                    for g in r.json["items"] if g["metadata"]["name"] == GROUP
                    for v in g["versions"] for res in v["resources"]))
    r = call(s, "GET", "/openapi/v3")
    assert r.status == 200, r
    seen.append("apis/%s/v1" % GROUP in r.json["paths"])
    return seen


def test_established_is_discovered_by_every_worker(srv):
    """kubectl reads discovery before anything else: right after
    Established, every worker's discovery documents have the new
    resource (a worker whose CRD watch is behind the store reads the CRDs
    before answering)."""
    failures = []
    for rnd in range(ROUNDS):
        plural, kind = "widget%ds" % rnd, "Widget%d" % rnd
        create_established(srv, plural, kind)

        with concurrent.futures.ThreadPoolExecutor(CONNS) as pool:
            answers = list(pool.map(lambda i: discovered(srv, plural),
                                    range(CONNS)))
        failures += ["round %d: %s" % (rnd, a) for a in answers
                     if not all(a)]

    assert not failures, "\n".join(failures)
