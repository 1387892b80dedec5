"""Lists with field selectors (alone and with label selectors) answered by
each worker's index, against a model: metadata.name across namespaces,
metadata.namespace on cluster-wide lists, the declared fields of core/v1
Events, with updates that change the selected fields, deletes and paging
(a new connection for each request spreads them over the workers).  And
custom resources' Table rows, cached per object and CRD revision: a CRD
whose printer columns change never serves rows of the old columns.  And
custom resources' selectableFields (equality and inequality, with labels,
defaults of the schema), with kubectl, and across a CRD update that
changes them."""

import random
from urllib.parse import quote

from gcp_http import call, create_namespace
from gcp_wait import eventually

N = 40
REASONS = ["Pulled", "Failed", ""]
TYPES = ["Normal", "Warning"]
TARGETS = ["a", "b"]


def qs(**q):
    return "&".join("%s=%s" % (k, quote(v, safe="")) for k, v in q.items()
                    if v)


def listed(server, path, fields, labels="", limit=0):
    names, cont = [], ""
    while True:
        r = call(server, "GET", path + "?" + qs(
            fieldSelector=fields, labelSelector=labels,
            limit=str(limit) if limit else "", **{"continue": cont}))
        assert r.status == 200, r
        names += [(i["metadata"]["namespace"], i["metadata"]["name"])
                  for i in r.json["items"]]
        cont = r.json["metadata"].get("continue", "")
        if not cont:
            return names


def event(name, rnd):
    return {"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": name,
                         "labels": {"app": rnd.choice("xy")}},
            "reason": rnd.choice(REASONS), "type": rnd.choice(TYPES),
            "source": {"component": "fi19"},
            "involvedObject": {"kind": "ConfigMap",
                               "name": rnd.choice(TARGETS)}}


def fields_of(ns, name, ev):
    return {"metadata.name": name, "metadata.namespace": ns,
            "reason": ev.get("reason", ""), "type": ev.get("type", ""),
            "involvedObject.name": ev["involvedObject"]["name"],
            "involvedObject.namespace": ns}


def holds(f, labels, fsel, lsel):
    for term in fsel.split(","):
        if "!=" in term:
            k, v = term.split("!=")
            if f[k] == v:
                return False
        else:
            k, v = term.split("=")
            if f[k] != v:
                return False
    for term in [t for t in lsel.split(",") if t]:
        k, v = term.split("=")
        if labels.get(k) != v:
            return False
    return True


def test_field_selectors_against_model(server, namespace, unique_name):
    other = unique_name("fi")
    create_namespace(server, other)
    try:
        field_selectors_against_model(server, namespace, other, unique_name)
    finally:
        call(server, "DELETE", "/api/v1/namespaces/" + other)


def field_selectors_against_model(server, namespace, other, unique_name):
    rnd = random.Random(1919)
    spaces = [namespace, other]
    tag = unique_name("ev")
    model = {}

    for i in range(N):
        ns, name = spaces[i % 2], "%s-%02d" % (tag, i)
        ev = event(name, rnd)
        ev["involvedObject"]["namespace"] = ns
        r = call(server, "POST", "/api/v1/namespaces/%s/events" % ns, ev)
        assert r.status == 201, r
        model[(ns, name)] = ev

    one = "%s-07" % tag

    # (scope, field selector, label selector)
    queries = [(namespace, "reason=Failed", ""),
               (namespace, "reason!=Failed", ""),
               (other, "reason=", ""),
               (namespace, "type=Warning,involvedObject.name=a", ""),
               (other, "type!=Warning", "app=x"),
               ("", "metadata.name=" + one, ""),
               ("", "metadata.namespace=" + other + ",reason=Pulled", ""),
               ("", "metadata.namespace=" + namespace, "app=y"),
               (namespace, "metadata.name!=" + one + ",reason!=", ""),
               ("", "involvedObject.namespace=" + namespace
                + ",type=Normal", "")]

    def check(q, limit=0):
        scope, fsel, lsel = q
        path = ("/api/v1/namespaces/%s/events" % scope if scope
                else "/api/v1/events")
        want = sorted(k for k, ev in model.items()
                      if ev is not None and (not scope or k[0] == scope)
                      and holds(fields_of(k[0], k[1], ev),
                                ev["metadata"]["labels"], fsel, lsel))
        got = listed(server, path, fsel, lsel, limit)
        if not scope:
            got = [k for k in got if k[1].startswith(tag)]
        assert got == want, q

    for q in queries:
        for _ in range(4):      # each worker builds its index
            check(q)

    for step in range(40):
        key = rnd.choice(sorted(model))
        ns, name = key
        path = "/api/v1/namespaces/%s/events" % ns
        if model[key] is None:
            ev = event(name, rnd)
            ev["involvedObject"]["namespace"] = ns
            r = call(server, "POST", path, ev)
            assert r.status == 201, r
            model[key] = ev
        elif rnd.random() < 0.2:
            r = call(server, "DELETE", path + "/" + name)
            assert r.status == 200, r
            model[key] = None
        else:
            # the selected fields change
            ev = model[key]
            ev["reason"] = rnd.choice(REASONS)
            ev["type"] = rnd.choice(TYPES)
            ev["involvedObject"]["name"] = rnd.choice(TARGETS)
            ev["metadata"]["labels"] = {"app": rnd.choice("xy")}
            r = call(server, "PATCH", path + "/" + name,
                     {"reason": ev["reason"], "type": ev["type"],
                      "involvedObject": {"name": ev["involvedObject"]
                                         ["name"]},
                      "metadata": {"labels": ev["metadata"]["labels"]}},
                     content_type="application/merge-patch+json")
            assert r.status == 200, r

        q = queries[step % len(queries)]
        check(q)
        check(q)
        check(q, limit=1 + step % 4)


# custom resources' Table rows

GROUP = "fi19.example.com"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
PATHS = {"Color": "color", "Size": "size", "Shape": "shape"}


def columns(*names):
    return [{"name": n, "type": "integer" if n == "Size" else "string",
             "jsonPath": ".spec." + PATHS[n]} for n in names]


def crd(cols):
    schema = {"type": "object", "properties": {"spec": {
        "type": "object", "properties": {
            "color": {"type": "string"}, "size": {"type": "integer"},
            "shape": {"type": "string"}}}}}
    return {"apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "rowcaches." + GROUP},
            "spec": {"group": GROUP, "scope": "Namespaced",
                     "names": {"plural": "rowcaches", "singular": "rowcache",
                               "kind": "RowCache",
                               "listKind": "RowCacheList"},
                     "versions": [{"name": "v1", "served": True,
                                   "storage": True,
                                   "schema": {"openAPIV3Schema": schema},
                                   "additionalPrinterColumns": cols}]}}


def table(server, path):
    r = call(server, "GET", path + "?includeObject=Object",
             headers={"Accept": TABLE})
    assert r.status == 200, r
    return r.json


def consistent(t):
    """Every row's cells are its object's values of the Table's columns;
    returns the column names."""
    names = [c["name"] for c in t["columnDefinitions"]]
    for row in t["rows"]:
        spec = row["object"]["spec"]
        assert row["cells"][0] == row["object"]["metadata"]["name"]
        for name, cell in zip(names, row["cells"]):
            if name in PATHS:
                assert cell == spec.get(PATHS[name]), (names, row)
    return names


def test_cr_rows_follow_their_crd(server, namespace):
    crd_path = ("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
                "rowcaches." + GROUP)
    r = call(server, "POST",
             "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
             crd(columns("Color", "Size")))
    assert r.status == 201, r
    path = "/apis/%s/v1/namespaces/%s/rowcaches" % (GROUP, namespace)

    def served():
        return call(server, "GET", path).status == 200
    for _ in range(4):
        assert eventually(served, timeout=60)

    try:
        for i in range(5):
            r = call(server, "POST", path, {
                "apiVersion": GROUP + "/v1", "kind": "RowCache",
                "metadata": {"name": "rc%d" % i},
                "spec": {"color": "red", "size": i, "shape": "s%d" % i}})
            assert r.status == 201, r

        for _ in range(6):      # rows cached in every worker
            assert consistent(table(server, path))[1:3] == ["Color",
                                                            "Size"]

        # an object changes: its row too, in every worker
        r = call(server, "PATCH", path + "/rc1", {"spec": {"color": "blue"}},
                 content_type="application/merge-patch+json")
        assert r.status == 200, r
        for _ in range(6):
            t = table(server, path)
            consistent(t)
            assert t["rows"][1]["cells"][1] == "blue"
            r = call(server, "GET", path + "/rc1",
                     headers={"Accept": TABLE})
            assert r.json["rows"][0]["cells"][1] == "blue"

        # the CRD's columns change under the same objects
        r = call(server, "GET", crd_path)
        body = r.json
        body["spec"]["versions"][0]["additionalPrinterColumns"] = \
            columns("Shape", "Size")
        r = call(server, "PUT", crd_path, body)
        assert r.status == 200, r

        def new_columns():
            return all(consistent(table(server, path))[1:3]
                       == ["Shape", "Size"] for _ in range(4))
        assert eventually(new_columns, timeout=60)
        for _ in range(6):
            assert consistent(table(server, path))[1:3] == ["Shape", "Size"]
    finally:
        call(server, "DELETE", crd_path)


# custom resources' selectableFields, from the index

SEL_GROUP = "fi19sel.example.com"
SEL_CRD = "selwidgets." + SEL_GROUP
COLORS = ["red", "blue", ""]


def sel_crd(paths, rv=None):
    schema = {"type": "object", "properties": {"spec": {
        "type": "object", "properties": {
            "color": {"type": "string"}, "size": {"type": "integer"},
            "shape": {"type": "string", "default": "round"}}}}}
    meta = {"name": SEL_CRD}
    if rv:
        meta["resourceVersion"] = rv
    return {"apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition", "metadata": meta,
            "spec": {"group": SEL_GROUP, "scope": "Namespaced",
                     "names": {"plural": "selwidgets",
                               "singular": "selwidget",
                               "kind": "SelWidget",
                               "listKind": "SelWidgetList"},
                     "versions": [{"name": "v1", "served": True,
                                   "storage": True,
                                   "schema": {"openAPIV3Schema": schema},
                                   "selectableFields": [
                                       {"jsonPath": p} for p in paths]}]}}


def sel_widget(name, rnd):
    spec = {"color": rnd.choice(COLORS)}
    if rnd.random() < 0.7:
        spec["size"] = rnd.randrange(3)
    if rnd.random() < 0.5:
        spec["shape"] = "square"
    return {"apiVersion": SEL_GROUP + "/v1", "kind": "SelWidget",
            "metadata": {"name": name, "labels": {"app": rnd.choice("xy")}},
            "spec": spec}


def sel_fields(ns, name, w):
    spec = w["spec"]
    return {"metadata.name": name, "metadata.namespace": ns,
            "spec.color": spec.get("color", ""),
            "spec.size": str(spec["size"]) if "size" in spec else "",
            "spec.shape": spec.get("shape", "round")}


def test_cr_selectable_fields_against_model(server, namespace, unique_name):
    other = unique_name("fs")
    create_namespace(server, other)
    crd_path = ("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
                + SEL_CRD)
    r = call(server, "POST",
             "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
             sel_crd([".spec.color", ".spec.size"]))
    assert r.status == 201, r
    try:
        cr_selectable_fields(server, crd_path, [namespace, other])
    finally:
        call(server, "DELETE", crd_path)
        call(server, "DELETE", "/api/v1/namespaces/" + other)


def cr_selectable_fields(server, crd_path, spaces):
    rnd = random.Random(3219)
    model = {}

    def path(ns):
        return "/apis/%s/v1/namespaces/%s/selwidgets" % (SEL_GROUP, ns)

    def served():
        return call(server, "GET", path(spaces[0])).status == 200
    for _ in range(4):
        assert eventually(served, timeout=60)

    for i in range(N):
        ns, name = spaces[i % 2], "sw-%02d" % i
        w = sel_widget(name, rnd)
        r = call(server, "POST", path(ns), w)
        assert r.status == 201, r
        model[(ns, name)] = w

    def check(q, limit=0):
        scope, fsel, lsel = q
        url = path(scope) if scope else "/apis/%s/v1/selwidgets" % SEL_GROUP
        want = sorted(k for k, w in model.items()
                      if w is not None and (not scope or k[0] == scope)
                      and holds(sel_fields(k[0], k[1], w),
                                w["metadata"]["labels"], fsel, lsel))
        got = listed(server, url, fsel, lsel, limit)
        if not scope:
            got = [k for k in got if k[0] in spaces]
        assert got == want, q

    def mutate():
        key = rnd.choice(sorted(model))
        ns, name = key
        if model[key] is None:
            w = sel_widget(name, rnd)
            r = call(server, "POST", path(ns), w)
            assert r.status == 201, r
            model[key] = w
        elif rnd.random() < 0.2:
            r = call(server, "DELETE", path(ns) + "/" + name)
            assert r.status == 200, r
            model[key] = None
        else:
            w = sel_widget(name, rnd)
            r = call(server, "GET", path(ns) + "/" + name)
            w["metadata"]["resourceVersion"] = \
                r.json["metadata"]["resourceVersion"]
            r = call(server, "PUT", path(ns) + "/" + name, w)
            assert r.status == 200, r
            del w["metadata"]["resourceVersion"]
            model[key] = w

    queries = [(spaces[0], "spec.color=red", ""),
               (spaces[1], "spec.color!=red", ""),
               ("", "spec.color=", ""),
               ("", "spec.size=1", "app=x"),
               (spaces[0], "spec.size!=2,spec.color=blue", ""),
               ("", "metadata.namespace=" + spaces[1] + ",spec.size=", "")]

    for q in queries:
        for _ in range(4):      # each worker builds its index
            check(q)
    for step in range(30):
        mutate()
        q = queries[step % len(queries)]
        check(q)
        check(q, limit=1 + step % 3)

    # kubectl filters by a selectable field
    p = server.kubectl("get", "selwidgets." + SEL_GROUP, "-n", spaces[0],
                       "--field-selector", "spec.color=red", "-o", "name")
    want = sorted("selwidget.%s/%s" % (SEL_GROUP, k[1])
                  for k, w in model.items() if w is not None
                  and k[0] == spaces[0] and w["spec"]["color"] == "red")
    assert sorted(p.stdout.split()) == want

    # the CRD's selectable fields change under the same objects
    r = call(server, "GET", crd_path)
    r = call(server, "PUT", crd_path,
             sel_crd([".spec.shape"], r.json["metadata"]["resourceVersion"]))
    assert r.status == 200, r

    def new_fields():
        return all(call(server, "GET", path(spaces[0]) + "?fieldSelector="
                        "spec.shape%3Dround").status == 200
                   and call(server, "GET", path(spaces[0]) + "?fieldSelector="
                            "spec.color%3Dred").status == 400
                   for _ in range(4))
    assert eventually(new_fields, timeout=60)

    queries = [(spaces[0], "spec.shape=round", ""),
               ("", "spec.shape!=round", "app=y"),
               (spaces[1], "spec.shape=square,metadata.name!=sw-03", "")]
    for q in queries:
        for _ in range(4):
            check(q)
    for step in range(15):
        mutate()
        q = queries[step % len(queries)]
        check(q)
        check(q, limit=1 + step % 3)
