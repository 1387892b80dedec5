"""The built-in controllers end to end, with kubectl and the Python client:
service accounts and the root CA in every namespace, namespace deletion,
garbage collection, restarts in the middle of a deletion, the
gcp_controllers directive, and leader election between two instances on
one etcd.

The servers here publish a CA of the test's own (gcp_root_ca_file) so that
kube-root-ca.crt can be compared with it.
"""

import json
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from kubernetes import client

from gcp_http import call
from gcp_server import GcpServer
from gcp_wait import eventually

DESCRIPTION = (
    "Contains a CA bundle that can be used to verify the kube-apiserver "
    "when using internal endpoints such as the internal service IP or "
    "kubernetes.default.svc. No other usage is guaranteed across "
    "distributions of Kubernetes clusters.")


@pytest.fixture(scope="module")
def root_ca(tmp_path_factory):
    d = tmp_path_factory.mktemp("root-ca")
    crt = d / "ca.crt"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048",
                    "-nodes", "-keyout", str(d / "ca.key"), "-out", str(crt),
                    "-days", "2", "-subj", "/CN=e2e-root-ca"],
                   check=True, capture_output=True)
    return crt


@pytest.fixture(scope="module")
def srv(root_ca):
    s = GcpServer(workers=2,
                  http_extra="gcp_root_ca_file %s;" % root_ca).start()
    try:
        yield s
    finally:
        s.stop()


@pytest.fixture(scope="module")
def core(srv):
    with srv.api_client() as api:
        yield client.CoreV1Api(api)


@pytest.fixture
def namespace(srv, unique_name):
    """A fresh namespace on srv, deleted after the test."""
    name = unique_name("gc")
    srv.kubectl("create", "namespace", name)
    yield name
    srv.kubectl("delete", "namespace", name, "--wait=false", check=False)


def get(srv, *args):
    p = srv.kubectl("get", *args, "-o", "json", check=False)
    return json.loads(p.stdout) if p.returncode == 0 else None


def exists(srv, *args):
    return srv.kubectl("get", *args, "-o", "name",
                       check=False).returncode == 0


def configmap(name, owners=None, finalizers=None):
    meta = {"name": name}
    if owners:
        meta["ownerReferences"] = owners
    if finalizers:
        meta["finalizers"] = finalizers
    return client.V1ConfigMap(metadata=meta)


def owner_ref(obj, block=False, kind="ConfigMap"):
    ref = {"apiVersion": "v1", "kind": kind, "name": obj.metadata.name,
           "uid": obj.metadata.uid}
    if block:
        ref["blockOwnerDeletion"] = True
    return ref


def condition(ns, kind):
    for c in ns["status"].get("conditions", []):
        if c["type"] == kind:
            return c
    return None


# ---------------------------------------------------------------- namespaces


def test_new_namespace_gets_service_account_and_root_ca(srv, root_ca,
                                                        unique_name):
    name = unique_name("ctl")
    srv.kubectl("create", "namespace", name)

    # both within a second of the create's answer: polled over HTTP (a
    # kubectl process per poll takes longer than the delay measured)
    paths = ["/api/v1/namespaces/%s/serviceaccounts/default" % name,
             "/api/v1/namespaces/%s/configmaps/kube-root-ca.crt" % name]
    assert eventually(lambda: all(call(srv, "GET", p).status == 200
                                  for p in paths), 1.0, interval=0.01)

    sa = get(srv, "-n", name, "serviceaccount", "default")
    assert sa["metadata"]["name"] == "default"
    assert "secrets" not in sa

    cm = get(srv, "-n", name, "configmap", "kube-root-ca.crt")
    assert cm["data"] == {"ca.crt": root_ca.read_text()}
    assert cm["metadata"]["annotations"] == {
        "kubernetes.io/description": DESCRIPTION}

    # deleted: created again; edited: put back
    srv.kubectl("-n", name, "delete", "serviceaccount", "default")
    assert eventually(lambda: exists(srv, "-n", name, "serviceaccount",
                                     "default"))
    srv.kubectl("-n", name, "patch", "configmap", "kube-root-ca.crt",
                "--type=merge", "-p", '{"data":{"ca.crt":"stale"}}')
    assert eventually(lambda: get(srv, "-n", name, "configmap",
                                  "kube-root-ca.crt")["data"]["ca.crt"]
                      == root_ca.read_text())

    srv.kubectl("delete", "namespace", name)


def test_delete_namespace_with_1000_objects(srv, core, unique_name):
    name = unique_name("big")
    srv.kubectl("create", "namespace", name)

    def make(i):
        core.create_namespaced_config_map(name, configmap("cm-%d" % i))

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(make, range(1000)))
    assert len(core.list_namespaced_config_map(name).items) >= 1000

    t0 = time.time()
    p = srv.kubectl("delete", "namespace", name, "--timeout=120s",
                    timeout=180)
    assert p.stdout == 'namespace "%s" deleted\n' % name
    took = time.time() - t0
    assert took < 60

    p = srv.kubectl("get", "namespace", name, check=False)
    assert p.returncode == 1
    assert p.stderr == ('Error from server (NotFound): namespaces "%s" not '
                        'found\n' % name)
    assert core.list_namespaced_config_map(name).items == []


def test_finalizers_hold_the_namespace(srv, core, unique_name):
    name = unique_name("held")
    srv.kubectl("create", "namespace", name)
    core.create_namespaced_config_map(name, configmap(
        "held", finalizers=["example.com/hold"]))
    core.create_namespaced_config_map(name, configmap("free"))

    p = srv.kubectl("delete", "namespace", name, "--wait=false")
    assert p.stdout == 'namespace "%s" deleted\n' % name

    # what upstream's namespace controller reports while content remains
    ns = eventually(lambda: (lambda n: n if condition(n, "NamespaceContent"
                                                      "Remaining") else None)(
        get(srv, "namespace", name)))
    assert ns["status"]["phase"] == "Terminating"
    assert [c["type"] for c in ns["status"]["conditions"]] == [
        "NamespaceDeletionDiscoveryFailure",
        "NamespaceDeletionGroupVersionParsingFailure",
        "NamespaceDeletionContentFailure",
        "NamespaceContentRemaining",
        "NamespaceFinalizersRemaining"]
    assert {k: v for k, v in condition(ns, "NamespaceContentRemaining")
            .items() if k != "lastTransitionTime"} == {
        "type": "NamespaceContentRemaining", "status": "True",
        "reason": "SomeResourcesRemain",
        "message": "Some resources are remaining: configmaps. has 1 "
                   "resource instances"}
    assert {k: v for k, v in condition(ns, "NamespaceFinalizersRemaining")
            .items() if k != "lastTransitionTime"} == {
        "type": "NamespaceFinalizersRemaining", "status": "True",
        "reason": "SomeFinalizersRemain",
        "message": "Some content in the namespace has finalizers "
                   "remaining: example.com/hold in 1 resource instances"}
    assert {k: v for k, v in condition(ns, "NamespaceDeletionContentFailure")
            .items() if k != "lastTransitionTime"} == {
        "type": "NamespaceDeletionContentFailure", "status": "False",
        "reason": "ContentDeleted",
        "message": "All content successfully deleted, may be waiting on "
                   "finalization"}
    assert ns["spec"]["finalizers"] == ["kubernetes"]

    names, rows = table(srv.kubectl("get", "namespace", name).stdout)
    assert rows[0][:2] == [name, "Terminating"]

    held = get(srv, "-n", name, "configmap", "held")
    assert "deletionTimestamp" in held["metadata"]
    assert not exists(srv, "-n", name, "configmap", "free")

    # nothing new may be created in it
    p = srv.kubectl("-n", name, "create", "configmap", "late", check=False)
    assert p.returncode == 1
    assert "because it is being terminated" in p.stderr

    srv.kubectl("-n", name, "patch", "configmap", "held", "--type=merge",
                "-p", '{"metadata":{"finalizers":null}}')
    p = srv.kubectl("wait", "--for=delete", "namespace/%s" % name,
                    "--timeout=10s")
    assert p.returncode == 0


def table(text):
    lines = text.strip().split("\n")
    return lines[0].split(), [line.split() for line in lines[1:]]


def test_other_spec_finalizer_keeps_it_terminating(srv, core, unique_name):
    name = unique_name("spec")
    core.create_namespace(client.V1Namespace(
        metadata={"name": name}, spec={"finalizers": ["example.com/hold"]}))
    core.create_namespaced_config_map(name, configmap("a"))

    core.delete_namespace(name)

    # the controller removes its own finalizer only
    ns = eventually(lambda: (lambda n: n if n["spec"]["finalizers"]
                             == ["example.com/hold"] else None)(
        get(srv, "namespace", name)))
    assert ns["status"]["phase"] == "Terminating"
    assert {k: v for k, v in condition(ns, "NamespaceContentRemaining")
            .items() if k != "lastTransitionTime"} == {
        "type": "NamespaceContentRemaining", "status": "False",
        "reason": "ContentRemoved",
        "message": "All content successfully removed"}
    assert core.list_namespaced_config_map(name).items == []

    # whoever owns the other finalizer removes it: the namespace goes
    ns = core.read_namespace(name)
    ns.spec.finalizers = []
    core.replace_namespace_finalize(name, ns)
    assert eventually(lambda: not exists(srv, "namespace", name))


# ---------------------------------------------------------------- garbage
# collection


def test_gc_background(srv, core, namespace):
    owner = core.create_namespaced_config_map(namespace, configmap("owner"))
    core.create_namespaced_config_map(namespace, configmap(
        "dep", owners=[owner_ref(owner)]))
    core.create_namespaced_secret(namespace, client.V1Secret(metadata={
        "name": "dep-secret", "ownerReferences": [owner_ref(owner)]}))

    time.sleep(0.3)
    assert exists(srv, "-n", namespace, "configmap", "dep")

    p = srv.kubectl("-n", namespace, "delete", "configmap", "owner")
    assert p.stdout == 'configmap "owner" deleted\n'

    assert eventually(lambda: not exists(srv, "-n", namespace, "configmap",
                                         "dep")
                      and not exists(srv, "-n", namespace, "secret",
                                     "dep-secret"))


def test_gc_foreground_chain_of_three(srv, core, namespace):
    a = core.create_namespaced_config_map(namespace, configmap("a"))
    b = core.create_namespaced_config_map(namespace, configmap(
        "b", owners=[owner_ref(a, block=True)]))
    core.create_namespaced_config_map(namespace, configmap(
        "c", owners=[owner_ref(b, block=True)],
        finalizers=["example.com/hold"]))

    p = srv.kubectl("-n", namespace, "delete", "configmap", "a",
                    "--cascade=foreground", "--wait=false")
    assert p.stdout == 'configmap "a" deleted\n'

    # c is held: b waits for c, a waits for b
    def all_deleting():
        objs = [get(srv, "-n", namespace, "configmap", n)
                for n in ("a", "b", "c")]
        return all(o and "deletionTimestamp" in o["metadata"]
                   for o in objs) and objs

    objs = eventually(all_deleting)
    assert objs
    time.sleep(0.5)
    a_now = get(srv, "-n", namespace, "configmap", "a")
    b_now = get(srv, "-n", namespace, "configmap", "b")
    assert a_now["metadata"]["finalizers"] == ["foregroundDeletion"]
    assert b_now["metadata"]["finalizers"] == ["foregroundDeletion"]

    srv.kubectl("-n", namespace, "patch", "configmap", "c", "--type=merge",
                "-p", '{"metadata":{"finalizers":null}}')
    p = srv.kubectl("-n", namespace, "wait", "--for=delete",
                    "configmap/a", "configmap/b", "configmap/c",
                    "--timeout=10s")
    assert p.returncode == 0

    # without a hold, kubectl waits for the whole chain
    a = core.create_namespaced_config_map(namespace, configmap("a"))
    b = core.create_namespaced_config_map(namespace, configmap(
        "b", owners=[owner_ref(a, block=True)]))
    core.create_namespaced_config_map(namespace, configmap(
        "c", owners=[owner_ref(b, block=True)]))
    srv.kubectl("-n", namespace, "delete", "configmap", "a",
                "--cascade=foreground", "--timeout=20s")
    assert not exists(srv, "-n", namespace, "configmap", "b")
    assert not exists(srv, "-n", namespace, "configmap", "c")


def test_gc_orphan(srv, core, namespace):
    owner = core.create_namespaced_config_map(namespace, configmap("owner"))
    for n in ("d1", "d2"):
        core.create_namespaced_config_map(namespace, configmap(
            n, owners=[owner_ref(owner, block=True)]))

    p = srv.kubectl("-n", namespace, "delete", "configmap", "owner",
                    "--cascade=orphan")
    assert p.stdout == 'configmap "owner" deleted\n'
    assert not exists(srv, "-n", namespace, "configmap", "owner")

    for n in ("d1", "d2"):
        d = core.read_namespaced_config_map(n, namespace)
        assert d.metadata.owner_references is None


def test_gc_cycle(srv, core, namespace):
    a = core.create_namespaced_config_map(namespace, configmap("a"))
    b = core.create_namespaced_config_map(namespace, configmap(
        "b", owners=[owner_ref(a, block=True)]))
    core.patch_namespaced_config_map("a", namespace, {"metadata": {
        "ownerReferences": [owner_ref(b, block=True)]}})

    with srv.api_client() as api:
        client.CoreV1Api(api).delete_namespaced_config_map(
            "a", namespace, propagation_policy="Foreground")

    assert eventually(lambda: not exists(srv, "-n", namespace, "configmap",
                                         "a")
                      and not exists(srv, "-n", namespace, "configmap", "b"))


def test_gc_missing_owner(srv, core, namespace):
    real = core.create_namespaced_config_map(namespace, configmap("real"))
    ghost = {"apiVersion": "v1", "kind": "ConfigMap", "name": "ghost",
             "uid": "5d16d77d-3444-4cc9-b3b8-99a76a1cc01c"}
    core.create_namespaced_config_map(namespace, configmap(
        "orphaned", owners=[ghost]))
    core.create_namespaced_config_map(namespace, configmap(
        "kept", owners=[owner_ref(real), ghost]))

    assert eventually(lambda: not exists(srv, "-n", namespace, "configmap",
                                         "orphaned"))
    kept = eventually(lambda: (lambda c: c if len(
        c.metadata.owner_references) == 1 else None)(
        core.read_namespaced_config_map("kept", namespace)))
    assert kept.metadata.owner_references[0].uid == real.metadata.uid


# ---------------------------------------------------------------- restarts


def test_kill9_in_the_middle_of_a_namespace_deletion(root_ca, tmp_path,
                                                     unique_name):
    extra = "gcp_root_ca_file %s;" % root_ca
    s = GcpServer(workers=2, data_dir=str(tmp_path), http_extra=extra)
    s.start()

    def remaining(core):
        r = core.list_namespaced_config_map("big", limit=1)
        return (r.metadata.remaining_item_count or 0) + len(r.items)

    try:
        with s.api_client() as api:
            core = client.CoreV1Api(api)
            core.create_namespace(client.V1Namespace(metadata={
                "name": "big"}))
            core.create_namespaced_config_map("big", configmap(
                "held", finalizers=["example.com/hold"]))

            def make(i):
                core.create_namespaced_config_map("big", configmap(
                    "cm-%d" % i))

            with ThreadPoolExecutor(8) as pool:
                list(pool.map(make, range(1000)))

            s.kubectl("delete", "namespace", "big", "--wait=false")

            # killed once the controller has begun deleting
            assert eventually(lambda: remaining(core) < 950, interval=0.002)
        s.kill9()

        # the store as the kill left it: the deletion was under way
        s.http_extra = extra + " gcp_controllers off;"
        s.start()
        with s.api_client() as api:
            core = client.CoreV1Api(api)
            assert core.read_namespace("big").status.phase == "Terminating"
            left = remaining(core)
            assert 1 < left < 950
            time.sleep(0.5)
            assert remaining(core) == left
        s.stop(check=False)

        # with the controllers: what was left is deleted; the held one
        # keeps the namespace until its finalizer goes
        s.http_extra = extra
        s.start()
        with s.api_client() as api:
            core = client.CoreV1Api(api)
            assert eventually(lambda: [
                c.metadata.name
                for c in core.list_namespaced_config_map("big").items]
                == ["held"], timeout=30)
            assert core.read_namespace("big").status.phase == "Terminating"
            core.patch_namespaced_config_map("held", "big", {"metadata": {
                "finalizers": None}})

        p = s.kubectl("wait", "--for=delete", "namespace/big",
                      "--timeout=20s")
        assert p.returncode == 0
    finally:
        s.stop()


# ---------------------------------------------------------------- switches


def test_controllers_switched_off(root_ca, unique_name):
    s = GcpServer(workers=2, http_extra="gcp_controllers * -serviceaccount "
                  "-garbagecollector; gcp_root_ca_file %s;" % root_ca)
    s.start()
    try:
        s.kubectl("create", "namespace", "n1")
        assert eventually(lambda: exists(s, "-n", "n1", "configmap",
                                         "kube-root-ca.crt"))
        time.sleep(0.5)
        assert not exists(s, "-n", "n1", "serviceaccount", "default")
    finally:
        s.stop()

    # all off: a deleted namespace stays Terminating
    s = GcpServer(workers=2, http_extra="gcp_controllers off;").start()
    try:
        s.kubectl("create", "namespace", "n2")
        s.kubectl("delete", "namespace", "n2", "--wait=false")
        time.sleep(0.5)
        ns = get(s, "namespace", "n2")
        assert ns["status"] == {"phase": "Terminating"}
        assert ns["spec"] == {"finalizers": ["kubernetes"]}
        assert not exists(s, "-n", "n2", "serviceaccount", "default")
        # nothing to lead: no leader election, no Lease
        assert not exists(s, "-n", "kube-system", "lease",
                          "kube-controller-manager")
    finally:
        s.stop()


def test_bad_controller_name(tmp_path):
    s = GcpServer(workers=1, http_extra="gcp_controllers namespace nosuch;")
    with pytest.raises(AssertionError) as e:
        s.start()
    assert 'unknown controller "nosuch"' in str(e.value)
    s.stop(check=False)


# ---------------------------------------------------------------- leader
# election


def test_one_leader_among_instances_sharing_etcd(root_ca):
    from etcd_cluster import EtcdCluster

    def lease(srv):
        return get(srv, "-n", "kube-system", "lease",
                   "kube-controller-manager")

    with EtcdCluster(members=1) as etcd:
        extra = "gcp_root_ca_file %s;" % root_ca
        a = GcpServer(workers=2, etcd=etcd.endpoints,
                      storage_opts="prefix=/shared", http_extra=extra)
        b = GcpServer(workers=2, etcd=etcd.endpoints,
                      storage_opts="prefix=/shared", http_extra=extra)
        try:
            # a starts first and leads
            a.start()
            first = eventually(lambda: lease(a))
            holder = first["spec"]["holderIdentity"]
            assert first["spec"]["leaseDurationSeconds"] == 15
            assert first["spec"]["leaseTransitions"] == 0

            # b waits: the lease stays a's, renewed (b has tried once its
            # retry period, 2 s + up to 20%, has passed; a's renewal comes
            # on the same period)
            b.start()
            time.sleep(2.5)
            now = eventually(lambda: (lambda l: l if l["spec"][
                "renewTime"] != first["spec"]["renewTime"] else None)(
                lease(b)))
            assert now, "the lease was not renewed"
            assert now["spec"]["holderIdentity"] == holder
            assert now["spec"]["acquireTime"] == first["spec"]["acquireTime"]
            assert now["spec"]["leaseTransitions"] == 0

            # a's controllers serve b's clients too
            b.kubectl("create", "namespace", "via-b")
            assert eventually(lambda: exists(b, "-n", "via-b",
                                             "serviceaccount", "default"))

            # a goes: b takes over once the lease expired
            a.stop()
            taken = eventually(lambda: (lambda l: l if l["spec"][
                "holderIdentity"] != holder else None)(lease(b)),
                timeout=30)
            assert taken["spec"]["leaseTransitions"] == 1

            b.kubectl("create", "namespace", "after")
            assert eventually(lambda: exists(b, "-n", "after",
                                             "serviceaccount", "default"))
        finally:
            a.stop()
            b.stop()
