"""Fronting an upstream API server with a minimal surface (issue 13).

An ngx_gcp server fronts upstream's kube-apiserver (peers) with the
surface configmaps get/list/watch in the namespace "demo": its callers are
authenticated by ngx_gcp (client certificates of its PKI), the upstream
sees them through Impersonate-* headers sent with a privileged token, and
its RBAC decides.  Everything else of the fronted group-version is 404,
a verb outside the surface 405.
"""

import os
import types

import pytest

import kube_apiserver
from etcd_cluster import EtcdCluster
from ext_server import ExtPki, ExtServer
from gcp_http import assert_status, call
from gcp_server import GcpServer, GcpServerError
from gcp_wait import eventually
from kubectl_watch import KubectlWatch

# fronted resources live in the upstream, not in the store:
# run in the LMDB session only (conftest.py)
STORAGE_INDEPENDENT = True

pytestmark = pytest.mark.skipif(not kube_apiserver.available(),
                                reason="no kube-apiserver in the peers")

FRONT_TOKEN = "gcp-front-token"

# alice may read configmaps in demo upstream; bob nothing
UPSTREAM_RBAC = """
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: cm-reader, namespace: demo}
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: alice-cm-reader, namespace: demo}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: cm-reader}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}]
"""


def front_conf(kas, token_file, extra=""):
    return ("gcp_front %s; gcp_front_server_name localhost; "
            "gcp_front_ca_file %s; gcp_front_token_file %s; "
            "gcp_front_expose v1/configmaps get,list,watch namespaces=demo; "
            "%s" % (kas.url, kas.pki.ca, token_file, extra))


@pytest.fixture(scope="module")
def front(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("front"))
    with EtcdCluster(members=1) as etcd:
        kas = kube_apiserver.KubeApiserver(
            etcd.endpoints, os.path.join(d, "kas"),
            tokens=[(FRONT_TOKEN, "gcp-front", "front-uid",
                     ["system:masters"])])
        kas.start()
        try:
            assert kas.ready(), kas.logs()[-3000:]
            kas.kubectl("create", "namespace", "demo")
            kas.kubectl("create", "namespace", "other")
            kas.kubectl("apply", "-f", "-", input=UPSTREAM_RBAC)
            kas.kubectl("-n", "demo", "create", "configmap", "upstream-cm",
                        "--from-literal=k=v")
            kas.kubectl("-n", "demo", "create", "secret", "generic",
                        "upstream-secret", "--from-literal=k=v")
            token = os.path.join(d, "front.token")
            with open(token, "w") as f:
                f.write(FRONT_TOKEN + "\n")
            os.makedirs(os.path.join(d, "gcp"))
            srv = GcpServer(workers=2, tls=True,
                            data_dir=os.path.join(d, "gcp"),
                            http_extra=front_conf(kas, token,
                                                  "gcp_front_only on;"))
            srv.start(timeout=60)
            try:
                srv.client_cert("alice", "alice", "team-a")
                srv.client_cert("bob", "bob")
                alice = types.SimpleNamespace(
                    kubeconfig=srv.user_kubeconfig(
                        "alice", cert=srv.client_cert("alice", "alice",
                                                      "team-a")))
                yield types.SimpleNamespace(kas=kas, srv=srv, dir=d,
                                            alice=alice)
            finally:
                srv.stop()
        finally:
            kas.stop()


def get(front, path, cert="alice", **kw):
    return call(front.srv, "GET", path, conn=front.srv.connection(cert),
                **kw)


def test_list_and_get_through_the_front(front):
    r = get(front, "/api/v1/namespaces/demo/configmaps")
    assert r.status == 200, r
    assert [i["metadata"]["name"] for i in r.json["items"]] == [
        "kube-root-ca.crt", "upstream-cm"] or "upstream-cm" in [
        i["metadata"]["name"] for i in r.json["items"]], r
    r = get(front, "/api/v1/namespaces/demo/configmaps/upstream-cm")
    assert r.status == 200, r
    assert r.json["data"] == {"k": "v"}


def test_upstream_sees_the_caller(front):
    """The upstream's RBAC answers for the caller, not the privileged
    account, and its audit log names both."""
    r = get(front, "/api/v1/namespaces/demo/configmaps", cert="bob")
    assert_status(r, 403, "Forbidden",
                  'configmaps is forbidden: User "bob" cannot list '
                  'resource "configmaps" in API group "" in the namespace '
                  '"demo"')
    r = get(front, "/api/v1/namespaces/demo/configmaps/upstream-cm")
    assert r.status == 200, r

    def seen():
        return [e for e in front.kas.audit_events(
                    "/api/v1/namespaces/demo/configmaps/upstream-cm")
                if (e.get("impersonatedUser") or {}).get("username")
                == "alice"]
    assert eventually(seen, 30), front.kas.audit_events("/configmaps")
    e = seen()[0]
    assert e["user"]["username"] == "gcp-front"
    assert "team-a" in e["impersonatedUser"]["groups"]
    assert "system:authenticated" in e["impersonatedUser"]["groups"]


def test_outside_the_surface_is_not_found(front):
    for path in ("/api/v1/namespaces/demo/secrets",
                 "/api/v1/namespaces/demo/secrets/upstream-secret",
                 "/api/v1/namespaces/other/configmaps",
                 "/api/v1/configmaps",
                 "/api/v1/namespaces/demo/configmaps/upstream-cm/status"):
        r = get(front, path)
        assert_status(r, 404, "NotFound")


def test_verb_outside_the_surface(front):
    r = call(front.srv, "POST", "/api/v1/namespaces/demo/configmaps",
             {"metadata": {"name": "new"}}, conn=front.srv.connection(
                 "alice"))
    assert_status(r, 405, "MethodNotAllowed")
    r = call(front.srv, "DELETE",
             "/api/v1/namespaces/demo/configmaps/upstream-cm",
             conn=front.srv.connection("alice"))
    assert_status(r, 405, "MethodNotAllowed")
    assert front.kas.kubectl("-n", "demo", "get", "cm", "upstream-cm",
                             check=False).returncode == 0


def test_forged_identity_headers(front):
    """A caller may not impersonate (ngx_gcp's authorizer says so), and
    its X-Remote-* headers never reach the upstream."""
    r = get(front, "/api/v1/namespaces/demo/configmaps",
            headers={"Impersonate-User": "admin"})
    assert_status(r, 403, "Forbidden")
    r = get(front, "/api/v1/namespaces/demo/configmaps", cert="bob",
            headers={"X-Remote-User": "alice", "X-Remote-Group":
                     "system:masters"})
    assert_status(r, 403, "Forbidden")
    assert 'User "bob"' in r.json["message"]


def kubectl(front, *args, user="alice", check=True):
    return front.srv.kubectl(*args, check=check,
                             kubeconfig=getattr(front, user).kubeconfig)


def test_api_resources_shows_only_the_surface(front):
    def listed():
        out = kubectl(front, "api-resources", "--no-headers",
                      check=False).stdout
        return out.split("\n")[0].split() if out.strip() else None
    assert eventually(lambda: listed() and listed()[0] == "configmaps",
                      30), listed()
    out = kubectl(front, "api-resources", "-o", "wide",
                  "--no-headers").stdout.strip().split("\n")
    assert len(out) == 1, out
    assert out[0].split()[:5] == ["configmaps", "cm", "v1", "true",
                                  "ConfigMap"], out
    assert out[0].split()[5] == "get,list,watch", out


def test_discovery_documents_are_the_upstreams_narrowed(front):
    r = get(front, "/api/v1")
    assert r.status == 200, r
    assert [x["name"] for x in r.json["resources"]] == ["configmaps"]
    assert r.json["resources"][0]["verbs"] == ["get", "list", "watch"]
    assert r.json["resources"][0]["shortNames"] == ["cm"]
    r = get(front, "/apis")
    assert r.status == 200 and r.json["groups"] == [], r
    r = get(front, "/api", headers={
        "Accept": "application/json;g=apidiscovery.k8s.io;v=v2beta1;"
                  "as=APIGroupDiscoveryList"})
    assert r.status == 200, r
    [core] = r.json["items"]
    [v1] = core["versions"]
    assert [x["resource"] for x in v1["resources"]] == ["configmaps"]
    assert v1["freshness"] == "Current"
    for path in ("/apis/rbac.authorization.k8s.io/v1",
                 "/apis/apps/v1/namespaces/demo/deployments"):
        assert get(front, path).status == 404, path


def test_kubectl_watch_streams(front, unique_name):
    name = unique_name("cm")
    with KubectlWatch(front.alice, "-n", "demo", "get", "configmaps",
                      "-w", "--no-headers") as w:
        assert w.until(lambda out: any("upstream-cm" in l for l in out))
        front.kas.kubectl("-n", "demo", "create", "configmap", name)
        assert w.until(lambda out: any(name in l for l in out)), w.out
    front.kas.kubectl("-n", "demo", "delete", "configmap", name)


def test_kubectl_create_refused(front):
    r = kubectl(front, "-n", "demo", "create", "configmap", "refused",
                check=False)
    assert r.returncode != 0
    assert "MethodNotAllowed" in r.stderr or "not allow" in r.stderr, \
        r.stderr
    r = kubectl(front, "-n", "demo", "get", "secrets", check=False)
    assert r.returncode != 0
    assert 'the server doesn\'t have a resource type "secrets"' in \
        r.stderr, r.stderr


# ------------------------------------------------ an upstream that records


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """ngx_gcp fronting ExtServer (things.example.com/v1 widgets), which
    records every request's headers."""
    d = str(tmp_path_factory.mktemp("front-rec"))
    pki = ExtPki(os.path.join(d, "ext"))
    ext = ExtServer(pki).start()
    token = os.path.join(d, "front.token")
    with open(token, "w") as f:
        f.write(FRONT_TOKEN + "\n")
    srv = GcpServer(workers=2, tls=True, http_extra=(
        "gcp_front https://127.0.0.1:%d; gcp_front_server_name %s; "
        "gcp_front_ca_file %s; gcp_front_token_file %s; "
        "gcp_front_expose things.example.com/v1/widgets get,list,create;"
        % (ext.port, ext.host, pki.ca, token)))
    srv.start(timeout=60)
    try:
        srv.client_cert("alice", "alice", "team-a")
        yield types.SimpleNamespace(srv=srv, ext=ext)
    finally:
        srv.stop()
        ext.stop()


def widgets(rec, cert="alice", headers=None, method="GET", body=None):
    return call(rec.srv, method,
                "/apis/things.example.com/v1/namespaces/demo/widgets",
                body, headers=headers, conn=rec.srv.connection(cert))


def last_headers(rec):
    seen = rec.ext.seen(lambda r: "/namespaces/demo/widgets" in r["path"])
    assert seen
    return seen[-1]["headers"]


def test_forged_headers_never_reach_the_upstream(recorded):
    r = widgets(recorded, headers={
        "X-Remote-User": "admin", "X-Remote-Group": "system:masters",
        "X-Remote-Extra-Scopes": "all", "X-Remote-Uid": "0"})
    assert r.status == 200, r
    h = last_headers(recorded)
    names = [k for k, _ in h]
    assert not [k for k in names if k.startswith("x-remote-")], h
    assert [v for k, v in h if k == "impersonate-user"] == ["alice"]
    assert [v for k, v in h if k == "impersonate-group"] == [
        "team-a", "system:authenticated"], h
    assert [v for k, v in h if k == "authorization"] == [
        "Bearer " + FRONT_TOKEN], h


def test_impersonation_allowed_here_goes_on_as_the_impersonated(recorded):
    """The admin may impersonate (this server's RBAC): the upstream gets
    the impersonated user, once, and none of the client's headers."""
    r = widgets(recorded, cert="admin", headers={
        "Impersonate-User": "carol", "Impersonate-Group": "devs",
        "Impersonate-Extra-Reason": "audit"})
    assert r.status == 200, r
    h = last_headers(recorded)
    assert [v for k, v in h if k == "impersonate-user"] == ["carol"], h
    assert [v for k, v in h if k == "impersonate-group"] == [
        "devs", "system:authenticated"], h
    assert [v for k, v in h if k == "impersonate-extra-reason"] == [
        "audit"], h
    # not allowed to impersonate: refused here, nothing sent
    n = len(recorded.ext.seen())
    r = widgets(recorded, headers={"Impersonate-User": "admin"})
    assert_status(r, 403, "Forbidden")
    assert len(recorded.ext.seen()) == n


def test_upstream_down_fast_503_then_recovers(recorded):
    recorded.ext.stop()
    try:
        r = widgets(recorded)
        assert r.status == 503, r
        assert r.json["kind"] == "Status" and r.json["code"] == 503, r
    finally:
        recorded.ext.start()
    assert eventually(lambda: widgets(recorded).status == 200, 30)


# ------------------------------------------------ a second ngx_gcp upstream


@pytest.fixture(scope="module")
def gcp_upstream(tmp_path_factory):
    up = GcpServer(workers=2, tls=True)
    up.start(timeout=60)
    try:
        up.kubectl("create", "namespace", "demo")
        up.kubectl("-n", "demo", "create", "configmap", "up-cm",
                   "--from-literal=k=v")
        up.kubectl("-n", "demo", "create", "secret", "generic", "up-secret",
                   "--from-literal=k=v")
        srv = GcpServer(workers=2, tls=True, http_extra=(
            "gcp_front %s; gcp_front_server_name localhost; "
            "gcp_front_ca_file %s; gcp_front_client_certificate %s; "
            "gcp_front_client_certificate_key %s; gcp_front_only on; "
            "gcp_front_expose v1/configmaps get,list,watch "
            "namespaces=demo;" % (
                up.url, os.path.join(up.pki, "ca.crt"),
                os.path.join(up.pki, "admin.crt"),
                os.path.join(up.pki, "admin.key"))))
        srv.start(timeout=60)
        try:
            srv.client_cert("alice", "alice", "team-a")
            yield types.SimpleNamespace(up=up, srv=srv)
        finally:
            srv.stop()
    finally:
        up.stop()


def test_second_gcp_as_upstream(gcp_upstream):
    g = gcp_upstream
    path = "/api/v1/namespaces/demo/configmaps"
    r = call(g.srv, "GET", path, conn=g.srv.connection("alice"))
    assert_status(r, 403, "Forbidden")
    assert 'User "alice" cannot list resource "configmaps"' in \
        r.json["message"], r
    g.up.kubectl("-n", "demo", "create", "role", "cm-reader",
                 "--verb=get,list,watch", "--resource=configmaps")
    g.up.kubectl("-n", "demo", "create", "rolebinding", "alice-cm",
                 "--role=cm-reader", "--group=team-a")

    def listed():
        r = call(g.srv, "GET", path, conn=g.srv.connection("alice"))
        return r.status == 200 and [
            i["metadata"]["name"] for i in r.json["items"]]
    assert eventually(lambda: "up-cm" in (listed() or []), 30), listed()
    r = call(g.srv, "GET", "/api/v1/namespaces/demo/secrets/up-secret",
             conn=g.srv.connection("alice"))
    assert_status(r, 404, "NotFound")
    r = call(g.srv, "POST", path, {"metadata": {"name": "x"}},
             conn=g.srv.connection("alice"))
    assert_status(r, 405, "MethodNotAllowed")
    r = call(g.srv, "GET", "/api/v1", conn=g.srv.connection("alice"))
    assert eventually(lambda: [x["name"] for x in call(
        g.srv, "GET", "/api/v1", conn=g.srv.connection("alice")).json.get(
        "resources", [])] == ["configmaps"], 30)


# ------------------------------------------------ configuration


@pytest.mark.parametrize("extra,message", [
    ("gcp_front_expose v1/configmaps get;",
     '"gcp_front_*" directives need "gcp_front"'),
    ("gcp_front https://localhost:1; gcp_front_token_file /dev/null;",
     '"gcp_front" exposes nothing: add "gcp_front_expose"'),
    ("gcp_front https://localhost:1; gcp_front_expose v1/configmaps get;",
     '"gcp_front" needs a credential'),
    ("gcp_front https://127.0.0.1:1; gcp_front_token_file %(tok)s; "
     "gcp_front_expose v1/configmaps get;",
     '"gcp_front" "https://127.0.0.1:1" is an address: name the server\'s '
     'certificate with "gcp_front_server_name"'),
    ("gcp_front http://localhost:1;",
     '"gcp_front" takes an https:// URL or the name of an upstream block'),
    ("gcp_front nosuchblock; gcp_front_token_file %(tok)s; "
     "gcp_front_expose v1/configmaps get;",
     '"gcp_front": no upstream block "nosuchblock"'),
    ("gcp_front https://localhost:1; gcp_front_token_file %(tok)s; "
     "gcp_front_expose v1/configmaps get,frob;",
     '"gcp_front_expose": unknown verb "frob" in "get,frob"'),
    ("gcp_front https://localhost:1; gcp_front_token_file %(tok)s; "
     "gcp_front_expose configmaps get;",
     '"gcp_front_expose": "configmaps" is not GROUP/VERSION/RESOURCE'),
    ("gcp_front https://localhost:1; gcp_front_token_file %(tok)s; "
     "gcp_front_expose v1/configmaps get colour=red;",
     '"gcp_front_expose": invalid parameter "colour=red"'),
    ("gcp_front https://localhost:1; gcp_front_token_file %(tok)s; "
     "gcp_front_expose v1/configmaps get; "
     "gcp_front_expose v1/configmaps list;",
     '"gcp_front_expose": "v1/configmaps" is already exposed'),
    ("gcp_front https://localhost:1; gcp_front_token_file /dev/null; "
     "gcp_front_expose v1/configmaps get;",
     '"gcp_front_token_file" "/dev/null" is empty'),
    ("gcp_front https://localhost:1; gcp_front_token_file %(tok)s; "
     "gcp_front_identity front-proxy; gcp_front_expose v1/configmaps get;",
     '"gcp_front_identity front-proxy" needs '
     '"gcp_front_client_certificate"'),
    ("gcp_front https://localhost:1; gcp_front_client_certificate %(tok)s; "
     "gcp_front_client_certificate_key %(tok)s; "
     "gcp_front_expose v1/configmaps get;",
     'gcp_front_client_certificate "%(tok)s" with key "%(tok)s": no '
     'certificate and matching key'),
])
def test_configuration_refused(tmp_path, extra, message):
    tok = str(tmp_path / "token")
    with open(tok, "w") as f:
        f.write("t0ken\n")
    srv = GcpServer(workers=1, http_extra=extra % {"tok": tok})
    with pytest.raises(GcpServerError) as e:
        srv.start(timeout=20)
    assert "[emerg]" in str(e.value) and message % {"tok": tok} in \
        str(e.value), str(e.value)
    srv.stop(check=False)
