"""kubectl (/usr/bin/kubectl) against ngx_gcp: what a user types and
reads.  Messages are kubectl's own, built from the server's answers, so an
exact output shows the server answered as kube-apiserver does.

kubectl's typed generators (`create namespace`, `create configmap`) send
protobuf bodies; the other commands send JSON."""

import json
import re
import subprocess
import time

import pytest
import yaml

from gcp_http import call, configmap, create_namespace
from gcp_server import KUBECTL

RFC1123_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
    "characters, '-' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")

AGE = re.compile(r"^\d+(s|m\d*s?|h\d*m?|d\d*h?|y\d*d?)$")


def kubectl(srv, *args, **kw):
    return srv.kubectl(*args, **kw)


def table(out):
    """Parses kubectl's column output into (header, rows); cells are cut
    at the header's column starts, so empty cells stay empty."""
    lines = out.rstrip("\n").split("\n")
    header = lines[0]
    starts = [m.start() for m in re.finditer(r"\S+(?: \S+)*", header)]
    names = [header[s:].split("  ")[0].strip() for s in starts]
    rows = []
    for line in lines[1:]:
        cells = []
        for i, s in enumerate(starts):
            end = starts[i + 1] if i + 1 < len(starts) else len(line)
            cells.append(line[s:end].strip())
        rows.append(cells)
    return names, rows


def get_json(srv, *args):
    return json.loads(kubectl(srv, "get", "-o", "json", *args).stdout)


def controllers_done(srv, namespace, timeout=5):
    """Waits until the service account controller has made the namespace's
    default service account; returns whether it did."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if kubectl(srv, "-n", namespace, "get", "serviceaccount", "default",
                   check=False).returncode == 0:
            return True
        time.sleep(0.05)
    return False


def apply_yaml(srv, docs, *extra):
    text = yaml.safe_dump_all(docs)
    return kubectl(srv, "apply", "-f", "-", *extra, input=text).stdout


# ---------------------------------------------------------------- create


def test_create_namespace_typed(server, unique_name):
    # protobuf body (application/vnd.kubernetes.protobuf)
    name = unique_name("kns")
    p = kubectl(server, "create", "namespace", name)

    assert p.stdout == "namespace/%s created\n" % name
    ns = get_json(server, "namespace", name)
    assert ns["status"] == {"phase": "Active"}


def test_create_configmap_typed(server, namespace):
    # protobuf body too
    p = kubectl(server, "-n", namespace, "create", "configmap", "typed",
                "--from-literal=a=1", "--from-literal=b=2")

    assert p.stdout == "configmap/typed created\n"
    assert get_json(server, "-n", namespace, "cm", "typed")["data"] == {
        "a": "1", "b": "2"}


def test_create_namespace_from_file_and_get_yaml(server, unique_name):
    name = unique_name("kns")
    p = kubectl(server, "create", "-f", "-", input=yaml.safe_dump(
        {"apiVersion": "v1", "kind": "Namespace",
         "metadata": {"name": name}}))
    assert p.stdout == "namespace/%s created\n" % name

    out = kubectl(server, "get", "namespace", name, "-o", "yaml").stdout
    ns = yaml.safe_load(out)
    meta = ns["metadata"]

    assert out.startswith("apiVersion: v1\nkind: Namespace\nmetadata:\n")
    assert ns["apiVersion"] == "v1" and ns["kind"] == "Namespace"
    assert sorted(meta) == ["creationTimestamp", "labels", "name",
                            "resourceVersion", "uid"]
    assert meta["name"] == name
    assert meta["labels"] == {"kubernetes.io/metadata.name": name}
    assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$",
                    meta["creationTimestamp"])
    assert re.match(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}"
                    r"-[0-9a-f]{12}$", meta["uid"])
    assert int(meta["resourceVersion"]) > 0
    assert ns["spec"] == {"finalizers": ["kubernetes"]}
    assert ns["status"] == {"phase": "Active"}

    names, rows = table(kubectl(server, "get", "namespace", name).stdout)
    assert names == ["NAME", "STATUS", "AGE"]
    assert rows[0][:2] == [name, "Active"] and AGE.match(rows[0][2])


def items(srv, path):
    """The names and resourceVersions of a list's items."""
    return sorted((i["metadata"]["name"], i["metadata"]["resourceVersion"])
                  for i in call(srv, "GET", path).json["items"])


def test_create_dry_run_server_stores_nothing(server, namespace):
    # (the list's own resourceVersion moves with any write, e.g. the
    # controllers' lease renewals: compare the items)
    assert controllers_done(server, namespace)
    before = items(server, "/api/v1/namespaces/%s/configmaps" % namespace)

    p = kubectl(server, "-n", namespace, "create", "--dry-run=server",
                "-o", "json", "-f", "-",
                input=json.dumps(configmap("dry", {"k": "v"})))
    obj = json.loads(p.stdout)
    assert obj["metadata"]["name"] == "dry"
    assert obj["metadata"]["namespace"] == namespace
    assert "uid" in obj["metadata"]
    assert "creationTimestamp" in obj["metadata"]
    assert "resourceVersion" not in obj["metadata"]
    assert obj["data"] == {"k": "v"}

    p = kubectl(server, "-n", namespace, "create", "--dry-run=server",
                "-f", "-", input=json.dumps(configmap("dry2")))
    assert p.stdout == "configmap/dry2 created (server dry run)\n"

    p = kubectl(server, "-n", namespace, "get", "cm", "dry", check=False)
    assert p.returncode == 1
    assert p.stderr == ('Error from server (NotFound): configmaps "dry" '
                        'not found\n')
    assert items(server, "/api/v1/namespaces/%s/configmaps"
                 % namespace) == before


def test_create_typed_dry_run_server(server, namespace):
    # protobuf body
    p = kubectl(server, "-n", namespace, "create", "configmap", "tdry",
                "--from-literal=a=1", "--dry-run=server")
    assert p.stdout == "configmap/tdry created (server dry run)\n"
    assert kubectl(server, "-n", namespace, "get", "cm", "tdry",
                   check=False).returncode == 1


# ---------------------------------------------------------------- apply


def test_apply_configmap_and_secret_twice(server, namespace):
    cm = {"apiVersion": "v1", "kind": "ConfigMap",
          "metadata": {"name": "app", "namespace": namespace,
                       "labels": {"app": "demo"}},
          "data": {"a": "1", "b": "2"}}
    secret = {"apiVersion": "v1", "kind": "Secret",
              "metadata": {"name": "creds", "namespace": namespace},
              "stringData": {"user": "admin"}, "type": "Opaque"}

    out = apply_yaml(server, [cm, secret])
    assert out == "configmap/app created\nsecret/creds created\n"

    got = get_json(server, "-n", namespace, "cm", "app")
    assert got["data"] == {"a": "1", "b": "2"}
    last = json.loads(got["metadata"]["annotations"][
        "kubectl.kubernetes.io/last-applied-configuration"])
    assert last == {"apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"annotations": {}, "labels": {"app": "demo"},
                                 "name": "app", "namespace": namespace},
                    "data": {"a": "1", "b": "2"}}
    s = get_json(server, "-n", namespace, "secret", "creds")
    assert s["data"] == {"user": "YWRtaW4="}
    assert "stringData" not in s
    rv1 = got["metadata"]["resourceVersion"]

    # unchanged: no patch for the configmap; the secret's stringData is
    # never returned, so kubectl patches it again (and nothing changes)
    out = apply_yaml(server, [cm, secret])
    assert out == "configmap/app unchanged\nsecret/creds configured\n"
    assert get_json(server, "-n", namespace, "cm",
                    "app")["metadata"]["resourceVersion"] == rv1

    # changed: a strategic merge patch that also removes what the last
    # applied configuration had and this one has not
    cm["data"] = {"a": "10", "c": "3"}
    cm["metadata"]["labels"] = {"tier": "web"}
    secret["stringData"] = {"user": "root"}
    out = apply_yaml(server, [cm, secret])
    assert out == "configmap/app configured\nsecret/creds configured\n"

    got = get_json(server, "-n", namespace, "cm", "app")
    assert got["data"] == {"a": "10", "c": "3"}
    assert got["metadata"]["labels"] == {"tier": "web"}
    assert int(got["metadata"]["resourceVersion"]) > int(rv1)
    assert get_json(server, "-n", namespace, "secret", "creds")["data"] == {
        "user": "cm9vdA=="}


def test_lease_apply_and_get(server, namespace):
    lease = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
             "metadata": {"name": "leader", "namespace": namespace},
             "spec": {"holderIdentity": "node-a",
                      "leaseDurationSeconds": 15,
                      "renewTime": "2026-01-01T00:00:00.000000Z"}}
    assert apply_yaml(server, [lease]) == (
        "lease.coordination.k8s.io/leader created\n")

    lease["spec"]["holderIdentity"] = "node-b"
    assert apply_yaml(server, [lease]) == (
        "lease.coordination.k8s.io/leader configured\n")

    names, rows = table(kubectl(server, "-n", namespace, "get",
                                "leases").stdout)
    assert names == ["NAME", "HOLDER", "AGE"]
    assert rows[0][:2] == ["leader", "node-b"]
    spec = get_json(server, "-n", namespace, "lease", "leader")["spec"]
    assert spec == {"holderIdentity": "node-b", "leaseDurationSeconds": 15,
                    "renewTime": "2026-01-01T00:00:00.000000Z"}


# ---------------------------------------------------------------- get


def test_get_tables(server, namespace):
    call(server, "POST", "/api/v1/namespaces/%s/configmaps" % namespace,
         configmap("c1", {"a": "1", "b": "2"}))
    call(server, "POST", "/api/v1/namespaces/%s/secrets" % namespace,
         {"metadata": {"name": "s1"}, "type": "kubernetes.io/basic-auth",
          "stringData": {"username": "u", "password": "p"}})
    call(server, "POST", "/api/v1/namespaces/%s/serviceaccounts" % namespace,
         {"metadata": {"name": "sa1"}, "secrets": [{"name": "x"}]})

    # the controllers add the default service account and, when the
    # server publishes a root CA, the kube-root-ca.crt ConfigMap
    assert controllers_done(server, namespace)
    root_ca = [["kube-root-ca.crt", "1"]] if kubectl(
        server, "-n", namespace, "get", "cm", "kube-root-ca.crt",
        check=False).returncode == 0 else []

    names, rows = table(kubectl(server, "-n", namespace, "get",
                                "configmaps").stdout)
    assert names == ["NAME", "DATA", "AGE"]
    assert [r[:2] for r in rows] == [["c1", "2"]] + root_ca
    assert AGE.match(rows[0][2])

    names, rows = table(kubectl(server, "-n", namespace, "get",
                                "secrets").stdout)
    assert names == ["NAME", "TYPE", "DATA", "AGE"]
    assert [r[:3] for r in rows] == [["s1", "kubernetes.io/basic-auth", "2"]]

    names, rows = table(kubectl(server, "-n", namespace, "get",
                                "serviceaccounts").stdout)
    assert names == ["NAME", "SECRETS", "AGE"]
    assert [r[:2] for r in rows] == [["default", "0"], ["sa1", "1"]]

    # -o wide adds nothing for these; --show-labels a column
    names, rows = table(kubectl(server, "-n", namespace, "get", "cm", "c1",
                                "--show-labels").stdout)
    assert names == ["NAME", "DATA", "AGE", "LABELS"]
    assert rows[0][3] == "<none>"

    p = kubectl(server, "-n", namespace, "get", "leases")
    assert p.stdout == ""
    assert p.stderr == "No resources found in %s namespace.\n" % namespace


def test_get_json_and_yaml(server, namespace):
    call(server, "POST", "/api/v1/namespaces/%s/configmaps" % namespace,
         configmap("c1", {"k": "v"}, labels={"l": "x"}))

    obj = get_json(server, "-n", namespace, "cm", "c1")
    assert obj["kind"] == "ConfigMap" and obj["apiVersion"] == "v1"
    assert sorted(obj["metadata"]) == ["creationTimestamp", "labels", "name",
                                       "namespace", "resourceVersion", "uid"]
    assert obj["data"] == {"k": "v"}

    lst = get_json(server, "-n", namespace, "cm")
    assert lst["kind"] == "List" and lst["apiVersion"] == "v1"
    assert [i["metadata"]["name"] for i in lst["items"]] == ["c1"]
    assert lst["items"][0]["kind"] == "ConfigMap"

    out = kubectl(server, "-n", namespace, "get", "cm", "c1", "-o",
                  "yaml").stdout
    assert yaml.safe_load(out) == obj
    assert out.startswith("apiVersion: v1\ndata:\n  k: v\nkind: ConfigMap\n")

    out = kubectl(server, "-n", namespace, "get", "cm", "c1", "-o",
                  "jsonpath={.metadata.labels.l}").stdout
    assert out == "x"


def test_get_events(server, namespace):
    ev = {"apiVersion": "v1", "kind": "Event",
          "metadata": {"name": "target.1"},
          "involvedObject": {"kind": "ConfigMap", "namespace": namespace,
                             "name": "target", "apiVersion": "v1"},
          "reason": "Tested", "message": "an event", "type": "Warning",
          "source": {"component": "e2e"},
          "firstTimestamp": "2026-01-01T00:00:00Z",
          "lastTimestamp": "2026-01-01T00:00:00Z", "count": 3}
    r = call(server, "POST", "/api/v1/namespaces/%s/events" % namespace, ev)
    assert r.status == 201, r

    names, rows = table(kubectl(server, "-n", namespace, "get",
                                "events").stdout)
    assert names == ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    assert rows[0][1:] == ["Warning", "Tested", "configmap/target",
                           "an event"]

    names, rows = table(kubectl(server, "-n", namespace, "get", "events",
                                "-o", "wide").stdout)
    assert names == ["LAST SEEN", "TYPE", "REASON", "OBJECT", "SUBOBJECT",
                     "SOURCE", "MESSAGE", "FIRST SEEN", "COUNT", "NAME"]
    assert rows[0][1:7] == ["Warning", "Tested", "configmap/target", "",
                            "e2e", "an event"]
    assert rows[0][8:] == ["3", "target.1"]

    # events.k8s.io/v1 view of the same object
    obj = get_json(server, "-n", namespace, "events.v1.events.k8s.io",
                   "target.1")
    assert obj["apiVersion"] == "events.k8s.io/v1"
    assert obj["note"] == "an event"
    assert obj["regarding"]["name"] == "target"
    assert obj["deprecatedCount"] == 3


# ---------------------------------------------------------------- edit


def test_label_and_annotate(server, namespace):
    call(server, "POST", "/api/v1/namespaces/%s/configmaps" % namespace,
         configmap("c1", {"k": "v"}))
    ns = ["-n", namespace]

    assert kubectl(server, *ns, "label", "cm", "c1", "a=1",
                   "b=2").stdout == "configmap/c1 labeled\n"
    p = kubectl(server, *ns, "label", "cm", "c1", "a=3", check=False)
    assert p.returncode == 1
    assert p.stderr == ("error: 'a' already has a value (1), and "
                        "--overwrite is false\n")
    assert kubectl(server, *ns, "label", "cm", "c1", "a=3",
                   "--overwrite").stdout == "configmap/c1 labeled\n"
    assert get_json(server, *ns, "cm", "c1")["metadata"]["labels"] == {
        "a": "3", "b": "2"}

    assert kubectl(server, *ns, "label", "cm", "c1", "a-",
                   "b-").stdout == "configmap/c1 unlabeled\n"
    # the last label removed: no labels map at all
    assert "labels" not in get_json(server, *ns, "cm", "c1")["metadata"]

    assert kubectl(server, *ns, "annotate", "cm", "c1",
                   "note=hello world").stdout == "configmap/c1 annotated\n"
    assert get_json(server, *ns, "cm", "c1")["metadata"]["annotations"] == {
        "note": "hello world"}
    assert kubectl(server, *ns, "annotate", "cm", "c1",
                   "note-").stdout == "configmap/c1 annotated\n"
    assert "annotations" not in get_json(server, *ns, "cm",
                                         "c1")["metadata"]


def test_patch_three_types(server, namespace):
    call(server, "POST", "/api/v1/namespaces/%s/configmaps" % namespace,
         configmap("c1", {"a": "1"}))
    call(server, "POST", "/api/v1/namespaces/%s/serviceaccounts" % namespace,
         {"metadata": {"name": "sa1"}, "secrets": [{"name": "s1"}]})
    ns = ["-n", namespace]

    assert kubectl(server, *ns, "patch", "cm", "c1", "-p",
                   '{"data":{"b":"2"}}').stdout == "configmap/c1 patched\n"
    assert kubectl(server, *ns, "patch", "cm", "c1", "-p",
                   '{"data":{"b":"2"}}').stdout == (
        "configmap/c1 patched (no change)\n")
    assert kubectl(server, *ns, "patch", "cm", "c1", "--type", "merge", "-p",
                   '{"data":{"a":null,"c":"3"}}').stdout == (
        "configmap/c1 patched\n")
    assert kubectl(server, *ns, "patch", "cm", "c1", "--type", "json", "-p",
                   '[{"op":"add","path":"/data/d","value":"4"},'
                   '{"op":"remove","path":"/data/b"}]').stdout == (
        "configmap/c1 patched\n")
    assert get_json(server, *ns, "cm", "c1")["data"] == {"c": "3", "d": "4"}

    # strategic: secrets merge by name (items of the patch first, as
    # apimachinery's mergeSortedSlice orders them when the live list does
    # not know them); merge patch replaces the list
    kubectl(server, *ns, "patch", "sa", "sa1", "--type", "strategic", "-p",
            '{"secrets":[{"name":"s2"}]}')
    assert get_json(server, *ns, "sa", "sa1")["secrets"] == [
        {"name": "s2"}, {"name": "s1"}]
    kubectl(server, *ns, "patch", "sa", "sa1", "--type", "merge", "-p",
            '{"secrets":[{"name":"s3"}]}')
    assert get_json(server, *ns, "sa", "sa1")["secrets"] == [{"name": "s3"}]

    p = kubectl(server, *ns, "patch", "cm", "c1", "--type", "json", "-p",
                '[{"op":"test","path":"/data/c","value":"9"}]', check=False)
    assert p.returncode == 1
    assert p.stderr == ("The request is invalid: the server rejected our "
                        "request due to an error in our request\n")

    p = kubectl(server, *ns, "patch", "cm", "c1", "--type", "merge", "-p",
                '{"data":{"c":1}}', check=False)
    assert p.returncode == 1
    assert p.stderr == (
        'Error from server (BadRequest): ConfigMap in version "v1" cannot '
        'be handled as a ConfigMap: json: cannot unmarshal number into Go '
        'struct field ConfigMap.data of type string\n')


def test_replace(server, namespace):
    r = call(server, "POST", "/api/v1/namespaces/%s/configmaps" % namespace,
             configmap("c1", {"a": "1"}))
    uid = r.json["metadata"]["uid"]

    p = kubectl(server, "-n", namespace, "replace", "-f", "-",
                input=json.dumps(configmap("c1", {"z": "26"})))
    assert p.stdout == "configmap/c1 replaced\n"
    got = get_json(server, "-n", namespace, "cm", "c1")
    assert got["data"] == {"z": "26"}
    assert got["metadata"]["uid"] == uid

    p = kubectl(server, "-n", namespace, "replace", "-f", "-", check=False,
                input=json.dumps(configmap("nosuch", {})))
    assert p.returncode == 1
    assert p.stderr == ('Error from server (NotFound): error when replacing '
                        '"STDIN": configmaps "nosuch" not found\n')


def test_delete_and_wait_for_delete(server, namespace):
    for name in ("c1", "c2"):
        call(server, "POST", "/api/v1/namespaces/%s/configmaps" % namespace,
             configmap(name))

    waiter = subprocess.Popen(
        [KUBECTL, "--kubeconfig", server.kubeconfig, "-n", namespace,
         "wait", "--for=delete", "configmap/c1", "--timeout=30s"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # the waiter is watching (it has not ended on its own)
        time.sleep(1.5)
        assert waiter.poll() is None
        t0 = time.monotonic()

        assert kubectl(server, "-n", namespace, "delete", "cm",
                       "c1").stdout == 'configmap "c1" deleted\n'

        out, err = waiter.communicate(timeout=20)
        assert time.monotonic() - t0 < 5
    finally:
        if waiter.poll() is None:
            waiter.kill()
            waiter.communicate()

    assert waiter.returncode == 0, err
    assert out == "configmap/c1 condition met\n"

    p = kubectl(server, "-n", namespace, "delete", "cm", "c1", check=False)
    assert p.returncode == 1
    assert p.stderr == ('Error from server (NotFound): configmaps "c1" '
                        'not found\n')
    assert kubectl(server, "-n", namespace, "delete", "cm", "c1",
                   "--ignore-not-found").stdout == ""

    # deleting something already gone does not wait
    p = kubectl(server, "-n", namespace, "wait", "--for=delete",
                "configmap/c1", "--timeout=5s")
    assert p.returncode == 0
    assert kubectl(server, "-n", namespace, "get", "cm", "-o",
                   "name").stdout == "configmap/c2\n"


def test_delete_namespace(server, unique_name):
    # the namespace turns Terminating at once; the namespace controller
    # deletes its content, and a finalizer holds the namespace until it
    # goes (as with a kube-apiserver and its controller-manager)
    name = unique_name("kdel")
    create_namespace(server, name)
    call(server, "POST", "/api/v1/namespaces/%s/configmaps" % name,
         {"metadata": {"name": "held", "finalizers": ["example.com/hold"]}})
    call(server, "POST", "/api/v1/namespaces/%s/configmaps" % name,
         configmap("gone", {"k": "v"}))

    p = kubectl(server, "delete", "namespace", name, "--wait=false")
    assert p.stdout == 'namespace "%s" deleted\n' % name

    ns = get_json(server, "namespace", name)
    assert ns["status"]["phase"] == "Terminating"
    assert "deletionTimestamp" in ns["metadata"]
    assert "deletionGracePeriodSeconds" not in ns["metadata"]

    names, rows = table(kubectl(server, "get", "namespace", name).stdout)
    assert rows[0][:2] == [name, "Terminating"]

    # nothing new may be created in it
    p = kubectl(server, "-n", name, "create", "-f", "-", check=False,
                input=json.dumps(configmap("new")))
    assert p.returncode == 1
    assert p.stderr == (
        'Error from server (Forbidden): error when creating "STDIN": '
        'configmaps "new" is forbidden: unable to create new content in '
        'namespace %s because it is being terminated\n' % name)

    # deleting again answers the same (it is already being deleted)
    p = kubectl(server, "delete", "namespace", name, "--wait=false")
    assert p.stdout == 'namespace "%s" deleted\n' % name

    # the content goes but what its finalizer holds
    p = kubectl(server, "-n", name, "wait", "--for=delete", "cm/gone",
                "--timeout=10s")
    assert p.returncode == 0
    held = get_json(server, "-n", name, "cm", "held")
    assert "deletionTimestamp" in held["metadata"]
    assert get_json(server, "namespace", name)["spec"] == {
        "finalizers": ["kubernetes"]}

    kubectl(server, "-n", name, "patch", "cm", "held", "--type=merge", "-p",
            '{"metadata":{"finalizers":null}}')
    p = kubectl(server, "wait", "--for=delete", "namespace/" + name,
                "--timeout=10s")
    assert p.returncode == 0

    p = kubectl(server, "delete", "namespace", "default", check=False)
    assert p.returncode == 1
    assert p.stderr == ('Error from server (Forbidden): namespaces "default" '
                        'is forbidden: this namespace may not be deleted\n')


# ---------------------------------------------------------------- discovery


def test_api_resources(server):
    out = kubectl(server, "api-resources").stdout
    assert out.split("\n")[0].split() == ["NAME", "SHORTNAMES", "APIVERSION",
                                          "NAMESPACED", "KIND"]
    names, rows = table(out)
    assert rows == [
        ["configmaps", "cm", "v1", "true", "ConfigMap"],
        ["events", "ev", "v1", "true", "Event"],
        ["namespaces", "ns", "v1", "false", "Namespace"],
        ["resourcequotas", "quota", "v1", "true", "ResourceQuota"],
        ["secrets", "", "v1", "true", "Secret"],
        ["serviceaccounts", "sa", "v1", "true", "ServiceAccount"],
        ["mutatingwebhookconfigurations", "",
         "admissionregistration.k8s.io/v1", "false",
         "MutatingWebhookConfiguration"],
        ["validatingwebhookconfigurations", "",
         "admissionregistration.k8s.io/v1", "false",
         "ValidatingWebhookConfiguration"],
        ["customresourcedefinitions", "crd,crds", "apiextensions.k8s.io/v1",
         "false", "CustomResourceDefinition"],
        ["apiservices", "", "apiregistration.k8s.io/v1", "false",
         "APIService"],
        ["selfsubjectreviews", "", "authentication.k8s.io/v1", "false",
         "SelfSubjectReview"],
        ["tokenreviews", "", "authentication.k8s.io/v1", "false",
         "TokenReview"],
        ["localsubjectaccessreviews", "", "authorization.k8s.io/v1", "true",
         "LocalSubjectAccessReview"],
        ["selfsubjectaccessreviews", "", "authorization.k8s.io/v1", "false",
         "SelfSubjectAccessReview"],
        ["selfsubjectrulesreviews", "", "authorization.k8s.io/v1", "false",
         "SelfSubjectRulesReview"],
        ["subjectaccessreviews", "", "authorization.k8s.io/v1", "false",
         "SubjectAccessReview"],
        ["certificatesigningrequests", "csr", "certificates.k8s.io/v1",
         "false", "CertificateSigningRequest"],
        ["leases", "", "coordination.k8s.io/v1", "true", "Lease"],
        ["events", "ev", "events.k8s.io/v1", "true", "Event"],
        ["flowschemas", "", "flowcontrol.apiserver.k8s.io/v1", "false",
         "FlowSchema"],
        ["prioritylevelconfigurations", "", "flowcontrol.apiserver.k8s.io/v1",
         "false", "PriorityLevelConfiguration"],
        ["clusterrolebindings", "", "rbac.authorization.k8s.io/v1", "false",
         "ClusterRoleBinding"],
        ["clusterroles", "", "rbac.authorization.k8s.io/v1", "false",
         "ClusterRole"],
        ["rolebindings", "", "rbac.authorization.k8s.io/v1", "true",
         "RoleBinding"],
        ["roles", "", "rbac.authorization.k8s.io/v1", "true", "Role"],
    ]

    out = kubectl(server, "api-resources", "--namespaced=false", "-o",
                  "name").stdout
    assert out.split() == [
        "namespaces",
        "mutatingwebhookconfigurations.admissionregistration.k8s.io",
        "validatingwebhookconfigurations.admissionregistration.k8s.io",
        "customresourcedefinitions.apiextensions.k8s.io",
        "apiservices.apiregistration.k8s.io",
        "selfsubjectreviews.authentication.k8s.io",
        "tokenreviews.authentication.k8s.io",
        "selfsubjectaccessreviews.authorization.k8s.io",
        "selfsubjectrulesreviews.authorization.k8s.io",
        "subjectaccessreviews.authorization.k8s.io",
        "certificatesigningrequests.certificates.k8s.io",
        "flowschemas.flowcontrol.apiserver.k8s.io",
        "prioritylevelconfigurations.flowcontrol.apiserver.k8s.io",
        "clusterrolebindings.rbac.authorization.k8s.io",
        "clusterroles.rbac.authorization.k8s.io"]

    out = kubectl(server, "api-resources", "-o", "wide",
                  "--api-group=coordination.k8s.io").stdout
    names, rows = table(out)
    assert names == ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED",
                     "KIND", "VERBS", "CATEGORIES"]
    assert rows == [["leases", "", "coordination.k8s.io/v1", "true", "Lease",
                     "create,delete,deletecollection,get,list,patch,update,"
                     "watch", ""]]


def test_api_versions(server):
    assert kubectl(server, "api-versions").stdout == (
        "admissionregistration.k8s.io/v1\napiextensions.k8s.io/v1\n"
        "apiregistration.k8s.io/v1\n"
        "authentication.k8s.io/v1\nauthorization.k8s.io/v1\n"
        "certificates.k8s.io/v1\n"
        "coordination.k8s.io/v1\nevents.k8s.io/v1\n"
        "flowcontrol.apiserver.k8s.io/v1\n"
        "flowcontrol.apiserver.k8s.io/v1beta3\n"
        "rbac.authorization.k8s.io/v1\nv1\n")


def test_version(server):
    v = json.loads(kubectl(server, "version", "-o", "json").stdout)
    assert v["serverVersion"]["major"] == "1"
    assert v["serverVersion"]["minor"] == "32"
    assert v["serverVersion"]["gitVersion"].startswith("v1.32.")


def explain_fields(out):
    """The FIELDS section of kubectl explain: {name: type}."""
    fields = {}
    section = out.split("\nFIELDS:\n", 1)[1]
    for m in re.finditer(r"^  (\S+)\t<([^>]*)>", section, re.M):
        fields[m.group(1)] = m.group(2)
    return fields


def test_explain(server):
    out = kubectl(server, "explain", "configmap").stdout
    assert out.startswith("KIND:       ConfigMap\nVERSION:    v1\n\n"
                          "DESCRIPTION:\n")
    assert explain_fields(out) == {
        "apiVersion": "string", "binaryData": "map[string]string",
        "data": "map[string]string", "immutable": "boolean",
        "kind": "string", "metadata": "ObjectMeta"}

    out = kubectl(server, "explain", "configmap.data").stdout
    assert out.startswith("KIND:       ConfigMap\nVERSION:    v1\n\n"
                          "FIELD: data <map[string]string>\n\n\n"
                          "DESCRIPTION:\n")

    out = kubectl(server, "explain", "namespace.spec").stdout
    assert out.startswith("KIND:       Namespace\nVERSION:    v1\n\n"
                          "FIELD: spec <NamespaceSpec>\n")
    assert explain_fields(out) == {"finalizers": "[]string"}

    out = kubectl(server, "explain", "lease.spec").stdout
    assert out.startswith("GROUP:      coordination.k8s.io\nKIND:       "
                          "Lease\nVERSION:    v1\n\nFIELD: spec <LeaseSpec>\n")
    assert explain_fields(out) == {
        "acquireTime": "string", "holderIdentity": "string",
        "leaseDurationSeconds": "integer", "leaseTransitions": "integer",
        "preferredHolder": "string", "renewTime": "string",
        "strategy": "string"}

    p = kubectl(server, "explain", "configmap.nosuch", check=False)
    assert p.returncode == 1
    assert p.stderr == ('error: field "nosuch" does not exist\n')


# ---------------------------------------------------------------- errors


def test_error_messages(server, namespace):
    p = kubectl(server, "-n", namespace, "get", "cm", "nosuch", check=False)
    assert p.returncode == 1
    assert p.stdout == ""
    assert p.stderr == ('Error from server (NotFound): configmaps "nosuch" '
                        'not found\n')

    p = kubectl(server, "-n", namespace, "create", "-f", "-", check=False,
                input=json.dumps(configmap("Bad_Name")))
    assert p.returncode == 1
    assert p.stderr == (
        'The ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: '
        '"Bad_Name": %s\n' % RFC1123_MSG)

    p = kubectl(server, "-n", namespace, "get", "pods", check=False)
    assert p.returncode == 1
    assert p.stderr == ('error: the server doesn\'t have a resource type '
                        '"pods"\n')

    p = kubectl(server, "get", "namespace", "nosuch-ns", check=False)
    assert p.stderr == ('Error from server (NotFound): namespaces '
                        '"nosuch-ns" not found\n')

    r = call(server, "POST", "/api/v1/namespaces/%s/configmaps" % namespace,
             configmap("dup"))
    assert r.status == 201
    p = kubectl(server, "-n", namespace, "create", "-f", "-", check=False,
                input=json.dumps(configmap("dup")))
    assert p.stderr == ('Error from server (AlreadyExists): error when '
                        'creating "STDIN": configmaps "dup" already exists\n')


@pytest.mark.parametrize("what", ["cm", "configmap", "configmaps",
                                  "configmaps.v1.", "ConfigMap"])
def test_resource_name_forms(server, namespace, what):
    call(server, "POST", "/api/v1/namespaces/%s/configmaps" % namespace,
         configmap("c1"))
    assert kubectl(server, "-n", namespace, "get", what, "-o",
                   "name").stdout == "configmap/c1\n"
