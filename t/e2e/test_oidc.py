"""OIDC/JWT authentication from an AuthenticationConfiguration
(gcp_authentication_config), against an issuer served by the test on
loopback (oidc_issuer.py: HTTPS with its own CA, discovery and JWKS):
kubectl with an issuer's token allowed or denied by RBAC as the mapped
user (prefixes, groups, uid), `kubectl auth whoami`, audience mismatch,
expired tokens, required claims, tokens of an unknown issuer falling
through to 401, every algorithm upstream accepts, keys rotated by the
issuer picked up without a reload by both workers, the key set cached,
and a bad configuration refused at start with the directive named."""

import json
import os
import subprocess

import pytest

from gcp_http import call
from gcp_server import GcpServer, GcpServerError
from gcp_wait import eventually
from oidc_issuer import Issuer

# JWT authentication happens before the store:
# run in the LMDB session only (conftest.py)
STORAGE_INDEPENDENT = True

NS = "team"
TR = "/apis/authentication.k8s.io/v1/tokenreviews"
ALGS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256",
        "ES384", "ES512")

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
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: "oidc:alice"}
- {apiGroup: rbac.authorization.k8s.io, kind: Group, name: "grp:readers"}
"""


def auth_config(issuer, audiences=("k8s",)):
    pem = "\n".join("      " + line for line in issuer.ca_pem.splitlines())
    return ("apiVersion: apiserver.config.k8s.io/v1beta1\n"
            "kind: AuthenticationConfiguration\n"
            "jwt:\n"
            "- issuer:\n"
            "    url: %s\n"
            "    audiences: [%s]\n"
            "    audienceMatchPolicy: MatchAny\n"
            "    certificateAuthority: |\n%s\n"
            "  claimValidationRules:\n"
            "  - claim: tenant\n"
            "    requiredValue: acme\n"
            "  claimMappings:\n"
            "    username: {claim: sub, prefix: 'oidc:'}\n"
            "    groups: {claim: groups, prefix: 'grp:'}\n"
            "    uid: {claim: uid}\n"
            % (issuer.url, ", ".join(audiences), pem))


def write(dir_, name, text):
    path = os.path.join(dir_, name)
    with open(path, "w") as f:
        f.write(text)
    return path


@pytest.fixture(scope="module")
def issuer():
    i = Issuer(algs=ALGS).start()
    try:
        yield i
    finally:
        i.stop()


@pytest.fixture(scope="module")
def srv(issuer):
    path = write(issuer.dir, "authn.yaml",
                 auth_config(issuer, audiences=("k8s", "other-api")))
    s = GcpServer(workers=2, tls=True, authz="RBAC",
                  http_extra="gcp_authentication_config %s;" % path)
    s.start(timeout=60)
    try:
        s.kubectl("create", "namespace", NS)
        s.kubectl("create", "configmap", "c0", "-n", NS)
        s.kubectl("apply", "-f", "-", input=POLICY)
        yield s
    finally:
        s.stop()


def good(issuer, **claims):
    base = {"sub": "alice", "aud": "k8s", "tenant": "acme",
            "groups": ["devs"], "uid": "u-1"}
    base.update(claims)
    key = base.pop("key", None)
    return issuer.token(base, key=key)


def kubectl_as(srv, name, token, *args):
    kc = srv.user_kubeconfig(name, token=token)
    return srv.kubectl("--kubeconfig", kc, *args, check=False)


def status(srv, token, path="/api/v1/namespaces/team/configmaps"):
    r = call(srv, "GET", path, headers={"Authorization": "Bearer " + token},
             conn=srv.connection(None))
    return r.status


def review(srv, token, audiences=None):
    """The TokenReview status of token, asked as the admin."""
    spec = {"token": token}
    if audiences:
        spec["audiences"] = audiences
    r = call(srv, "POST", TR, body={
        "apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
        "spec": spec}, conn=srv.connection())
    assert r.status == 201, r
    return r.json["status"]


def test_rbac_allows_and_denies_the_mapped_user(srv, issuer):
    tok = good(issuer)
    r = kubectl_as(srv, "alice", tok, "get", "configmaps", "-n", NS, "-o",
                   "name")
    assert r.returncode == 0, r.stderr
    assert "configmap/c0" in r.stdout

    r = kubectl_as(srv, "alice", tok, "get", "secrets", "-n", NS)
    assert r.returncode != 0
    assert ('secrets is forbidden: User "oidc:alice" cannot list resource '
            '"secrets" in API group "" in the namespace "team"') in r.stderr

    # another user of the group grp:readers, by its groups claim only
    bob = good(issuer, sub="bob", groups="readers")
    r = kubectl_as(srv, "bob", bob, "get", "configmap", "c0", "-n", NS)
    assert r.returncode == 0, r.stderr

    carol = good(issuer, sub="carol", groups=["other"])
    r = kubectl_as(srv, "carol", carol, "get", "configmap", "c0", "-n", NS)
    assert r.returncode != 0
    assert 'User "oidc:carol" cannot get resource "configmaps"' in r.stderr


def test_whoami(srv, issuer):
    tok = good(issuer, jti="token-7")
    r = kubectl_as(srv, "alice", tok, "auth", "whoami", "-o", "json")
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)["status"]["userInfo"]
    assert info == {
        "username": "oidc:alice", "uid": "u-1",
        "groups": ["grp:devs", "system:authenticated"],
        "extra": {"authentication.kubernetes.io/credential-id":
                  ["JTI=token-7"]}}, info


def test_token_review(srv, issuer):
    st = review(srv, good(issuer, aud=["x", "other-api"]))
    assert st["authenticated"] is True
    assert st["user"]["username"] == "oidc:alice"
    assert st["audiences"] == [srv_api_audience(srv)]

    # audience-agnostic, as upstream: not for another audience
    st = review(srv, good(issuer), audiences=["vault"])
    assert st.get("authenticated") is not True
    assert st["error"] == "invalid bearer token"


def srv_api_audience(srv):
    """The API audience: the service-account issuer by default."""
    return "https://kubernetes.default.svc.cluster.local"


def test_audience_mismatch(srv, issuer):
    tok = good(issuer, aud=["nope", "zz"])
    assert status(srv, tok) == 401
    st = review(srv, tok)
    assert st.get("authenticated") is not True
    assert st["error"] == (
        '[invalid bearer token, oidc: verify token: oidc: expected audience '
        'in ["k8s" "other-api"] got ["nope" "zz"]]')


def test_expired_and_not_yet_valid(srv, issuer):
    tok = issuer.token({"sub": "alice", "aud": "k8s", "tenant": "acme"},
                       lifetime=-120)
    assert status(srv, tok) == 401
    st = review(srv, tok)
    assert st["error"].startswith(
        "[invalid bearer token, oidc: verify token: oidc: token is expired "
        "(Token Expiry: "), st

    # nbf has five minutes of leeway
    import time
    soon = good(issuer, nbf=int(time.time()) + 60)
    assert status(srv, soon) == 200
    late = good(issuer, nbf=int(time.time()) + 3600)
    assert status(srv, late) == 401
    assert "before the nbf (not before) time" in review(srv, late)["error"]


def test_required_claim_and_signature(srv, issuer):
    tok = good(issuer, tenant="evil")
    assert status(srv, tok) == 401
    assert review(srv, tok)["error"] == (
        "[invalid bearer token, oidc: required claim tenant value does not "
        "match. Got = evil, want = acme]")

    # a forged signature: the claims changed after signing
    head, body, sig = good(issuer).split(".")
    forged = issuer.token({"sub": "admin", "aud": "k8s",
                           "tenant": "acme"}).split(".")[1]
    tok = ".".join((head, forged, sig))
    assert status(srv, tok) == 401
    assert review(srv, tok)["error"] == (
        "[invalid bearer token, oidc: verify token: failed to verify "
        "signature: failed to verify id token signature]")


def test_unknown_issuer_falls_through(srv, issuer):
    other = Issuer()
    tok = other.token({"sub": "alice", "aud": "k8s", "tenant": "acme"})
    assert status(srv, tok) == 401
    assert review(srv, tok)["error"] == "invalid bearer token"


def test_every_algorithm(srv, issuer):
    for key in list(issuer.keys):
        tok = good(issuer, key=key)
        assert status(srv, tok) == 200, key.alg


def test_keys_cached(srv, issuer):
    tok = good(issuer)
    assert status(srv, tok) == 200
    before = issuer.count("jwks")
    for _ in range(20):
        assert status(srv, tok) == 200
    assert issuer.count("jwks") == before


def test_rotation_without_reload(srv, issuer):
    """The issuer replaces its keys: tokens of the new key are accepted by
    both workers (each fetches the new set when no key it knows verifies
    them), tokens of the old keys are refused."""
    old = good(issuer)
    assert status(srv, old) == 200
    pids = set(srv.worker_pids())

    new_key = issuer.rotate("ES256")
    new = good(issuer, key=new_key)

    def all_accept():
        return all(status(srv, new) == 200 for _ in range(8))

    assert eventually(all_accept, timeout=60, interval=0.5)
    assert set(srv.worker_pids()) == pids     # no reload happened

    assert eventually(lambda: all(status(srv, old) == 401
                                  for _ in range(8)),
                      timeout=60, interval=0.5)

    # kubectl with the new key's token
    r = kubectl_as(srv, "alice2", new, "get", "configmap", "c0", "-n", NS)
    assert r.returncode == 0, r.stderr


def test_bad_configuration_refused_at_start(issuer, tmp_path):
    bad = auth_config(issuer).replace("prefix: 'oidc:'", "").replace(
        "url: https://", "url: http://")
    path = write(str(tmp_path), "bad.yaml", bad)
    s = GcpServer(workers=1, http_extra="gcp_authentication_config %s;"
                  % path)
    with pytest.raises(GcpServerError) as e:
        s.start(timeout=60)
    msg = str(e.value)
    assert "gcp_authentication_config \"%s\": [jwt[0].issuer.url: Invalid " \
           "value: \"http://127.0.0.1:%d\": URL scheme must be https, " \
           "jwt[0].claimMappings.username.prefix: Required value: prefix " \
           "is required when claim is set. It can be set to an empty " \
           "string to disable prefixing]" % (path, issuer.port) in msg, msg

    cel = auth_config(issuer).replace(
        "username: {claim: sub, prefix: 'oidc:'}",
        "username: {expression: \"'x:' + claims.sub\"}")
    path = write(str(tmp_path), "cel.yaml", cel)
    s = GcpServer(workers=1, http_extra="gcp_authentication_config %s;"
                  % path)
    with pytest.raises(GcpServerError) as e:
        s.start(timeout=60)
    assert ("jwt[0].claimMappings.username.expression: Invalid value: "
            "\"'x:' + claims.sub\": CEL expressions are not supported by "
            "ngx_gcp yet") in str(e.value)
