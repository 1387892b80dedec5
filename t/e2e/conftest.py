"""Fixtures shared by the end-to-end tests.

    server        one ngx_gcp server (2 workers) for the whole session; its
                  logs are checked for crashes when the session ends

With `pytest --storage=etcd`, every server of the session (the fixture's
and those tests start themselves) stores its objects in one etcd member
started for the session on loopback, each under a prefix of its own;
each server keeps one copy per instance in an LMDB mirror, as gcp_storage
etcd does by default (in its nginx prefix, the server's data directory);
with `--etcd-mirror=off` (or GCP_E2E_ETCD_MIRROR=off) each worker keeps
its own copy instead (mirror=off; make test runs test_etcd.py so too).
A test file that sets STORAGE_INDEPENDENT = True (what it checks happens
before or beside the store: authentication, proxying to another server;
or its tests start the storage they need themselves) runs in the LMDB session only: the etcd session deselects it.
    unique_name   unique_name("cm") -> "cm-3f9a1c2e": a DNS-1123 name no
                  other test uses
    namespace     a fresh namespace, created through the API for the test
                  and deleted after it
"""

import os
import sys
import uuid

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gcp_server import GcpServer  # noqa: E402

# tools/gcp-run serves HTTPS with authentication unless GCP_TLS=off; the
# suites written before TLS run it (directly or through GcpServer without
# tls=True) in plain HTTP, every request anonymous and allowed.
os.environ.setdefault("GCP_TLS", "off")


def pytest_addoption(parser):
    parser.addoption("--storage", choices=("lmdb", "etcd"), default="lmdb",
                     help="storage backend of the servers (default lmdb)")
    parser.addoption("--etcd-mirror", choices=("on", "off"), nargs="?",
                     const="on", default=None,
                     help="on (the default): etcd servers keep one copy "
                          "per instance in an LMDB mirror; off: one per "
                          "worker (gcp_storage etcd mirror=off)")


# the ports of each session's servers (gcp_server.free_port): the two
# sessions of make test run at the same time
PORTS = {"lmdb": "20000-25999", "etcd": "26000-31999"}


def pytest_configure(config):
    os.environ.setdefault("GCP_E2E_PORTS",
                          PORTS[config.getoption("--storage")])
    mirror = config.getoption("--etcd-mirror")
    if mirror is not None:
        os.environ["GCP_E2E_ETCD_MIRROR"] = mirror
        GcpServer.etcd_mirror = mirror != "off"


def pytest_collection_modifyitems(config, items):
    if config.getoption("--storage") != "etcd":
        return
    keep, drop = [], []
    for item in items:
        independent = getattr(item.module, "STORAGE_INDEPENDENT", False)
        (drop if independent else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture(scope="session", autouse=True)
def storage(request):
    """The session's backend: "lmdb", or "etcd" with a member running."""
    kind = request.config.getoption("--storage")
    if kind != "etcd":
        yield kind
        return
    from etcd_cluster import EtcdCluster
    with EtcdCluster(members=1) as etcd:
        GcpServer.default_etcd = etcd.endpoints
        try:
            yield kind
        finally:
            GcpServer.default_etcd = None


@pytest.fixture(scope="session")
def server(storage):
    srv = GcpServer(workers=2).start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def unique_name():
    def make(prefix="t"):
        return "%s-%s" % (prefix, uuid.uuid4().hex[:8])
    return make


@pytest.fixture
def namespace(server, unique_name):
    from kubernetes import client

    name = unique_name("ns")
    with server.api_client() as api:
        core = client.CoreV1Api(api)
        core.create_namespace(client.V1Namespace(
            metadata=client.V1ObjectMeta(name=name)))
        try:
            yield name
        finally:
            core.delete_namespace(name)
