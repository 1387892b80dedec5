"""The official Python client (python3-kubernetes, /usr/bin/python3)
against ngx_gcp: typed CRUD of every served type, leader-election leases,
events, list options, watches, and the errors it raises."""

import base64
import datetime
import json
import threading
import time

import pytest
from kubernetes import client, watch
from kubernetes.client.rest import ApiException


UTC = datetime.timezone.utc


@pytest.fixture
def api(server):
    with server.api_client() as c:
        yield c


@pytest.fixture
def core(api):
    return client.CoreV1Api(api)


def meta(name, **kw):
    return client.V1ObjectMeta(name=name, **kw)


def raises(fn, *args, **kw):
    with pytest.raises(ApiException) as e:
        fn(*args, **kw)
    return e.value


def status_body(e):
    return json.loads(e.body)


def record_content_types(api):
    """Wraps the client's connection pool: returns the list that collects
    the Content-Type of every request sent."""
    seen = []
    pool = api.rest_client.pool_manager
    orig = pool.request

    def request(method, url, *args, **kw):
        seen.append((method, (kw.get("headers") or {}).get("Content-Type")))
        return orig(method, url, *args, **kw)

    pool.request = request
    return seen


# ---------------------------------------------------------------- namespaces


def test_namespace_crud(server, core, unique_name):
    name = unique_name("pyns")

    ns = core.create_namespace(client.V1Namespace(
        metadata=meta(name, labels={"team": "a"})))
    assert ns.metadata.name == name
    assert ns.metadata.labels == {"team": "a",
                                  "kubernetes.io/metadata.name": name}
    assert ns.spec.finalizers == ["kubernetes"]
    assert ns.status.phase == "Active"
    assert ns.metadata.creation_timestamp.tzinfo is not None

    got = core.read_namespace(name)
    assert got.metadata.uid == ns.metadata.uid
    assert got.metadata.resource_version == ns.metadata.resource_version

    got.metadata.labels["team"] = "b"
    rep = core.replace_namespace(name, got)
    assert rep.metadata.labels["team"] == "b"
    assert int(rep.metadata.resource_version) > int(
        got.metadata.resource_version)

    pat = core.patch_namespace(name, {"metadata": {"annotations": {
        "note": "x"}}})
    assert pat.metadata.annotations == {"note": "x"}

    names = [n.metadata.name for n in core.list_namespace(
        label_selector="team=b").items]
    assert name in names
    assert all(n.metadata.labels.get("team") == "b"
               for n in core.list_namespace(label_selector="team=b").items)
    assert [n.metadata.name for n in core.list_namespace(
        field_selector="metadata.name=%s" % name).items] == [name]

    # a namespace is deleted in two steps: it turns Terminating, then the
    # namespace controller empties it and removes its finalizer
    core.create_namespaced_config_map(name, client.V1ConfigMap(metadata={
        "name": "held", "finalizers": ["example.com/hold"]}))
    core.delete_namespace(name)
    got = core.read_namespace(name)
    assert got.status.phase == "Terminating"
    assert got.metadata.deletion_timestamp is not None
    core.patch_namespaced_config_map("held", name, {"metadata": {
        "finalizers": None}})
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            core.read_namespace(name)
        except ApiException as e:
            assert e.status == 404
            break
        time.sleep(0.05)
    else:
        raise AssertionError("namespace %s still there" % name)

    e = raises(core.delete_namespace, "default")
    assert e.status == 403
    assert status_body(e)["message"] == (
        'namespaces "default" is forbidden: this namespace may not be '
        'deleted')


# ---------------------------------------------------------------- configmaps


def test_configmap_crud_and_patch_content_type(server, api, core,
                                               namespace):
    cm = core.create_namespaced_config_map(namespace, client.V1ConfigMap(
        metadata=meta("c1", labels={"app": "x"}), data={"a": "1"}))
    assert cm.kind == "ConfigMap" and cm.api_version == "v1"
    assert cm.metadata.namespace == namespace
    assert cm.data == {"a": "1"}

    read = core.read_namespaced_config_map("c1", namespace)
    assert read.metadata.resource_version == cm.metadata.resource_version

    read.data["b"] = "2"
    rep = core.replace_namespaced_config_map("c1", namespace, read)
    assert rep.data == {"a": "1", "b": "2"}

    # replacing with the old resourceVersion is a conflict
    e = raises(core.replace_namespaced_config_map, "c1", namespace, read)
    assert e.status == 409 and e.reason == "Conflict"
    assert status_body(e) == {
        "kind": "Status", "apiVersion": "v1", "metadata": {},
        "status": "Failure",
        "message": 'Operation cannot be fulfilled on configmaps "c1": the '
                   'object has been modified; please apply your changes to '
                   'the latest version and try again',
        "reason": "Conflict",
        "details": {"name": "c1", "kind": "configmaps"}, "code": 409}

    # a dict body goes as a strategic merge patch, a list as a JSON patch
    seen = record_content_types(api)
    pat = core.patch_namespaced_config_map("c1", namespace, {
        "data": {"a": None, "c": "3"}})
    assert pat.data == {"b": "2", "c": "3"}
    pat = core.patch_namespaced_config_map("c1", namespace, [
        {"op": "replace", "path": "/data/b", "value": "20"}])
    assert pat.data == {"b": "20", "c": "3"}
    assert seen == [("PATCH", "application/strategic-merge-patch+json"),
                    ("PATCH", "application/json-patch+json")]

    st = core.delete_namespaced_config_map("c1", namespace)
    assert st.status == "Success"
    assert st.details.name == "c1"
    assert st.details.kind == "configmaps"
    assert st.details.uid == cm.metadata.uid

    e = raises(core.read_namespaced_config_map, "c1", namespace)
    assert e.status == 404 and e.reason == "Not Found"
    assert status_body(e) == {
        "kind": "Status", "apiVersion": "v1", "metadata": {},
        "status": "Failure", "message": 'configmaps "c1" not found',
        "reason": "NotFound", "details": {"name": "c1",
                                          "kind": "configmaps"},
        "code": 404}


def test_configmap_empty_fields_come_back_absent(core, namespace):
    # as a Go server: empty maps are not stored (omitempty)
    cm = core.create_namespaced_config_map(namespace, client.V1ConfigMap(
        metadata=meta("empty", labels={}, annotations={}), data={}))
    assert cm.data is None
    assert cm.metadata.labels is None
    assert cm.metadata.annotations is None


def test_invalid_object_exception(core, namespace):
    e = raises(core.create_namespaced_config_map, namespace,
               client.V1ConfigMap(metadata=meta("Bad_Name"),
                                  data={"bad key": "v"}))
    assert e.status == 422
    body = status_body(e)
    assert body["reason"] == "Invalid"
    assert body["details"]["name"] == "Bad_Name"
    assert body["details"]["kind"] == "ConfigMap"
    assert [(c["reason"], c["field"]) for c in body["details"]["causes"]] == [
        ("FieldValueInvalid", "metadata.name"),
        ("FieldValueInvalid", "data[bad key]")]
    assert body["details"]["causes"][1]["message"] == (
        "Invalid value: \"bad key\": a valid config key must consist of "
        "alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or "
        "'KEY_NAME',  or 'key-name', regex used for validation is "
        "'[-._a-zA-Z0-9]+')")

    core.create_namespaced_config_map(namespace, client.V1ConfigMap(
        metadata=meta("dup")))
    e = raises(core.create_namespaced_config_map, namespace,
               client.V1ConfigMap(metadata=meta("dup")))
    assert e.status == 409 and e.reason == "Conflict"
    assert status_body(e)["reason"] == "AlreadyExists"
    assert status_body(e)["message"] == 'configmaps "dup" already exists'


# ---------------------------------------------------------------- secrets


def test_secret_string_data(core, namespace):
    s = core.create_namespaced_secret(namespace, client.V1Secret(
        metadata=meta("s1"), string_data={"user": "admin", "pw": "s3cr3t"},
        data={"raw": base64.b64encode(b"\x00\x01").decode()}))
    assert s.type == "Opaque"
    assert s.string_data is None
    assert s.data == {"user": "YWRtaW4=", "pw": "czNjcjN0", "raw": "AAE="}

    got = core.read_namespaced_secret("s1", namespace)
    assert got.data == s.data

    pat = core.patch_namespaced_secret("s1", namespace,
                                       {"stringData": {"user": "root"}})
    assert base64.b64decode(pat.data["user"]) == b"root"
    assert pat.string_data is None

    e = raises(core.create_namespaced_secret, namespace, client.V1Secret(
        metadata=meta("tls"), type="kubernetes.io/tls"))
    assert e.status == 422
    assert [(c["reason"], c["field"]) for c in
            status_body(e)["details"]["causes"]] == [
        ("FieldValueRequired", "data[tls.crt]"),
        ("FieldValueRequired", "data[tls.key]")]

    e = raises(core.replace_namespaced_secret, "s1", namespace,
               client.V1Secret(metadata=meta("s1"), type="Other"))
    assert e.status == 422
    assert status_body(e)["details"]["causes"][0] == {
        "reason": "FieldValueInvalid",
        "message": 'Invalid value: "Other": field is immutable',
        "field": "type"}

    assert [x.metadata.name for x in
            core.list_namespaced_secret(namespace).items] == ["s1"]
    core.delete_namespaced_secret("s1", namespace)
    assert core.list_namespaced_secret(namespace).items == []


# ---------------------------------------------------------------- SAs


def test_serviceaccount_crud(core, namespace):
    sa = core.create_namespaced_service_account(namespace,
        client.V1ServiceAccount(metadata=meta("robot"),
                                automount_service_account_token=False))
    assert sa.automount_service_account_token is False
    assert sa.secrets is None

    pat = core.patch_namespaced_service_account("robot", namespace, {
        "secrets": [{"name": "tok"}]})
    assert [r.name for r in pat.secrets] == ["tok"]

    got = core.read_namespaced_service_account("robot", namespace)
    got.image_pull_secrets = [client.V1LocalObjectReference(name="reg")]
    rep = core.replace_namespaced_service_account("robot", namespace, got)
    assert [r.name for r in rep.image_pull_secrets] == ["reg"]

    # with the "default" one the service account controller made
    deadline = time.time() + 5
    while time.time() < deadline and len(
            core.list_namespaced_service_account(namespace).items) < 2:
        time.sleep(0.05)
    assert [x.metadata.name for x in core.list_namespaced_service_account(
        namespace).items] == ["default", "robot"]
    core.delete_namespaced_service_account("robot", namespace)
    e = raises(core.read_namespaced_service_account, "robot", namespace)
    assert e.status == 404
    assert status_body(e)["message"] == (
        'serviceaccounts "robot" not found')


# ---------------------------------------------------------------- events


def test_core_and_events_v1(api, core, namespace):
    ev = core.create_namespaced_event(namespace, client.CoreV1Event(
        metadata=meta("obj.1"),
        involved_object=client.V1ObjectReference(
            kind="ConfigMap", name="obj", namespace=namespace,
            api_version="v1"),
        reason="Started", message="it started", type="Normal",
        source=client.V1EventSource(component="py"),
        first_timestamp=datetime.datetime(2026, 1, 1, tzinfo=UTC),
        last_timestamp=datetime.datetime(2026, 1, 1, 0, 1, tzinfo=UTC),
        count=2))
    assert ev.count == 2
    assert ev.event_time is None
    assert ev.reporting_component == ""
    assert ev.last_timestamp == datetime.datetime(2026, 1, 1, 0, 1,
                                                  tzinfo=UTC)

    # events.k8s.io/v1 shows it with "eventTime": null, which the client's
    # EventsV1Event model refuses (as with kube-apiserver): read it raw
    ev.count = 3
    ev.message = "it started again"
    rep = core.replace_namespaced_event("obj.1", namespace, ev)
    assert (rep.count, rep.message) == (3, "it started again")
    pat = core.patch_namespaced_event("obj.1", namespace, {
        "message": "it started", "count": 2})
    assert (pat.count, pat.message) == (2, "it started")
    assert int(pat.metadata.resource_version) > int(
        rep.metadata.resource_version)

    ev1 = client.EventsV1Api(api)
    got = json.loads(ev1.read_namespaced_event(
        "obj.1", namespace, _preload_content=False).data)
    assert got["eventTime"] is None
    assert got["note"] == "it started"
    assert got["regarding"]["name"] == "obj"
    assert got["deprecatedCount"] == 2
    assert got["deprecatedSource"] == {"component": "py"}

    now = datetime.datetime(2026, 2, 3, 4, 5, 6, 789012, tzinfo=UTC)
    new = ev1.create_namespaced_event(namespace, client.EventsV1Event(
        metadata=meta("obj.2"), event_time=now,
        reporting_controller="example.com/py", reporting_instance="py-1",
        action="Check", reason="Checked", note="checked it", type="Warning",
        regarding=client.V1ObjectReference(kind="ConfigMap", name="obj",
                                           namespace=namespace)))
    assert new.event_time == now
    assert new.reporting_controller == "example.com/py"

    # the core view of an events.k8s.io event
    c = core.read_namespaced_event("obj.2", namespace)
    assert c.message == "checked it"
    assert c.reporting_component == "example.com/py"
    assert c.event_time == now
    assert c.involved_object.name == "obj"

    sel = core.list_namespaced_event(
        namespace, field_selector="involvedObject.name=obj,type=Warning")
    assert [e.metadata.name for e in sel.items] == ["obj.2"]
    assert [e["metadata"]["name"] for e in json.loads(
        ev1.list_namespaced_event(namespace, _preload_content=False).data)[
            "items"]] == ["obj.1", "obj.2"]

    e = raises(core.list_namespaced_event, namespace,
               field_selector="message=x")
    assert e.status == 400
    assert status_body(e)["message"] == "field label not supported: message"

    ev1.delete_namespaced_event("obj.2", namespace)
    assert [e.metadata.name for e in core.list_namespaced_event(
        namespace).items] == ["obj.1"]


# ---------------------------------------------------------------- leases


def test_lease_leader_election(api, namespace):
    coord = client.CoordinationV1Api(api)
    t0 = datetime.datetime(2026, 1, 1, 0, 0, 0, 123456, tzinfo=UTC)

    lease = coord.create_namespaced_lease(namespace, client.V1Lease(
        metadata=meta("leader"),
        spec=client.V1LeaseSpec(holder_identity="a",
                                lease_duration_seconds=15,
                                acquire_time=t0, renew_time=t0,
                                lease_transitions=0)))
    assert lease.spec.renew_time == t0          # microseconds kept
    assert lease.spec.lease_transitions == 0

    # two candidates read the same version; the first renew wins
    mine = coord.read_namespaced_lease("leader", namespace)
    theirs = coord.read_namespaced_lease("leader", namespace)

    mine.spec.renew_time = t0 + datetime.timedelta(seconds=5)
    renewed = coord.replace_namespaced_lease("leader", namespace, mine)
    assert renewed.spec.renew_time == t0 + datetime.timedelta(seconds=5)
    assert int(renewed.metadata.resource_version) > int(
        mine.metadata.resource_version)

    theirs.spec.holder_identity = "b"
    theirs.spec.lease_transitions = 1
    e = raises(coord.replace_namespaced_lease, "leader", namespace, theirs)
    assert e.status == 409
    assert e.reason == "Conflict"
    assert status_body(e) == {
        "kind": "Status", "apiVersion": "v1", "metadata": {},
        "status": "Failure",
        "message": 'Operation cannot be fulfilled on '
                   'leases.coordination.k8s.io "leader": the object has '
                   'been modified; please apply your changes to the latest '
                   'version and try again',
        "reason": "Conflict",
        "details": {"name": "leader", "group": "coordination.k8s.io",
                    "kind": "leases"},
        "code": 409}

    got = coord.read_namespaced_lease("leader", namespace)
    assert got.spec.holder_identity == "a"

    pat = coord.patch_namespaced_lease("leader", namespace, {
        "spec": {"holderIdentity": "b", "leaseTransitions": 1}})
    assert pat.spec.holder_identity == "b"
    assert [x.metadata.name for x in coord.list_namespaced_lease(
        namespace).items] == ["leader"]

    e = raises(coord.create_namespaced_lease, namespace, client.V1Lease(
        metadata=meta("bad"), spec=client.V1LeaseSpec(
            lease_duration_seconds=0)))
    assert e.status == 422
    assert status_body(e)["message"] == (
        'Lease.coordination.k8s.io "bad" is invalid: '
        'spec.leaseDurationSeconds: Invalid value: 0: must be greater '
        'than 0')
    coord.delete_namespaced_lease("leader", namespace)


# ---------------------------------------------------------------- lists


def test_list_options(core, namespace):
    for i in range(5):
        core.create_namespaced_config_map(namespace, client.V1ConfigMap(
            metadata=meta("cm-%d" % i, labels={
                "app": "web" if i < 3 else "db", "i": str(i)}),
            data={"i": str(i)}))

    page = core.list_namespaced_config_map(namespace, limit=2)
    assert [c.metadata.name for c in page.items] == ["cm-0", "cm-1"]
    assert page.metadata.remaining_item_count == 3
    rv = page.metadata.resource_version

    # a write between pages: the pages still show the first snapshot
    core.delete_namespaced_config_map("cm-4", namespace)

    page2 = core.list_namespaced_config_map(
        namespace, limit=2, _continue=page.metadata._continue)
    assert [c.metadata.name for c in page2.items] == ["cm-2", "cm-3"]
    assert page2.metadata.resource_version == rv
    assert page2.metadata.remaining_item_count == 1
    page3 = core.list_namespaced_config_map(
        namespace, limit=2, _continue=page2.metadata._continue)
    assert [c.metadata.name for c in page3.items] == ["cm-4"]
    assert page3.metadata._continue is None
    assert page3.metadata.remaining_item_count is None

    names = [c.metadata.name for c in core.list_namespaced_config_map(
        namespace, label_selector="app=web,i!=1").items]
    assert names == ["cm-0", "cm-2"]
    names = [c.metadata.name for c in core.list_namespaced_config_map(
        namespace, label_selector="app in (db),!nosuch").items]
    assert names == ["cm-3"]
    names = [c.metadata.name for c in core.list_namespaced_config_map(
        namespace, field_selector="metadata.name!=cm-0").items]
    assert names == ["cm-1", "cm-2", "cm-3"]

    all_ns = core.list_config_map_for_all_namespaces(
        field_selector="metadata.namespace=%s" % namespace,
        label_selector="app=db")
    assert [(c.metadata.namespace, c.metadata.name)
            for c in all_ns.items] == [(namespace, "cm-3")]

    e = raises(core.list_namespaced_config_map, namespace,
               label_selector="app in (web")
    assert e.status == 400
    assert status_body(e)["reason"] == "BadRequest"
    e = raises(core.list_namespaced_config_map, namespace,
               field_selector="data.i=1")
    assert e.status == 400
    assert status_body(e)["message"] == (
        '"data.i" is not a known field selector: only "metadata.name", '
        '"metadata.namespace"')
    e = raises(core.list_namespaced_config_map, namespace, limit=2,
               _continue="garbage")
    assert e.status == 400
    assert status_body(e)["message"].startswith("invalid continue token: ")


# ---------------------------------------------------------------- watch


def test_watch_from_resource_version(core, namespace):
    rv = core.list_namespaced_config_map(namespace).metadata.resource_version
    core.create_namespaced_config_map(namespace, client.V1ConfigMap(
        metadata=meta("w"), data={"step": "1"}))
    core.patch_namespaced_config_map("w", namespace, {"data": {"step": "2"}})
    core.delete_namespaced_config_map("w", namespace)

    t0 = time.monotonic()
    events = [(e["type"], e["object"].metadata.name, e["object"].data)
              for e in watch.Watch().stream(
                  core.list_namespaced_config_map, namespace,
                  resource_version=rv, timeout_seconds=1)]
    assert events == [("ADDED", "w", {"step": "1"}),
                      ("MODIFIED", "w", {"step": "2"}),
                      ("DELETED", "w", {"step": "2"})]
    assert 0.9 <= time.monotonic() - t0 < 3


def test_watch_live_and_stop(core, namespace):
    core.create_namespaced_config_map(namespace, client.V1ConfigMap(
        metadata=meta("before")))

    def writer():
        time.sleep(0.5)
        core.create_namespaced_config_map(namespace, client.V1ConfigMap(
            metadata=meta("after"), data={"k": "v"}))

    th = threading.Thread(target=writer)
    th.start()
    w = watch.Watch()
    seen = []
    t0 = time.monotonic()
    for e in w.stream(core.list_namespaced_config_map, namespace,
                      timeout_seconds=10):
        seen.append((e["type"], e["object"].metadata.name))
        assert isinstance(e["object"], client.V1ConfigMap)
        if len(seen) == 2:
            w.stop()
    th.join()

    # without resourceVersion: the current state first, then changes
    assert seen == [("ADDED", "before"), ("ADDED", "after")]
    assert time.monotonic() - t0 < 5
    assert w.resource_version is not None



def test_http_reason_phrases(core, namespace):
    # ApiException.reason is the HTTP reason phrase, as Go's net/http
    # writes it (nginx 1.22 has none for 422)
    got = []
    for fn, args, kw in [
            (core.create_namespaced_config_map,
             (namespace, client.V1ConfigMap(metadata=meta("Bad_Name"))), {}),
            (core.read_namespaced_config_map, ("nosuch", namespace), {}),
            (core.list_namespaced_config_map, (namespace,),
             {"resource_version": "999999999",
              "resource_version_match": "Exact"}),
            (core.list_namespaced_config_map, (namespace,),
             {"resource_version": "999999999"})]:
        e = raises(fn, *args, **kw)
        got.append((e.status, e.reason))
    assert got == [(422, "Unprocessable Entity"), (404, "Not Found"),
                   (500, "Internal Server Error"), (504, "Gateway Timeout")]
