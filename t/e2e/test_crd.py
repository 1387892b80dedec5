"""CustomResourceDefinitions and custom resources, end to end: kubectl,
raw HTTP compared with kube-apiserver's captured answers
(/work/shared/reference/09-*), the Python client's dynamic client, several
workers and (on etcd) two instances.

The Widget CRD is the one of the captures (ref.example.com, two versions,
status and scale subresources, printer columns, short name and
categories), without its CEL rule, which this server refuses."""

import copy
import json
import subprocess
import time

import pytest
import yaml

from gcp_http import assert_status, call
from gcp_server import GcpServer
from gcp_wait import eventually

GROUP = "ref.example.com"

SCHEMA = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "required": ["size"],
            "properties": {
                "size": {"type": "string",
                         "enum": ["small", "medium", "large"],
                         "description": "Widget size."},
                "replicas": {"type": "integer", "minimum": 0,
                             "maximum": 10, "default": 1},
                "color": {"type": "string", "pattern": "^[a-z]+$",
                          "default": "blue"},
                "tags": {"type": "array", "maxItems": 3,
                         "items": {"type": "string"}},
                "config": {"type": "object",
                           "x-kubernetes-preserve-unknown-fields": True},
            },
        },
        "status": {
            "type": "object",
            "properties": {
                "replicas": {"type": "integer"},
                "phase": {"type": "string"},
                "labelSelector": {"type": "string"},
            },
        },
    },
}

COLUMNS = [
    {"name": "Size", "type": "string", "jsonPath": ".spec.size"},
    {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
    {"name": "Phase", "type": "string", "jsonPath": ".status.phase"},
    {"name": "Color", "type": "string", "jsonPath": ".spec.color",
     "priority": 1, "description": "shown only with -o wide"},
    {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
]

SUBRESOURCES = {
    "status": {},
    "scale": {"specReplicasPath": ".spec.replicas",
              "statusReplicasPath": ".status.replicas",
              "labelSelectorPath": ".status.labelSelector"},
}


def widget_crd(plural="widgets", kind="Widget", group=GROUP,
               scope="Namespaced", short=("wd",), categories=("all",
                                                             "refcat")):
    version = {"served": True, "schema": {"openAPIV3Schema": SCHEMA},
               "subresources": SUBRESOURCES,
               "additionalPrinterColumns": COLUMNS,
               "selectableFields": [{"jsonPath": ".spec.color"}]}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "%s.%s" % (plural, group)},
        "spec": {
            "group": group, "scope": scope,
            "names": {"plural": plural, "singular": plural[:-1],
                      "kind": kind, "listKind": kind + "List",
                      "shortNames": list(short),
                      "categories": list(categories)},
            "versions": [dict(version, name="v1", storage=True),
                         dict(version, name="v1beta1", storage=False,
                              deprecated=True)],
        },
    }


def crd_path(name=""):
    p = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    return p + "/" + name if name else p


def established(srv, name):
    r = call(srv, "GET", crd_path(name))
    if r.status != 200:
        return False
    for c in r.json.get("status", {}).get("conditions") or []:
        if c["type"] == "Established" and c["status"] == "True":
            return r.json
    return False


def create_crd(srv, crd):
    r = call(srv, "POST", crd_path(), crd)
    assert r.status == 201, r
    assert eventually(lambda: established(srv, crd["metadata"]["name"]))
    # every worker learns the new API from its own watch of the CRDs:
    # wait until the connections (spread over the workers) all see it
    spec = crd["spec"]
    path = "/apis/%s/%s/%s" % (spec["group"], spec["versions"][0]["name"],
                               spec["names"]["plural"])
    assert eventually(lambda: all(call(srv, "GET", path).status == 200
                                  for _ in range(8)))
    return r.json


def delete_crd(srv, name):
    call(srv, "DELETE", crd_path(name))
    assert eventually(lambda: call(srv, "GET", crd_path(name)).status
                      == 404, timeout=30)


@pytest.fixture(scope="module")
def widgets(server):
    """The Widget CRD, Established, for the module's tests."""
    crd = create_crd(server, widget_crd())
    yield crd
    delete_crd(server, crd["metadata"]["name"])


def w_path(ns, name="", version="v1"):
    p = "/apis/%s/%s/namespaces/%s/widgets" % (GROUP, version, ns)
    return p + "/" + name if name else p


def widget(name, **spec):
    return {"apiVersion": GROUP + "/v1", "kind": "Widget",
            "metadata": {"name": name}, "spec": spec}


# ------------------------------------------------------------ the CRD


def test_crd_created_and_established(server, widgets):
    crd = established(server, "widgets.ref.example.com")
    status = crd["status"]
    assert status["acceptedNames"] == {
        "plural": "widgets", "singular": "widget", "shortNames": ["wd"],
        "kind": "Widget", "listKind": "WidgetList",
        "categories": ["all", "refcat"]}
    assert status["storedVersions"] == ["v1"]
    cond = {c["type"]: c for c in status["conditions"]}
    assert cond["NamesAccepted"]["status"] == "True"
    assert cond["NamesAccepted"]["reason"] == "NoConflicts"
    assert cond["NamesAccepted"]["message"] == "no conflicts found"
    assert cond["Established"]["reason"] == "InitialNamesAccepted"
    assert cond["Established"]["message"] == \
        "the initial names have been accepted"
    # Go's field order of the stored object
    assert list(crd) == ["kind", "apiVersion", "metadata", "spec", "status"]
    assert list(crd["spec"]) == ["group", "names", "scope", "versions",
                                 "conversion"]
    assert crd["spec"]["conversion"] == {"strategy": "None"}
    assert crd["metadata"]["generation"] == 1


def test_crd_create_response_status_shape(server, unique_name):
    crd = widget_crd(plural="shapes", kind="Shape", short=(), categories=())
    r = call(server, "POST", crd_path(), crd)
    try:
        assert r.status == 201, r
        # as kube-apiserver answers a create (09-crd-create.http)
        assert r.json["status"] == {
            "conditions": None,
            "acceptedNames": {"plural": "", "kind": ""},
            "storedVersions": ["v1"]}
    finally:
        delete_crd(server, "shapes." + GROUP)


def test_crd_name_mismatch(server):
    crd = widget_crd()
    crd["metadata"]["name"] = "wrong.ref.example.com"
    r = call(server, "POST", crd_path(), crd)
    assert_status(r, 422, "Invalid",
                  'CustomResourceDefinition.apiextensions.k8s.io '
                  '"wrong.ref.example.com" is invalid: metadata.name: '
                  'Invalid value: "wrong.ref.example.com": must be '
                  'spec.names.plural+"."+spec.group')


def test_crd_nonstructural(server):
    crd = {"apiVersion": "apiextensions.k8s.io/v1",
           "kind": "CustomResourceDefinition",
           "metadata": {"name": "gadgets.ref.example.com"},
           "spec": {"group": GROUP, "scope": "Namespaced",
                    "names": {"plural": "gadgets", "kind": "Gadget"},
                    "versions": [{"name": "v1", "served": True,
                                  "storage": True,
                                  "schema": {"openAPIV3Schema": {
                                      "type": "object",
                                      "properties": {
                                          "spec": {"properties": {
                                              "x": {"type": "string"}}},
                                          "extra": {"type": "string",
                                                    "default": 5}}}}}]}}
    r = call(server, "POST", crd_path(), crd)
    assert_status(r, 422, "Invalid",
                  'CustomResourceDefinition.apiextensions.k8s.io '
                  '"gadgets.ref.example.com" is invalid: '
                  'spec.validation.openAPIV3Schema.properties[spec].type: '
                  'Required value: must not be empty for specified object '
                  'fields')
    assert call(server, "GET", crd_path("gadgets.ref.example.com")).status \
        == 404


def test_crd_cel_rules_refused(server):
    crd = widget_crd(plural="celwidgets", kind="CelWidget", short=(),
                     categories=())
    for v in crd["spec"]["versions"]:
        v["schema"] = copy.deepcopy(v["schema"])
        v["schema"]["openAPIV3Schema"]["properties"]["spec"][
            "x-kubernetes-validations"] = [
            {"rule": "self.size == 'large' || self.replicas <= 5"}]
    r = call(server, "POST", crd_path(), crd)
    assert r.status == 422, r
    causes = r.json["details"]["causes"]
    assert any("x-kubernetes-validations" in c["field"] and
               c["reason"] == "FieldValueForbidden" for c in causes), causes
    assert call(server, "GET",
                crd_path("celwidgets.ref.example.com")).status == 404


def test_crd_invalid_spec_messages(server):
    crd = widget_crd(plural="bad", kind="Bad")
    crd["metadata"]["name"] = "bad.nodot"
    crd["spec"]["group"] = "nodot"
    crd["spec"]["scope"] = "Galactic"
    crd["spec"]["versions"][1]["storage"] = True
    r = call(server, "POST", crd_path(), crd)
    assert r.status == 422, r
    fields = [(c["field"], c["reason"]) for c in r.json["details"]["causes"]]
    assert ("spec.group", "FieldValueInvalid") in fields
    assert ("spec.scope", "FieldValueNotSupported") in fields
    assert ("spec.versions", "FieldValueInvalid") in fields
    msgs = [c["message"] for c in r.json["details"]["causes"]]
    assert 'Invalid value: "nodot": should be a domain with at least one ' \
        'dot' in msgs
    assert 'Unsupported value: "Galactic": supported values: "Cluster", ' \
        '"Namespaced"' in msgs


def test_crd_table(server, widgets):
    r = call(server, "GET", crd_path(), headers={
        "Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})
    assert r.status == 200
    cols = [c["name"] for c in r.json["columnDefinitions"]]
    assert cols == ["Name", "Created At"]
    names = [row["cells"][0] for row in r.json["rows"]]
    assert "widgets.ref.example.com" in names


def test_crd_names_conflict_resolved_on_delete(server):
    a = widget_crd(plural="blobs", kind="Blob", short=("bl",),
                   categories=())
    b = widget_crd(plural="blobbers", kind="Blob", short=("bl",),
                   categories=())
    create_crd(server, a)
    try:
        r = call(server, "POST", crd_path(), b)
        assert r.status == 201

        def conflict():
            r = call(server, "GET", crd_path("blobbers." + GROUP))
            for c in r.json["status"].get("conditions") or []:
                if c["type"] == "NamesAccepted" and c["status"] == "False":
                    return c
            return None

        c = eventually(conflict)
        # upstream checks plural, singular, short names, kind, list kind
        # in this order and reports the last conflict
        assert c["reason"] == "ListKindConflict", c
        assert c["message"] == '"BlobList" is already in use'
        acc = call(server, "GET", crd_path("blobbers." + GROUP)).json[
            "status"]["acceptedNames"]
        assert acc["plural"] == "blobbers" and acc["kind"] == ""
        assert not established(server, "blobbers." + GROUP)
        # the names are free once the other CRD is gone
        delete_crd(server, "blobs." + GROUP)
        assert eventually(lambda: established(server, "blobbers." + GROUP))
    finally:
        delete_crd(server, "blobbers." + GROUP)
        call(server, "DELETE", crd_path("blobs." + GROUP))


def test_crd_builtin_name_conflict(server):
    crd = widget_crd(plural="roles", kind="Rolex",
                     group="rbac.authorization.k8s.io", short=(),
                     categories=())
    crd["metadata"]["annotations"] = {
        "api-approved.kubernetes.io": "https://example.com/pr/1"}
    r = call(server, "POST", crd_path(), crd)
    assert r.status == 201, r
    name = "roles.rbac.authorization.k8s.io"
    try:
        def names_cond():
            r = call(server, "GET", crd_path(name))
            conds = {c["type"]: c for c in
                     r.json["status"].get("conditions") or []}
            return conds if "NamesAccepted" in conds else None

        conds = eventually(names_cond)
        assert conds["NamesAccepted"]["status"] == "False"
        # plural "roles" and singular "role" are the built-in type's
        assert conds["NamesAccepted"]["reason"] == "SingularConflict"
        assert conds["NamesAccepted"]["message"] == \
            '"role" is already in use'
        assert conds["KubernetesAPIApprovalPolicyConformant"]["status"] \
            == "True"
        # the built-in resource is still served
        r = call(server, "GET",
                 "/apis/rbac.authorization.k8s.io/v1/namespaces/default/"
                 "roles")
        assert r.json["kind"] == "RoleList"
    finally:
        delete_crd(server, name)


def test_crd_api_approval(server):
    crd = widget_crd(plural="things", kind="Thing", group="demo.k8s.io",
                     short=(), categories=())
    r = call(server, "POST", crd_path(), crd)
    assert_status(r, 422, "Invalid")
    assert r.json["details"]["causes"][0]["field"] == \
        "metadata.annotations[api-approved.kubernetes.io]"
    crd["metadata"]["annotations"] = {
        "api-approved.kubernetes.io": "unapproved, experiment"}
    create_crd(server, crd)
    try:
        c = {c["type"]: c for c in
             established(server, "things.demo.k8s.io")["status"][
                 "conditions"]}
        cond = c["KubernetesAPIApprovalPolicyConformant"]
        assert cond["status"] == "False"
        assert cond["reason"] == "UnapprovedAnnotation"
    finally:
        delete_crd(server, "things.demo.k8s.io")


# ------------------------------------------------------------ custom resources


def test_cr_crud_and_defaults(server, widgets, namespace):
    body = widget("w1", size="small", tags=["a", "b"])
    body["metadata"]["labels"] = {"app": "widgets"}
    r = call(server, "POST", w_path(namespace), body)
    assert r.status == 201, r
    obj = r.json
    # defaults applied, keys sorted as upstream writes unstructured JSON
    assert obj["spec"] == {"color": "blue", "replicas": 1, "size": "small",
                           "tags": ["a", "b"]}
    assert list(obj) == ["apiVersion", "kind", "metadata", "spec"]
    assert list(obj["metadata"]) == sorted(obj["metadata"])
    assert obj["metadata"]["generation"] == 1

    r = call(server, "GET", w_path(namespace, "w1"))
    assert r.status == 200
    assert r.json == obj

    r = call(server, "GET", w_path(namespace))
    assert r.json["kind"] == "WidgetList"
    assert r.json["apiVersion"] == GROUP + "/v1"
    # list items keep kind and apiVersion
    assert r.json["items"][0]["kind"] == "Widget"
    assert r.json["items"][0]["apiVersion"] == GROUP + "/v1"

    r = call(server, "PATCH", w_path(namespace, "w1"),
             {"spec": {"replicas": 3}},
             content_type="application/merge-patch+json")
    assert r.status == 200, r
    assert r.json["spec"]["replicas"] == 3
    assert r.json["metadata"]["generation"] == 2

    r = call(server, "PATCH", w_path(namespace, "w1"),
             [{"op": "replace", "path": "/spec/color", "value": "red"}],
             content_type="application/json-patch+json")
    assert r.status == 200, r
    assert r.json["spec"]["color"] == "red"

    r = call(server, "DELETE", w_path(namespace, "w1"))
    assert r.status == 200
    assert r.json["status"] == "Success"
    assert call(server, "GET", w_path(namespace, "w1")).status == 404


def test_cr_invalid_messages(server, widgets, namespace):
    r = call(server, "POST", w_path(namespace),
             widget("w-invalid", size="huge", replicas=11, color="Red",
                    tags=["a", "b", "c", "d"]))
    assert r.status == 422, r
    causes = {(c["field"], c["reason"], c["message"])
              for c in r.json["details"]["causes"]}
    assert causes == {
        ("spec.replicas", "FieldValueInvalid",
         "Invalid value: 11: spec.replicas in body should be less than or "
         "equal to 10"),
        ("spec.size", "FieldValueNotSupported",
         'Unsupported value: "huge": supported values: "small", "medium", '
         '"large"'),
        ("spec.tags", "FieldValueTooMany",
         "Too many: 4: must have at most 3 items"),
        ("spec.color", "FieldValueInvalid",
         'Invalid value: "Red": spec.color in body should match '
         "'^[a-z]+$'"),
    }
    assert r.json["details"]["kind"] == "Widget"
    assert r.json["details"]["group"] == GROUP

    r = call(server, "POST", w_path(namespace), widget("w-req"))
    assert_status(r, 422, "Invalid",
                  'Widget.ref.example.com "w-req" is invalid: spec.size: '
                  'Required value')

    r = call(server, "POST", w_path(namespace),
             widget("w-type", size="small", replicas="three"))
    assert r.status == 422
    msgs = [c["message"] for c in r.json["details"]["causes"]]
    assert 'Invalid value: "string": spec.replicas in body must be of ' \
        'type integer: "string"' in msgs
    assert "Invalid value: 0: .spec.replicas accessor error: three is of " \
        "the type string, expected int64" in msgs

    body = widget("x", size="small")
    body["kind"] = "Gadget"
    r = call(server, "POST", w_path(namespace), body)
    assert r.status == 422
    assert r.json["details"]["kind"] == "Gadget"
    assert r.json["details"]["causes"][0] == {
        "reason": "FieldValueInvalid",
        "message": 'Invalid value: "Gadget": must be Widget',
        "field": "kind"}
    # the capture's second cause is its CEL rule's (not served here); one
    # cause is printed without brackets
    assert r.json["message"] == (
        'Gadget.ref.example.com "x" is invalid: kind: Invalid value: '
        '"Gadget": must be Widget')

    # nothing was stored
    assert call(server, "GET", w_path(namespace)).json["items"] == []


def test_cr_unknown_fields(server, widgets, namespace):
    body = widget("w-unknown", size="medium", bogus="x",
                  config={"free": "form"})
    body["topLevelBogus"] = 1
    r = call(server, "POST", w_path(namespace) + "?fieldValidation=Strict",
             body)
    assert_status(r, 400, "BadRequest",
                  'Widget in version "v1" cannot be handled as a Widget: '
                  'strict decoding error: unknown field "spec.bogus", '
                  'unknown field "topLevelBogus"')
    r = call(server, "POST", w_path(namespace) + "?fieldValidation=Warn",
             body)
    assert r.status == 201, r
    assert r.headers["warning"] == ['299 - "unknown field \\"spec.bogus\\""',
                                    '299 - "unknown field '
                                    '\\"topLevelBogus\\""']
    assert r.json["spec"] == {"color": "blue", "config": {"free": "form"},
                              "replicas": 1, "size": "medium"}
    assert "topLevelBogus" not in r.json


def test_cr_strategic_merge_patch_refused(server, widgets, namespace):
    call(server, "POST", w_path(namespace), widget("w-smp", size="small"))
    r = call(server, "PATCH", w_path(namespace, "w-smp"),
             {"spec": {"replicas": 2}},
             content_type="application/strategic-merge-patch+json")
    assert_status(r, 415, "UnsupportedMediaType",
                  "the body of the request was in an unknown format - "
                  "accepted media types include: "
                  "application/json-patch+json, "
                  "application/merge-patch+json, "
                  "application/apply-patch+yaml")


def test_cr_versions_and_deprecation(server, widgets, namespace):
    call(server, "POST", w_path(namespace), widget("w-ver", size="large"))
    r = call(server, "GET", w_path(namespace, "w-ver", "v1beta1"))
    assert r.status == 200
    assert r.json["apiVersion"] == GROUP + "/v1beta1"
    assert r.headers["warning"] == [
        '299 - "ref.example.com/v1beta1 Widget is deprecated; use '
        'ref.example.com/v1 Widget"']
    # written through v1beta1, stored as v1
    b = widget("w-beta", size="small")
    b["apiVersion"] = GROUP + "/v1beta1"
    r = call(server, "POST", w_path(namespace, version="v1beta1"), b)
    assert r.status == 201, r
    assert r.json["apiVersion"] == GROUP + "/v1beta1"
    r = call(server, "GET", w_path(namespace, "w-beta"))
    assert r.json["apiVersion"] == GROUP + "/v1"
    # a body of another version than the URL's
    r = call(server, "POST", w_path(namespace), b)
    assert_status(r, 400, "BadRequest",
                  "the API version in the data (ref.example.com/v1beta1) "
                  "does not match the expected API version "
                  "(ref.example.com/v1)")


def test_cr_status_subresource(server, widgets, namespace):
    b = widget("w-st", size="small")
    b["status"] = {"phase": "Ignored"}
    r = call(server, "POST", w_path(namespace), b)
    assert "status" not in r.json
    r = call(server, "PATCH", w_path(namespace, "w-st") + "/status",
             {"status": {"phase": "Ready", "replicas": 1},
              "spec": {"size": "large"}},
             content_type="application/merge-patch+json")
    assert r.status == 200, r
    assert r.json["status"] == {"phase": "Ready", "replicas": 1}
    assert r.json["spec"]["size"] == "small"
    assert r.json["metadata"]["generation"] == 1
    # the main resource does not write status
    obj = r.json
    obj["status"] = {"phase": "Overwritten"}
    obj["spec"]["size"] = "medium"
    r = call(server, "PUT", w_path(namespace, "w-st"), obj)
    assert r.status == 200, r
    assert r.json["status"] == {"phase": "Ready", "replicas": 1}
    assert r.json["metadata"]["generation"] == 2


def test_cr_scale_subresource(server, widgets, namespace):
    b = widget("w-sc", size="small", replicas=2)
    call(server, "POST", w_path(namespace), b)
    call(server, "PATCH", w_path(namespace, "w-sc") + "/status",
         {"status": {"replicas": 1, "labelSelector": "app=widgets"}},
         content_type="application/merge-patch+json")
    r = call(server, "GET", w_path(namespace, "w-sc") + "/scale")
    assert r.status == 200, r
    assert r.json["kind"] == "Scale"
    assert r.json["apiVersion"] == "autoscaling/v1"
    assert list(r.json["metadata"]) == ["name", "namespace", "uid",
                                        "resourceVersion",
                                        "creationTimestamp"]
    assert r.json["spec"] == {"replicas": 2}
    assert r.json["status"] == {"replicas": 1, "selector": "app=widgets"}

    r = call(server, "PATCH", w_path(namespace, "w-sc") + "/scale",
             {"spec": {"replicas": 3}},
             content_type="application/merge-patch+json")
    assert r.status == 200, r
    assert r.json["spec"] == {"replicas": 3}
    assert call(server, "GET", w_path(namespace, "w-sc")).json["spec"][
        "replicas"] == 3

    r = call(server, "PUT", w_path(namespace, "w-sc") + "/scale",
             {"apiVersion": "autoscaling/v1", "kind": "Scale",
              "metadata": {"name": "w-sc", "namespace": namespace},
              "spec": {"replicas": -1}})
    assert_status(r, 422, "Invalid",
                  'Widget.ref.example.com "w-sc" is invalid: '
                  '[spec.replicas: Invalid value: -1: spec.replicas in body '
                  'should be greater than or equal to 0, .spec.replicas: '
                  'Invalid value: -1: should be a non-negative integer]')


def managers(obj):
    """(manager, operation, apiVersion, subresource, fieldsV1) of obj's
    entries, in order."""
    return [(e["manager"], e["operation"], e["apiVersion"],
             e.get("subresource"), e["fieldsV1"])
            for e in obj["metadata"].get("managedFields", [])]


REPLICAS = {"f:spec": {"f:replicas": {}}}


def test_cr_scale_managed_fields(server, widgets, namespace):
    """Writes through /scale keep managedFields as kube-apiserver's
    ScaleHandler: the writer owns the replicas field (specReplicasPath, in
    the version written) in an Update entry with subresource scale,
    taken from the manager that owned it before; a write that leaves the
    replicas as they are gives nobody anything."""
    merge = "application/merge-patch+json"
    r = call(server, "POST", w_path(namespace) + "?fieldManager=creator",
             widget("w-mf", size="small", replicas=2))
    assert r.status == 201, r
    assert managers(r.json)[0][:2] == ("creator", "Update")
    assert "f:replicas" in managers(r.json)[0][4]["f:spec"]

    r = call(server, "PATCH", w_path(namespace, "w-mf")
             + "/scale?fieldManager=scaler", {"spec": {"replicas": 3}},
             content_type=merge)
    assert r.status == 200, r
    assert "managedFields" not in r.json["metadata"]        # the Scale's
    obj = call(server, "GET", w_path(namespace, "w-mf")).json
    mf = managers(obj)
    # upstream gives the entry made of the Scale's no time: it comes first
    assert [m[:4] for m in mf] == [
        ("scaler", "Update", GROUP + "/v1", "scale"),
        ("creator", "Update", GROUP + "/v1", None)]
    assert "time" not in obj["metadata"]["managedFields"][0]
    assert mf[0][4] == REPLICAS
    assert "f:replicas" not in mf[1][4]["f:spec"]
    assert "f:size" in mf[1][4]["f:spec"]
    creator = mf[1][4]

    def put_scale(version, replicas):
        r = call(server, "PUT", w_path(namespace, "w-mf", version)
                 + "/scale?fieldManager=other",
                 {"apiVersion": "autoscaling/v1", "kind": "Scale",
                  "metadata": {"name": "w-mf", "namespace": namespace},
                  "spec": {"replicas": replicas}})
        assert r.status == 200, r

    # the same value again, by another: nothing changes hands
    put_scale("v1", 3)
    obj = call(server, "GET", w_path(namespace, "w-mf")).json
    assert [m[:4] for m in managers(obj)] == [
        ("scaler", "Update", GROUP + "/v1", "scale"),
        ("creator", "Update", GROUP + "/v1", None)]

    # a write through v1beta1's /scale: owned in v1beta1
    put_scale("v1beta1", 4)
    obj = call(server, "GET", w_path(namespace, "w-mf")).json
    assert managers(obj) == [
        ("other", "Update", GROUP + "/v1beta1", "scale", REPLICAS),
        ("creator", "Update", GROUP + "/v1", None, creator)]

    # an applier takes the field back; kubectl scale takes it again
    r = call(server, "PATCH", w_path(namespace, "w-mf")
             + "?fieldManager=applier&force=true",
             json.dumps(widget("w-mf", size="small", replicas=5)),
             content_type="application/apply-patch+yaml")
    assert r.status == 200, r
    assert "other" not in [m[0] for m in managers(r.json)]
    server.kubectl("-n", namespace, "scale", "widgets." + GROUP, "w-mf",
                   "--replicas=6")
    obj = call(server, "GET", w_path(namespace, "w-mf")).json
    mf = managers(obj)
    scale = [m for m in mf if m[3] == "scale"]
    assert [m[0] for m in scale] == ["kubectl"]
    assert scale[0][1:] == ("Update", GROUP + "/v1", "scale", REPLICAS)
    applier = [m for m in mf if m[0] == "applier"]
    assert "f:replicas" not in applier[0][4]["f:spec"]
    assert obj["spec"]["replicas"] == 6

    # scaled to 0: a Scale without replicas, whose writer owns nothing
    r = call(server, "PATCH", w_path(namespace, "w-mf")
             + "/scale?fieldManager=zero", {"spec": {"replicas": 0}},
             content_type=merge)
    assert r.status == 200 and r.json["spec"] == {}, r
    obj = call(server, "GET", w_path(namespace, "w-mf")).json
    assert obj["spec"]["replicas"] == 0
    assert [m for m in managers(obj) if m[3] == "scale"] == []


def test_cr_table_and_partial(server, widgets, namespace):
    call(server, "POST", w_path(namespace),
         widget("w-tab", size="medium"))
    r = call(server, "GET", w_path(namespace), headers={
        "Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})
    assert r.status == 200
    cols = r.json["columnDefinitions"]
    assert [(c["name"], c["type"], c["priority"]) for c in cols] == [
        ("Name", "string", 0), ("Size", "string", 0),
        ("Replicas", "integer", 0), ("Phase", "string", 0),
        ("Color", "string", 1), ("Age", "date", 0)]
    assert cols[1]["description"] == \
        "Custom resource definition column (in JSONPath format): .spec.size"
    assert cols[4]["description"] == "shown only with -o wide"
    row = r.json["rows"][0]
    assert row["cells"][:5] == ["w-tab", "medium", 1, None, "blue"]
    meta = row["object"]["metadata"]
    # PartialObjectMetadata: ObjectMeta's order, not the sorted one
    assert list(meta)[:3] == ["name", "namespace", "uid"]


# 09-cr-get-protobuf-only.http: custom resources have no protobuf, and
# the 406 Status itself comes in protobuf (the capture's 178 bytes)
CR_406_PROTOBUF = bytes.fromhex(
    "6b387300 0a0c0a02 76311206 53746174 75731299 010a060a 0012001a"
    "00120746 61696c75 72651a74 6f6e6c79 20746865 20666f6c 6c6f7769"
    "6e67206d 65646961 20747970 65732061 72652061 63636570 7465643a"
    "20617070 6c696361 74696f6e 2f6a736f 6e2c2061 70706c69 63617469"
    "6f6e2f79 616d6c2c 20617070 6c696361 74696f6e 2f766e64 2e6b7562"
    "65726e65 7465732e 70726f74 6f627566 220d4e6f 74416363 65707461"
    "626c6530 96031a00 2200".replace(" ", ""))


def test_cr_protobuf_only_refused_in_protobuf(server, widgets, namespace):
    call(server, "POST", w_path(namespace), widget("w-pb", size="small"))
    pb = "application/vnd.kubernetes.protobuf"
    r = call(server, "GET", w_path(namespace, "w-pb"),
             headers={"Accept": pb})
    assert r.status == 406, r
    assert r.content_type == pb
    assert r.body == CR_406_PROTOBUF
    # with JSON after it, JSON
    r = call(server, "GET", w_path(namespace, "w-pb"),
             headers={"Accept": pb + ", application/json"})
    assert r.status == 200 and r.json["metadata"]["name"] == "w-pb", r


def test_cr_selectors(server, widgets, namespace):
    for name, color, app in (("w-s1", "red", "a"), ("w-s2", "blue", "b")):
        b = widget(name, size="small", color=color)
        b["metadata"]["labels"] = {"app": app}
        assert call(server, "POST", w_path(namespace), b).status == 201
    r = call(server, "GET", w_path(namespace) + "?labelSelector=app%3Da")
    assert [i["metadata"]["name"] for i in r.json["items"]] == ["w-s1"]
    r = call(server, "GET", w_path(namespace) + "?fieldSelector=spec.color"
             "%3Dblue")
    assert r.status == 200, r
    assert [i["metadata"]["name"] for i in r.json["items"]] == ["w-s2"]
    r = call(server, "GET", w_path(namespace) + "?fieldSelector=spec.size"
             "%3Dsmall")
    assert r.status == 400, r


def test_cr_watch(server, widgets, namespace):
    r0 = call(server, "GET", w_path(namespace))
    rv = r0.json["metadata"]["resourceVersion"]
    call(server, "POST", w_path(namespace), widget("w-w", size="small"))
    r = call(server, "GET", w_path(namespace) + "?watch=1&resourceVersion="
             + rv + "&timeoutSeconds=1")
    events = [json.loads(x) for x in r.body.decode().splitlines() if x]
    assert events[0]["type"] == "ADDED"
    assert events[0]["object"]["metadata"]["name"] == "w-w"
    assert events[0]["object"]["kind"] == "Widget"


# ------------------------------------------------------------ discovery


def test_discovery(server, widgets):
    r = call(server, "GET", "/apis/ref.example.com")
    assert r.json == {
        "kind": "APIGroup", "apiVersion": "v1", "name": GROUP,
        "versions": [{"groupVersion": GROUP + "/v1", "version": "v1"},
                     {"groupVersion": GROUP + "/v1beta1",
                      "version": "v1beta1"}],
        "preferredVersion": {"groupVersion": GROUP + "/v1",
                             "version": "v1"}}
    r = call(server, "GET", "/apis/ref.example.com/v1")
    res = r.json["resources"]
    assert res[0] == {
        "name": "widgets", "singularName": "widget", "namespaced": True,
        "kind": "Widget",
        "verbs": ["delete", "deletecollection", "get", "list", "patch",
                  "create", "update", "watch"],
        "shortNames": ["wd"], "categories": ["all", "refcat"],
        "storageVersionHash": "K5uH4mF/QeQ="}
    assert res[1]["name"] == "widgets/status"
    assert res[2] == {"name": "widgets/scale", "singularName": "",
                      "namespaced": True, "group": "autoscaling",
                      "version": "v1", "kind": "Scale",
                      "verbs": ["get", "patch", "update"]}
    r = call(server, "GET", "/apis")
    names = [g["name"] for g in r.json["groups"]]
    assert names[-1] == GROUP or GROUP in names
    assert names.index(GROUP) > names.index("apiextensions.k8s.io")
    r = call(server, "GET", "/apis", headers={
        "Accept": "application/json;g=apidiscovery.k8s.io;v=v2;"
                  "as=APIGroupDiscoveryList"})
    g = [x for x in r.json["items"] if x["metadata"]["name"] == GROUP][0]
    w = g["versions"][0]["resources"][0]
    assert w["responseKind"] == {"group": GROUP, "version": "v1",
                                 "kind": "Widget"}


def test_openapi_v3(server, widgets):
    r = call(server, "GET", "/openapi/v3")
    assert "apis/ref.example.com/v1" in r.json["paths"]
    url = r.json["paths"]["apis/ref.example.com/v1"]["serverRelativeURL"]
    r = call(server, "GET", url)
    assert r.status == 200
    schemas = r.json["components"]["schemas"]
    w = schemas["com.example.ref.v1.Widget"]
    assert w["properties"]["spec"]["properties"]["size"]["enum"] == \
        ["small", "medium", "large"]
    assert w["x-kubernetes-group-version-kind"] == [
        {"group": GROUP, "kind": "Widget", "version": "v1"}]
    assert "/apis/ref.example.com/v1/namespaces/{namespace}/widgets/{name}" \
        "/scale" in r.json["paths"]


# ------------------------------------------------------------ kubectl


def test_kubectl_workflow(server, namespace, tmp_path):
    crd = widget_crd(plural="gizmos", kind="Gizmo", short=("gz",),
                     categories=("gizmocat",))
    crd_file = tmp_path / "crd.yaml"
    crd_file.write_text(yaml.safe_dump(crd))
    server.kubectl("apply", "-f", str(crd_file))
    try:
        server.kubectl("wait", "--for", "condition=established",
                       "--timeout=20s", "crd/gizmos.ref.example.com")
        cr = {"apiVersion": GROUP + "/v1", "kind": "Gizmo",
              "metadata": {"name": "g1", "namespace": namespace},
              "spec": {"size": "large", "replicas": 2}}
        out = server.kubectl("apply", "-f", "-",
                             input=yaml.safe_dump(cr)).stdout
        assert out == "gizmo.ref.example.com/g1 created\n"

        out = server.kubectl("-n", namespace, "get", "gizmos").stdout
        lines = out.splitlines()
        assert lines[0].split() == ["NAME", "SIZE", "REPLICAS", "PHASE",
                                    "AGE"]
        assert lines[1].split()[:3] == ["g1", "large", "2"]
        out = server.kubectl("-n", namespace, "get", "gz", "-o",
                             "wide").stdout
        assert out.splitlines()[0].split() == ["NAME", "SIZE", "REPLICAS",
                                               "PHASE", "COLOR", "AGE"]
        out = server.kubectl("-n", namespace, "get", "gizmocat").stdout
        assert "g1" in out

        server.kubectl("-n", namespace, "patch", "gizmo", "g1", "--type",
                       "merge", "-p", '{"spec":{"color":"green"}}')
        server.kubectl("-n", namespace, "patch", "gizmo", "g1",
                       "--subresource=status", "--type", "merge", "-p",
                       '{"status":{"phase":"Running"}}')
        g = json.loads(server.kubectl("-n", namespace, "get", "gizmo", "g1",
                                      "-o", "json").stdout)
        assert g["spec"]["color"] == "green"
        assert g["status"]["phase"] == "Running"

        out = server.kubectl("-n", namespace, "scale", "gizmo", "g1",
                             "--replicas=5").stdout
        assert out == "gizmo.ref.example.com/g1 scaled\n"
        g = json.loads(server.kubectl("-n", namespace, "get", "gizmo", "g1",
                                      "-o", "json").stdout)
        assert g["spec"]["replicas"] == 5

        out = server.kubectl("explain", "gizmo.spec.size").stdout
        assert "Widget size." in out

        out = server.kubectl("-n", namespace, "delete", "gizmo",
                             "g1").stdout
        assert out == 'gizmo.ref.example.com "g1" deleted\n'
    finally:
        server.kubectl("delete", "-f", str(crd_file), check=False)


def test_python_dynamic_client(server, widgets, namespace):
    from kubernetes import dynamic

    with server.api_client() as api:
        dyn = dynamic.DynamicClient(api)
        res = dyn.resources.get(api_version=GROUP + "/v1", kind="Widget")
        w = res.create(body=widget("dyn1", size="small"),
                       namespace=namespace)
        assert w.spec.replicas == 1
        got = res.get(name="dyn1", namespace=namespace)
        assert got.metadata.uid == w.metadata.uid
        rv = res.get(namespace=namespace).metadata.resourceVersion
        res.patch(name="dyn1", namespace=namespace,
                  body={"spec": {"replicas": 4}},
                  content_type="application/merge-patch+json")
        seen = []
        for ev in res.watch(namespace=namespace, resource_version=rv,
                            timeout=2):
            seen.append((ev["type"], ev["object"].spec.replicas))
            if ev["type"] == "MODIFIED":
                break
        assert ("MODIFIED", 4) in seen
        res.delete(name="dyn1", namespace=namespace)


# ------------------------------------------------------------ lifecycle


def test_crd_delete_removes_instances(server, namespace, unique_name):
    crd = widget_crd(plural="sprockets", kind="Sprocket", short=(),
                     categories=())
    create_crd(server, crd)
    path = "/apis/%s/v1/namespaces/%s/sprockets" % (GROUP, namespace)
    other = unique_name("ns")
    call(server, "POST", "/api/v1/namespaces", {"metadata": {"name": other}})
    try:
        for i in range(1000):
            ns = namespace if i % 2 else other
            b = {"apiVersion": GROUP + "/v1", "kind": "Sprocket",
                 "metadata": {"name": "s%d" % i}, "spec": {"size": "small"}}
            r = call(server, "POST", "/apis/%s/v1/namespaces/%s/sprockets"
                     % (GROUP, ns), b)
            assert r.status == 201, r
        w = call(server, "GET", "/apis/%s/v1/sprockets?limit=1" % GROUP)
        assert w.json["metadata"]["remainingItemCount"] == 999

        r = call(server, "DELETE", crd_path("sprockets." + GROUP))
        assert r.status == 200
        assert r.json["metadata"]["deletionTimestamp"]
        assert GROUP_FINALIZER in r.json["metadata"]["finalizers"]
        cond = {c["type"]: c for c in r.json["status"]["conditions"]}
        assert cond["Terminating"]["status"] == "True"

        assert eventually(lambda: call(server, "GET",
                                       crd_path("sprockets." + GROUP)).status
                          == 404, timeout=60)
        # gone from every worker's discovery (each learns it from its
        # watch of the CRDs), no object left
        def gone_everywhere():
            for _ in range(8):
                if call(server, "GET", path).status != 404:
                    return False
                r = call(server, "GET", "/apis/ref.example.com/v1")
                if any(x["name"] == "sprockets"
                       for x in r.json.get("resources", [])):
                    return False
            return True
        assert eventually(gone_everywhere)
        # nothing was left in storage: the same CRD again lists no object
        create_crd(server, crd)
        r = call(server, "GET", "/apis/%s/v1/sprockets" % GROUP)
        assert r.status == 200 and r.json["items"] == [], r
        delete_crd(server, "sprockets." + GROUP)
    finally:
        call(server, "DELETE", "/api/v1/namespaces/" + other)


GROUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io"


def test_terminating_crd_refuses_creates(server, namespace):
    crd = widget_crd(plural="holders", kind="Holder", short=(),
                     categories=())
    create_crd(server, crd)
    path = "/apis/%s/v1/namespaces/%s/holders" % (GROUP, namespace)
    b = {"apiVersion": GROUP + "/v1", "kind": "Holder",
         "metadata": {"name": "h1", "finalizers": ["example.com/hold"]},
         "spec": {"size": "small"}}
    assert call(server, "POST", path, b).status == 201
    call(server, "DELETE", crd_path("holders." + GROUP))

    def terminating():
        r = call(server, "GET", crd_path("holders." + GROUP))
        c = {c["type"]: c for c in r.json["status"]["conditions"]}
        return c.get("Terminating", {}).get("reason") == \
            "InstanceDeletionInProgress"

    assert eventually(terminating)
    b2 = dict(b, metadata={"name": "h2"})
    r = call(server, "POST", path, b2)
    assert_status(r, 405, "MethodNotAllowed",
                  "create not allowed while custom resource definition is "
                  "terminating")
    # the finalizer of the instance holds everything; removing it ends it
    r = call(server, "PATCH", path + "/h1",
             {"metadata": {"finalizers": None}},
             content_type="application/merge-patch+json")
    assert r.status == 200, r
    assert eventually(lambda: call(server, "GET",
                                   crd_path("holders." + GROUP)).status
                      == 404, timeout=30)


def test_every_worker_serves_at_once(storage):
    with GcpServer(workers=4) as srv:
        crd = widget_crd(plural="blips", kind="Blip", short=(),
                         categories=())
        r = call(srv, "POST", crd_path(), crd)
        assert r.status == 201
        t0 = time.monotonic()
        assert eventually(lambda: established(srv, "blips." + GROUP))
        # within a second of Established, every connection (spread over
        # the workers) sees the new API
        def all_serve():
            return all(call(srv, "GET", "/apis/%s/v1/blips" % GROUP).status
                       == 200 for _ in range(16))
        assert eventually(all_serve, timeout=1.0)
        assert time.monotonic() - t0 < 5
