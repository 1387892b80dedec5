"""YAML request bodies (Content-Type: application/yaml) for create and
update, and the files kubectl reads.  kube-apiserver reads such a body
with sigs.k8s.io/yaml (go-yaml v2's YAML 1.1): the first document,
converted to JSON, then decoded as a JSON body is.  Expected messages are
kube-apiserver's (checked against 1.28.4 built from source; 1.32's
sigs.k8s.io/yaml adds the prefix "error converting YAML to JSON: ", as
kubectl 1.32 shows)."""

import json
import textwrap

import pytest
import yaml as pyyaml

from gcp_http import assert_status, call, create_namespace
from gcp_wait import eventually

YAML = "application/yaml"

UNRECOGNIZED = "the object provided is unrecognized (must be of type %s): "
CANNOT = '%s in version "v1" cannot be handled as a %s: '
CONVERTING = "error converting YAML to JSON: "


def summary(body):
    """summarizeData(): the first 30 bytes, in hex unless the body starts
    with '{'."""
    if not body:
        return "<empty>"
    head = body[:30] if body[0] == "{" else body[:30].encode().hex()
    return head + (" ..." if len(body) > 30 else "")


def y(text):
    return textwrap.dedent(text).lstrip("\n")


def post(srv, path, body, query="", content_type=YAML):
    return call(srv, "POST", path + query, body, content_type=content_type)


def get(srv, path):
    r = call(srv, "GET", path)
    assert r.status == 200, r
    return r.json


def strip(obj):
    """The object without what the server sets on every write."""
    obj = json.loads(json.dumps(obj))
    for k in ("uid", "resourceVersion", "creationTimestamp",
              "managedFields", "generation"):
        obj["metadata"].pop(k, None)
    return obj


# ---------------------------------------------------------------- create


def test_create_configmap(server, namespace):
    path = "/api/v1/namespaces/%s/configmaps" % namespace
    body = y("""
        # a comment
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: app
          labels: &labels {app: demo, tier: "1"}
          annotations:
            note: 'single ''quoted'''
        data:
          plain: hello world
          yes-as-text: "yes"
          number-as-text: "0x1F"
          date: 2001-01-01
          literal: |
            line 1
              line 2
          folded: >-
            folded
            line
          <<: {merged: from a merge key}
        """)

    r = post(server, path, body)
    assert r.status == 201, r

    cm = get(server, path + "/app")
    assert cm["metadata"]["labels"] == {"app": "demo", "tier": "1"}
    assert cm["metadata"]["annotations"] == {"note": "single 'quoted'"}
    assert cm["data"] == {
        "plain": "hello world",
        "yes-as-text": "yes",
        "number-as-text": "0x1F",
        "date": "2001-01-01",            # a timestamp stays a string
        "literal": "line 1\n  line 2\n",
        "folded": "folded line",
        "merged": "from a merge key",
    }
    assert r.json == cm


def test_yaml_and_json_store_the_same(server, namespace):
    """Every kind a manifest commonly holds: the YAML body gives the
    object the equivalent JSON body gives."""
    ns = namespace
    cases = [
        ("/api/v1/namespaces/%s/secrets" % ns, y("""
            apiVersion: v1
            kind: Secret
            metadata: {name: NAME}
            type: Opaque
            data: {a: YWJj}
            stringData: {password: s3cret}
            """)),
        ("/api/v1/namespaces/%s/serviceaccounts" % ns, y("""
            apiVersion: v1
            kind: ServiceAccount
            metadata: {name: NAME}
            automountServiceAccountToken: false
            """)),
        ("/apis/rbac.authorization.k8s.io/v1/namespaces/%s/roles" % ns, y("""
            apiVersion: rbac.authorization.k8s.io/v1
            kind: Role
            metadata: {name: NAME}
            rules:
            - apiGroups: [""]
              resources: [configmaps, secrets]
              verbs: [get, list, watch]
            - apiGroups: [apps]
              resources: [deployments]
              resourceNames: [web]
              verbs: ["*"]
            """)),
        ("/apis/rbac.authorization.k8s.io/v1/namespaces/%s/rolebindings"
         % ns, y("""
            apiVersion: rbac.authorization.k8s.io/v1
            kind: RoleBinding
            metadata: {name: NAME}
            roleRef:
              apiGroup: rbac.authorization.k8s.io
              kind: Role
              name: reader
            subjects:
            - kind: User
              name: jane
              apiGroup: rbac.authorization.k8s.io
            - kind: ServiceAccount
              name: default
              namespace: %s
            """ % ns)),
        ("/apis/coordination.k8s.io/v1/namespaces/%s/leases" % ns, y("""
            apiVersion: coordination.k8s.io/v1
            kind: Lease
            metadata: {name: NAME}
            spec:
              holderIdentity: me
              leaseDurationSeconds: 15
            """)),
    ]

    for path, text in cases:
        r = post(server, path, text.replace("NAME", "from-yaml"))
        assert r.status == 201, r

        doc = pyyaml.safe_load(text.replace("NAME", "from-json"))
        r = post(server, path, json.dumps(doc),
                 content_type="application/json")
        assert r.status == 201, r

        a = strip(get(server, path + "/from-yaml"))
        b = strip(get(server, path + "/from-json"))
        a["metadata"]["name"] = b["metadata"]["name"]
        assert a == b, path


def test_create_cluster_scoped(server, unique_name):
    name = unique_name("yns")
    r = post(server, "/api/v1/namespaces", y("""
        apiVersion: v1
        kind: Namespace
        metadata:
          name: %s
          labels: {team: a}
        """ % name))
    assert r.status == 201, r
    assert r.json["metadata"]["labels"] == {
        "team": "a", "kubernetes.io/metadata.name": name}

    cr = unique_name("ycr")
    r = post(server, "/apis/rbac.authorization.k8s.io/v1/clusterroles", y("""
        apiVersion: rbac.authorization.k8s.io/v1
        kind: ClusterRole
        metadata: {name: %s}
        rules:
        - nonResourceURLs: [/healthz, /version]
          verbs: [get]
        """ % cr))
    assert r.status == 201, r
    assert r.json["rules"] == [{"nonResourceURLs": ["/healthz", "/version"],
                                "verbs": ["get"]}]

    call(server, "DELETE", "/apis/rbac.authorization.k8s.io/v1/clusterroles/"
         + cr)
    call(server, "DELETE", "/api/v1/namespaces/" + name)


def test_create_only_resources(server):
    """A review is created from a YAML body too."""
    r = post(server, "/apis/authorization.k8s.io/v1/"
             "selfsubjectaccessreviews", y("""
        apiVersion: authorization.k8s.io/v1
        kind: SelfSubjectAccessReview
        spec:
          resourceAttributes: {verb: get, resource: configmaps}
        """))
    assert r.status == 201, r
    assert r.json["kind"] == "SelfSubjectAccessReview"
    assert r.json["status"]["allowed"] is True


def test_first_document_only(server, namespace):
    path = "/api/v1/namespaces/%s/configmaps" % namespace
    r = post(server, path, y("""
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: first}
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: second}
        ---
        - not: [even parsed
        """))
    assert r.status == 201, r
    assert r.json["metadata"]["name"] == "first"
    assert call(server, "GET", path + "/second").status == 404

    # no document, or an empty one: an empty object
    for body in ("", "# nothing\n", "---\n---\nkind: ConfigMap\n", "null"):
        r = post(server, path, body)
        assert_status(r, 422, "Invalid", 'ConfigMap "" is invalid: '
                      "metadata.name: Required value: name or generateName "
                      "is required")


# ---------------------------------------------------------------- update


def test_update(server, namespace):
    path = "/api/v1/namespaces/%s/configmaps" % namespace
    r = post(server, path, "apiVersion: v1\nkind: ConfigMap\n"
             "metadata: {name: cm}\ndata: {k: v1}\n")
    assert r.status == 201, r
    rv = r.json["metadata"]["resourceVersion"]

    # resourceVersion is a string: unquoted, it reads as a number
    r = call(server, "PUT", path + "/cm",
             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"
             "  resourceVersion: %s\ndata: {k: v2}\n" % rv, content_type=YAML)
    assert_status(r, 400, "BadRequest", CANNOT % ("ConfigMap", "ConfigMap")
                  + "json: cannot unmarshal number into Go struct field "
                  "ObjectMeta.metadata.resourceVersion of type string")

    r = call(server, "PUT", path + "/cm",
             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"
             "  resourceVersion: '%s'\ndata: {k: v2}\n" % rv,
             content_type=YAML)
    assert r.status == 200, r
    assert r.json["data"] == {"k": "v2"}

    # stale
    r = call(server, "PUT", path + "/cm",
             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"
             "  resourceVersion: '%s'\ndata: {k: v3}\n" % rv,
             content_type=YAML)
    assert_status(r, 409, "Conflict")
    assert get(server, path + "/cm")["data"] == {"k": "v2"}


def test_update_subresources(server, unique_name):
    name = unique_name("yns")
    create_namespace(server, name)

    ns = get(server, "/api/v1/namespaces/" + name)
    r = call(server, "PUT", "/api/v1/namespaces/%s/status" % name, y("""
        apiVersion: v1
        kind: Namespace
        metadata:
          name: %s
          resourceVersion: "%s"
        status:
          phase: Active
          conditions:
          - type: NamespaceContentRemaining
            status: "False"
            reason: ContentRemoved
            message: All content successfully removed
        """ % (name, ns["metadata"]["resourceVersion"])), content_type=YAML)
    assert r.status == 200, r
    assert r.json["status"]["conditions"][0]["reason"] == "ContentRemoved"

    ns = get(server, "/api/v1/namespaces/" + name)
    r = call(server, "PUT", "/api/v1/namespaces/%s/finalize" % name, y("""
        apiVersion: v1
        kind: Namespace
        metadata: {name: %s}
        spec: {finalizers: []}
        """ % name), content_type=YAML)
    assert r.status == 200, r
    assert r.json["spec"] == {}

    call(server, "DELETE", "/api/v1/namespaces/" + name)


def test_custom_resource(server, namespace, unique_name):
    """Custom resources take YAML bodies too (JSON and YAML, no
    protobuf); duplicates and unknown fields are strict errors alike."""
    group = unique_name("yaml") + ".example.com"
    crd = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    r = call(server, "POST", crd, {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets." + group},
        "spec": {
            "group": group, "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget",
                      "kind": "Gadget", "listKind": "GadgetList"},
            "versions": [{"name": "v1", "served": True, "storage": True,
                          "schema": {"openAPIV3Schema": {
                              "type": "object",
                              "properties": {"spec": {
                                  "type": "object",
                                  "properties": {
                                      "size": {"type": "string"},
                                      "count": {"type": "integer"}}}}}}}]}})
    assert r.status == 201, r

    def established():
        r = call(server, "GET", crd + "/gadgets." + group)
        return any(c["type"] == "Established" and c["status"] == "True"
                   for c in r.json.get("status", {}).get("conditions") or [])

    assert eventually(established)

    path = "/apis/%s/v1/namespaces/%s/gadgets" % (group, namespace)
    body = y("""
        apiVersion: %s/v1
        kind: Gadget
        metadata:
          name: g1
        spec:
          size: small
          size: large
          count: 0x10
          bogus: 1
        """ % group)

    r = post(server, path, body, "?fieldValidation=Strict")
    assert_status(r, 400, "BadRequest", CANNOT % ("Gadget", "Gadget")
                  + "strict decoding error: " + CONVERTING + "yaml: "
                  "unmarshal errors:\n  line 7: key \"size\" already set in "
                  'map, unknown field "spec.bogus"')

    r = post(server, path, body)
    assert r.status == 201, r
    assert r.json["spec"] == {"size": "large", "count": 16}
    rv = r.json["metadata"]["resourceVersion"]

    r = call(server, "PUT", path + "/g1", body.replace(
        "name: g1", "name: g1\n  resourceVersion: '%s'" % rv).replace(
        "count: 0x10", "count: 17"), content_type=YAML)
    assert r.status == 200, r
    assert r.json["spec"] == {"size": "large", "count": 17}

    call(server, "DELETE", crd + "/gadgets." + group)
    assert eventually(lambda: call(server, "GET", crd + "/gadgets." + group)
                      .status == 404, timeout=30)


# ---------------------------------------------------------------- errors


def test_bad_yaml(server, namespace):
    path = "/api/v1/namespaces/%s/configmaps" % namespace
    cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\n"
    un = UNRECOGNIZED % "ConfigMap"
    cases = [
        (cm + "data:\n  k: v\n   bad: x\n",
         un + CONVERTING + "yaml: line 7: mapping values are not allowed "
         "in this context"),
        (cm + "data:\n  k: [\n",
         un + CONVERTING + "yaml: line 6: did not find expected node "
         "content"),
        ("\tapiVersion: v1\n",
         un + CONVERTING + "yaml: found character that cannot start any "
         "token"),
        (cm + "  labels: {a: \"b\n",
         un + CONVERTING + "yaml: line 6: found unexpected end of stream"),
        (cm + "data: *nope\n",
         un + CONVERTING + "yaml: unknown anchor 'nope' referenced"),
        (cm + "data:\n  ~: x\n",
         un + CONVERTING + "unsupported map key of type: %!s(<nil>), key: "
         "<nil>, value: \"x\""),
        (cm + "data:\n  18446744073709551615: x\n",
         un + CONVERTING + "unsupported map key of type: uint64, key: "
         "0xffffffffffffffff, value: \"x\""),
        (cm + "data: {k: .nan}\n",
         un + CONVERTING + "json: unsupported value: NaN"),
        (cm + "data: {k: !!int x}\n",
         un + CONVERTING + "yaml: cannot decode !!str `x` as a !!int"),
        (cm + "data: \xff\n",
         un + CONVERTING + "yaml: invalid leading UTF-8 octet"),
        ("- a\n- b\n",
         un + "couldn't get version/kind; json parse error: json: cannot "
         "unmarshal array into Go value of type struct { APIVersion string "
         "\"json:\\\"apiVersion,omitempty\\\"\"; Kind string "
         "\"json:\\\"kind,omitempty\\\"\" }"),
        # go-yaml's YAML 1.1: yes is a boolean, 1 a number
        (cm + "data: {k: yes}\n",
         CANNOT % ("ConfigMap", "ConfigMap") + "json: cannot unmarshal bool "
         "into Go struct field ConfigMap.data of type string"),
        (cm + "data: {k: 1}\n",
         CANNOT % ("ConfigMap", "ConfigMap") + "json: cannot unmarshal "
         "number into Go struct field ConfigMap.data of type string"),
        ("apiVersion: v2\nkind: ConfigMap\nmetadata: {name: x}\n",
         'ConfigMap in version "v2" cannot be handled as a ConfigMap: no '
         'kind "ConfigMap" is registered for version "v2" in scheme '
         '"pkg/api/legacyscheme/scheme.go:30"'),
        ("apiVersion: v1\nkind: Secret\nmetadata: {name: x}\n",
         'Secret in version "v1" cannot be handled as a ConfigMap: '
         "converting (v1.Secret) to (core.ConfigMap): unknown conversion"),
    ]
    for body, message in cases:
        r = post(server, path, body.encode("latin-1"))
        if message.startswith(un):
            message += " (%s)" % summary(body.encode("latin-1")
                                         .decode("latin-1"))
        assert_status(r, 400, "BadRequest", message)

    # nothing was written
    assert get(server, path)["items"] == []


def test_hostile_yaml(server, namespace):
    """Bounded work on hostile input: a billion laughs, deep nesting."""
    path = "/api/v1/namespaces/%s/configmaps" % namespace
    un = UNRECOGNIZED % "ConfigMap"

    laughs = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
        "%s: &%s [%s]\n" % (k, k, ",".join(["*" + p] * 9))
        for p, k in zip("abcdefgh", "bcdefghi"))
    r = post(server, path, laughs)
    assert_status(r, 400, "BadRequest", un + CONVERTING + "yaml: document "
                  "contains excessive aliasing (%s)" % summary(laughs))

    deep = "data: " + "[" * 100000
    r = post(server, path, deep)
    assert_status(r, 400, "BadRequest", un + CONVERTING + "yaml: exceeded "
                  "max depth of 10000 (%s)" % summary(deep))

    deep = "- " * 100000
    r = post(server, path, deep)
    assert_status(r, 400, "BadRequest", un + CONVERTING + "yaml: exceeded "
                  "max depth of 10000 (%s)" % summary(deep))

    # within go-yaml's limits, but too deep for the JSON decoder after
    chain = "a0: &a0 [1]\n" + "".join(
        "a%d: &a%d %s*a%d%s\n" % (i, i, "[" * 4999, i - 1, "]" * 4999)
        for i in range(1, 4))
    r = post(server, path, chain)
    assert_status(r, 400, "BadRequest", un + "couldn't get version/kind; "
                  "json parse error: invalid character '[' exceeded max "
                  "depth (%s)" % summary(chain))

    assert get(server, path)["items"] == []


# ---------------------------------------------------------------- fields

DUPS = y("""
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: NAME
      labels: {a: b}
      labels: {c: d}
    data: {a: x1, a: x2}
    foo: 1
    """)


@pytest.mark.parametrize("validation", ["", "Warn", "Ignore", "Strict"])
def test_field_validation(server, namespace, validation):
    path = "/api/v1/namespaces/%s/configmaps" % namespace
    name = "v-" + (validation or "default").lower()
    query = "?fieldValidation=" + validation if validation else ""

    r = post(server, path, DUPS.replace("NAME", name), query)

    if validation == "Strict":
        assert_status(r, 400, "BadRequest", CANNOT % ("ConfigMap",
                      "ConfigMap") + "strict decoding error: " + CONVERTING
                      + "yaml: unmarshal errors:\n"
                      '  line 6: key "labels" already set in map\n'
                      '  line 7: key "a" already set in map, '
                      'unknown field "foo"')
        assert call(server, "GET", path + "/" + name).status == 404
        return

    assert r.status == 201, r
    # the last value of a repeated key
    assert r.json["metadata"]["labels"] == {"c": "d"}
    assert r.json["data"] == {"a": "x2"}
    assert "foo" not in r.json

    if validation == "Ignore":
        assert r.headers.get("warning") is None
    else:
        # Warn is the default; one warning per YAML error line
        assert r.headers.get("warning") == [
            '299 - "line 6: key \\"labels\\" already set in map"',
            '299 - "line 7: key \\"a\\" already set in map"',
            '299 - "unknown field \\"foo\\""']


def test_field_validation_merge(server, namespace):
    """A key a merge set, set again, is a duplicate for go-yaml."""
    path = "/api/v1/namespaces/%s/configmaps" % namespace
    body = y("""
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: merged}
        data:
          <<: {k1: v1, k2: v2}
          k1: v3
        """)
    r = post(server, path, body, "?fieldValidation=Strict")
    assert_status(r, 400, "BadRequest", CANNOT % ("ConfigMap", "ConfigMap")
                  + "strict decoding error: " + CONVERTING + "yaml: "
                  "unmarshal errors:\n  line 6: key \"k1\" already set in "
                  "map")

    r = post(server, path, body, "?fieldValidation=Ignore")
    assert r.status == 201, r
    assert r.json["data"] == {"k1": "v3", "k2": "v2"}


# ---------------------------------------------------------------- types

ACCEPTED = ("the body of the request was in an unknown format - accepted "
            "media types include: application/json, application/yaml, "
            "application/vnd.kubernetes.protobuf")


def test_content_types(server, namespace):
    """The rows of docs/api-coverage.md's table of body media types."""
    path = "/api/v1/namespaces/%s/configmaps" % namespace
    body = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s}\n"

    # parameters are ignored, the type is case-insensitive
    for i, ct in enumerate(["application/yaml", "application/yaml; "
                            "charset=utf-8", "Application/YAML"]):
        r = post(server, path, body % ("ct%d" % i), content_type=ct)
        assert r.status == 201, (ct, r)

    # not YAML for kube-apiserver
    for ct in ["text/yaml", "application/x-yaml", "text/plain"]:
        r = post(server, path, body % "no", content_type=ct)
        assert_status(r, 415, "UnsupportedMediaType", ACCEPTED)
        r = call(server, "PUT", path + "/ct0", body % "ct0",
                 content_type=ct)
        assert_status(r, 415, "UnsupportedMediaType", ACCEPTED)

    # patches have their own types; YAML is not one
    r = call(server, "PATCH", path + "/ct0?fieldManager=m",
             "data: {a: b}\n", content_type=YAML)
    assert_status(r, 415, "UnsupportedMediaType",
                  "415: Unsupported Media Type", {})

    # server-side apply takes YAML: a whole configuration, with apiVersion
    r = call(server, "PATCH", path + "/ct0?fieldManager=m",
             "data: {a: b}\n", content_type="application/apply-patch+yaml")
    assert_status(r, 400, "BadRequest",
                  "Incorrect version specified in apply patch. Specified "
                  "patch version: , expected: v1")
    r = call(server, "PATCH", path + "/ct0?fieldManager=m",
             "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ct0}\n"
             "data: {a: b}\n", content_type="application/apply-patch+yaml")
    assert r.status == 200, r

    for ct, patch in [
            ("application/merge-patch+json", '{"data":{"a":"1"}}'),
            ("application/strategic-merge-patch+json", '{"data":{"b":"2"}}'),
            ("application/json-patch+json",
             '[{"op":"add","path":"/data/c","value":"3"}]')]:
        r = call(server, "PATCH", path + "/ct0", patch, content_type=ct)
        assert r.status == 200, (ct, r)
    assert get(server, path + "/ct0")["data"] == {"a": "1", "b": "2",
                                                  "c": "3"}

    # JSON still works for create and update
    r = post(server, path, json.dumps({"apiVersion": "v1",
                                       "kind": "ConfigMap",
                                       "metadata": {"name": "js"}}),
             content_type="application/json")
    assert r.status == 201, r


# ---------------------------------------------------------------- kubectl


def test_kubectl_create_replace(server, namespace, tmp_path):
    """kubectl reads the file (several documents) and sends JSON."""
    f = tmp_path / "app.yaml"
    f.write_text(y("""
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: app-config
        data:
          color: blue
          enabled: "true"
        ---
        # a document with only a comment is skipped
        ---
        apiVersion: v1
        kind: Secret
        metadata:
          name: app-secret
        stringData:
          password: s3cret
        ---
        apiVersion: rbac.authorization.k8s.io/v1
        kind: Role
        metadata:
          name: app-reader
        rules:
        - apiGroups: [""]
          resources: [configmaps]
          verbs: [get]
        """))

    p = server.kubectl("-n", namespace, "create", "-f", str(f))
    assert p.stdout == ("configmap/app-config created\n"
                        "secret/app-secret created\n"
                        "role.rbac.authorization.k8s.io/app-reader created\n")

    path = "/api/v1/namespaces/%s" % namespace
    assert get(server, path + "/configmaps/app-config")["data"] == {
        "color": "blue", "enabled": "true"}
    assert get(server, path + "/secrets/app-secret")["data"] == {
        "password": "czNjcmV0"}

    f.write_text(f.read_text().replace("color: blue", "color: green"))
    p = server.kubectl("-n", namespace, "replace", "-f", str(f))
    assert p.stdout == ("configmap/app-config replaced\n"
                        "secret/app-secret replaced\n"
                        "role.rbac.authorization.k8s.io/app-reader "
                        "replaced\n")
    assert get(server, path + "/configmaps/app-config")["data"] == {
        "color": "green", "enabled": "true"}

    # kubectl refuses a bad document before sending anything
    f.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"
                 "data:\n  a: b\n   c: d\n")
    p = server.kubectl("-n", namespace, "create", "-f", str(f), check=False)
    assert p.returncode != 0
    assert ("error converting YAML to JSON: yaml: line 7: mapping values "
            "are not allowed in this context") in p.stderr
