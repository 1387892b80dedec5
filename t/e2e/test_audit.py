"""Audit: a kubectl session against a server with an audit.k8s.io/v1
Policy of every level; each request's events in the log, once per stage,
with kube-apiserver's fields; secrets' bodies only where the policy (YAML)
says so; rotation by size and count; a full disk that does not stop the
server; a bad policy refused at start."""

import json
import os
import shutil

import pytest
import yaml

from gcp_http import read_response
from gcp_server import GcpServer, GcpServerError
from gcp_wait import eventually
from kubectl_watch import KubectlWatch

TOKENS = ('tok-alice,alice,uid-alice\n'
          'tok-mon,prometheus,uid-mon,"system:monitoring"\n')

NS = "audit-e2e"

POLICY = {
    "apiVersion": "audit.k8s.io/v1", "kind": "Policy",
    "rules": [
        {"level": "None",
         "nonResourceURLs": ["/healthz*", "/readyz*", "/livez*"]},
        {"level": "None", "users": ["system:apiserver"]},
        {"level": "RequestResponse", "users": ["alice"],
         "resources": [{"group": "", "resources": ["secrets"]}]},
        {"level": "Metadata",
         "resources": [{"group": "", "resources": ["secrets"]}]},
        {"level": "RequestResponse",
         "resources": [{"group": "", "resources": ["configmaps"]}]},
        {"level": "Request",
         "resources": [{"group": "", "resources": ["namespaces"]}]},
        {"level": "Metadata"},
    ],
}

STAGES = ["RequestReceived", "ResponseStarted", "ResponseComplete"]


def audited_server(policy, log="audit.log", extra="", as_yaml=False):
    """A TLS server with the policy (a JSON or YAML file) and its log in
    the data directory."""
    s = GcpServer(workers=2, tls=True, token_file=TOKENS)
    path = os.path.join(s.data_dir, "policy.yaml" if as_yaml else
                        "policy.json")
    with open(path, "w") as f:
        if as_yaml:
            yaml.safe_dump(policy, f)
        else:
            json.dump(policy, f)
    s.http_extra = ("gcp_audit_policy_file %s; gcp_audit_log %s %s;"
                    % (path, os.path.join(s.data_dir, log), extra))
    return s


@pytest.fixture(scope="module")
def srv():
    # YAML, as policy files are mostly written (the others JSON)
    s = audited_server(POLICY, extra="max_size=256k max_backups=3",
                       as_yaml=True)
    s.start(timeout=60)
    try:
        yield s
    finally:
        s.stop()


def events(srv, prefix="audit"):
    """Every event of the current log file and its backups, oldest first
    within each file.  A backup the server removes (a rotation) between
    the listing and its reading is skipped."""
    out = []
    for name in sorted(os.listdir(srv.data_dir)):
        if name.startswith(prefix) and name.endswith(".log"):
            try:
                f = open(os.path.join(srv.data_dir, name))
            except FileNotFoundError:
                continue
            with f:
                for line in f:
                    assert line.endswith("\n")
                    out.append(json.loads(line))
    return out


def find(srv, verb, resource, name=None, user=None, stages=2, ns=NS):
    """The events of the latest request matching, once it has as many
    stages logged; {stage: event}."""
    def matches(e):
        ref = e.get("objectRef", {})
        return (e["verb"] == verb and ref.get("resource") == resource
                and ref.get("namespace") == ns
                and (name is None or ref.get("name") == name)
                and (user is None or e["user"].get("username") == user))

    def match():
        by_id = {}
        for e in events(srv):
            by_id.setdefault(e["auditID"], []).append(e)
        # a request matches by any of its events (a create's name shows
        # once it is complete)
        return [evs for evs in by_id.values()
                if len(evs) >= stages and any(matches(e) for e in evs)]
    found = eventually(match)
    assert found
    for evs in found:
        # once per stage, in order
        assert [e["stage"] for e in evs] == sorted(
            (e["stage"] for e in evs), key=STAGES.index)
        assert len({e["stage"] for e in evs}) == len(evs)
    # the latest (kubectl may read before it writes)
    evs = max(found, key=lambda evs: evs[0]["requestReceivedTimestamp"])
    return {e["stage"]: e for e in evs}


def test_kubectl_session(srv):
    k = srv.kubectl

    # Request: the body, not the answer
    k("create", "namespace", NS)
    evs = find(srv, "create", "namespaces", NS, ns=None)
    assert set(evs) == {"RequestReceived", "ResponseComplete"}
    e = evs["ResponseComplete"]
    assert e["level"] == "Request"
    assert e["user"]["username"] == "kubernetes-admin"
    assert "system:masters" in e["user"]["groups"]
    assert e["sourceIPs"] == ["127.0.0.1"]
    assert e["userAgent"].startswith("kubectl/")
    assert e["requestObject"]["metadata"]["name"] == NS
    assert "responseObject" not in e
    assert e["responseStatus"] == {"metadata": {}, "code": 201}
    assert e["annotations"]["authorization.k8s.io/decision"] == "allow"
    assert e["requestURI"].startswith("/api/v1/namespaces?")
    received = evs["RequestReceived"]
    assert received["requestReceivedTimestamp"] == \
        received["stageTimestamp"] == e["requestReceivedTimestamp"]
    assert "annotations" not in received
    assert "requestObject" not in received

    # RequestResponse: both bodies
    k("-n", NS, "create", "configmap", "cm", "--from-literal=a=b")
    e = find(srv, "create", "configmaps", "cm")["ResponseComplete"]
    assert e["level"] == "RequestResponse"
    assert e["objectRef"] == {"resource": "configmaps", "namespace": NS,
                              "name": "cm", "apiVersion": "v1"}
    assert e["requestObject"]["data"] == {"a": "b"}
    assert e["responseObject"]["metadata"]["name"] == "cm"

    k("-n", NS, "patch", "configmap", "cm", "-p", '{"data":{"c":"d"}}')
    e = find(srv, "patch", "configmaps", "cm")["ResponseComplete"]
    assert e["requestObject"] == {"data": {"c": "d"}}
    assert e["responseObject"]["data"] == {"a": "b", "c": "d"}

    k("-n", NS, "get", "configmap", "cm", "-o", "json")
    e = find(srv, "get", "configmaps", "cm")["ResponseComplete"]
    assert e["responseObject"]["data"]["c"] == "d"
    assert "requestObject" not in e

    k("-n", NS, "delete", "configmap", "cm")
    e = find(srv, "delete", "configmaps", "cm")["ResponseComplete"]
    assert e["requestObject"]["kind"] == "DeleteOptions"
    assert e["requestObject"]["apiVersion"] == "meta.k8s.io/__internal"
    assert e["responseStatus"]["status"] == "Success"

    # secrets: Metadata for the admin, no value anywhere
    k("-n", NS, "create", "secret", "generic", "s1",
      "--from-literal=p=admin-secret-value")
    e = find(srv, "create", "secrets", "s1")["ResponseComplete"]
    assert e["level"] == "Metadata"
    assert "requestObject" not in e and "responseObject" not in e

    # RequestResponse for alice's secrets, as the policy asks
    k("-n", NS, "create", "rolebinding", "alice-edit", "--clusterrole=edit",
      "--user=alice")
    alice = srv.user_kubeconfig("alice", token="tok-alice")
    assert eventually(lambda: k("-n", NS, "auth", "can-i", "create",
                                "secrets", kubeconfig=alice,
                                check=False).stdout.strip() == "yes")
    k("-n", NS, "create", "secret", "generic", "s2",
      "--from-literal=p=alice-secret-value", kubeconfig=alice)
    e = find(srv, "create", "secrets", "s2")["ResponseComplete"]
    assert e["level"] == "RequestResponse"
    assert e["user"] == {"username": "alice", "uid": "uid-alice",
                         "groups": ["system:authenticated"]}
    assert e["requestObject"]["data"]["p"] == "YWxpY2Utc2VjcmV0LXZhbHVl"
    assert e["responseObject"]["data"]["p"] == "YWxpY2Utc2VjcmV0LXZhbHVl"

    # a denial, with the reason RBAC gives
    r = k("-n", NS, "get", "secrets", "--as=bob", check=False)
    assert r.returncode != 0
    e = find(srv, "list", "secrets", user="kubernetes-admin",
             stages=2)["ResponseComplete"]
    assert e["impersonatedUser"]["username"] == "bob"
    assert e["annotations"]["authorization.k8s.io/decision"] == "forbid"
    assert e["responseStatus"]["reason"] == "Forbidden"

    text = "".join(json.dumps(x) for x in events(srv))
    assert "YWRtaW4tc2VjcmV0LXZhbHVl" not in text     # admin-secret-value

    # every request of the session once per stage (find checked it)
    for e in events(srv):
        assert e["kind"] == "Event"
        assert e["apiVersion"] == "audit.k8s.io/v1"
        assert e["stage"] in STAGES


def test_watch_stages(srv):
    with KubectlWatch(srv, "-n", "default", "get", "serviceaccounts",
                      "-w"):
        pass

    def watch_events():
        by_id = {}
        for e in events(srv):
            if e["verb"] == "watch" and \
                    e.get("objectRef", {}).get("resource") == \
                    "serviceaccounts":
                by_id.setdefault(e["auditID"], []).append(e["stage"])
        return [v for v in by_id.values() if len(v) == 3]
    stages = eventually(watch_events)
    assert stages == [STAGES]


def test_audit_id_and_unauthenticated(srv):
    c = srv.connection(cert="admin")
    c.request("GET", "/api/v1/namespaces/default",
              headers={"Audit-ID": "e2e-audit-id-1"})
    r = read_response(c.getresponse())
    c.close()
    assert r.status == 200
    assert r.header("audit-id") == "e2e-audit-id-1"

    c = srv.connection(cert=None)
    c.request("GET", "/api/v1/namespaces",
              headers={"Authorization": "Bearer bogus"})
    r = read_response(c.getresponse())
    c.close()
    assert r.status == 401
    unknown = r.header("audit-id")
    assert unknown and len(unknown) == 36

    def logged():
        ids = {}
        for e in events(srv):
            ids.setdefault(e["auditID"], []).append(e)
        return ids.get("e2e-audit-id-1") and ids.get(unknown) and ids
    ids = eventually(logged)
    assert [e["stage"] for e in ids["e2e-audit-id-1"]] == [
        "RequestReceived", "ResponseComplete"]
    assert len(ids[unknown]) == 1
    e = ids[unknown][0]
    assert e["stage"] == "ResponseStarted"
    assert e["user"] == {}
    assert e["responseStatus"]["code"] == 401


def test_rotation(srv):
    big = "x" * 8000
    c = srv.connection(cert="admin")
    for i in range(64):
        c.request("POST", "/api/v1/namespaces/%s/configmaps" % NS,
                  body=json.dumps({"metadata": {"name": "big-%d" % i},
                                   "data": {"v": big}}),
                  headers={"Content-Type": "application/json"})
        assert read_response(c.getresponse()).status == 201
    c.close()

    # 64 events of more than 16 KB: four rotations at least, the 3
    # newest backups kept, every line whole
    def backups():
        return sorted(n for n in os.listdir(srv.data_dir)
                      if n.startswith("audit-") and n.endswith(".log"))
    assert eventually(lambda: len(backups()) == 3), backups()
    # a later rotation (the writer's buffer flushed) may remove a backup
    for name in backups() + ["audit.log"]:
        try:
            size = os.path.getsize(os.path.join(srv.data_dir, name))
        except FileNotFoundError:
            continue
        assert size <= 256 * 1024

    # the last event may still be in the writer's buffer
    def created():
        return {e["objectRef"].get("name") for e in events(srv)
                if e["verb"] == "create"
                and e["stage"] == "ResponseComplete"}
    assert eventually(lambda: "big-63" in created()), sorted(created())


def test_full_disk_does_not_stop_the_server():
    s = audited_server(POLICY, log="full.log")
    os.symlink("/dev/full", os.path.join(s.data_dir, "full.log"))
    s.start(timeout=60)
    try:
        for i in range(5):
            s.kubectl("create", "configmap", "full-%d" % i)
        assert s.kubectl("get", "configmaps").returncode == 0

        def told():
            with open(s.error_log) as f:
                return "Error in audit plugin 'log' affecting" in f.read()
        assert eventually(told)

        c = s.connection(cert="admin")
        c.request("GET", "/metrics")
        text = read_response(c.getresponse()).body.decode()
        c.close()
        assert 'apiserver_audit_error_total{plugin="log"}' in text
        assert "No space left on device" in open(s.error_log).read()
    finally:
        s.stop()


def test_bad_policy_refused():
    bad = dict(POLICY, rules=[{"level": "Everything"}])
    s = audited_server(bad)
    try:
        with pytest.raises(GcpServerError) as e:
            s.start(timeout=60)
        assert 'rules[0].level: Unsupported value: "Everything"' in \
            str(e.value)
    finally:
        shutil.rmtree(s.data_dir)
