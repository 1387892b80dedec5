"""Logs: the access log make run writes (DATA/access.log, log_format gcp
of conf/nginx.conf.in) names the user, the verb, the resource and the
Audit-ID of each request through the $gcp_* variables; the error log
says why a request failed on the server side."""

import json
import re

import pytest

from gcp_http import read_response
from gcp_server import GcpServer
from gcp_wait import eventually

TOKENS = 'tok-alice,alice,uid-alice,"dev,ops"\n'

LINE = re.compile(
    r'^(?P<addr>\S+) - (?P<user>\S+) \[[^]]+\] "(?P<request>[^"]*)" '
    r'(?P<status>\d+) \d+ [\d.]+ "[^"]*" verb=(?P<verb>\S+) '
    r'group=(?P<group>\S+) resource=(?P<resource>\S+) '
    r'subresource=(?P<subresource>\S+) ns=(?P<ns>\S+) name=(?P<name>\S+) '
    r'rv=(?P<rv>\S+) groups="(?P<groups>[^"]*)" as=(?P<as>\S+) '
    r'audit_id=(?P<audit_id>\S+) pid=(?P<pid>\d+)$')


@pytest.fixture(scope="module")
def srv():
    s = GcpServer(workers=2, tls=True,
                  token_file=TOKENS).start(timeout=60)
    try:
        yield s
    finally:
        s.stop()


def access_lines(srv):
    with open(srv.data_dir + "/access.log") as f:
        return [LINE.match(line.rstrip("\n")) for line in f]


def logged(srv, pred):
    """The access log lines (parsed) for which pred holds, once there is
    one (the log is flushed every second)."""
    def found():
        lines = access_lines(srv)
        assert all(lines), [x for x in lines if not x]
        return [m.groupdict() for m in lines if pred(m.groupdict())]
    return eventually(found)


def test_access_log_names_who_did_what(srv):
    ns = "logs-e2e"
    srv.kubectl("create", "namespace", ns)
    out = srv.kubectl("-n", ns, "create", "configmap", "cm",
                      "--from-literal=a=b", "-o", "json").stdout
    rv = json.loads(out)["metadata"]["resourceVersion"]

    [m] = logged(srv, lambda m: m["verb"] == "create"
                 and m["resource"] == "configmaps")
    assert m["user"] == "kubernetes-admin"
    assert m["groups"] == "system:masters,system:authenticated"
    assert (m["group"], m["ns"], m["name"]) == ("-", ns, "-")
    assert m["rv"] == rv
    assert m["status"] == "201"
    assert m["request"].startswith("POST /api/v1/namespaces/%s/configmaps"
                                   % ns)
    assert re.match(r"^[0-9a-f-]{36}$", m["audit_id"])
    assert m["as"] == "-"

    # a token, a client's Audit-ID, a read (no revision)
    c = srv.connection(cert=None)
    c.request("GET", "/apis/coordination.k8s.io/v1/namespaces/%s/leases"
              % ns, headers={"Authorization": "Bearer tok-alice",
                             "Audit-ID": "logs-e2e-1"})
    assert read_response(c.getresponse()).status == 403
    c.close()
    [m] = logged(srv, lambda m: m["audit_id"] == "logs-e2e-1")
    assert m["user"] == "alice"
    assert m["groups"] == "dev,ops,system:authenticated"
    assert (m["verb"], m["group"], m["resource"], m["ns"], m["rv"]) == (
        "list", "coordination.k8s.io", "leases", ns, "-")

    # impersonation, a subresource
    srv.kubectl("-n", ns, "get", "configmap", "cm", "--as=bob",
                check=False)
    [m] = logged(srv, lambda m: m["as"] == "bob"
                 and m["resource"] == "configmaps")
    assert (m["user"], m["verb"], m["name"]) == ("kubernetes-admin", "get",
                                                 "cm")
    srv.kubectl("get", "namespace", ns, "--subresource=status")
    assert logged(srv, lambda m: m["subresource"] == "status"
                  and m["name"] == ns)

    # what never reached the API: the variables are empty
    c = srv.connection(cert=None)
    c.request("GET", "/api/v1/namespaces", body=b"x" * 10,
              headers={"Content-Length": "999999999"})
    assert read_response(c.getresponse()).status == 413
    c.close()
    [m] = logged(srv, lambda m: m["status"] == "413")
    assert (m["user"], m["verb"], m["audit_id"]) == ("-", "-", "-")


def test_error_log_says_why(storage):
    if storage == "etcd":
        pytest.skip("fills an LMDB map")
    with GcpServer(workers=2, storage_opts="map_size=2m") as s:
        big = {"metadata": {"name": "x"}, "data": {"v": "x" * 400000}}
        codes = []
        for i in range(12):
            big["metadata"]["name"] = "big-%d" % i
            c = s.connection()
            c.request("POST", "/api/v1/namespaces/default/configmaps",
                      body=json.dumps(big),
                      headers={"Content-Type": "application/json"})
            codes.append(read_response(c.getresponse()).status)
            c.close()
        assert 201 in codes and codes[-1] >= 500, codes

        def told():
            with open(s.error_log) as f:
                text = f.read()
            return re.search(r'\[error\] .*gcp: storage create '
                             r'"/registry/configmaps/default/big-\d+" '
                             r'failed: GCP_ENOSPACE', text)
        assert eventually(told)
