"""An admission webhook server for the tests: HTTPS on loopback with a
certificate of its own CA (made here with the openssl command line, as
tools/gcp-pki makes the server's), HTTP/1.1 keep-alive, one thread per
connection.

    with WebhookServer() as wh:
        wh.ca_bundle             # base64 of the CA, for clientConfig
        wh.url("/allow")         # https://127.0.0.1:PORT/allow
        wh.reviews("/deny")      # the AdmissionReviews received there
        wh.connections           # TLS connections accepted so far

What it answers depends on the path:

    /allow                allowed
    /deny                 refused: 403 Forbidden "denied by the test"
    /labels               as the webhook of the reference captures: the
                          object's labels decide: "deny" 403, "deny-422"
                          422 with a cause, "mutate" a JSONPatch adding an
                          annotation, "warn" a warning; otherwise allowed
    /label/KEY/VALUE      a JSONPatch setting label KEY to VALUE
    /annotate/KEY/VALUE   a JSONPatch setting annotation KEY to VALUE
    /audit/KEY/VALUE      allowed, with the audit annotation KEY: VALUE
    /slow/SECONDS         allowed after SECONDS (a float)
    /hold                 allowed once the test sets gate (an Event)
    /error                HTTP 500, text/plain "boom"
    /wrong-uid            allowed, with another uid
    /bad-patch            a JSONPatch making data a number
    /v1beta1              allowed, as an admission.k8s.io/v1beta1 review

and, for CRD conversion webhooks (ConversionReview v1 or v1beta1, answered
in the version received; see convert()):

    /convert              converts between v1 (spec.count) and v2
                          (spec.amount), labelling each object
                          converted-to=VERSION
    /convert-fail         result Failure "the test refuses to convert"
    /convert-short        converts, one object missing from the answer
"""

import base64
import http.server
import json
import os
import shutil
import socket
import ssl
import subprocess
import tempfile
import threading
import time


def convert(obj, to):
    """The test's conversion: v1 spec.count is v2 spec.amount."""
    obj = json.loads(json.dumps(obj))
    spec = obj.setdefault("spec", {})
    if to.endswith("/v2") and "count" in spec:
        spec["amount"] = spec.pop("count")
    elif to.endswith("/v1") and "amount" in spec:
        spec["count"] = spec.pop("amount")
    obj["apiVersion"] = to
    meta = obj.setdefault("metadata", {})
    meta.setdefault("labels", {})["converted-to"] = to.split("/")[-1]
    return obj


def _conversion(path, review):
    request = review.get("request") or {}
    to = request.get("desiredAPIVersion", "")
    response = {"uid": request.get("uid", "")}
    if path == "/convert-fail":
        response["result"] = {"status": "Failure",
                              "message": "the test refuses to convert"}
    else:
        objs = [convert(o, to) for o in request.get("objects") or []]
        if path == "/convert-short":
            objs = objs[1:]
        response["result"] = {"status": "Success"}
        response["convertedObjects"] = objs
    return {"apiVersion": review.get("apiVersion"),
            "kind": "ConversionReview", "response": response}


def _openssl(*args, cwd):
    subprocess.run(["openssl"] + list(args), cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def make_pki(directory, names, ca="ca"):
    """Makes CA `ca` (unless it exists) and a serving certificate
    server.crt/server.key for names (DNS names; 127.0.0.1 is added as an
    IP address) signed by it."""
    if not os.path.exists(os.path.join(directory, ca + ".crt")):
        _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt",
                 "ec_paramgen_curve:P-256", "-nodes", "-keyout", ca + ".key",
                 "-out", ca + ".crt", "-subj", "/CN=test-webhook-" + ca,
                 "-days", "30", "-addext",
                 "basicConstraints=critical,CA:TRUE", "-addext",
                 "keyUsage=critical,keyCertSign,cRLSign", cwd=directory)
    san = ",".join(["IP:127.0.0.1"] + ["DNS:" + n for n in names])
    with open(os.path.join(directory, "ext"), "w") as f:
        f.write("subjectAltName=%s\nextendedKeyUsage=serverAuth\n" % san)
    _openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
             "-nodes", "-keyout", "server.key", "-out", "server.csr",
             "-subj", "/CN=test-webhook", cwd=directory)
    _openssl("x509", "-req", "-in", "server.csr", "-CA", ca + ".crt",
             "-CAkey", ca + ".key", "-CAcreateserial", "-out", "server.crt",
             "-days", "30", "-extfile", "ext", cwd=directory)


def _patch(ops):
    return base64.b64encode(json.dumps(ops).encode()).decode()


def _escape(key):
    return key.replace("~", "~0").replace("/", "~1")


def _set_map_entry(obj, field, key, value):
    """A JSONPatch setting metadata.field[key] = value."""
    if (obj or {}).get("metadata", {}).get(field) is None:
        return [{"op": "add", "path": "/metadata/" + field,
                 "value": {key: value}}]
    return [{"op": "add", "path": "/metadata/%s/%s" % (field, _escape(key)),
             "value": value}]


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def setup(self):
        super().setup()
        with self.server.owner.lock:
            self.server.owner.connections += 1

    def _send(self, code, body, ctype="application/json"):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        owner = self.server.owner
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        path = self.path.split("?")[0]
        try:
            review = json.loads(body)
        except ValueError:
            review = None
        with owner.lock:
            owner.received.append({"path": path, "query": self.path,
                                   "headers": dict(self.headers.items()),
                                   "review": review})
        if path.startswith("/convert"):
            self._send(200, _conversion(path, review or {}))
            return

        request = (review or {}).get("request") or {}
        response = {"uid": request.get("uid", ""), "allowed": True}
        obj = request.get("object") or {}
        labels = (obj.get("metadata") or {}).get("labels") or {}
        version = "v1"

        if path == "/deny" or (path == "/labels" and "deny" in labels):
            response["allowed"] = False
            response["status"] = {
                "code": 403, "reason": "Forbidden",
                "message": "denied by the test" if path == "/deny"
                else "label deny is set (refcapture webhook)"}
        elif path == "/labels" and "deny-422" in labels:
            response["allowed"] = False
            response["status"] = {
                "code": 422, "reason": "Invalid",
                "message": "refused with 422 by the webhook",
                "details": {"causes": [{
                    "reason": "FieldValueInvalid",
                    "message": "deny-422 present",
                    "field": "metadata.labels"}]}}
        elif path == "/labels" and "mutate" in labels:
            response["patchType"] = "JSONPatch"
            response["patch"] = _patch([{
                "op": "add", "path": "/metadata/annotations",
                "value": {"mutated-by": "refcapture-webhook"}}])
        elif path == "/labels" and "warn" in labels:
            response["warnings"] = [
                "refcapture webhook warning: label warn is set"]
        elif path.startswith("/label/") or path.startswith("/annotate/"):
            what, key, value = path[1:].split("/", 2)
            field = "labels" if what == "label" else "annotations"
            if ((obj.get("metadata") or {}).get(field) or {}).get(key) \
                    != value:
                response["patchType"] = "JSONPatch"
                response["patch"] = _patch(
                    _set_map_entry(obj, field, key, value))
        elif path.startswith("/audit/"):
            _, key, value = path[1:].split("/", 2)
            response["auditAnnotations"] = {key: value}
        elif path.startswith("/slow/"):
            time.sleep(float(path.split("/")[2]))
        elif path == "/hold":
            owner.gate.wait(60)
        elif path == "/error":
            self._send(500, b"boom\n", "text/plain")
            return
        elif path == "/wrong-uid":
            response["uid"] = "not-the-uid"
        elif path == "/bad-patch":
            response["patchType"] = "JSONPatch"
            response["patch"] = _patch([{"op": "add", "path": "/data",
                                         "value": 7}])
        elif path == "/v1beta1":
            version = "v1beta1"

        self._send(200, {"apiVersion": "admission.k8s.io/" + version,
                         "kind": "AdmissionReview", "response": response})


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        # a client that went away (the server under test timed out, or
        # was stopped): nothing to report
        pass


class WebhookServer:
    def __init__(self, names=(), directory=None, ca="ca"):
        self._own = directory is None
        self.dir = directory or tempfile.mkdtemp(prefix="gcp-webhook-")
        make_pki(self.dir, names, ca)
        self.lock = threading.Lock()
        self.received = []
        self.connections = 0
        self.gate = threading.Event()
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(os.path.join(self.dir, "server.crt"),
                            os.path.join(self.dir, "server.key"))
        self._httpd.socket = ctx.wrap_socket(self._httpd.socket,
                                             server_side=True)
        self.port = self._httpd.server_address[1]
        self._thread = None

    @property
    def ca_bundle(self):
        with open(os.path.join(self.dir, "ca.crt"), "rb") as f:
            return base64.b64encode(f.read()).decode()

    def url(self, path):
        return "https://127.0.0.1:%d%s" % (self.port, path)

    def reviews(self, path=None):
        """The AdmissionReviews received (at path), oldest first."""
        with self.lock:
            return [r["review"] for r in self.received
                    if path is None or r["path"] == path]

    def requests(self, path=None):
        with self.lock:
            return [r for r in self.received
                    if path is None or r["path"] == path]

    def clear(self):
        with self.lock:
            self.received = []

    def start(self):
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._own:
            shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def closed_port():
    """A loopback port nothing listens on (connections are refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
