"""Service-account issuer discovery (/.well-known/openid-configuration and
/openid/v1/jwks), as kube-apiserver serves it: a system elsewhere verifies
a token from TokenRequest with these two documents alone; readable by
service accounts (system:service-account-issuer-discovery), not by
anonymous users unless bound; the Python client's WellKnownApi and
OpenidApi read them; a server whose issuer is not an https URL serves
neither."""

import ast
import base64
import json

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import (
    encode_dss_signature)
from kubernetes import client

from gcp_http import call
from gcp_server import GcpServer

# issuer discovery reads no store:
# run in the LMDB session only (conftest.py)
STORAGE_INDEPENDENT = True

ISSUER = "https://kubernetes.default.svc.cluster.local"
CONFIG = "/.well-known/openid-configuration"
JWKS = "/openid/v1/jwks"


@pytest.fixture(scope="module")
def srv():
    s = GcpServer(workers=2, tls=True).start()
    try:
        yield s
    finally:
        s.stop()


def b64d(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def as_user(srv, path, token=None, method="GET"):
    headers = {"Authorization": "Bearer " + token} if token else {}
    return call(srv, method, path, headers=headers,
                conn=srv.connection(None))


def sa_token(srv, name, *args):
    srv.kubectl("create", "sa", name, "-n", "default", check=False)
    return srv.kubectl("create", "token", name, "-n", "default",
                       *args).stdout.strip()


def verify(token, jwks):
    """Verifies token's signature with the key of jwks its kid names;
    returns its claims."""
    head, body, sig = token.split(".")
    header = json.loads(b64d(head))
    key = [k for k in jwks["keys"] if k["kid"] == header["kid"]]
    assert len(key) == 1, (header, jwks)
    key = key[0]
    assert key["use"] == "sig" and key["alg"] == header["alg"]
    signed = (head + "." + body).encode()
    if key["kty"] == "RSA":
        pub = rsa.RSAPublicNumbers(
            int.from_bytes(b64d(key["e"]), "big"),
            int.from_bytes(b64d(key["n"]), "big")).public_key()
        pub.verify(b64d(sig), signed, padding.PKCS1v15(), hashes.SHA256())
    else:
        assert key["crv"] == "P-256"
        pub = ec.EllipticCurvePublicNumbers(
            int.from_bytes(b64d(key["x"]), "big"),
            int.from_bytes(b64d(key["y"]), "big"),
            ec.SECP256R1()).public_key()
        raw = b64d(sig)
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"),
                                   int.from_bytes(raw[32:], "big"))
        pub.verify(der, signed, ec.ECDSA(hashes.SHA256()))
    return json.loads(b64d(body))


def test_a_token_verified_with_the_two_documents(srv):
    # the account reads the documents with a token for this API; the
    # system elsewhere gets one for its own audience
    token = sa_token(srv, "oidc-reader")
    theirs = sa_token(srv, "oidc-reader", "--audience",
                      "https://vault.example.com")

    r = as_user(srv, CONFIG, token)
    assert r.status == 200, r
    assert r.header("Content-Type") == "application/json"
    assert r.header("Cache-Control") == "public, max-age=3600"
    doc = json.loads(r.body)
    # the order and fields of kube-apiserver's document
    assert list(doc) == ["issuer", "jwks_uri", "response_types_supported",
                         "subject_types_supported",
                         "id_token_signing_alg_values_supported"]
    assert doc["issuer"] == ISSUER
    assert doc["jwks_uri"] == srv.url + JWKS
    assert doc["response_types_supported"] == ["id_token"]
    assert doc["subject_types_supported"] == ["public"]

    r = as_user(srv, JWKS, token)
    assert r.status == 200, r
    assert r.header("Content-Type") == "application/jwk-set+json"
    assert r.header("Cache-Control") == "public, max-age=3600"
    jwks = json.loads(r.body)
    assert doc["id_token_signing_alg_values_supported"] == sorted(
        {k["alg"] for k in jwks["keys"]})
    for k in jwks["keys"]:
        assert list(k)[:4] == ["use", "kty", "kid", "crv" if
                               k["kty"] == "EC" else "alg"]
        assert "d" not in k and "p" not in k        # public parts only

    claims = verify(theirs, jwks)
    assert claims["iss"] == doc["issuer"]
    assert claims["aud"] == ["https://vault.example.com"]
    assert claims["sub"] == "system:serviceaccount:default:oidc-reader"

    # a token altered after signing does not verify
    head, body, sig = theirs.split(".")
    forged = json.loads(b64d(body))
    forged["sub"] = "system:serviceaccount:kube-system:admin"
    body = base64.urlsafe_b64encode(
        json.dumps(forged).encode()).rstrip(b"=").decode()
    with pytest.raises(Exception):
        verify(".".join((head, body, sig)), jwks)


def test_who_may_read(srv):
    # anonymous requests are not bound to the role (as upstream)
    for path in (CONFIG, JWKS):
        r = as_user(srv, path)
        assert r.status == 403, r
        assert json.loads(r.body)["message"] == (
            'forbidden: User "system:anonymous" cannot get path "%s"'
            % path)
    # the bootstrap role and binding
    role = json.loads(srv.kubectl(
        "get", "clusterrole", "system:service-account-issuer-discovery",
        "-o", "json").stdout)
    assert role["rules"] == [{"nonResourceURLs": [
        "/.well-known/openid-configuration",
        "/.well-known/openid-configuration/", "/openid/v1/jwks",
        "/openid/v1/jwks/"], "verbs": ["get"]}]
    binding = json.loads(srv.kubectl(
        "get", "clusterrolebinding",
        "system:service-account-issuer-discovery", "-o", "json").stdout)
    assert binding["subjects"] == [{
        "apiGroup": "rbac.authorization.k8s.io", "kind": "Group",
        "name": "system:serviceaccounts"}]
    # a trailing slash is the same document; other methods are refused
    r = call(srv, "GET", JWKS + "/", conn=srv.connection("admin"))
    assert r.status == 200 and json.loads(r.body)["keys"]
    r = call(srv, "POST", CONFIG, {}, conn=srv.connection("admin"))
    assert r.status == 405


def test_root_paths_and_python_client(srv):
    r = call(srv, "GET", "/", conn=srv.connection("admin"))
    paths = json.loads(r.body)["paths"]
    assert CONFIG in paths and JWKS in paths

    with srv.api_client() as api:
        doc = client.WellKnownApi(
            api).get_service_account_issuer_open_id_configuration()
        keys = client.OpenidApi(
            api).get_service_account_issuer_open_id_keyset()
    # the client hands the documents over as the text of their values
    assert ast.literal_eval(doc)["issuer"] == ISSUER
    assert ast.literal_eval(keys)["keys"][0]["use"] == "sig"


def test_configured_jwks_uri():
    s = GcpServer(workers=1, tls=True, http_extra=(
        "gcp_service_account_jwks_uri https://keys.example.com/jwks;"))
    s.start()
    try:
        r = call(s, "GET", CONFIG, conn=s.connection("admin"))
        assert json.loads(r.body)["jwks_uri"] == (
            "https://keys.example.com/jwks")
    finally:
        s.stop()


def test_refused_jwks_uri():
    s = GcpServer(workers=1, tls=True, http_extra=(
        "gcp_service_account_jwks_uri http://keys.example.com/jwks;"))
    with pytest.raises(Exception) as refused:
        s.start(timeout=30)
    assert ("jwksURI requires https scheme, parsed as: "
            "http://keys.example.com/jwks") in str(refused.value) + s.logs()
    s.stop(check=False)


def test_not_served_without_an_https_issuer():
    s = GcpServer(workers=1, tls=True, http_extra=(
        "gcp_service_account_issuer ngx-gcp;"))
    s.start()
    try:
        for path in (CONFIG, JWKS):
            r = call(s, "GET", path, conn=s.connection("admin"))
            assert r.status == 404, r
        r = call(s, "GET", "/", conn=s.connection("admin"))
        assert CONFIG not in json.loads(r.body)["paths"]
    finally:
        s.stop()
