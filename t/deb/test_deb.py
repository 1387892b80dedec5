"""The Debian package libnginx-mod-http-gcp on this machine (make deb-test).

The package built by `make deb` (build/deb, or GCP_DEB) is installed,
used, reinstalled, removed and purged with apt-get, as README.md
("Installing the Debian package") documents, inside the system nginx
(/usr/sbin/nginx with /etc/nginx/nginx.conf, see system_nginx.py) on free
loopback ports.

It changes the machine: run it as root where the machine is disposable
(CI).  It owns the package, /etc/ngx-gcp and /var/lib/ngx-gcp: they are
purged and deleted before and after.  A lock file keeps two runs from
overlapping; apt-get waits for the dpkg lock of other installs.  No other
nginx is touched.
"""

import fcntl
import glob
import os
import pwd
import re
import shutil
import socket
import stat
import subprocess

import pytest

from gcp_server import KUBECTL, ROOT, free_port
from gcp_wait import eventually
from system_nginx import SystemNginx

PACKAGE = "libnginx-mod-http-gcp"
MODULE_SO = "/usr/lib/nginx/modules/ngx_http_gcp_module.so"
AVAILABLE = "/usr/share/nginx/modules-available/mod-http-gcp.conf"
ENABLED = "/etc/nginx/modules-enabled/50-mod-http-gcp.conf"
CONFFILE = "/etc/nginx/conf.d/ngx-gcp.conf"
INCLUDE = "/usr/share/ngx-gcp/nginx/ngx-gcp.conf"
EXAMPLE = "/usr/share/doc/%s/examples/ngx-gcp.conf" % PACKAGE
ETC = "/etc/ngx-gcp"
PKI = ETC + "/pki"
SITE = ETC + "/conf.d/control-plane.conf"
KUBECONFIG = ETC + "/admin.conf"
DATA = "/var/lib/ngx-gcp"
ABI_FILE = "/usr/share/nginx/src/debian/libnginx-mod.abisubstvars"
LOCK = "/run/lock/ngx-gcp-deb-test.lock"


# ---------------------------------------------------------------- helpers


def run(*args, **kw):
    p = subprocess.run(list(args), stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=600, **kw)
    assert p.returncode == 0, "%s failed (%d):\n%s" % (
        " ".join(args), p.returncode, p.stdout)
    return p.stdout


def apt(*args):
    """apt-get, waiting for the dpkg lock of other installs."""
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    return run("apt-get", "-y", "-q", "-o", "DPkg::Lock::Timeout=600",
               *args, env=env)


def installed():
    p = subprocess.run(["dpkg-query", "-W", "-f", "${Status}", PACKAGE],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       text=True)
    return p.stdout.strip()


def kubectl(*args, check=True, input=None):
    env = dict(os.environ, KUBECONFIG=KUBECONFIG)
    p = subprocess.run([KUBECTL] + list(args), input=input, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=60)
    if check:
        assert p.returncode == 0, "kubectl %s: %s" % (" ".join(args),
                                                      p.stderr)
    return p


def api_ready():
    p = kubectl("get", "--raw", "/readyz", check=False)
    return p.returncode == 0 and p.stdout == "ok"


def refused(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except ConnectionRefusedError:
        return True
    except OSError:
        return False
    return False


def owner_mode(path):
    st = os.stat(path)
    return (pwd.getpwuid(st.st_uid).pw_name, stat.S_IMODE(st.st_mode))


def can_read(user, path):
    return subprocess.run(["runuser", "-u", user, "--", "test", "-r", path],
                          stdin=subprocess.DEVNULL).returncode == 0


def uid_of(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("Uid:"):
                return set(int(u) for u in line.split()[1:])
    return set()


def walkthrough():
    """The commands of README.md's "A kubectl walk-through", but the line
    that points KUBECONFIG at make run's kubeconfig."""
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    m = re.search(r"^## A kubectl walk-through\n.*?^```\n(.*?)^```",
                  text, re.S | re.M)
    assert m, "README.md: no kubectl walk-through"
    lines = m.group(1).splitlines()
    kept = [line for line in lines
            if not line.startswith("export KUBECONFIG=")]
    assert len(kept) == len(lines) - 1
    return "\n".join(kept) + "\n"


def purge_everything():
    if installed():
        apt("purge", PACKAGE)
    shutil.rmtree(ETC, ignore_errors=True)
    shutil.rmtree(DATA, ignore_errors=True)


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def deb():
    path = os.environ.get("GCP_DEB")
    if not path:
        found = glob.glob(os.path.join(ROOT, "build", "deb",
                                       PACKAGE + "_*.deb"))
        assert len(found) == 1, "no single package in build/deb " \
            "(make deb builds it): %s" % found
        path = found[0]
    return os.path.abspath(path)


@pytest.fixture
def machine():
    """The machine without the package, /etc/ngx-gcp or /var/lib/ngx-gcp
    (before and after), for one test run at a time."""
    assert os.geteuid() == 0, "the package tests install packages: root"
    with open(LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        purge_everything()
        try:
            yield
        finally:
            purge_everything()


# ---------------------------------------------------------------- tests


def test_package_fields_and_files(deb):
    fields = run("dpkg-deb", "-f", deb, "Package", "Depends", "Section")
    assert "Package: %s\n" % PACKAGE in fields
    assert "Section: httpd\n" in fields

    # the nginx ABI it was built against, which the system nginx provides
    with open(ABI_FILE) as f:
        abi = re.search(r"^nginx:abi=(\S+)$", f.read(), re.M).group(1)
    depends = [d.strip() for d in
               re.search(r"^Depends: (.*)$", fields, re.M).group(1)
               .split(",")]
    assert abi in depends
    provides = run("dpkg-query", "-W", "-f", "${Provides}", "nginx")
    assert abi in [p.strip() for p in provides.split(",")]

    files = set(re.sub(r"^\.", "", line.split()[-1]).rstrip("/")
                for line in run("dpkg-deb", "-c", deb).splitlines())
    for path in (MODULE_SO, AVAILABLE, CONFFILE, INCLUDE, EXAMPLE,
                 "/usr/sbin/ngx-gcp-pki", "/usr/sbin/ngx-gcp-kubeconfig",
                 "/usr/share/man/man8/ngx-gcp-pki.8.gz",
                 "/usr/share/man/man8/ngx-gcp-kubeconfig.8.gz",
                 "/usr/share/doc/%s/README.md.gz" % PACKAGE,
                 ETC + "/conf.d"):
        assert path in files, path
    # nothing under /var: the data directory is made by postinst
    assert not [p for p in files if p.startswith("/var")]

    control = os.path.join(os.path.dirname(deb), "control-of-" + PACKAGE)
    shutil.rmtree(control, ignore_errors=True)
    run("dpkg-deb", "-e", deb, control)
    try:
        with open(os.path.join(control, "conffiles")) as f:
            assert f.read().split() == [CONFFILE]
        for script in ("postinst", "prerm", "postrm"):
            with open(os.path.join(control, script)) as f:
                text = "".join(line for line in f
                               if not line.lstrip().startswith("#"))
            # a running nginx is at most asked to reload, through the
            # trigger of the nginx package (dh_nginx)
            for word in ("restart", "invoke-rc.d", "systemctl", "rm -r",
                         "start"):
                assert word not in text, (script, word)
    finally:
        shutil.rmtree(control, ignore_errors=True)


def test_install_serve_reload_reinstall_remove_purge(deb, machine):
    port, other = free_port(), free_port()
    url = "https://127.0.0.1:%d" % port

    with SystemNginx(other) as nginx:
        # nginx already serves another site when the package comes
        nginx.start()

        # ---- install: the module enabled, the data directory made
        apt("install", deb)
        assert installed() == "install ok installed"
        assert os.readlink(ENABLED) == AVAILABLE
        with open(AVAILABLE) as f:
            assert f.read() == "load_module modules/ngx_http_gcp_module.so;\n"
        assert owner_mode(DATA) == ("www-data", 0o700)
        assert os.listdir(DATA) == []
        assert os.listdir(ETC + "/conf.d") == []

        # the module loads and serves nothing until configured
        nginx.reload()
        assert eventually(nginx.other_site_serves)

        # ---- README: the PKI, the example configuration, the kubeconfig
        run("ngx-gcp-pki", "init", PKI)
        with open(EXAMPLE) as f:
            example = f.read()
        site, n = re.subn(r"listen 127\.0\.0\.1:6443 ",
                          "listen 127.0.0.1:%d " % port, example)
        assert n == 1
        with open(SITE, "w") as f:
            f.write(site)
        nginx.reload()
        run("ngx-gcp-kubeconfig", KUBECONFIG, url, PKI)
        assert owner_mode(KUBECONFIG) == ("root", 0o600)
        assert eventually(api_ready, 20), nginx.logs()
        assert nginx.other_site_serves()

        # ---- www-data: the workers run as nginx's user, and open the
        # database; the keys are root's alone (the master read them)
        www = pwd.getpwnam("www-data").pw_uid
        workers = nginx.worker_pids()
        assert workers and all(uid_of(p) == {www} for p in workers)
        assert owner_mode(DATA) == ("www-data", 0o700)
        for name in ("data.mdb", "lock.mdb"):
            path = os.path.join(DATA, name)
            assert owner_mode(path) == ("www-data", 0o600), path
            assert can_read("www-data", path)
            assert not can_read("nobody", path)
        assert owner_mode(PKI) == ("root", 0o700)
        for name in os.listdir(PKI):
            assert owner_mode(os.path.join(PKI, name)) == ("root", 0o600)
        assert not can_read("www-data", PKI + "/sa.key")
        assert not can_read("www-data", PKI + "/ca.key")

        # ---- the kubectl walk-through of README.md
        script = ("set -e\n" + walkthrough()
                  + "kill $(jobs -p) 2>/dev/null || true\nwait\n")
        p = subprocess.run(["bash", "-c", script],
                           env=dict(os.environ, KUBECONFIG=KUBECONFIG),
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=300)
        assert p.returncode == 0, p.stdout
        out = p.stdout
        assert re.search(r"^Server Version: v1\.32\.", out, re.M), out
        for line in ("namespace/demo created",
                     "configmap/app-config created",
                     "secret/app-secret created",
                     "configmap/app-config labeled",
                     "configmap/app-config annotated",
                     "configmap/app-config patched",
                     "configmap/tmp created (server dry run)",
                     'configmap "app-config" deleted'):
            assert line + "\n" in out, (line, out)
        assert "FIELD: data <map[string]string>" in out, out
        cm = kubectl("-n", "demo", "get", "configmap", "app-config",
                     check=False)
        assert "NotFound" in cm.stderr
        secret = kubectl("-n", "demo", "get", "secret", "app-secret",
                         "-o", "jsonpath={.data.password}").stdout
        assert secret == "czNjcmV0"

        # ---- reload: new workers, same objects
        old = set(nginx.worker_pids())
        nginx.reload()
        assert eventually(lambda: not old & set(nginx.worker_pids()), 30)
        assert eventually(api_ready)
        kubectl("get", "namespace", "demo")

        # ---- the same package again (an upgrade to the same version):
        # the module stays enabled, the data directory untouched
        before = os.stat(DATA)
        apt("install", "--reinstall", deb)
        assert os.readlink(ENABLED) == AVAILABLE
        after = os.stat(DATA)
        assert (after.st_uid, after.st_mode, after.st_ino) \
            == (before.st_uid, before.st_mode, before.st_ino)
        nginx.reload()
        assert eventually(api_ready)
        kubectl("-n", "demo", "get", "secret", "app-secret")

        # ---- remove: the module and the include of /etc/ngx-gcp/conf.d
        # go, the configuration still loads, nginx serves on without the
        # control plane
        master = nginx.proc.pid
        apt("remove", PACKAGE)
        assert not os.path.lexists(ENABLED)
        assert os.path.islink(ENABLED + ".removed")
        assert not os.path.exists(MODULE_SO)
        assert not os.path.exists(INCLUDE)
        assert os.path.exists(CONFFILE) and os.path.exists(SITE)
        nginx.reload()
        assert eventually(lambda: refused(port), 30)
        assert nginx.master_alive() and nginx.proc.pid == master
        assert nginx.other_site_serves()

        # ---- purge: the package's files go; the operator's stay: the
        # database in /var/lib/ngx-gcp, the PKI and configuration in
        # /etc/ngx-gcp
        apt("purge", PACKAGE)
        assert installed() == ""
        assert not os.path.lexists(ENABLED + ".removed")
        assert not os.path.exists(CONFFILE)
        assert owner_mode(DATA) == ("www-data", 0o700)
        assert os.path.exists(os.path.join(DATA, "data.mdb"))
        assert os.path.exists(SITE) and os.path.exists(PKI + "/ca.key")
        nginx.reload()
        assert eventually(nginx.other_site_serves)
        assert nginx.master_alive()

        # ---- installed again, it serves the objects it kept
        apt("install", deb)
        assert os.readlink(ENABLED) == AVAILABLE
        nginx.reload()
        assert eventually(api_ready, 20), nginx.logs()
        kubectl("-n", "demo", "get", "secret", "app-secret")

        nginx.stop()
        assert nginx.crashes() == [], nginx.logs()
