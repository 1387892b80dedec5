"""API Priority and Fairness: the flowcontrol.apiserver.k8s.io objects
through kubectl, raw protobuf and the Python client, the classification of
users, groups and service accounts (the X-Kubernetes-PF-* headers), and
the enforcement with a small server concurrency limit (4 + 2 seats) on two
workers: 429 with Retry-After under overload while the admin and a lease
renewal go on, fair queuing between two flows, a level's limit across the
workers, the debug dumps, the Dangling condition, the ensurer, and the
inflight limits with APF off; the apiserver_flowcontrol_* metrics of
requests and of the levels' limits, the same from either worker.

Slow requests are lists at a future resourceVersion: the server holds
them 3 seconds (the watch cache's wait) before answering 504, in their
seats all along."""

import hashlib
import math
import re
import struct
import threading
import time
import uuid

import pytest

from gcp_http import call
from gcp_pbwire import decode, unwrap
from gcp_prom import samples, value
from gcp_server import GcpServer
from gcp_wait import eventually

FC = "/apis/flowcontrol.apiserver.k8s.io/v1"
FCB3 = "/apis/flowcontrol.apiserver.k8s.io/v1beta3"
PB = "application/vnd.kubernetes.protobuf"
TOKENS = ("tok-alice,alice,uid-alice\n"
          "tok-node,system:node:n1,uid-n1,\"system:nodes\"\n"
          "tok-kcm,system:kube-controller-manager,uid-kcm\n")
NS = "apf"
SLOW = ("/api/v1/namespaces/%s/configmaps?resourceVersion=999999999"
        "&resourceVersionMatch=NotOlderThan" % NS)
LIMITS = ("gcp_max_requests_inflight 4; "
          "gcp_max_mutating_requests_inflight 2;")

POLICY = """
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader, namespace: apf}
rules:
- {apiGroups: [""], resources: [configmaps], verbs: [get, list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: readers, namespace: apf}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
subjects:
- {kind: Group, name: "system:serviceaccounts:apf"}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: leaser, namespace: kube-system}
rules:
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [get, create, update]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: leaser, namespace: kube-system}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: leaser}
subjects:
- {kind: ServiceAccount, name: leader, namespace: kube-system}
"""


def level(name, shares, queues=1, hand=1, length=50, lendable=0,
          borrowing=0):
    return {"apiVersion": "flowcontrol.apiserver.k8s.io/v1",
            "kind": "PriorityLevelConfiguration",
            "metadata": {"name": name},
            "spec": {"type": "Limited",
                     "limited": {"nominalConcurrencyShares": shares,
                                 "lendablePercent": lendable,
                                 "borrowingLimitPercent": borrowing,
                                 "limitResponse": {
                                     "type": "Queue",
                                     "queuing": {"queues": queues,
                                                 "handSize": hand,
                                                 "queueLengthLimit":
                                                     length}}}}}


def schema(name, pl, accounts, precedence=500):
    return {"apiVersion": "flowcontrol.apiserver.k8s.io/v1",
            "kind": "FlowSchema",
            "metadata": {"name": name},
            "spec": {"priorityLevelConfiguration": {"name": pl},
                     "matchingPrecedence": precedence,
                     "distinguisherMethod": {"type": "ByUser"},
                     "rules": [{
                         "subjects": [{"kind": "ServiceAccount",
                                       "serviceAccount": {"namespace": NS,
                                                          "name": a}}
                                      for a in accounts],
                         "resourceRules": [{"verbs": ["*"],
                                            "apiGroups": ["*"],
                                            "resources": ["*"],
                                            "clusterScope": True,
                                            "namespaces": ["*"]}],
                         "nonResourceRules": [{"verbs": ["*"],
                                               "nonResourceURLs": ["*"]}]
                     }]}}


@pytest.fixture(scope="module")
def srv():
    s = GcpServer(workers=2, tls=True, authz="RBAC", token_file=TOKENS,
                  http_extra=LIMITS).start(timeout=60)
    try:
        s.kubectl("create", "namespace", NS)
        s.kubectl("apply", "-f", "-", input=POLICY)
        yield s
    finally:
        s.stop()


def token(srv, name, ns=NS):
    srv.kubectl("create", "sa", name, "-n", ns, check=False)
    return srv.kubectl("create", "token", name, "-n", ns).stdout.strip()


def req(srv, method, path, body=None, tok=None, headers=None, cert="admin",
        timeout=60):
    h = dict(headers or {})
    if tok:
        h["Authorization"] = "Bearer " + tok
        cert = None
    return call(srv, method, path, body, headers=h,
                conn=srv.connection(cert, timeout=timeout))


def uid(srv, kind, name):
    r = req(srv, "GET", "%s/%s/%s" % (FC, kind, name))
    assert r.status == 200, r
    return r.json["metadata"]["uid"]


def classified(srv, r, fs, pl):
    assert r.header("x-kubernetes-pf-flowschema-uid") == \
        uid(srv, "flowschemas", fs), (r.headers, fs)
    assert r.header("x-kubernetes-pf-prioritylevel-uid") == \
        uid(srv, "prioritylevelconfigurations", pl), (r.headers, pl)


def dump(srv, what="dump_priority_levels"):
    r = req(srv, "GET", "/debug/api_priority_and_fairness/" + what)
    assert r.status == 200, r
    return r.body.decode()


def level_row(srv, name):
    """The dump_priority_levels row of level name, as a dict."""
    lines = dump(srv).splitlines()
    head = [c.strip() for c in lines[0].split(",")]
    for line in lines[1:]:
        cells = [c.strip() for c in line.split(",")]
        if cells[0] == name:
            return dict(zip(head, cells))
    return None


# ------------------------------------------------------------ protobuf


def pb_names(items_msg):
    """The metadata.name of every item of a list message."""
    names = []
    for num, item in decode(items_msg):
        if num == 2:
            meta = dict(decode(dict(decode(item))[1]))
            names.append(meta[1].decode())
    return names


def test_kubectl_tables(srv):
    out = srv.kubectl("get", "flowschemas").stdout.splitlines()
    assert out[0].split() == ["NAME", "PRIORITYLEVEL", "MATCHINGPRECEDENCE",
                              "DISTINGUISHERMETHOD", "AGE", "MISSINGPL"]
    rows = [line.split() for line in out[1:]]
    # by precedence, then name
    assert [r[0] for r in rows[:4]] == ["exempt", "probes",
                                        "system-leader-election",
                                        "endpoint-controller"]
    assert rows[-1][:4] == ["catch-all", "catch-all", "10000", "ByUser"]
    assert [r[2] for r in rows] == sorted([r[2] for r in rows], key=int)
    assert eventually(lambda: all(
        r.split()[-1] == "False"
        for r in srv.kubectl("get", "flowschemas").stdout.splitlines()[1:]))

    out = srv.kubectl("get", "prioritylevelconfigurations").stdout
    lines = out.splitlines()
    assert lines[0].split() == ["NAME", "TYPE", "NOMINALCONCURRENCYSHARES",
                                "QUEUES", "HANDSIZE", "QUEUELENGTHLIMIT",
                                "AGE"]
    rows = {line.split()[0]: line.split()[1:6] for line in lines[1:]}
    assert rows["catch-all"] == ["Limited", "5", "<none>", "<none>",
                                 "<none>"]
    assert rows["exempt"] == ["Exempt", "<none>", "<none>", "<none>",
                              "<none>"]
    assert rows["global-default"] == ["Limited", "20", "128", "6", "50"]
    assert sorted(rows) == ["catch-all", "exempt", "global-default",
                            "leader-election", "node-high", "system",
                            "workload-high", "workload-low"]


def test_python_client_both_versions(srv):
    # Debian's client predates flowcontrol v1: its dynamic client, found
    # through discovery
    from kubernetes import dynamic
    with srv.api_client() as api:
        dyn = dynamic.DynamicClient(api)
        for version in ("v1", "v1beta3"):
            av = "flowcontrol.apiserver.k8s.io/" + version
            fs = dyn.resources.get(api_version=av, kind="FlowSchema")
            got = fs.get(name="service-accounts")
            assert got.apiVersion == av
            assert got.spec.priorityLevelConfiguration.name == \
                "workload-low"
            pl = dyn.resources.get(api_version=av,
                                   kind="PriorityLevelConfiguration")
            got = pl.get(name="workload-low")
            assert got.spec.limited.nominalConcurrencyShares == 100
            assert got.spec.limited.lendablePercent == 90
            names = [i.metadata.name for i in pl.get().items]
            assert "leader-election" in names

        # a status update through the client, as controllers write it
        fs = dyn.resources.get(api_version="flowcontrol.apiserver.k8s.io/"
                               "v1beta3", kind="FlowSchema")
        got = fs.get(name="global-default").to_dict()
        got["status"]["conditions"].append({"type": "Custom",
                                            "status": "True"})
        got["spec"]["matchingPrecedence"] = 1
        put = fs.status.replace(body=got)
        assert put.spec.matchingPrecedence == 9900
        types = [c.type for c in put.status.conditions]
        assert sorted(types) == ["Custom", "Dangling"]


def test_protobuf_list_and_watch(srv):
    for base in (FC, FCB3):
        version = base.rsplit("/", 1)[1]
        r = req(srv, "GET", base + "/flowschemas", headers={"Accept": PB})
        assert r.status == 200
        assert r.content_type == PB
        av, kind, raw = unwrap(r.body)
        assert (av, kind) == ("flowcontrol.apiserver.k8s.io/" + version,
                              "FlowSchemaList")
        assert "global-default" in pb_names(raw)

        r = req(srv, "GET", base + "/prioritylevelconfigurations/exempt",
                headers={"Accept": PB})
        av, kind, raw = unwrap(r.body)
        assert kind == "PriorityLevelConfiguration"
        spec = dict(decode(dict(decode(raw))[2]))
        assert spec[1] == b"Exempt"

        # a watch: length-prefixed WatchEvent messages (without envelope)
        # holding the objects' protobuf bodies, initial ADDED events
        conn = srv.connection()
        conn.request("GET", base + "/prioritylevelconfigurations?watch=1"
                     "&timeoutSeconds=1",
                     headers={"Accept": PB + ";stream=watch"})
        resp = conn.getresponse()
        assert resp.status == 200
        data = resp.read()
        conn.close()
        names, i = [], 0
        while i < len(data):
            n = struct.unpack(">I", data[i:i + 4])[0]
            ev = dict(decode(data[i + 4:i + 4 + n]))
            assert ev[1] == b"ADDED"
            obj = dict(decode(ev[2]))[1]
            av, kind, raw = unwrap(obj)
            assert (av, kind) == ("flowcontrol.apiserver.k8s.io/"
                                  + version, "PriorityLevelConfiguration")
            names.append(dict(decode(dict(decode(raw))[1]))[1])
            i += 4 + n
        assert b"workload-low" in names


def test_classification_headers(srv):
    admin = req(srv, "GET", "/api/v1/namespaces")
    classified(srv, admin, "exempt", "exempt")

    alice = req(srv, "GET", "/api/v1/namespaces", tok="tok-alice")
    assert alice.status == 403
    classified(srv, alice, "global-default", "global-default")

    node = req(srv, "GET", "/apis/coordination.k8s.io/v1/namespaces/"
               "kube-node-lease/leases/n1", tok="tok-node")
    classified(srv, node, "system-node-high", "node-high")
    node = req(srv, "GET", "/api/v1/namespaces", tok="tok-node")
    classified(srv, node, "system-nodes", "system")

    kcm = req(srv, "GET", "/apis/coordination.k8s.io/v1/namespaces/"
              "kube-system/leases/x", tok="tok-kcm")
    classified(srv, kcm, "system-leader-election", "leader-election")
    kcm = req(srv, "GET", "/api/v1/namespaces/apf/configmaps",
              tok="tok-kcm")
    classified(srv, kcm, "kube-controller-manager", "workload-high")

    sa = req(srv, "GET", "/api/v1/namespaces/apf/configmaps",
             tok=token(srv, "worker"))
    assert sa.status == 200
    classified(srv, sa, "service-accounts", "workload-low")
    ks = req(srv, "GET", "/api/v1/namespaces/apf/configmaps",
             tok=token(srv, "leader", "kube-system"))
    classified(srv, ks, "kube-system-service-accounts", "workload-high")

    anon = req(srv, "GET", "/readyz", cert=None)
    assert anon.status == 200
    classified(srv, anon, "probes", "exempt")
    anon = req(srv, "GET", "/api", cert=None)
    classified(srv, anon, "global-default", "global-default")

    # unauthenticated requests are not classified
    bad = req(srv, "GET", "/api", tok="nosuch")
    assert bad.status == 401
    assert bad.header("x-kubernetes-pf-flowschema-uid") is None


def test_dangling_condition(srv):
    body = schema("dangle", "later", ["nobody"], precedence=5000)
    assert req(srv, "POST", FC + "/flowschemas", body).status == 201

    def condition():
        r = req(srv, "GET", FC + "/flowschemas/dangle")
        conds = r.json["status"].get("conditions", [])
        return conds[0] if conds else None

    c = eventually(condition)
    assert c["type"] == "Dangling"
    assert (c["status"], c["reason"]) == ("True", "NotFound")
    assert c["message"] == ('This FlowSchema references the '
                            'PriorityLevelConfiguration object named '
                            '"later" but there is no such object')
    out = srv.kubectl("get", "flowschema", "dangle").stdout
    assert out.splitlines()[1].split()[-1] == "True"

    assert req(srv, "POST", FC + "/prioritylevelconfigurations",
               level("later", 1)).status == 201
    assert eventually(lambda: condition()["status"] == "False")
    assert condition()["reason"] == "Found"


def slow_lists(srv, tok, n):
    """n slow lists at once, each on its own connection; returns their
    responses."""
    out = [None] * n

    def run(i):
        out[i] = req(srv, "GET", SLOW, tok=tok)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    return threads, out


def test_overload(srv):
    flood = token(srv, "flooder")
    leader = token(srv, "leader", "kube-system")
    assert req(srv, "POST", FC + "/prioritylevelconfigurations",
               level("tiny", 1, length=2)).status == 201
    assert req(srv, "POST", FC + "/flowschemas",
               schema("flooders", "tiny", ["flooder"])).status == 201
    lease = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
             "metadata": {"name": "leader"},
             "spec": {"holderIdentity": "me", "leaseDurationSeconds": 15}}
    path = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases"
    assert req(srv, "POST", path, lease, tok=leader).status == 201

    # every worker knows the new level
    assert eventually(lambda: level_row(srv, "tiny") is not None)

    # 1 seat, one queue of 2: of 12 at once, most are rejected at once
    threads, out = slow_lists(srv, flood, 12)
    assert eventually(lambda: int(level_row(srv, "tiny")
                                  ["RejectedRequests"]) >= 5)

    # meanwhile the admin and a lease renewal are served, while the
    # flood's lists (three rounds of 3 s) still wait or run
    srv.kubectl("get", "namespaces")
    got = req(srv, "GET", path + "/leader", tok=leader)
    assert got.status == 200
    classified(srv, got, "system-leader-election", "leader-election")
    got.json["spec"]["holderIdentity"] = "me-again"
    renewed = req(srv, "PUT", path + "/leader", got.json, tok=leader)
    assert renewed.status == 200
    assert any(t.is_alive() for t in threads)

    for t in threads:
        t.join(60)
    rejected = [r for r in out if r.status == 429]
    assert len(rejected) >= 5
    assert [r.status for r in out if r.status != 429] == [504] * (
        12 - len(rejected))
    r = rejected[0]
    assert r.content_type == "text/plain; charset=utf-8"
    assert r.body == b"Too many requests, please try again later.\n"
    assert int(r.header("retry-after")) >= 1
    assert r.header("x-content-type-options") == "nosniff"
    classified(srv, r, "flooders", "tiny")

    # counted by both workers in kube-apiserver's apiserver_flowcontrol_*
    # and apiserver_request_total
    m = metrics(srv)
    flow = {"flow_schema": "flooders", "priority_level": "tiny"}
    served = 12 - len(rejected)
    assert value(m, "apiserver_flowcontrol_dispatched_requests_total",
                  **flow) == served
    assert value(m, "apiserver_flowcontrol_rejected_requests_total",
                  reason="queue-full", **flow) == len(rejected)
    for execute, n in (("true", served), ("false", len(rejected))):
        assert value(m, "apiserver_flowcontrol_request_wait_duration_"
                      "seconds_count", execute=execute, **flow) == n
    # the one seat: at most one ran at a time, the others waited a round
    assert value(m, "apiserver_flowcontrol_request_wait_duration_"
                  "seconds_bucket", execute="true", le="0.5",
                  **flow) <= 1
    # every request admitted joined the one queue; some saw others
    # waiting in it (one seat, a queue of 2)
    qlen = "apiserver_flowcontrol_request_queue_length_after_enqueue_"
    assert value(m, qlen + "count", **flow) == served
    assert value(m, qlen + "sum", **flow) > served
    assert value(m, qlen + "bucket", le="10", **flow) == served
    assert value(m, "apiserver_flowcontrol_request_execution_seconds_count",
                  type="regular", **flow) == served
    # each held its seat for the 3 seconds of the list
    assert value(m, "apiserver_flowcontrol_request_execution_seconds_"
                  "bucket", type="regular", le="2", **flow) == 0
    for gauge in ("current_inqueue_requests", "current_executing_requests",
                  "current_executing_seats", "current_inqueue_seats"):
        assert m["apiserver_flowcontrol_" + gauge]
        assert value(m, "apiserver_flowcontrol_" + gauge, **flow) == 0
    lists = {"verb": "LIST", "resource": "configmaps", "scope": "namespace"}
    assert value(m, "apiserver_request_total", code="429",
                  **lists) == len(rejected)
    assert value(m, "apiserver_request_total", code="504",
                  **lists) == served


def metrics(srv):
    """The samples of /metrics (as the admin): {name: [(labels, value)]},
    parsed by prometheus_client."""
    r = req(srv, "GET", "/metrics")
    assert r.status == 200
    return samples(r.body.decode())


def queue_of(fs, user, queues):
    """The queue of a flow with a hand of one (upstream's hashFlowID and
    shuffle sharding)."""
    h = hashlib.sha256(fs.encode() + b"\0" + user.encode()).digest()
    return struct.unpack("<Q", h[:8])[0] % queues


def set_shares(srv, name, shares):
    r = req(srv, "PATCH", FC + "/prioritylevelconfigurations/" + name,
            {"spec": {"limited": {"nominalConcurrencyShares": shares}}},
            headers={"Content-Type": "application/merge-patch+json"})
    assert r.status == 200, r


def test_fair_queuing(srv):
    """Fairness between two flows of one level, each in a queue of its
    own, sharing one seat: the seat alternates between them.  Judged by
    what the server dispatched (apiserver_flowcontrol_dispatched_requests_
    total; each flow has a FlowSchema of its own so that the counts tell
    them apart), never by the order in which the client sees answers,
    which a loaded machine shuffles."""
    a_fs, a_user = "fair-a", "system:serviceaccount:apf:fair-a"
    b_user = "system:serviceaccount:apf:fair-b"
    b_fs = next(fs for fs in ("fair-b%d" % i for i in range(64))
                if queue_of(fs, b_user, 64) != queue_of(a_fs, a_user, 64))
    tok = {"a": token(srv, "fair-a"), "b": token(srv, "fair-b")}

    # no seat at first ("jail"): every request waits
    assert req(srv, "POST", FC + "/prioritylevelconfigurations",
               level("fair", 0, queues=64)).status == 201
    for fs, account in ((a_fs, "fair-a"), (b_fs, "fair-b")):
        assert req(srv, "POST", FC + "/flowschemas",
                   schema(fs, "fair", [account])).status == 201
    assert eventually(lambda: level_row(srv, "fair") is not None)

    def dispatched():
        m = metrics(srv)
        return {w: int(value(m, "apiserver_flowcontrol_dispatched_"
                             "requests_total", flow_schema=fs,
                             priority_level="fair"))
                for w, fs in (("a", a_fs), ("b", b_fs))}

    # slow lists (3 s in their seat), allowed to wait a minute in queue
    # (a quarter of their timeout)
    out, lock = [], threading.Lock()

    def run(who):
        r = req(srv, "GET", SLOW + "&timeout=240s", tok=tok[who],
                timeout=300)
        with lock:
            out.append((who, r.status))

    threads = []
    for who, waiting in (("a", 4), ("b", 8)):
        for _ in range(4):
            threads.append(threading.Thread(target=run, args=(who,)))
            threads[-1].start()
        # flow a's four are queued before any of flow b's
        assert eventually(lambda: int(level_row(srv, "fair")
                                      ["WaitingRequests"]) == waiting, 30)

    # one seat; once two went through it, no seat again
    set_shares(srv, "fair", 1)
    assert eventually(lambda: sum(dispatched().values()) >= 2, 60)
    set_shares(srv, "fair", 0)
    assert eventually(lambda: int(level_row(srv, "fair")
                                  ["ExecutingRequests"]) == 0, 30)

    # each flow had the seat in turn; first come, first served would
    # have given flow a all of its four first
    d = dispatched()
    assert abs(d["a"] - d["b"]) <= 1, d
    assert d["b"] >= 1, d

    # the rest, with seats again
    set_shares(srv, "fair", 100)
    for t in threads:
        t.join(120)
    assert sorted(out) == [("a", 504)] * 4 + [("b", 504)] * 4
    assert dispatched() == {"a": 4, "b": 4}
    # the shares the other levels' limits are computed with (309 in all)
    set_shares(srv, "fair", 1)


def test_limit_across_workers(srv):
    tok = token(srv, "pair")
    # NominalCL 2 = ceil(6 * 60 / 309), no lending, no borrowing
    assert req(srv, "POST", FC + "/prioritylevelconfigurations",
               level("pair", 60, length=20)).status == 201
    assert req(srv, "POST", FC + "/flowschemas",
               schema("pairs", "pair", ["pair"])).status == 201
    assert eventually(lambda: level_row(srv, "pair") is not None)

    t0 = time.monotonic()
    threads, out = slow_lists(srv, tok, 6)
    most, waited = 0, 0
    while any(t.is_alive() for t in threads):
        row = level_row(srv, "pair")
        most = max(most, int(row["ExecutingRequests"]))
        waited = max(waited, int(row["WaitingRequests"]))
        time.sleep(0.1)
    took = time.monotonic() - t0

    assert [r.status for r in out] == [504] * 6
    assert most == 2
    assert waited >= 1
    # three rounds of two 3-second lists, whatever worker served which
    assert took >= 8.5


def test_debug_dumps(srv):
    text = dump(srv, "dump_priority_levels")
    assert text.startswith("PriorityLevelName, ActiveQueues, IsIdle, "
                           "IsQuiescing, WaitingRequests, ExecutingRequests,"
                           " DispatchedRequests, RejectedRequests, "
                           "TimedoutRequests, CancelledRequests\n")
    names = [line.split(",")[0] for line in text.splitlines()[1:]]
    assert names == sorted(names)
    assert "exempt" in names

    text = dump(srv, "dump_queues")
    assert text.startswith("PriorityLevelName, Index,  PendingRequests, ")
    assert len([x for x in text.splitlines()
                if x.startswith("leader-election,")]) == 16

    r = req(srv, "GET", "/debug/api_priority_and_fairness/dump_requests"
            "?includeRequestDetails=1")
    lines = r.body.decode().splitlines()
    assert lines[0].split(",")[-1].strip() == "SubResource"
    # the dump's own request, exempt and executing
    assert any(x.startswith("exempt,") and "dump_requests" in x
               for x in lines[1:])

    # alice's level (global-default) has few seats under LIMITS: on a
    # loaded machine a request may wait past its queue's bound (429), so
    # ask again until one is admitted
    answers = []

    def forbidden():
        answers.append(req(srv, "GET", "/debug/api_priority_and_fairness/"
                           "dump_queues", tok="tok-alice"))
        return answers[-1].status != 429

    assert eventually(forbidden, timeout=60)
    r = answers[-1]
    assert r.status == 403, r
    assert r.json["message"] == ('forbidden: User "alice" cannot get path '
                                 '"/debug/api_priority_and_fairness/'
                                 'dump_queues"')


def scrapes_by_worker(srv, at_once=6):
    """Scrapes /metrics on connections at once until both workers have
    answered (their pids in the access log); returns {pid: samples}."""
    by_pid = {}

    def attempt():
        tags = [uuid.uuid4().hex for _ in range(at_once)]
        texts = {}

        def run(tag):
            r = req(srv, "GET", "/metrics?scrape=" + tag)
            assert r.status == 200, r
            texts[tag] = r.body.decode()

        threads = [threading.Thread(target=run, args=(t,)) for t in tags]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)

        def logged():
            with open(srv.data_dir + "/access.log") as f:
                found = dict(re.findall(
                    r'"GET /metrics\?scrape=(\w+) HTTP/1.1" 200 .* '
                    r'pid=(\d+)', f.read()))
            return {t: found[t] for t in tags if t in found}

        assert eventually(lambda: len(logged()) == len(tags), 30)
        for tag, pid in logged().items():
            by_pid[pid] = samples(texts[tag])
        return len(by_pid) >= 2

    assert eventually(attempt, 120)
    return by_pid


def level_gauges(m, name):
    """{level: value} of apiserver_flowcontrol_<name>."""
    return {lab["priority_level"]: v
            for lab, v in m.get("apiserver_flowcontrol_" + name, [])}


def nominal_limits(srv):
    """Each level's NominalCL from the stored objects: ceil(ServerCL *
    NCS / sum of NCS), ServerCL 6 (LIMITS)."""
    r = req(srv, "GET", FC + "/prioritylevelconfigurations")
    assert r.status == 200, r
    shares = {}
    for plc in r.json["items"]:
        spec = plc["spec"]
        part = spec.get("limited") or spec.get("exempt") or {}
        shares[plc["metadata"]["name"]] = part.get(
            "nominalConcurrencyShares", 0)
    total = sum(shares.values())
    return {n: math.ceil(6 * s / total) for n, s in shares.items()}


def test_limit_gauges(srv):
    """The limits of the levels, kept in the dispatcher's shared memory,
    read the same from either worker, also when a level's go down."""
    assert req(srv, "POST", FC + "/prioritylevelconfigurations",
               level("gauged", 300)).status == 201

    seen = []

    def limits_shown():
        """Every level's limits as its object says, from both workers."""
        want = nominal_limits(srv)
        names = {line.split(",")[0] for line in
                 dump(srv).splitlines()[1:]}
        for pid, m in scrapes_by_worker(srv).items():
            got = {name: level_gauges(m, name) for name in (
                "nominal_limit_seats", "lower_limit_seats",
                "upper_limit_seats", "current_limit_seats")}
            seen[:] = [pid, want, got]
            nominal = got["nominal_limit_seats"]
            # every level of the dispatcher, and only those
            assert set(nominal) == names, (nominal, names)
            if any(nominal[n] != v for n, v in want.items()):
                return False
            # no lending, no borrowing: every bound is NominalCL
            if any(got[name]["gauged"] != want["gauged"] for name in got):
                return False
        return True

    # about half of the 6 seats
    assert eventually(limits_shown, 60), seen
    before = seen[1]["gauged"]
    assert before >= 3

    # down to 1 seat, whichever worker adjusted the current limit (every
    # 10 seconds)
    set_shares(srv, "gauged", 1)
    assert eventually(limits_shown, 90), seen
    assert seen[1]["gauged"] == 1

    # gone from the dispatcher, gone from the metrics
    assert req(srv, "DELETE", FC + "/prioritylevelconfigurations/"
               "gauged").status == 200
    assert eventually(lambda: level_row(srv, "gauged") is None, 60)
    assert eventually(lambda: all(
        "gauged" not in level_gauges(m, "nominal_limit_seats")
        for m in scrapes_by_worker(srv).values()), 60)


def test_execution_metrics(srv):
    """A request's time in its seat under its FlowSchema and level, type
    regular; a watch's initial stage, type watch."""
    tok = token(srv, "watcher")
    flow = {"flow_schema": "service-accounts",
            "priority_level": "workload-low"}
    execution = "apiserver_flowcontrol_request_execution_seconds_count"
    qlen = "apiserver_flowcontrol_request_queue_length_after_enqueue_count"
    # the level may have lent its seats to one an earlier test had
    # (test_limit_gauges): they come back at the next adjustment, within
    # 10 seconds; until then its requests wait and may get a 429, which
    # client-go retries
    assert eventually(lambda: req(srv, "GET", "/api/v1/namespaces/%s/"
                                  "configmaps" % NS, tok=tok).status == 200,
                      30)
    before = metrics(srv)

    r = req(srv, "GET", "/api/v1/namespaces/%s/configmaps" % NS, tok=tok)
    assert r.status == 200, r
    classified(srv, r, "service-accounts", "workload-low")
    w = req(srv, "GET", "/api/v1/namespaces/%s/configmaps?watch=1"
            "&timeoutSeconds=1" % NS, tok=tok)
    assert w.status == 200, w
    classified(srv, w, "service-accounts", "workload-low")

    after = metrics(srv)
    for kind in ("regular", "watch"):
        assert value(after, execution, type=kind, **flow) >= \
            value(before, execution, type=kind, **flow) + 1, kind
    # its seat went back when the watch started: well under the second
    # the watch lasted
    assert value(after, "apiserver_flowcontrol_request_execution_seconds_"
                 "bucket", type="watch", le="0.5", **flow) >= 1
    # a level with queues: both joined one
    assert value(after, qlen, **flow) >= value(before, qlen, **flow) + 2


def test_ensurer_at_start(srv):
    # a changed suggested level that allows updates, one that does not,
    # a deleted suggested schema, and an unwanted one allowing updates
    assert req(srv, "PATCH", FC + "/prioritylevelconfigurations/"
               "workload-high",
               {"spec": {"limited": {"nominalConcurrencyShares": 7}}},
               headers={"Content-Type": "application/merge-patch+json"}
               ).status == 200
    assert req(srv, "PATCH", FC + "/prioritylevelconfigurations/system",
               {"metadata": {"annotations": {
                   "apf.kubernetes.io/autoupdate-spec": "false"}},
                "spec": {"limited": {"nominalConcurrencyShares": 8}}},
               headers={"Content-Type": "application/merge-patch+json"}
               ).status == 200
    assert req(srv, "DELETE", FC + "/flowschemas/probes").status == 200
    unwanted = level("unwanted", 1)
    unwanted["metadata"]["annotations"] = {
        "apf.kubernetes.io/autoupdate-spec": "true"}
    assert req(srv, "POST", FC + "/prioritylevelconfigurations",
               unwanted).status == 201

    srv.restart(timeout=60)

    def ensured():
        wh = req(srv, "GET", FC + "/prioritylevelconfigurations/"
                 "workload-high").json
        sy = req(srv, "GET", FC + "/prioritylevelconfigurations/system").json
        return (wh["spec"]["limited"]["nominalConcurrencyShares"] == 40
                and sy["spec"]["limited"]["nominalConcurrencyShares"] == 8
                and req(srv, "GET", FC + "/flowschemas/probes").status == 200
                and req(srv, "GET", FC + "/prioritylevelconfigurations/"
                        "unwanted").status == 404)

    assert eventually(ensured, 20)


def test_apf_off():
    s = GcpServer(workers=2, tls=True, authz="RBAC", token_file=TOKENS,
                  http_extra="gcp_enable_priority_and_fairness off; "
                             "gcp_max_requests_inflight 1; "
                             "gcp_max_mutating_requests_inflight 1;"
                  ).start(timeout=60)
    try:
        s.kubectl("create", "namespace", NS)
        s.kubectl("apply", "-f", "-", input=POLICY)
        tok = token(s, "slow")

        r = req(s, "GET", "/api/v1/namespaces")
        assert r.status == 200
        assert r.header("x-kubernetes-pf-flowschema-uid") is None
        assert req(s, "GET", "/debug/api_priority_and_fairness/"
                   "dump_queues").status == 404

        # one readonly seat: a second slow list is rejected, the admin not
        threads, out = slow_lists(s, tok, 2)
        for t in threads:
            t.join(60)
        assert sorted(r.status for r in out) == [429, 504]
        r = [r for r in out if r.status == 429][0]
        assert r.header("retry-after") == "1"
        assert r.body == b"Too many requests, please try again later.\n"

        # while a slow list holds the seat, others get 429, masters not
        threads, out = slow_lists(s, tok, 1)
        assert eventually(lambda: req(s, "GET", "/api/v1/namespaces",
                                      tok="tok-alice").status == 429)
        assert req(s, "GET", "/api/v1/namespaces").status == 200
        for t in threads:
            t.join(60)
    finally:
        s.stop()


def test_reload(srv):
    # the new workers share a new dispatcher; the old ones exit
    old = srv.worker_pids()
    srv.reload()
    assert eventually(lambda: not any(p in srv.worker_pids() for p in old)
                      and len(srv.worker_pids()) == 2, 30)

    for _ in range(4):
        r = req(srv, "GET", "/api/v1/namespaces", tok="tok-alice")
        classified(srv, r, "global-default", "global-default")
    assert "global-default" in dump(srv)
