"""Bootstrap manifests (gcp_manifests DIR): a folder of YAML and JSON files
applied when the server starts and again on reload, create-if-absent and
update when the file changed, custom resources waiting for their CRD,
broken documents reported with their file and document while the rest
is applied, objects users made left alone."""

import json
import os
import shutil
import tempfile

import pytest

from gcp_http import call
from gcp_server import GcpServer
from gcp_wait import eventually

DIGEST = "manifests.ngx-gcp.io/sha256"

# 10-crd.yaml: a CRD; 20-app.yaml: its custom resource first (it must wait
# for the CRD to be Established), a namespace, a config map in it given as
# a List, a broken document, one more object after it
CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: addons.boot.example.com
spec:
  group: boot.example.com
  scope: Namespaced
  names: {plural: addons, singular: addon, kind: Addon, listKind: AddonList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, default: 3}
"""

APP = """\
# the custom resource comes before its namespace and CRD are ready
apiVersion: boot.example.com/v1
kind: Addon
metadata:
  name: first
  namespace: platform
spec: {}
---
apiVersion: v1
kind: Namespace
metadata:
  name: platform
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: settings, namespace: platform}
  data: {mode: "one"}
---
kind: ConfigMap
metadata: {name: broken}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: plain}
data: {k: v}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: Bad_Name}
"""

EXTRA = {"apiVersion": "v1", "kind": "ConfigMap",
         "metadata": {"name": "from-json", "namespace": "platform"},
         "data": {"json": "yes"}}


def write(d, name, text):
    with open(os.path.join(d, name), "w") as f:
        f.write(text)


@pytest.fixture
def manifests():
    d = tempfile.mkdtemp(prefix="gcp-manifests-")
    write(d, "10-crd.yaml", CRD)
    write(d, "20-app.yaml", APP)
    write(d, "30-extra.json", json.dumps(EXTRA))
    write(d, "README.md", "not a manifest: ignored")
    yield d
    shutil.rmtree(d, ignore_errors=True)


def get(srv, path):
    r = call(srv, "GET", path)
    return r.json if r.status == 200 else None


ADDON = "/apis/boot.example.com/v1/namespaces/platform/addons/first"
SETTINGS = "/api/v1/namespaces/platform/configmaps/settings"


def test_applied_at_start_and_on_reload(manifests):
    srv = GcpServer(workers=2, http_extra="gcp_manifests %s;" % manifests)
    srv.start()
    try:
        addon = eventually(lambda: get(srv, ADDON), timeout=30)
        assert addon["spec"] == {"size": 3}       # the CRD's default
        assert len(addon["metadata"]["annotations"][DIGEST]) == 64

        cm = eventually(lambda: get(srv, SETTINGS))
        assert cm["data"] == {"mode": "one"}
        assert get(srv, "/api/v1/namespaces/default/configmaps/plain")[
            "data"] == {"k": "v"}
        assert get(srv, "/api/v1/namespaces/platform/configmaps/"
                        "from-json")["data"] == {"json": "yes"}

        # the broken documents are reported with their file and document
        def reported():
            logs = srv.logs()
            return ("20-app.yaml: document 4 (line 22)" in logs
                    and "20-app.yaml: document 6 (line 30)" in logs
                    and "objects applied" in logs) and logs
        logs = eventually(reported, timeout=30)
        assert logs, srv.logs()[-4000:]
        line = [x for x in logs.splitlines()
                if "20-app.yaml: document 6" in x][0]
        assert "[error]" in line and "Bad_Name" in line, line
        assert call(srv, "GET", "/api/v1/namespaces/default/configmaps/"
                                "broken").status == 404

        # a user's edit of an applied object stays while its file does not
        # change; a user's own object is never touched
        r = call(srv, "PATCH", SETTINGS, {"data": {"user": "edit"}},
                 content_type="application/merge-patch+json")
        assert r.status == 200, r
        r = call(srv, "POST", "/api/v1/namespaces/platform/configmaps",
                 {"metadata": {"name": "users"}, "data": {"a": "b"}})
        assert r.status == 201
        rv_plain = get(srv, "/api/v1/namespaces/default/configmaps/"
                            "plain")["metadata"]["resourceVersion"]

        # the file changes: reload applies it
        write(manifests, "20-app.yaml",
              APP.replace('mode: "one"', 'mode: "two"')
              + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n"
                "  name: users\n  namespace: platform\ndata: {a: z}\n")
        srv.reload()
        assert eventually(lambda: (get(srv, SETTINGS) or {}).get("data")
                          == {"mode": "two"}, timeout=30)
        # the object made by a user is left as it was
        assert eventually(lambda: "platform/configmaps/users exists and "
                          "was not made from manifests" in srv.logs(),
                          timeout=30)
        assert get(srv, "/api/v1/namespaces/platform/configmaps/users")[
            "data"] == {"a": "b"}
        # an unchanged object was not written again
        assert get(srv, "/api/v1/namespaces/default/configmaps/plain")[
            "metadata"]["resourceVersion"] == rv_plain

        # nothing made from manifests is deleted when it leaves the files
        os.remove(os.path.join(manifests, "30-extra.json"))
        srv.reload()
        assert eventually(lambda: get(srv, SETTINGS) is not None)
        assert get(srv, "/api/v1/namespaces/platform/configmaps/"
                        "from-json") is not None
    finally:
        srv.stop()


def test_missing_folder_is_a_configuration_error(tmp_path):
    srv = GcpServer(workers=1, http_extra="gcp_manifests %s;"
                    % (tmp_path / "absent"))
    with pytest.raises(Exception):
        srv.start(timeout=10)
    assert "absent" in srv.logs() and "failed" in srv.logs()
    srv.stop(check=False)
