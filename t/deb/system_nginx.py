"""The system nginx (/usr/sbin/nginx) run the way Debian configures it,
for the package tests, without disturbing anything else on the machine.

    with SystemNginx(other_port) as nginx:
        nginx.start(); nginx.reload(); nginx.master_alive()

The main configuration is /etc/nginx/nginx.conf itself (user www-data,
/etc/nginx/modules-enabled/*.conf, /etc/nginx/conf.d/*.conf, ...) with
three lines changed: the pid file and the error log are the test's own,
and instead of /etc/nginx/sites-enabled (Debian's default site on port 80)
it serves one plain site of the test on a free loopback port, which shows
that nginx keeps serving other sites.  nginx runs in the foreground as a
child of the test: stopping it touches no other nginx.
"""

import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.request

from gcp_server import CRASH_PATTERNS, NGINX, child_pids, kill9_all

SYSTEM_CONF = "/etc/nginx/nginx.conf"


class SystemNginx:
    def __init__(self, other_port):
        self.other_port = other_port
        self.dir = tempfile.mkdtemp(prefix="gcp-deb-nginx-")
        self.conf = os.path.join(self.dir, "nginx.conf")
        self.error_log = os.path.join(self.dir, "error.log")
        self.pid_file = os.path.join(self.dir, "nginx.pid")
        self.proc = None
        self._write_conf()

    def _write_conf(self):
        with open(SYSTEM_CONF) as f:
            text = f.read()
        sites = os.path.join(self.dir, "sites")
        os.mkdir(sites)
        with open(os.path.join(sites, "other"), "w") as f:
            f.write("server {\n"
                    "    listen 127.0.0.1:%d;\n"
                    "    access_log off;\n"
                    "    location / { return 200 \"other site\\n\"; }\n"
                    "}\n" % self.other_port)
        for pattern, repl in (
                (r"(?m)^pid [^;]*;", "pid %s;" % self.pid_file),
                (r"(?m)^error_log [^;]*;", "error_log %s info;"
                 % self.error_log),
                (r"(?m)^(\s*)include /etc/nginx/sites-enabled/\*;",
                 r"\1include %s/*;" % sites)):
            text, n = re.subn(pattern, repl, text)
            assert n == 1, "%s: no single match of %r" % (SYSTEM_CONF,
                                                          pattern)
        for line in ("include /etc/nginx/modules-enabled/*.conf;",
                     "include /etc/nginx/conf.d/*.conf;", "user www-data;"):
            assert line in text, "%s lacks %r" % (SYSTEM_CONF, line)
        with open(self.conf, "w") as f:
            f.write(text)

    def _cli(self, *args):
        return subprocess.run([NGINX, "-c", self.conf] + list(args),
                              stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)

    def test_config(self):
        """`nginx -t`: returns (ok, output)."""
        p = self._cli("-t")
        return p.returncode == 0, p.stdout

    def start(self, timeout=20):
        ok, out = self.test_config()
        assert ok, "nginx -t failed:\n" + out
        self._stdout = open(os.path.join(self.dir, "stdout.log"), "ab")
        self.proc = subprocess.Popen([NGINX, "-c", self.conf,
                                      "-g", "daemon off;"],
                                     stdin=subprocess.DEVNULL,
                                     stdout=self._stdout,
                                     stderr=subprocess.STDOUT)
        deadline = time.time() + timeout
        while time.time() < deadline:
            assert self.proc.poll() is None, \
                "nginx exited at start:\n" + self.logs()
            if self.other_site_serves():
                return self
            time.sleep(0.05)
        raise AssertionError("nginx not serving after %ss:\n%s"
                             % (timeout, self.logs()))

    def reload(self):
        """`nginx -t`, then `nginx -s reload`: what the README's steps and
        `systemctl reload nginx` do."""
        ok, out = self.test_config()
        assert ok, "nginx -t failed:\n" + out
        p = self._cli("-s", "reload")
        assert p.returncode == 0, "nginx -s reload failed:\n" + p.stdout

    def master_alive(self):
        return self.proc is not None and self.proc.poll() is None

    def worker_pids(self):
        """The pids of the master's children."""
        return child_pids(self.proc.pid)

    def other_site_serves(self):
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/"
                                        % self.other_port, timeout=2) as r:
                return r.status == 200 and r.read() == b"other site\n"
        except OSError:
            return False

    def logs(self):
        out = []
        for name in ("stdout.log", "error.log"):
            path = os.path.join(self.dir, name)
            if os.path.exists(path):
                with open(path, errors="replace") as f:
                    out.append("--- %s\n%s" % (name, f.read()[-6000:]))
        return "\n".join(out)

    def crashes(self):
        """The error log's lines that a healthy nginx never writes."""
        if not os.path.exists(self.error_log):
            return []
        with open(self.error_log, errors="replace") as f:
            return [line for line in f
                    if any(re.search(p, line) for p in CRASH_PATTERNS)]

    def stop(self, timeout=20):
        """`nginx -s quit`, then SIGKILL to this master and its workers
        (started by this object, no other nginx) if they linger."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self._cli("-s", "quit")
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                kill9_all([self.proc.pid] + self.worker_pids())
                self.proc.wait(10)
        self.proc = None
        self._stdout.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        if exc[0] is None:
            shutil.rmtree(self.dir, ignore_errors=True)
