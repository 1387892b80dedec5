"""CRD conversion webhooks (spec.conversion.strategy Webhook): reads,
writes and watches of a version other than the storage one go through the
test's TLS webhook server (webhook_server.py: v1 spec.count is v2
spec.amount), a list in one ConversionReview, failures worded as
kube-apiserver words them (nothing written; a watch ends with an ERROR
event), v1beta1 reviews when the CRD lists only them.  Creates, updates
and patches in v2 are stored in v1 (read back through v1, which needs no
webhook); watches in v2 (JSON and Table) see the events of both versions
converted, in order.  Run on LMDB and on etcd, 2 workers."""

import json
import socket
import threading

import pytest

from gcp_http import assert_status, call, connect
from gcp_wait import eventually
from kubectl_watch import KubectlWatch
from test_crd import create_crd, crd_path, delete_crd
from webhook_server import WebhookServer

GROUP = "conv.example.com"
SCHEMA = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}


def gadget_crd(wh, path="/convert", review_versions=("v1",)):
    version = {"served": True, "schema": {"openAPIV3Schema": SCHEMA}}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets." + GROUP},
        "spec": {
            "group": GROUP, "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget",
                      "kind": "Gadget", "listKind": "GadgetList"},
            "versions": [dict(version, name="v1", storage=True),
                         dict(version, name="v2", storage=False)],
            "conversion": {"strategy": "Webhook", "webhook": {
                "clientConfig": {"url": wh.url(path),
                                 "caBundle": wh.ca_bundle},
                "conversionReviewVersions": list(review_versions)}},
        },
    }


def g_path(ns, name="", version="v1"):
    p = "/apis/%s/%s/namespaces/%s/gadgets" % (GROUP, version, ns)
    return p + "/" + name if name else p


@pytest.fixture(scope="module")
def wh():
    with WebhookServer() as w:
        yield w


@pytest.fixture
def gadgets(server, wh):
    crd = create_crd(server, gadget_crd(wh))
    yield crd
    delete_crd(server, crd["metadata"]["name"])


def set_webhook(server, wh, path, review_versions=("v1",)):
    """Points the CRD's webhook at path (the workers take it within a
    second: callers wait for its effect)."""
    r = call(server, "GET", crd_path("gadgets." + GROUP))
    crd = r.json
    crd["spec"]["conversion"] = gadget_crd(wh, path, review_versions)[
        "spec"]["conversion"]
    r = call(server, "PUT", crd_path("gadgets." + GROUP), crd)
    assert r.status == 200, r


def fail_webhook(server, wh, ns, name):
    """Points the CRD at the failing webhook and waits until every worker
    fails to read name (in namespace ns) in v2."""
    set_webhook(server, wh, "/convert-fail")
    assert eventually(lambda: all(
        call(server, "GET", g_path(ns, name, "v2")).status == 500
        for _ in range(6)))


def create(server, ns, name, count):
    r = call(server, "POST", g_path(ns), {
        "apiVersion": GROUP + "/v1", "kind": "Gadget",
        "metadata": {"name": name, "labels": {"app": "test"}},
        "spec": {"count": count}})
    assert r.status == 201, r
    return r.json


def test_get_converted_by_webhook(server, wh, gadgets, namespace):
    stored = create(server, namespace, "one", 3)
    wh.clear()

    # the storage version: no call
    r = call(server, "GET", g_path(namespace, "one"))
    assert r.status == 200 and r.json["spec"] == {"count": 3}
    assert wh.reviews("/convert") == []

    r = call(server, "GET", g_path(namespace, "one", "v2"))
    assert r.status == 200, r
    assert r.json["apiVersion"] == GROUP + "/v2"
    assert r.json["spec"] == {"amount": 3}
    meta = r.json["metadata"]
    # metadata is the stored one, but for the labels the webhook set
    assert meta["labels"] == {"app": "test", "converted-to": "v2"}
    assert meta["resourceVersion"] == stored["metadata"]["resourceVersion"]
    assert meta["uid"] == stored["metadata"]["uid"]

    reviews = wh.reviews("/convert")
    assert len(reviews) == 1
    review = reviews[0]
    assert review["apiVersion"] == "apiextensions.k8s.io/v1"
    assert review["kind"] == "ConversionReview"
    assert review["request"]["desiredAPIVersion"] == GROUP + "/v2"
    assert [o["apiVersion"] for o in review["request"]["objects"]] == [
        GROUP + "/v1"]
    assert review["request"]["objects"][0]["spec"] == {"count": 3}
    assert len(review["request"]["uid"]) == 36
    query = wh.requests("/convert")[0]["query"]
    assert query.endswith("?timeout=30s")


def test_list_converted_in_one_review(server, wh, gadgets, namespace):
    for i in range(3):
        create(server, namespace, "g%d" % i, i)
    wh.clear()

    r = call(server, "GET", g_path(namespace, version="v2"))
    assert r.status == 200, r
    assert r.json["kind"] == "GadgetList"
    assert r.json["apiVersion"] == GROUP + "/v2"
    assert [(o["apiVersion"], o["metadata"]["name"], o["spec"])
            for o in r.json["items"]] == [
        (GROUP + "/v2", "g%d" % i, {"amount": i}) for i in range(3)]

    reviews = wh.reviews("/convert")
    assert len(reviews) == 1
    assert len(reviews[0]["request"]["objects"]) == 3

    # kubectl, by the version's full name, and as a Table
    out = server.kubectl("get", "gadgets.v2." + GROUP, "-n", namespace,
                         "-o", "jsonpath={.items[*].spec.amount}").stdout
    assert out.split() == ["0", "1", "2"]
    out = server.kubectl("get", "gadgets.v2." + GROUP, "-n",
                         namespace).stdout
    assert "g2" in out


def test_conversion_failures(server, wh, gadgets, namespace):
    create(server, namespace, "one", 1)
    create(server, namespace, "two", 2)

    fail_webhook(server, wh, namespace, "one")

    r = call(server, "GET", g_path(namespace, "one", "v2"))
    assert r.status == 500
    assert r.json["status"] == "Failure" and "reason" not in r.json
    assert r.json["message"] == (
        "conversion webhook for conv.example.com/v1, Kind=Gadget failed: "
        "the test refuses to convert")
    # the storage version still reads
    assert call(server, "GET", g_path(namespace, "one")).status == 200

    p = server.kubectl("get", "gadgets.v2." + GROUP, "-n", namespace,
                       "one", check=False)
    assert p.returncode != 0
    assert ("Error from server: conversion webhook for conv.example.com/v1, "
            "Kind=Gadget failed: the test refuses to convert") in p.stderr

    set_webhook(server, wh, "/convert-short")
    assert eventually(lambda: all(
        "returned 1 objects" in call(server, "GET", g_path(
            namespace, version="v2")).json.get("message", "")
        for _ in range(6)))
    r = call(server, "GET", g_path(namespace, version="v2"))
    assert r.status == 500
    assert r.json["message"] == (
        "conversion webhook for conv.example.com/v1, Kind=GadgetList "
        "returned 1 objects, expected 2")

    # nobody listening: upstream's words for the failed call
    set_webhook(server, wh, "/convert")
    r = call(server, "GET", crd_path("gadgets." + GROUP))
    crd = r.json
    crd["spec"]["conversion"]["webhook"]["clientConfig"]["url"] = (
        "https://127.0.0.1:1/convert")
    assert call(server, "PUT", crd_path("gadgets." + GROUP),
                crd).status == 200
    assert eventually(lambda: all(
        "connect: connection refused" in call(server, "GET", g_path(
            namespace, "one", "v2")).json.get("message", "")
        for _ in range(6)))
    r = call(server, "GET", g_path(namespace, "one", "v2"))
    assert r.json["message"] == (
        "conversion webhook for conv.example.com/v1, Kind=Gadget failed: "
        "Post \"https://127.0.0.1:1/convert?timeout=30s\": dial tcp "
        "127.0.0.1:1: connect: connection refused")


def test_v1beta1_review(server, wh, gadgets, namespace):
    create(server, namespace, "one", 5)
    set_webhook(server, wh, "/convert", ("v1beta1",))

    def served_by_v1beta1():
        wh.clear()
        r = call(server, "GET", g_path(namespace, "one", "v2"))
        reviews = wh.reviews("/convert")
        return (r.status == 200 and r.json["spec"] == {"amount": 5}
                and reviews and reviews[0]["apiVersion"]
                == "apiextensions.k8s.io/v1beta1")

    assert eventually(lambda: all(served_by_v1beta1() for _ in range(6)))


# ------------------------------------------------------------------ writes


def reviews_to(wh, version):
    """The objects the webhook was asked to convert to version."""
    return [o for r in wh.reviews("/convert")
            if r["request"]["desiredAPIVersion"] == GROUP + "/" + version
            for o in r["request"]["objects"]]


def create_v2(server, ns, name, amount, expect=201):
    r = call(server, "POST", g_path(ns, version="v2"), {
        "apiVersion": GROUP + "/v2", "kind": "Gadget",
        "metadata": {"name": name}, "spec": {"amount": amount}})
    assert r.status == expect, r
    return r


def test_create_and_update_in_other_version(server, wh, gadgets, namespace):
    wh.clear()
    r = create_v2(server, namespace, "w", 3)
    # the answer: what was stored, converted back to v2
    assert r.json["apiVersion"] == GROUP + "/v2"
    assert r.json["spec"] == {"amount": 3}
    assert r.json["metadata"]["labels"] == {"converted-to": "v2"}
    # stored in v1 (the storage version reads without a webhook)
    assert [o["spec"] for o in reviews_to(wh, "v1")] == [{"amount": 3}]
    wh.clear()
    s = call(server, "GET", g_path(namespace, "w"))
    assert s.status == 200 and wh.reviews("/convert") == []
    assert s.json["apiVersion"] == GROUP + "/v1"
    assert s.json["spec"] == {"count": 3}
    assert s.json["metadata"]["labels"] == {"converted-to": "v1"}
    assert (s.json["metadata"]["resourceVersion"]
            == r.json["metadata"]["resourceVersion"])

    # update in v2: the stored object reaches the client in v2 first
    obj = r.json
    obj["spec"] = {"amount": 4}
    wh.clear()
    u = call(server, "PUT", g_path(namespace, "w", "v2"), obj)
    assert u.status == 200, u
    assert u.json["spec"] == {"amount": 4}
    assert [o["spec"] for o in reviews_to(wh, "v1")] == [{"amount": 4}]
    s = call(server, "GET", g_path(namespace, "w"))
    assert s.json["spec"] == {"count": 4}

    # a patch applies to the v2 form of the stored object
    patch = [{"op": "test", "path": "/spec/amount", "value": 4},
             {"op": "replace", "path": "/spec/amount", "value": 7}]
    p = call(server, "PATCH", g_path(namespace, "w", "v2"), patch,
             content_type="application/json-patch+json")
    assert p.status == 200, p
    assert p.json["spec"] == {"amount": 7}
    assert call(server, "GET", g_path(namespace, "w")).json["spec"] == {
        "count": 7}
    m = call(server, "PATCH", g_path(namespace, "w", "v2"),
             {"spec": {"amount": 8}},
             content_type="application/merge-patch+json")
    assert m.status == 200 and m.json["spec"] == {"amount": 8}, m
    assert call(server, "GET", g_path(namespace, "w")).json["spec"] == {
        "count": 8}

    # kubectl, through the v2 name
    out = server.kubectl("get", "gadgets.v2." + GROUP, "-n", namespace, "w",
                         "-o", "jsonpath={.spec.amount}").stdout
    assert out == "8"

    # delete and deletecollection answer in v2
    create_v2(server, namespace, "x", 5)
    dc = call(server, "DELETE", g_path(namespace, version="v2"))
    assert dc.status == 200, dc
    assert dc.json["apiVersion"] == GROUP + "/v2"
    assert sorted((o["metadata"]["name"], o["spec"]["amount"])
                  for o in dc.json["items"]) == [("w", 8), ("x", 5)]
    assert call(server, "GET", g_path(namespace)).json["items"] == []


def test_yaml_bodies_and_answers_in_other_version(server, wh, gadgets,
                                                   namespace):
    """Custom resources speak JSON and YAML: a YAML create and update in
    v2 are converted as JSON ones, and the answers, a get and a list come
    back in YAML, converted."""
    import yaml

    y = {"Content-Type": "application/yaml", "Accept": "application/yaml"}
    wh.clear()
    r = call(server, "POST", g_path(namespace, version="v2"), yaml.safe_dump(
        {"apiVersion": GROUP + "/v2", "kind": "Gadget",
         "metadata": {"name": "yml"}, "spec": {"amount": 2}}), headers=y)
    assert r.status == 201, r
    assert r.content_type == "application/yaml"
    obj = yaml.safe_load(r.body)
    assert obj["apiVersion"] == GROUP + "/v2" and obj["spec"] == {
        "amount": 2}
    assert [o["spec"] for o in reviews_to(wh, "v1")] == [{"amount": 2}]
    assert call(server, "GET", g_path(namespace, "yml")).json["spec"] == {
        "count": 2}

    obj["spec"] = {"amount": 6}
    u = call(server, "PUT", g_path(namespace, "yml", "v2"),
             yaml.safe_dump(obj), headers=y)
    assert u.status == 200, u
    assert yaml.safe_load(u.body)["spec"] == {"amount": 6}
    assert call(server, "GET", g_path(namespace, "yml")).json["spec"] == {
        "count": 6}

    g = call(server, "GET", g_path(namespace, "yml", "v2"), headers=y)
    assert g.status == 200 and g.content_type == "application/yaml", g
    assert yaml.safe_load(g.body)["spec"] == {"amount": 6}
    lst = call(server, "GET", g_path(namespace, version="v2"), headers=y)
    assert lst.status == 200, lst
    items = yaml.safe_load(lst.body)["items"]
    assert [(i["apiVersion"], i["spec"]) for i in items] == [
        (GROUP + "/v2", {"amount": 6})]

    # a failing webhook: the 500 in YAML, nothing written
    fail_webhook(server, wh, namespace, "yml")
    try:
        f = call(server, "POST", g_path(namespace, version="v2"),
                 yaml.safe_dump({"apiVersion": GROUP + "/v2",
                                 "kind": "Gadget",
                                 "metadata": {"name": "ymlfail"},
                                 "spec": {"amount": 1}}), headers=y)
        assert f.status == 500, f
        assert f.content_type == "application/yaml"
        assert yaml.safe_load(f.body)["message"].startswith(
            "conversion webhook for %s/v2, Kind=Gadget failed: " % GROUP)
        assert call(server, "GET", g_path(namespace, "ymlfail")).status \
            == 404
    finally:
        set_webhook(server, wh, "/convert")


def dry(path):
    return path + ("&" if "?" in path else "?") + "dryRun=All"


def specs_to(wh, version, name, kind="Gadget"):
    """The specs of the objects of kind named name the webhook was asked
    to convert to version (the namespace cleanup of other tests converts
    theirs meanwhile)."""
    return [o["spec"] for o in reviews_to(wh, version)
            if o["metadata"]["name"] == name and o["kind"] == kind]


def test_dry_run_in_other_version(server, wh, gadgets, namespace):
    """A dry run in v2 goes the way of the write, as upstream's dry-run
    storage (the object encoded by the storage codec, then decoded): the
    webhook converts it to v1 and back, the answer is what came back, and
    nothing is stored.  Creates, updates, patches, applies and deletes."""
    # create: to v1, then back to v2
    wh.clear()
    d = call(server, "POST", dry(g_path(namespace, version="v2")),
             {"apiVersion": GROUP + "/v2", "kind": "Gadget",
              "metadata": {"name": "dry"}, "spec": {"amount": 1}})
    assert d.status == 201, d
    assert d.json["apiVersion"] == GROUP + "/v2"
    assert d.json["spec"] == {"amount": 1}
    # the labels of both conversions: the answer came through the webhook
    assert d.json["metadata"]["labels"] == {"converted-to": "v2"}
    assert "resourceVersion" not in d.json["metadata"]
    assert specs_to(wh, "v1", "dry") == [{"amount": 1}]
    assert [(o["spec"], o["metadata"]["labels"])
            for o in reviews_to(wh, "v2")
            if o["metadata"]["name"] == "dry"] == [
        ({"count": 1}, {"converted-to": "v1"})]
    assert call(server, "GET", g_path(namespace, "dry")).status == 404

    # a name taken: AlreadyExists, as the write
    create(server, namespace, "w", 3)
    d = call(server, "POST", dry(g_path(namespace, version="v2")),
             {"apiVersion": GROUP + "/v2", "kind": "Gadget",
              "metadata": {"name": "w"}, "spec": {"amount": 1}})
    assert_status(d, 409, "AlreadyExists",
                  'gadgets.%s "w" already exists' % GROUP)

    stored = call(server, "GET", g_path(namespace, "w")).json
    rv = stored["metadata"]["resourceVersion"]

    # update: read in v2, to v1, back to v2; the store keeps count 3
    obj = call(server, "GET", g_path(namespace, "w", "v2")).json
    obj["spec"] = {"amount": 9}
    wh.clear()
    u = call(server, "PUT", dry(g_path(namespace, "w", "v2")), obj)
    assert u.status == 200, u
    assert u.json["apiVersion"] == GROUP + "/v2"
    assert u.json["spec"] == {"amount": 9}
    assert u.json["metadata"]["resourceVersion"] == rv
    # (w's managedFields entry is of v1: the field manager sees the write
    # in v1 first, the stored and the new object in one review)
    assert specs_to(wh, "v1", "w") == [{"amount": 3}, {"amount": 9},
                                       {"amount": 9}]
    assert specs_to(wh, "v2", "w") == [{"count": 3}, {"count": 9}]

    # merge patch and apply, the same way
    wh.clear()
    p = call(server, "PATCH", dry(g_path(namespace, "w", "v2")),
             {"spec": {"amount": 8}},
             content_type="application/merge-patch+json")
    assert p.status == 200 and p.json["spec"] == {"amount": 8}, p
    assert specs_to(wh, "v1", "w") == [{"amount": 3}, {"amount": 8},
                                       {"amount": 8}]

    def apply_v2(name, amount, status, seen=()):
        wh.clear()
        a = call(server, "PATCH",
                 dry(g_path(namespace, name, "v2"))
                 + "&fieldManager=dry&force=true",
                 json.dumps({"apiVersion": GROUP + "/v2", "kind": "Gadget",
                             "metadata": {"name": name},
                             "spec": {"amount": amount}}),
                 content_type="application/apply-patch+yaml")
        assert a.status == status, a
        assert a.json["spec"] == {"amount": amount}
        assert specs_to(wh, "v1", name) == [{"amount": a} for a in seen] + [
            {"amount": amount}]
        return a

    # (forced: w's spec.count, v1's name of amount, is its creator's)
    a = apply_v2("w", 7, 200, seen=(3, 7))
    assert ("dry", "Apply") in [(e.get("manager"), e["operation"]) for e
                                in a.json["metadata"]["managedFields"]]
    # an apply that creates
    apply_v2("new", 2, 201)
    assert call(server, "GET", g_path(namespace, "new")).status == 404

    s = call(server, "GET", g_path(namespace, "w"))
    assert s.json["spec"] == {"count": 3}
    assert s.json["metadata"]["resourceVersion"] == rv
    assert "dry" not in [e.get("manager") for e in
                         s.json["metadata"].get("managedFields", [])]

    # delete: read through the webhook, as the delete; nothing removed
    r = call(server, "POST", g_path(namespace), {
        "apiVersion": GROUP + "/v1", "kind": "Gadget",
        "metadata": {"name": "held", "finalizers": ["example.com/hold"]},
        "spec": {"count": 2}})
    assert r.status == 201, r
    wh.clear()
    d = call(server, "DELETE", dry(g_path(namespace, "held", "v2")))
    assert d.status == 200, d
    assert d.json["apiVersion"] == GROUP + "/v2"
    assert d.json["spec"] == {"amount": 2}
    assert d.json["metadata"]["deletionTimestamp"]
    assert specs_to(wh, "v2", "held") == [{"count": 2}, {"count": 2}]
    held = call(server, "GET", g_path(namespace, "held")).json
    assert "deletionTimestamp" not in held["metadata"]
    wh.clear()
    d = call(server, "DELETE", dry(g_path(namespace, "w", "v2")))
    assert d.status == 200 and d.json["kind"] == "Status", d
    assert len(specs_to(wh, "v2", "w")) == 1
    assert call(server, "GET", g_path(namespace, "w")).status == 200
    r = call(server, "PATCH", g_path(namespace, "held"),
             {"metadata": {"finalizers": None}},
             content_type="application/merge-patch+json")
    assert r.status == 200, r


def test_failing_webhook_fails_dry_runs(server, wh, gadgets, namespace):
    """A dry run fails as the write would: the same 500, nothing
    written."""
    create(server, namespace, "kept", 1)
    fail_webhook(server, wh, namespace, "kept")
    message = ("conversion webhook for conv.example.com/%s, Kind=Gadget "
               "failed: the test refuses to convert")

    r = call(server, "POST", dry(g_path(namespace, version="v2")),
             {"apiVersion": GROUP + "/v2", "kind": "Gadget",
              "metadata": {"name": "no"}, "spec": {"amount": 2}})
    assert r.status == 500, r
    assert r.json["status"] == "Failure" and "reason" not in r.json
    assert r.json["message"] == message % "v2"
    r = call(server, "PATCH", dry(g_path(namespace, "kept", "v2")),
             {"spec": {"amount": 9}},
             content_type="application/merge-patch+json")
    assert r.status == 500 and r.json["message"] == message % "v1", r
    r = call(server, "DELETE", dry(g_path(namespace, "kept", "v2")))
    assert r.status == 500 and r.json["message"] == message % "v1", r

    names = [o["metadata"]["name"] for o in call(
        server, "GET", g_path(namespace)).json["items"]]
    assert names == ["kept"]


def test_failing_webhook_writes_nothing(server, wh, gadgets, namespace):
    create(server, namespace, "kept", 1)
    fail_webhook(server, wh, namespace, "kept")

    r = create_v2(server, namespace, "no", 2, expect=500)
    assert r.json["status"] == "Failure" and "reason" not in r.json
    assert r.json["message"] == (
        "conversion webhook for conv.example.com/v2, Kind=Gadget failed: "
        "the test refuses to convert")
    r = call(server, "PATCH", g_path(namespace, "kept", "v2"),
             {"spec": {"amount": 9}},
             content_type="application/merge-patch+json")
    assert r.status == 500
    assert r.json["message"] == (
        "conversion webhook for conv.example.com/v1, Kind=Gadget failed: "
        "the test refuses to convert")
    names = [o["metadata"]["name"] for o in call(
        server, "GET", g_path(namespace)).json["items"]]
    assert names == ["kept"]
    s = call(server, "GET", g_path(namespace, "kept"))
    assert s.json["spec"] == {"count": 1}
    # the storage version still writes
    create(server, namespace, "v1-still", 3)


def test_delete_in_other_version(server, wh, gadgets, namespace):
    """DELETE of v2: upstream's store reads the object through its codec
    (the webhook converts it to v2, a failure fails the delete); an object
    kept by a finalizer is answered in v2, one removed at once with a
    Status (custom resources do not return deleted objects)."""
    r = call(server, "POST", g_path(namespace), {
        "apiVersion": GROUP + "/v1", "kind": "Gadget",
        "metadata": {"name": "held", "finalizers": ["example.com/hold"]},
        "spec": {"count": 2}})
    assert r.status == 201, r
    create(server, namespace, "plain", 1)

    wh.clear()
    d = call(server, "DELETE", g_path(namespace, "held", "v2"))
    assert d.status == 200, d
    assert d.json["apiVersion"] == GROUP + "/v2"
    assert d.json["spec"] == {"amount": 2}
    assert d.json["metadata"]["deletionTimestamp"]
    # read for the delete, then what was written for the answer
    assert [o["spec"] for o in reviews_to(wh, "v2")] == [
        {"count": 2}, {"count": 2}]

    wh.clear()
    d = call(server, "DELETE", g_path(namespace, "plain", "v2"))
    assert d.status == 200, d
    assert d.json["kind"] == "Status" and d.json["status"] == "Success"
    assert d.json["details"]["name"] == "plain"
    assert d.json["details"]["group"] == GROUP
    assert d.json["details"]["kind"] == "gadgets"
    assert len(reviews_to(wh, "v2")) == 1
    assert call(server, "GET", g_path(namespace, "plain")).status == 404

    # a failing webhook fails the delete: nothing removed
    create(server, namespace, "kept", 1)
    fail_webhook(server, wh, namespace, "kept")
    d = call(server, "DELETE", g_path(namespace, "kept", "v2"))
    assert d.status == 500, d
    assert d.json["message"] == (
        "conversion webhook for conv.example.com/v1, Kind=Gadget failed: "
        "the test refuses to convert")
    assert call(server, "GET", g_path(namespace, "kept")).status == 200

    # the storage version deletes without the webhook
    r = call(server, "PATCH", g_path(namespace, "held"),
             {"metadata": {"finalizers": None}},
             content_type="application/merge-patch+json")
    assert r.status == 200, r
    assert call(server, "DELETE", g_path(namespace, "kept")).status == 200


def test_managed_fields_across_versions(server, wh, gadgets, namespace):
    """managedFields of a custom resource written in two versions: each
    entry keeps the apiVersion it was written in, reads in either version
    show the same entries (the webhook's answer keeps metadata but labels
    and annotations), and a field that means the same in both versions
    (a label) conflicts between an applier in v1 and one in v2."""
    def apply(version, manager, doc):
        doc = dict(doc, apiVersion=GROUP + "/" + version, kind="Gadget")
        return call(server, "PATCH", g_path(namespace, "m", version)
                    + "?fieldManager=" + manager, json.dumps(doc),
                    content_type="application/apply-patch+yaml")

    r = apply("v1", "one", {"metadata": {"name": "m",
                                         "labels": {"team": "a"}},
                            "spec": {"count": 1}})
    assert r.status == 201, r
    r = apply("v2", "two", {"metadata": {"name": "m",
                                         "labels": {"tier": "b"}}})
    assert r.status == 200, r
    assert [(e["manager"], e["operation"], e["apiVersion"])
            for e in r.json["metadata"]["managedFields"]] == [
        ("one", "Apply", GROUP + "/v1"), ("two", "Apply", GROUP + "/v2")]
    two = [e for e in r.json["metadata"]["managedFields"]
           if e["manager"] == "two"]
    assert two[0]["fieldsV1"] == {"f:metadata": {"f:labels": {
        "f:tier": {}}}}

    v1 = call(server, "GET", g_path(namespace, "m"))
    v2 = call(server, "GET", g_path(namespace, "m", "v2"))
    assert v1.json["metadata"]["managedFields"] == (
        v2.json["metadata"]["managedFields"])
    assert v2.json["metadata"]["managedFields"] == (
        r.json["metadata"]["managedFields"])

    r = apply("v2", "two", {"metadata": {"name": "m",
                                         "labels": {"team": "c"}}})
    assert r.status == 409, r
    assert r.json["message"] == ('Apply failed with 1 conflict: conflict '
                                 'with "one": .metadata.labels.team')


def test_managed_fields_of_renamed_field(server, wh, gadgets, namespace):
    """A field renamed between versions (v1 spec.count is v2
    spec.amount): as upstream's field manager (its versionconverter), a
    write is seen in the apiVersion of each managedFields entry, converted
    by the webhook, so an apply in v2 of spec.amount conflicts with the v1
    applier of spec.count, named as v1 names it; force takes it over, an
    apply in v1 takes it back, and an update in v2 takes it from the v1
    manager."""
    def apply(version, manager, doc, force=False):
        doc = dict(doc, apiVersion=GROUP + "/" + version, kind="Gadget")
        return call(server, "PATCH", g_path(namespace, "r", version)
                    + "?fieldManager=" + manager
                    + ("&force=true" if force else ""), json.dumps(doc),
                    content_type="application/apply-patch+yaml")

    def entries(r):
        return [(e["manager"], e["operation"], e["apiVersion"],
                 e["fieldsV1"]) for e in r.json["metadata"]["managedFields"]]

    one = {"metadata": {"name": "r", "labels": {"team": "a"}},
           "spec": {"count": 1}}
    r = apply("v1", "one", one)
    assert r.status == 201, r

    wh.clear()
    r = apply("v2", "two", {"metadata": {"name": "r"},
                            "spec": {"amount": 2}})
    assert r.status == 409, r
    assert r.json["message"] == ('Apply failed with 1 conflict: conflict '
                                 'with "one": .spec.count')
    assert r.json["details"]["causes"] == [{
        "reason": "FieldManagerConflict", "message": 'conflict with "one"',
        "field": ".spec.count"}]
    # the stored object and the merge, to v1 in one review
    assert [o["spec"] for o in reviews_to(wh, "v1")] == [
        {"amount": 1}, {"amount": 2}]
    assert call(server, "GET", g_path(namespace, "r")).json["spec"] == {
        "count": 1}

    # the value v1's applier set is no conflict: both own it
    r = apply("v2", "two", {"metadata": {"name": "r"},
                            "spec": {"amount": 1}})
    assert r.status == 200, r
    spec = {"f:spec": {"f:count": {}}}
    team = {"f:metadata": {"f:labels": {"f:team": {}}}}
    assert entries(r) == [
        ("one", "Apply", GROUP + "/v1", dict(team, **spec)),
        ("two", "Apply", GROUP + "/v2", {"f:spec": {"f:amount": {}}})]

    # force: v1's applier loses spec.count, keeps its label
    r = apply("v2", "two", {"metadata": {"name": "r"},
                            "spec": {"amount": 2}}, force=True)
    assert r.status == 200, r
    assert r.json["spec"] == {"amount": 2}
    assert entries(r) == [
        ("one", "Apply", GROUP + "/v1", team),
        ("two", "Apply", GROUP + "/v2", {"f:spec": {"f:amount": {}}})]

    # back in v1: a conflict with the v2 applier, by v2's name
    r = apply("v1", "one", dict(one, spec={"count": 3}))
    assert r.status == 409, r
    assert r.json["message"] == ('Apply failed with 1 conflict: conflict '
                                 'with "two": .spec.amount')
    r = apply("v1", "one", dict(one, spec={"count": 3}), force=True)
    assert r.status == 200, r
    assert entries(r) == [("one", "Apply", GROUP + "/v1", dict(team, **spec))]

    # an update in v2 takes spec.count from v1's applier
    obj = call(server, "GET", g_path(namespace, "r", "v2")).json
    obj["spec"] = {"amount": 4}
    u = call(server, "PUT", g_path(namespace, "r", "v2")
             + "?fieldManager=editor", obj)
    assert u.status == 200, u
    assert u.json["spec"] == {"amount": 4}
    assert [e for e in entries(u) if e[0] != "editor"] == [
        ("one", "Apply", GROUP + "/v1", team)]
    assert [e for e in entries(u) if e[0] == "editor"] == [
        ("editor", "Update", GROUP + "/v2", {"f:spec": {"f:amount": {}}})]


def test_apply_prunes_in_entry_version(server, wh, gadgets, namespace):
    """An applier whose Apply entry was recorded in v1 (spec.count)
    applies again in v2 without the field (v2 names it spec.amount): as
    upstream's prune, the merge is converted to v1, the field the v1
    entry owned and the new apply lacks is removed there, and the result
    converted back, so the field is gone."""
    def apply(version, doc):
        doc = dict(doc, apiVersion=GROUP + "/" + version, kind="Gadget")
        return call(server, "PATCH", g_path(namespace, "p", version)
                    + "?fieldManager=one", json.dumps(doc),
                    content_type="application/apply-patch+yaml")

    meta = {"name": "p", "labels": {"team": "a"}}
    r = apply("v1", {"metadata": meta, "spec": {"count": 1, "size": 2}})
    assert r.status == 201, r

    r = apply("v2", {"metadata": meta, "spec": {"size": 2}})
    assert r.status == 200, r
    assert r.json["spec"] == {"size": 2}
    assert [(e["manager"], e["operation"], e["apiVersion"], e["fieldsV1"])
            for e in r.json["metadata"]["managedFields"]] == [
        ("one", "Apply", GROUP + "/v2",
         {"f:metadata": {"f:labels": {"f:team": {}}},
          "f:spec": {"f:size": {}}})]
    assert call(server, "GET", g_path(namespace, "p")).json["spec"] == {
        "size": 2}
    assert call(server, "GET", g_path(namespace, "p", "v2")).json[
        "spec"] == {"size": 2}


def test_create_sees_entries_in_their_version(server, wh, gadgets,
                                              namespace):
    """A create in v2 carrying an entry of v1 (spec.count): as upstream's
    field manager, the create is seen in v1 through the webhook, so the
    entry loses spec.count (v2's spec.amount) to the creator and, left
    empty, goes; one owning a field the object lacks stays."""
    def post(name, owned):
        return call(server, "POST", g_path(namespace, version="v2")
                    + "?fieldManager=mk", {
                        "apiVersion": GROUP + "/v2", "kind": "Gadget",
                        "metadata": {"name": name, "managedFields": [{
                            "manager": "old", "operation": "Update",
                            "apiVersion": GROUP + "/v1",
                            "fieldsType": "FieldsV1",
                            "fieldsV1": {"f:spec": {owned: {}}},
                            "time": "2024-01-01T00:00:00Z"}]},
                        "spec": {"amount": 1}})

    r = post("c1", "f:count")
    assert r.status == 201, r
    assert [e["manager"] for e in r.json["metadata"]["managedFields"]] == [
        "mk"], r.json
    r = post("c2", "f:gone")
    assert r.status == 201, r
    assert [(e["manager"], e["fieldsV1"])
            for e in r.json["metadata"]["managedFields"]
            if e["manager"] == "old"] == [("old", {"f:spec": {"f:gone": {}}})]


# ----------------------------------------------------------------- watches


class Watch:
    """A watch read on its own thread: events as they come."""

    def __init__(self, server, path, accept=None):
        self.events = []
        self.closed = False
        self.conn = connect(server, timeout=120)
        headers = {"Accept": accept} if accept else {}
        self.conn.request("GET", path, headers=headers)
        self.resp = self.conn.getresponse()
        assert self.resp.status == 200
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            for line in self.resp:
                if line.strip():
                    self.events.append(json.loads(line))
        except Exception:
            pass
        self.closed = True

    def close(self):
        # shut the socket first: closing the response waits for the
        # reading thread's buffer lock, held until the read returns
        try:
            self.conn.sock.shutdown(socket.SHUT_RDWR)
        except (AttributeError, OSError):
            pass
        self.conn.close()


def test_watch_in_other_version(server, wh, gadgets, namespace):
    create(server, namespace, "before", 1)
    lst = call(server, "GET", g_path(namespace))
    rv = lst.json["metadata"]["resourceVersion"]

    w = Watch(server, g_path(namespace, version="v2")
              + "?watch=1&resourceVersion=%s" % rv)
    t = Watch(server, g_path(namespace, version="v2")
              + "?watch=1&resourceVersion=%s" % rv,
              accept="application/json;as=Table;v=v1;g=meta.k8s.io")
    try:
        # written in v1 (the storage version), and in v2
        for i in range(4):
            create(server, namespace, "a%d" % i, i)
        create_v2(server, namespace, "b", 10)
        r = call(server, "PATCH", g_path(namespace, "a1"),
                 {"spec": {"count": 11}},
                 content_type="application/merge-patch+json")
        assert r.status == 200, r
        assert call(server, "DELETE", g_path(namespace, "a0")).status == 200

        want = [("ADDED", "a0", 0), ("ADDED", "a1", 1), ("ADDED", "a2", 2),
                ("ADDED", "a3", 3), ("ADDED", "b", 10),
                ("MODIFIED", "a1", 11), ("DELETED", "a0", 0)]
        assert eventually(lambda: len(w.events) >= len(want), timeout=60)
        got = [(e["type"], e["object"]["metadata"]["name"],
                e["object"]["spec"].get("amount")) for e in w.events]
        assert got == want
        assert all(e["object"]["apiVersion"] == GROUP + "/v2"
                   for e in w.events)
        rvs = [int(e["object"]["metadata"]["resourceVersion"])
               for e in w.events]
        assert rvs == sorted(rvs) and len(set(rvs)) == len(rvs)

        # the Table watch shows the converted objects
        assert eventually(lambda: len(t.events) >= len(want), timeout=60)
        rows = [(e["type"], e["object"]["rows"][0]["object"]["metadata"][
            "name"], e["object"]["rows"][0]["object"].get("spec", {}).get(
            "amount")) for e in t.events]
        # rows carry PartialObjectMetadata unless includeObject=Object
        assert [(k, n) for k, n, _ in rows] == [(k, n) for k, n, _ in want]
    finally:
        w.close()
        t.close()


def test_watch_conversion_failure_ends_watch(server, wh, gadgets, namespace):
    lst = call(server, "GET", g_path(namespace))
    rv = lst.json["metadata"]["resourceVersion"]
    create(server, namespace, "one", 1)

    # (a change of the CRD ends its watches: the watch starts after it)
    fail_webhook(server, wh, namespace, "one")

    w = Watch(server, g_path(namespace, version="v2")
              + "?watch=1&resourceVersion=%s" % rv)
    try:
        assert eventually(lambda: w.closed, timeout=60)
        assert [e["type"] for e in w.events] == ["ERROR"]
        status = w.events[0]["object"]
        assert status["kind"] == "Status" and status["code"] == 500
        assert status["reason"] == "InternalError"
        assert status["message"] == (
            "Internal error occurred: conversion webhook for "
            "conv.example.com/v1, Kind=Gadget failed: the test refuses to "
            "convert")
        assert status["details"]["causes"][0]["message"] == (
            "conversion webhook for conv.example.com/v1, Kind=Gadget "
            "failed: the test refuses to convert")
    finally:
        w.close()

    # the storage version still watches
    w = Watch(server, g_path(namespace) + "?watch=1&resourceVersion=%s" % rv)
    try:
        assert eventually(lambda: len(w.events) >= 1, timeout=60)
        assert w.events[0]["type"] == "ADDED"
        assert w.events[0]["object"]["spec"] == {"count": 1}
    finally:
        w.close()


def test_kubectl_watch_in_other_version(server, wh, gadgets, namespace):
    """kubectl get -w of v2: its Table watch, and the objects (custom
    columns) converted while they are written in v1."""
    with KubectlWatch(server, "-n", namespace, "get",
                      "gadgets.v2." + GROUP, "-w",
                      "-o", "custom-columns=NAME:.metadata.name,"
                      "AMOUNT:.spec.amount,VERSION:.apiVersion",
                      timeout=60) as w:
        create(server, namespace, "k1", 5)
        r = call(server, "PATCH", g_path(namespace, "k1"),
                 {"spec": {"count": 6}},
                 content_type="application/merge-patch+json")
        assert r.status == 200, r
        assert w.until(lambda out: sum("k1" in l for l in out) >= 2), w.out
    rows = [l.split() for l in "".join(w.out).splitlines()]
    assert rows[0] == ["NAME", "AMOUNT", "VERSION"]
    assert rows[1:3] == [["k1", "5", GROUP + "/v2"],
                         ["k1", "6", GROUP + "/v2"]]

    with KubectlWatch(server, "-n", namespace, "get",
                      "gadgets.v2." + GROUP, "-w", timeout=60) as w:
        create(server, namespace, "k2", 7)
        assert w.until(lambda out: any(l.startswith("k2 ")
                                       for l in out)), w.out
    names = [l.split()[0] for l in "".join(w.out).splitlines()]
    assert names[0] == "NAME" and names[1:] == ["k1", "k2"]


# ------------------------------------------------------------------- scale


def widget_crd(wh):
    """Widgets: /scale at v1's spec.count and at v2's spec.amount (the
    webhook's conversion of one into the other)."""
    crd = gadget_crd(wh)
    crd["metadata"]["name"] = "widgets." + GROUP
    crd["spec"]["names"] = {"plural": "widgets", "singular": "widget",
                            "kind": "Widget", "listKind": "WidgetList"}
    for v, field in zip(crd["spec"]["versions"], ("count", "amount")):
        v["subresources"] = {"scale": {
            "specReplicasPath": ".spec." + field,
            "statusReplicasPath": ".status.replicas"}}
    return crd


@pytest.fixture(scope="module")
def widgets(server, wh):
    crd = create_crd(server, widget_crd(wh))
    yield crd
    delete_crd(server, crd["metadata"]["name"])


def w_path(ns, name, version, sub=""):
    return "/apis/%s/%s/namespaces/%s/widgets/%s%s" % (
        GROUP, version, ns, name, "/" + sub if sub else "")


def test_scale_in_other_version(server, wh, widgets, namespace):
    """/scale of a version other than the storage one reads and writes the
    object in that version, as upstream's ScaleREST on the version's
    store: converted by the webhook before the Scale is made of it, and
    the changed object converted to the storage version before it is
    stored (then back for the answer)."""
    r = call(server, "POST", "/apis/%s/v1/namespaces/%s/widgets" % (
        GROUP, namespace), {"apiVersion": GROUP + "/v1", "kind": "Widget",
                            "metadata": {"name": "w"},
                            "spec": {"count": 3},
                            "status": {"replicas": 2}})
    assert r.status == 201, r
    wh.clear()

    # the storage version: its own path, no call
    g = call(server, "GET", w_path(namespace, "w", "v1", "scale"))
    assert g.status == 200, g
    assert g.json["spec"] == {"replicas": 3}
    assert specs_to(wh, "v1", "w", "Widget") == []
    assert specs_to(wh, "v2", "w", "Widget") == []

    g = call(server, "GET", w_path(namespace, "w", "v2", "scale"))
    assert g.status == 200, g
    assert g.json["apiVersion"] == "autoscaling/v1"
    assert g.json["spec"] == {"replicas": 3}
    assert g.json["status"]["replicas"] == 2
    assert specs_to(wh, "v2", "w", "Widget") == [{"count": 3}]

    # PUT of the v2 Scale: spec.amount set in v2, stored as v1's count
    scale = g.json
    scale["spec"]["replicas"] = 5
    wh.clear()
    u = call(server, "PUT", w_path(namespace, "w", "v2", "scale"), scale)
    assert u.status == 200, u
    assert u.json["spec"] == {"replicas": 5}
    assert specs_to(wh, "v1", "w", "Widget") == [{"amount": 5}]
    # read, then what was stored for the answer
    assert specs_to(wh, "v2", "w", "Widget") == [
        {"count": 3}, {"count": 5}]
    o = call(server, "GET", w_path(namespace, "w", "v1"))
    assert o.json["spec"] == {"count": 5}, o
    assert o.json["metadata"]["resourceVersion"] == (
        u.json["metadata"]["resourceVersion"])

    # a merge patch of the v2 Scale
    p = call(server, "PATCH", w_path(namespace, "w", "v2", "scale"),
             {"spec": {"replicas": 7}},
             content_type="application/merge-patch+json")
    assert p.status == 200 and p.json["spec"] == {"replicas": 7}, p
    assert call(server, "GET", w_path(namespace, "w", "v1")).json[
        "spec"] == {"count": 7}
    assert call(server, "GET", w_path(namespace, "w", "v2")).json[
        "spec"] == {"amount": 7}

    # kubectl scale through the v2 name
    server.kubectl("scale", "-n", namespace, "widgets.v2." + GROUP, "w",
                   "--replicas=4")
    assert call(server, "GET", w_path(namespace, "w", "v1")).json[
        "spec"] == {"count": 4}


def create_widget(server, ns, name, spec):
    r = call(server, "POST", "/apis/%s/v1/namespaces/%s/widgets" % (
        GROUP, ns), {"apiVersion": GROUP + "/v1", "kind": "Widget",
                     "metadata": {"name": name}, "spec": spec})
    assert r.status == 201, r
    return r


def test_scale_dry_run_in_other_version(server, wh, widgets, namespace):
    """A dry-run write of the v2 Scale converts the changed object to v1
    and back as the write does, and stores nothing."""
    r = create_widget(server, namespace, "d", {"count": 3})
    rv = r.json["metadata"]["resourceVersion"]
    wh.clear()

    p = call(server, "PATCH", dry(w_path(namespace, "d", "v2", "scale")),
             {"spec": {"replicas": 6}},
             content_type="application/merge-patch+json")
    assert p.status == 200, p
    assert p.json["spec"] == {"replicas": 6}
    assert p.json["metadata"]["resourceVersion"] == rv
    assert specs_to(wh, "v1", "d", "Widget") == [{"amount": 6}]
    assert specs_to(wh, "v2", "d", "Widget") == [
        {"count": 3}, {"count": 6}]
    o = call(server, "GET", w_path(namespace, "d", "v1"))
    assert o.json["spec"] == {"count": 3}
    assert o.json["metadata"]["resourceVersion"] == rv


def test_scale_without_replicas(server, wh, widgets, namespace):
    """A Scale patch that leaves an object's unset replicas unset is
    refused, as upstream's ScaleREST (there is nothing to keep); one that
    sets them writes them."""
    create_widget(server, namespace, "nr", {})
    r = call(server, "PATCH", w_path(namespace, "nr", "v1", "scale"),
             {"metadata": {"labels": {"a": "b"}}},
             content_type="application/merge-patch+json")
    assert_status(r, 400, "BadRequest",
                  'the spec replicas field ".spec.count" cannot be empty')
    r = call(server, "PATCH", w_path(namespace, "nr", "v1", "scale"),
             {"spec": {"replicas": 2}},
             content_type="application/merge-patch+json")
    assert r.status == 200 and r.json["spec"] == {"replicas": 2}, r
    assert call(server, "GET", w_path(namespace, "nr", "v1")).json[
        "spec"] == {"count": 2}
