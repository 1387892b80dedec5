"""APIService delegation: ngx_gcp as the aggregation gateway (issue 12).

A small extension server of the tests' own (ext_server.py: HTTPS, asks
for the proxy's client certificate, records what it receives) serves
things.example.com/v1; ngx_gcp reaches it through `gcp_service` (an
upstream block in one line) or an `upstream` block, authenticates with
the front-proxy client certificate `make run`'s PKI makes, and proxies
through nginx's upstream machinery.  What the backend received is
asserted at the backend.
"""

import base64
import json
import os
import socket
import ssl
import subprocess
import sys
import threading
import time

import pytest

from ext_server import ExtPki, ExtServer, free_port
from gcp_http import call
from gcp_server import GcpServer
from gcp_wait import eventually

GROUP = "things.example.com"
APISVC = "/apis/apiregistration.k8s.io/v1/apiservices"


@pytest.fixture(scope="module")
def agg(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("agg"))
    pki = ExtPki(os.path.join(d, "ext"))
    port = free_port()
    os.makedirs(os.path.join(d, "gcp"))
    srv = GcpServer(workers=2, tls=True, data_dir=os.path.join(d, "gcp"))
    # make run's configuration proves ngx_gcp with the front-proxy
    # client certificate of its PKI
    # requests to the extension server's group audited
    policy = os.path.join(d, "audit-policy.json")
    with open(policy, "w") as f:
        json.dump({"apiVersion": "audit.k8s.io/v1", "kind": "Policy",
                   "omitStages": ["RequestReceived"],
                   "rules": [{"level": "Metadata",
                              "resources": [{"group": GROUP}]},
                             {"level": "None"}]}, f)
    srv.audit_log = os.path.join(d, "audit.log")
    srv.http_extra = ("gcp_service ext.ext.svc 127.0.0.1:%d; "
                      "gcp_service dead.ext.svc:443 127.0.0.1:%d; "
                      "gcp_audit_policy_file %s; gcp_audit_log %s;"
                      % (port, free_port(), policy, srv.audit_log))
    srv.start(timeout=60)
    ext = ExtServer(pki, group=GROUP, port=port)
    ext.client_ca = os.path.join(srv.pki, "front-proxy-ca.crt")
    ext.start()
    try:
        yield srv, ext, pki
    finally:
        ext.stop()
        srv.stop()


def raw(srv, method, path, body=None, cert="admin", headers=None):
    return call(srv, method, path, body, headers=headers,
                conn=srv.connection(cert))


def apiservice(group, version, svc="ext", ns="ext", ca=None, port=None,
               insecure=False, gpm=1000, vp=15):
    spec = {"group": group, "version": version,
            "service": {"namespace": ns, "name": svc},
            "groupPriorityMinimum": gpm, "versionPriority": vp}
    if port:
        spec["service"]["port"] = port
    if ca:
        spec["caBundle"] = base64.b64encode(ca).decode()
    if insecure:
        spec["insecureSkipTLSVerify"] = True
    return {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
            "metadata": {"name": "%s.%s" % (version, group)}, "spec": spec}


def available(srv, name):
    r = raw(srv, "GET", "%s/%s" % (APISVC, name))
    for c in (r.json.get("status") or {}).get("conditions") or []:
        if c["type"] == "Available":
            return c
    return None


def headers_of(rec, name):
    return [v for k, v in rec["headers"] if k == name]


@pytest.fixture(scope="module")
def things(agg):
    """The APIService of things.example.com/v1, Available."""
    srv, ext, pki = agg
    r = raw(srv, "POST", APISVC, apiservice(GROUP, "v1", ca=pki.ca_pem()))
    assert r.status == 201, r
    assert eventually(lambda: (available(srv, "v1." + GROUP) or {})
                      .get("status") == "True", 30), \
        available(srv, "v1." + GROUP)
    return srv, ext, pki


# ------------------------------------------------------------ objects


def test_local_apiservices(agg):
    srv, ext, pki = agg

    def local():
        items = raw(srv, "GET", APISVC).json["items"]
        return {i["metadata"]["name"]: i for i in items
                if "service" not in i["spec"]}

    want = {"v1.": (18000, 1), "v1.coordination.k8s.io": (16500, 15),
            "v1.events.k8s.io": (17750, 15),
            "v1.rbac.authorization.k8s.io": (17000, 15),
            "v1.authentication.k8s.io": (17700, 15)}
    assert eventually(lambda: set(want) <= set(local()), 20), local()
    got = local()
    assert "v1.apiregistration.k8s.io" not in got
    for name, (gpm, vp) in want.items():
        svc = got[name]
        assert svc["metadata"]["labels"] == {
            "kube-aggregator.kubernetes.io/automanaged": "onstart"}
        assert svc["spec"]["groupPriorityMinimum"] == gpm
        assert svc["spec"]["versionPriority"] == vp
        cond = svc["status"]["conditions"][0]
        assert (cond["type"], cond["status"], cond["reason"],
                cond["message"]) == ("Available", "True", "Local",
                                     "Local APIServices are always "
                                     "available")

    out = srv.kubectl("get", "apiservices", "v1.coordination.k8s.io")
    assert out.stdout.split("\n")[0].split() == ["NAME", "SERVICE",
                                                 "AVAILABLE", "AGE"]
    assert out.stdout.split("\n")[1].split()[:3] == [
        "v1.coordination.k8s.io", "Local", "True"]


def test_local_apiservices_of_custom_resources(agg):
    """Each group-version custom resources serve has its local APIService
    (label "true", priorities 1000 and 100, as kube-apiserver's CRD
    registration), kept as the CRDs change, and in /apis after the
    built-in groups."""
    srv, ext, pki = agg
    group = "crd.example.com"
    schema = {"openAPIV3Schema": {"type": "object"}}
    crd = {"apiVersion": "apiextensions.k8s.io/v1",
           "kind": "CustomResourceDefinition",
           "metadata": {"name": "gizmos." + group},
           "spec": {"group": group, "scope": "Namespaced",
                    "names": {"plural": "gizmos", "singular": "gizmo",
                              "kind": "Gizmo", "listKind": "GizmoList"},
                    "versions": [
                        {"name": "v1", "served": True, "storage": True,
                         "schema": schema},
                        {"name": "v1beta1", "served": True,
                         "storage": False, "schema": schema}]}}

    def svc(name):
        r = raw(srv, "GET", "%s/%s" % (APISVC, name))
        return r.json if r.status == 200 else None

    srv.kubectl("apply", "-f", "-", input=json.dumps(crd))
    assert eventually(lambda: svc("v1." + group)
                      and svc("v1beta1." + group), 30)
    for v in ("v1", "v1beta1"):
        got = svc("%s.%s" % (v, group))
        assert got["metadata"]["labels"] == {
            "kube-aggregator.kubernetes.io/automanaged": "true"}
        assert got["spec"] == {"group": group, "version": v,
                               "groupPriorityMinimum": 1000,
                               "versionPriority": 100}
        assert eventually(lambda: (available(srv, "%s.%s" % (v, group))
                                   or {}).get("reason") == "Local", 20)
    groups = [g["name"] for g in raw(srv, "GET", "/apis").json["groups"]]
    assert groups.index(group) > groups.index("coordination.k8s.io")

    # a version no longer served, then the whole CRD: their APIServices go
    crd["spec"]["versions"][1]["served"] = False
    srv.kubectl("apply", "-f", "-", input=json.dumps(crd))
    assert eventually(lambda: svc("v1beta1." + group) is None, 30)
    assert svc("v1." + group)
    srv.kubectl("delete", "crd", "gizmos." + group)
    assert eventually(lambda: svc("v1." + group) is None, 30)


def test_apiservice_protobuf(agg):
    srv, ext, pki = agg
    r = raw(srv, "GET", APISVC + "/v1.coordination.k8s.io",
            headers={"Accept": "application/vnd.kubernetes.protobuf"})
    assert r.status == 200, r
    assert r.body.startswith(b"k8s\x00")
    assert b"coordination.k8s.io" in r.body and b"APIService" in r.body


@pytest.mark.parametrize("spec, message", [
    (dict(name="v1.wrong.example.com"),
     'APIService.apiregistration.k8s.io "v1.wrong.example.com" is invalid: '
     'metadata.name: Invalid value: "v1.wrong.example.com": must be '
     '`spec.version+"."+spec.group`: "v1.things.example.com"'),
    (dict(gpm=0),
     'APIService.apiregistration.k8s.io "v1.things.example.com" is '
     'invalid: spec.groupPriorityMinimum: Invalid value: 0: must be '
     'positive and less than 20000'),
    (dict(vp=1001),
     'APIService.apiregistration.k8s.io "v1.things.example.com" is '
     'invalid: spec.versionPriority: Invalid value: 1001: must be positive '
     'and less than 1000'),
    (dict(insecure=True, ca=b"abc"),
     'APIService.apiregistration.k8s.io "v1.things.example.com" is '
     'invalid: spec.insecureSkipTLSVerify: Invalid value: true: may not be '
     'true if caBundle is present'),
    (dict(local=True, ca=b"abc"),
     'APIService.apiregistration.k8s.io "v1.things.example.com" is '
     'invalid: spec.caBundle: Invalid value: "3 bytes": local APIServices '
     'may not have a caBundle'),
], ids=["name", "group-priority", "version-priority", "insecure-and-ca",
        "local-ca"])
def test_apiservice_validation(agg, spec, message):
    srv, ext, pki = agg
    obj = apiservice(GROUP, "v1", ca=spec.get("ca"),
                     insecure=spec.get("insecure", False),
                     gpm=spec.get("gpm", 1000), vp=spec.get("vp", 15))
    if "name" in spec:
        obj["metadata"]["name"] = spec["name"]
    if spec.get("local"):
        del obj["spec"]["service"]
    r = raw(srv, "POST", APISVC + "?dryRun=All", obj)
    assert r.status == 422, r
    assert r.json["message"] == message


def test_extension_apiserver_authentication(agg):
    srv, ext, pki = agg
    path = ("/api/v1/namespaces/kube-system/configmaps/"
            "extension-apiserver-authentication")

    def data():
        r = raw(srv, "GET", path)
        return r.json.get("data") if r.status == 200 else None

    assert eventually(data, 20)
    d = data()
    with open(os.path.join(srv.pki, "ca.crt")) as f:
        assert d["client-ca-file"].strip() == f.read().strip()
    with open(os.path.join(srv.pki, "front-proxy-ca.crt")) as f:
        assert d["requestheader-client-ca-file"].strip() == f.read().strip()
    assert json.loads(d["requestheader-allowed-names"]) == [
        "front-proxy-client"]
    assert json.loads(d["requestheader-username-headers"]) == [
        "X-Remote-User"]
    assert json.loads(d["requestheader-group-headers"]) == ["X-Remote-Group"]
    assert json.loads(d["requestheader-extra-headers-prefix"]) == [
        "X-Remote-Extra-"]

    # put back when deleted
    assert raw(srv, "DELETE", path).status == 200
    assert eventually(lambda: data() == d, 20)

    # the bootstrap role lets kube-controller-manager read it, only it
    cert = srv.client_cert("kcm", "system:kube-controller-manager")
    assert raw(srv, "GET", path, cert=cert).status == 200
    assert raw(srv, "GET", "/api/v1/namespaces/kube-system/configmaps/"
               "kube-root-ca.crt", cert=cert).status == 403


def test_auth_delegator_role(agg):
    srv, ext, pki = agg
    r = raw(srv, "GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/"
            "system:auth-delegator")
    assert r.status == 200, r
    assert r.json["rules"] == [
        {"verbs": ["create"], "apiGroups": ["authentication.k8s.io"],
         "resources": ["tokenreviews"]},
        {"verbs": ["create"], "apiGroups": ["authorization.k8s.io"],
         "resources": ["subjectaccessreviews"]}]


# ------------------------------------------------------------ proxying


def test_available_after_check(things):
    srv, ext, pki = things
    cond = available(srv, "v1." + GROUP)
    assert (cond["reason"], cond["message"]) == ("Passed",
                                                 "all checks passed")
    checks = ext.seen(lambda r: r["path"] == "/apis/%s/v1" % GROUP
                      and headers_of(r, "x-remote-user")
                      == ["system:kube-aggregator"])
    assert checks
    assert headers_of(checks[-1], "x-remote-group") == ["system:masters"]
    assert checks[-1]["cert_cn"] == "front-proxy-client"

    out = srv.kubectl("get", "apiservices", "v1." + GROUP)
    assert out.stdout.split("\n")[1].split()[:3] == [
        "v1." + GROUP, "ext/ext", "True"]


def test_service_not_found_or_unreachable(agg):
    """A service no upstream block names (and no resolver): ServiceNotFound;
    one whose addresses refuse connections: FailedDiscoveryCheck.  Both
    answer 503 at once."""
    srv, ext, pki = agg
    cases = [("nowhere.example.com", dict(svc="missing"), "ServiceNotFound",
              'service/missing in "ext" is not present'),
             ("dead.example.com", dict(svc="dead", insecure=True),
              "FailedDiscoveryCheck", "failing or missing response from "
              "https://127.0.0.1:")]
    for group, kw, reason, message in cases:
        r = raw(srv, "POST", APISVC, apiservice(group, "v1", **kw))
        assert r.status == 201, r
    for group, kw, reason, message in cases:
        assert eventually(lambda: (available(srv, "v1." + group) or {})
                          .get("reason") == reason, 30), \
            available(srv, "v1." + group)
        cond = available(srv, "v1." + group)
        assert cond["status"] == "False"
        assert cond["message"].startswith(message), cond
        if reason == "FailedDiscoveryCheck":
            # the endpoint's address, as kube-aggregator names it
            assert cond["message"].endswith(
                "/apis/dead.example.com/v1\": dial tcp %s: connect: "
                "connection refused" % cond["message"].split("/")[2]), cond
        assert eventually(lambda: raw(srv, "GET", "/apis/%s/v1/things"
                                      % group).status == 503, 10)
        r = raw(srv, "GET", "/apis/%s/v1/things" % group)
        assert r.body == b"service unavailable\n", r
        raw(srv, "DELETE", "%s/v1.%s" % (APISVC, group))



def test_tls_verification(things):
    """Proxied requests verify the server's certificate with the
    APIService's caBundle (another CA: a 503 Status, nothing reaches the
    server), or not at all with insecureSkipTLSVerify.  The availability
    check does not verify, as kube-aggregator's: it stays Available."""
    srv, ext, pki = things
    name = "v1." + GROUP
    path = "/apis/%s/v1/namespaces/default/widgets" % GROUP

    def respec(**spec):
        obj = raw(srv, "GET", "%s/%s" % (APISVC, name)).json
        obj["spec"].pop("caBundle", None)
        obj["spec"].pop("insecureSkipTLSVerify", None)
        obj["spec"].update(spec)
        r = raw(srv, "PUT", "%s/%s" % (APISVC, name), obj)
        assert r.status == 200, r

    with open(os.path.join(srv.pki, "ca.crt"), "rb") as f:
        other = base64.b64encode(f.read()).decode()
    try:
        respec(caBundle=other)
        n = len(ext.requests)
        assert eventually(lambda: raw(srv, "GET", path).status == 503, 10)
        r = raw(srv, "GET", path)
        assert r.json["reason"] == "ServiceUnavailable", r
        assert r.json["message"].startswith(
            "Error trying to reach service: "), r
        assert not [x for x in ext.seen()[n:] if x["path"] == path]
        assert available(srv, name)["status"] == "True"

        respec(insecureSkipTLSVerify=True)
        assert eventually(lambda: raw(srv, "GET", path).status == 200, 10)
    finally:
        respec(caBundle=base64.b64encode(pki.ca_pem()).decode())
    assert eventually(lambda: raw(srv, "GET", path).status == 200, 10)


def test_identity_headers(things):
    srv, ext, pki = things
    path = "/apis/%s/v1/namespaces/default/widgets" % GROUP
    n = len(ext.requests)
    out = srv.kubectl("get", "--raw", path)
    assert json.loads(out.stdout)["kind"] == "WidgetList"
    rec = [r for r in ext.seen()[n:] if r["path"] == path][-1]
    assert rec["cert_cn"] == "front-proxy-client"
    assert headers_of(rec, "x-remote-user") == ["kubernetes-admin"]
    assert sorted(headers_of(rec, "x-remote-group")) == [
        "system:authenticated", "system:masters"]
    assert headers_of(rec, "x-remote-extra-authentication.kubernetes.io"
                      "%2fcredential-id")
    assert not headers_of(rec, "authorization")

    # the server's answer, with ngx_gcp's priority-and-fairness headers
    # as kube-apiserver adds them (the admin: the exempt FlowSchema)
    r = raw(srv, "GET", path)
    assert r.status == 200 and r.json["kind"] == "WidgetList", r
    exempt = raw(srv, "GET", "/apis/flowcontrol.apiserver.k8s.io/v1/"
                 "flowschemas/exempt").json["metadata"]["uid"]
    assert r.headers["x-kubernetes-pf-flowschema-uid"] == [exempt]

    # as another user, impersonated
    n = len(ext.requests)
    srv.kubectl("get", "--raw", path, "--as", "alice", "--as-group", "devs",
                "--as-group", "system:masters")
    rec = [r for r in ext.seen()[n:] if r["path"] == path][-1]
    assert headers_of(rec, "x-remote-user") == ["alice"]
    assert sorted(headers_of(rec, "x-remote-group")) == [
        "devs", "system:authenticated", "system:masters"]
    assert not [k for k, v in rec["headers"] if k.startswith("impersonate")]


def test_forged_identity_headers(things):
    srv, ext, pki = things
    path = "/apis/%s/v1/namespaces/default/widgets" % GROUP
    n = len(ext.requests)
    r = raw(srv, "GET", path, headers={
        "X-Remote-User": "root", "X-Remote-Group": "forged",
        "X-Remote-Extra-Scope": "all", "X-Remote-Uid": "0"})
    assert r.status == 200, r
    rec = [r for r in ext.seen()[n:] if r["path"] == path][-1]
    assert headers_of(rec, "x-remote-user") == ["kubernetes-admin"]
    assert "forged" not in headers_of(rec, "x-remote-group")
    assert not headers_of(rec, "x-remote-extra-scope")
    assert not headers_of(rec, "x-remote-uid")


def test_rbac_before_proxying(things):
    srv, ext, pki = things
    path = "/apis/%s/v1/namespaces/default/widgets" % GROUP
    token = srv.kubectl("create", "token", "default", "-n",
                        "default").stdout.strip()
    auth = {"Authorization": "Bearer " + token}
    n = len(ext.requests)
    r = raw(srv, "GET", path, cert=None, headers=auth)
    assert r.status == 403, r
    assert r.json["message"] == (
        'widgets.things.example.com is forbidden: User '
        '"system:serviceaccount:default:default" cannot list resource '
        '"widgets" in API group "things.example.com" in the namespace '
        '"default"')
    assert not [x for x in ext.seen()[n:] if x["path"] == path]

    srv.kubectl("create", "role", "widgets", "-n", "default",
                "--verb=list", "--resource=widgets." + GROUP)
    srv.kubectl("create", "rolebinding", "widgets", "-n", "default",
                "--role=widgets", "--serviceaccount=default:default")
    assert eventually(lambda: raw(srv, "GET", path, cert=None,
                                  headers=auth).status == 200)
    rec = [x for x in ext.seen()[n:] if x["path"] == path][-1]
    assert headers_of(rec, "x-remote-user") == [
        "system:serviceaccount:default:default"]
    assert "system:serviceaccounts:default" in headers_of(rec,
                                                          "x-remote-group")
    assert not headers_of(rec, "authorization")


def test_kubectl_create_get_delete_watch(things):
    srv, ext, pki = things
    from kubectl_watch import KubectlWatch
    widget = json.dumps({"apiVersion": GROUP + "/v1", "kind": "Widget",
                         "metadata": {"name": "w1"},
                         "spec": {"size": "small"}})
    with KubectlWatch(srv, "get", "widgets", "-n", "default", "-w") as w:
        srv.kubectl("create", "-n", "default", "-f", "-", input=widget)
        assert w.until(lambda out: any("w1" in l for l in out))
    out = srv.kubectl("get", "widgets." + GROUP, "-n", "default", "-o",
                      "json")
    assert [i["metadata"]["name"] for i in json.loads(out.stdout)["items"]] \
        == ["w1"]
    srv.kubectl("delete", "widget", "w1", "-n", "default")
    assert "w1" not in srv.kubectl("get", "widgets", "-n", "default",
                                   check=False).stdout

    # the proxied watch audited as upstream audits long-running requests:
    # ResponseStarted when its headers went out, ResponseComplete when it
    # ended (kubectl went away)
    def watch_events():
        with open(srv.audit_log) as f:
            evs = [json.loads(line) for line in f]
        ids = [e["auditID"] for e in evs if e["verb"] == "watch"
               and e["objectRef"].get("resource") == "widgets"]
        return [e for e in evs if ids and e["auditID"] == ids[0]]

    assert eventually(lambda: len(watch_events()) == 2, 20), watch_events()
    started, complete = watch_events()
    assert started["stage"] == "ResponseStarted"
    assert started["responseStatus"]["code"] == 200
    assert complete["stage"] == "ResponseComplete"
    assert started["requestURI"] == complete["requestURI"]
    assert "watch=true" in started["requestURI"]


def test_proxied_requests_counted_with_their_code(things):
    """A proxied request is counted in apiserver_request_total once it is
    over, with the code the other server answered (resource labels empty:
    only served resources become series)."""
    from gcp_prom import samples, value
    srv, ext, pki = things
    base = "/apis/%s/v1/namespaces/default/widgets" % GROUP

    def count(code, verb):
        s = samples(raw(srv, "GET", "/metrics").body.decode())
        return value(s, "apiserver_request_total", code=code, verb=verb,
                     group="", resource="", dry_run="")

    lists, missing = count("200", "LIST"), count("404", "GET")
    for _ in range(3):
        assert raw(srv, "GET", base).status == 200
        assert raw(srv, "GET", base + "/nope").status == 404
    assert eventually(lambda: count("200", "LIST") >= lists + 3
                      and count("404", "GET") >= missing + 3, 10), \
        (count("200", "LIST"), count("404", "GET"))
    assert count("500", "LIST") == 0

    # and audited with that code, once
    def events():
        with open(srv.audit_log) as f:
            return [json.loads(line) for line in f]

    def nope():
        return [e for e in events()
                if e["requestURI"] == base + "/nope"]

    assert eventually(lambda: len(nope()) == 3, 10), nope()
    for e in nope():
        assert (e["stage"], e["level"], e["verb"],
                e["responseStatus"]["code"]) == (
                    "ResponseComplete", "Metadata", "get", 404)
        assert e["objectRef"]["apiGroup"] == GROUP
        assert e["objectRef"]["name"] == "nope"


def test_discovery(things):
    srv, ext, pki = things
    groups = [g["name"] for g in raw(srv, "GET", "/apis").json["groups"]]
    assert groups[0] == "apiregistration.k8s.io"
    assert GROUP in groups
    assert groups.index(GROUP) > groups.index("coordination.k8s.io")
    g = raw(srv, "GET", "/apis/" + GROUP).json
    assert g["preferredVersion"] == {"groupVersion": GROUP + "/v1",
                                     "version": "v1"}
    paths = raw(srv, "GET", "/").json["paths"]
    assert "/apis/%s/v1" % GROUP in paths

    def aggregated():
        r = raw(srv, "GET", "/apis", headers={
            "Accept": "application/json;g=apidiscovery.k8s.io;v=v2;"
                      "as=APIGroupDiscoveryList"})
        for item in r.json["items"]:
            if item["metadata"].get("name") == GROUP:
                return item
        return None

    assert eventually(lambda: (aggregated() or {}).get("versions", [{}])[0]
                      .get("resources"), 20), aggregated()
    v = aggregated()["versions"][0]
    assert v["freshness"] == "Current"
    widgets = [r for r in v["resources"] if r["resource"] == "widgets"][0]
    assert widgets["scope"] == "Namespaced"
    assert widgets["responseKind"] == {"group": "", "version": "",
                                       "kind": "Widget"}
    assert widgets["shortNames"] == ["wd"]
    assert widgets["subresources"] == [
        {"subresource": "status", "responseKind": {
            "group": "", "version": "", "kind": "Widget"},
         "verbs": ["get", "patch", "update"]}]
    out = srv.kubectl("api-resources", "--api-group", GROUP)
    assert "widgets" in out.stdout and "wd" in out.stdout


def test_upgrade_tunnel(things):
    srv, ext, pki = things
    path = "/apis/%s/v1/namespaces/default/widgets/w/exec" % GROUP
    ctx = srv.ssl_context()
    ctx.set_alpn_protocols(["http/1.1"])
    with socket.create_connection(("127.0.0.1", srv.port), 10) as s:
        with ctx.wrap_socket(s, server_hostname="127.0.0.1") as t:
            t.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\n"
                       "Upgrade: SPDY/3.1\r\n\r\n" % path).encode())
            head = b""
            while b"\r\n\r\n" not in head:
                head += t.recv(1)
            assert head.startswith(b"HTTP/1.1 101"), head
            t.sendall(b"ping")
            got = b""
            while len(got) < 4:
                got += t.recv(4 - len(got))
            assert got == b"ping"


def test_large_list_streams(things):
    srv, ext, pki = things
    r = raw(srv, "GET", "/apis/%s/v1/bigs?size=4000000" % GROUP)
    assert r.status == 200
    body = json.loads(r.body)
    assert len(r.body) >= 4000000 and body["kind"] == "BigList"


def test_unavailable_then_back(things):
    srv, ext, pki = things
    name = "v1." + GROUP
    path = "/apis/%s/v1/namespaces/default/widgets" % GROUP
    ext.stop()
    try:
        assert eventually(lambda: (available(srv, name) or {})
                          .get("status") == "False", 30)
        cond = available(srv, name)
        assert cond["reason"] == "FailedDiscoveryCheck"
        assert cond["message"].startswith(
            "failing or missing response from https://%s/apis/%s/v1: "
            % (ext.endpoint, GROUP)), cond
        assert "connection refused" in cond["message"]

        # every worker sees it within moments (until then a request fails
        # to connect, a 503 Status as fast)
        assert eventually(lambda: raw(srv, "GET", path).body
                          == b"service unavailable\n", 5)
        # answered by ngx_gcp itself, without trying the server
        for _ in range(4):
            r = raw(srv, "GET", path)
            assert r.status == 503 and r.body == b"service unavailable\n", r
            assert r.content_type == "text/plain; charset=utf-8"

        # discovery keeps the last document, marked stale
        r = raw(srv, "GET", "/apis/%s/v1" % GROUP)
        assert r.status == 200 and r.json["kind"] == "APIResourceList"
        r = raw(srv, "GET", "/apis", headers={
            "Accept": "application/json;g=apidiscovery.k8s.io;v=v2;"
                      "as=APIGroupDiscoveryList"})
        item = [i for i in r.json["items"]
                if i["metadata"].get("name") == GROUP][0]
        assert item["versions"][0]["freshness"] == "Stale"
        assert item["versions"][0]["resources"]

        # built-in resources are not disturbed
        srv.kubectl("get", "configmaps", "-n", "default")
        srv.kubectl("get", "namespaces")
    finally:
        ext.start()
    assert eventually(lambda: (available(srv, name) or {})
                      .get("status") == "True", 30)
    assert raw(srv, "GET", path).status == 200


# ------------------------------------------------------------ replicas


def test_replicas_failover(agg, tmp_path):
    srv, ext, pki = agg
    group = "replicas.example.com"
    ports = [free_port(), free_port()]
    pki.server_cert("ext2.ext.svc")     # made once, for both replicas
    procs = [subprocess.Popen(
        [sys.executable, os.path.join(os.path.dirname(__file__),
                                      "ext_server.py"),
         pki.dir, str(p), group, "v1",
         os.path.join(srv.pki, "front-proxy-ca.crt"), "ext2"],
        stdout=subprocess.PIPE, text=True) for p in ports]
    try:
        for p in procs:
            assert p.stdout.readline().strip() == "ready"
        # the upstream block is the configuration's: reload with it
        srv.http_extra += ("upstream ext2.ext.svc:443 { server 127.0.0.1:%d; "
                           "server 127.0.0.1:%d; keepalive 8; }" % tuple(ports))
        subprocess.run([os.path.join(os.path.dirname(__file__), "..", "..",
                                     "tools", "gcp-run"), "--config-only"],
                       env=srv._env(), check=True, capture_output=True)
        srv.reload()
        r = raw(srv, "POST", APISVC,
                apiservice(group, "v1", svc="ext2", ca=pki.ca_pem()))
        assert r.status == 201, r
        assert eventually(lambda: (available(srv, "v1." + group) or {})
                          .get("status") == "True", 30)
        path = "/apis/%s/v1/namespaces/default/widgets" % group
        errors, done = [], threading.Event()

        def load():
            conn = None
            while not done.is_set():
                started = time.monotonic()
                try:
                    conn = conn or srv.connection()
                    r = call(srv, "GET", path, conn=conn)
                    if r.status != 200:
                        errors.append((started, r))
                except (OSError, Exception) as e:
                    # a request the killed replica was answering
                    errors.append((started, e))
                    conn = None

        threads = [threading.Thread(target=load) for _ in range(2)]
        for t in threads:
            t.start()
        time.sleep(0.5)
        procs[0].kill()
        procs[0].wait()
        killed = time.monotonic()
        time.sleep(1.5)
        done.set()
        for t in threads:
            t.join()
        # every request that started after the kill was served
        late = [e for t, e in errors if t > killed]
        assert not late, late
        assert raw(srv, "GET", path).status == 200
        conn = srv.connection()
        try:
            conn.request("GET", path + "?watch=1")
            assert conn.getresponse().status == 200
        finally:
            conn.close()
    finally:
        for p in procs:
            p.kill()
            p.wait()
