"""Server-side apply to a custom resource's /scale, and /scale bodies in
every encoding a client uses: kube-apiserver serves the autoscaling/v1
Scale, a built-in type, in JSON, YAML and protobuf (client-go's typed
scale clients send and accept protobuf), and applies an applied Scale
(application/apply-patch+yaml) through its ScaleHandler: the entries that
own the replicas field seen as autoscaling/v1 spec.replicas, conflicts
among them, the applier's entry kept on the object with subresource
scale."""

import json

import yaml

import gcp_pbwire as pbwire
from gcp_http import call
from test_crd import GROUP, REPLICAS, managers, w_path, widget, widgets

assert widgets  # the module's fixture, shared with test_crd

APPLY = "application/apply-patch+yaml"
PB = "application/vnd.kubernetes.protobuf"


def scale_doc(name, replicas):
    return {"apiVersion": "autoscaling/v1", "kind": "Scale",
            "metadata": {"name": name}, "spec": {"replicas": replicas}}


def apply_scale(server, ns, name, replicas, query, body_yaml=True):
    doc = scale_doc(name, replicas)
    return call(server, "PATCH", w_path(ns, name) + "/scale" + query,
                body=yaml.safe_dump(doc) if body_yaml else json.dumps(doc),
                content_type=APPLY)


def test_apply_to_scale(server, widgets, namespace):
    r = call(server, "POST", w_path(namespace) + "?fieldManager=creator",
             widget("w-ap", size="small", replicas=2))
    assert r.status == 201, r

    r = apply_scale(server, namespace, "w-ap", 4, "")
    assert r.status == 422, r
    assert r.json["message"] == ('PatchOptions.meta.k8s.io "" is invalid: '
                                 'fieldManager: Required value: is required '
                                 'for apply patch'), r.json

    # the creator owns the replicas field: seen as the Scale's
    r = apply_scale(server, namespace, "w-ap", 4, "?fieldManager=hpa")
    assert r.status == 409, r
    assert r.json["message"] == (
        'Apply failed with 1 conflict: conflict with "creator" using '
        'autoscaling/v1: .spec.replicas'), r.json
    assert r.json["details"]["causes"] == [{
        "reason": "FieldManagerConflict",
        "message": 'conflict with "creator" using autoscaling/v1',
        "field": ".spec.replicas"}]

    # a wrong apiVersion is refused as upstream's apply patcher does
    r = call(server, "PATCH", w_path(namespace, "w-ap") + "/scale"
             "?fieldManager=hpa", body=yaml.safe_dump(
                 dict(scale_doc("w-ap", 4), apiVersion=GROUP + "/v1")),
             content_type=APPLY)
    assert r.status == 400, r
    assert r.json["message"] == (
        "Incorrect version specified in apply patch. Specified patch "
        "version: %s/v1, expected: autoscaling/v1" % GROUP), r.json

    # a dry run changes nothing
    r = apply_scale(server, namespace, "w-ap", 4,
                    "?fieldManager=hpa&force=true&dryRun=All")
    assert r.status == 200, r
    assert r.json["spec"] == {"replicas": 4}
    obj = call(server, "GET", w_path(namespace, "w-ap")).json
    assert obj["spec"]["replicas"] == 2

    r = apply_scale(server, namespace, "w-ap", 4,
                    "?fieldManager=hpa&force=true", body_yaml=False)
    assert r.status == 200, r
    assert (r.json["kind"], r.json["spec"]) == ("Scale", {"replicas": 4})
    obj = call(server, "GET", w_path(namespace, "w-ap")).json
    assert obj["spec"]["replicas"] == 4
    got = {m[0]: m[1:] for m in managers(obj)}
    assert got["hpa"] == ("Apply", GROUP + "/v1", "scale", REPLICAS), got
    assert "f:replicas" not in got["creator"][3]["f:spec"], got

    # the applier owns it now: no conflict, and an update takes it back
    r = apply_scale(server, namespace, "w-ap", 5, "?fieldManager=hpa")
    assert r.status == 200, r
    assert call(server, "GET", w_path(namespace, "w-ap")).json["spec"][
        "replicas"] == 5


def scale_pb(body):
    """(name, spec.replicas) of a protobuf Scale."""
    api_version, kind, raw = pbwire.unwrap(body)
    assert (api_version, kind) == ("autoscaling/v1", "Scale")
    msg = pbwire.decode(raw)
    meta = pbwire.decode(pbwire.get(msg, 1))
    spec = pbwire.decode(pbwire.get(msg, 2, b""))
    return pbwire.get(meta, 1).decode(), pbwire.get(spec, 1, 0)


def test_scale_bodies_in_protobuf_and_yaml(server, widgets, namespace):
    r = call(server, "POST", w_path(namespace),
             widget("w-pb", size="small", replicas=2))
    assert r.status == 201, r
    sp = w_path(namespace, "w-pb") + "/scale"

    r = call(server, "GET", sp, headers={"Accept": PB})
    assert r.status == 200, r
    assert r.content_type == PB
    assert scale_pb(r.body) == ("w-pb", 2)

    r = call(server, "GET", sp, headers={"Accept": "application/yaml"})
    assert r.status == 200, r
    assert yaml.safe_load(r.body)["spec"] == {"replicas": 2}

    # client-go's typed scale client: a protobuf Scale in and out
    body = pbwire.envelope("autoscaling/v1", "Scale", pbwire.encode([
        (1, [(1, "w-pb"), (3, namespace)]), (2, [(1, 3)])]))
    r = call(server, "PUT", sp, body=body, content_type=PB,
             headers={"Accept": PB})
    assert r.status == 200, r
    assert scale_pb(r.body) == ("w-pb", 3)

    r = call(server, "PUT", sp, body=yaml.safe_dump(scale_doc("w-pb", 4)),
             content_type="application/yaml",
             headers={"Accept": "application/yaml"})
    assert r.status == 200, r
    assert yaml.safe_load(r.body)["spec"] == {"replicas": 4}

    r = apply_scale(server, namespace, "w-pb", 6, "?fieldManager=a&force=1")
    assert r.status == 200, r
    r = call(server, "GET", sp, headers={"Accept": PB})
    assert scale_pb(r.body) == ("w-pb", 6)
