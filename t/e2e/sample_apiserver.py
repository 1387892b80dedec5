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
import os

import peers
from ext_server import free_port

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


def available():
    """True when the binary can be had."""
    return peers.available("sample-apiserver")


class SampleApiserver(peers.PeerProcess):
    def __init__(self, srv, etcd_endpoints, d, pki, extra_args=()):
        peers.PeerProcess.__init__(self, "sample-apiserver", d)
        self.srv = srv
        self.etcd = etcd_endpoints
        self.pki = pki
        self.extra_args = list(extra_args)
        self.port = free_port()
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
        self.run(["--secure-port=%d" % self.port,
                  "--bind-address=127.0.0.1",
                  "--etcd-servers=" + self.etcd, "--etcd-prefix=/wardle",
                  "--kubeconfig=" + self.kubeconfig,
                  "--authentication-kubeconfig=" + self.kubeconfig,
                  "--authorization-kubeconfig=" + self.kubeconfig,
                  "--tls-cert-file=" + self.cert,
                  "--tls-private-key-file=" + self.key]
                 + self.audit_args() + self.extra_args)
        return self

    def ready(self, timeout=60):
        """Waits until its /readyz answers 200 (through ngx_gcp's view:
        the port itself, skipping TLS verification)."""
        return self.wait_ready(self.port, self.pki.ca, timeout)

    def ca_bundle(self):
        return base64.b64encode(self.pki.ca_pem()).decode()
