"""managedFields entries of a custom resource version the CRD stops
serving or removes, as kube-apiserver 1.28.4 answers (checked against
the peer): an entry of a version still listed but not served is kept;
one of a version no longer listed is one upstream's converter refuses
("request to convert CR to an invalid group/version"), so an update
clears managedFields (the field manager's UpdateNoErrors) and an apply
fails with a 500."""

import json

import yaml

from gcp_http import call
from gcp_wait import eventually
from test_crd import create_crd, crd_path, delete_crd

GROUP = "gone.example.com"
NAME = "things." + GROUP
OPEN = {"type": "object", "properties": {"spec": {
    "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}


def crd(v2_served=True, with_v2=True):
    vs = [{"name": "v1", "served": True, "storage": True,
           "schema": {"openAPIV3Schema": OPEN}}]
    if with_v2:
        vs.append({"name": "v2", "served": v2_served, "storage": False,
                   "schema": {"openAPIV3Schema": OPEN}})
    return {"apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition", "metadata": {"name": NAME},
            "spec": {"group": GROUP, "scope": "Namespaced",
                     "names": {"plural": "things", "singular": "thing",
                               "kind": "Thing", "listKind": "ThingList"},
                     "versions": vs}}


def path(ns, name="", version="v1"):
    return "/apis/%s/%s/namespaces/%s/things%s" % (
        GROUP, version, ns, "/" + name if name else "")


def replace_crd(server, ns, body):
    """The CRD replaced; every worker sees v2 gone."""
    cur = call(server, "GET", crd_path(NAME)).json
    body["metadata"]["resourceVersion"] = cur["metadata"]["resourceVersion"]
    r = call(server, "PUT", crd_path(NAME), body)
    assert r.status == 200, r
    assert eventually(lambda: all(
        call(server, "GET", path(ns, version="v2")).status == 404
        for _ in range(8)), timeout=30)


def entries(obj):
    return [(e["manager"], e["apiVersion"], e["operation"])
            for e in obj["metadata"].get("managedFields", [])]


def merge(server, ns, name, manager, spec, version="v1"):
    r = call(server, "PATCH", path(ns, name, version) +
             "?fieldManager=" + manager, body=json.dumps({"spec": spec}),
             content_type="application/merge-patch+json")
    assert r.status == 200, r
    return r.json


def test_entries_of_unserved_and_removed_versions(server, namespace):
    create_crd(server, crd())
    try:
        for n in ("a", "b"):
            r = call(server, "POST", path(namespace) + "?fieldManager=m1",
                     {"apiVersion": GROUP + "/v1", "kind": "Thing",
                      "metadata": {"name": n}, "spec": {"p": 1}})
            assert r.status == 201, r
            obj = merge(server, namespace, n, "m2", {"q": 2}, "v2")
            assert entries(obj) == [("m1", GROUP + "/v1", "Update"),
                                    ("m2", GROUP + "/v2", "Update")]

        # v2 listed but not served: its entry stays
        replace_crd(server, namespace, crd(v2_served=False))
        obj = merge(server, namespace, "a", "m3", {"r": 3})
        assert entries(obj) == [("m1", GROUP + "/v1", "Update"),
                                ("m2", GROUP + "/v2", "Update"),
                                ("m3", GROUP + "/v1", "Update")]

        # v2 gone: an apply fails, an update clears managedFields
        replace_crd(server, namespace, crd(with_v2=False))
        r = call(server, "PATCH", path(namespace, "b") + "?fieldManager=ap",
                 body=yaml.safe_dump({"apiVersion": GROUP + "/v1",
                                      "kind": "Thing",
                                      "metadata": {"name": "b"},
                                      "spec": {"s": 4}}),
                 content_type="application/apply-patch+yaml")
        assert r.status == 500, r
        assert r.json["message"] == ("request to convert CR to an invalid "
                                     "group/version: %s/v2" % GROUP), r.json
        assert "reason" not in r.json, r.json
        obj = call(server, "GET", path(namespace, "b")).json
        assert obj["spec"] == {"p": 1, "q": 2}
        assert len(entries(obj)) == 2

        obj = merge(server, namespace, "b", "m3", {"r": 3})
        assert obj["spec"] == {"p": 1, "q": 2, "r": 3}
        assert "managedFields" not in obj["metadata"], obj

        # and then the next writes keep entries again
        obj = merge(server, namespace, "b", "m4", {"t": 5})
        assert entries(obj) == [("m4", GROUP + "/v1", "Update")]
    finally:
        delete_crd(server, NAME)


def test_create_with_entries_of_removed_version(server, namespace):
    """A create carrying managedFields: an entry of a version the CRD
    lists (owning a field the object lacks) is kept beside the
    creator's; one of a version the CRD no
    longer lists is one upstream's converter refuses, so the create (as
    an update: UpdateNoErrors) is stored without managedFields."""
    create_crd(server, crd(with_v2=False))

    def post(name, version):
        return call(server, "POST", path(namespace) + "?fieldManager=mk", {
            "apiVersion": GROUP + "/v1", "kind": "Thing",
            "metadata": {"name": name, "managedFields": [{
                "manager": "old", "operation": "Update",
                "apiVersion": GROUP + "/" + version,
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:spec": {"f:gone": {}}},
                "time": "2024-01-01T00:00:00Z"}],
                "labels": {"a": "b"}},
            "spec": {"p": 1}})

    try:
        r = post("kept", "v1")
        assert r.status == 201, r
        assert [e for e in entries(r.json) if e[0] == "old"] == [
            ("old", GROUP + "/v1", "Update")], r.json
        assert ("mk", GROUP + "/v1", "Update") in entries(r.json)

        r = post("cleared", "v2")
        assert r.status == 201, r
        assert "managedFields" not in r.json["metadata"], r.json
        obj = call(server, "GET", path(namespace, "cleared")).json
        assert "managedFields" not in obj["metadata"], obj
        assert obj["spec"] == {"p": 1}
    finally:
        delete_crd(server, NAME)
