"""Encryption at rest (gcp_encryption_provider_config): secrets in the
store only as kube-apiserver's aesgcm values (`strings` on the LMDB file,
etcdctl on the etcd keys), read back by kubectl; key rotation by a
reloaded file and `kubectl get secrets -o json | kubectl replace -f -`; a
key that is gone gives that object upstream's 500 and harms no other; a
bad file is refused at start and kept out by a reload.  Two workers, on
LMDB and (with --storage=etcd) on etcd."""

import base64
import json
import os
import subprocess

import pytest

from gcp_server import GcpServer, GcpServerError
from gcp_wait import eventually

K1 = base64.b64encode(bytes(range(32))).decode()
K2 = base64.b64encode(bytes(range(32, 64))).decode()
K3 = base64.b64encode(bytes(range(64, 96))).decode()


def config(*keys, identity=True):
    """An EncryptionConfiguration (YAML) for secrets: aesgcm with the
    (name, secret) keys in order, then identity."""
    lines = ["apiVersion: apiserver.config.k8s.io/v1",
             "kind: EncryptionConfiguration",
             "resources:",
             "- resources: [secrets]",
             "  providers:",
             "  - aesgcm:",
             "      keys:"]
    for name, secret in keys:
        lines += ["      - name: %s" % name, "        secret: %s" % secret]
    if identity:
        lines.append("  - identity: {}")
    return "\n".join(lines) + "\n"


def write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, path)


def reloads(srv):
    with open(srv.error_log, errors="replace") as f:
        return f.read().count("encryption provider configuration \"")


def wait_reloaded(srv, before, workers=2):
    """Waits until every worker logged one more reload (or refusal)."""
    assert eventually(lambda: reloads(srv) >= before + workers,
                      timeout=60), srv.logs()


def stored_secrets(srv, storage, ns):
    """The stored values of the namespace's secrets: {name: bytes} from
    etcd, or for LMDB the printable strings of the whole data file."""
    if storage == "etcd":
        prefix = [o.split("=", 1)[1] for o in srv.storage_opts.split()
                  if o.startswith("prefix=")][0]
        p = subprocess.run(["/usr/bin/etcdctl", "--endpoints", srv.etcd,
                            "get", "--prefix", "%s/secrets/%s/"
                            % (prefix, ns), "-w", "json"],
                           env=dict(os.environ, ETCDCTL_API="3"),
                           capture_output=True, check=True, timeout=30)
        kvs = json.loads(p.stdout).get("kvs", [])
        return {base64.b64decode(kv["key"]).decode().rsplit("/", 1)[1]:
                base64.b64decode(kv["value"]) for kv in kvs}
    p = subprocess.run(["strings", "-n", "6",
                        os.path.join(srv.data_dir, "db", "data.mdb")],
                       capture_output=True, check=True, timeout=60)
    return {"": p.stdout}


@pytest.fixture
def enc_server(storage, tmp_path):
    path = str(tmp_path / "encryption.yaml")
    write(path, config(("key1", K1)))
    srv = GcpServer(workers=2, http_extra="gcp_encryption_provider_config "
                    "%s reload=1s;" % path)
    srv.enc_path = path
    srv.start(timeout=60)
    try:
        yield srv
    finally:
        srv.stop()


def create_secret(srv, ns, name, password):
    srv.kubectl("-n", ns, "create", "secret", "generic", name,
                "--from-literal=password=%s" % password)


def password_of(srv, ns, name):
    out = srv.kubectl("-n", ns, "get", "secret", name, "-o",
                      "jsonpath={.data.password}").stdout
    return base64.b64decode(out).decode()


def test_secrets_are_ciphertext_at_rest(enc_server, storage, unique_name):
    srv = enc_server
    ns = unique_name("ns")
    srv.kubectl("create", "namespace", ns)

    secret = unique_name("hunter2")
    plain = unique_name("visible")
    create_secret(srv, ns, "s1", secret)
    srv.kubectl("-n", ns, "create", "configmap", "c1",
                "--from-literal=v=%s" % plain)

    assert password_of(srv, ns, "s1") == secret
    listed = json.loads(srv.kubectl("-n", ns, "get", "secrets", "-o",
                                    "json").stdout)
    assert [i["metadata"]["name"] for i in listed["items"]] == ["s1"]

    stored = stored_secrets(srv, storage, ns)
    blob = b"".join(stored.values())
    assert secret.encode() not in blob
    assert base64.b64encode(secret.encode()) not in blob
    assert b"k8s:enc:aesgcm:v1:key1:" in blob
    if storage == "etcd":
        assert stored["s1"].startswith(b"k8s:enc:aesgcm:v1:key1:")
        assert b'"kind"' not in stored["s1"]
    else:
        # the configmap, not configured, stays plain JSON
        assert plain.encode() in blob

    # an update is encrypted too, and every worker reads it
    srv.kubectl("-n", ns, "patch", "secret", "s1", "-p",
                '{"stringData":{"password":"%s-2"}}' % secret)
    for _ in range(6):
        assert password_of(srv, ns, "s1") == secret + "-2"
    blob = b"".join(stored_secrets(srv, storage, ns).values())
    assert (secret + "-2").encode() not in blob


def test_rotation_and_a_lost_key(enc_server, storage, unique_name):
    srv = enc_server
    ns = unique_name("ns")
    other = unique_name("ns")
    srv.kubectl("create", "namespace", ns)
    srv.kubectl("create", "namespace", other)

    for i in range(3):
        create_secret(srv, ns, "s%d" % i, "pw-%d" % i)
    srv.kubectl("-n", other, "create", "configmap", "c1",
                "--from-literal=v=1")

    # a new first key: new writes use it, the old ones still read
    before = reloads(srv)
    write(srv.enc_path, config(("key2", K2), ("key1", K1)))
    wait_reloaded(srv, before)

    create_secret(srv, ns, "new", "pw-new")
    for i in range(3):
        assert password_of(srv, ns, "s%d" % i) == "pw-%d" % i

    # every secret rewritten with the new key, as the upstream docs say
    out = srv.kubectl("get", "secrets", "-A", "-o", "json").stdout
    srv.kubectl("replace", "-f", "-", input=out)

    if storage == "etcd":
        stored = stored_secrets(srv, storage, ns)
        assert sorted(stored) == ["new", "s0", "s1", "s2"]
        for value in stored.values():
            assert value.startswith(b"k8s:enc:aesgcm:v1:key2:")

    # the old key removed: everything still reads
    before = reloads(srv)
    write(srv.enc_path, config(("key2", K2)))
    wait_reloaded(srv, before)

    for i in range(3):
        assert password_of(srv, ns, "s%d" % i) == "pw-%d" % i
    assert password_of(srv, ns, "new") == "pw-new"

    # a wrong key only: those objects answer upstream's 500, others work
    before = reloads(srv)
    write(srv.enc_path, config(("key3", K3)))
    wait_reloaded(srv, before)

    r = srv.kubectl("-n", ns, "get", "secret", "s1", "-o", "json",
                    check=False)
    assert r.returncode != 0
    assert ("Internal error occurred: no matching key was found for the "
            "provided AES transformer") in r.stderr

    r = srv.kubectl("-n", ns, "get", "secrets", check=False)
    assert r.returncode != 0
    assert "unable to transform key" in r.stderr

    assert srv.kubectl("-n", other, "get", "configmap", "c1", "-o",
                       "jsonpath={.data.v}").stdout == "1"
    create_secret(srv, other, "fresh", "pw-fresh")
    assert password_of(srv, other, "fresh") == "pw-fresh"

    # a bad file is refused by every worker and the configuration stays
    before = reloads(srv)
    write(srv.enc_path, config(("key4", "bm90IGEga2V5")))
    wait_reloaded(srv, before)
    assert "not reloaded, the previous one stays" in srv.logs()
    assert password_of(srv, other, "fresh") == "pw-fresh"

    # the right key back: the objects read again
    before = reloads(srv)
    write(srv.enc_path, config(("key2", K2)))
    wait_reloaded(srv, before)
    assert password_of(srv, ns, "s1") == "pw-1"


def test_bad_file_refused_at_start(storage, tmp_path):
    path = str(tmp_path / "bad.yaml")
    write(path, config(("key1", "c2hvcnQ=")))
    srv = GcpServer(workers=2, http_extra="gcp_encryption_provider_config "
                    "%s;" % path)
    with pytest.raises(GcpServerError) as e:
        srv.start(timeout=60)
    assert ("resources[0].providers[0].aesgcm.keys[0].secret: Invalid "
            "value: \"REDACTED\": secret is not of the expected length, "
            "got 5, expected one of [16 24 32]") in str(e.value)
    srv.stop(check=False)
