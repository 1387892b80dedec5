"""helm 3.17 (the official build, fetched by tools/fetch-helm) against
ngx_gcp: a chart with a crds/ folder installed, upgraded, rolled back and
uninstalled, as a user does on a first day.

helm talks protobuf to built-in types (its release Secrets, their
DeleteOptions on uninstall), JSON to custom resources, reads OpenAPI to
validate what it sends, and maps kinds through discovery: each of these
steps fails visibly in helm's own words when the server answers otherwise
than kube-apiserver."""

import json
import os
import subprocess
import uuid

import pytest
import yaml

from gcp_http import call
from gcp_server import HELM
from gcp_wait import eventually


def run_helm(srv, home, *args, check=True):
    env = dict(os.environ)
    for var in ("HELM_CACHE_HOME", "HELM_CONFIG_HOME", "HELM_DATA_HOME"):
        env[var] = os.path.join(home, var.lower())
    env.pop("KUBECONFIG", None)
    p = subprocess.run([HELM, "--kubeconfig", srv.kubeconfig] + list(args),
                       capture_output=True, text=True, timeout=120, env=env)
    if check:
        assert p.returncode == 0, "helm %s: %s%s" % (
            " ".join(args), p.stdout, p.stderr)
    return p


def write(path, doc):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(doc if isinstance(doc, str) else yaml.safe_dump(doc))


@pytest.fixture(scope="module")
def chart(server, tmp_path_factory):
    """A chart with a CRD in crds/ and, in templates/, a ConfigMap, a
    Secret and a custom resource of that CRD; the CRD's group is unique to
    this module's run and the CRD is deleted at the end (helm never
    deletes CRDs)."""
    root = str(tmp_path_factory.mktemp("chart"))
    group = "g%s.helm.example.com" % uuid.uuid4().hex[:8]
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets." + group},
        "spec": {
            "group": group, "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget",
                      "kind": "Gadget", "listKind": "GadgetList"},
            "versions": [{
                "name": "v1", "served": True, "storage": True,
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "properties": {"spec": {
                        "type": "object",
                        "required": ["size"],
                        "properties": {
                            "size": {"type": "integer", "minimum": 1},
                            "color": {"type": "string",
                                      "default": "blue"}}}}}}}]}}
    write(os.path.join(root, "Chart.yaml"), {
        "apiVersion": "v2", "name": "gadgets", "version": "0.1.0",
        "appVersion": "1.0"})
    write(os.path.join(root, "values.yaml"), {"size": 1})
    write(os.path.join(root, "crds", "gadgets.yaml"), crd)
    write(os.path.join(root, "templates", "configmap.yaml"),
          "apiVersion: v1\nkind: ConfigMap\n"
          "metadata:\n  name: {{ .Release.Name }}-config\n"
          "data:\n  size: {{ .Values.size | quote }}\n")
    write(os.path.join(root, "templates", "secret.yaml"),
          "apiVersion: v1\nkind: Secret\n"
          "metadata:\n  name: {{ .Release.Name }}-secret\n"
          "stringData:\n  token: t-{{ .Values.size }}\n")
    write(os.path.join(root, "templates", "gadget.yaml"),
          "apiVersion: %s/v1\nkind: Gadget\n"
          "metadata:\n  name: {{ .Release.Name }}-gadget\n"
          "spec:\n  size: {{ .Values.size }}\n" % group)
    yield {"path": root, "group": group, "home": root + "-home"}
    server.kubectl("delete", "crd", "gadgets." + group, "--wait=true",
                   "--timeout=60s", check=False)


def get(srv, path):
    """(status, decoded JSON body or None) of a GET."""
    r = call(srv, "GET", path)
    try:
        return r.status, r.json
    except ValueError:
        return r.status, None


def gadget(srv, chart, namespace, name):
    return get(srv, "/apis/%s/v1/namespaces/%s/gadgets/%s" % (
        chart["group"], namespace, name))


def release_secrets(srv, namespace, release):
    st, body = get(srv, "/api/v1/namespaces/%s/secrets"
                    "?labelSelector=owner%%3Dhelm,name%%3D%s" % (
                        namespace, release))
    assert st == 200, body
    return sorted(s["metadata"]["name"] for s in body["items"])


def test_install_upgrade_rollback_uninstall(server, chart, namespace):
    home, rel = chart["home"], "shop"
    out = run_helm(server, home, "install", rel, chart["path"],
                   "-n", namespace, "--wait", "--timeout", "60s").stdout
    assert "STATUS: deployed" in out, out

    # crds/ first: the CRD exists and is Established, then the templates.
    st, crd = get(server, "/apis/apiextensions.k8s.io/v1/"
                   "customresourcedefinitions/gadgets." + chart["group"])
    assert st == 200, crd
    conds = {c["type"]: c["status"] for c in crd["status"]["conditions"]}
    assert conds["Established"] == "True", conds
    st, g = gadget(server, chart, namespace, rel + "-gadget")
    assert st == 200, g
    assert g["spec"] == {"size": 1, "color": "blue"}, g
    assert g["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "Helm"
    assert g["metadata"]["annotations"]["meta.helm.sh/release-name"] == rel
    st, cm = get(server, "/api/v1/namespaces/%s/configmaps/%s"
                  % (namespace, rel + "-config"))
    assert st == 200 and cm["data"] == {"size": "1"}, cm
    assert release_secrets(server, namespace, rel) == [
        "sh.helm.release.v1.%s.v1" % rel]

    listed = json.loads(run_helm(server, home, "list", "-n", namespace,
                                 "-o", "json").stdout)
    assert [(r["name"], r["revision"], r["status"]) for r in listed] == [
        (rel, "1", "deployed")], listed

    # Upgrade: the templates change, a second release Secret is written.
    run_helm(server, home, "upgrade", rel, chart["path"], "-n", namespace,
             "--set", "size=3", "--wait", "--timeout", "60s")
    st, g = gadget(server, chart, namespace, rel + "-gadget")
    assert st == 200 and g["spec"]["size"] == 3, g
    st, cm = get(server, "/api/v1/namespaces/%s/configmaps/%s"
                  % (namespace, rel + "-config"))
    assert cm["data"] == {"size": "3"}, cm

    # Rollback to the first revision: a third revision with size 1.
    run_helm(server, home, "rollback", rel, "1", "-n", namespace,
             "--wait", "--timeout", "60s")
    st, g = gadget(server, chart, namespace, rel + "-gadget")
    assert st == 200 and g["spec"]["size"] == 1, g
    history = json.loads(run_helm(server, home, "history", rel, "-n",
                                  namespace, "-o", "json").stdout)
    assert [(h["revision"], h["status"]) for h in history] == [
        (1, "superseded"), (2, "superseded"), (3, "deployed")], history
    assert release_secrets(server, namespace, rel) == [
        "sh.helm.release.v1.%s.v%d" % (rel, n) for n in (1, 2, 3)]

    # Uninstall completes: the objects and every release Secret go (helm
    # deletes its Secrets with protobuf DeleteOptions), the CRD stays.
    out = run_helm(server, home, "uninstall", rel, "-n", namespace,
                   "--wait", "--timeout", "60s").stdout
    assert 'release "%s" uninstalled' % rel in out, out
    assert release_secrets(server, namespace, rel) == []
    for path in ("/api/v1/namespaces/%s/configmaps/%s-config",
                 "/api/v1/namespaces/%s/secrets/%s-secret",
                 "/apis/" + chart["group"] + "/v1/namespaces/%s/gadgets/"
                 "%s-gadget"):
        assert eventually(lambda: get(server, path % (namespace, rel))[0]
                          == 404), path % (namespace, rel)
    st, _ = get(server, "/apis/apiextensions.k8s.io/v1/"
                 "customresourcedefinitions/gadgets." + chart["group"])
    assert st == 200
    listed = json.loads(run_helm(server, home, "list", "-n", namespace,
                                 "-o", "json").stdout)
    assert listed == [], listed


def test_invalid_value_is_refused_by_the_schema(server, chart, namespace):
    """The custom resource's schema refuses size 0: helm reports the
    server's 422 and the release is failed, with nothing of it left
    behind after uninstall."""
    home, rel = chart["home"], "bad"
    p = run_helm(server, home, "install", rel, chart["path"], "-n",
                 namespace, "--set", "size=0", check=False)
    assert p.returncode != 0
    assert "spec.size: Invalid value: 0: spec.size in body should be " \
        "greater than or equal to 1" in p.stderr, p.stderr
    listed = json.loads(run_helm(server, home, "list", "-n", namespace,
                                 "-a", "-o", "json").stdout)
    assert [(r["name"], r["status"]) for r in listed] == [
        (rel, "failed")], listed
    run_helm(server, home, "uninstall", rel, "-n", namespace)
    assert release_secrets(server, namespace, rel) == []


def test_kind_the_server_lacks(server, chart, namespace, tmp_path):
    """A chart templating a kind that no API serves: helm says so from
    discovery ("no matches for kind") and writes nothing."""
    root = str(tmp_path / "nokind")
    write(os.path.join(root, "Chart.yaml"), {
        "apiVersion": "v2", "name": "nokind", "version": "0.1.0"})
    write(os.path.join(root, "templates", "thing.yaml"),
          "apiVersion: nope.example.com/v1\nkind: Frobnicator\n"
          "metadata:\n  name: f\n")
    write(os.path.join(root, "templates", "configmap.yaml"),
          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: nokind\n")
    p = run_helm(server, chart["home"], "install", "nokind", root, "-n",
                 namespace, check=False)
    assert p.returncode != 0
    assert 'no matches for kind "Frobnicator" in version ' \
        '"nope.example.com/v1"' in p.stderr, p.stderr
    st, _ = get(server, "/api/v1/namespaces/%s/configmaps/nokind"
                 % namespace)
    assert st == 404
    assert release_secrets(server, namespace, "nokind") == []


def test_template_validates_against_the_server(server, chart, tmp_path):
    """`helm template --validate` reads the server's discovery and OpenAPI
    and validates the rendered objects: a ConfigMap with an unknown field
    is refused by the server's field validation."""
    root = str(tmp_path / "strict")
    write(os.path.join(root, "Chart.yaml"), {
        "apiVersion": "v2", "name": "strict", "version": "0.1.0"})
    write(os.path.join(root, "templates", "configmap.yaml"),
          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: strict\n"
          "data:\n  a: b\n")
    p = run_helm(server, chart["home"], "template", "strict", root,
                 "--validate")
    assert "kind: ConfigMap" in p.stdout, p.stdout
