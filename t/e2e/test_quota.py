"""ResourceQuota end to end: the captured exchanges of section 12
(/work/shared/reference/12-resourcequota-*), status kept by the quota
controller, refusal at admission with upstream's message, and concurrent
creates from many connections (over both workers) against one limit.

The server publishes a CA (gcp_root_ca_file), so that every namespace has
kube-root-ca.crt, which counts as a ConfigMap, as in the captures.
"""

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException

from gcp_server import GcpServer
from gcp_wait import eventually


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    d = tmp_path_factory.mktemp("quota-ca")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048",
                    "-nodes", "-keyout", str(d / "ca.key"), "-out",
                    str(d / "ca.crt"), "-days", "2", "-subj",
                    "/CN=e2e-quota-ca"], check=True, capture_output=True)
    s = GcpServer(workers=2,
                  http_extra="gcp_root_ca_file %s;" % (d / "ca.crt")).start()
    try:
        yield s
    finally:
        s.stop()


@pytest.fixture
def ns(srv, unique_name):
    name = unique_name("quota")
    srv.kubectl("create", "namespace", name)
    # the root CA publisher's ConfigMap is there before the test starts
    assert eventually(lambda: srv.kubectl("-n", name, "get", "configmap",
                                          "kube-root-ca.crt",
                                          check=False).returncode == 0)
    yield name
    srv.kubectl("delete", "namespace", name, "--wait=false", check=False)


def api_call(srv, method, path, body=None):
    """One request through the Python client's transport; returns
    (status, decoded body)."""
    with srv.api_client() as api:
        try:
            r = api.call_api(path, method, body=body,
                             header_params={"Accept": "application/json",
                                            "Content-Type":
                                            "application/json"},
                             auth_settings=["BearerToken"],
                             _preload_content=False)
            return r[1], json.loads(r[0].data)
        except ApiException as e:
            return e.status, json.loads(e.body)


def normalized(obj):
    """obj without what differs from run to run."""
    meta = obj.get("metadata", {})
    for k in ("uid", "resourceVersion", "creationTimestamp",
              "managedFields"):
        meta.pop(k, None)
    return obj


def used(srv, ns, name="q"):
    with srv.api_client() as api:
        q = client.CoreV1Api(api).read_namespaced_resource_quota(name, ns)
    return (q.status.used if q.status else None) or {}


def test_reference_exchanges(srv, ns):
    base = "/api/v1/namespaces/%s" % ns

    # 12-resourcequota-create: 201, the status empty until the controller
    st, body = api_call(srv, "POST", base + "/resourcequotas", {
        "apiVersion": "v1", "kind": "ResourceQuota",
        "metadata": {"name": "q"},
        "spec": {"hard": {"count/configmaps": "2", "secrets": "5"}}})
    assert st == 201
    assert normalized(body) == {
        "kind": "ResourceQuota", "apiVersion": "v1",
        "metadata": {"name": "q", "namespace": ns},
        "spec": {"hard": {"count/configmaps": "2", "secrets": "5"}},
        "status": {}}

    # 12-resourcequota-get-status: hard and used computed
    assert eventually(lambda: used(srv, ns) == {"count/configmaps": "1",
                                                "secrets": "0"})
    st, body = api_call(srv, "GET", base + "/resourcequotas/q")
    assert st == 200
    assert normalized(body) == {
        "kind": "ResourceQuota", "apiVersion": "v1",
        "metadata": {"name": "q", "namespace": ns},
        "spec": {"hard": {"count/configmaps": "2", "secrets": "5"}},
        "status": {"hard": {"count/configmaps": "2", "secrets": "5"},
                   "used": {"count/configmaps": "1", "secrets": "0"}}}

    # 12-resourcequota-within
    st, body = api_call(srv, "POST", base + "/configmaps", {
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "fits"}})
    assert st == 201
    assert normalized(body) == {"kind": "ConfigMap", "apiVersion": "v1",
                                "metadata": {"name": "fits",
                                             "namespace": ns}}

    # 12-resourcequota-exceeded
    st, body = api_call(srv, "POST", base + "/configmaps", {
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "too-many"}})
    assert st == 403
    assert body == {
        "kind": "Status", "apiVersion": "v1", "metadata": {},
        "status": "Failure",
        "message": 'configmaps "too-many" is forbidden: exceeded quota: q, '
                   'requested: count/configmaps=1, used: '
                   'count/configmaps=2, limited: count/configmaps=2',
        "reason": "Forbidden",
        "details": {"name": "too-many", "kind": "configmaps"},
        "code": 403}


def test_kubectl(srv, ns):
    p = srv.kubectl("-n", ns, "create", "quota", "q",
                    "--hard=count/configmaps=5,secrets=3")
    assert p.stdout == "resourcequota/q created\n"

    assert eventually(lambda: used(srv, ns) == {"count/configmaps": "1",
                                                "secrets": "0"})
    out = srv.kubectl("-n", ns, "get", "quota").stdout.split("\n")
    assert out[0].split() == ["NAME", "REQUEST", "LIMIT", "AGE"]
    assert out[1].startswith("q ")
    assert "count/configmaps: 1/5, secrets: 0/3" in out[1]

    for i in range(4):
        srv.kubectl("-n", ns, "create", "configmap", "c%d" % i)
    p = srv.kubectl("-n", ns, "create", "configmap", "c4", check=False)
    assert p.returncode == 1
    assert p.stderr == (
        'error: failed to create configmap: configmaps "c4" is forbidden: '
        'exceeded quota: q, requested: count/configmaps=1, used: '
        'count/configmaps=5, limited: count/configmaps=5\n')

    out = srv.kubectl("-n", ns, "describe", "quota", "q").stdout
    assert "count/configmaps  5     5" in out
    assert "secrets           0     3" in out


def test_used_follows_creates_and_deletes(srv, ns):
    with srv.api_client() as api:
        core = client.CoreV1Api(api)
        core.create_namespaced_resource_quota(ns, client.V1ResourceQuota(
            metadata={"name": "q"},
            spec={"hard": {"configmaps": "100", "secrets": "100"}}))
        assert eventually(lambda: used(srv, ns) == {"configmaps": "1",
                                                    "secrets": "0"})

        for i in range(5):
            core.create_namespaced_config_map(ns, client.V1ConfigMap(
                metadata={"name": "c%d" % i}))
            core.create_namespaced_secret(ns, client.V1Secret(
                metadata={"name": "s%d" % i}))
        # charged as they are created
        assert used(srv, ns) == {"configmaps": "6", "secrets": "5"}

        for i in range(3):
            core.delete_namespaced_config_map("c%d" % i, ns)
        core.delete_namespaced_secret("s0", ns)
        assert eventually(lambda: used(srv, ns) == {"configmaps": "3",
                                                    "secrets": "4"})

        q = core.read_namespaced_resource_quota_status("q", ns)
        assert q.status.hard == {"configmaps": "100", "secrets": "100"}


def test_concurrent_creates_never_exceed(srv, ns):
    with srv.api_client() as api:
        client.CoreV1Api(api).create_namespaced_resource_quota(
            ns, client.V1ResourceQuota(
                metadata={"name": "q"},
                spec={"hard": {"count/configmaps": "10"}}))
    assert eventually(lambda: used(srv, ns) == {"count/configmaps": "1"})

    def create(i):
        # one client (and connection) per request: both workers serve
        with srv.api_client() as api:
            try:
                client.CoreV1Api(api).create_namespaced_config_map(
                    ns, client.V1ConfigMap(metadata={"name": "c%d" % i}))
                return 201
            except ApiException as e:
                assert e.status == 403, e.body
                assert "exceeded quota: q" in json.loads(e.body)["message"]
                return 403

    with ThreadPoolExecutor(16) as pool:
        results = list(pool.map(create, range(60)))

    # kube-root-ca.crt took one of the ten
    assert results.count(201) == 9
    assert results.count(403) == 51

    with srv.api_client() as api:
        items = client.CoreV1Api(api).list_namespaced_config_map(ns).items
    assert len(items) == 10
    assert used(srv, ns) == {"count/configmaps": "10"}
