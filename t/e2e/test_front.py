"""Fronting an upstream API server with a minimal surface (issue 13).

An ngx_gcp server fronts upstream's kube-apiserver (peers) with the
surface configmaps get/list/watch in the namespace "demo": its callers are
authenticated by ngx_gcp (client certificates of its PKI), the upstream
sees them through Impersonate-* headers sent with a privileged token, and
its RBAC decides.  Everything else of the fronted group-version is 404,
a verb outside the surface 405.
"""

import json
import os
import types

import pytest

import gcp_pbwire as pb
import kube_apiserver
from etcd_cluster import EtcdCluster
from ext_server import ExtPki, ExtServer
from gcp_http import assert_status, call
from gcp_server import GcpServer, GcpServerError
from gcp_wait import eventually
from kubectl_watch import KubectlWatch
from oidc_issuer import Issuer
from test_oidc import auth_config

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
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}
- {apiGroup: rbac.authorization.k8s.io, kind: Group, name: "grp:readers"}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: editor, namespace: demo}
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: ["*"]
- apiGroups: [""]
  resources: [pods, pods/exec]
  verbs: [get, list, create]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: editors, namespace: demo}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: editor}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: Group, name: editors}]
"""

PROTOBUF = "application/vnd.kubernetes.protobuf"


def front_conf(kas, token_file, extra=""):
    return ("gcp_front %s; gcp_front_server_name localhost; "
            "gcp_front_ca_file %s; gcp_front_token_file %s; "
            "gcp_front_expose v1/configmaps get,list,watch namespaces=demo; "
            "%s" % (kas.url, kas.pki.ca, token_file, extra))


@pytest.fixture(scope="module")
def issuer():
    """An OIDC issuer whose users the fronting server authenticates."""
    i = Issuer().start()
    try:
        yield i
    finally:
        i.stop()


@pytest.fixture(scope="module")
def front(tmp_path_factory, issuer):
    d = str(tmp_path_factory.mktemp("front"))
    authn = os.path.join(d, "authn.yaml")
    with open(authn, "w") as f:
        f.write(auth_config(issuer))
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
                            http_extra=front_conf(
                                kas, token, "gcp_front_only on; "
                                "gcp_authentication_config %s;" % authn))
            srv.start(timeout=60)
            try:
                srv.client_cert("alice", "alice", "team-a")
                srv.client_cert("bob", "bob")
                alice = types.SimpleNamespace(
                    kubeconfig=srv.user_kubeconfig(
                        "alice", cert=srv.client_cert("alice", "alice",
                                                      "team-a")))
                yield types.SimpleNamespace(kas=kas, srv=srv, dir=d,
                                            alice=alice, token=token,
                                            issuer=issuer)
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



def test_oidc_user_reaches_the_upstream_impersonated(front):
    """A user of an OIDC issuer (gcp_authentication_config) goes on as the
    user and groups its claims map to; the upstream's RBAC decides."""
    def token(sub, groups):
        return front.issuer.token({"sub": sub, "aud": "k8s",
                                   "tenant": "acme", "groups": groups,
                                   "uid": "uid-" + sub})

    kc = front.srv.user_kubeconfig("carol", token=token("carol",
                                                        ["readers"]))
    r = front.srv.kubectl("-n", "demo", "get", "configmaps", "-o", "name",
                          kubeconfig=kc, check=False)
    assert r.returncode == 0, r.stderr
    assert "configmap/upstream-cm" in r.stdout.split()

    def seen():
        return [e for e in front.kas.audit_events(
                    "/api/v1/namespaces/demo/configmaps")
                if (e.get("impersonatedUser") or {}).get("username")
                == "oidc:carol" and e.get("stage") == "ResponseComplete"]
    assert eventually(seen, 30), front.kas.audit_events("/configmaps")
    e = seen()[0]
    assert e["user"]["username"] == "gcp-front"
    assert e["impersonatedUser"]["uid"] == "uid-carol"
    assert set(e["impersonatedUser"]["groups"]) == {
        "grp:readers", "system:authenticated"}, e
    assert e["responseStatus"]["code"] == 200

    # a user the upstream's RBAC does not bind: its answer, its words
    kc = front.srv.user_kubeconfig("dave", token=token("dave", ["others"]))
    r = front.srv.kubectl("-n", "demo", "get", "configmaps", kubeconfig=kc,
                          check=False)
    assert r.returncode != 0
    assert 'User "oidc:dave" cannot list resource "configmaps"' in \
        r.stderr, r.stderr

    # a token this server does not accept never reaches the upstream
    bad = front.issuer.token({"sub": "eve", "aud": "other",
                              "tenant": "acme"})
    r = call(front.srv, "GET", "/api/v1/namespaces/demo/configmaps",
             headers={"Authorization": "Bearer " + bad},
             conn=front.srv.connection(None))
    assert_status(r, 401, "Unauthorized")
    assert not [e for e in front.kas.audit_events("/configmaps")
                if "eve" in json.dumps(e.get("impersonatedUser"))]


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



CM_PATHS = ["/api/v1/namespaces/{namespace}/configmaps",
            "/api/v1/namespaces/{namespace}/configmaps/{name}",
            "/api/v1/watch/namespaces/{namespace}/configmaps",
            "/api/v1/watch/namespaces/{namespace}/configmaps/{name}"]


def openapi_v3_index(front):
    """The /openapi/v3 index once the upstream's core/v1 is in it."""
    def index():
        r = get(front, "/openapi/v3")
        return r.json["paths"] if r.status == 200 else {}
    assert eventually(lambda: "api/v1" in index(), 60), index()
    return index()


def test_openapi_v3_is_the_upstreams_narrowed(front):
    index = openapi_v3_index(front)
    # gcp_front_only: no group-version of this server's own
    assert [k for k in index if k.startswith("api")] == ["api", "api/v1",
                                                        "apis"], index
    r = get(front, index["api/v1"]["serverRelativeURL"])
    assert r.status == 200, r
    assert r.header("Cache-Control") == "public, immutable"
    doc = r.json
    assert sorted(doc["paths"]) == ["/api/v1/"] + CM_PATHS
    ops = {p: sorted(m for m in v if m != "parameters")
           for p, v in doc["paths"].items()}
    assert ops[CM_PATHS[0]] == ["get"] and ops[CM_PATHS[1]] == ["get"], ops
    # the operations are the upstream's, unchanged
    up = json.loads(front.kas.kubectl("get", "--raw",
                                      "/openapi/v3/api/v1").stdout)
    assert doc["paths"][CM_PATHS[1]]["get"] == \
        up["paths"][CM_PATHS[1]]["get"]
    assert "post" in up["paths"][CM_PATHS[0]]
    schemas = doc["components"]["schemas"]
    assert schemas["io.k8s.api.core.v1.ConfigMap"] == \
        up["components"]["schemas"]["io.k8s.api.core.v1.ConfigMap"]
    assert "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" in schemas
    for hidden in ("io.k8s.api.core.v1.Secret", "io.k8s.api.core.v1.Pod"):
        assert hidden in up["components"]["schemas"]
        assert hidden not in schemas, hidden
    for key in ("apis/apps/v1", "apis/rbac.authorization.k8s.io/v1",
                "apis/authentication.k8s.io/v1"):
        assert get(front, "/openapi/v3/" + key).status == 404, key


def test_openapi_v2_is_the_upstreams_narrowed(front):
    def paths():
        r = get(front, "/openapi/v2")
        return r.json["paths"] if r.status == 200 else {}
    assert eventually(lambda: CM_PATHS[0] in paths(), 60), sorted(paths())
    r = get(front, "/openapi/v2")
    api = sorted(p for p in r.json["paths"] if p.startswith("/api"))
    assert api == ["/api/", "/api/v1/"] + CM_PATHS + ["/apis/"], api
    defs = r.json["definitions"]
    assert "io.k8s.api.core.v1.ConfigMap" in defs
    assert "io.k8s.api.core.v1.ConfigMapList" in defs
    for hidden in ("io.k8s.api.core.v1.Secret",
                   "io.k8s.api.rbac.v1.Role",
                   "io.k8s.api.authentication.v1.SelfSubjectReview"):
        assert hidden not in defs, hidden
    # the protobuf form client-go asks for is the same document
    r = get(front, "/openapi/v2", headers={
        "Accept": "application/com.github.proto-openapi.spec.v2@v1.0"
                  "+protobuf"})
    assert r.status == 200, r
    assert r.content_type.startswith(
        "application/com.github.proto-openapi.spec.v2"), r
    assert CM_PATHS[0].encode() in r.body
    assert b"io.k8s.api.core.v1.ConfigMap" in r.body
    assert b"io.k8s.api.core.v1.Secret" not in r.body


def test_kubectl_explain_knows_only_the_surface(front):
    openapi_v3_index(front)
    out = kubectl(front, "explain", "configmaps.data").stdout
    assert "KIND:       ConfigMap" in out and "FIELD: data" in out, out
    # kubectl explain's v2 path
    out = kubectl(front, "explain", "configmaps",
                  "--output=plaintext-openapiv2").stdout
    assert "KIND:     ConfigMap" in out or "KIND:       ConfigMap" in out, out
    r = kubectl(front, "explain", "secrets", check=False)
    assert r.returncode != 0
    assert 'the server doesn\'t have a resource type "secrets"' in \
        r.stderr, r.stderr


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



# ------------------------------------------------ everything passes through


@pytest.fixture(scope="module")
def rw(front):
    """A second fronting server on the same upstream, whose surface has
    every verb of configmaps and pods' exec in demo; erin (group editors)
    may use them upstream."""
    front.kas.kubectl("-n", "demo", "create", "serviceaccount", "default")
    front.kas.kubectl("-n", "demo", "run", "pending", "--image=none",
                      "--restart=Never")
    d = os.path.join(front.dir, "rw")
    os.makedirs(d)
    srv = GcpServer(workers=2, tls=True, data_dir=d, http_extra=(
        front_conf(front.kas, front.token,
                   "gcp_front_only on; gcp_front_expose v1/pods get,create "
                   "namespaces=demo subresources=exec;").replace(
            "v1/configmaps get,list,watch", "v1/configmaps *")))
    srv.start(timeout=60)
    try:
        erin = srv.user_kubeconfig("erin", cert=srv.client_cert(
            "erin", "erin", "editors"))
        yield types.SimpleNamespace(srv=srv, kas=front.kas, erin=erin)
    finally:
        srv.stop()


def erin(rw, *args, check=True, input=None):
    return rw.srv.kubectl("-n", "demo", *args, check=check, input=input,
                          kubeconfig=rw.erin)


def rw_call(rw, method, path, body=None, **kw):
    return call(rw.srv, method, "/api/v1/namespaces/demo/" + path, body,
                conn=rw.srv.connection("erin"), **kw)


def test_chunked_lists_pass_through(rw):
    for i in range(5):
        rw.kas.kubectl("-n", "demo", "create", "configmap", "chunk-%d" % i)
    names, cont, pages = [], None, 0
    while True:
        r = rw_call(rw, "GET", "configmaps?labelSelector=&limit=2"
                    + ("&continue=" + cont if cont else ""))
        assert r.status == 200, r
        assert len(r.json["items"]) <= 2
        names += [i["metadata"]["name"] for i in r.json["items"]]
        pages += 1
        cont = r.json["metadata"].get("continue")
        if not cont:
            break
        assert r.json["metadata"]["remainingItemCount"] > 0
    assert pages >= 3
    assert ["chunk-%d" % i for i in range(5)] == [
        n for n in names if n.startswith("chunk-")], names
    out = erin(rw, "get", "configmaps", "--chunk-size=2", "-o",
               "name").stdout.split()
    assert ["configmap/chunk-%d" % i for i in range(5)] == [
        n for n in out if n.startswith("configmap/chunk-")], out


def test_table_answers_pass_through(rw):
    r = rw_call(rw, "GET", "configmaps", headers={
        "Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})
    assert r.status == 200 and r.json["kind"] == "Table", r
    assert [c["name"] for c in r.json["columnDefinitions"]] == [
        "Name", "Data", "Age"]
    out = erin(rw, "get", "configmaps").stdout.split("\n")
    assert out[0].split() == ["NAME", "DATA", "AGE"], out


def test_protobuf_bodies_and_answers_pass_through(rw):
    r = rw_call(rw, "GET", "configmaps", headers={"Accept": PROTOBUF})
    assert r.status == 200, r
    assert r.content_type == PROTOBUF
    api_version, kind, raw = pb.unwrap(r.body)
    assert (api_version, kind) == ("v1", "ConfigMapList")
    body = pb.envelope("v1", "ConfigMap", pb.encode([
        (1, [(1, "from-protobuf")]), (2, [(1, "k"), (2, "v")])]))
    r = rw_call(rw, "POST", "configmaps", body, content_type=PROTOBUF,
                headers={"Accept": PROTOBUF + ", application/json"})
    assert r.status == 201, r
    assert r.content_type == PROTOBUF
    _, kind, raw = pb.unwrap(r.body)
    assert kind == "ConfigMap"
    meta = pb.decode(pb.get(pb.decode(raw), 1))
    assert pb.get(meta, 1) == b"from-protobuf"
    up = json.loads(rw.kas.kubectl("-n", "demo", "get", "configmap",
                                   "from-protobuf", "-o", "json").stdout)
    assert up["data"] == {"k": "v"}


def test_server_side_apply_and_dry_run_pass_through(rw):
    cm = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: applied}\n"
          "data: {a: '1'}\n")
    r = erin(rw, "apply", "--server-side", "-f", "-", input=cm)
    assert "configmap/applied serverside-applied" in r.stdout, r
    r = erin(rw, "apply", "--server-side", "--field-manager=other", "-f",
             "-", input=cm.replace("'1'", "'2'"), check=False)
    assert r.returncode != 0 and "conflict" in r.stderr.lower(), r.stderr
    up = json.loads(rw.kas.kubectl("-n", "demo", "get", "configmap",
                                   "applied", "-o", "json",
                                   "--show-managed-fields").stdout)
    assert up["data"] == {"a": "1"}
    assert [(m["manager"], m["operation"])
            for m in up["metadata"]["managedFields"]] == [
        ("kubectl", "Apply")]
    r = erin(rw, "create", "configmap", "dry", "--dry-run=server")
    assert "configmap/dry created (server dry run)" in r.stdout, r
    assert rw.kas.kubectl("-n", "demo", "get", "configmap", "dry",
                          check=False).returncode != 0


def test_watch_passes_through_in_protobuf(rw):
    conn = rw.srv.connection("erin")
    r = call(rw.srv, "GET", "/api/v1/namespaces/demo/configmaps?limit=1",
             conn=rw.srv.connection("erin"))
    rv = r.json["metadata"]["resourceVersion"]
    conn.request("GET", "/api/v1/namespaces/demo/configmaps?watch=1"
                 "&resourceVersion=" + rv,
                 headers={"Accept": PROTOBUF + ";stream=watch"})
    resp = conn.getresponse()
    assert resp.status == 200
    assert resp.getheader("Content-Type") == PROTOBUF + ";stream=watch"
    rw.kas.kubectl("-n", "demo", "create", "configmap", "watched")
    size = int.from_bytes(resp.read(4), "big")
    event = pb.decode(resp.read(size))
    # a WatchEvent: type, then the object (Unknown envelope)
    assert pb.get(event, 1) == b"ADDED"
    obj = pb.get(pb.decode(pb.get(event, 2)), 1)
    _, kind, raw = pb.unwrap(obj)
    assert kind == "ConfigMap"
    assert b"watched" in raw
    conn.close()


def test_upgrade_requests_pass_through(rw):
    """exec is exposed: the Upgrade request reaches the upstream, whose
    answer (the pod has no node) comes back; portforward is not: 404."""
    r = erin(rw, "exec", "pending", "--", "true", check=False)
    assert r.returncode != 0
    assert "pod pending does not have a host assigned" in r.stderr, r.stderr
    r = rw_call(rw, "POST", "pods/pending/exec?command=true&stdout=1",
                headers={"Connection": "Upgrade",
                         "Upgrade": "SPDY/3.1",
                         "X-Stream-Protocol-Version": "v4.channel.k8s.io"})
    assert_status(r, 400, "BadRequest",
                  "pod pending does not have a host assigned")
    r = rw_call(rw, "POST", "pods/pending/portforward",
                headers={"Connection": "Upgrade", "Upgrade": "SPDY/3.1"})
    assert_status(r, 404, "NotFound")


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
        yield types.SimpleNamespace(srv=srv, ext=ext, token=token)
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



def test_token_file_rotated_without_a_reload(recorded):
    """The token file is read again when it changes (renamed over, as a
    projected token is), by every worker, as client-go re-reads it."""
    def rotate(token):
        tmp = recorded.token + ".new"
        with open(tmp, "w") as f:
            f.write(token + "\n")
        os.replace(tmp, recorded.token)

    def sent():
        assert widgets(recorded).status == 200
        return [v for k, v in last_headers(recorded)
                if k == "authorization"]

    rotate("rotated-token")
    try:
        # both workers: every request after the change carries it
        assert eventually(lambda: all(
            sent() == ["Bearer rotated-token"] for _ in range(6)), 30), \
            sent()
        # a file emptied mid-rotation keeps the last token
        with open(recorded.token, "w") as f:
            f.write("")
        for _ in range(4):
            assert sent() == ["Bearer rotated-token"]
    finally:
        rotate(FRONT_TOKEN)
    assert eventually(lambda: all(
        sent() == ["Bearer " + FRONT_TOKEN] for _ in range(6)), 30), sent()


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
