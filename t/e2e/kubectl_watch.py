"""A `kubectl get -w` process for the end-to-end suites.

    with KubectlWatch(srv, "-n", ns, "get", "configmaps", "-w") as w:
        ...  # the watch request has been answered: write now
        assert w.until(lambda out: len(out) >= 2)
    w.out  # stdout lines

kubectl runs with -v=6, which logs each request once answered, so a
test writes only after the watch is established, however slowly kubectl
starts, and waits for the rows rather than for a fixed time.
"""

import subprocess
import threading

from gcp_server import KUBECTL
from gcp_wait import eventually


class KubectlWatch:
    def __init__(self, srv, *args, timeout=20):
        self.argv = [KUBECTL, "--kubeconfig", srv.kubeconfig, *args,
                     "--request-timeout=%ds" % timeout, "-v=6"]
        self.timeout = timeout
        self.out = []
        self.err = []

    def __enter__(self):
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.readers = [
            threading.Thread(target=self._collect, args=(s, into))
            for s, into in ((self.proc.stdout, self.out),
                            (self.proc.stderr, self.err))]
        for t in self.readers:
            t.start()
        assert eventually(lambda: any("watch=true" in l for l in self.err),
                          self.timeout), "kubectl did not watch: %r" % \
            self.err
        return self

    def __exit__(self, *exc):
        self.proc.terminate()
        self.proc.wait(10)
        for t in self.readers:
            t.join(10)

    @staticmethod
    def _collect(stream, into):
        for line in stream:
            into.append(line)

    def until(self, check):
        """Waits until check(stdout lines so far) holds; returns its
        value (false after the timeout)."""
        return eventually(lambda: check(list(self.out)), self.timeout)
