"""Metrics: /metrics and /metrics/slis with kube-apiserver's names and
labels, counted over every worker of an instance (shared memory), parsed
by prometheus_client's parsers (Prometheus text 0.0.4 and the strict
OpenMetrics one), protected as upstream protects them, with a bounded
number of series, kept over a reload."""

import http.client
import json
import re

import pytest
from prometheus_client.openmetrics.parser import \
    text_string_to_metric_families as openmetrics_families
from prometheus_client.parser import text_string_to_metric_families

from gcp_http import read_response
from gcp_prom import samples, value
from gcp_server import GcpServer
from gcp_wait import eventually

TOKENS = ('tok-admin,admin,uid-admin,"system:masters"\n'
          'tok-mon,prometheus,uid-mon,"system:monitoring"\n'
          'tok-nobody,nobody,uid-nobody\n')

NS = "metrics-e2e"
CM = "/api/v1/namespaces/%s/configmaps" % NS
PROM_TEXT = "text/plain; version=0.0.4; charset=utf-8"
OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8"


@pytest.fixture(scope="module")
def srv():
    # reuseport: each new connection lands on either worker; no
    # controllers, so that every request counted is one of the test's
    s = GcpServer(workers=2, tls=True, token_file=TOKENS,
                  listen_params="reuseport",
                  http_extra="gcp_controllers off;").start(timeout=60)
    try:
        call(s, "POST", "/api/v1/namespaces", {"metadata": {"name": NS}})
        call(s, "POST", CM, {"metadata": {"name": "cm"},
                             "data": {"a": "b"}})
        yield s
    finally:
        s.stop()


def call(srv, method, path, body=None, token="tok-admin", headers=None):
    """One request on a new connection (either worker) with a token."""
    h = {"Accept": "application/json"}
    if token:
        h["Authorization"] = "Bearer " + token
    h.update(headers or {})
    if body is not None:
        body = json.dumps(body)
        h["Content-Type"] = "application/json"
    c = srv.connection(cert=None)
    try:
        c.request(method, path, body=body, headers=h)
        return read_response(c.getresponse())
    finally:
        c.close()


def scrape(srv, path="/metrics"):
    """The samples of the exposition: {name: [(labels, value)]}."""
    r = call(srv, "GET", path, token="tok-mon", headers={"Accept": "*/*"})
    assert r.status == 200, r
    assert r.header("content-type") == PROM_TEXT
    return samples(r.body.decode())


GET_CM = dict(verb="GET", group="", version="v1", resource="configmaps",
              subresource="", scope="resource", component="apiserver",
              dry_run="")


def test_requests_counted_over_workers(srv):
    before = scrape(srv)

    for _ in range(40):
        assert call(srv, "GET", CM + "/cm").status == 200
    for i in range(6):
        assert call(srv, "GET", CM + "/missing-%d" % i).status == 404

    # both workers answered (their pids in the access log) ...
    def pids():
        with open(srv.data_dir + "/access.log") as f:
            return {m.group(1) for m in re.finditer(
                r'"GET %s/cm HTTP/1.1" 200 .* pid=(\d+)' % CM, f.read())}
    assert eventually(lambda: len(pids()) >= 2), pids()

    # ... and whichever answers /metrics counts all of them
    after = scrape(srv)
    for code, n in (("200", 40), ("404", 6)):
        assert value(after, "apiserver_request_total", code=code,
                     **GET_CM) - value(before, "apiserver_request_total",
                                       code=code, **GET_CM) == n
    for name in ("apiserver_request_duration_seconds_count",
                 "apiserver_response_sizes_count"):
        labels = dict(GET_CM)
        if name.startswith("apiserver_response_sizes"):
            del labels["dry_run"]
        assert value(after, name, **labels) - value(before, name,
                                                    **labels) == 46

    # LIST, POST with dryRun, and the in-flight gauge (this scrape)
    assert call(srv, "GET", CM).status == 200
    assert call(srv, "POST", CM + "?dryRun=All",
                {"metadata": {"name": "dry"}}).status == 201
    s = scrape(srv)
    assert value(s, "apiserver_request_total", verb="LIST",
                 resource="configmaps", scope="namespace", code="200") >= 1
    assert value(s, "apiserver_request_total", verb="POST",
                 resource="configmaps", scope="resource", code="201",
                 dry_run="All") == 1
    assert value(s, "apiserver_current_inflight_requests",
                 request_kind="readOnly") >= 1


def test_histograms_and_openmetrics(srv):
    r = call(srv, "GET", "/metrics", token="tok-mon")
    text = r.body.decode()
    fams = list(text_string_to_metric_families(text))
    histograms = [f for f in fams if f.type == "histogram"]
    assert {f.name for f in histograms} >= {
        "apiserver_request_duration_seconds", "apiserver_response_sizes",
        "etcd_request_duration_seconds", "authentication_duration_seconds",
        "authorization_duration_seconds"}

    for fam in histograms:
        series = {}
        for s in fam.samples:
            key = tuple(sorted((k, v) for k, v in s.labels.items()
                               if k != "le"))
            series.setdefault(key, {"buckets": []})
            if s.name.endswith("_bucket"):
                series[key]["buckets"].append((float(s.labels["le"]),
                                               s.value))
            else:
                series[key][s.name[len(fam.name):]] = s.value
        for key, h in series.items():
            les = [le for le, _ in h["buckets"]]
            counts = [c for _, c in h["buckets"]]
            assert les == sorted(les) and les[-1] == float("inf"), key
            assert counts == sorted(counts), (fam.name, key, counts)
            assert counts[-1] == h["_count"], (fam.name, key)
            assert h["_sum"] >= 0

    # upstream's buckets
    durations = [f for f in histograms
                 if f.name == "apiserver_request_duration_seconds"][0]
    les = sorted({float(s.labels["le"]) for s in durations.samples
                  if "le" in s.labels})
    assert les == [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25,
                   1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
                   float("inf")]

    # OpenMetrics when asked, through the strict parser
    r = call(srv, "GET", "/metrics", token="tok-mon",
             headers={"Accept": "application/openmetrics-text;"
                                "version=1.0.0,text/plain;q=0.5"})
    assert r.status == 200
    assert r.header("content-type") == OPENMETRICS
    om = {f.name: f for f in openmetrics_families(r.body.decode())}
    assert om["apiserver_request"].type == "counter"
    assert om["apiserver_request_duration_seconds"].type == "histogram"
    assert r.body.endswith(b"# EOF\n")


def test_protected_as_upstream(srv):
    # 08-rbac-denied-nonresource.http
    r = call(srv, "GET", "/metrics", token="tok-nobody")
    assert r.status == 403
    assert r.json["message"] == ('forbidden: User "nobody" cannot get path '
                                 '"/metrics"')
    assert call(srv, "GET", "/metrics", token=None).status == 403
    assert call(srv, "GET", "/metrics/slis", token="tok-nobody").status == 403
    # system:monitoring and cluster-admin may
    assert call(srv, "GET", "/metrics", token="tok-admin").status == 200
    assert call(srv, "GET", "/metrics/slis", token="tok-mon").status == 200


def test_slis(srv):
    assert call(srv, "GET", "/readyz", token="tok-mon").status == 200
    s = scrape(srv, "/metrics/slis")
    assert value(s, "kubernetes_healthcheck", name="etcd",
                 type="readyz") == 1
    assert value(s, "kubernetes_healthchecks_total", name="etcd",
                 type="readyz", status="success") >= 1
    assert set(s) <= {"kubernetes_healthcheck",
                      "kubernetes_healthchecks_total"}
    assert "kubernetes_healthcheck" not in scrape(srv)


def test_bounded_series(srv):
    before = len(scrape(srv)["apiserver_request_total"])
    for i in range(30):
        call(srv, "GET", CM + "-nosuch%d" % i)
        call(srv, "GET", "/api/v1/namespaces/%s/nosuch%d" % (NS, i))
        call(srv, "GET", "/nosuch/path%d" % i)
        call(srv, "DELETE", "/apis/nosuch%d.example.com/v1/things" % i)
    s = scrape(srv)
    text = json.dumps(s)
    assert "nosuch" not in text
    assert len(s["apiserver_request_total"]) - before <= 8


def test_watch_gauges_and_events(srv):
    watchers = dict(group="", kind="ConfigMap", version="v1")
    c = srv.connection(cert=None)
    c.request("GET", CM + "?watch=1&resourceVersion=0",
              headers={"Authorization": "Bearer tok-admin"})
    r = c.getresponse()
    assert r.status == 200
    try:
        assert eventually(lambda: value(scrape(srv),
                                        "apiserver_registered_watchers",
                                        **watchers) == 1)
        s = scrape(srv)
        assert value(s, "apiserver_longrunning_requests", verb="WATCH",
                     resource="configmaps", scope="namespace") == 1
        assert value(s, "apiserver_watch_events_total", **watchers) >= 1
        assert value(s, "apiserver_watch_events_sizes_count",
                     **watchers) >= 1
    finally:
        c.close()
    assert eventually(lambda: value(scrape(srv),
                                    "apiserver_registered_watchers",
                                    **watchers) == 0)
    s = scrape(srv)
    assert value(s, "apiserver_longrunning_requests", verb="WATCH") == 0
    assert value(s, "apiserver_request_total", verb="WATCH",
                 resource="configmaps", code="200") >= 1


def test_storage_authn_and_process(srv):
    assert call(srv, "GET", CM + "/cm", token="tok-bogus").status == 401
    assert call(srv, "GET", CM + "/cm", token="tok-nobody").status == 403
    s = scrape(srv)

    # the storage operations, whichever backend
    assert value(s, "etcd_requests_total", operation="get",
                 type="configmaps") >= 40
    assert value(s, "etcd_request_duration_seconds_count",
                 operation="create", type="namespaces") >= 1

    # sampled once a second after a worker starts (maybe before the
    # bootstrap's and the fixture's namespaces), then every minute; exact
    # after a reload (test_reload_keeps_counters)
    listed = len(call(srv, "GET", "/api/v1/namespaces").json["items"])
    counted = eventually(lambda: [v for lab, v in scrape(srv).get(
        "apiserver_storage_objects", []) if lab == {"resource": "namespaces"}])
    assert len(counted) == 1 and 0 <= counted[0] <= listed
    if not srv.etcd:
        assert value(s, "apiserver_storage_db_total_size_in_bytes") > 0
        assert value(s, "ngx_gcp_lmdb_fsync_duration_seconds_count") >= 1
        assert value(s, "ngx_gcp_lmdb_commit_batch_writes_sum") >= 1

    # (the parser names every counter sample ..._total)
    assert value(s, "authentication_attempts_total", result="success") >= 40
    assert value(s, "authentication_attempts_total", result="error") >= 1
    assert value(s, "authenticated_user_requests_total",
                 username="admin") >= 40
    assert value(s, "authorization_attempts_total", result="allowed") >= 40
    assert value(s, "authorization_attempts_total",
                 result="no-opinion") >= 1
    assert value(s, "apiserver_authorization_decisions_total",
                 decision="allowed", name="rbac", type="RBAC") >= 40

    info = s["kubernetes_build_info"][0][0]
    assert info["git_version"].startswith("v1.32")
    assert info["major"] == "1" and info["minor"] == "32"
    assert value(s, "process_cpu_seconds_total") > 0
    assert value(s, "process_resident_memory_bytes") > 0
    assert value(s, "process_open_fds") > 0
    assert value(s, "ngx_gcp_metrics_series_overflow_total") == 0


def test_reload_keeps_counters(srv):
    before = scrape(srv)
    n = value(before, "apiserver_request_total", code="200", **GET_CM)
    start = value(before, "process_start_time_seconds")
    old = set(srv.worker_pids())

    srv.reload()
    assert eventually(lambda: not (set(srv.worker_pids()) & old), 30)

    assert call(srv, "GET", CM + "/cm").status == 200
    after = scrape(srv)
    assert value(after, "apiserver_request_total", code="200",
                 **GET_CM) == n + 1
    assert value(after, "process_start_time_seconds") == start
    # the old workers' in-flight requests and watchers went with them
    assert value(after, "apiserver_current_inflight_requests",
                 request_kind="readOnly") == 1
    assert value(after, "apiserver_current_inflight_requests",
                 request_kind="mutating") == 0

    # the new workers' first sample of the storage: the old one's gone
    listed = len(call(srv, "GET", "/api/v1/namespaces").json["items"])
    assert eventually(lambda: value(scrape(srv), "apiserver_storage_objects",
                                    resource="namespaces") == listed, 30)


def test_metrics_off():
    with GcpServer(workers=2, http_extra="gcp_metrics off;") as s:
        c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=30)
        c.request("GET", "/metrics")
        r = c.getresponse()
        assert r.status == 200
        assert r.read() == b""
        c.close()
