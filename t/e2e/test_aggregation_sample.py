"""Upstream's sample-apiserver (wardle.example.com) behind ngx_gcp (issue 12).

The extension server as they exist in the wild: built on k8s.io/apiserver,
it authenticates ngx_gcp's proxy by the front-proxy client certificate
(trusting the extension-apiserver-authentication ConfigMap ngx_gcp
publishes), reads the caller's identity from the X-Remote-* headers,
authorizes by SubjectAccessReview back to ngx_gcp, and lists namespaces
through it.  Its admission plugins are all on, as in the wild: its
webhook plugins watch ngx_gcp's Mutating and ValidatingWebhookConfigurations
and call the webhooks they name for its own resources; its API Priority
and Fairness informers need flowcontrol.apiserver.k8s.io from ngx_gcp for
its /readyz (issue 18).
"""

import json
import os

import pytest

import sample_apiserver
from ext_server import ExtPki, free_port
from etcd_cluster import EtcdCluster
from gcp_http import call
from gcp_server import GcpServer
from gcp_wait import eventually
from kubectl_watch import KubectlWatch
from webhook_server import WebhookServer

# the extension server keeps its objects in its own etcd, and this
# server's APIServices are tested on both backends by
# test_aggregation.py: run in the LMDB session only (conftest.py)
STORAGE_INDEPENDENT = True

pytestmark = pytest.mark.skipif(not sample_apiserver.available(),
                                reason="no sample-apiserver in the peers")

APISVC = "/apis/apiregistration.k8s.io/v1/apiservices"


def raw(srv, method, path, body=None, cert="admin", headers=None):
    return call(srv, method, path, body, headers=headers,
                conn=srv.connection(cert))


def available(srv, name):
    r = raw(srv, "GET", "%s/%s" % (APISVC, name))
    for c in (r.json.get("status") or {}).get("conditions") or []:
        if c["type"] == "Available":
            return c
    return {}


@pytest.fixture(scope="module")
def wardle(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("wardle"))
    pki = ExtPki(os.path.join(d, "ext"))
    port = free_port()
    os.makedirs(os.path.join(d, "gcp"))
    with EtcdCluster(members=1) as etcd:
        srv = GcpServer(workers=2, tls=True, data_dir=os.path.join(d, "gcp"),
                        http_extra="gcp_service api.wardle.svc 127.0.0.1:%d;"
                        % port)
        srv.start(timeout=60)
        w = sample_apiserver.SampleApiserver(srv, etcd.endpoints,
                                             os.path.join(d, "wardle"), pki)
        w.port = port
        w.start()
        try:
            for v in ("v1alpha1", "v1beta1"):
                srv.kubectl("apply", "-f", "-", input=json.dumps({
                    "apiVersion": "apiregistration.k8s.io/v1",
                    "kind": "APIService",
                    "metadata": {"name": v + ".wardle.example.com"},
                    "spec": {"group": "wardle.example.com", "version": v,
                             "service": {"namespace": "wardle",
                                         "name": "api"},
                             "caBundle": w.ca_bundle(),
                             "groupPriorityMinimum": 1000,
                             "versionPriority": 15}}))
            assert eventually(lambda: available(
                srv, "v1alpha1.wardle.example.com").get("status") == "True",
                60), (available(srv, "v1alpha1.wardle.example.com"),
                      w.logs()[-3000:])
            srv.kubectl("create", "namespace", "demo")
            yield srv, w
        finally:
            w.stop()
            srv.stop()


def flunder(name, ns="demo"):
    return json.dumps({"apiVersion": "wardle.example.com/v1alpha1",
                       "kind": "Flunder",
                       "metadata": {"name": name, "namespace": ns}})


def test_ready_with_flowcontrol_and_webhooks(wardle):
    """Its /readyz: every informer synced, the APF ones (FlowSchemas and
    PriorityLevelConfigurations, v1beta3) and the webhook plugins' ones
    (the webhook configurations) on ngx_gcp's lists and watches."""
    srv, w = wardle
    assert w.ready(90), w.logs()[-3000:]
    assert "--disable-admission-plugins" not in " ".join(w.extra_args)


def test_webhooks_called_by_the_sample(wardle):
    """A ValidatingWebhookConfiguration stored in ngx_gcp for flunders:
    the sample's ValidatingAdmissionWebhook plugin finds it through its
    informer and calls the webhook, which refuses; ngx_gcp passes the
    sample's Status on.  Removed, flunders are created again."""
    srv, w = wardle
    with WebhookServer() as wh:
        name = "deny-flunders"
        hook = {"name": "deny.flunders.example.com",
                "clientConfig": {"url": wh.url("/deny"),
                                 "caBundle": wh.ca_bundle},
                "rules": [{"apiGroups": ["wardle.example.com"],
                           "apiVersions": ["*"], "operations": ["CREATE"],
                           "resources": ["flunders"]}],
                "sideEffects": "None", "admissionReviewVersions": ["v1"],
                "timeoutSeconds": 10}
        r = raw(srv, "POST", "/apis/admissionregistration.k8s.io/v1/"
                "validatingwebhookconfigurations",
                {"apiVersion": "admissionregistration.k8s.io/v1",
                 "kind": "ValidatingWebhookConfiguration",
                 "metadata": {"name": name}, "webhooks": [hook]})
        assert r.status == 201, r
        try:
            def refused():
                p = srv.kubectl("create", "-f", "-", input=flunder("wh1"),
                                check=False)
                if p.returncode == 0:
                    srv.kubectl("delete", "flunder", "wh1", "-n", "demo")
                    return None
                return p.stderr
            err = eventually(refused, 60)
            assert err, w.logs()[-3000:]
            assert ('admission webhook "deny.flunders.example.com" denied '
                    'the request: denied by the test') in err, err
            reviews = wh.reviews("/deny")
            assert reviews
            req = reviews[-1]["request"]
            assert req["resource"] == {"group": "wardle.example.com",
                                       "version": "v1alpha1",
                                       "resource": "flunders"}
            assert req["operation"] == "CREATE"
            assert req["namespace"] == "demo"
            # the caller as the sample saw it through ngx_gcp
            assert req["userInfo"]["username"] == whoami(srv)["username"]
        finally:
            assert raw(srv, "DELETE", "/apis/admissionregistration.k8s.io/"
                       "v1/validatingwebhookconfigurations/" + name
                       ).status == 200
        assert eventually(lambda: srv.kubectl(
            "create", "-f", "-", input=flunder("wh2"),
            check=False).returncode == 0, 60)
        srv.kubectl("delete", "flunder", "wh2", "-n", "demo")


def test_kubectl_flunders(wardle):
    srv, w = wardle
    with KubectlWatch(srv, "get", "flunders", "-n", "demo", "-w") as watch:
        srv.kubectl("create", "-f", "-", input=flunder("f1"))
        assert watch.until(lambda out: any(l.startswith("f1 ")
                                           for l in out))
    out = srv.kubectl("get", "flunders", "-n", "demo", "-o", "json")
    assert [i["metadata"]["name"] for i in json.loads(out.stdout)["items"]] \
        == ["f1"]
    srv.kubectl("delete", "flunder", "f1", "-n", "demo")
    assert "f1" not in srv.kubectl("get", "flunders", "-n", "demo").stdout

    # kubectl explain: the OpenAPI v3 document of the sample, through
    # ngx_gcp
    out = srv.kubectl("explain", "flunders.spec")
    assert "reference" in out.stdout


FLUNDERS = "/apis/wardle.example.com/v1alpha1/namespaces/demo/flunders"


def whoami(srv, *args, kubeconfig=None):
    """The user ngx_gcp sees for kubectl's credentials (SelfSubjectReview):
    what the sample must see too."""
    out = srv.kubectl("auth", "whoami", "-o", "json", *args,
                      kubeconfig=kubeconfig).stdout
    return json.loads(out)["status"]["userInfo"]


def seen_as(w, probe):
    """The identity of the one request whose URI holds probe, as the
    sample's audit log records it (None until it is written)."""
    events = [e for e in w.audit_events(probe)
              if e["objectRef"].get("resource") == "flunders"]
    assert len(events) <= 1, events
    return events[0]["user"] if events else None


def same_identity(seen, want):
    assert seen["username"] == want["username"]
    assert seen.get("groups", []) == want.get("groups", [])
    assert seen.get("extra", {}) == want.get("extra", {})


def reader(srv, name):
    """A service account of demo allowed to read flunders there; returns
    a token of it and a kubeconfig with that token."""
    objs = [{"apiVersion": "v1", "kind": "ServiceAccount",
             "metadata": {"name": name, "namespace": "demo"}},
            {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
             "metadata": {"name": "flunder-reader", "namespace": "demo"},
             "rules": [{"apiGroups": ["wardle.example.com"],
                        "resources": ["flunders"],
                        "verbs": ["get", "list", "watch"]}]},
            {"apiVersion": "rbac.authorization.k8s.io/v1",
             "kind": "RoleBinding",
             "metadata": {"name": name, "namespace": "demo"},
             "roleRef": {"apiGroup": "rbac.authorization.k8s.io",
                         "kind": "Role", "name": "flunder-reader"},
             "subjects": [{"kind": "ServiceAccount", "name": name,
                           "namespace": "demo"}]}]
    srv.kubectl("apply", "-f", "-",
                input="\n".join(json.dumps(o) for o in objs))
    token = srv.kubectl("create", "token", name, "-n",
                        "demo").stdout.strip()
    return token, srv.user_kubeconfig(name, token=token)


def test_identity_as_seen_by_the_sample(wardle):
    """The sample reads the caller's identity from the X-Remote-* headers
    of ngx_gcp's client-certificate connection, and authorizes it by
    SubjectAccessReview back to ngx_gcp: kubectl as the admin, as another
    user with --as, and as a service account by its token."""
    srv, w = wardle

    # admin (system:masters)
    srv.kubectl("get", "flunders", "-n", "demo", "-l", "probe=admin")
    assert eventually(lambda: seen_as(w, "probe%3Dadmin"), 10)
    same_identity(seen_as(w, "probe%3Dadmin"), whoami(srv))
    # its certificate's credential-id: a key percent-encoded on the way
    assert list(seen_as(w, "probe%3Dadmin")["extra"]) == [
        "authentication.kubernetes.io/credential-id"]

    # bob has no right in ngx_gcp: refused there, never proxied
    p = srv.kubectl("get", "flunders", "-n", "demo", "-l", "probe=bob1",
                    "--as", "bob", check=False)
    assert p.returncode != 0
    assert 'User "bob" cannot list resource "flunders"' in p.stderr

    srv.kubectl("create", "role", "flunders", "-n", "demo", "--verb=list",
                "--verb=get", "--resource=flunders.wardle.example.com")
    srv.kubectl("create", "rolebinding", "bob", "-n", "demo",
                "--role=flunders", "--user=bob")
    assert eventually(lambda: srv.kubectl(
        "get", "flunders", "-n", "demo", "--as", "bob", "-l", "probe=bob2",
        check=False).returncode == 0, 20)
    assert eventually(lambda: seen_as(w, "probe%3Dbob2"), 10)
    same_identity(seen_as(w, "probe%3Dbob2"), whoami(srv, "--as", "bob"))

    # impersonation with groups and extra
    imp = {"Impersonate-User": "bob", "Impersonate-Group": "devs",
           "Impersonate-Extra-Scopes": "a b"}
    r = raw(srv, "GET", FLUNDERS + "?labelSelector=probe%3Dbob3",
            headers=imp)
    assert r.status == 200, r
    assert eventually(lambda: seen_as(w, "probe%3Dbob3"), 10)
    seen = seen_as(w, "probe%3Dbob3")
    r = raw(srv, "POST",
            "/apis/authentication.k8s.io/v1/selfsubjectreviews",
            {"apiVersion": "authentication.k8s.io/v1",
             "kind": "SelfSubjectReview"}, headers=imp)
    same_identity(seen, r.json["status"]["userInfo"])
    assert seen["extra"] == {"scopes": ["a b"]}
    assert seen["groups"] == ["devs", "system:authenticated"]

    assert w.audit_events("probe%3Dbob1") == []

    # a service account, by its token
    token, kc = reader(srv, "reader")
    auth = {"Authorization": "Bearer " + token}
    assert eventually(lambda: raw(srv, "GET", FLUNDERS
                                  + "?labelSelector=probe%3Dsa1", cert=None,
                                  headers=auth).status == 200, 20)
    assert eventually(lambda: seen_as(w, "probe%3Dsa1"), 10)
    same_identity(seen_as(w, "probe%3Dsa1"), whoami(srv, kubeconfig=kc))
    assert seen_as(w, "probe%3Dsa1")["username"] == \
        "system:serviceaccount:demo:reader"

    # what RBAC does not allow it is refused before it reaches the sample
    r = raw(srv, "POST", FLUNDERS + "?fieldManager=probe-sa2",
            {"apiVersion": "wardle.example.com/v1alpha1", "kind": "Flunder",
             "metadata": {"name": "x"}}, cert=None, headers=auth)
    assert r.status == 403, r
    assert r.json["reason"] == "Forbidden"
    assert w.audit_events("probe-sa2") == []


def test_forged_identity_headers(wardle):
    """X-Remote-* headers a client sends never reach the sample: it sees
    who the client is, not who the client says it is."""
    srv, w = wardle
    forged = {"X-Remote-User": "system:admin",
              "X-Remote-Group": "system:masters",
              "X-Remote-Extra-Scopes": "everything",
              "x-remote-user": "root"}
    token, kc = reader(srv, "forger")
    assert eventually(lambda: raw(srv, "GET", FLUNDERS, cert=None, headers={
        "Authorization": "Bearer " + token}).status == 200, 20)
    r = raw(srv, "GET", FLUNDERS + "?labelSelector=probe%3Dforged",
            cert=None, headers=dict(forged,
                                    Authorization="Bearer " + token))
    assert r.status == 200, r
    assert eventually(lambda: seen_as(w, "probe%3Dforged"), 10)
    same_identity(seen_as(w, "probe%3Dforged"), whoami(srv, kubeconfig=kc))

    # an anonymous client claiming to be the admin is refused by ngx_gcp
    r = raw(srv, "GET", FLUNDERS + "?labelSelector=probe%3Danon",
            cert=None, headers=forged)
    assert r.status in (401, 403), r
    assert w.audit_events("probe%3Danon") == []


def wardle_discovery(srv):
    """wardle.example.com's entry in aggregated discovery (v2)."""
    r = raw(srv, "GET", "/apis", headers={
        "Accept": "application/json;g=apidiscovery.k8s.io;v=v2;"
                  "as=APIGroupDiscoveryList"})
    return [i for i in r.json["items"]
            if i["metadata"].get("name") == "wardle.example.com"][0]


def test_stopped_then_restarted(wardle):
    """The sample stops: its APIServices become Available=False, its
    requests fast 503s from ngx_gcp, discovery keeps its last documents
    (Stale); built-in resources are not disturbed.  Started again on the
    same port, it is used again, ngx_gcp untouched."""
    srv, w = wardle
    name = "v1alpha1.wardle.example.com"
    # kubectl knows flunders from its discovery cache (a group whose
    # discovery is Stale and not in its cache is unknown to it)
    srv.kubectl("get", "flunders", "-n", "demo")
    w.stop()
    try:
        for v in ("v1alpha1", "v1beta1"):
            assert eventually(lambda: available(
                srv, v + ".wardle.example.com").get("status") == "False", 30)
        cond = available(srv, name)
        assert cond["reason"] == "FailedDiscoveryCheck", cond
        assert cond["message"].startswith(
            "failing or missing response from https://%s/apis/"
            "wardle.example.com/v1alpha1: " % w.endpoint), cond

        assert eventually(lambda: raw(srv, "GET", FLUNDERS).body
                          == b"service unavailable\n", 5)
        r = raw(srv, "GET", FLUNDERS)
        assert r.status == 503, r
        p = srv.kubectl("get", "flunders", "-n", "demo", check=False)
        assert p.returncode != 0
        assert "ServiceUnavailable" in p.stderr, p.stderr

        # every worker: its view follows the APIServices' status
        assert eventually(lambda: {v["freshness"] for v in wardle_discovery(
            srv)["versions"]} == {"Stale"}, 10)
        item = wardle_discovery(srv)
        assert {v["version"] for v in item["versions"]} == {"v1alpha1",
                                                             "v1beta1"}
        assert "wardle.example.com" in [
            g["name"] for g in raw(srv, "GET", "/apis").json["groups"]]

        # built-in resources, and kubectl's discovery, go on
        srv.kubectl("get", "namespaces")
        srv.kubectl("get", "configmaps", "-n", "demo")
    finally:
        w.start()
    assert eventually(lambda: available(srv, name).get("status") == "True",
                      60)
    # each worker follows the status from its own watch (as upstream's
    # handler follows its informer): Available in one, then in both
    assert eventually(lambda: raw(srv, "GET", FLUNDERS).status == 200, 10)
    srv.kubectl("create", "-f", "-", input=flunder("after"))
    assert "after" in srv.kubectl("get", "flunders", "-n", "demo").stdout
    assert eventually(lambda: {v["freshness"] for v in wardle_discovery(
        srv)["versions"]} == {"Current"}, 30)
