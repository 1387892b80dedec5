"""An update that removes the last finalizer of an object being deleted
deletes it (upstream's store: deleteWithoutFinalizers) and answers with
the object of the request, at the resourceVersion it was read at
(02-cm-patch-remove-finalizer); with dryRun=All the answer is the same
and nothing is written or deleted."""

import json

import yaml

import gcp_pbwire as pbwire
from gcp_http import call


FIN = "example.com/hold"


def path(ns, name=""):
    return "/api/v1/namespaces/%s/configmaps%s" % (
        ns, "/" + name if name else "")


def terminating(server, ns, name):
    """A ConfigMap with one finalizer, deleted: (its object, its rv)."""
    r = call(server, "POST", path(ns),
             body={"apiVersion": "v1", "kind": "ConfigMap",
                   "metadata": {"name": name, "finalizers": [FIN]},
                   "data": {"k": "v"}})
    assert r.status == 201, r
    r = call(server, "DELETE", path(ns, name))
    assert r.status == 200, r
    assert r.json["metadata"]["deletionTimestamp"], r.json
    return r.json, r.json["metadata"]["resourceVersion"]


def check_answer(obj, name, rv):
    meta = obj["metadata"]
    assert meta["name"] == name and meta["resourceVersion"] == rv, meta
    assert "finalizers" not in meta and meta["deletionTimestamp"], meta
    assert meta["deletionGracePeriodSeconds"] == 0, meta
    assert obj["data"] == {"k": "v"}, obj


def check_untouched(server, ns, name, rv):
    r = call(server, "GET", path(ns, name))
    assert r.status == 200, r
    assert r.json["metadata"]["resourceVersion"] == rv, r.json
    assert r.json["metadata"]["finalizers"] == [FIN], r.json


def test_dry_run_patch_removing_last_finalizer(server, namespace):
    _, rv = terminating(server, namespace, "fin-patch")

    for accept in ("application/json", "application/yaml"):
        r = call(server, "PATCH", path(namespace, "fin-patch") +
                 "?dryRun=All",
                 body=json.dumps({"metadata": {"finalizers": None}}),
                 content_type="application/merge-patch+json",
                 headers={"Accept": accept})
        assert r.status == 200, r
        obj = r.json if accept.endswith("json") else yaml.safe_load(r.body)
        check_answer(obj, "fin-patch", rv)
        check_untouched(server, namespace, "fin-patch", rv)

    # the real one: the same answer, and the object is gone
    r = call(server, "PATCH", path(namespace, "fin-patch"),
             body=json.dumps({"metadata": {"finalizers": None}}),
             content_type="application/merge-patch+json")
    assert r.status == 200, r
    check_answer(r.json, "fin-patch", rv)
    assert call(server, "GET", path(namespace, "fin-patch")).status == 404


def test_dry_run_put_removing_last_finalizer(server, namespace):
    obj, rv = terminating(server, namespace, "fin-put")
    del obj["metadata"]["finalizers"]

    r = call(server, "PUT", path(namespace, "fin-put") + "?dryRun=All",
             body=obj, headers={"Accept":
                                "application/vnd.kubernetes.protobuf"})
    assert r.status == 200, r
    _, kind, raw = pbwire.unwrap(r.body)
    meta = pbwire.decode(pbwire.get(pbwire.decode(raw), 1))
    assert kind == "ConfigMap" and pbwire.get(meta, 6) == rv.encode(), meta
    assert pbwire.every(meta, 14) == [], meta       # no finalizers
    check_untouched(server, namespace, "fin-put", rv)

    r = call(server, "PUT", path(namespace, "fin-put"), body=obj)
    assert r.status == 200, r
    check_answer(r.json, "fin-put", rv)
    assert call(server, "GET", path(namespace, "fin-put")).status == 404
