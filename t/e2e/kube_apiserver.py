"""Upstream's kube-apiserver as a test peer (fronting tests, issue 13).

    kas = KubeApiserver(etcd_endpoints, tmpdir, tokens=[...]).start()
    kas.ready()
    kas.kubectl("create", "namespace", "demo")     # as its admin
    kas.audit_events("/configmaps")                # who asked what
    kas.stop(); kas.start()                        # down, then up

Its PKI is an ExtPki in d/pki: the serving certificate for "localhost"
(and 127.0.0.1), the client CA.  Users come from a static token file:
"admin" (system:masters) for the tests' own setup, and the tokens given
as (token, user, uid, groups).  RBAC authorizes; its audit log (peers)
says who asked, and as whom.
"""

import os
import subprocess

import peers
from ext_server import ExtPki, free_port

ADMIN_TOKEN = "kas-admin-token"


def available():
    return peers.available("kube-apiserver")


class KubeApiserver(peers.PeerProcess):
    def __init__(self, etcd_endpoints, d, tokens=()):
        peers.PeerProcess.__init__(self, "kube-apiserver", d)
        self.etcd = etcd_endpoints
        self.pki = ExtPki(os.path.join(d, "pki"))
        self.port = free_port()
        self.cert, self.key = self.pki.server_cert("localhost")
        self.sa_key = os.path.join(d, "sa.key")
        self.sa_pub = os.path.join(d, "sa.pub")
        if not os.path.exists(self.sa_key):
            subprocess.run(["openssl", "genrsa", "-out", self.sa_key,
                            "2048"], check=True, capture_output=True)
            subprocess.run(["openssl", "rsa", "-in", self.sa_key, "-pubout",
                            "-out", self.sa_pub], check=True,
                           capture_output=True)
        self.tokens = os.path.join(d, "tokens.csv")
        with open(self.tokens, "w") as f:
            for t in ((ADMIN_TOKEN, "admin", "admin-uid",
                       ["system:masters"]),) + tuple(tokens):
                f.write('%s,%s,%s,"%s"\n' % (t[0], t[1], t[2],
                                             ",".join(t[3])))
        self.kubeconfig = self.write_kubeconfig("admin", ADMIN_TOKEN)

    @property
    def url(self):
        return "https://127.0.0.1:%d" % self.port

    def write_kubeconfig(self, name, token):
        path = os.path.join(self.dir, "kubeconfig-" + name)
        with open(path, "w") as f:
            f.write("apiVersion: v1\nkind: Config\nclusters:\n"
                    "- name: c\n  cluster:\n    server: %s\n"
                    "    certificate-authority: %s\n"
                    "    tls-server-name: localhost\ncontexts:\n"
                    "- name: c\n  context: {cluster: c, user: u}\n"
                    "current-context: c\nusers:\n- name: u\n"
                    "  user: {token: %s}\n" % (self.url, self.pki.ca,
                                               token))
        return path

    def start(self):
        self.run(["--bind-address=127.0.0.1",
                  "--advertise-address=127.0.0.1",
                  "--secure-port=%d" % self.port,
                  "--etcd-servers=" + self.etcd,
                  "--etcd-prefix=/kas-%d" % self.port,
                  "--tls-cert-file=" + self.cert,
                  "--tls-private-key-file=" + self.key,
                  "--client-ca-file=" + self.pki.ca,
                  "--token-auth-file=" + self.tokens,
                  "--authorization-mode=RBAC",
                  "--service-account-issuer="
                  "https://kubernetes.default.svc.cluster.local",
                  "--service-account-key-file=" + self.sa_pub,
                  "--service-account-signing-key-file=" + self.sa_key,
                  "--service-cluster-ip-range=10.96.0.0/16"]
                 + self.audit_args())
        return self

    def ready(self, timeout=90):
        return self.wait_ready(self.port, self.pki.ca, timeout)

    def kubectl(self, *args, input=None, check=True):
        """kubectl as the admin; returns the CompletedProcess."""
        r = subprocess.run(["kubectl", "--kubeconfig", self.kubeconfig]
                           + list(args), input=input, capture_output=True,
                           text=True, timeout=60)
        if check and r.returncode:
            raise AssertionError("kubectl %s: %s" % (args, r.stderr))
        return r
