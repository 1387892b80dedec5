"""Authentication over TLS, as make run serves it: HTTPS with HTTP/2, the
generated PKI, client certificates, static tokens, service-account tokens
(TokenRequest), the front proxy, anonymous requests and impersonation,
seen by kubectl (/usr/bin/kubectl) and the official Python client.

The servers here authorize with AlwaysAllow, so that every request shows
who it was authenticated as; test_authn_rbac.py runs the identities again
with RBAC."""

import base64
import json
import os
import stat
import subprocess
import time

import pytest

from gcp_http import assert_status, call
from gcp_server import GcpServer
from kubectl_watch import KubectlWatch

# authentication happens before the store:
# run in the LMDB session only (conftest.py)
STORAGE_INDEPENDENT = True

ISSUER = "https://kubernetes.default.svc.cluster.local"
SSR = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
SSR_BODY = {"apiVersion": "authentication.k8s.io/v1",
            "kind": "SelfSubjectReview"}

TOKENS = ('tok-alice,alice,uid-alice,"dev,ops"\n'
          'tok-plain,plain,uid-plain\n')

UNAUTHORIZED = {"kind": "Status", "apiVersion": "v1", "metadata": {},
                "status": "Failure", "message": "Unauthorized",
                "reason": "Unauthorized", "code": 401}


@pytest.fixture(scope="module")
def srv():
    s = GcpServer(workers=2, tls=True, authz="AlwaysAllow",
                  token_file=TOKENS).start()
    try:
        yield s
    finally:
        s.stop()


def whoami(srv, kubeconfig=None, *args):
    """kubectl auth whoami -o json: (username, groups, uid)."""
    out = srv.kubectl("auth", "whoami", "-o", "json", *args,
                      kubeconfig=kubeconfig).stdout
    info = json.loads(out)["status"]["userInfo"]
    return info.get("username"), info.get("groups"), info.get("uid")


def py_whoami(srv, kubeconfig=None):
    """The same through the Python client (POST selfsubjectreviews)."""
    with srv.api_client(kubeconfig) as api:
        data = api.call_api(SSR, "POST", body=SSR_BODY,
                            response_type="object",
                            auth_settings=["BearerToken"],
                            _return_http_data_only=True)
    info = data["status"]["userInfo"]
    return info.get("username"), info.get("groups"), info.get("uid")


def raw(srv, method, path, body=None, cert="admin", headers=None):
    """One HTTPS request with client certificate cert (None: none)."""
    return call(srv, method, path, body, headers=headers,
                conn=srv.connection(cert))


def create_token(srv, sa, ns="default", *args):
    srv.kubectl("create", "sa", sa, "-n", ns, check=False)
    return srv.kubectl("create", "token", sa, "-n", ns,
                       *args).stdout.strip()


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def claims(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload)
                                                                % 4)))


def forge(claims, key):
    """A JWT for claims signed RS256 by the PEM key file, with the OpenSSL
    command line (no code of the server involved)."""
    head = b64url(json.dumps({"alg": "RS256", "kid": "x"}).encode())
    body = b64url(json.dumps(claims).encode())
    sig = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key],
                         input=("%s.%s" % (head, body)).encode(),
                         capture_output=True, check=True).stdout
    return "%s.%s.%s" % (head, body, b64url(sig))


# -------------------------------------------------------------- transport


def test_make_run_files(srv):
    """The PKI and the kubeconfig are made on first start, mode 0600."""
    names = sorted(os.listdir(srv.pki))
    for n in ("ca.crt", "ca.key", "server.crt", "server.key", "admin.crt",
              "admin.key", "sa.key", "sa.pub", "front-proxy-ca.crt",
              "front-proxy-client.crt"):
        assert n in names
    for n in names + ["../kubeconfig"]:
        mode = stat.S_IMODE(os.stat(os.path.join(srv.pki, n)).st_mode)
        assert mode == 0o600, (n, oct(mode))

    with open(srv.kubeconfig) as f:
        kc = f.read()
    assert "server: https://127.0.0.1:%d" % srv.port in kc
    assert "certificate-authority-data:" in kc
    assert "client-certificate-data:" in kc

    # plain HTTP on the TLS port is refused
    assert call(srv, "GET", "/version").status == 400


def test_http2_and_alpn(srv):
    """kubectl speaks HTTP/2; curl confirms the server offers it."""
    p = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w",
                        "%{http_version}", "--cacert",
                        os.path.join(srv.pki, "ca.crt"),
                        "--cert", os.path.join(srv.pki, "admin.crt"),
                        "--key", os.path.join(srv.pki, "admin.key"),
                        srv.url + "/api"], capture_output=True, text=True)
    assert p.stdout == "2"


def c1_events(lines):
    return [l.split() for l in lines if l.split()[1:] == ["c1"]]


def test_watch_over_http2(srv, unique_name):
    ns = unique_name("w")
    srv.kubectl("create", "namespace", ns)
    # KubectlWatch waits for kubectl's log of the watch request, written
    # once the response headers came: over TLS and HTTP/2 too they must
    # come before the first event (nothing is written until then)
    with KubectlWatch(srv, "get", "configmaps", "-n", ns, "-w",
                      "--output-watch-events", "-o",
                      "custom-columns=EV:type,N:object.metadata.name",
                      "--no-headers") as w:
        srv.kubectl("create", "configmap", "c1", "-n", ns)
        srv.kubectl("delete", "configmap", "c1", "-n", ns)
        assert w.until(lambda out: len(c1_events(out)) >= 2), w.out
    assert c1_events(w.out) == [["ADDED", "c1"], ["DELETED", "c1"]]

    # the Python client (HTTP/1.1 over TLS)
    from kubernetes import client, watch
    with srv.api_client() as api:
        core = client.CoreV1Api(api)
        core.create_namespaced_config_map(ns, client.V1ConfigMap(
            metadata=client.V1ObjectMeta(name="c2")))
        seen = [(e["type"], e["object"].metadata.name) for e in
                watch.Watch().stream(core.list_namespaced_config_map, ns,
                                     timeout_seconds=1)]
        assert ("ADDED", "c2") in seen


# ------------------------------------------------------------- identities


def test_identity_admin(srv):
    assert whoami(srv) == ("kubernetes-admin",
                           ["system:masters", "system:authenticated"], None)
    assert py_whoami(srv) == whoami(srv)

    # JSON: the credential id of the certificate
    r = raw(srv, "POST", SSR, SSR_BODY)
    assert r.status == 201
    ids = r.json["status"]["userInfo"]["extra"][
        "authentication.kubernetes.io/credential-id"]
    assert len(ids) == 1 and ids[0].startswith("X509SHA256=")


def test_identity_client_cert(srv):
    cert = srv.client_cert("bob", "bob", "team-a", "team-b")
    kc = srv.user_kubeconfig("bob", cert=cert)
    want = ("bob", ["team-a", "team-b", "system:authenticated"], None)
    assert whoami(srv, kc) == want
    assert py_whoami(srv, kc) == want


def test_identity_static_token(srv):
    kc = srv.user_kubeconfig("alice", token="tok-alice")
    want = ("alice", ["dev", "ops", "system:authenticated"], "uid-alice")
    assert whoami(srv, kc) == want
    assert py_whoami(srv, kc) == want


def test_identity_service_account(srv):
    token = create_token(srv, "robot")
    kc = srv.user_kubeconfig("robot", token=token)
    name, groups, uid = whoami(srv, kc)
    assert name == "system:serviceaccount:default:robot"
    assert groups == ["system:serviceaccounts",
                      "system:serviceaccounts:default",
                      "system:authenticated"]
    sa_uid = srv.kubectl("get", "sa", "robot", "-o",
                         "jsonpath={.metadata.uid}").stdout
    assert uid == sa_uid
    assert py_whoami(srv, kc) == (name, groups, uid)

    c = claims(token)
    assert c["iss"] == ISSUER and c["aud"] == [ISSUER]
    assert c["sub"] == name
    assert c["exp"] - c["iat"] == 3600
    assert c["kubernetes.io"]["serviceaccount"] == {"name": "robot",
                                                    "uid": sa_uid}


def test_identity_anonymous(srv):
    kc = srv.user_kubeconfig("anon")
    want = ("system:anonymous", ["system:unauthenticated"], None)
    assert whoami(srv, kc) == want
    assert py_whoami(srv, kc) == want


def test_identity_impersonated(srv):
    # 08-impersonate-whoami: kubectl --as, --as-group
    assert whoami(srv, None, "--as", "jane", "--as-group", "developers") \
        == ("jane", ["developers", "system:authenticated"], None)

    r = raw(srv, "POST", SSR, SSR_BODY,
            headers={"Impersonate-User": "jane",
                     "Impersonate-Group": "developers",
                     "Impersonate-Extra-Scopes": "view"})
    assert r.status == 201
    assert r.json["status"] == {"userInfo": {
        "username": "jane", "groups": ["developers", "system:authenticated"],
        "extra": {"scopes": ["view"]}}}

    # 08-impersonate-serviceaccount
    assert whoami(srv, None, "--as",
                  "system:serviceaccount:ref-auth:ref-sa") == \
        ("system:serviceaccount:ref-auth:ref-sa",
         ["system:serviceaccounts", "system:serviceaccounts:ref-auth",
          "system:authenticated"], None)

    # 08-impersonate-group-without-user: a 500 text/plain
    r = raw(srv, "GET", "/api/v1/namespaces",
            headers={"Impersonate-Group": "developers"})
    assert r.status == 500
    assert r.content_type == "text/plain; charset=utf-8"
    assert r.body == (b'Internal Server Error: "/api/v1/namespaces": '
                      b'requested [{Group  developers    }] without '
                      b'impersonating a user\n')


def test_front_proxy(srv):
    """X-Remote-* headers count only from the front proxy's certificate."""
    proxy = (os.path.join(srv.pki, "front-proxy-client.crt"),
             os.path.join(srv.pki, "front-proxy-client.key"))
    headers = {"X-Remote-User": "carol", "X-Remote-Group": "g1",
               "X-Remote-Extra-Scopes": "s1"}

    r = raw(srv, "POST", SSR, SSR_BODY, cert=proxy, headers=headers)
    assert r.status == 201
    assert r.json["status"]["userInfo"] == {
        "username": "carol", "groups": ["g1", "system:authenticated"],
        "extra": {"scopes": ["s1"]}}

    # the admin's certificate: the headers are ignored
    r = raw(srv, "POST", SSR, SSR_BODY, headers=headers)
    assert r.json["status"]["userInfo"]["username"] == "kubernetes-admin"

    # no certificate: anonymous
    r = raw(srv, "POST", SSR, SSR_BODY, cert=None, headers=headers)
    assert r.json["status"]["userInfo"]["username"] == "system:anonymous"

    # a certificate of the front-proxy CA with a name not allowed: 401
    intruder = srv.client_cert("intruder", "intruder", ca="front-proxy-ca")
    r = raw(srv, "POST", SSR, SSR_BODY, headers=headers, cert=intruder)
    assert r.status == 401 and r.json == UNAUTHORIZED


# ------------------------------------------------------------ refusals


def expect_401(srv, kubeconfig):
    """kubectl, the Python client and a raw request all get the 401."""
    p = srv.kubectl("get", "namespaces", kubeconfig=kubeconfig, check=False)
    assert p.returncode != 0
    assert "error: You must be logged in to the server (Unauthorized)" \
        in p.stderr

    from kubernetes import client
    from kubernetes.client.rest import ApiException
    with srv.api_client(kubeconfig) as api:
        with pytest.raises(ApiException) as e:
            client.CoreV1Api(api).list_namespace()
    assert e.value.status == 401
    assert json.loads(e.value.body) == UNAUTHORIZED


def test_refused_unknown_static_token(srv):
    expect_401(srv, srv.user_kubeconfig("nobody", token="tok-nobody"))

    # 08-invalid-token: the exact answer, no WWW-Authenticate
    r = raw(srv, "GET", "/api/v1/namespaces", cert=None,
            headers={"Authorization": "Bearer tok-nobody"})
    assert_status(r, 401, "Unauthorized", "Unauthorized")
    assert "details" not in r.json
    assert r.header("www-authenticate") is None


def test_refused_other_ca(srv):
    srv.other_ca("elsewhere")
    cert = srv.client_cert("mallory", "kubernetes-admin", "system:masters",
                           ca="elsewhere")
    expect_401(srv, srv.user_kubeconfig("mallory", cert=cert))


def cluster_ca_cert(srv, tmp_path, name, expired=False, usage="client",
                    impostor=False):
    """A client certificate (CN=name, O=system:masters) signed by the
    cluster CA that fails its checks: expired, or for another usage; or
    (impostor) naming the cluster CA as its issuer but signed by another
    key, as a CA of the same name elsewhere would sign it."""
    import datetime
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    with open(os.path.join(srv.pki, "ca.key"), "rb") as f:
        ca_key = serialization.load_pem_private_key(f.read(), None)
    with open(os.path.join(srv.pki, "ca.crt"), "rb") as f:
        ca = x509.load_pem_x509_certificate(f.read())
    if impostor:
        ca_key = ec.generate_private_key(ec.SECP256R1())
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    start = now - datetime.timedelta(days=30 if expired else 1)
    end = now - datetime.timedelta(days=1) if expired \
        else now + datetime.timedelta(days=1)
    eku = ExtendedKeyUsageOID.CLIENT_AUTH if usage == "client" \
        else ExtendedKeyUsageOID.SERVER_AUTH
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([
                x509.NameAttribute(NameOID.ORGANIZATION_NAME,
                                   "system:masters"),
                x509.NameAttribute(NameOID.COMMON_NAME, name)]))
            .issuer_name(ca.subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(start).not_valid_after(end)
            .add_extension(x509.ExtendedKeyUsage([eku]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    crt, pem = str(tmp_path / (name + ".crt")), str(tmp_path / (name + ".key"))
    with open(crt, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(pem, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM,
                                  serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    return crt, pem


@pytest.mark.parametrize("expired, usage", [(True, "client"),
                                            (False, "server")])
def test_failed_cluster_cert_ignored(srv, tmp_path, expired, usage):
    """A certificate of the cluster CA that fails verification (expired,
    or without the clientAuth usage) is ignored as kube-apiserver ignores
    it: the bearer token beside it authenticates the request, and without
    one the answer is 401 (nginx's handshake check answered 400)."""
    cert = cluster_ca_cert(srv, tmp_path, "eve-%s" % usage, expired, usage)

    r = raw(srv, "POST", SSR, SSR_BODY, cert=cert,
            headers={"Authorization": "Bearer tok-alice"})
    assert r.status == 201, r.body
    assert r.json["status"]["userInfo"]["username"] == "alice"

    r = raw(srv, "GET", "/api/v1/namespaces", cert=cert)
    assert_status(r, 401, "Unauthorized", "Unauthorized")

    # a valid certificate of an unknown CA with a token: still the token
    srv.other_ca("elsewhere2")
    other = srv.client_cert("mallory2", "kubernetes-admin",
                            "system:masters", ca="elsewhere2")
    r = raw(srv, "POST", SSR, SSR_BODY, cert=other,
            headers={"Authorization": "Bearer tok-alice"})
    assert r.status == 201, r.body
    assert r.json["status"]["userInfo"]["username"] == "alice"


def test_impostor_ca_cert_no_stale_ssl_error(srv, tmp_path):
    """A certificate naming the cluster CA as issuer but signed by another
    key (another instance's CA of the same name) is ignored on every
    request of a keep-alive connection, and leaves no OpenSSL error behind
    it: nginx logged "ignoring stale global SSL error" on each request."""
    cert = cluster_ca_cert(srv, tmp_path, "imp", impostor=True)
    conn = srv.connection(cert)
    for _ in range(3):
        r = call(srv, "POST", SSR, SSR_BODY, conn=conn,
                 headers={"Authorization": "Bearer tok-alice"})
        assert r.status == 201, r.body
        assert r.json["status"]["userInfo"]["username"] == "alice"
    conn.close()
    assert "stale global SSL error" not in srv.logs()


@pytest.mark.parametrize("cipher, ok", [
    ("ECDHE-ECDSA-AES128-GCM-SHA256", True),
    ("ECDHE-ECDSA-CHACHA20-POLY1305", True),
    ("ECDHE-ECDSA-AES128-SHA", False),          # CBC with SHA-1
    ("ECDHE-ECDSA-AES256-SHA384", False),       # CBC
    ("ECDHE-ECDSA-CAMELLIA256-SHA384", False),
    ("ECDHE-ECDSA-AES128-CCM8", False),
])
def test_tls12_ciphers(srv, cipher, ok):
    """TLS 1.2 offers ECDHE with AEAD ciphers only (Mozilla's
    intermediate profile), not nginx's HIGH default."""
    import socket
    import ssl
    ctx = srv.ssl_context(None)
    ctx.maximum_version = ssl.TLSVersion.TLSv1_2
    try:
        ctx.set_ciphers(cipher)
    except ssl.SSLError:
        pytest.skip("this OpenSSL has no %s" % cipher)
    with socket.create_connection(("127.0.0.1", srv.port), timeout=30) as s:
        if ok:
            with ctx.wrap_socket(s, server_hostname="127.0.0.1") as t:
                assert t.cipher()[0] == cipher
        else:
            with pytest.raises(ssl.SSLError):
                ctx.wrap_socket(s, server_hostname="127.0.0.1")


def test_refused_wrong_signature(srv, tmp_path):
    token = create_token(srv, "sig")
    key = str(tmp_path / "other.key")
    subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-out", key],
                   check=True, capture_output=True)

    # the same claims signed by the server's key work: the test's
    # signing is right, only the key differs
    ok = forge(claims(token), os.path.join(srv.pki, "sa.key"))
    assert whoami(srv, srv.user_kubeconfig("sig-ok", token=ok))[0] == \
        "system:serviceaccount:default:sig"

    expect_401(srv, srv.user_kubeconfig("sig", token=forge(claims(token),
                                                           key)))


def test_refused_expired(srv):
    token = create_token(srv, "old")
    c = claims(token)
    c["iat"] = c["nbf"] = int(time.time()) - 7200
    c["exp"] = int(time.time()) - 3600
    expect_401(srv, srv.user_kubeconfig("old", token=forge(
        c, os.path.join(srv.pki, "sa.key"))))


def test_refused_wrong_audience(srv):
    token = create_token(srv, "aud", "default", "--audience", "vault")
    assert claims(token)["aud"] == ["vault"]
    expect_401(srv, srv.user_kubeconfig("aud", token=token))


def test_refused_deleted_service_account(srv):
    token = create_token(srv, "gone")
    kc = srv.user_kubeconfig("gone", token=token)
    assert whoami(srv, kc)[0] == "system:serviceaccount:default:gone"

    srv.kubectl("delete", "sa", "gone")
    expect_401(srv, kc)

    # recreated: another uid, the old token stays refused
    srv.kubectl("create", "sa", "gone")
    expect_401(srv, kc)


# ------------------------------------------------------ token APIs


def test_create_token_options(srv):
    token = create_token(srv, "opts", "default", "--duration", "2h",
                         "--audience", "a1", "--audience", ISSUER)
    c = claims(token)
    assert c["exp"] - c["iat"] == 7200
    assert c["aud"] == ["a1", ISSUER]

    # 08-tokenrequest-too-short, as kubectl shows it
    p = srv.kubectl("create", "token", "opts", "--duration", "1m",
                    check=False)
    assert p.returncode != 0
    assert ('spec.expirationSeconds: Invalid value: 60: may not specify a '
            'duration less than 10 minutes') in p.stderr

    # 08-tokenrequest-missing-sa
    p = srv.kubectl("create", "token", "nosuch", check=False)
    assert 'serviceaccounts "nosuch" not found' in p.stderr


def test_token_review_python(srv):
    from kubernetes import client
    token = create_token(srv, "rev")
    with srv.api_client() as api:
        auth = client.AuthenticationV1Api(api)
        r = auth.create_token_review(client.V1TokenReview(
            spec=client.V1TokenReviewSpec(token=token)))
        assert r.status.authenticated is True
        assert r.status.user.username == "system:serviceaccount:default:rev"
        assert r.status.audiences == [ISSUER]

        r = auth.create_token_review(client.V1TokenReview(
            spec=client.V1TokenReviewSpec(token=token,
                                          audiences=["other-audience"])))
        assert r.status.authenticated is None
        assert r.status.error == (
            '[invalid bearer token, token audiences ["%s"] is invalid for '
            'the target audiences ["other-audience"]]' % ISSUER)


def test_anonymous_off():
    """gcp_anonymous_auth off: no credentials, no service."""
    with GcpServer(workers=1, tls=True, anonymous=False) as s:
        r = raw(s, "GET", "/version", cert=None)
        assert r.status == 401 and r.json == UNAUTHORIZED
        assert raw(s, "GET", "/version").status == 200


def test_credentials_not_logged(srv):
    """Tokens never reach the error log."""
    create_token(srv, "quiet")
    raw(srv, "GET", "/api", cert=None,
        headers={"Authorization": "Bearer tok-secret-value"})
    logs = srv.logs()
    assert "tok-secret-value" not in logs and "tok-alice" not in logs
    assert "eyJ" not in logs


@pytest.mark.parametrize("listen, server_url", [
    ("127.0.0.1:7443", "https://127.0.0.1:7443"),
    ("0.0.0.0:7443", "https://127.0.0.1:7443"),
    ("[::]:7443", "https://[::1]:7443"),
])
def test_gcp_run_tls_conf(tmp_path, listen, server_url):
    """What make run writes: TLS with HTTP/2, client certificates asked
    for but checked by the module, the authentication directives, and a
    kubeconfig with the CA and the admin's certificate."""
    import yaml
    from gcp_server import GCP_RUN

    data = tmp_path / "data"
    env = dict(os.environ, GCP_MODULE="/nonexistent/mod.so",
               GCP_DATA=str(data), GCP_LISTEN=listen, GCP_TLS="on")
    subprocess.run([GCP_RUN, "--config-only"], env=env, check=True,
                   capture_output=True)

    pki = data / "pki"
    kc = yaml.safe_load((data / "kubeconfig").read_text())
    cluster = kc["clusters"][0]["cluster"]
    user = kc["users"][0]["user"]
    assert cluster["server"] == server_url
    assert base64.b64decode(cluster["certificate-authority-data"]) == \
        (pki / "ca.crt").read_bytes()
    assert base64.b64decode(user["client-certificate-data"]) == \
        (pki / "admin.crt").read_bytes()
    assert base64.b64decode(user["client-key-data"]) == \
        (pki / "admin.key").read_bytes()

    conf = (data / "nginx.conf").read_text()
    assert "listen %s ssl http2;" % listen in conf
    for d in ("ssl_certificate %s/server.crt;" % pki,
              "ssl_verify_client optional_no_ca;",
              "ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:",
              "gcp_client_ca_file %s/ca.crt;" % pki,
              "gcp_service_account_signing_key_file %s/sa.key;" % pki,
              "gcp_service_account_key_file %s/sa.pub;" % pki,
              "gcp_requestheader_client_ca_file %s/front-proxy-ca.crt;"
              % pki,
              "gcp_authorization_mode RBAC;", "gcp_anonymous_auth on;"):
        assert d in conf, d
    assert "@" not in conf.split("load_module", 1)[1]

    # every instance's CAs have names of their own (a certificate of
    # another instance's CA of the same name made nginx log an alert)
    names = set()
    for run in ("a", "b"):
        other = tmp_path / run
        subprocess.run([GCP_RUN, "--config-only"], check=True,
                       capture_output=True,
                       env=dict(env, GCP_DATA=str(other)))
        for ca in ("ca", "front-proxy-ca"):
            p = subprocess.run(["openssl", "x509", "-noout", "-subject",
                                "-in", str(other / "pki" / (ca + ".crt"))],
                               capture_output=True, text=True, check=True)
            prefix = "ngx-gcp-ca@" if ca == "ca" else "front-proxy-ca@"
            assert p.stdout.startswith("subject=CN = " + prefix), p.stdout
            names.add(p.stdout)
    assert len(names) == 4

    # the serving certificate names the address clients use
    p = subprocess.run(["openssl", "x509", "-in", str(pki / "server.crt"),
                        "-noout", "-ext", "subjectAltName"],
                       capture_output=True, text=True, check=True)
    assert "IP Address:127.0.0.1" in p.stdout
    assert "IP Address:0:0:0:0:0:0:0:1" in p.stdout
    assert "DNS:localhost" in p.stdout

    # a second start keeps the PKI
    before = (pki / "ca.crt").read_bytes()
    subprocess.run([GCP_RUN, "--config-only"], env=env, check=True,
                   capture_output=True)
    assert (pki / "ca.crt").read_bytes() == before
