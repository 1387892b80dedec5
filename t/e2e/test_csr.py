"""CertificateSigningRequests end to end (certificates.k8s.io/v1): a user
asks for a client certificate with openssl and kubectl, an admin approves
it (kubectl certificate approve) or denies it, the signer controller
issues it from the CA the server trusts, and a kubeconfig with it
authenticates as the requested user, under RBAC.  Also: the approve
permission (signers, verb approve), the system:masters restriction, a
signer's Failed condition, the requestor fields, immutability, the
cleaner, Tables, field selectors, protobuf."""

import base64
import datetime
import json
import os
import subprocess
import tempfile

import pytest

from gcp_http import call, assert_status
from gcp_pbwire import decode, encode, envelope, get, unwrap
from gcp_server import GcpServer
from gcp_wait import eventually

TOKENS = ("tok-alice,alice,uid-alice,\"team-a\"\n"
          "tok-carol,carol,uid-carol\n"
          "tok-erin,erin,uid-erin\n")

CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests"
CLIENT = "kubernetes.io/kube-apiserver-client"

POLICY = """
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: csr-requester}
rules:
- apiGroups: [certificates.k8s.io]
  resources: [certificatesigningrequests]
  verbs: [create, get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: csr-requesters}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole,
          name: csr-requester}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: Group, name: system:authenticated}
---
# carol may update /approval but approve no signer; erin approves the
# kubernetes.io signers through the domain wildcard
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: csr-approval-writer}
rules:
- apiGroups: [certificates.k8s.io]
  resources: [certificatesigningrequests/approval]
  verbs: [update, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: csr-approval-writers}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole,
          name: csr-approval-writer}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: carol}
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: erin}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: kubernetes-io-approver}
rules:
- apiGroups: [certificates.k8s.io]
  resources: [signers]
  resourceNames: ["kubernetes.io/*"]
  verbs: [approve]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: kubernetes-io-approvers}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole,
          name: kubernetes-io-approver}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: erin}
---
# carol may write /status, but signs for no signer
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: csr-status-writer}
rules:
- apiGroups: [certificates.k8s.io]
  resources: [certificatesigningrequests/status]
  verbs: [update, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: csr-status-writers}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole,
          name: csr-status-writer}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: carol}
"""

CUSTOM = "example.com/custom"


def make_ca(directory):
    """A CA of one's own (openssl), for the custom signer."""
    crt = os.path.join(directory, "custom-ca.crt")
    key = os.path.join(directory, "custom-ca.key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:P-256", "-nodes", "-keyout", key,
                    "-out", crt, "-subj", "/CN=custom-signer-ca", "-days",
                    "30", "-addext", "basicConstraints=critical,CA:TRUE",
                    "-addext", "keyUsage=critical,keyCertSign"],
                   check=True, capture_output=True)
    return crt, key


@pytest.fixture(scope="module")
def ca_dir():
    with tempfile.TemporaryDirectory(prefix="gcp-csr-ca-") as d:
        yield d


@pytest.fixture(scope="module")
def srv(ca_dir):
    crt, key = make_ca(ca_dir)
    s = GcpServer(workers=2, tls=True, authz="RBAC", token_file=TOKENS,
                  http_extra="gcp_csr_signer %s %s %s;" % (CUSTOM, crt,
                                                           key)).start(
        timeout=60)
    try:
        s.kubectl("apply", "-f", "-", input=POLICY)
        yield s
    finally:
        s.stop()


def user(srv, name):
    return srv.user_kubeconfig(name, token="tok-" + name)


def openssl_csr(srv, name, subject):
    """A new key and a PEM request for subject, made with openssl."""
    key = os.path.join(srv.data_dir, name + ".key")
    subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt",
                    "ec_paramgen_curve:P-256", "-out", key],
                   check=True, capture_output=True)
    pem = subprocess.run(["openssl", "req", "-new", "-key", key, "-subj",
                          subject], check=True, capture_output=True).stdout
    return key, pem


def csr_manifest(name, pem, signer=CLIENT, usages=("client auth",),
                 expiration=None):
    spec = {"request": base64.b64encode(pem).decode(),
            "signerName": signer, "usages": list(usages)}
    if expiration:
        spec["expirationSeconds"] = expiration
    return json.dumps({"apiVersion": "certificates.k8s.io/v1",
                       "kind": "CertificateSigningRequest",
                       "metadata": {"name": name}, "spec": spec})


def get_csr(srv, name):
    return json.loads(srv.kubectl("get", "csr", name, "-o",
                                  "json").stdout)


def test_request_approve_issue_use(srv):
    key, pem = openssl_csr(srv, "dave", "/O=devs/CN=dave")
    alice = user(srv, "alice")
    srv.kubectl("create", "-f", "-", kubeconfig=alice,
                input=csr_manifest("dave", pem, expiration=3600))

    csr = get_csr(srv, "dave")
    spec = csr["spec"]
    # the requestor is who created it, whatever the request says
    assert spec["username"] == "alice"
    assert spec["uid"] == "uid-alice"
    assert spec["groups"] == ["team-a", "system:authenticated"]
    assert csr["status"] == {}

    out = srv.kubectl("get", "csr", "dave").stdout.splitlines()
    assert out[0].split() == ["NAME", "AGE", "SIGNERNAME", "REQUESTOR",
                              "REQUESTEDDURATION", "CONDITION"]
    assert out[1].split()[2:] == [CLIENT, "alice", "60m", "Pending"]

    # alice may not approve her own request
    p = srv.kubectl("certificate", "approve", "dave", kubeconfig=alice,
                    check=False)
    assert p.returncode != 0
    assert "forbidden" in p.stderr

    srv.kubectl("certificate", "approve", "dave")

    def issued():
        c = get_csr(srv, "dave")
        return c if c["status"].get("certificate") else None
    csr = eventually(issued, timeout=60)
    assert csr, get_csr(srv, "dave")

    cond = csr["status"]["conditions"]
    assert [c["type"] for c in cond] == ["Approved"]
    assert cond[0]["reason"] == "KubectlApprove"
    assert cond[0]["lastUpdateTime"] and cond[0]["lastTransitionTime"]
    out = srv.kubectl("get", "csr", "dave").stdout.splitlines()
    assert out[1].split()[-1] == "Approved,Issued"

    crt = os.path.join(srv.data_dir, "dave.crt")
    with open(crt, "wb") as f:
        f.write(base64.b64decode(csr["status"]["certificate"]))
    text = subprocess.run(["openssl", "x509", "-in", crt, "-noout",
                           "-subject", "-ext", "extendedKeyUsage,"
                           "basicConstraints", "-dates"],
                          check=True, capture_output=True,
                          text=True).stdout
    assert "CN = dave" in text and "O = devs" in text
    assert "TLS Web Client Authentication" in text
    assert "CA:FALSE" in text
    subprocess.run(["openssl", "verify", "-CAfile",
                    os.path.join(srv.pki, "ca.crt"), crt], check=True,
                   capture_output=True)

    # the certificate authenticates dave (group devs), RBAC applies
    dave = srv.user_kubeconfig("dave", cert=(crt, key))
    who = json.loads(srv.kubectl("auth", "whoami", "-o", "json",
                                 kubeconfig=dave).stdout)
    assert who["status"]["userInfo"]["username"] == "dave"
    assert "devs" in who["status"]["userInfo"]["groups"]

    p = srv.kubectl("get", "namespaces", kubeconfig=dave, check=False)
    assert p.returncode != 0
    assert ('User "dave" cannot list resource "namespaces"' in p.stderr)
    srv.kubectl("create", "clusterrolebinding", "devs-view",
                "--clusterrole=view", "--group=devs")
    srv.kubectl("create", "clusterrole", "ns-reader", "--verb=list",
                "--resource=namespaces")
    srv.kubectl("create", "clusterrolebinding", "devs-ns",
                "--clusterrole=ns-reader", "--group=devs")
    assert eventually(lambda: srv.kubectl("get", "namespaces",
                                          kubeconfig=dave,
                                          check=False).returncode == 0,
                      timeout=30)

    # once issued, the certificate never changes
    c = get_csr(srv, "dave")
    c["status"]["certificate"] = base64.b64encode(b"x").decode()
    r = call(srv, "PUT", CSRS + "/dave/status", c,
             conn=srv.connection())
    assert_status(r, 422, "Invalid")


def test_approval_needs_signer_permission(srv):
    _, pem = openssl_csr(srv, "frank", "/CN=frank")
    srv.kubectl("create", "-f", "-", input=csr_manifest("frank", pem))

    p = srv.kubectl("certificate", "approve", "frank",
                    kubeconfig=user(srv, "carol"), check=False)
    assert p.returncode != 0
    assert ('certificatesigningrequests.certificates.k8s.io "frank" is '
            'forbidden: user not permitted to approve requests with '
            'signerName "kubernetes.io/kube-apiserver-client"') in p.stderr
    assert get_csr(srv, "frank")["status"] == {}

    # erin may, through "kubernetes.io/*"
    srv.kubectl("certificate", "deny", "frank",
                kubeconfig=user(srv, "erin"))
    c = get_csr(srv, "frank")
    assert [x["type"] for x in c["status"]["conditions"]] == ["Denied"]
    out = srv.kubectl("get", "csr", "frank").stdout.splitlines()
    assert out[1].split()[-1] == "Denied"

    # Denied stays; Approved cannot join it
    c["status"]["conditions"].append({"type": "Approved", "status": "True"})
    r = call(srv, "PUT", CSRS + "/frank/approval", c,
             conn=srv.connection())
    s = assert_status(r, 422, "Invalid")
    assert s["details"]["causes"][0]["message"] == (
        "Invalid value: \"Approved\": Approved and Denied conditions are "
        "mutually exclusive")
    assert "certificate" not in get_csr(srv, "frank")["status"]


def test_system_masters_refused(srv):
    _, pem = openssl_csr(srv, "root", "/O=system:masters/CN=root")
    p = srv.kubectl("create", "-f", "-", check=False,
                    input=csr_manifest("root", pem))
    assert p.returncode != 0
    assert ('certificatesigningrequests.certificates.k8s.io "root" is '
            'forbidden: use of kubernetes.io/kube-apiserver-client signer '
            'with system:masters group is not allowed') in p.stderr

    # another signer may be asked for it (nothing signs it here)
    srv.kubectl("create", "-f", "-",
                input=csr_manifest("root", pem, signer="example.com/x"))


def test_signer_refuses_bad_usages(srv):
    _, pem = openssl_csr(srv, "web", "/CN=web")
    srv.kubectl("create", "-f", "-",
                input=csr_manifest("web", pem, usages=("server auth",)))
    srv.kubectl("certificate", "approve", "web")

    def failed():
        c = get_csr(srv, "web")
        types = [x["type"] for x in c["status"].get("conditions", [])]
        return c if "Failed" in types else None
    c = eventually(failed, timeout=60)
    assert c, get_csr(srv, "web")
    f = [x for x in c["status"]["conditions"] if x["type"] == "Failed"][0]
    assert f["reason"] == "SignerValidationFailure"
    assert f["message"] == ("invalid usage for client certificate: "
                            "server auth")
    assert "certificate" not in c["status"]
    out = srv.kubectl("get", "csr", "web").stdout.splitlines()
    assert out[1].split()[-1] == "Approved,Failed"


def test_validation(srv):
    _, pem = openssl_csr(srv, "bad", "/CN=bad")
    conn = srv.connection()
    body = json.loads(csr_manifest("bad", pem, expiration=60))
    body["spec"]["request"] = base64.b64encode(b"not pem").decode()
    body["spec"]["usages"] = []
    r = call(srv, "POST", CSRS, body, conn=conn)
    s = assert_status(r, 422, "Invalid")
    assert [(c["field"], c["reason"]) for c in s["details"]["causes"]] == [
        ("spec.request", "FieldValueInvalid"),
        ("spec.usages", "FieldValueRequired"),
        ("spec.expirationSeconds", "FieldValueInvalid")]
    assert s["details"]["causes"][0]["message"] == (
        "Invalid value: []byte{0x6e, 0x6f, 0x74, 0x20, 0x70, 0x65, 0x6d}: "
        "PEM block type must be CERTIFICATE REQUEST")
    assert s["details"]["causes"][2]["message"] == (
        "Invalid value: 60: may not specify a duration less than 600 "
        "seconds (10 minutes)")

    # the spec cannot change; the requestor cannot be chosen
    body = json.loads(csr_manifest("imm", pem))
    body["spec"]["username"] = "someone-else"
    r = call(srv, "POST", CSRS, body, conn=conn)
    assert r.status == 201, r
    assert r.json["spec"]["username"] == "kubernetes-admin"
    obj = r.json
    obj["spec"]["usages"] = ["client auth", "digital signature"]
    obj["metadata"]["labels"] = {"a": "b"}
    r = call(srv, "PUT", CSRS + "/imm", obj, conn=conn)
    assert r.status == 200, r
    assert r.json["spec"]["usages"] == ["client auth"]
    assert r.json["metadata"]["labels"] == {"a": "b"}

    # /status may not approve
    obj = r.json
    obj["status"] = {"conditions": [{"type": "Approved", "status": "True"}]}
    r = call(srv, "PUT", CSRS + "/imm/status", obj, conn=conn)
    s = assert_status(r, 422, "Invalid")
    assert s["details"]["causes"][0]["message"] == (
        "Forbidden: updates may not add a condition of type \"Approved\"")


def test_field_selector_and_protobuf(srv):
    _, pem = openssl_csr(srv, "pb", "/CN=pb")
    srv.kubectl("create", "-f", "-",
                input=csr_manifest("pb", pem, signer="example.com/pb",
                                   usages=("digital signature",)))
    names = srv.kubectl("get", "csr", "--field-selector",
                        "spec.signerName=example.com/pb", "-o",
                        "name").stdout.split()
    assert names == ["certificatesigningrequest.certificates.k8s.io/pb"]

    conn = srv.connection()
    pbtype = "application/vnd.kubernetes.protobuf"
    r = call(srv, "GET", CSRS + "/pb", headers={"Accept": pbtype},
             conn=conn)
    assert r.status == 200, r
    api_version, kind, raw = unwrap(r.body)
    assert (api_version, kind) == ("certificates.k8s.io/v1",
                                   "CertificateSigningRequest")
    spec = decode(get(decode(raw), 2))
    assert get(spec, 1) == pem
    assert get(spec, 7) == b"example.com/pb"
    assert get(spec, 5) == b"digital signature"
    assert get(spec, 2) == b"kubernetes-admin"

    # a protobuf create: the same request under another name
    body = envelope("certificates.k8s.io/v1", "CertificateSigningRequest",
                    encode([(1, [(1, "pb2")]),
                            (2, [(1, pem), (7, "example.com/pb"),
                                 (8, 3600), (5, "client auth")])]))
    r = call(srv, "POST", CSRS, body, content_type=pbtype,
             headers={"Accept": pbtype}, conn=conn)
    assert r.status == 201, r
    _, _, raw = unwrap(r.body)
    spec = decode(get(decode(raw), 2))
    assert get(spec, 8) == 3600
    assert get(spec, 2) == b"kubernetes-admin"
    c = get_csr(srv, "pb2")
    assert c["spec"]["expirationSeconds"] == 3600
    assert base64.b64decode(c["spec"]["request"]) == pem


def test_cleaner_removes_old_denied(srv):
    _, pem = openssl_csr(srv, "old", "/CN=old")
    srv.kubectl("create", "-f", "-", input=csr_manifest("old", pem))
    c = get_csr(srv, "old")
    # denied two hours ago, as an approver may record it
    c["status"] = {"conditions": [{
        "type": "Denied", "status": "True", "reason": "Old",
        "lastUpdateTime": "2020-01-01T00:00:00Z"}]}
    r = call(srv, "PUT", CSRS + "/old/approval", c,
             conn=srv.connection())
    assert r.status == 200, r
    assert r.json["status"]["conditions"][0]["lastTransitionTime"]

    def gone():
        p = srv.kubectl("get", "csr", "old", check=False)
        return p.returncode != 0 and "NotFound" in p.stderr
    assert eventually(gone, timeout=60)

    # a fresh denial stays
    _, pem = openssl_csr(srv, "new", "/CN=new")
    srv.kubectl("create", "-f", "-", input=csr_manifest("new", pem))
    srv.kubectl("certificate", "deny", "new")
    assert get_csr(srv, "new")["metadata"]["name"] == "new"


def test_custom_signer_and_sign_permission(srv, ca_dir):
    _, pem = openssl_csr(srv, "svc", "/CN=svc.example.com")
    srv.kubectl("create", "-f", "-",
                input=csr_manifest("svc", pem, signer=CUSTOM,
                                   usages=("digital signature",
                                           "server auth"),
                                   expiration=7200))

    # carol may write /status, but may not sign for the signer
    c = get_csr(srv, "svc")
    c["status"] = {"conditions": [{"type": "Failed", "status": "True",
                                   "reason": "Nope"}]}
    p = srv.kubectl("replace", "--subresource=status", "-f", "-",
                    kubeconfig=user(srv, "carol"), check=False,
                    input=json.dumps(c))
    assert p.returncode != 0
    assert ('certificatesigningrequests.certificates.k8s.io "svc" is '
            'forbidden: user not permitted to sign requests with '
            'signerName "example.com/custom"') in p.stderr
    assert get_csr(srv, "svc")["status"] == {}

    srv.kubectl("certificate", "approve", "svc")

    def issued():
        c = get_csr(srv, "svc")
        return c if c["status"].get("certificate") else None
    c = eventually(issued, timeout=60)
    assert c, get_csr(srv, "svc")

    crt = os.path.join(srv.data_dir, "svc.crt")
    with open(crt, "wb") as f:
        f.write(base64.b64decode(c["status"]["certificate"]))
    subprocess.run(["openssl", "verify", "-CAfile",
                    os.path.join(ca_dir, "custom-ca.crt"), crt],
                   check=True, capture_output=True)
    text = subprocess.run(["openssl", "x509", "-in", crt, "-noout",
                           "-issuer", "-ext", "extendedKeyUsage",
                           "-startdate", "-enddate", "-dateopt",
                           "iso_8601"],
                          check=True, capture_output=True, text=True).stdout
    assert "CN = custom-signer-ca" in text
    assert "TLS Web Server Authentication" in text
    # expirationSeconds honoured, not backdated (shorter than 8 hours)
    dates = dict(line.split("=", 1) for line in text.splitlines()
                 if line.startswith(("notBefore=", "notAfter=")))
    fmt = "%Y-%m-%d %H:%M:%SZ"
    span = (datetime.datetime.strptime(dates["notAfter"], fmt)
            - datetime.datetime.strptime(dates["notBefore"], fmt))
    assert span == datetime.timedelta(seconds=7200), dates
