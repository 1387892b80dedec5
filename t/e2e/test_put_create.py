"""PUT of an object that does not exist: kube-apiserver creates it when
the type's strategy allows it (AllowCreateOnUpdate: events, leases, RBAC
roles and bindings), answering 201 with managedFields of an Update, and
needs the create permission for it; the other types (configmaps,
secrets, namespaces, custom resources, ...) answer 404 NotFound.  JSON
and protobuf bodies, the Python client's replace, dry runs, the uid
precondition.  (The create permission: test_authn_rbac.py.)"""

import pytest

from gcp_http import assert_status, call
from gcp_pbwire import decode, encode, envelope, get, unwrap
from gcp_wait import eventually

PB = "application/vnd.kubernetes.protobuf"


def lease_path(ns, name):
    return "/apis/coordination.k8s.io/v1/namespaces/%s/leases/%s" % (ns,
                                                                     name)


def lease(name, holder="me", **meta):
    m = {"name": name}
    m.update(meta)
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": m, "spec": {"holderIdentity": holder}}


def lease_pb(name, holder):
    """A Lease in protobuf: metadata (1) with its name (1), spec (2) with
    holderIdentity (1)."""
    return envelope("coordination.k8s.io/v1", "Lease",
                    encode([(1, [(1, name)]), (2, [(1, holder)])]))


def test_put_creates_lease(server, namespace):
    r = call(server, "PUT", lease_path(namespace, "l1") + "?fieldManager=mgr",
             lease("l1"))
    assert r.status == 201, r
    meta = r.json["metadata"]
    assert meta["uid"] and meta["creationTimestamp"]
    assert meta["resourceVersion"]
    assert r.json["spec"] == {"holderIdentity": "me"}
    mf = meta["managedFields"]
    assert [(e["manager"], e["operation"], e["apiVersion"], e["fieldsType"])
            for e in mf] == [("mgr", "Update", "coordination.k8s.io/v1",
                              "FieldsV1")]
    assert mf[0]["fieldsV1"] == {"f:spec": {"f:holderIdentity": {}}}
    assert "subresource" not in mf[0]

    g = call(server, "GET", lease_path(namespace, "l1"))
    assert g.status == 200 and g.json == r.json, g

    # there now: the next PUT updates it
    obj = g.json
    obj["spec"]["holderIdentity"] = "you"
    u = call(server, "PUT", lease_path(namespace, "l1"), obj)
    assert u.status == 200, u
    assert u.json["metadata"]["uid"] == meta["uid"]


def test_put_create_ignores_resource_version(server, namespace):
    """upstream's store ignores the resourceVersion of an object a PUT
    creates"""
    r = call(server, "PUT", lease_path(namespace, "l2"),
             lease("l2", resourceVersion="12345"))
    assert r.status == 201, r
    assert r.json["metadata"]["resourceVersion"] != "12345"


def test_put_uid_precondition(server, namespace):
    """The uid of a PUT's object is a precondition: 409 when the stored
    object (or none, whose uid is empty) has another, created or not."""
    r = call(server, "PUT", lease_path(namespace, "u"),
             lease("u", uid="abc"))
    s = assert_status(r, 409, "Conflict")
    assert s["message"].startswith(
        'Operation cannot be fulfilled on leases.coordination.k8s.io "u": '
        'StorageError: invalid object, Code: 4, Key: ')
    assert s["message"].endswith(
        ', ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: '
        'UID in precondition: abc, UID in object meta: ')
    assert s["details"] == {"name": "u", "group": "coordination.k8s.io",
                            "kind": "leases"}
    assert call(server, "GET", lease_path(namespace, "u")).status == 404

    created = call(server, "PUT", lease_path(namespace, "u"), lease("u"))
    assert created.status == 201, created
    uid = created.json["metadata"]["uid"]
    r = call(server, "PUT", lease_path(namespace, "u"),
             lease("u", uid="abc",
                   resourceVersion=created.json["metadata"][
                       "resourceVersion"]))
    s = assert_status(r, 409, "Conflict")
    assert s["message"].endswith("UID in precondition: abc, UID in object "
                                 "meta: " + uid)
    r = call(server, "PUT", lease_path(namespace, "u"), created.json)
    assert r.status == 200, r


def test_put_creates_lease_protobuf(server, namespace):
    r = call(server, "PUT", lease_path(namespace, "pb"),
             lease_pb("pb", "proto"), content_type=PB,
             headers={"Accept": PB})
    assert r.status == 201, r
    api_version, kind, raw = unwrap(r.body)
    assert (api_version, kind) == ("coordination.k8s.io/v1", "Lease")
    meta = decode(get(decode(raw), 1))
    assert get(meta, 1) == b"pb"
    assert get(meta, 5)                             # uid
    g = call(server, "GET", lease_path(namespace, "pb"))
    assert g.status == 200 and g.json["spec"] == {"holderIdentity": "proto"}
    assert [e["operation"] for e in g.json["metadata"]["managedFields"]] == [
        "Update"]


def test_put_creates_role_python_client(server, namespace):
    from kubernetes import client

    with server.api_client() as api:
        rbac = client.RbacAuthorizationV1Api(api)
        role = client.V1Role(
            metadata=client.V1ObjectMeta(name="r1"),
            rules=[client.V1PolicyRule(api_groups=[""],
                                       resources=["configmaps"],
                                       verbs=["get"])])
        out, status, _ = rbac.replace_namespaced_role_with_http_info(
            "r1", namespace, role)
        assert status == 201
        assert out.metadata.uid
        got = rbac.read_namespaced_role("r1", namespace)
        assert got.rules[0].resources == ["configmaps"]


def test_put_create_dry_run(server, namespace):
    r = call(server, "PUT", lease_path(namespace, "dry") + "?dryRun=All",
             lease("dry"))
    assert r.status == 201, r
    assert r.json["metadata"]["uid"]
    assert "resourceVersion" not in r.json["metadata"]
    assert call(server, "GET", lease_path(namespace, "dry")).status == 404


@pytest.mark.parametrize("encoding", ["json", "protobuf"])
def test_put_does_not_create_configmap(server, namespace, encoding):
    path = "/api/v1/namespaces/%s/configmaps/nosuch" % namespace
    if encoding == "json":
        r = call(server, "PUT", path, {
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "nosuch"}, "data": {"a": "b"}})
    else:
        r = call(server, "PUT", path, envelope(
            "v1", "ConfigMap",
            encode([(1, [(1, "nosuch")]), (2, [(1, "a"), (2, "b")])])),
            content_type=PB)
    assert_status(r, 404, "NotFound", 'configmaps "nosuch" not found',
                  {"name": "nosuch", "kind": "configmaps"})
    assert call(server, "GET", path).status == 404


def test_lease_update_needs_resource_version(server, namespace):
    """Leases allow no unconditional update (upstream's lease strategy:
    AllowUnconditionalUpdate false): a PUT of an existing lease without
    metadata.resourceVersion is 422 and writes nothing; with it, 200."""
    r = call(server, "POST", "/apis/coordination.k8s.io/v1/namespaces/%s/"
             "leases" % namespace, lease("l9"))
    assert r.status == 201, r
    rv = r.json["metadata"]["resourceVersion"]

    u = call(server, "PUT", lease_path(namespace, "l9"),
             lease("l9", holder="other"))
    assert_status(u, 422, "Invalid")
    assert u.json["message"] == (
        'Lease.coordination.k8s.io "l9" is invalid: '
        "metadata.resourceVersion: Invalid value: 0x0: must be specified "
        "for an update"), u.json
    g = call(server, "GET", lease_path(namespace, "l9"))
    assert g.json["spec"]["holderIdentity"] == "me"
    assert g.json["metadata"]["resourceVersion"] == rv

    u = call(server, "PUT", lease_path(namespace, "l9"),
             lease("l9", holder="other", resourceVersion=rv))
    assert u.status == 200, u
    assert u.json["spec"]["holderIdentity"] == "other"


def test_custom_resources_and_crds_need_resource_version(server, namespace):
    """Custom resources and CRDs allow no unconditional update either
    (apiextensions-apiserver's strategies): a PUT without
    metadata.resourceVersion is 422 and writes nothing."""
    group = "putrv.example.com"
    crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    crd = {"apiVersion": "apiextensions.k8s.io/v1",
           "kind": "CustomResourceDefinition",
           "metadata": {"name": "dials." + group},
           "spec": {"group": group, "scope": "Namespaced",
                    "names": {"plural": "dials", "singular": "dial",
                              "kind": "Dial"},
                    "versions": [{"name": "v1", "served": True,
                                  "storage": True,
                                  "schema": {"openAPIV3Schema": {
                                      "type": "object",
                                      "x-kubernetes-preserve-unknown-fields":
                                      True}}}]}}
    r = call(server, "POST", crds, crd)
    assert r.status == 201, r
    try:
        path = "/apis/%s/v1/namespaces/%s/dials" % (group, namespace)
        dial = {"apiVersion": group + "/v1", "kind": "Dial",
                "metadata": {"name": "d"}, "spec": {"v": 1}}
        assert eventually(
            lambda: call(server, "POST", path, dial).status == 201)
        dial["spec"]["v"] = 2
        u = call(server, "PUT", path + "/d", dial)
        assert_status(u, 422, "Invalid")
        assert u.json["message"] == (
            'Dial.%s "d" is invalid: metadata.resourceVersion: Invalid '
            "value: 0x0: must be specified for an update" % group), u.json
        assert call(server, "GET", path + "/d").json["spec"] == {"v": 1}

        crd["spec"]["names"]["shortNames"] = ["dl"]
        u = call(server, "PUT", crds + "/dials." + group, crd)
        assert_status(u, 422, "Invalid")
        assert u.json["message"] == (
            'CustomResourceDefinition.apiextensions.k8s.io "dials.%s" is '
            "invalid: metadata.resourceVersion: Invalid value: 0x0: must be "
            "specified for an update" % group), u.json
        got = call(server, "GET", crds + "/dials." + group).json
        assert "shortNames" not in got["spec"]["names"]
    finally:
        call(server, "DELETE", crds + "/dials." + group)
