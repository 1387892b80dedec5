"""Upstream servers from ../shared/peers (or GCP_PEERS) run as test peers.

    peers.available("kube-apiserver")   # the binary can be had
    p = PeerProcess(name, d); p.run(args); ...; p.stop()

A binary is unpacked into build/peers the first time it is used.  A peer
process writes its output to its log file and its audit log (JSON lines,
every request once answered, Metadata level) to audit_log, which
audit_events() reads.
"""

import json
import os
import ssl
import subprocess
import urllib.request

from gcp_wait import eventually

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
PEERS = os.environ.get("GCP_PEERS",
                       os.path.join(ROOT, "..", "shared", "peers"))
VERSION = "v1.28.4"

AUDIT_POLICY = """
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
"""


def binary(name):
    return os.path.join(ROOT, "build", "peers", name)


def available(name):
    """True when the binary can be had."""
    return os.path.exists(binary(name)) or os.path.exists(
        os.path.join(PEERS, "%s-%s.xz" % (name, VERSION)))


def unpack(name):
    """The binary's path, unpacked the first time."""
    path = binary(name)
    if os.path.exists(path):
        return path
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp.%d" % os.getpid()
    with open(tmp, "wb") as out:
        subprocess.run(["xz", "-dc", os.path.join(
            PEERS, "%s-%s.xz" % (name, VERSION))], stdout=out, check=True)
    os.chmod(tmp, 0o755)
    os.rename(tmp, path)
    return path


class PeerProcess:
    """A peer's process, its log and its audit log in directory d."""

    def __init__(self, name, d):
        self.name = name
        self.dir = d
        os.makedirs(d, exist_ok=True)
        self.proc = None
        self.log = os.path.join(d, name + ".log")
        self.audit_log = os.path.join(d, "audit.log")
        self.audit_policy = os.path.join(d, "audit-policy.yaml")
        with open(self.audit_policy, "w") as f:
            f.write(AUDIT_POLICY)

    def audit_args(self):
        return ["--audit-policy-file=" + self.audit_policy,
                "--audit-log-path=" + self.audit_log,
                "--audit-log-format=json"]

    def run(self, args):
        """Starts the binary with args."""
        self._out = open(self.log, "ab")
        self.proc = subprocess.Popen([unpack(self.name)] + list(args),
                                     stdout=self._out, stderr=self._out,
                                     stdin=subprocess.DEVNULL)

    def wait_ready(self, port, ca, timeout=60):
        """Waits until https://127.0.0.1:port/readyz answers 200 (the
        certificate checked against ca, not its name)."""
        ctx = ssl.create_default_context(cafile=ca)
        ctx.check_hostname = False

        def check():
            try:
                with urllib.request.urlopen(
                        "https://127.0.0.1:%d/readyz" % port,
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
        """The audit events written so far, those whose requestURI
        contains match when given."""
        try:
            with open(self.audit_log) as f:
                events = [json.loads(line) for line in f if line.strip()]
        except FileNotFoundError:
            return []
        return [e for e in events
                if match is None or match in e.get("requestURI", "")]
