"""Three answers compared side by side with kube-apiserver (issue 15): a
namespace /status merge patch keeps its metadata changes, a Table of a
review's answer is 406, and the core/v1 Event field selector `source`
falls back to the reporting controller."""

from gcp_http import assert_status, call

TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"


def test_namespace_status_patch_keeps_metadata(server, unique_name):
    name = unique_name("nsst")
    r = call(server, "POST", "/api/v1/namespaces",
             {"metadata": {"name": name}})
    assert r.status == 201, r
    try:
        r = call(server, "PATCH", "/api/v1/namespaces/%s/status" % name,
                 {"metadata": {"annotations": {"note": "kept"}},
                  "spec": {"finalizers": []}},
                 content_type="application/merge-patch+json")
        assert r.status == 200, r
        assert r.json["metadata"]["annotations"] == {"note": "kept"}
        assert r.json["spec"] == {"finalizers": ["kubernetes"]}
        r = call(server, "GET", "/api/v1/namespaces/" + name)
        assert r.json["metadata"]["annotations"] == {"note": "kept"}
    finally:
        call(server, "DELETE", "/api/v1/namespaces/" + name)


def test_review_table_not_acceptable(server):
    for path, kind, spec in [
            ("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
             "SelfSubjectAccessReview",
             {"resourceAttributes": {"verb": "get",
                                     "resource": "configmaps"}}),
            ("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
             "SelfSubjectRulesReview", {"namespace": "default"})]:
        body = {"apiVersion": "authorization.k8s.io/v1", "kind": kind,
                "spec": spec}
        r = call(server, "POST", path, body, headers={"Accept": TABLE})
        assert_status(r, 406, "NotAcceptable",
                      "only the following media types are accepted: "
                      "application/json, application/yaml, "
                      "application/vnd.kubernetes.protobuf")
        r = call(server, "POST", path, body,
                 headers={"Accept": TABLE + ", application/json"})
        assert r.status == 201, r
        assert r.json["kind"] == kind
    r = call(server, "POST", "/apis/authentication.k8s.io/v1/"
             "selfsubjectreviews", {"apiVersion": "authentication.k8s.io/v1",
                                    "kind": "SelfSubjectReview"},
             headers={"Accept": TABLE})
    assert r.status == 406, r


def test_event_source_falls_back_to_reporting_controller(server, namespace):
    r = call(server, "POST",
             "/apis/events.k8s.io/v1/namespaces/%s/events" % namespace,
             {"apiVersion": "events.k8s.io/v1", "kind": "Event",
              "metadata": {"name": "new-style"},
              "eventTime": "2026-01-01T00:00:00.000000Z",
              "reportingController": "example.com/operator",
              "reportingInstance": "operator-1", "action": "Reconcile",
              "reason": "Synced", "type": "Normal",
              "regarding": {"kind": "ConfigMap", "name": "x",
                            "namespace": namespace}})
    assert r.status == 201, r
    r = call(server, "POST", "/api/v1/namespaces/%s/events" % namespace,
             {"metadata": {"name": "old-style"},
              "involvedObject": {"kind": "ConfigMap", "name": "x",
                                 "namespace": namespace},
              "source": {"component": "kubelet"}, "reason": "R"})
    assert r.status == 201, r

    def names(sel):
        r = call(server, "GET", "/api/v1/namespaces/%s/events?"
                 "fieldSelector=%s" % (namespace, sel))
        assert r.status == 200, r
        return [i["metadata"]["name"] for i in r.json["items"]]

    assert names("source%3Dexample.com%2Foperator") == ["new-style"]
    assert names("source%3Dkubelet") == ["old-style"]
    assert names("source%21%3Dkubelet") == ["new-style"]
    # events.k8s.io/v1 lists through the same selector (deprecatedSource)
    r = call(server, "GET", "/apis/events.k8s.io/v1/namespaces/%s/events?"
             "fieldSelector=source%%3Dexample.com%%2Foperator" % namespace)
    assert r.status == 200, r
    assert [i["metadata"]["name"] for i in r.json["items"]] == ["new-style"]
