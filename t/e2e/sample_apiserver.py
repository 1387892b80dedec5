"""Upstream's sample-apiserver ("wardle") behind an ngx_gcp server.

    wardle = SampleApiserver(srv, etcd_endpoints, tmpdir).start()
    ...
    wardle.stop(); wardle.start()       # down, then up on the same port

The binary is unpacked from ../shared/peers (or GCP_PEERS) into
build/peers the first time.  It authenticates and authorizes by
delegation to ngx_gcp (TokenReview, SubjectAccessReview, the
extension-apiserver-authentication ConfigMap) as the user "wardle", whose
client certificate the server's PKI signs and whom this helper binds to
what upstream asks of such servers (system:auth-delegator,
extension-apiserver-authentication-reader, and reading what its
informers list).  It serves HTTPS with a certificate for
api.wardle.svc signed by the tests' CA (ExtPki), so that ngx_gcp verifies
it with the APIService's caBundle.  Its audit log (Metadata level, every
request once answered) tells what reached it and as whom:
audit_events().
"""

import base64
import json
import os
import subprocess
import time
import urllib.request

from ext_server import free_port
from gcp_wait import eventually

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
PEERS = os.environ.get("GCP_PEERS",
                       os.path.join(ROOT, "..", "shared", "peers"))
BINARY = os.path.join(ROOT, "build", "peers", "sample-apiserver")

# What the sample's informers list, and its delegated authentication.
RBAC = """
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: wardle-informers}
rules:
- apiGroups: [""]
  resources: [namespaces]
  verbs: [get, list, watch]
- apiGroups: [admissionregistration.k8s.io]
  resources: [mutatingwebhookconfigurations, validatingwebhookconfigurations,
              validatingadmissionpolicies, validatingadmissionpolicybindings]
  verbs: [get, list, watch]
- apiGroups: [flowcontrol.apiserver.k8s.io]
  resources: [flowschemas, prioritylevelconfigurations,
              flowschemas/status, prioritylevelconfigurations/status]
  verbs: [get, list, watch, patch, update, create]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: wardle-informers}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole,
          name: wardle-informers}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: wardle}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "wardle:system:auth-delegator"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole,
          name: "system:auth-delegator"}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: wardle}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: wardle-auth-reader, namespace: kube-system}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role,
          name: extension-apiserver-authentication-reader}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: wardle}]
"""


AUDIT_POLICY = """
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
"""


def available():
    """True when the binary can be had."""
    return os.path.exists(BINARY) or os.path.exists(
        os.path.join(PEERS, "sample-apiserver-v1.28.4.xz"))


def unpack():
    if os.path.exists(BINARY):
        return
    os.makedirs(os.path.dirname(BINARY), exist_ok=True)
    tmp = BINARY + ".tmp"
    with open(tmp, "wb") as out:
        subprocess.run(["xz", "-dc", os.path.join(
            PEERS, "sample-apiserver-v1.28.4.xz")], stdout=out, check=True)
    os.chmod(tmp, 0o755)
    os.rename(tmp, BINARY)


class SampleApiserver:
    def __init__(self, srv, etcd_endpoints, d, pki, extra_args=()):
        self.srv = srv
        self.etcd = etcd_endpoints
        self.dir = d
        self.pki = pki
        self.extra_args = list(extra_args)
        self.port = free_port()
        self.proc = None
        self.log = os.path.join(d, "sample-apiserver.log")
        self.audit_log = os.path.join(d, "audit.log")
        os.makedirs(d, exist_ok=True)
        self.audit_policy = os.path.join(d, "audit-policy.yaml")
        with open(self.audit_policy, "w") as f:
            f.write(AUDIT_POLICY)
        self.cert, self.key = pki.server_cert("api.wardle.svc")
        self.kubeconfig = self._kubeconfig()
        srv.kubectl("apply", "-f", "-", input=RBAC)

    @property
    def endpoint(self):
        return "127.0.0.1:%d" % self.port

    def _kubeconfig(self):
        crt, key = self.srv.client_cert("wardle", "wardle")
        return self.srv.user_kubeconfig("wardle", cert=(crt, key))

    def start(self):
        unpack()
        args = [BINARY, "--secure-port=%d" % self.port,
                "--bind-address=127.0.0.1",
                "--etcd-servers=" + self.etcd, "--etcd-prefix=/wardle",
                "--kubeconfig=" + self.kubeconfig,
                "--authentication-kubeconfig=" + self.kubeconfig,
                "--authorization-kubeconfig=" + self.kubeconfig,
                "--tls-cert-file=" + self.cert,
                "--tls-private-key-file=" + self.key,
                "--audit-policy-file=" + self.audit_policy,
                "--audit-log-path=" + self.audit_log,
                "--audit-log-format=json"] + self.extra_args
        self._out = open(self.log, "ab")
        self.proc = subprocess.Popen(args, stdout=self._out,
                                     stderr=self._out,
                                     stdin=subprocess.DEVNULL)
        return self

    def ready(self, timeout=60):
        """Waits until its /readyz answers 200 (through ngx_gcp's view:
        the port itself, skipping TLS verification)."""
        import ssl
        ctx = ssl.create_default_context(cafile=self.pki.ca)
        ctx.check_hostname = False

        def check():
            try:
                with urllib.request.urlopen(
                        "https://127.0.0.1:%d/readyz" % self.port,
                        timeout=2, context=ctx) as r:
                    return r.status == 200
            except Exception:
                return False
        return eventually(check, timeout)

    def stop(self):
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None
        self._out.close()

    def logs(self):
        with open(self.log, errors="replace") as f:
            return f.read()

    def audit_events(self, match=None):
        """The audit events the sample wrote so far (requests it
        answered), those whose requestURI contains match when given."""
        try:
            with open(self.audit_log) as f:
                events = [json.loads(line) for line in f if line.strip()]
        except FileNotFoundError:
            return []
        return [e for e in events
                if match is None or match in e.get("requestURI", "")]

    def ca_bundle(self):
        return base64.b64encode(self.pki.ca_pem()).decode()
