"""Server-side apply and managedFields, as kube-apiserver 1.32 answers
them (the 02-cm-apply-* captures): kubectl apply --server-side (create,
change, field removal, conflicts between managers, --force-conflicts),
kubectl diff --server-side, the Python client's dynamic
server_side_apply, the Status of a conflict and of a missing
fieldManager, managedFields on plain writes, dry run, and applied objects
in YAML and protobuf."""

import json

import pytest
import yaml

import gcp_pbwire as pbwire
from gcp_http import call


APPLY = "application/apply-patch+yaml"


def cm_doc(name, data, labels=None):
    meta = {"name": name}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta,
            "data": data}


def kapply(srv, ns, doc, *extra, check=True):
    return srv.kubectl("-n", ns, "apply", "--server-side", "-f", "-",
                       *extra, input=yaml.safe_dump(doc), check=check)


def get_cm(srv, ns, name):
    return json.loads(srv.kubectl("-n", ns, "get", "configmap", name,
                                  "-o", "json",
                                  "--show-managed-fields").stdout)


def entries(obj):
    """managedFields without their times: (manager, operation, fieldsV1)."""
    return [(e["manager"], e["operation"], e["fieldsV1"])
            for e in obj["metadata"]["managedFields"]]


def path(ns, name=""):
    return "/api/v1/namespaces/%s/configmaps%s" % (
        ns, "/" + name if name else "")


def apply_http(srv, ns, doc, query):
    return call(srv, "PATCH", path(ns, doc["metadata"]["name"]) + query,
                body=json.dumps(doc), content_type=APPLY)


def test_kubectl_apply_server_side(server, namespace):
    p = kapply(server, namespace, cm_doc("ssa", {"a": "1", "b": "2"},
                                         {"app": "demo"}))
    assert p.stdout == "configmap/ssa serverside-applied\n"

    cm = get_cm(server, namespace, "ssa")
    assert cm["data"] == {"a": "1", "b": "2"}
    [e] = cm["metadata"]["managedFields"]
    assert (e["manager"], e["operation"], e["apiVersion"],
            e["fieldsType"]) == ("kubectl", "Apply", "v1", "FieldsV1")
    assert e["fieldsV1"] == {"f:data": {"f:a": {}, "f:b": {}},
                             "f:metadata": {"f:labels": {"f:app": {}}}}
    assert e["time"].endswith("Z")

    # managedFields are not shown without --show-managed-fields
    plain = json.loads(server.kubectl("-n", namespace, "get", "configmap",
                                      "ssa", "-o", "json").stdout)
    assert "managedFields" not in plain["metadata"]

    # a change, and a field the manager stops applying goes away
    kapply(server, namespace, cm_doc("ssa", {"a": "10"}, {"app": "demo"}))
    cm = get_cm(server, namespace, "ssa")
    assert cm["data"] == {"a": "10"}
    assert entries(cm) == [("kubectl", "Apply",
                            {"f:data": {"f:a": {}},
                             "f:metadata": {"f:labels": {"f:app": {}}}})]

    # the same configuration again changes nothing
    rv = cm["metadata"]["resourceVersion"]
    kapply(server, namespace, cm_doc("ssa", {"a": "10"}, {"app": "demo"}))
    assert get_cm(server, namespace, "ssa")["metadata"]["resourceVersion"] \
        == rv


def test_kubectl_conflict_and_force(server, namespace):
    kapply(server, namespace, cm_doc("ssa", {"shared": "a", "mine": "1"}))

    p = kapply(server, namespace, cm_doc("ssa", {"shared": "b"}),
               "--field-manager", "other", check=False)
    assert p.returncode == 1
    assert 'Apply failed with 1 conflict: conflict with "kubectl": ' \
        '.data.shared' in p.stderr
    assert get_cm(server, namespace, "ssa")["data"]["shared"] == "a"

    kapply(server, namespace, cm_doc("ssa", {"shared": "b", "theirs": "2"}),
           "--field-manager", "other", "--force-conflicts")
    cm = get_cm(server, namespace, "ssa")
    assert cm["data"] == {"shared": "b", "mine": "1", "theirs": "2"}
    assert entries(cm) == [
        ("kubectl", "Apply", {"f:data": {"f:mine": {}}}),
        ("other", "Apply", {"f:data": {"f:shared": {}, "f:theirs": {}}})]

    # a field another manager still owns stays when one stops applying it
    kapply(server, namespace, cm_doc("ssa", {"mine": "1", "shared": "b"}))
    kapply(server, namespace, cm_doc("ssa", {"mine": "1"}))
    assert get_cm(server, namespace, "ssa")["data"] == {
        "shared": "b", "mine": "1", "theirs": "2"}


def test_kubectl_diff_server_side(server, namespace):
    kapply(server, namespace, cm_doc("ssd", {"a": "1"}))
    p = server.kubectl("-n", namespace, "diff", "--server-side", "-f", "-",
                       input=yaml.safe_dump(cm_doc("ssd", {"a": "2"})),
                       check=False)
    assert p.returncode == 1, p.stderr
    assert "-  a: \"1\"\n" in p.stdout and "+  a: \"2\"\n" in p.stdout
    assert get_cm(server, namespace, "ssd")["data"] == {"a": "1"}

    p = server.kubectl("-n", namespace, "diff", "--server-side", "-f", "-",
                       input=yaml.safe_dump(cm_doc("ssd", {"a": "1"})),
                       check=False)
    assert p.returncode == 0, p.stdout + p.stderr


def test_apply_statuses(server, namespace):
    doc = cm_doc("cm-ssa", {"owned-by-a": "1", "shared": "a"},
                 {"app": "demo"})

    # 02-cm-apply-no-field-manager
    r = apply_http(server, namespace, doc, "")
    assert r.status == 422, r
    assert r.json == {
        "kind": "Status", "apiVersion": "v1", "metadata": {},
        "status": "Failure",
        "message": "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: "
                   "Required value: is required for apply patch",
        "reason": "Invalid",
        "details": {"group": "meta.k8s.io", "kind": "PatchOptions",
                    "causes": [{"reason": "FieldValueRequired",
                                "message": "Required value: is required "
                                           "for apply patch",
                                "field": "fieldManager"}]},
        "code": 422}

    # dry run: nothing is created
    r = apply_http(server, namespace, doc, "?fieldManager=manager-a"
                   "&dryRun=All")
    assert r.status == 201, r
    assert r.json["metadata"]["managedFields"][0]["manager"] == "manager-a"
    assert call(server, "GET", path(namespace, "cm-ssa")).status == 404

    # 02-cm-apply-create
    r = apply_http(server, namespace, doc, "?fieldManager=manager-a")
    assert r.status == 201, r
    assert r.json["metadata"]["managedFields"][0]["fieldsV1"] == {
        "f:data": {"f:owned-by-a": {}, "f:shared": {}},
        "f:metadata": {"f:labels": {"f:app": {}}}}

    # 02-cm-apply-conflict
    other = cm_doc("cm-ssa", {"shared": "b", "owned-by-b": "2"})
    r = apply_http(server, namespace, other, "?fieldManager=manager-b")
    assert r.status == 409, r
    assert r.json == {
        "kind": "Status", "apiVersion": "v1", "metadata": {},
        "status": "Failure",
        "message": "Apply failed with 1 conflict: conflict with "
                   "\"manager-a\": .data.shared",
        "reason": "Conflict",
        "details": {"causes": [{"reason": "FieldManagerConflict",
                                "message": "conflict with \"manager-a\"",
                                "field": ".data.shared"}]},
        "code": 409}

    # force on another patch type is refused
    r = call(server, "PATCH", path(namespace, "cm-ssa") + "?force=true",
             body=json.dumps({"data": {"x": "y"}}),
             content_type="application/merge-patch+json")
    assert r.status == 422, r
    assert r.json["message"] == ("PatchOptions.meta.k8s.io \"\" is "
                                 "invalid: force: Forbidden: may not be "
                                 "specified for non-apply patch")

    # 02-cm-apply-force, then 02-cm-update-field-manager
    r = apply_http(server, namespace, other,
                   "?fieldManager=manager-b&force=true")
    assert r.status == 200, r
    assert [(e["manager"], e["fieldsV1"])
            for e in r.json["metadata"]["managedFields"]] == [
        ("manager-a", {"f:data": {"f:owned-by-a": {}},
                       "f:metadata": {"f:labels": {"f:app": {}}}}),
        ("manager-b", {"f:data": {"f:owned-by-b": {}, "f:shared": {}}})]

    put = r.json
    put["data"]["shared"] = "edited"
    r = call(server, "PUT", path(namespace, "cm-ssa") + "?fieldManager="
             "editor", body=put)
    assert r.status == 200, r
    assert entries(r.json) == [
        ("manager-a", "Apply", {"f:data": {"f:owned-by-a": {}},
                                "f:metadata": {"f:labels": {"f:app": {}}}}),
        ("manager-b", "Apply", {"f:data": {"f:owned-by-b": {}}}),
        ("editor", "Update", {"f:data": {"f:shared": {}}})]

    # an applier now conflicts with the Update entry
    r = apply_http(server, namespace, doc, "?fieldManager=manager-a")
    assert r.status == 409, r
    assert r.json["message"] == ("Apply failed with 1 conflict: conflict "
                                 "with \"editor\" using v1: .data.shared")

    # wrong version and managedFields in the configuration: 400
    bad = dict(doc, apiVersion="v2")
    r = apply_http(server, namespace, bad, "?fieldManager=manager-a")
    assert r.status == 400, r
    assert r.json["message"] == ("Incorrect version specified in apply "
                                 "patch. Specified patch version: v2, "
                                 "expected: v1")


def test_managed_fields_on_writes(server, namespace):
    body = {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "cm1", "labels": {"app": "demo"}},
            "data": {"key1": "value1"}}
    r = call(server, "POST", path(namespace), body=body,
             headers={"User-Agent": "refcapture/v1.0 (linux/amd64)"})
    assert r.status == 201, r
    # 02-cm-create: the manager from the User-Agent, maps made are members
    assert entries(r.json) == [
        ("refcapture", "Update",
         {"f:data": {".": {}, "f:key1": {}},
          "f:metadata": {"f:labels": {".": {}, "f:app": {}}}})]

    r = call(server, "PATCH", path(namespace, "cm1") + "?fieldManager=m2",
             body=json.dumps({"data": {"key2": "v"}}),
             content_type="application/merge-patch+json")
    assert r.status == 200, r
    # (entries of one second are ordered by manager, then by time)
    got = {e[0]: e[1:] for e in entries(r.json)}
    assert sorted(got) == ["m2", "refcapture"]
    assert got["m2"] == ("Update", {"f:data": {"f:key2": {}}})

    # [{}] resets them: only this write's entry is left
    r = call(server, "PATCH", path(namespace, "cm1") + "?fieldManager=m3",
             body=json.dumps({"metadata": {"managedFields": [{}]},
                              "data": {"key3": "v"}}),
             content_type="application/merge-patch+json")
    assert r.status == 200, r
    assert entries(r.json) == [("m3", "Update", {"f:data": {"f:key3": {}}})]


def test_applied_object_encodings(server, namespace):
    doc = cm_doc("enc", {"k": "v"})
    r = call(server, "PATCH", path(namespace, "enc") + "?fieldManager=y",
             body=yaml.safe_dump(doc), content_type=APPLY,
             headers={"Accept": "application/yaml"})
    assert r.status == 201, r
    out = yaml.safe_load(r.body)
    assert out["metadata"]["managedFields"][0]["fieldsV1"] == {
        "f:data": {"f:k": {}}}

    r = call(server, "PATCH", path(namespace, "enc") + "?fieldManager=y",
             body=yaml.safe_dump(cm_doc("enc", {"k": "w"})),
             content_type=APPLY,
             headers={"Accept": "application/vnd.kubernetes.protobuf"})
    assert r.status == 200, r
    assert r.body[:4] == b"k8s\x00"
    assert b"managedFields" not in r.body and b"f:data" in r.body


def py_apply(api, ns, doc, manager, force=False):
    """An apply through the Python client's ApiClient.call_api (its typed
    and dynamic clients send only JSON bodies with a JSON type): the YAML
    configuration as the body, the typed V1ConfigMap back."""
    query = [("fieldManager", manager)]
    if force:
        query.append(("force", "true"))
    return api.call_api(
        "/api/v1/namespaces/{namespace}/configmaps/{name}", "PATCH",
        path_params={"namespace": ns, "name": doc["metadata"]["name"]},
        query_params=query,
        header_params={"Content-Type": APPLY, "Accept": "application/json"},
        body=yaml.safe_dump(doc), response_type="V1ConfigMap",
        auth_settings=["BearerToken"], _return_http_data_only=True)


def test_python_client_server_side_apply(server, namespace):
    from kubernetes.client.rest import ApiException

    with server.api_client() as api:
        out = py_apply(api, namespace, cm_doc("py", {"a": "1"}), "python")
        assert out.data == {"a": "1"}
        assert [(e.manager, e.operation, e.fields_v1)
                for e in out.metadata.managed_fields] == [
            ("python", "Apply", {"f:data": {"f:a": {}}})]

        with pytest.raises(ApiException) as e:
            py_apply(api, namespace, cm_doc("py", {"a": "2"}), "x")
        assert e.value.status == 409
        assert json.loads(e.value.body)["details"]["causes"] == [{
            "reason": "FieldManagerConflict",
            "message": "conflict with \"python\"", "field": ".data.a"}]

        out = py_apply(api, namespace, cm_doc("py", {"a": "2"}), "x",
                       force=True)
        assert out.data == {"a": "2"}
        assert [(e.manager, e.operation) for e in
                out.metadata.managed_fields] == [("x", "Apply")]


def test_kubectl_client_side_then_server_side(server, namespace):
    """kubectl apply, then kubectl apply --server-side on the same object:
    kubectl moves the client-side apply manager's fields to its Apply
    entry (a JSON patch of managedFields), then applies: what it no
    longer applies goes away."""
    server.kubectl("-n", namespace, "apply", "-f", "-",
                   input=yaml.safe_dump(cm_doc("csa", {"a": "1",
                                                       "b": "2"})))
    cm = get_cm(server, namespace, "csa")
    assert [(e[0], e[1]) for e in entries(cm)] == [
        ("kubectl-client-side-apply", "Update")]

    kapply(server, namespace, cm_doc("csa", {"a": "3"}))
    cm = get_cm(server, namespace, "csa")
    assert cm["data"] == {"a": "3"}
    # kubectl applies the last-applied annotation as a manager of its own
    assert sorted((e[0], e[1]) for e in entries(cm)) == [
        ("kubectl", "Apply"), ("kubectl-last-applied", "Apply")]
    last = json.loads(cm["metadata"]["annotations"][
        "kubectl.kubernetes.io/last-applied-configuration"])
    assert last["data"] == {"a": "3"}


GADGETS = "gadgets.ssa.example.com"
G_SCHEMA = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "size": {"type": "string"},
                "color": {"type": "string", "default": "blue"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "ports": {
                    "type": "array", "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "required": ["name"],
                              "properties": {
                                  "name": {"type": "string"},
                                  "port": {"type": "integer"}}}},
            },
        },
        "status": {"type": "object",
                   "properties": {"phase": {"type": "string"}}},
    },
}


@pytest.fixture(scope="module")
def gadgets(server):
    from test_crd import create_crd, delete_crd

    crd = {"apiVersion": "apiextensions.k8s.io/v1",
           "kind": "CustomResourceDefinition",
           "metadata": {"name": GADGETS},
           "spec": {"group": "ssa.example.com", "scope": "Namespaced",
                    "names": {"plural": "gadgets", "singular": "gadget",
                              "kind": "Gadget", "listKind": "GadgetList"},
                    "versions": [{"name": "v1", "served": True,
                                  "storage": True,
                                  "schema": {"openAPIV3Schema": G_SCHEMA},
                                  "subresources": {"status": {}}}]}}
    create_crd(server, crd)
    yield
    delete_crd(server, GADGETS)


def gadget(name, spec=None, status=None):
    doc = {"apiVersion": "ssa.example.com/v1", "kind": "Gadget",
           "metadata": {"name": name}}
    if spec is not None:
        doc["spec"] = spec
    if status is not None:
        doc["status"] = status
    return doc


def g_apply(srv, ns, doc, query, sub=""):
    return call(srv, "PATCH", "/apis/ssa.example.com/v1/namespaces/%s/"
                "gadgets/%s%s%s" % (ns, doc["metadata"]["name"], sub, query),
                body=yaml.safe_dump(doc), content_type=APPLY)


def test_custom_resource_apply(server, gadgets, namespace):
    # 09-cr-apply-create: defaults are no one's; status not through here
    r = g_apply(server, namespace,
                gadget("g", {"size": "m", "tags": ["x"],
                             "ports": [{"name": "a", "port": 1}]},
                       {"phase": "Ignored"}), "?fieldManager=a")
    assert r.status == 201, r
    assert r.json["spec"]["color"] == "blue"
    assert "status" not in r.json
    [e] = r.json["metadata"]["managedFields"]
    assert (e["manager"], e["operation"], e["apiVersion"]) == (
        "a", "Apply", "ssa.example.com/v1")
    assert e["fieldsV1"] == {"f:spec": {
        "f:ports": {'k:{"name":"a"}': {".": {}, "f:name": {}, "f:port": {}}},
        "f:size": {}, "f:tags": {}}}

    # a map list merges item by item
    r = g_apply(server, namespace,
                gadget("g", {"ports": [{"name": "b", "port": 2}]}),
                "?fieldManager=b")
    assert r.status == 200, r
    assert r.json["spec"]["ports"] == [{"name": "a", "port": 1},
                                       {"name": "b", "port": 2}]

    # an item's field another manager owns conflicts, with its path
    r = g_apply(server, namespace,
                gadget("g", {"ports": [{"name": "a", "port": 5}]}),
                "?fieldManager=b")
    assert r.status == 409, r
    assert r.json["message"] == ('Apply failed with 1 conflict: conflict '
                                 'with "a": .spec.ports[name="a"].port')
    assert r.json["details"]["causes"] == [{
        "reason": "FieldManagerConflict", "message": 'conflict with "a"',
        "field": '.spec.ports[name="a"].port'}]

    # a stops applying its port: the item goes, b's stays
    r = g_apply(server, namespace, gadget("g", {"size": "m", "tags": ["x"]}),
                "?fieldManager=a")
    assert r.status == 200, r
    assert r.json["spec"]["ports"] == [{"name": "b", "port": 2}]

    # /status: only status is owned, with the subresource named
    r = g_apply(server, namespace, gadget("g", status={"phase": "Ready"}),
                "?fieldManager=ctl", "/status")
    assert r.status == 200, r
    assert r.json["status"] == {"phase": "Ready"}
    st = [e for e in r.json["metadata"]["managedFields"]
          if e["manager"] == "ctl"]
    assert [(e["operation"], e.get("subresource"), e["fieldsV1"])
            for e in st] == [("Apply", "status",
                              {"f:status": {"f:phase": {}}})]

    # /status of an object that is not there: 404, nothing created
    r = g_apply(server, namespace, gadget("nope", status={"phase": "x"}),
                "?fieldManager=ctl", "/status")
    assert r.status == 404, r


def test_managed_fields_of_creates_as_captured(server, namespace):
    """The Update entry of a create as kube-apiserver writes it: struct
    fields of the Go type that are not pointers were there already (an
    Event's source: no "."), maps and lists that appear are members
    (12-event-create-core-v1, 12-resourcequota-create)."""
    ev = {"apiVersion": "v1", "kind": "Event",
          "metadata": {"name": "target.ref1"},
          "involvedObject": {"kind": "ConfigMap", "namespace": namespace,
                             "name": "target", "apiVersion": "v1",
                             "uid": "7159b547-6575-4660-b768-6b0a7de5a7c4"},
          "reason": "Tested", "message": "reference event",
          "type": "Normal", "source": {"component": "refcapture"},
          "firstTimestamp": "2026-01-01T00:00:00Z",
          "lastTimestamp": "2026-01-01T00:00:00Z", "count": 1,
          "reportingComponent": "refcapture",
          "reportingInstance": "refcapture-1"}
    r = call(server, "POST", "/api/v1/namespaces/%s/events" % namespace,
             body=ev, headers={"User-Agent": "refcapture/v1.0"})
    assert r.status == 201, r
    assert entries(r.json) == [("refcapture", "Update", {
        "f:count": {}, "f:firstTimestamp": {}, "f:involvedObject": {},
        "f:lastTimestamp": {}, "f:message": {}, "f:reason": {},
        "f:reportingComponent": {}, "f:reportingInstance": {},
        "f:source": {"f:component": {}}, "f:type": {}})]

    q = {"apiVersion": "v1", "kind": "ResourceQuota",
         "metadata": {"name": "q"},
         "spec": {"hard": {"count/configmaps": "20", "secrets": "50"}}}
    r = call(server, "POST", "/api/v1/namespaces/%s/resourcequotas"
             % namespace, body=q, headers={"User-Agent": "refcapture/v1.0"})
    assert r.status == 201, r
    assert entries(r.json) == [("refcapture", "Update", {
        "f:spec": {"f:hard": {".": {}, "f:count/configmaps": {},
                              "f:secrets": {}}}})]


def test_empty_manager_omitted(server, namespace):
    """A manager named "" (the User-Agent "/anonymous" has an empty
    prefix): Go's omitempty leaves "manager" out of the JSON and YAML
    entries; protobuf writes the field empty, as gogo-protobuf does."""
    r = call(server, "POST", path(namespace), body=cm_doc("anon", {"k": "v"}),
             headers={"User-Agent": "/anonymous"})
    assert r.status == 201, r
    [e] = r.json["metadata"]["managedFields"]
    assert "manager" not in e and e["operation"] == "Update", e

    r = call(server, "GET", path(namespace, "anon"),
             headers={"Accept": "application/yaml"})
    assert r.status == 200, r
    [e] = yaml.safe_load(r.body)["metadata"]["managedFields"]
    assert "manager" not in e and e["fieldsV1"] == {"f:data": {
        ".": {}, "f:k": {}}}, e

    r = call(server, "GET", path(namespace, "anon"),
             headers={"Accept": "application/vnd.kubernetes.protobuf"})
    assert r.status == 200, r
    _, kind, raw = pbwire.unwrap(r.body)
    meta = pbwire.decode(pbwire.get(pbwire.decode(raw), 1))
    [e] = [pbwire.decode(v) for v in pbwire.every(meta, 17)]
    assert kind == "ConfigMap" and pbwire.every(e, 1) == [b""], e
    assert pbwire.get(e, 2) == b"Update", e
