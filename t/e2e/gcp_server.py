"""Start and stop ngx_gcp servers for tests and benchmarks.

    with GcpServer(workers=2) as srv:
        srv.kubectl("get", "namespaces")
        api = srv.api_client()

A server is nginx with the module, started through tools/gcp-run (the same
configuration as `make run`) on a free loopback port with a temporary data
directory.  stop() shuts it down gracefully and fails if its logs show a
crash (see CRASH_PATTERNS).

Environment: GCP_MODULE (the module to load), GCP_NGINX (the nginx
binary), GCP_NGINX_PRELOAD (LD_PRELOAD for nginx only, e.g. libasan.so to
run a module built with -fsanitize=address; ASAN_OPTIONS passes through).
"""

import base64
import http.client
import os
import random
import re
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
GCP_RUN = os.path.join(ROOT, "tools", "gcp-run")
GCP_PKI = os.path.join(ROOT, "tools", "gcp-pki")
DEFAULT_MODULE = os.path.join(ROOT, "build", "nginx", "objs",
                              "ngx_http_gcp_module.so")
NGINX = os.environ.get("GCP_NGINX", "/usr/sbin/nginx")
KUBECTL = "/usr/bin/kubectl"
# helm 3.17, put there by `make e2e` (tools/fetch-helm).
HELM = os.environ.get("GCP_HELM") or os.path.join(ROOT, "build", "tools",
                                                  "helm")

# What a healthy server never logs.
CRASH_PATTERNS = [
    r"\[alert\]",
    r"\[emerg\]",
    r"\[crit\]",
    r"exited on signal",
    r"AddressSanitizer",
    r"LeakSanitizer",
    r"runtime error:",
    r"core dumped",
]


_handed_out = set()


def free_port():
    """Returns a TCP port free on 127.0.0.1 right now, not returned before
    by this process.

    With GCP_E2E_PORTS=LOW-HIGH (conftest.py gives each storage session
    its own range, below the kernel's ephemeral ports) the port is taken
    from that range, so that two sessions running at once never pick the
    same port between choosing it and binding it; otherwise the kernel
    chooses."""
    span = os.environ.get("GCP_E2E_PORTS")
    if not span:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]
    low, high = (int(x) for x in span.split("-"))
    start = random.randint(low, high)
    for i in range(high - low + 1):
        port = low + (start - low + i) % (high - low + 1)
        if port in _handed_out:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _handed_out.add(port)
        return port
    raise OSError("no free port left in GCP_E2E_PORTS=" + span)


class GcpServerError(AssertionError):
    pass


class GcpServer:
    """One nginx + ngx_gcp instance.

    workers: worker_processes (tests use 2 or more);
    http_extra, server_extra: directives added to the http and server
    blocks; listen_params: e.g. "sndbuf=64k"; storage_opts: e.g.
    "sync=off"; data_dir: reuse a directory (default: a new temporary one,
    removed by stop() when the server was healthy); etcd: etcd endpoints
    ("http://127.0.0.1:2379,...") to store the objects in instead of LMDB
    (default: GcpServer.default_etcd), under the prefix given in
    storage_opts ("prefix=/registry") or else one of the server's own.

    tls: serve HTTPS with HTTP/2 and authenticate clients, as make run
    does (its PKI in DATA/pki, the kubeconfig as the admin); authz: the
    authorization mode then ("RBAC" or "AlwaysAllow"); anonymous: allow
    anonymous requests; token_file: the text of a static token file.
    Without tls the server is plain HTTP, every request anonymous and
    allowed (the suites written before authentication).
    """

    # etcd endpoints for servers created without etcd= (the e2e session
    # sets it with pytest --storage=etcd); None: LMDB
    default_etcd = None

    # etcd servers keep one copy per instance in an LMDB mirror (gcp_storage
    # etcd's default, in the nginx prefix: the data directory) unless
    # GCP_E2E_ETCD_MIRROR=off (pytest --etcd-mirror=off sets it), which
    # gives them mirror=off (one copy per worker)
    etcd_mirror = os.environ.get("GCP_E2E_ETCD_MIRROR") != "off"

    def __init__(self, workers=2, http_extra="", server_extra="",
                 listen_params="", storage_opts="", module=None,
                 data_dir=None, log_level="info", port=None, etcd=None,
                 tls=False, authz="RBAC", anonymous=True, token_file=None):
        self.workers = workers
        self.tls = tls
        self.authz = authz
        self.anonymous = anonymous
        self.token_file = token_file
        self.http_extra = http_extra
        self.server_extra = server_extra
        self.listen_params = listen_params
        self.etcd = etcd if etcd is not None else GcpServer.default_etcd
        if self.etcd and "prefix=" not in storage_opts:
            # servers sharing an etcd see only their own objects
            storage_opts = ("%s prefix=/gcp-%s" % (
                storage_opts, uuid.uuid4().hex[:12])).strip()
        self.storage_opts = storage_opts
        self.module = module or os.environ.get("GCP_MODULE", DEFAULT_MODULE)
        self.log_level = log_level
        self.port = port or free_port()
        self._own_dir = data_dir is None
        self.data_dir = data_dir or tempfile.mkdtemp(prefix="gcp-e2e-")
        if (self.etcd and not GcpServer.etcd_mirror
                and "mirror=" not in self.storage_opts):
            self.storage_opts = ("%s mirror=off" % self.storage_opts).strip()
        self.proc = None
        self._stderr = None

    # ------------------------------------------------------------ paths

    @property
    def url(self):
        return "%s://127.0.0.1:%d" % ("https" if self.tls else "http",
                                      self.port)

    @property
    def pki(self):
        """The directory of the server's certificates and keys."""
        return os.path.join(self.data_dir, "pki")

    @property
    def kubeconfig(self):
        return os.path.join(self.data_dir, "kubeconfig")

    @property
    def error_log(self):
        return os.path.join(self.data_dir, "error.log")

    @property
    def stderr_log(self):
        return os.path.join(self.data_dir, "stderr.log")

    @property
    def conf(self):
        return os.path.join(self.data_dir, "nginx.conf")

    # ------------------------------------------------------------ life

    def _env(self):
        env = dict(os.environ)
        # nginx reads NGINX itself (sockets inherited on binary upgrade)
        env.pop("NGINX", None)
        env.update({
            "GCP_MODULE": self.module,
            "GCP_DATA": self.data_dir,
            "GCP_LISTEN": "127.0.0.1:%d" % self.port,
            "GCP_WORKERS": str(self.workers),
            "GCP_ERROR_LOG": self.error_log,
            "GCP_LOG_LEVEL": self.log_level,
            "GCP_LISTEN_PARAMS": self.listen_params,
            "GCP_STORAGE_OPTS": self.storage_opts,
            "GCP_ETCD": self.etcd or "",
            "GCP_TLS": "on" if self.tls else "off",
            "GCP_AUTHZ": self.authz,
            "GCP_ANONYMOUS": "on" if self.anonymous else "off",
            "GCP_TOKEN_AUTH_FILE": self._token_path(),
            "GCP_HTTP_EXTRA": self.http_extra,
            "GCP_SERVER_EXTRA": self.server_extra,
            "GCP_NGINX": NGINX,
        })
        return env

    def start(self, timeout=20):
        """Starts nginx (gcp-run execs it: self.proc is the master) and
        waits until /readyz (or /healthz) answers 200."""
        if self.proc is not None:
            raise GcpServerError("server already running")
        self._stderr = open(self.stderr_log, "ab")
        self.proc = subprocess.Popen([GCP_RUN], env=self._env(),
                                     stdin=subprocess.DEVNULL,
                                     stdout=self._stderr,
                                     stderr=self._stderr)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                code = self.proc.returncode
                self.proc = None
                self._closed()
                raise GcpServerError("nginx exited with %s at start:\n%s"
                                     % (code, self.logs()))
            if self._ready():
                return self
            time.sleep(0.05)
        self.kill9()
        raise GcpServerError("not ready after %ss:\n%s"
                             % (timeout, self.logs()))

    def _token_path(self):
        if self.token_file is None:
            return ""
        path = os.path.join(self.data_dir, "tokens.csv")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(self.token_file)
        return path

    def _ready(self):
        ctx = None
        if self.tls:
            if not os.path.exists(self.kubeconfig):
                return False        # gcp-run is still making the PKI
            ctx = self.ssl_context()
        for path in ("/readyz", "/healthz"):
            try:
                with urllib.request.urlopen(self.url + path, timeout=2,
                                            context=ctx) as r:
                    if r.status == 200:
                        return True
            except urllib.error.HTTPError as e:
                if e.code != 404:
                    return False
            except (OSError, http.client.HTTPException):
                return False
        return False

    def _closed(self):
        if self._stderr:
            self._stderr.close()
            self._stderr = None

    @property
    def master_pid(self):
        return self.proc.pid if self.proc else None

    def worker_pids(self):
        """Returns the pids of the master's children (the workers)."""
        if self.proc is None:
            return []
        return child_pids(self.proc.pid)

    def signal_cli(self, name):
        """Runs `nginx -s NAME` (quit, reload, stop, reopen)."""
        env = dict(os.environ)
        env.pop("NGINX", None)
        if os.environ.get("GCP_NGINX_PRELOAD"):
            # it loads the module too
            env["LD_PRELOAD"] = os.environ["GCP_NGINX_PRELOAD"]
        subprocess.run([NGINX, "-p", self.data_dir, "-e", self.error_log,
                        "-c", self.conf, "-s", name], check=True, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def wait(self, timeout=20):
        """Waits for the master to exit; returns its exit code."""
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise GcpServerError("nginx did not exit in %ss:\n%s"
                                 % (timeout, self.logs()))

    def quit(self, timeout=20):
        """Graceful shutdown with `nginx -s quit`; returns the seconds it
        took the master to exit.  Leftover workers fail the call."""
        workers = self.worker_pids()
        t0 = time.time()
        self.signal_cli("quit")
        self.wait(timeout)
        took = time.time() - t0
        self.proc = None
        self._closed()
        alive = [p for p in workers if os.path.exists("/proc/%d" % p)
                 and not _zombie(p)]
        if alive:
            raise GcpServerError("workers %s still running after quit"
                                 % alive)
        return took

    def reload(self):
        """`nginx -s reload`: new workers with the configuration."""
        self.signal_cli("reload")

    def kill9(self):
        """SIGKILLs the master and its workers at once (a crash of the
        machine as far as the data directory knows)."""
        if self.proc is None:
            return
        pids = [self.proc.pid] + self.worker_pids()
        kill9_all(pids)
        self.proc.wait(10)
        deadline = time.time() + 10
        while time.time() < deadline:
            if not any(os.path.exists("/proc/%d" % p) and not _zombie(p)
                       for p in pids):
                break
            time.sleep(0.02)
        self.proc = None
        self._closed()

    def restart(self, timeout=20):
        """Graceful stop, then start again on the same port and data."""
        if self.proc is not None:
            self.quit()
        return self.start(timeout)

    def stop(self, check=True):
        """Graceful shutdown; with check, fails when the logs show a crash
        (the data directory is kept then, and removed otherwise)."""
        if self.proc is not None:
            try:
                self.quit()
            except GcpServerError:
                self.kill9()
                raise
        if check:
            self.check_logs()
        if self._own_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, exc_type, exc, tb):
        self.stop(check=exc_type is None)

    # ------------------------------------------------------------ logs

    def logs(self):
        """The error log and stderr, as text."""
        out = []
        for path in (self.error_log, self.stderr_log):
            try:
                with open(path, errors="replace") as f:
                    out.append(f.read())
            except OSError:
                pass
        return "\n".join(out)

    def crash_lines(self):
        """Log lines that match a CRASH_PATTERNS entry."""
        rx = re.compile("|".join(CRASH_PATTERNS))
        return [line for line in self.logs().splitlines() if rx.search(line)]

    def check_logs(self):
        bad = self.crash_lines()
        if bad:
            raise GcpServerError("server logs show a crash (data kept in "
                                 "%s):\n%s" % (self.data_dir,
                                               "\n".join(bad[:50])))

    # ------------------------------------------------------------ clients

    def kubectl(self, *args, check=True, input=None, timeout=60,
                kubeconfig=None):
        """Runs /usr/bin/kubectl against the server; returns the
        CompletedProcess (text).  check: raise when it fails.
        kubeconfig: another one (see user_kubeconfig)."""
        # a discovery cache of this server's own: another server that had
        # the port before must not answer for it
        p = subprocess.run([KUBECTL, "--kubeconfig",
                            kubeconfig or self.kubeconfig, "--cache-dir",
                            os.path.join(self.data_dir, "kube-cache")]
                           + list(args), input=input, capture_output=True,
                           text=True, timeout=timeout)
        if check and p.returncode != 0:
            raise AssertionError("kubectl %s failed (%d):\n%s%s"
                                 % (" ".join(args), p.returncode, p.stdout,
                                    p.stderr))
        return p

    def api_client(self, kubeconfig=None):
        """Returns a kubernetes.client.ApiClient configured from the
        server's kubeconfig, or another one (the official Python
        client)."""
        from kubernetes import config
        return config.new_client_from_config(
            config_file=kubeconfig or self.kubeconfig)

    # ------------------------------------------------------------ TLS

    def client_cert(self, name, cn, *groups, ca="ca"):
        """Makes a client certificate for user cn in groups, signed by
        the PKI's CA (or another CA of the PKI, see other_ca); returns
        the (cert, key) paths."""
        env = dict(os.environ, GCP_PKI_CA=ca)
        subprocess.run([GCP_PKI, "client", self.pki, name, cn]
                       + list(groups), check=True, env=env)
        return (os.path.join(self.pki, name + ".crt"),
                os.path.join(self.pki, name + ".key"))

    def other_ca(self, name):
        """Makes another CA in the PKI directory (name.crt, name.key)."""
        subprocess.run([GCP_PKI, "ca", self.pki, name], check=True)

    def ssl_context(self, cert="admin"):
        """An SSL context trusting the server, presenting the client
        certificate cert (a name in the PKI, a (cert, key) pair, or
        None for none)."""
        ctx = ssl.create_default_context(
            cafile=os.path.join(self.pki, "ca.crt"))
        if isinstance(cert, str):
            cert = (os.path.join(self.pki, cert + ".crt"),
                    os.path.join(self.pki, cert + ".key"))
        if cert:
            ctx.load_cert_chain(*cert)
        return ctx

    def connection(self, cert="admin", timeout=30):
        """A new http.client connection to the server (HTTPS with the
        client certificate cert, as ssl_context() takes it, when tls)."""
        if not self.tls:
            return http.client.HTTPConnection("127.0.0.1", self.port,
                                              timeout=timeout)
        return http.client.HTTPSConnection(
            "127.0.0.1", self.port, timeout=timeout,
            context=self.ssl_context(cert))

    def user_kubeconfig(self, name, cert=None, token=None):
        """Writes DATA/kubeconfig-NAME for the server as another user: a
        client certificate (a (cert, key) pair) or a bearer token, or
        neither (anonymous); returns its path.  An anonymous kubeconfig
        holds a Basic user: without it kubectl prompts for a user name on
        TLS connections; servers ignore Basic credentials (as
        kube-apiserver since v1.19), so the requests stay anonymous."""
        def b64(path):
            with open(path, "rb") as f:
                return base64.b64encode(f.read()).decode()
        user = "\n    username: anonymous\n    password: none"
        if cert:
            user = ("\n    client-certificate-data: %s"
                    "\n    client-key-data: %s" % (b64(cert[0]),
                                                   b64(cert[1])))
        elif token:
            user = "\n    token: %s" % token
        cluster = "server: %s" % self.url
        if self.tls:
            cluster += ("\n    certificate-authority-data: %s"
                        % b64(os.path.join(self.pki, "ca.crt")))
        path = os.path.join(self.data_dir, "kubeconfig-" + name)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write("apiVersion: v1\nkind: Config\nclusters:\n"
                    "- name: c\n  cluster:\n    %s\ncontexts:\n"
                    "- name: c\n  context:\n    cluster: c\n"
                    "    user: u\ncurrent-context: c\nusers:\n"
                    "- name: u\n  user: %s\n" % (cluster, user))
        return path


def child_pids(ppid):
    """Returns the sorted pids of the processes whose parent is ppid
    (zombies included)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                stat = f.read()
        except OSError:
            continue
        # "pid (comm) state ppid ..."; comm may hold spaces
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == ppid:
            pids.append(int(entry))
    return sorted(pids)


def kill9_all(pids):
    """SIGKILLs each of pids that still exists."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _zombie(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
    except OSError:
        return True
    return stat[stat.rindex(")") + 2:].split()[0] == "Z"
