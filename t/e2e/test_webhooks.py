"""Admission webhooks end to end: ngx_gcp (TLS, RBAC, two workers) calls
the test webhook server of webhook_server.py over TLS on loopback.

Denials, mutations and warnings as kubectl and the API show them, with
the messages of the captures (../shared/reference/13-webhook-*.http); the
AdmissionReview sent; failure policies (unreachable, timeout, errors,
invalid answers); namespace and object selectors; reinvocation; dry runs;
matchPolicy Equivalent (core/v1 and events.k8s.io/v1 events); services
resolved through nginx upstream blocks; the exemption of the
configurations themselves; a slow webhook not holding the worker's other
requests; a new configuration reaching every worker within a second.
"""

import json
import threading

import pytest

from gcp_http import call
from gcp_pbwire import decode, encode, envelope, every, get, unwrap
from gcp_server import GcpServer
from gcp_wait import eventually
from webhook_server import WebhookServer, closed_port

AR = "/apis/admissionregistration.k8s.io/v1"
SVC = "webhook.wh-test.svc"


@pytest.fixture(scope="module")
def wh():
    with WebhookServer(names=[SVC]) as w:
        yield w


@pytest.fixture(scope="module")
def srv(wh, storage):
    s = GcpServer(workers=2, tls=True, http_extra=(
        "upstream %s:443 { server 127.0.0.1:%d; }\n"
        "    upstream nowhere.wh-test.svc { server 127.0.0.1:%d; }"
        % (SVC, wh.port, closed_port())))
    s.start()
    try:
        yield s
    finally:
        s.stop()


def api(srv, method, path, body=None, headers=None):
    c = srv.connection()
    try:
        return call(srv, method, path, body, headers=headers, conn=c)
    finally:
        c.close()


def hook(name, url=None, ca=None, service=None, resources=("configmaps",),
         groups=("",), versions=("v1",), operations=("CREATE", "UPDATE"),
         **extra):
    cc = {"url": url} if url else {"service": service}
    if ca:
        cc["caBundle"] = ca
    h = {"name": name, "clientConfig": cc,
         "rules": [{"apiGroups": list(groups), "apiVersions": list(versions),
                    "operations": list(operations),
                    "resources": list(resources)}],
         "sideEffects": "None", "admissionReviewVersions": ["v1"],
         "timeoutSeconds": 5}
    h.update(extra)
    return h


class Config:
    """A webhook configuration created for a test and deleted after it,
    once every worker is known to use it (see wait())."""

    def __init__(self, srv, kind, name, *hooks):
        self.srv = srv
        self.res = kind.lower() + "s"
        self.name = name
        self.path = "%s/%ss/%s" % (AR, kind.lower(), name)
        r = api(srv, "POST", "%s/%ss" % (AR, kind.lower()),
                {"apiVersion": "admissionregistration.k8s.io/v1",
                 "kind": kind, "metadata": {"name": name},
                 "webhooks": list(hooks)})
        assert r.status == 201, r

    def delete(self):
        r = api(self.srv, "DELETE", self.path)
        assert r.status == 200, r

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.delete()


def validating(srv, name, *hooks):
    return Config(srv, "ValidatingWebhookConfiguration", name, *hooks)


def mutating(srv, name, *hooks):
    return Config(srv, "MutatingWebhookConfiguration", name, *hooks)


def cm(name, labels=None, ns=None):
    m = {"name": name}
    if labels:
        m["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": m}


def create_ns(srv, name, labels=None):
    m = {"name": name}
    if labels:
        m["labels"] = labels
    r = api(srv, "POST", "/api/v1/namespaces",
            {"apiVersion": "v1", "kind": "Namespace", "metadata": m})
    assert r.status == 201, r


def until_applied(srv, ns, refused, labels=None):
    """Waits until every worker refuses (or admits) a probe create (with
    these labels), as refused(response) says: a configuration reaches the
    workers through their store watches."""
    def probe():
        for _ in range(4):          # new connections spread over workers
            r = api(srv, "POST", "/api/v1/namespaces/%s/configmaps" % ns,
                    cm("probe", labels),
                    headers={"Accept": "application/json"})
            if r.status == 201:
                api(srv, "DELETE",
                    "/api/v1/namespaces/%s/configmaps/probe" % ns)
            if not refused(r):
                return False
        return True
    assert eventually(probe, 5.0)


@pytest.fixture
def ns(srv, unique_name):
    name = unique_name("wh")
    create_ns(srv, name, {"webhook-test": "on"})
    yield name
    api(srv, "DELETE", "/api/v1/namespaces/" + name)


# From the captures of kube-apiserver (../shared/reference/13-*.http).

DENIED_403 = {
    "kind": "Status", "apiVersion": "v1", "metadata": {},
    "status": "Failure",
    "message": 'admission webhook "validate.ref.example.com" denied the '
               'request: label deny is set (refcapture webhook)',
    "reason": "Forbidden",
    "code": 403}

DENIED_422 = {
    "kind": "Status", "apiVersion": "v1", "metadata": {},
    "status": "Failure",
    "message": 'admission webhook "validate.ref.example.com" denied the '
               'request: refused with 422 by the webhook',
    "reason": "Invalid",
    "details": {"causes": [{"reason": "FieldValueInvalid",
                            "message": "deny-422 present",
                            "field": "metadata.labels"}]},
    "code": 422}

# 13-webhook-unreachable-fail.http: the webhook at port 19444
UNREACHABLE = (
    'failed calling webhook "unreachable.ref.example.com": failed to call '
    'webhook: Post "https://127.0.0.1:19444/validate?timeout=5s": dial tcp '
    '127.0.0.1:19444: connect: connection refused')
UNREACHABLE_FAIL = {
    "kind": "Status", "apiVersion": "v1", "metadata": {},
    "status": "Failure",
    "message": "Internal error occurred: " + UNREACHABLE,
    "reason": "InternalError",
    "details": {"causes": [{"message": UNREACHABLE}]},
    "code": 500}

# 13-webhook-outbound-mutate-request.http: the request's keys, in order,
# and the fields that do not depend on the object or the user
MUTATE_REQUEST_KEYS = [
    "uid", "kind", "resource", "requestKind", "requestResource", "name",
    "namespace", "operation", "userInfo", "object", "oldObject", "dryRun",
    "options"]

MUTATE_REQUEST = {
    "kind": {"group": "", "version": "v1", "kind": "ConfigMap"},
    "resource": {"group": "", "version": "v1", "resource": "configmaps"},
    "requestKind": {"group": "", "version": "v1", "kind": "ConfigMap"},
    "requestResource": {"group": "", "version": "v1",
                        "resource": "configmaps"},
    "operation": "CREATE",
    "oldObject": None,
    "dryRun": False,
    "options": {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1"}}


# ---------------------------------------------------------------- denials


def test_denials_as_kubectl_and_the_api_show_them(srv, wh, ns):
    with validating(srv, "ref-validating",
                    hook("validate.ref.example.com", wh.url("/labels"),
                         wh.ca_bundle)):
        until_applied(srv, ns, lambda r: r.status == 201)

        # 13-webhook-denied-403.http
        r = api(srv, "POST", "/api/v1/namespaces/%s/configmaps" % ns,
                cm("denied", {"webhook-test": "1", "deny": "1"}))
        assert r.status == 403, r
        assert r.json == DENIED_403
        assert api(srv, "GET", "/api/v1/namespaces/%s/configmaps/denied"
                   % ns).status == 404

        # 13-webhook-denied-422-with-causes.http
        r = api(srv, "POST", "/api/v1/namespaces/%s/configmaps" % ns,
                cm("denied422", {"webhook-test": "1", "deny-422": "1"}))
        assert r.status == 422, r
        assert r.json == DENIED_422

        # 13-webhook-warning.http: allowed, with a Warning header
        r = api(srv, "POST", "/api/v1/namespaces/%s/configmaps" % ns,
                cm("warned", {"webhook-test": "1", "warn": "1"}))
        assert r.status == 201, r
        assert r.headers["warning"] == [
            '299 - "refcapture webhook warning: label warn is set"']

        # kubectl shows the denial and the warning
        p = srv.kubectl("-n", ns, "create", "-f", "-", check=False,
                        input=json.dumps(cm("kdenied", {"deny": "1"})))
        assert p.returncode == 1
        assert p.stderr == (
            'Error from server (Forbidden): error when creating "STDIN": '
            'admission webhook "validate.ref.example.com" denied the '
            'request: label deny is set (refcapture webhook)\n')
        p = srv.kubectl("-n", ns, "label", "cm", "warned", "warn=2",
                        "--overwrite")
        assert "Warning: refcapture webhook warning: label warn is set" \
            in p.stderr

        # the review: update sends both objects
        review = wh.reviews("/labels")[-1]["request"]
        assert review["operation"] == "UPDATE"
        assert review["name"] == "warned"
        assert review["object"]["metadata"]["labels"]["warn"] == "2"
        assert review["oldObject"]["metadata"]["labels"]["warn"] == "1"
        assert review["options"] == {"kind": "UpdateOptions",
                                     "apiVersion": "meta.k8s.io/v1",
                                     "fieldManager": "kubectl-label"}


# ---------------------------------------------------------------- mutation


def test_mutation_and_the_review_sent(srv, wh, ns):
    with mutating(srv, "ref-mutating",
                  hook("mutate.ref.example.com", wh.url("/labels"),
                       wh.ca_bundle, reinvocationPolicy="Never")):
        until_applied(srv, ns, lambda r: r.status == 201)
        wh.clear()

        # 13-webhook-mutated.http
        r = api(srv, "POST", "/api/v1/namespaces/%s/configmaps" % ns,
                cm("mutated", {"webhook-test": "1", "mutate": "1"}))
        assert r.status == 201, r
        assert r.json["metadata"]["annotations"] == {
            "mutated-by": "refcapture-webhook"}
        got = json.loads(srv.kubectl("-n", ns, "get", "cm", "mutated",
                                     "-o", "json").stdout)
        assert got["metadata"]["annotations"] == {
            "mutated-by": "refcapture-webhook"}

        # 13-webhook-outbound-mutate-request.http: what the webhook got
        req = wh.requests("/labels")[-1]
        assert req["query"] == "/labels?timeout=5s"
        assert req["headers"]["User-Agent"] == "kube-apiserver-admission"
        assert req["headers"]["Content-Type"] == "application/json"
        review = req["review"]
        assert list(review) == ["kind", "apiVersion", "request"]
        assert review["kind"] == "AdmissionReview"
        assert review["apiVersion"] == "admission.k8s.io/v1"
        r = review["request"]
        assert list(r) == MUTATE_REQUEST_KEYS
        for k, v in MUTATE_REQUEST.items():
            assert r[k] == v, k
        assert r["name"] == "mutated" and r["namespace"] == ns
        # (x509 users carry their credential id as upstream's 1.32 do)
        extra = r["userInfo"].pop("extra")
        assert list(extra) == ["authentication.kubernetes.io/credential-id"]
        assert extra["authentication.kubernetes.io/credential-id"][0] \
            .startswith("X509SHA256=")
        assert r["userInfo"] == {"username": "kubernetes-admin",
                                 "groups": ["system:masters",
                                            "system:authenticated"]}
        # before uid and creationTimestamp are set (managedFields: none)
        assert r["object"] == {
            "kind": "ConfigMap", "apiVersion": "v1",
            "metadata": {"name": "mutated", "namespace": ns,
                         "creationTimestamp": None,
                         "labels": {"mutate": "1", "webhook-test": "1"}}}


def test_reinvocation(srv, wh, ns):
    # a-first is called first (configurations in name order), b-second
    # changes the object after it: a-first (IfNeeded) is called again
    with mutating(srv, "a-first",
                  hook("a.first.example.com",
                       wh.url("/annotate/first/1"), wh.ca_bundle,
                       reinvocationPolicy="IfNeeded")), \
            mutating(srv, "b-second",
                     hook("b.second.example.com",
                          wh.url("/annotate/second/1"), wh.ca_bundle)):
        until_applied(srv, ns, lambda r: (r.json.get("metadata", {})
                                          .get("annotations", {})
                                          .get("second") == "1"))
        wh.clear()
        r = api(srv, "POST", "/api/v1/namespaces/%s/configmaps" % ns,
                cm("reinvoked"))
        assert r.status == 201, r
        assert r.json["metadata"]["annotations"] == {"first": "1",
                                                     "second": "1"}
        first = wh.reviews("/annotate/first/1")
        second = wh.reviews("/annotate/second/1")
        assert len(first) == 2 and len(second) == 1
        # the second call saw what b-second did
        assert first[1]["request"]["object"]["metadata"]["annotations"] \
            == {"first": "1", "second": "1"}


# ---------------------------------------------------------------- failures


def test_failure_policies(srv, wh, ns):
    port = closed_port()

    # 13-webhook-unreachable-fail.http (but for the port)
    with validating(srv, "unreach",
                    hook("unreachable.ref.example.com",
                         "https://127.0.0.1:%d/validate" % port,
                         wh.ca_bundle, failurePolicy="Fail")):
        until_applied(srv, ns, lambda r: r.status == 500)
        r = api(srv, "POST", "/api/v1/namespaces/%s/configmaps" % ns,
                cm("unreach", {"unreachable": "1"}))
        text = json.dumps(UNREACHABLE_FAIL).replace("19444", str(port))
        assert r.status == 500
        assert r.json == json.loads(text)

    # the same with Ignore: created (13-webhook-unreachable-ignore.http)
    with validating(srv, "unreach-ignore",
                    hook("unreachable.ref.example.com",
                         "https://127.0.0.1:%d/validate" % port,
                         wh.ca_bundle, failurePolicy="Ignore")), \
            validating(srv, "deny-marked",
                       hook("deny.marked.example.com", wh.url("/deny"),
                            wh.ca_bundle,
                            objectSelector={"matchLabels": {"m": "1"}})):
        until_applied(srv, ns, lambda r: r.status == 201)
        r = api(srv, "POST", "/api/v1/namespaces/%s/configmaps" % ns,
                cm("unreach", {"unreachable": "1"}))
        assert r.status == 201, r
        assert "warning" not in r.headers

    cases = [
        ("/slow/3", {"timeoutSeconds": 1},
         'Post "%s?timeout=1s": context deadline exceeded'
         % wh.url("/slow/3")),
        ("/error", {},
         'an error on the server ("boom") has prevented the request from '
         'succeeding'),
        ("/allow", {"clientConfig": {"url": wh.url("/allow")}},
         'Post "%s?timeout=5s": tls: failed to verify certificate: x509: '
         'certificate signed by unknown authority' % wh.url("/allow")),
    ]
    for path, extra, why in cases:
        with validating(srv, "failing",
                        hook("failing.example.com", wh.url(path),
                             wh.ca_bundle, **extra)):
            until_applied(srv, ns, lambda r: r.status == 500)
            r = api(srv, "POST", "/api/v1/namespaces/%s/configmaps" % ns,
                    cm("failing"))
            msg = ('failed calling webhook "failing.example.com": failed to '
                   'call webhook: ' + why)
            assert r.json["message"] == "Internal error occurred: " + msg
            assert r.json["details"] == {"causes": [{"message": msg}]}

    with mutating(srv, "wrong-uid",
                  hook("wrong.uid.example.com", wh.url("/wrong-uid"),
                       wh.ca_bundle)):
        until_applied(srv, ns, lambda r: r.status == 500)
        r = api(srv, "POST", "/api/v1/namespaces/%s/configmaps" % ns,
                cm("x"))
        uid = wh.reviews("/wrong-uid")[-1]["request"]["uid"]
        assert r.json["message"] == (
            'Internal error occurred: failed calling webhook '
            '"wrong.uid.example.com": received invalid webhook response: '
            'expected response.uid="%s", got "not-the-uid"' % uid)

    # a patch that makes a wrong object: 500, nothing stored
    with mutating(srv, "bad-patch",
                  hook("bad.patch.example.com", wh.url("/bad-patch"),
                       wh.ca_bundle)):
        until_applied(srv, ns, lambda r: r.status == 500)
        r = api(srv, "POST", "/api/v1/namespaces/%s/configmaps" % ns,
                cm("badpatch"))
        assert r.status == 500
        assert r.json["message"].startswith(
            "Internal error occurred: json: cannot unmarshal number into "
            "Go struct field ConfigMap.data of type map[string]string"), r
    assert api(srv, "GET", "/api/v1/namespaces/%s/configmaps/badpatch"
               % ns).status == 404


# ---------------------------------------------------------------- matching


def test_selectors(srv, wh, ns, unique_name):
    other = unique_name("wh-off")
    create_ns(srv, other)
    try:
        with validating(srv, "selective",
                        hook("selective.example.com", wh.url("/deny"),
                             wh.ca_bundle,
                             namespaceSelector={"matchLabels": {
                                 "webhook-test": "on"}},
                             objectSelector={"matchExpressions": [{
                                 "key": "checked",
                                 "operator": "Exists"}]})):
            until_applied(srv, ns, lambda r: True)

            def status(n, labels=None):
                return api(srv, "POST",
                           "/api/v1/namespaces/%s/configmaps" % n,
                           cm(unique_name("s"), labels)).status

            assert eventually(lambda: status(ns, {"checked": "1"}) == 403)
            assert status(ns) == 201
            assert status(other, {"checked": "1"}) == 201

            # the namespace's labels are read at each request
            r = api(srv, "PATCH", "/api/v1/namespaces/" + other,
                    {"metadata": {"labels": {"webhook-test": "on"}}},
                    headers={"Content-Type":
                             "application/merge-patch+json"})
            assert r.status == 200, r
            assert status(other, {"checked": "1"}) == 403

            # the old object counts too: removing the label is checked
            api(srv, "POST", "/api/v1/namespaces/%s/configmaps" % other,
                cm("was"))
            r = api(srv, "PATCH", "/api/v1/namespaces/%s/configmaps/was"
                    % other, {"metadata": {"labels": {"checked": "y"}}},
                    headers={"Content-Type":
                             "application/merge-patch+json"})
            assert r.status == 403
    finally:
        api(srv, "DELETE", "/api/v1/namespaces/" + other)


def test_match_policy_equivalent(srv, wh, ns):
    # a rule on core/v1 events also catches events.k8s.io/v1 writes, and
    # the webhook gets them as core/v1 Events
    ev = {"apiVersion": "events.k8s.io/v1", "kind": "Event",
          "metadata": {"generateName": "e-"},
          "eventTime": "2026-01-01T00:00:00.000000Z",
          "reportingController": "x.example.com/c",
          "reportingInstance": "i", "action": "Act", "reason": "Why",
          "type": "Normal",
          "regarding": {"kind": "Pod", "name": "p", "namespace": ns}}
    core = {"apiVersion": "v1", "kind": "Event",
            "metadata": {"generateName": "core-"},
            "involvedObject": {"kind": "Pod", "name": "p", "namespace": ns},
            "reason": "Why", "message": "m", "type": "Normal",
            "source": {"component": "c"}}

    def create(path, body):
        return api(srv, "POST", path % ns, body)

    with validating(srv, "events",
                    hook("events.example.com", wh.url("/allow"),
                         wh.ca_bundle, resources=["events"])):
        wh.clear()

        def sent():
            r = create("/apis/events.k8s.io/v1/namespaces/%s/events", ev)
            assert r.status == 201, r
            return wh.reviews("/allow")
        req = eventually(sent)[-1]["request"]
        assert req["kind"] == {"group": "", "version": "v1",
                               "kind": "Event"}
        assert req["resource"] == {"group": "", "version": "v1",
                                   "resource": "events"}
        assert req["requestKind"] == {"group": "events.k8s.io",
                                      "version": "v1", "kind": "Event"}
        assert req["requestResource"] == {"group": "events.k8s.io",
                                          "version": "v1",
                                          "resource": "events"}
        assert req["object"]["apiVersion"] == "v1"
        assert req["object"]["reportingComponent"] == "x.example.com/c"

    with validating(srv, "events-exact",
                    hook("events.example.com", wh.url("/deny"),
                         wh.ca_bundle, resources=["events"],
                         matchPolicy="Exact")):
        assert eventually(lambda: create("/api/v1/namespaces/%s/events",
                                         core).status == 403)
        r = create("/apis/events.k8s.io/v1/namespaces/%s/events", ev)
        assert r.status == 201, r


def test_dry_run_and_deletes(srv, wh, ns):
    with validating(srv, "dry",
                    hook("dry.example.com", wh.url("/allow"), wh.ca_bundle,
                         sideEffects="NoneOnDryRun",
                         operations=["CREATE", "DELETE"])):
        until_applied(srv, ns, lambda r: True)
        wh.clear()
        r = api(srv, "POST",
                "/api/v1/namespaces/%s/configmaps?dryRun=All" % ns,
                cm("dry"))
        assert r.status == 201, r
        req = wh.reviews("/allow")[-1]["request"]
        assert req["dryRun"] is True
        assert req["options"] == {"kind": "CreateOptions",
                                  "apiVersion": "meta.k8s.io/v1",
                                  "dryRun": ["All"]}
        assert api(srv, "GET", "/api/v1/namespaces/%s/configmaps/dry"
                   % ns).status == 404

        # a delete: oldObject is the stored object, object null
        assert api(srv, "POST", "/api/v1/namespaces/%s/configmaps" % ns,
                   cm("gone")).status == 201
        r = api(srv, "DELETE", "/api/v1/namespaces/%s/configmaps/gone"
                "?propagationPolicy=Background" % ns)
        assert r.status == 200, r
        req = wh.reviews("/allow")[-1]["request"]
        assert req["operation"] == "DELETE"
        assert req["object"] is None
        assert req["oldObject"]["metadata"]["name"] == "gone"
        assert req["options"] == {"kind": "DeleteOptions",
                                  "apiVersion": "meta.k8s.io/v1",
                                  "propagationPolicy": "Background"}


# ---------------------------------------------------------------- services


def test_service_reference(srv, wh, ns):
    # https://webhook.wh-test.svc:443/... through the upstream block of
    # that name; the certificate is checked for the service's name
    with mutating(srv, "by-service",
                  hook("by.service.example.com", ca=wh.ca_bundle,
                       service={"namespace": "wh-test", "name": "webhook",
                                "path": "/label/via/service"})):
        until_applied(srv, ns, lambda r: (r.json.get("metadata", {})
                                          .get("labels", {})
                                          .get("via") == "service"))
        req = wh.requests("/label/via/service")[-1]
        assert req["headers"]["Host"] == "webhook.wh-test.svc"

    with validating(srv, "no-service",
                    hook("no.service.example.com", ca=wh.ca_bundle,
                         service={"namespace": "wh-test",
                                  "name": "nosuch", "port": 8443})):
        until_applied(srv, ns, lambda r: r.status == 500)
        r = api(srv, "POST", "/api/v1/namespaces/%s/configmaps" % ns,
                cm("x"))
        assert r.json["message"] == (
            'Internal error occurred: failed calling webhook '
            '"no.service.example.com": failed to call webhook: Post '
            '"https://nosuch.wh-test.svc:8443?timeout=5s": service '
            '"nosuch.wh-test.svc" is not configured on this server')


# ---------------------------------------------------------------- safety


def test_configurations_are_exempt(srv, wh, ns):
    everything = hook("deny.everything.example.com", wh.url("/deny"),
                      wh.ca_bundle, resources=["*/*"], groups=["*"],
                      versions=["*"], operations=["*"])
    c = validating(srv, "deny-all", everything)
    m = mutating(srv, "deny-all", dict(everything))
    try:
        until_applied(srv, ns, lambda r: r.status == 403)
        # the webhooks' own configurations can still be changed
        r = api(srv, "POST", AR + "/validatingwebhookconfigurations",
                {"metadata": {"name": "another"},
                 "webhooks": [hook("x.y.z", wh.url("/allow"))]})
        assert r.status == 201, r
        assert api(srv, "DELETE",
                   AR + "/validatingwebhookconfigurations/another"
                   ).status == 200
    finally:
        m.delete()
        c.delete()


def test_slow_webhook_does_not_hold_the_worker(wh, storage):
    # one worker: the requests below meet the held call in the same process
    wh.gate.clear()
    with GcpServer(workers=1) as one:
        r = call(one, "POST", AR + "/validatingwebhookconfigurations",
                 {"metadata": {"name": "held"},
                  "webhooks": [hook("held.example.com", wh.url("/hold"),
                                    wh.ca_bundle, timeoutSeconds=30)]})
        assert r.status == 201, r
        done = []
        t = threading.Thread(target=lambda: done.append(call(
            one, "POST", "/api/v1/namespaces/default/configmaps",
            cm("held"), timeout=60)))
        t.start()
        try:
            # the create waits for the webhook ...
            assert eventually(lambda: wh.reviews("/hold"))
            # ... while other requests of the worker are served
            for i in range(20):
                assert call(one, "GET", "/api/v1/namespaces/default/"
                            "configmaps").status == 200
            assert not done
        finally:
            wh.gate.set()
            t.join()
        assert done[0].status == 201


def test_new_configuration_in_every_worker_within_a_second(srv, wh, ns):
    c = validating(srv, "late", hook("late.example.com", wh.url("/deny"),
                                     wh.ca_bundle))
    try:
        def all_refuse():
            return all(api(srv, "POST",
                           "/api/v1/namespaces/%s/configmaps" % ns,
                           cm("late")).status == 403 for _ in range(6))
        assert eventually(all_refuse, 1.0)
    finally:
        c.delete()


def test_new_configuration_in_every_instance_within_a_second(
        wh, storage, unique_name):
    if storage != "etcd":
        pytest.skip("instances share their objects through etcd only")
    prefix = "prefix=/wh-" + unique_name("p")
    with GcpServer(workers=2, storage_opts=prefix) as a, \
            GcpServer(workers=2, storage_opts=prefix) as b:
        r = call(a, "POST", AR + "/validatingwebhookconfigurations",
                 {"metadata": {"name": "late"},
                  "webhooks": [hook("late.example.com", wh.url("/deny"),
                                    wh.ca_bundle)]})
        assert r.status == 201, r

        def all_refuse():
            return all(call(b, "POST", "/api/v1/namespaces/default/"
                            "configmaps", cm("late")).status == 403
                       for _ in range(6))
        assert eventually(all_refuse, 1.0)


# ---------------------------------------------------------------- encodings

PB = "application/vnd.kubernetes.protobuf"


def cm_pb(name, labels, data):
    """A ConfigMap in protobuf: metadata (1) with name (1) and labels (11,
    map entries of key 1 and value 2), data (2, the same entries)."""
    def entries(num, m):
        return [(num, [(1, k), (2, v)]) for k, v in sorted(m.items())]
    meta = [(1, name)] + entries(11, labels)
    return envelope("v1", "ConfigMap",
                    encode([(1, meta)] + entries(2, data)))


def pb_map(fields, num):
    return {get(decode(e), 1).decode(): get(decode(e), 2).decode()
            for e in every(fields, num)}


def test_protobuf_and_yaml_bodies(srv, wh, ns):
    """client-go's protobuf and a YAML body: the webhooks get the object
    in JSON, a mutation and a denial come back in the client's encoding."""
    import yaml

    path = "/api/v1/namespaces/%s/configmaps" % ns
    mark = {"mutated-by": "pb"}
    with mutating(srv, "enc-mutating",
                  hook("mutate.enc.example.com",
                       wh.url("/annotate/mutated-by/pb"), wh.ca_bundle)), \
            validating(srv, "enc-validating",
                       hook("validate.enc.example.com", wh.url("/labels"),
                            wh.ca_bundle)):
        until_applied(srv, ns, lambda r: r.status == 201 and r.json[
            "metadata"].get("annotations") == mark)
        until_applied(srv, ns, lambda r: r.status == 403, {"deny": "1"})
        wh.clear()

        # a protobuf create, mutated: the answer in protobuf
        r = api(srv, "POST", path,
                 cm_pb("pb", {"webhook-test": "1"}, {"k": "v"}),
                 headers={"Content-Type": PB, "Accept": PB})
        assert r.status == 201, r
        api_version, kind, raw = unwrap(r.body)
        assert (api_version, kind) == ("v1", "ConfigMap")
        msg = decode(raw)
        meta = decode(get(msg, 1))
        assert pb_map(meta, 12) == mark
        assert pb_map(meta, 11) == {"webhook-test": "1"}
        assert pb_map(msg, 2) == {"k": "v"}
        # both webhooks got the object in JSON
        sent = wh.requests()
        assert [q["path"] for q in sent] == ["/annotate/mutated-by/pb",
                                             "/labels"]
        for q in sent:
            assert q["headers"]["Content-Type"] == "application/json"
            obj = q["review"]["request"]["object"]
            assert obj["kind"] == "ConfigMap" and obj["apiVersion"] == "v1"
            assert obj["data"] == {"k": "v"}
            assert obj["metadata"]["labels"] == {"webhook-test": "1"}
        # the validating webhook saw the mutation
        assert "annotations" not in sent[0]["review"]["request"]["object"][
            "metadata"]
        assert sent[1]["review"]["request"]["object"]["metadata"][
            "annotations"] == mark
        got = api(srv, "GET", path + "/pb")
        assert got.json["metadata"]["annotations"] == mark

        # a protobuf update: oldObject and object in JSON
        wh.clear()
        body = cm_pb("pb", {"webhook-test": "1", "warn": "1"}, {"k": "w"})
        r = api(srv, "PUT", path + "/pb", body, headers={"Content-Type": PB, "Accept": PB})
        assert r.status == 200, r
        assert r.headers["warning"] == [
            '299 - "refcapture webhook warning: label warn is set"']
        assert pb_map(decode(get(decode(unwrap(r.body)[2]), 1)), 12) == mark
        review = wh.reviews("/labels")[-1]["request"]
        assert review["operation"] == "UPDATE"
        assert review["object"]["data"] == {"k": "w"}
        assert review["oldObject"]["data"] == {"k": "v"}

        # a protobuf create denied: the Status in protobuf, nothing written
        r = api(srv, "POST", path,
                 cm_pb("pbdenied", {"webhook-test": "1", "deny": "1"}, {}),
                 headers={"Content-Type": PB, "Accept": PB})
        assert r.status == 403, r
        assert r.content_type == PB
        api_version, kind, raw = unwrap(r.body)
        assert (api_version, kind) == ("v1", "Status")
        status = decode(raw)
        assert get(status, 2) == b"Failure"
        assert get(status, 3).decode() == DENIED_403["message"].replace(
            "validate.ref", "validate.enc")
        assert get(status, 4) == b"Forbidden"
        assert get(status, 6) == 403
        assert api(srv, "GET", path + "/pbdenied").status == 404

        # a YAML create, mutated, answered in YAML
        r = api(srv, "POST", path, yaml.safe_dump(
            cm("yml", {"webhook-test": "1"})),
            headers={"Content-Type": "application/yaml",
                     "Accept": "application/yaml"})
        assert r.status == 201, r
        assert r.content_type == "application/yaml"
        out = yaml.safe_load(r.body)
        assert out["metadata"]["annotations"] == mark
        assert wh.reviews("/labels")[-1]["request"]["object"]["metadata"][
            "name"] == "yml"

        # and denied in YAML
        r = api(srv, "POST", path, yaml.safe_dump(
            cm("ymldenied", {"webhook-test": "1", "deny": "1"})),
            headers={"Content-Type": "application/yaml",
                     "Accept": "application/yaml"})
        assert r.status == 403, r
        assert yaml.safe_load(r.body)["message"] == \
            DENIED_403["message"].replace("validate.ref", "validate.enc")
        assert api(srv, "GET", path + "/ymldenied").status == 404
