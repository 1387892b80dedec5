"""RBAC with real clients: the bootstrap policy (admin, edit, view
aggregated by the controller), kubectl's typed `create role|rolebinding|
clusterrole|clusterrolebinding` (protobuf bodies), users bound to the
aggregated roles allowed and denied as RBAC says through kubectl and the
Python client, escalation prevention, aggregation following labels within
a second, `kubectl auth can-i` (--list), the review APIs through the
Python client, and every worker deciding alike.

The identities x verbs x resources matrix of authentication lives in
test_authn_rbac.py; this suite is about the policy."""

import json

import pytest

from gcp_http import call
from gcp_server import GcpServer
from gcp_wait import eventually

TOKENS = ("tok-viewer,viewer,uid-viewer\n"
          "tok-editor,editor,uid-editor\n"
          "tok-nsadmin,nsadmin,uid-nsadmin\n"
          "tok-nobody,nobody,uid-nobody\n"
          "tok-swap,swapper,uid-swapper\n")

NS = "proj"
AUTHZ = "/apis/authorization.k8s.io/v1"


@pytest.fixture(scope="module")
def srv():
    # reuseport: the kernel spreads new connections over both workers
    # (test_every_worker_decides_alike)
    s = GcpServer(workers=2, tls=True, authz="RBAC", token_file=TOKENS,
                  listen_params="reuseport").start()
    try:
        s.kubectl("create", "namespace", NS)
        s.kubectl("create", "configmap", "c0", "-n", NS)
        s.kubectl("create", "secret", "generic", "s0", "-n", NS)
        for user, role in (("viewer", "view"), ("editor", "edit"),
                           ("nsadmin", "admin")):
            s.kubectl("create", "rolebinding", user, "--clusterrole", role,
                      "--user", user, "-n", NS)
        # admin, edit and view get their rules from the aggregation
        # controller
        assert eventually(lambda: len(rules_of(s, "admin")) == 25, 5)
        yield s
    finally:
        s.stop()


def rules_of(srv, clusterrole):
    """The ClusterRole's rules, read over HTTP as the admin (a kubectl
    process per poll would take longer than the delays measured)."""
    c = srv.connection()
    try:
        r = call(srv, "GET", "/apis/rbac.authorization.k8s.io/v1/"
                 "clusterroles/" + clusterrole, conn=c)
    finally:
        c.close()
    assert r.status == 200, r
    return r.json.get("rules") or []


@pytest.fixture(scope="module")
def kc(srv):
    """user -> kubeconfig."""
    users = {u: srv.user_kubeconfig(u, token="tok-" + u)
             for u in ("viewer", "editor", "nsadmin", "nobody")}
    users["admin"] = srv.kubeconfig
    return users


# ---------------------------------------------------------------- policy


def test_bootstrap_policy(srv):
    out = srv.kubectl("get", "clusterroles", "-o", "name").stdout.split()
    for name in ("admin", "cluster-admin", "edit", "view",
                 "system:aggregate-to-admin", "system:aggregate-to-edit",
                 "system:aggregate-to-view", "system:basic-user",
                 "system:discovery", "system:public-info-viewer"):
        assert "clusterrole.rbac.authorization.k8s.io/" + name in out

    crb = json.loads(srv.kubectl("get", "clusterrolebinding",
                                 "cluster-admin", "-o", "json").stdout)
    assert crb["subjects"] == [{"kind": "Group",
                                "apiGroup": "rbac.authorization.k8s.io",
                                "name": "system:masters"}]
    assert crb["metadata"]["labels"] == {
        "kubernetes.io/bootstrapping": "rbac-defaults"}

    # view aggregates aggregate-to-view; edit view and aggregate-to-edit
    view = rules_of(srv, "view")
    assert view == rules_of(srv, "system:aggregate-to-view")
    assert rules_of(srv, "edit") == (rules_of(srv, "system:aggregate-to-edit")
                                     + view)


def test_typed_create_commands(srv):
    # kubectl's typed generators send protobuf
    p = srv.kubectl("create", "role", "r1", "-n", NS, "--verb", "get,list",
                    "--resource", "configmaps,secrets",
                    "--resource-name", "c0")
    assert p.stdout == "role.rbac.authorization.k8s.io/r1 created\n"
    role = json.loads(srv.kubectl("get", "role", "r1", "-n", NS, "-o",
                                  "json").stdout)
    assert role["rules"] == [
        {"verbs": ["get", "list"], "apiGroups": [""],
         "resources": ["configmaps", "secrets"], "resourceNames": ["c0"]}]

    p = srv.kubectl("create", "clusterrole", "cr1", "--verb", "get",
                    "--non-resource-url", "/logs/*")
    assert p.stdout == "clusterrole.rbac.authorization.k8s.io/cr1 created\n"
    p = srv.kubectl("create", "clusterrole", "cr-agg", "--aggregation-rule",
                    "e2e.example.com/agg=true")
    assert p.returncode == 0

    p = srv.kubectl("create", "rolebinding", "rb1", "-n", NS, "--role",
                    "r1", "--user", "u1", "--group", "g1",
                    "--serviceaccount", NS + ":sa1")
    assert p.stdout == "rolebinding.rbac.authorization.k8s.io/rb1 created\n"
    p = srv.kubectl("create", "clusterrolebinding", "crb1", "--clusterrole",
                    "cr1", "--user", "u1")
    assert p.stdout == ("clusterrolebinding.rbac.authorization.k8s.io/crb1 "
                        "created\n")

    rb = json.loads(srv.kubectl("get", "rolebinding", "rb1", "-n", NS, "-o",
                                "json").stdout)
    assert rb["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io",
                             "kind": "Role", "name": "r1"}
    assert rb["subjects"] == [
        {"kind": "User", "apiGroup": "rbac.authorization.k8s.io",
         "name": "u1"},
        {"kind": "Group", "apiGroup": "rbac.authorization.k8s.io",
         "name": "g1"},
        {"kind": "ServiceAccount", "name": "sa1", "namespace": NS}]

    # the Table (kubectl get -o wide)
    out = srv.kubectl("get", "rolebinding", "rb1", "-n", NS, "-o",
                      "wide").stdout.split("\n")
    assert out[0].split() == ["NAME", "ROLE", "AGE", "USERS", "GROUPS",
                              "SERVICEACCOUNTS"]
    cells = out[1].split()
    assert cells[:2] == ["rb1", "Role/r1"]
    assert cells[3:] == ["u1", "g1", NS + "/sa1"]

    # a second create of the same name
    p = srv.kubectl("create", "role", "r1", "-n", NS, "--verb", "get",
                    "--resource", "configmaps", check=False)
    assert p.returncode != 0
    assert ('roles.rbac.authorization.k8s.io "r1" already exists'
            in p.stderr)

    for args in (("role", "r1", "-n", NS), ("rolebinding", "rb1", "-n", NS),
                 ("clusterrole", "cr1"), ("clusterrole", "cr-agg"),
                 ("clusterrolebinding", "crb1")):
        srv.kubectl("delete", *args)


# what -> (kubectl args, python call, users allowed)
ACTIONS = {
    "list-configmaps": (
        ["get", "configmaps", "-n", NS],
        lambda core, rbac: core.list_namespaced_config_map(NS),
        {"admin", "viewer", "editor", "nsadmin"}),
    "get-secret": (
        ["get", "secret", "s0", "-n", NS],
        lambda core, rbac: core.read_namespaced_secret("s0", NS),
        {"admin", "editor", "nsadmin"}),
    "create-configmap": (
        ["create", "configmap", "x", "-n", NS, "--dry-run=server"],
        lambda core, rbac: core.create_namespaced_config_map(
            NS, {"metadata": {"name": "x"}}, dry_run="All"),
        {"admin", "editor", "nsadmin"}),
    "create-role": (
        ["create", "role", "x", "-n", NS, "--verb", "get", "--resource",
         "configmaps", "--dry-run=server"],
        lambda core, rbac: rbac.create_namespaced_role(
            NS, {"metadata": {"name": "x"}, "rules": [
                {"apiGroups": [""], "resources": ["configmaps"],
                 "verbs": ["get"]}]}, dry_run="All"),
        {"admin", "nsadmin"}),
    "list-rolebindings": (
        ["get", "rolebindings", "-n", NS],
        lambda core, rbac: rbac.list_namespaced_role_binding(NS),
        {"admin", "nsadmin"}),
    "list-configmaps-default": (
        ["get", "configmaps", "-n", "default"],
        lambda core, rbac: core.list_namespaced_config_map("default"),
        {"admin"}),
    "delete-namespace": (
        ["delete", "namespace", NS, "--dry-run=server"],
        lambda core, rbac: core.delete_namespace(NS, dry_run="All"),
        {"admin"}),
    "list-clusterroles": (
        ["get", "clusterroles"],
        lambda core, rbac: rbac.list_cluster_role(),
        {"admin"}),
}

USERS = ("admin", "viewer", "editor", "nsadmin", "nobody")


@pytest.mark.parametrize("who", USERS)
@pytest.mark.parametrize("what", sorted(ACTIONS))
def test_aggregated_roles_kubectl(srv, kc, who, what):
    args, _, allowed = ACTIONS[what]
    p = srv.kubectl(*args, kubeconfig=kc[who], check=False)
    if who in allowed:
        assert p.returncode == 0, p.stderr
    else:
        assert p.returncode != 0
        assert "is forbidden: User \"%s\" cannot " % who in p.stderr


@pytest.mark.parametrize("who", USERS)
@pytest.mark.parametrize("what", sorted(ACTIONS))
def test_aggregated_roles_python(srv, kc, who, what):
    from kubernetes import client
    from kubernetes.client.rest import ApiException
    _, fn, allowed = ACTIONS[what]
    with srv.api_client(kc[who]) as api:
        core = client.CoreV1Api(api)
        rbac = client.RbacAuthorizationV1Api(api)
        if who in allowed:
            fn(core, rbac)
            return
        with pytest.raises(ApiException) as e:
            fn(core, rbac)
    assert e.value.status == 403
    body = json.loads(e.value.body)
    assert body["reason"] == "Forbidden"
    assert "is forbidden: User \"%s\" cannot " % who in body["message"]


# ---------------------------------------------------------------- escalation


def test_escalation_refused(srv, kc):
    # a namespace admin may grant what admin holds, not more
    p = srv.kubectl("create", "role", "too-much", "-n", NS, "--verb",
                    "get,delete", "--resource", "namespaces",
                    kubeconfig=kc["nsadmin"], check=False)
    assert p.returncode != 0
    assert p.stderr == (
        'Error from server (Forbidden): roles.rbac.authorization.k8s.io '
        '"too-much" is forbidden: user "nsadmin" (groups=['
        '"system:authenticated"]) is attempting to grant RBAC permissions '
        'not currently held:\n{APIGroups:[""], Resources:["namespaces"], '
        'Verbs:["delete"]}\n')

    # binding edit: admin covers it
    srv.kubectl("create", "rolebinding", "e2", "-n", NS, "--clusterrole",
                "edit", "--user", "someone", kubeconfig=kc["nsadmin"])

    # binding cluster-admin: refused, every missing rule listed
    p = srv.kubectl("create", "rolebinding", "grab", "-n", NS,
                    "--clusterrole", "cluster-admin", "--user", "nsadmin",
                    kubeconfig=kc["nsadmin"], check=False)
    assert p.returncode != 0
    assert ('rolebindings.rbac.authorization.k8s.io "grab" is forbidden: '
            'user "nsadmin" (groups=["system:authenticated"]) is attempting '
            'to grant RBAC permissions not currently held:\n'
            '{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n'
            '{NonResourceURLs:["*"], Verbs:["*"]}') in p.stderr

    # the escalation 403 through the Python client; no nosniff (as
    # upstream: it comes from the registry, not the authorization filter)
    r = call(srv, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/"
             + NS + "/roles",
             {"metadata": {"name": "secret-lister"},
              "rules": [{"apiGroups": [""], "resources": ["secrets"],
                         "verbs": ["list", "deletecollection"]}]},
             conn=srv.connection(None),
             headers={"Authorization": "Bearer tok-editor"})
    assert r.status == 403
    # an editor may not write roles at all: the authorization filter
    assert r.header("x-content-type-options") == "nosniff"

    r = call(srv, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/"
             + NS + "/roles",
             {"metadata": {"name": "secret-lister"},
              "rules": [{"apiGroups": [""], "resources": ["secrets"],
                         "verbs": ["list", "escalate"]}]},
             conn=srv.connection(None),
             headers={"Authorization": "Bearer tok-nsadmin"})
    assert r.status == 403
    assert r.header("x-content-type-options") is None
    assert r.json["details"] == {"name": "secret-lister",
                                 "group": "rbac.authorization.k8s.io",
                                 "kind": "roles"}
    assert r.json["message"].endswith(
        '{APIGroups:[""], Resources:["secrets"], Verbs:["escalate"]}')

    # cluster-wide grants need cluster-wide rights
    p = srv.kubectl("create", "clusterrolebinding", "grab", "--clusterrole",
                    "view", "--user", "nsadmin", kubeconfig=kc["nsadmin"],
                    check=False)
    assert ('clusterrolebindings.rbac.authorization.k8s.io is forbidden: '
            'User "nsadmin" cannot create resource "clusterrolebindings" in '
            'API group "rbac.authorization.k8s.io" at the cluster scope'
            in p.stderr)

    srv.kubectl("delete", "rolebinding", "e2", "-n", NS)


def test_bind_and_escalate_verbs(srv, kc):
    # "bind" on one ClusterRole lets a user bind it without holding it
    srv.kubectl("create", "clusterrole", "bind-view", "--verb", "bind",
                "--resource", "clusterroles", "--resource-name", "view")
    srv.kubectl("create", "role", "rb-writer", "-n", NS, "--verb",
                "create,delete", "--resource", "rolebindings")
    srv.kubectl("create", "rolebinding", "swapper-bind", "-n", NS,
                "--clusterrole", "bind-view", "--user", "swapper")
    srv.kubectl("create", "rolebinding", "swapper-rb", "-n", NS, "--role",
                "rb-writer", "--user", "swapper")
    swap = srv.user_kubeconfig("swapper", token="tok-swap")

    def bind(name, role):
        return srv.kubectl("create", "rolebinding", name, "-n", NS,
                           "--clusterrole", role, "--user", "x",
                           kubeconfig=swap, check=False)

    assert eventually(lambda: bind("x-view", "view").returncode == 0)
    p = bind("x-edit", "edit")
    assert p.returncode != 0
    assert "is attempting to grant RBAC permissions" in p.stderr

    for args in (("rolebinding", "x-view"), ("rolebinding", "swapper-bind"),
                 ("rolebinding", "swapper-rb"), ("role", "rb-writer")):
        srv.kubectl("delete", "-n", NS, *args)
    srv.kubectl("delete", "clusterrole", "bind-view")


# ---------------------------------------------------------------- aggregation


def test_aggregation_follows_labels(srv):
    srv.kubectl("create", "clusterrole", "agg-target", "--aggregation-rule",
                "e2e.example.com/agg-target=true")
    srv.kubectl("create", "clusterrole", "agg-src", "--verb", "get,list",
                "--resource", "configmaps")

    # the label added: the rules follow within a second
    srv.kubectl("label", "clusterrole", "agg-src",
                "e2e.example.com/agg-target=true")
    assert eventually(lambda: rules_of(srv, "agg-target") == [
        {"verbs": ["get", "list"], "apiGroups": [""],
         "resources": ["configmaps"]}], 1.0)

    # the source's rules change
    srv.kubectl("patch", "clusterrole", "agg-src", "--type", "merge", "-p",
                json.dumps({"rules": [{"apiGroups": [""],
                                       "resources": ["secrets"],
                                       "verbs": ["get"]}]}))
    assert eventually(lambda: rules_of(srv, "agg-target") == [
        {"verbs": ["get"], "apiGroups": [""], "resources": ["secrets"]}],
        1.0)

    # the label removed: the rules go
    srv.kubectl("label", "clusterrole", "agg-src",
                "e2e.example.com/agg-target-")
    assert eventually(lambda: rules_of(srv, "agg-target") == [], 1.0)

    # a ClusterRole created with the label, then deleted
    srv.kubectl("apply", "-f", "-", input=json.dumps({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": "agg-new",
                     "labels": {"e2e.example.com/agg-target": "true"}},
        "rules": [{"apiGroups": ["coordination.k8s.io"],
                   "resources": ["leases"], "verbs": ["watch"]}]}))
    assert eventually(lambda: rules_of(srv, "agg-target") == [
        {"verbs": ["watch"], "apiGroups": ["coordination.k8s.io"],
         "resources": ["leases"]}], 1.0)
    srv.kubectl("delete", "clusterrole", "agg-new")
    assert eventually(lambda: rules_of(srv, "agg-target") == [], 1.0)

    srv.kubectl("delete", "clusterrole", "agg-src", "agg-target")


def test_aggregated_permission_is_enforced(srv, kc):
    # a CRD-style extension of view, as operators install them
    srv.kubectl("create", "clusterrole", "view-leases", "--verb",
                "get,list", "--resource", "leases.coordination.k8s.io")
    srv.kubectl("label", "clusterrole", "view-leases",
                "rbac.authorization.k8s.io/aggregate-to-view=true")
    args = ["get", "leases", "-n", NS]
    assert eventually(lambda: srv.kubectl(*args, kubeconfig=kc["viewer"],
                                          check=False).returncode == 0)
    srv.kubectl("delete", "clusterrole", "view-leases")
    assert eventually(lambda: srv.kubectl(*args, kubeconfig=kc["viewer"],
                                          check=False).returncode != 0)


# ---------------------------------------------------------------- can-i


def test_can_i(srv, kc):
    def can_i(who, *args):
        p = srv.kubectl("auth", "can-i", *args, kubeconfig=kc[who],
                        check=False)
        return p.returncode, p.stdout.strip()

    assert can_i("editor", "create", "configmaps", "-n", NS) == (0, "yes")
    assert can_i("viewer", "create", "configmaps", "-n", NS) == (1, "no")
    assert can_i("viewer", "list", "configmaps", "-n", NS) == (0, "yes")
    assert can_i("viewer", "get", "secrets", "-n", NS) == (1, "no")
    assert can_i("nsadmin", "create", "rolebindings", "-n", NS) == (0, "yes")
    assert can_i("nsadmin", "create", "rolebindings", "-n",
                 "default") == (1, "no")
    assert can_i("viewer", "get", "namespaces/status", "-n", NS) == (0,
                                                                     "yes")
    assert can_i("nobody", "get", "/healthz") == (0, "yes")
    assert can_i("nobody", "get", "/metrics") == (1, "no")
    assert can_i("admin", "escalate", "roles", "-n", NS) == (0, "yes")

    # the admin asking about another user (impersonation)
    p = srv.kubectl("auth", "can-i", "get", "secrets", "-n", NS, "--as",
                    "viewer", check=False)
    assert (p.returncode, p.stdout.strip()) == (1, "no")


def test_can_i_list(srv, kc):
    out = srv.kubectl("auth", "can-i", "--list", "-n", NS,
                      kubeconfig=kc["viewer"]).stdout
    lines = [line.split() for line in out.strip().split("\n")]
    assert lines[0] == ["Resources", "Non-Resource", "URLs", "Resource",
                        "Names", "Verbs"]
    assert ["configmaps", "[]", "[]", "[get", "list", "watch]"] in lines
    assert ["selfsubjectaccessreviews.authorization.k8s.io", "[]", "[]",
            "[create]"] in lines
    assert ["[/healthz]", "[]", "[get]"] in lines
    assert not [row for row in lines if row[0] == "secrets"]

    # nobody: only what every authenticated user has
    out = srv.kubectl("auth", "can-i", "--list", "-n", NS,
                      kubeconfig=kc["nobody"]).stdout
    resources = [line.split()[0] for line in out.strip().split("\n")[1:]
                 if not line.startswith(" ")]
    assert sorted(resources) == [
        "selfsubjectaccessreviews.authorization.k8s.io",
        "selfsubjectreviews.authentication.k8s.io",
        "selfsubjectrulesreviews.authorization.k8s.io"]


# ---------------------------------------------------------------- reviews


def test_review_apis_python(srv, kc):
    from kubernetes import client

    def ssar(who, verb, resource, ns=NS):
        with srv.api_client(kc[who]) as api:
            az = client.AuthorizationV1Api(api)
            r = az.create_self_subject_access_review(
                client.V1SelfSubjectAccessReview(
                    spec=client.V1SelfSubjectAccessReviewSpec(
                        resource_attributes=client.V1ResourceAttributes(
                            namespace=ns, verb=verb, resource=resource))))
            return r.status

    st = ssar("editor", "create", "configmaps")
    assert st.allowed is True
    assert st.reason == ('RBAC: allowed by RoleBinding "editor/proj" of '
                         'ClusterRole "edit" to User "editor"')
    assert ssar("viewer", "create", "configmaps").allowed is False
    assert ssar("admin", "delete", "namespaces", "").allowed is True

    with srv.api_client() as api:
        az = client.AuthorizationV1Api(api)
        r = az.create_subject_access_review(client.V1SubjectAccessReview(
            spec=client.V1SubjectAccessReviewSpec(
                user="viewer", groups=["system:authenticated"],
                resource_attributes=client.V1ResourceAttributes(
                    namespace=NS, verb="list", resource="configmaps"))))
        assert r.status.allowed is True

        r = az.create_subject_access_review(client.V1SubjectAccessReview(
            spec=client.V1SubjectAccessReviewSpec(
                user="viewer", non_resource_attributes=client.
                V1NonResourceAttributes(path="/version", verb="get"))))
        assert r.status.allowed is False

    # a namespace admin may ask about its namespace
    with srv.api_client(kc["nsadmin"]) as api:
        az = client.AuthorizationV1Api(api)
        r = az.create_namespaced_local_subject_access_review(
            NS, client.V1LocalSubjectAccessReview(
                spec=client.V1SubjectAccessReviewSpec(
                    user="editor",
                    resource_attributes=client.V1ResourceAttributes(
                        namespace=NS, verb="delete",
                        resource="configmaps"))))
        assert r.status.allowed is True
        assert r.metadata.namespace == NS

        rr = az.create_self_subject_rules_review(
            client.V1SelfSubjectRulesReview(
                spec=client.V1SelfSubjectRulesReviewSpec(namespace=NS)))
        assert rr.status.incomplete is False
        assert any("roles" in (r.resources or []) and "create" in r.verbs
                   for r in rr.status.resource_rules)


# ---------------------------------------------------------------- workers


def test_every_worker_decides_alike(srv):
    """New connections spread over both workers (reuseport: 32 of them
    all on one worker is a 1 in 2**31 chance): each worker's index
    follows the store, so all of them allow, then all deny."""
    path = "/api/v1/namespaces/%s/configmaps" % NS
    auth = {"Authorization": "Bearer tok-nobody"}

    def statuses():
        return {call(srv, "GET", path, conn=srv.connection(None),
                     headers=auth).status for _ in range(32)}

    assert statuses() == {403}
    srv.kubectl("create", "rolebinding", "nobody-view", "-n", NS,
                "--clusterrole", "view", "--user", "nobody")
    assert eventually(lambda: statuses() == {200})
    srv.kubectl("delete", "rolebinding", "nobody-view", "-n", NS)
    assert eventually(lambda: statuses() == {403})
