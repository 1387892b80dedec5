"""Lists with label selectors, answered by each worker's label index: a
write in one worker is seen by the next list in every worker (a new
connection for each request spreads them over the workers), with label
changes, deletes and paging, against a model of the labels."""

import random

from gcp_http import call, configmap

N = 60
SELECTORS = ["app=a", "app!=a", "app in (a,b)", "app notin (a,b)", "tier",
             "!tier", "app=a,tier=x", "app=none"]


def requirements(sel):
    """The requirements of a selector: commas outside parentheses."""
    reqs, depth, cur = [], 0, ""
    for c in sel:
        depth += {"(": 1, ")": -1}.get(c, 0)
        if c == "," and depth == 0:
            reqs.append(cur)
            cur = ""
        else:
            cur += c
    return reqs + [cur]


def matches(labels, sel):
    for req in requirements(sel):
        if " notin " in req:
            k, vs = req.split(" notin ")
            if labels.get(k) in vs.strip("()").split(","):
                return False
        elif " in " in req:
            k, vs = req.split(" in ")
            if labels.get(k) not in vs.strip("()").split(","):
                return False
        elif "!=" in req:
            k, v = req.split("!=")
            if labels.get(k) == v:
                return False
        elif "=" in req:
            k, v = req.split("=")
            if labels.get(k) != v:
                return False
        elif req.startswith("!"):
            if req[1:] in labels:
                return False
        elif req not in labels:
            return False
    return True


def listed(server, path, sel, limit=0):
    names = []
    cont = ""
    while True:
        q = {"labelSelector": sel}
        if limit:
            q["limit"] = str(limit)
        if cont:
            q["continue"] = cont
        r = call(server, "GET", path + "?" + "&".join(
            "%s=%s" % (k, v.replace(" ", "%20").replace(",", "%2C")
                       .replace("(", "%28").replace(")", "%29")
                       .replace("=", "%3D").replace("!", "%21"))
            for k, v in q.items()))
        assert r.status == 200, r
        names += [i["metadata"]["name"] for i in r.json["items"]]
        cont = r.json["metadata"].get("continue", "")
        if not cont:
            return names


def random_labels(rnd):
    labels = {}
    if rnd.random() < 0.7:
        labels["app"] = rnd.choice("abc")
    if rnd.random() < 0.5:
        labels["tier"] = rnd.choice("xy")
    return labels


def test_writes_seen_by_every_worker(server, namespace):
    rnd = random.Random(19)
    path = "/api/v1/namespaces/%s/configmaps" % namespace
    model = {}

    for i in range(N):
        name = "cm-%02d" % i
        cm = configmap(name, {"i": str(i)})
        cm["metadata"]["labels"] = random_labels(rnd)
        r = call(server, "POST", path, cm)
        assert r.status == 201, r
        model[name] = cm["metadata"]["labels"]

    def check(sel, limit=0):
        want = sorted(n for n, l in model.items()
                      if l is not None and matches(l, sel))
        assert listed(server, path, sel, limit) == want, sel

    for sel in SELECTORS:
        for _ in range(4):      # each worker builds its index
            check(sel)

    for step in range(40):
        name = "cm-%02d" % rnd.randrange(N)
        if model[name] is None:
            cm = configmap(name, {"i": "again"})
            cm["metadata"]["labels"] = random_labels(rnd)
            r = call(server, "POST", path, cm)
            assert r.status == 201, r
            model[name] = cm["metadata"]["labels"]
        elif rnd.random() < 0.2:
            r = call(server, "DELETE", path + "/" + name)
            assert r.status == 200, r
            model[name] = None
        else:
            labels = random_labels(rnd)
            patch = {"metadata": {"labels": dict(
                {k: None for k in model[name]}, **labels)}}
            r = call(server, "PATCH", path + "/" + name, patch,
                     content_type="application/merge-patch+json")
            assert r.status == 200, r
            model[name] = labels

        sel = SELECTORS[step % len(SELECTORS)]
        check(sel)
        check(sel)
        check(sel, limit=1 + step % 5)
