"""DeleteOptions bodies in every media type kube-apiserver decodes them in
(JSON, YAML, protobuf), for delete and deletecollection: what helm's
release-Secret deletes and client-go's protobuf typed clients send."""

import json

from gcp_http import assert_status, call, configmap
from gcp_pbwire import encode, envelope

PB = "application/vnd.kubernetes.protobuf"
YAML = "application/yaml"
ACCEPTED = ("the body of the request was in an unknown format - accepted "
            "media types include: application/json, application/yaml, "
            "application/vnd.kubernetes.protobuf")


def delete_options(grace=None, uid=None, rv=None, orphan=None,
                   policy=None, dry_run=()):
    """metav1.DeleteOptions's message bytes, as gogo-protobuf writes it."""
    f = []
    if grace is not None:
        f.append((1, grace))
    pre = [(n, v) for n, v in [(1, uid), (2, rv)] if v is not None]
    if pre:
        f.append((2, pre))
    if orphan is not None:
        f.append((3, orphan))
    if policy is not None:
        f.append((4, policy))
    f += [(5, d) for d in dry_run]
    return encode(f)


def create(srv, path, obj):
    r = call(srv, "POST", path, obj)
    assert r.status == 201, r
    return r.json


def exists(srv, path):
    r = call(srv, "GET", path)
    assert r.status in (200, 404), r
    return r.status == 200


def secret(name, release):
    return {"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": name, "labels": {"owner": "helm",
                                                  "name": release}},
            "type": "helm.sh/release.v1", "data": {"release": "SDRzSQ=="}}


def test_helm_release_secret_delete(server, namespace):
    """helm uninstall: the release Secret deleted with an empty protobuf
    DeleteOptions of group version v1."""
    path = "/api/v1/namespaces/%s/secrets" % namespace
    create(server, path, secret("sh.helm.release.v1.app.v1", "app"))
    body = envelope("v1", "DeleteOptions", b"")
    r = call(server, "DELETE", path + "/sh.helm.release.v1.app.v1", body,
             content_type=PB)
    assert r.status == 200, r
    assert r.json["status"] == "Success"
    assert r.json["details"]["name"] == "sh.helm.release.v1.app.v1"
    assert not exists(server, path + "/sh.helm.release.v1.app.v1")


def test_protobuf_options_apply(server, namespace):
    """The decoded options act: dryRun, preconditions, propagation."""
    path = "/api/v1/namespaces/%s/configmaps" % namespace
    cm = create(server, path, configmap("pb"))
    uid = cm["metadata"]["uid"]

    body = envelope("v1", "DeleteOptions",
                            delete_options(dry_run=["All"]))
    r = call(server, "DELETE", path + "/pb", body, content_type=PB)
    assert r.status == 200, r
    assert exists(server, path + "/pb")

    body = envelope("v1", "DeleteOptions",
                            delete_options(uid="not-" + uid))
    r = call(server, "DELETE", path + "/pb", body, content_type=PB)
    assert_status(r, 409, "Conflict",
                  'Operation cannot be fulfilled on ConfigMap "pb": the UID '
                  'in the precondition (not-%s) does not match the UID in '
                  'record (%s). The object might have been deleted and '
                  'then recreated' % (uid, uid))
    assert exists(server, path + "/pb")

    body = envelope("v1", "DeleteOptions",
                            delete_options(policy="Bogus"))
    r = call(server, "DELETE", path + "/pb", body, content_type=PB)
    assert_status(r, 422, "Invalid",
                  'DeleteOptions.meta.k8s.io "" is invalid: '
                  'propagationPolicy: Unsupported value: "Bogus": supported '
                  'values: "Foreground", "Background", "Orphan", "nil"')

    body = envelope("v1", "DeleteOptions",
                            delete_options(grace=0, uid=uid,
                                                   policy="Background"))
    r = call(server, "DELETE", path + "/pb", body, content_type=PB)
    assert r.status == 200, r
    assert not exists(server, path + "/pb")


def test_protobuf_group_version(server, namespace):
    """client-go sends the DeleteOptions of its own group version."""
    path = "/apis/coordination.k8s.io/v1/namespaces/%s/leases" % namespace
    create(server, path, {"apiVersion": "coordination.k8s.io/v1",
                          "kind": "Lease", "metadata": {"name": "l"}})
    body = envelope("coordination.k8s.io/v1", "DeleteOptions",
                            delete_options(grace=0))
    r = call(server, "DELETE", path + "/l", body, content_type=PB)
    assert r.status == 200, r
    assert not exists(server, path + "/l")


def test_protobuf_deletecollection(server, namespace):
    path = "/api/v1/namespaces/%s/configmaps" % namespace
    for n in ["a", "b", "keep"]:
        create(server, path, configmap(n, labels={"del": str(n != "keep")}))

    # dry run first: nothing goes
    body = envelope("v1", "DeleteOptions",
                            delete_options(dry_run=["All"]))
    r = call(server, "DELETE", path + "?labelSelector=del%3DTrue", body,
             content_type=PB)
    assert r.status == 200, r
    assert len(r.json["items"]) == 2
    assert exists(server, path + "/a")

    body = envelope("v1", "DeleteOptions", b"")
    r = call(server, "DELETE", path + "?labelSelector=del%3DTrue", body,
             content_type=PB)
    assert r.status == 200, r
    assert sorted(i["metadata"]["name"] for i in r.json["items"]) == \
        ["a", "b"]
    assert not exists(server, path + "/a")
    assert exists(server, path + "/keep")


def test_protobuf_bad_bodies(server, namespace):
    path = "/api/v1/namespaces/%s/configmaps" % namespace
    create(server, path, configmap("bad"))

    r = call(server, "DELETE", path + "/bad", b"garbage", content_type=PB)
    assert_status(r, 400, "BadRequest",
                  "provided data does not appear to be a protobuf message, "
                  "expected prefix [107 56 115 0]")

    body = envelope("v1", "DeleteOptions", b"\x08")   # cut varint
    r = call(server, "DELETE", path + "/bad", body, content_type=PB)
    assert r.status == 400, r

    body = envelope("v1", "NoSuchOptions", b"")
    r = call(server, "DELETE", path + "/bad", body, content_type=PB)
    assert r.status == 400, r
    assert "no kind \"NoSuchOptions\" is registered" in r.json["message"]

    assert exists(server, path + "/bad")


def test_yaml_options(server, namespace):
    path = "/api/v1/namespaces/%s/configmaps" % namespace
    cm = create(server, path, configmap("y"))

    r = call(server, "DELETE", path + "/y", "dryRun: [All]\n",
             content_type=YAML)
    assert r.status == 200, r
    assert exists(server, path + "/y")

    r = call(server, "DELETE", path + "/y", "propagationPolicy: Bogus\n",
             content_type=YAML)
    assert_status(r, 422, "Invalid",
                  'DeleteOptions.meta.k8s.io "" is invalid: '
                  'propagationPolicy: Unsupported value: "Bogus": supported '
                  'values: "Foreground", "Background", "Orphan", "nil"')

    r = call(server, "DELETE", path + "/y", "gracePeriodSeconds: x\n",
             content_type=YAML)
    assert_status(r, 400, "BadRequest",
                  "json: cannot unmarshal string into Go struct field "
                  "DeleteOptions.gracePeriodSeconds of type int64")

    r = call(server, "DELETE", path + "/y", "a: [b\n", content_type=YAML)
    assert r.status == 400, r
    assert r.json["message"].startswith("error converting YAML to JSON: "
                                        "yaml: line "), r

    r = call(server, "DELETE", path + "/y", "- 1\n", content_type=YAML)
    assert r.status == 400, r
    assert "cannot unmarshal array into Go value" in r.json["message"]

    assert exists(server, path + "/y")

    r = call(server, "DELETE", path + "/y",
             "apiVersion: v1\nkind: DeleteOptions\npreconditions:\n"
             "  uid: %s\n" % cm["metadata"]["uid"], content_type=YAML)
    assert r.status == 200, r
    assert not exists(server, path + "/y")

    # deletecollection reads the same body
    for n in ["c1", "c2"]:
        create(server, path, configmap(n))
    r = call(server, "DELETE", path, "dryRun: [All]\n", content_type=YAML)
    assert r.status == 200, r
    assert exists(server, path + "/c1")


def test_other_types(server, namespace):
    path = "/api/v1/namespaces/%s/configmaps" % namespace
    create(server, path, configmap("t"))
    for ct in ["text/plain", "application/x-yaml"]:
        r = call(server, "DELETE", path + "/t", "{}", content_type=ct)
        assert_status(r, 415, "UnsupportedMediaType", ACCEPTED)
        r = call(server, "DELETE", path, "{}", content_type=ct)
        assert_status(r, 415, "UnsupportedMediaType", ACCEPTED)
    # JSON, as before
    r = call(server, "DELETE", path + "/t", json.dumps({"dryRun": ["All"]}),
             content_type="application/json")
    assert r.status == 200, r
    assert exists(server, path + "/t")
