"""Admission webhooks as operators see them (issue 16): the audit
annotations upstream's dispatchers leave (mutation.webhook.admission.k8s.io
/round_R_index_I, patch.webhook.admission.k8s.io/... at the Request level
and above only, failed-open..., and a webhook's own auditAnnotations as
"WEBHOOK/KEY") in the audit events of the request, and the
apiserver_admission_webhook_* metrics with upstream's labels and buckets,
counted over both workers."""

import json
import os
import time

import pytest

from gcp_http import call
from gcp_prom import samples, value
from gcp_server import GcpServer
from gcp_wait import eventually
from webhook_server import WebhookServer

AR = "/apis/admissionregistration.k8s.io/v1"
NS_REQ = "wo-request"           # audited at the Request level
NS_META = "wo-metadata"         # at the Metadata level

POLICY = {
    "apiVersion": "audit.k8s.io/v1", "kind": "Policy",
    "omitStages": ["ResponseStarted"],
    "rules": [
        {"level": "Metadata", "namespaces": [NS_META],
         "resources": [{"group": "", "resources": ["configmaps"]}]},
        {"level": "Request",
         "resources": [{"group": "", "resources": ["configmaps"]}]},
        {"level": "None"},
    ],
}

MUT = "observe-mut"
VAL = "observe-val"


def hook(name, url, ca, **extra):
    h = {"name": name, "clientConfig": {"url": url, "caBundle": ca},
         "rules": [{"apiGroups": [""], "apiVersions": ["v1"],
                    "operations": ["CREATE"], "resources": ["configmaps"]}],
         "namespaceSelector": {"matchExpressions": [{
             "key": "kubernetes.io/metadata.name", "operator": "In",
             "values": [NS_REQ, NS_META]}]},
         "sideEffects": "None", "admissionReviewVersions": ["v1"],
         "timeoutSeconds": 10}
    h.update(extra)
    return h


def api(srv, method, path, body=None):
    c = srv.connection()
    try:
        return call(srv, method, path, body,
                    headers={"Accept": "application/json"}, conn=c)
    finally:
        c.close()


@pytest.fixture(scope="module")
def env():
    with WebhookServer() as wh:
        # the error level an operator keeps on
        s = GcpServer(workers=2, tls=True, log_level="error")
        policy = os.path.join(s.data_dir, "policy.json")
        with open(policy, "w") as f:
            json.dump(POLICY, f)
        s.http_extra = ("gcp_audit_policy_file %s; gcp_audit_log %s;"
                        % (policy, os.path.join(s.data_dir, "audit.log")))
        s.start(timeout=60)
        try:
            for ns in (NS_REQ, NS_META):
                assert api(s, "POST", "/api/v1/namespaces",
                           {"metadata": {"name": ns}}).status == 201
            ca = wh.ca_bundle
            r = api(s, "POST", AR + "/mutatingwebhookconfigurations", {
                "metadata": {"name": MUT},
                "webhooks": [
                    hook("mut-label.example.com", wh.url("/label/by/hook"),
                         ca),
                    hook("mut-audit.example.com",
                         wh.url("/audit/colour/blue"), ca),
                    hook("mut-ignore.example.com", wh.url("/error"), ca,
                         failurePolicy="Ignore")]})
            assert r.status == 201, r
            r = api(s, "POST", AR + "/validatingwebhookconfigurations", {
                "metadata": {"name": VAL},
                "webhooks": [
                    hook("val-labels.example.com", wh.url("/labels"), ca),
                    hook("val-fail.example.com", wh.url("/error"), ca,
                         failurePolicy="Fail",
                         objectSelector={"matchLabels": {"fail": "yes"}})]})
            assert r.status == 201, r

            # every worker uses both configurations (new connections land
            # on either)
            def applied():
                for i in range(6):
                    r = api(s, "POST", "/api/v1/namespaces/%s/configmaps"
                            % NS_REQ, {"metadata": {"generateName": "probe-",
                                                    "labels": {"deny": ""}}})
                    if r.status != 403:
                        return False
                    r = api(s, "POST", "/api/v1/namespaces/%s/configmaps"
                            % NS_REQ, {"metadata": {"generateName": "probe-"}})
                    if r.status != 201 or \
                            r.json["metadata"]["labels"] != {"by": "hook"}:
                        return False
                return True
            assert eventually(applied, 30)
            yield s, wh
        finally:
            s.stop()


def scrape(srv):
    r = api(srv, "GET", "/metrics")
    assert r.status == 200, r
    text = r.body.decode()
    # upstream's counters without _total: prometheus_client's parser
    # reads their samples as NAME_total
    for name in ("rejection_count", "fail_open_count"):
        assert "\n# TYPE apiserver_admission_webhook_%s counter\n" % name \
            in text
    return samples(text)


def audit_events(srv, name):
    """The events of the request on the configmap name: {stage: event},
    once its ResponseComplete is written."""
    def find():
        by_id = {}
        with open(os.path.join(srv.data_dir, "audit.log")) as f:
            for line in f:
                e = json.loads(line)
                by_id.setdefault(e["auditID"], {})[e["stage"]] = e
        # a create's name shows once it is complete
        return [evs for evs in by_id.values()
                if evs.get("ResponseComplete", {}).get(
                    "objectRef", {}).get("name") == name]
    done = eventually(find, 10)
    assert done and len(done) == 1, done
    return done[0]


def create(srv, ns, name, labels=None):
    meta = {"name": name}
    if labels:
        meta["labels"] = labels
    return api(srv, "POST", "/api/v1/namespaces/%s/configmaps" % ns,
               {"metadata": meta, "data": {"k": "v"}})


def mutation(webhook, mutated):
    return json.dumps({"configuration": MUT, "webhook": webhook,
                       "mutated": mutated}, separators=(",", ":"))


def test_annotations_at_request_level(env):
    srv, wh = env
    r = create(srv, NS_REQ, "req-1")
    assert r.status == 201, r
    assert r.json["metadata"]["labels"] == {"by": "hook"}

    evs = audit_events(srv, "req-1")
    assert set(evs) == {"RequestReceived", "ResponseComplete"}
    assert "annotations" not in evs["RequestReceived"]
    e = evs["ResponseComplete"]
    assert e["level"] == "Request"
    notes = e["annotations"]
    patch = notes.pop("patch.webhook.admission.k8s.io/round_0_index_0")
    assert json.loads(patch) == {
        "configuration": MUT, "webhook": "mut-label.example.com",
        "patch": [{"op": "add", "path": "/metadata/labels",
                   "value": {"by": "hook"}}],
        "patchType": "JSONPatch"}
    assert list(json.loads(patch)) == ["configuration", "webhook", "patch",
                                       "patchType"]
    assert notes == {
        "authorization.k8s.io/decision": "allow",
        "authorization.k8s.io/reason": notes["authorization.k8s.io/reason"],
        "mutation.webhook.admission.k8s.io/round_0_index_0":
            mutation("mut-label.example.com", True),
        "mutation.webhook.admission.k8s.io/round_0_index_1":
            mutation("mut-audit.example.com", False),
        "mutation.webhook.admission.k8s.io/round_0_index_2":
            mutation("mut-ignore.example.com", False),
        "failed-open.mutation.webhook.admission.k8s.io/round_0_index_2":
            "mut-ignore.example.com",
        "mut-audit.example.com/colour": "blue"}
    # sorted by key, as Go writes a map
    with open(os.path.join(srv.data_dir, "audit.log")) as f:
        line = [l for l in f if '"req-1"' in l and "ResponseComplete" in l]
    keys = list(json.loads(line[0])["annotations"])
    assert keys == sorted(keys)


def test_no_patch_below_request_level(env):
    srv, wh = env
    assert create(srv, NS_META, "meta-1").status == 201
    e = audit_events(srv, "meta-1")["ResponseComplete"]
    assert e["level"] == "Metadata"
    notes = e["annotations"]
    assert not [k for k in notes if k.startswith("patch.")], notes
    assert notes["mutation.webhook.admission.k8s.io/round_0_index_0"] == \
        mutation("mut-label.example.com", True)
    assert notes["mut-audit.example.com/colour"] == "blue"


def test_refused_requests_keep_their_annotations(env):
    srv, wh = env
    r = create(srv, NS_REQ, "denied-1", {"deny": "yes"})
    assert r.status == 403, r
    e = audit_events(srv, "denied-1")["ResponseComplete"]
    assert e["responseStatus"]["code"] == 403
    assert e["annotations"][
        "mutation.webhook.admission.k8s.io/round_0_index_0"] == \
        mutation("mut-label.example.com", True)
    assert e["annotations"]["mut-audit.example.com/colour"] == "blue"


def test_webhook_metrics(env):
    srv, wh = env
    before = scrape(srv)
    n = 6
    for i in range(n):
        assert create(srv, NS_REQ, "m-ok-%d" % i).status == 201
    assert create(srv, NS_REQ, "m-deny", {"deny": "x"}).status == 403
    assert create(srv, NS_REQ, "m-fail", {"fail": "yes"}).status == 500
    after = scrape(srv)

    def delta(metric, **labels):
        return value(after, metric, **labels) - value(before, metric,
                                                      **labels)

    req = "apiserver_admission_webhook_request_total"
    total = n + 2                   # every create reaches the mutating ones
    assert delta(req, name="mut-label.example.com", type="admit",
                 operation="CREATE", code="200", rejected="false") == total
    # the Ignore webhook answers 500: counted, not rejected, failed open
    assert delta(req, name="mut-ignore.example.com", type="admit",
                 operation="CREATE", code="500", rejected="false") == total
    assert delta("apiserver_admission_webhook_fail_open_count_total",
                 name="mut-ignore.example.com", type="admit") == total
    # the validating ones: allowed, denied with 403, failed closed (500)
    assert delta(req, name="val-labels.example.com", type="validating",
                 code="200", rejected="false") == n + 1
    assert delta(req, name="val-labels.example.com", type="validating",
                 code="403", rejected="true") == 1
    assert delta(req, name="val-fail.example.com", type="validating",
                 code="500", rejected="true") == 1
    rej = "apiserver_admission_webhook_rejection_count_total"
    assert delta(rej, name="val-labels.example.com", type="validating",
                 operation="CREATE", error_type="no_error",
                 rejection_code="403") == 1
    assert delta(rej, name="val-fail.example.com", type="validating",
                 operation="CREATE", error_type="calling_webhook_error",
                 rejection_code="500") == 1
    assert delta(rej, name="mut-ignore.example.com") == 0

    # the error log says why m-fail failed (at most a message a second of
    # each worker's plugin: wait for one that names it)
    def logged():
        with open(srv.error_log, errors="replace") as f:
            return [l for l in f if 'failed calling webhook '
                    '"val-fail.example.com", failing closed: failed to '
                    'call webhook: an error on the server ("boom") has '
                    'prevented the request from succeeding' in l]

    for _ in range(8):
        if logged():
            break
        time.sleep(1.1)
        assert create(srv, NS_REQ, "m-fail", {"fail": "yes"}).status == 500
    assert logged()
    assert "[error]" in logged()[0]
    with open(srv.error_log, errors="replace") as f:
        # failing open is a warning, below the level kept
        assert "failing open" not in f.read()

    # the latency histogram: one observation per call, upstream's buckets
    hist = "apiserver_admission_webhook_admission_duration_seconds"
    assert delta(hist + "_count", name="mut-label.example.com",
                 type="admit", operation="CREATE", rejected="false") == total
    les = sorted({float(lab["le"]) for lab, _ in after[hist + "_bucket"]})
    assert les == [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25, float("inf")]
    buckets = sorted(
        ((float(lab["le"]), v) for lab, v in after[hist + "_bucket"]
         if lab["name"] == "mut-label.example.com"
         and lab["rejected"] == "false"), key=lambda b: b[0])
    assert [v for _, v in buckets] == sorted(v for _, v in buckets)
    assert buckets[-1][1] == value(after, hist + "_count",
                                   name="mut-label.example.com",
                                   rejected="false")
