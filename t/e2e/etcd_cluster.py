"""Start and stop etcd clusters on loopback for tests and benchmarks.

    with EtcdCluster(members=3) as etcd:
        srv = GcpServer(etcd=etcd.endpoints)
        etcd.kill(0)          # SIGKILL one member
        etcd.restart(0)       # start it again on its data

Members are Debian's etcd (/usr/bin/etcd, or ETCD in the environment) on
free 127.0.0.1 ports, with their data in a temporary directory (under
/dev/shm when there is one, unless data_root says otherwise) removed by
stop().  Each member dies with the test process (PR_SET_PDEATHSIG).

With tls=True the members serve clients over HTTPS and require a client
certificate signed by the cluster's own CA (made with openssl in the
data directory): etcd.cacert, etcd.cert and etcd.key are the files a
client uses.
"""

import ctypes
import json
import os
import shutil
import signal
import ssl
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

from gcp_server import free_port

ETCD = os.environ.get("ETCD", "/usr/bin/etcd")
ETCDCTL = os.environ.get("ETCDCTL", "/usr/bin/etcdctl")


def _die_with_parent():
    # prctl(PR_SET_PDEATHSIG, SIGKILL): no member outlives a crashed test
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(1, signal.SIGKILL, 0, 0, 0)


class EtcdError(AssertionError):
    pass


class EtcdCluster:
    """A cluster of `members` etcd processes on loopback."""

    def __init__(self, members=1, data_root=None, fsync_dir=False,
                 tls=False):
        self.n = members
        self.tls = tls
        root = data_root
        if root is None and not fsync_dir and os.access("/dev/shm", os.W_OK):
            root = "/dev/shm"
        self.dir = tempfile.mkdtemp(prefix="gcp-etcd-", dir=root)
        self.client_ports = [free_port() for _ in range(members)]
        self.peer_ports = [free_port() for _ in range(members)]
        self.procs = [None] * members
        self.token = "gcp-e2e-%d-%d" % (os.getpid(), self.client_ports[0])
        pki = os.path.join(self.dir, "pki")
        self.cacert = os.path.join(pki, "ca.crt")
        self.cert = os.path.join(pki, "client.crt")
        self.key = os.path.join(pki, "client.key")
        self._ssl = None
        if tls:
            self._make_pki(pki)

    def _make_pki(self, pki):
        """A CA, a server certificate for 127.0.0.1 (also a client one:
        etcd's gateway presents it to etcd's own gRPC server) and a client
        certificate, EC P-256, valid one day."""
        os.makedirs(pki)

        def openssl(*args):
            subprocess.run(["openssl"] + list(args), check=True, cwd=pki,
                           capture_output=True, timeout=30)

        key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
               "-nodes"]
        openssl("req", "-x509", *key, "-keyout", "ca.key", "-out", "ca.crt",
                "-days", "1", "-subj", "/CN=gcp-test-etcd-ca")
        for name, usage in (("server", "serverAuth,clientAuth"),
                            ("client", "clientAuth")):
            with open(os.path.join(pki, name + ".ext"), "w") as f:
                f.write("subjectAltName=IP:127.0.0.1\n"
                        "extendedKeyUsage=%s\n" % usage)
            openssl("req", *key, "-keyout", name + ".key", "-out",
                    name + ".csr", "-subj", "/CN=gcp-test-etcd-" + name)
            openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.crt",
                    "-CAkey", "ca.key", "-CAcreateserial", "-days", "1",
                    "-extfile", name + ".ext", "-out", name + ".crt")
        self._ssl = ssl.create_default_context(cafile=self.cacert)
        self._ssl.load_cert_chain(self.cert, self.key)

    # ------------------------------------------------------------ addresses

    def endpoint(self, i):
        return "%s://127.0.0.1:%d" % ("https" if self.tls else "http",
                                      self.client_ports[i])

    @property
    def endpoints(self):
        """All client URLs, comma-separated (gcp_storage etcd's form)."""
        return ",".join(self.endpoint(i) for i in range(self.n))

    def log(self, i):
        return os.path.join(self.dir, "m%d.log" % i)

    # ------------------------------------------------------------ life

    def _cmd(self, i):
        cluster = ",".join("m%d=http://127.0.0.1:%d" % (j, self.peer_ports[j])
                           for j in range(self.n))
        peer = "http://127.0.0.1:%d" % self.peer_ports[i]
        return [ETCD, "--name", "m%d" % i,
                "--data-dir", os.path.join(self.dir, "m%d" % i),
                "--listen-client-urls", self.endpoint(i),
                "--advertise-client-urls", self.endpoint(i),
                "--listen-peer-urls", peer,
                "--initial-advertise-peer-urls", peer,
                "--initial-cluster", cluster,
                "--initial-cluster-token", self.token,
                "--initial-cluster-state", "new",
                "--heartbeat-interval", "50",
                "--election-timeout", "500",
                "--log-level", "warn"] + (
                    ["--cert-file", os.path.join(self.dir, "pki/server.crt"),
                     "--key-file", os.path.join(self.dir, "pki/server.key"),
                     "--client-cert-auth",
                     "--trusted-ca-file", self.cacert] if self.tls else [])

    def restart(self, i):
        """Starts member i (again) on its data; does not wait."""
        if self.procs[i] is not None and self.procs[i].poll() is None:
            raise EtcdError("member %d is running" % i)
        out = open(self.log(i), "ab")
        try:
            self.procs[i] = subprocess.Popen(
                self._cmd(i), stdin=subprocess.DEVNULL, stdout=out,
                stderr=out, preexec_fn=_die_with_parent)
        finally:
            out.close()

    def start(self, timeout=30):
        for i in range(self.n):
            self.restart(i)
        for i in range(self.n):
            self.wait(i, timeout)
        return self

    def kill(self, i):
        """SIGKILLs member i and reaps it."""
        p = self.procs[i]
        if p is not None:
            p.kill()
            p.wait(10)
        self.procs[i] = None

    def stop(self):
        for i in range(self.n):
            self.kill(i)
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, exc_type, exc, tb):
        self.stop()

    # ------------------------------------------------------------ requests

    def post(self, i, path, body, timeout=2):
        """POSTs JSON to member i's gateway; returns (status, json)."""
        req = urllib.request.Request(self.endpoint(i) + path,
                                     data=json.dumps(body).encode(),
                                     method="POST")
        req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=timeout,
                                        context=self._ssl) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")

    def healthy(self, i):
        """True when member i answers a linearizable read (it has a
        leader)."""
        try:
            status, _ = self.post(i, "/v3/kv/range",
                                  {"key": "AA==", "count_only": True})
            return status == 200
        except (OSError, ValueError):
            return False

    def wait(self, i, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.procs[i] is not None and self.procs[i].poll() is not None:
                raise EtcdError("member %d exited:\n%s" % (i, self.logs(i)))
            if self.healthy(i):
                return
            time.sleep(0.05)
        raise EtcdError("member %d not healthy after %ss:\n%s"
                        % (i, timeout, self.logs(i)))

    def logs(self, i):
        try:
            with open(self.log(i), errors="replace") as f:
                return f.read()[-4000:]
        except OSError:
            return ""

    def etcdctl(self, *args, check=True):
        """Runs etcdctl (API v3) against every member; returns stdout."""
        env = dict(os.environ, ETCDCTL_API="3")
        tls = ["--cacert", self.cacert, "--cert", self.cert,
               "--key", self.key] if self.tls else []
        p = subprocess.run([ETCDCTL, "--endpoints", self.endpoints] + tls
                           + list(args), capture_output=True, text=True,
                           env=env, timeout=30)
        if check and p.returncode != 0:
            raise EtcdError("etcdctl %s: %s" % (" ".join(args), p.stderr))
        return p.stdout
