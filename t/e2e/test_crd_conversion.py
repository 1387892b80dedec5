"""CRD conversion webhooks (spec.conversion.strategy Webhook): reads of a
version other than the storage one go through the test's TLS webhook
server (webhook_server.py: v1 spec.count is v2 spec.amount), a list in
one ConversionReview, failures worded as kube-apiserver words them, v1beta1
reviews when the CRD lists only them.  Run on LMDB and on etcd."""

import pytest

from gcp_http import call
from gcp_wait import eventually
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

    set_webhook(server, wh, "/convert-fail")
    assert eventually(lambda: all(
        call(server, "GET", g_path(namespace, "one", "v2")).status == 500
        for _ in range(6)))

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
