"""Identities x verbs x resources with RBAC: each identity (the admin's
certificate, a static token user, a certificate user in a group, a
service account, anonymous, impersonated users) authenticated over TLS,
then allowed or denied as its bindings say, with kube-apiserver's 403s,
through kubectl and the Python client."""

import json

import pytest

from gcp_http import call
from gcp_wait import eventually
from gcp_server import GcpServer

TOKENS = ("tok-alice,alice,uid-alice\n"
          "tok-anchor,anchor-user,uid-anchor-user\n"
          "tok-carol,carol,uid-carol\n")

NS = "team"
SSR = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
SSR_BODY = {"apiVersion": "authentication.k8s.io/v1",
            "kind": "SelfSubjectReview"}

POLICY = """
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: cm-reader, namespace: team}
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: cm-readers, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: cm-reader}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}
- {apiGroup: rbac.authorization.k8s.io, kind: Group, name: readers}
- {kind: ServiceAccount, name: robot, namespace: team}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: impersonate-jane}
rules:
- apiGroups: [""]
  resources: [users]
  verbs: [impersonate]
  resourceNames: [jane]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: alice-impersonates-jane}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole,
          name: impersonate-jane}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}
"""


@pytest.fixture(scope="module")
def srv():
    s = GcpServer(workers=2, tls=True, authz="RBAC",
                  token_file=TOKENS).start()
    try:
        s.kubectl("create", "namespace", NS)
        s.kubectl("create", "sa", "robot", "-n", NS)
        s.kubectl("create", "configmap", "c0", "-n", NS)
        s.kubectl("apply", "-f", "-", input=POLICY)
        yield s
    finally:
        s.stop()


@pytest.fixture(scope="module")
def ids(srv):
    """name -> (kubeconfig, extra kubectl args, user name in 403s)."""
    robot = srv.kubectl("create", "token", "robot", "-n",
                        NS).stdout.strip()
    bob = srv.client_cert("bob", "bob", "readers")
    return {
        "admin": (srv.kubeconfig, [], "kubernetes-admin"),
        "alice": (srv.user_kubeconfig("alice", token="tok-alice"), [],
                  "alice"),
        "bob": (srv.user_kubeconfig("bob", cert=bob), [], "bob"),
        "robot": (srv.user_kubeconfig("robot", token=robot), [],
                  "system:serviceaccount:team:robot"),
        "anonymous": (srv.user_kubeconfig("anon"), [], "system:anonymous"),
        "admin-as-alice": (srv.kubeconfig, ["--as", "alice"], "alice"),
        "admin-as-nobody": (srv.kubeconfig, ["--as", "nobody"], "nobody"),
        "alice-as-jane": (srv.user_kubeconfig("alice", token="tok-alice"),
                          ["--as", "jane"], "jane"),
    }


# (what, kubectl args, python call, 403 message after "User X cannot ")
CHECKS = {
    "list-cm-team": (
        ["get", "configmaps", "-n", NS],
        lambda core: core.list_namespaced_config_map(NS),
        'configmaps is forbidden: User "%s" cannot list resource '
        '"configmaps" in API group "" in the namespace "team"'),
    "get-cm-team": (
        ["get", "configmap", "c0", "-n", NS],
        lambda core: core.read_namespaced_config_map("c0", NS),
        'configmaps "c0" is forbidden: User "%s" cannot get resource '
        '"configmaps" in API group "" in the namespace "team"'),
    "create-cm-team": (
        ["create", "configmap", "x", "-n", NS, "--dry-run=server"],
        lambda core: core.create_namespaced_config_map(
            NS, {"metadata": {"name": "x"}}, dry_run="All"),
        'configmaps is forbidden: User "%s" cannot create resource '
        '"configmaps" in API group "" in the namespace "team"'),
    "list-namespaces": (
        ["get", "namespaces"],
        lambda core: core.list_namespace(),
        'namespaces is forbidden: User "%s" cannot list resource '
        '"namespaces" in API group "" at the cluster scope'),
    "list-cm-default": (
        ["get", "configmaps", "-n", "default"],
        lambda core: core.list_namespaced_config_map("default"),
        'configmaps is forbidden: User "%s" cannot list resource '
        '"configmaps" in API group "" in the namespace "default"'),
}

READERS = {"admin", "alice", "bob", "robot", "admin-as-alice",
           "alice-as-jane"}

ALLOWED = {
    "list-cm-team": READERS - {"alice-as-jane"},
    "get-cm-team": READERS - {"alice-as-jane"},
    "create-cm-team": {"admin"},
    "list-namespaces": {"admin"},
    "list-cm-default": {"admin"},
}

MATRIX = [(who, what) for who in ("admin", "alice", "bob", "robot",
                                  "anonymous", "admin-as-alice",
                                  "admin-as-nobody", "alice-as-jane")
          for what in CHECKS]


@pytest.mark.parametrize("who,what", MATRIX)
def test_matrix_kubectl(srv, ids, who, what):
    kubeconfig, extra, user = ids[who]
    args, _, msg = CHECKS[what]
    p = srv.kubectl(*(extra + args), kubeconfig=kubeconfig, check=False)
    if who in ALLOWED[what]:
        assert p.returncode == 0, p.stderr
    else:
        assert p.returncode != 0
        assert msg % user in p.stderr, p.stderr


@pytest.mark.parametrize("who,what", [m for m in MATRIX
                                      if "-as-" not in m[0]])
def test_matrix_python(srv, ids, who, what):
    from kubernetes import client
    from kubernetes.client.rest import ApiException
    kubeconfig, _, user = ids[who]
    _, fn, msg = CHECKS[what]
    with srv.api_client(kubeconfig) as api:
        core = client.CoreV1Api(api)
        if who in ALLOWED[what]:
            fn(core)
            return
        with pytest.raises(ApiException) as e:
            fn(core)
    assert e.value.status == 403
    body = json.loads(e.value.body)
    assert body["message"] == msg % user
    assert body["reason"] == "Forbidden"


def test_whoami_for_every_authenticated_user(srv, ids):
    """system:basic-user lets every authenticated user ask who it is."""
    for who in ("alice", "bob", "robot", "alice-as-jane"):
        kubeconfig, extra, user = ids[who]
        out = srv.kubectl("auth", "whoami", "-o", "json", *extra,
                          kubeconfig=kubeconfig).stdout
        assert json.loads(out)["status"]["userInfo"]["username"] == user


def test_anonymous(srv, ids):
    # 08-ssr-whoami-anonymous
    r = call(srv, "POST", SSR, SSR_BODY, conn=srv.connection(None))
    assert r.status == 403
    assert r.header("x-content-type-options") == "nosniff"
    assert r.json == {
        "kind": "Status", "apiVersion": "v1", "metadata": {},
        "status": "Failure",
        "message": 'selfsubjectreviews.authentication.k8s.io is forbidden: '
                   'User "system:anonymous" cannot create resource '
                   '"selfsubjectreviews" in API group '
                   '"authentication.k8s.io" at the cluster scope',
        "reason": "Forbidden",
        "details": {"group": "authentication.k8s.io",
                    "kind": "selfsubjectreviews"},
        "code": 403}

    # 01-discovery-api-anonymous, 01-discovery-version-anonymous
    r = call(srv, "GET", "/api", conn=srv.connection(None))
    assert r.status == 403
    assert r.json["message"] == ('forbidden: User "system:anonymous" cannot '
                                 'get path "/api"')
    assert call(srv, "GET", "/version",
                conn=srv.connection(None)).status == 200
    assert call(srv, "GET", "/healthz",
                conn=srv.connection(None)).status == 200


def test_impersonation_rbac(srv, ids):
    # 08-impersonate-user-allowed: the admin as anchor-user gets its 403
    r = call(srv, "GET", "/api/v1/namespaces", conn=srv.connection(),
             headers={"Impersonate-User": "anchor-user"})
    assert r.status == 403
    assert r.json["message"] == (
        'namespaces is forbidden: User "anchor-user" cannot list resource '
        '"namespaces" in API group "" at the cluster scope')

    # 08-impersonate-denied
    r = call(srv, "GET", "/api/v1/namespaces", conn=srv.connection(None),
             headers={"Authorization": "Bearer tok-anchor",
                      "Impersonate-User": "anchor-admin"})
    assert r.status == 403
    assert r.header("x-content-type-options") == "nosniff"
    assert r.json["message"] == (
        'users "anchor-admin" is forbidden: User "anchor-user" cannot '
        'impersonate resource "users" in API group "" at the cluster scope')
    assert r.json["details"] == {"name": "anchor-admin", "kind": "users"}

    # alice may impersonate jane only (resourceNames)
    kubeconfig, _, _ = ids["alice"]
    p = srv.kubectl("get", "configmaps", "-n", NS, "--as", "joe",
                    kubeconfig=kubeconfig, check=False)
    assert p.returncode != 0
    assert ('users "joe" is forbidden: User "alice" cannot impersonate '
            'resource "users" in API group "" at the cluster scope'
            in p.stderr)

    # a group too needs its own permission
    r = call(srv, "POST", SSR, SSR_BODY, conn=srv.connection(None),
             headers={"Authorization": "Bearer tok-alice",
                      "Impersonate-User": "jane", "Impersonate-Group": "g"})
    assert r.status == 403
    assert r.json["message"] == (
        'groups "g" is forbidden: User "alice" cannot impersonate resource '
        '"groups" in API group "" at the cluster scope')


def test_service_account_token_denied(srv, ids):
    # 08-serviceaccount-token-request-denied: the token authenticates,
    # RBAC denies outside the binding
    kubeconfig, _, user = ids["robot"]
    p = srv.kubectl("get", "configmaps", "-n", "kube-system",
                    kubeconfig=kubeconfig, check=False)
    assert ('configmaps is forbidden: User "system:serviceaccount:team:'
            'robot" cannot list resource "configmaps" in API group "" in '
            'the namespace "kube-system"') in p.stderr

    # a service account may not ask for tokens of others without RBAC
    p = srv.kubectl("create", "token", "robot", "-n", NS,
                    kubeconfig=kubeconfig, check=False)
    assert p.returncode != 0
    assert ('serviceaccounts "robot" is forbidden: User "system:service'
            'account:team:robot" cannot create resource '
            '"serviceaccounts/token" in API group "" in the namespace '
            '"team"') in p.stderr


CAROL_ROLE = """
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: %(name)s, namespace: team}
rules:
- apiGroups: ["%(group)s"]
  resources: [%(resource)s]
  verbs: [%(verbs)s]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: %(name)ss, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: %(name)s}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: carol}
"""


def carol_role(name, group, resource, verbs):
    """A Role NAME in team and its RoleBinding NAMEs to carol."""
    return CAROL_ROLE % {"name": name, "group": group,
                         "resource": resource, "verbs": verbs}


def test_apply_that_creates_needs_create(srv, ids):
    """Server-side apply of an absent object is a create: upstream's patch
    handler asks the authorizer for create (withAuthorization) and refuses
    with NewForbidden(configmaps, name, reason); patch alone applies to
    objects that exist."""
    def apply(name, value, query=""):
        doc = {"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": name}, "data": {"k": value}}
        return call(srv, "PATCH", "/api/v1/namespaces/%s/configmaps/%s"
                    "?fieldManager=carol%s" % (NS, name, query),
                    json.dumps(doc),
                    content_type="application/apply-patch+yaml",
                    conn=srv.connection(None),
                    headers={"Authorization": "Bearer tok-carol"})

    srv.kubectl("apply", "-f", "-",
                input=carol_role("cm-applier", "", "configmaps", "get, patch"))
    eventually(lambda: apply("c0", "1").status == 200)

    for query in ("", "&dryRun=All"):
        r = apply("absent", "1", query)
        assert r.status == 403, r
        assert r.json["reason"] == "Forbidden"
        assert r.json["message"] == 'configmaps "absent" is forbidden: '
        assert r.json["details"] == {"name": "absent", "kind": "configmaps"}
    assert call(srv, "GET", "/api/v1/namespaces/%s/configmaps/absent" % NS,
                conn=srv.connection()).status == 404

    # kubectl shows the same words
    p = srv.kubectl("apply", "--server-side", "-n", NS, "-f", "-",
                    input=json.dumps({"apiVersion": "v1",
                                      "kind": "ConfigMap",
                                      "metadata": {"name": "absent"}}),
                    kubeconfig=srv.user_kubeconfig("carol",
                                                   token="tok-carol"),
                    check=False)
    assert p.returncode != 0
    assert 'configmaps "absent" is forbidden' in p.stderr

    # with create as well, the apply creates
    srv.kubectl("apply", "-f", "-",
                input=carol_role("cm-applier", "", "configmaps",
                                 "get, patch, create"))
    eventually(lambda: apply("absent", "2").status == 201)
    r = call(srv, "GET", "/api/v1/namespaces/%s/configmaps/absent" % NS,
             conn=srv.connection())
    assert r.json["data"] == {"k": "2"}
    srv.kubectl("delete", "-n", NS, "role/cm-applier",
                "rolebinding/cm-appliers")


def test_put_that_creates_needs_create(srv, ids):
    """A PUT of an absent Lease creates it (leases allow create on update):
    upstream's update handler asks the authorizer for create too
    (withAuthorization), and refuses with NewForbidden(leases, name,
    reason); update alone updates the leases that exist."""
    path = "/apis/coordination.k8s.io/v1/namespaces/%s/leases/" % NS

    def put(name, holder, query="", rv=None):
        meta = {"name": name}
        if rv:
            meta["resourceVersion"] = rv
        return call(srv, "PUT", path + name + query, {
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": meta, "spec": {"holderIdentity": holder}},
            conn=srv.connection(None),
            headers={"Authorization": "Bearer tok-carol"})

    r = call(srv, "POST", path, {"metadata": {"name": "l0"}},
             conn=srv.connection())
    assert r.status == 201, r
    srv.kubectl("apply", "-f", "-",
                input=carol_role("lease-updater", "coordination.k8s.io",
                                 "leases", "update"))
    # leases allow no unconditional update: the PUT names the version
    rv = r.json["metadata"]["resourceVersion"]
    assert eventually(lambda: put("l0", "carol", rv=rv).status == 200)

    for query in ("", "?dryRun=All"):
        r = put("absent", "carol", query)
        assert r.status == 403, r
        assert r.json["reason"] == "Forbidden"
        assert r.json["message"] == (
            'leases.coordination.k8s.io "absent" is forbidden: ')
        assert r.json["details"] == {"name": "absent",
                                     "group": "coordination.k8s.io",
                                     "kind": "leases"}
    assert call(srv, "GET", path + "absent",
                conn=srv.connection()).status == 404

    # with create as well, the PUT creates
    srv.kubectl("apply", "-f", "-",
                input=carol_role("lease-updater", "coordination.k8s.io",
                                 "leases", "update, create"))
    assert eventually(lambda: put("absent", "carol").status == 201)
    r = call(srv, "GET", path + "absent", conn=srv.connection())
    assert r.json["spec"] == {"holderIdentity": "carol"}
    srv.kubectl("delete", "-n", NS, "role/lease-updater",
                "rolebinding/lease-updaters")
