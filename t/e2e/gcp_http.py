"""Plain HTTP helpers shared by the end-to-end suites.

    r = call(srv, "POST", "/api/v1/namespaces", {"metadata": {...}})
    assert r.status == 201
    assert_status(r, 404, "NotFound", 'configmaps "x" not found')

call() opens a new connection per request (so that requests spread over
the workers), sends JSON for dict/list bodies, and returns a Response with
the status, the headers (lower-case names, every value kept), the raw body
and, when the body is JSON, the decoded value.
"""

import http.client
import json


class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    def header(self, name):
        """The first value of header name, or None."""
        values = self.headers.get(name.lower())
        return values[0] if values else None

    @property
    def content_type(self):
        return self.header("content-type")

    @property
    def json(self):
        return json.loads(self.body)

    def __repr__(self):
        return "<%d %s %r>" % (self.status, self.content_type,
                               self.body[:2000])


def connect(srv, timeout=30):
    return http.client.HTTPConnection("127.0.0.1", srv.port, timeout=timeout)


def read_response(r):
    headers = {}
    for k, v in r.getheaders():
        headers.setdefault(k.lower(), []).append(v)
    return Response(r.status, headers, r.read())


def call(srv, method, path, body=None, headers=None, content_type=None,
         timeout=30, conn=None):
    """Sends one request and returns its Response.  body: bytes or str as
    is, anything else as JSON (Content-Type application/json unless
    content_type or headers say otherwise).  conn: reuse a connection."""
    h = {"Accept": "application/json"}
    h.update(headers or {})
    if body is not None and not isinstance(body, (bytes, str)):
        body = json.dumps(body)
        h.setdefault("Content-Type", "application/json")
    if content_type is not None:
        h["Content-Type"] = content_type
    c = conn or connect(srv, timeout)
    try:
        c.request(method, path, body=body, headers=h)
        return read_response(c.getresponse())
    finally:
        if conn is None:
            c.close()


def assert_status(r, code, reason, message=None, details=None):
    """Asserts r is a Failure Status with this code and reason (None: no
    reason key), and when given this exact message and details."""
    assert r.status == code, r
    assert r.content_type == "application/json", r
    s = r.json
    assert s["kind"] == "Status", r
    assert s["apiVersion"] == "v1", r
    assert s["metadata"] == {}, r
    assert s["status"] == "Failure", r
    assert s["code"] == code, r
    if reason is None:
        assert "reason" not in s, r
    else:
        assert s["reason"] == reason, r
    if message is not None:
        assert s["message"] == message, r
    if details is not None:
        assert s.get("details") == details, r
    return s


def configmap(name, data=None, labels=None, namespace=None, **meta):
    """A ConfigMap body."""
    m = {"name": name}
    if labels:
        m["labels"] = labels
    if namespace:
        m["namespace"] = namespace
    m.update(meta)
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": m,
            "data": data if data is not None else {}}


def create_namespace(srv, name):
    r = call(srv, "POST", "/api/v1/namespaces",
             {"apiVersion": "v1", "kind": "Namespace",
              "metadata": {"name": name}})
    assert r.status == 201, r
    return r.json
