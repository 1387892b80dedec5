"""/openapi/v2 in protobuf (gnostic's openapi.v2.Document), as client-go
asks for it: kube-openapi's negotiation and caching headers, a document
consistent with the JSON one, and the kubectl paths that read it
(explain --output=plaintext-openapiv2, create -f of a kind: List with
client-side validation)."""

import json

import yaml

import gcp_pbwire
from gcp_http import call

PB_OLD = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
PB = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"


def fields(data):
    return gcp_pbwire.decode(data)


def every(data, num):
    """The values of field num of a message's bytes."""
    return gcp_pbwire.every(gcp_pbwire.decode(data), num)


def get(server, accept, **headers):
    h = {"Accept": accept} if accept is not None else {}
    h.update(headers)
    return call(server, "GET", "/openapi/v2", headers=h)


def test_negotiation_and_headers(server):
    js = get(server, "application/json")
    assert js.status == 200 and js.content_type == "application/json"
    for accept in [PB_OLD, PB, PB + ", application/json",
                   "application/json;q=0.5, " + PB_OLD,
                   "application/json;q=0.5," + PB + ";q=0.9"]:
        r = get(server, accept)
        assert r.status == 200, (accept, r)
        assert r.header("content-type") == PB, accept
        assert r.header("etag") == js.header("etag")
        assert r.header("last-modified")
        assert "Accept" in r.headers["vary"]
        assert r.body[:2] == b"\x0a\x03"            # swagger: "2.0"

    for accept in ["application/json, " + PB, "*/*", None, ""]:
        r = get(server, accept)
        assert r.status == 200 and r.content_type == "application/json", \
            accept

    r = get(server, "application/xml")
    assert r.status == 406 and r.body == b"", r

    # the shared ETag revalidates either form
    r = get(server, PB, **{"If-None-Match": js.header("etag")})
    assert r.status == 304 and r.body == b"", r


def named(data):
    """A Named* pair as (name, value bytes)."""
    return (every(data, 1)[0].decode(),
            (every(data, 2) or [b""])[0])


def schema_props(schema):
    props = every(schema, 25)
    if not props:
        return []
    return [named(p)[0] for p in every(props[0], 1)]


def vendor(msg, num):
    return {k: yaml.safe_load(every(v, 2)[0].decode())
            for k, v in (named(e) for e in every(msg, num))}


def test_consistent_with_json(server):
    doc = get(server, "application/json").json
    pb = get(server, PB).body

    assert every(pb, 1) == [b"2.0"]
    info = every(pb, 2)[0]
    assert every(info, 1)[0].decode() == doc["info"]["title"]
    assert every(info, 2)[0].decode() == doc["info"]["version"]

    # definitions: same names in the same order, same properties,
    # required lists, types and extensions
    defs = [named(d) for d in every(every(pb, 9)[0], 1)]
    assert [n for n, _ in defs] == list(doc["definitions"])
    for name, schema in defs:
        js = doc["definitions"][name]
        assert schema_props(schema) == list(js.get("properties", {})), name
        assert [r.decode() for r in every(schema, 19)] == \
            js.get("required", []), name
        types = every(schema, 22)
        assert [t.decode() for t in every(types[0], 1)] == \
            ([js["type"]] if "type" in js else []) if types else \
            "type" not in js, name
        ext = {k: v for k, v in js.items() if k.startswith("x-")}
        assert vendor(schema, 31) == ext, name

    # paths: same paths, operations and their ids and extensions
    methods = {2: "get", 3: "put", 4: "post", 5: "delete", 8: "patch"}
    paths = [named(p) for p in every(every(pb, 8)[0], 2)]
    assert [n for n, _ in paths] == list(doc["paths"])
    for path, item in paths:
        js = doc["paths"][path]
        ops = {methods[n]: v for n, v in fields(item)
               if n in methods}
        assert sorted(ops) == sorted(k for k in js if k != "parameters")
        for m, op in ops.items():
            assert every(op, 5)[0].decode() == js[m]["operationId"]
            ext = {k: v for k, v in js[m].items() if k.startswith("x-")}
            assert vendor(op, 13) == ext, (path, m)
            codes = [named(c)[0] for c in
                     every(every(op, 9)[0], 1)]
            assert codes == list(js[m]["responses"]), (path, m)
        assert len(every(item, 9)) == len(js.get("parameters", []))

    # parameters: body ones (BodyParameter) and the others by "in"
    which = {"header": 1, "formData": 2, "query": 3, "path": 4}
    for path, item in paths:
        js = doc["paths"][path]
        ops = [(js, item)] + [(js[methods[n]], v)
                              for n, v in fields(item)
                              if n in methods]
        for jsop, op in ops:
            num = 9 if jsop is js else 8
            got = every(op, num)
            assert len(got) == len(jsop.get("parameters", [])), path
            for jp, pitem in zip(jsop.get("parameters", []), got):
                param = every(pitem, 1)[0]
                if jp["in"] == "body":
                    sub = every(param, 1)[0]
                    assert every(sub, 2)[0].decode() == jp["name"]
                else:
                    nb = every(param, 2)[0]
                    sub = every(nb, which[jp["in"]])[0]
                    assert every(sub, 4)[0].decode() == jp["name"]

    # the security definitions and requirement
    sd = [named(p) for p in every(every(pb, 13)[0], 1)]
    assert [n for n, _ in sd] == list(doc["securityDefinitions"])
    api_key = every(sd[0][1], 2)[0]
    assert every(api_key, 3)[0].decode() == \
        doc["securityDefinitions"]["BearerToken"]["in"]
    req = every(pb, 12)
    assert len(req) == len(doc["security"])


def test_kubectl_explain_plaintext_openapiv2(server):
    out = server.kubectl("explain", "configmap",
                         "--output=plaintext-openapiv2").stdout
    assert "KIND:     ConfigMap" in out, out
    assert "binaryData\t<map[string]string>" in out, out
    out = server.kubectl("explain", "roles.rules",
                         "--output=plaintext-openapiv2").stdout
    assert "RESOURCE: rules <[]Object>" in out, out
    assert "verbs\t<[]string> -required-" in out, out


def test_kubectl_create_list_validated(server, namespace, tmp_path):
    good = tmp_path / "list.yaml"
    good.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "List", "items": [
            {"apiVersion": "v1", "kind": "ConfigMap",
             "metadata": {"name": "l1", "namespace": namespace},
             "data": {"a": "b"}},
            {"apiVersion": "v1", "kind": "Secret",
             "metadata": {"name": "l2", "namespace": namespace},
             "stringData": {"a": "b"}}]}))
    p = server.kubectl("create", "-f", str(good), "--validate=true")
    assert p.stdout.split("\n")[:2] == ["configmap/l1 created",
                                        "secret/l2 created"], p.stdout

    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "List", "items": [
            {"apiVersion": "v1", "kind": "ConfigMap",
             "metadata": {"name": "l3", "namespace": namespace},
             "datax": {"a": "b"}}]}))
    p = server.kubectl("create", "-f", str(bad), "--validate=true",
                       check=False)
    assert p.returncode != 0
    assert 'unknown field "datax" in io.k8s.api.core.v1.ConfigMap' in \
        p.stderr, p.stderr
    r = call(server, "GET", "/api/v1/namespaces/%s/configmaps/l3"
             % namespace)
    assert r.status == 404
