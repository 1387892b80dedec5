"""A small extension API server for the aggregation tests.

    pki = ExtPki(tmpdir)                      # CA, serving certificate
    ext = ExtServer(pki, group="things.example.com").start()
    ...
    ext.requests      # what it received (method, path, headers, cert CN)
    ext.stop(); ext.start()                    # down, then up again

It speaks HTTPS on loopback with a certificate for NAME.NAMESPACE.svc,
asks for a client certificate (recording its CN, as servers built on
k8s.io/apiserver authenticate the aggregator's proxy), and serves one
group-version: its discovery document (APIResourceList), namespaced
"widgets" kept in memory (get, list, create, delete, watch as a chunked
stream of JSON events), a "bigs" list of a size the query asks for, and
OpenAPI v2 and v3 documents.  It can be made slow (delay before
answering), failing (a status for every request) or stopped and started
again on the same port, as the tests need.
"""

import json
import os
import socket
import ssl
import subprocess
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from gcp_server import free_port  # noqa: F401 (tests import it from here)


def _openssl(*args):
    subprocess.run(("openssl",) + args, check=True, capture_output=True)


class ExtPki:
    """A CA and certificates made with openssl in directory d."""

    def __init__(self, d):
        self.dir = d
        os.makedirs(d, exist_ok=True)
        self.ca = os.path.join(d, "ext-ca.crt")
        self.ca_key = os.path.join(d, "ext-ca.key")
        if not os.path.exists(self.ca):
            _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt",
                     "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                     self.ca_key, "-out", self.ca, "-subj", "/CN=ext-ca",
                     "-days", "30")

    def server_cert(self, name, *sans):
        """(cert, key) for name, with DNS SANs name and sans."""
        crt = os.path.join(self.dir, name + ".crt")
        key = os.path.join(self.dir, name + ".key")
        if os.path.exists(crt):
            return crt, key
        csr = os.path.join(self.dir, name + ".csr")
        ext = os.path.join(self.dir, name + ".ext")
        with open(ext, "w") as f:
            f.write("subjectAltName=%s\n" % ",".join(
                ["DNS:" + n for n in (name,) + sans] + ["IP:127.0.0.1"]))
        _openssl("req", "-new", "-newkey", "ec", "-pkeyopt",
                 "ec_paramgen_curve:P-256", "-nodes", "-keyout", key,
                 "-out", csr, "-subj", "/CN=" + name)
        _openssl("x509", "-req", "-in", csr, "-CA", self.ca, "-CAkey",
                 self.ca_key, "-CAcreateserial", "-out", crt, "-days", "30",
                 "-extfile", ext)
        return crt, key

    def ca_pem(self):
        with open(self.ca, "rb") as f:
            return f.read()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    # ------------------------------------------------------------ helpers

    @property
    def ext(self):
        return self.server.ext

    def _record(self, body):
        cert = self.connection.getpeercert()
        cn = None
        if cert:
            for rdn in cert.get("subject", ()):
                for k, v in rdn:
                    if k == "commonName":
                        cn = v
        rec = {"method": self.command, "path": self.path,
               "headers": [(k.lower(), v) for k, v in self.headers.items()],
               "cert_cn": cn, "body": body, "port": self.ext.port}
        with self.ext.lock:
            self.ext.requests.append(rec)
        return rec

    def _send(self, code, obj=None, raw=None, ctype="application/json"):
        data = raw if raw is not None else json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _status(self, code, reason, message):
        self._send(code, {"kind": "Status", "apiVersion": "v1",
                          "metadata": {}, "status": "Failure",
                          "message": message, "reason": reason,
                          "code": code})

    def _chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    # ------------------------------------------------------------ verbs

    def _handle(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        self._record(body.decode(errors="replace"))
        ext = self.ext
        if ext.delay:
            time.sleep(ext.delay)
        if ext.fail:
            return self._status(ext.fail, "InternalError", "failing")
        url = urllib.parse.urlparse(self.path)
        q = urllib.parse.parse_qs(url.query)
        if self.headers.get("Upgrade") and url.path.endswith("/exec"):
            return self._tunnel()
        parts = [p for p in url.path.split("/") if p]
        gv = ["apis", ext.group, ext.version]
        if url.path == "/openapi/v2":
            return self._send(200, ext.openapi_v2())
        if url.path == "/openapi/v3/apis/%s/%s" % (ext.group, ext.version):
            return self._send(200, ext.openapi_v3())
        if parts == gv:
            return self._send(200, ext.discovery())
        if parts[:3] != gv:
            return self._send(404, raw=b"404 page not found\n",
                              ctype="text/plain; charset=utf-8")
        rest = parts[3:]
        if rest == ["bigs"]:
            return self._big(int(q.get("size", ["1000"])[0]))
        if len(rest) >= 3 and rest[0] == "namespaces" and rest[2] == "widgets":
            ns, name = rest[1], rest[3] if len(rest) > 3 else None
            return self._widgets(ns, name, q, body)
        if rest == ["widgets"]:
            return self._widgets(None, None, q, body)
        return self._status(404, "NotFound", "the server could not find "
                            "the requested resource")

    def _widgets(self, ns, name, q, body):
        ext = self.ext
        key = "%s/%s" % (ns, name)
        if self.command == "GET" and q.get("watch", ["0"])[0] in ("1",
                                                                   "true"):
            return self._watch(ns)
        if self.command == "GET" and name:
            with ext.lock:
                obj = ext.widgets.get(key)
            if obj is None:
                return self._status(404, "NotFound",
                                    'widgets.%s "%s" not found'
                                    % (ext.group, name))
            return self._send(200, obj)
        if self.command == "GET":
            with ext.lock:
                items = [v for k, v in sorted(ext.widgets.items())
                         if ns is None or k.startswith(ns + "/")]
            return self._send(200, {"kind": "WidgetList",
                                    "apiVersion": ext.api_version,
                                    "metadata": {"resourceVersion":
                                                 str(ext.rv)},
                                    "items": items})
        if self.command == "POST":
            obj = json.loads(body)
            obj.setdefault("metadata", {})["namespace"] = ns
            key = "%s/%s" % (ns, obj["metadata"]["name"])
            with ext.lock:
                if key in ext.widgets:
                    return self._status(409, "AlreadyExists", "exists")
                ext.rv += 1
                obj["metadata"]["resourceVersion"] = str(ext.rv)
                ext.widgets[key] = obj
                ext.events.append(("ADDED", obj))
                ext.cond.notify_all()
            return self._send(201, obj)
        if self.command == "DELETE" and name:
            with ext.lock:
                obj = ext.widgets.pop(key, None)
                if obj is not None:
                    ext.rv += 1
                    ext.events.append(("DELETED", obj))
                    ext.cond.notify_all()
            if obj is None:
                return self._status(404, "NotFound", "not found")
            return self._send(200, obj)
        return self._status(405, "MethodNotAllowed", "not allowed")

    def _watch(self, ns):
        ext = self.ext
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        with ext.lock:
            seen = len(ext.events)
        try:
            while not ext.stopping:
                with ext.lock:
                    while len(ext.events) == seen and not ext.stopping:
                        ext.cond.wait(0.5)
                    new = ext.events[seen:]
                    seen = len(ext.events)
                for typ, obj in new:
                    if ns and obj["metadata"].get("namespace") != ns:
                        continue
                    self._chunk(json.dumps({"type": typ, "object": obj})
                                .encode() + b"\n")
        except OSError:
            return
        self.close_connection = True

    def _tunnel(self):
        """An upgrade: 101, then every byte received is sent back."""
        self.send_response(101)
        self.send_header("Connection", "Upgrade")
        self.send_header("Upgrade", self.headers.get("Upgrade"))
        self.end_headers()
        self.wfile.flush()
        try:
            while True:
                data = self.connection.recv(4096)
                if not data:
                    break
                self.connection.sendall(data)
        except OSError:
            pass
        self.close_connection = True

    def _big(self, size):
        """A list whose body is size bytes or so, written in chunks."""
        ext = self.ext
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        item = json.dumps({"metadata": {"name": "x" * 40},
                           "data": "y" * 900}).encode()
        self._chunk(b'{"kind":"BigList","apiVersion":"%s","items":['
                    % ext.api_version.encode())
        sent, first, buf = 0, True, []
        while sent < size:
            buf.append((b"" if first else b",") + item)
            first = False
            sent += len(item) + 1
            if len(buf) >= 64:
                self._chunk(b"".join(buf))
                buf = []
        self._chunk(b"".join(buf) + b"]}")
        self._chunk(b"")

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _handle


class _Server(ThreadingHTTPServer):
    """Keeps its connections, so that stopping ends them too."""

    daemon_threads = True

    def __init__(self, *args):
        super().__init__(*args)
        self.conns = set()
        self.conns_lock = threading.Lock()

    def process_request(self, request, client_address):
        with self.conns_lock:
            self.conns.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request):
        with self.conns_lock:
            self.conns.discard(request)
        super().shutdown_request(request)

    def close_all(self):
        with self.conns_lock:
            conns = list(self.conns)
        for c in conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class ExtServer:
    def __init__(self, pki, group="things.example.com", version="v1",
                 name="ext", namespace="ext", port=None):
        self.pki = pki
        self.group = group
        self.version = version
        self.api_version = "%s/%s" % (group, version)
        self.svc_name = name
        self.svc_namespace = namespace
        self.host = "%s.%s.svc" % (name, namespace)
        self.cert, self.key = pki.server_cert(self.host)
        self.port = port or free_port()
        self.requests = []
        self.widgets = {}
        self.events = []
        self.rv = 1
        self.delay = 0
        self.fail = 0
        self.stopping = False
        self.client_ca = None
        self.lock = threading.Lock()
        self.cond = threading.Condition(self.lock)
        self._httpd = None

    @property
    def endpoint(self):
        return "127.0.0.1:%d" % self.port

    def start(self):
        self.stopping = False
        httpd = _Server(("127.0.0.1", self.port), _Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(self.cert, self.key)
        if self.client_ca:
            ctx.verify_mode = ssl.CERT_OPTIONAL
            ctx.load_verify_locations(self.client_ca)
        httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
        httpd.ext = self
        self._httpd = httpd
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        return self

    def stop(self):
        """Stops serving and closes the listening socket and the open
        streams (watches end)."""
        if self._httpd is None:
            return
        with self.lock:
            self.stopping = True
            self.cond.notify_all()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._httpd.close_all()
        self._httpd = None

    def seen(self, pred=None):
        with self.lock:
            return [r for r in self.requests if pred is None or pred(r)]

    # ------------------------------------------------------------ documents

    def discovery(self):
        return {"kind": "APIResourceList", "apiVersion": "v1",
                "groupVersion": self.api_version,
                "resources": [
                    {"name": "widgets", "singularName": "widget",
                     "namespaced": True, "kind": "Widget",
                     "verbs": ["create", "delete", "get", "list", "watch"],
                     "shortNames": ["wd"], "categories": ["all"]},
                    {"name": "widgets/status", "singularName": "",
                     "namespaced": True, "kind": "Widget",
                     "verbs": ["get", "patch", "update"]},
                    {"name": "bigs", "singularName": "big",
                     "namespaced": False, "kind": "Big",
                     "verbs": ["list"]}]}

    def _widget_schema(self):
        return {"type": "object",
                "description": "A widget of the test extension server.",
                "properties": {
                    "apiVersion": {"type": "string"},
                    "kind": {"type": "string"},
                    "metadata": {"type": "object"},
                    "spec": {"type": "object", "properties": {
                        "size": {"type": "string",
                                 "description": "How big the widget is."}}}},
                "x-kubernetes-group-version-kind": [
                    {"group": self.group, "version": self.version,
                     "kind": "Widget"}]}

    def _def_name(self):
        return "com.example.things.%s.Widget" % self.version

    def openapi_v2(self):
        name = self._def_name()
        return {"swagger": "2.0",
                "info": {"title": "ext", "version": "v0"},
                "paths": {
                    "/apis/%s/%s/namespaces/{namespace}/widgets"
                    % (self.group, self.version): {
                        "get": {"operationId": "listWidgets",
                                "responses": {"200": {
                                    "description": "OK"}}}}},
                "definitions": {name: self._widget_schema()}}

    def openapi_v3(self):
        """With a PATCH that takes fieldValidation: kubectl then leaves
        validation to the server (its QueryParamVerifierV3)."""
        name = self._def_name()
        gvk = {"group": self.group, "version": self.version,
               "kind": "Widget"}
        base = "/apis/%s/%s/namespaces/{namespace}/widgets" % (
            self.group, self.version)
        return {"openapi": "3.0.0",
                "info": {"title": "ext", "version": "v0"},
                "paths": {
                    base: {"get": {"operationId": "listWidgets",
                                   "responses": {"200": {
                                       "description": "OK"}}}},
                    base + "/{name}": {"patch": {
                        "operationId": "patchWidget",
                        "parameters": [{"name": "fieldValidation",
                                        "in": "query",
                                        "schema": {"type": "string"}}],
                        "responses": {"200": {"description": "OK"}},
                        "x-kubernetes-group-version-kind": gvk}}},
                "components": {"schemas": {name: self._widget_schema()}}}


def main():
    """Runs one server in this process until killed (for tests that kill
    a replica): ext_server.py DIR PORT GROUP VERSION CLIENT_CA NAME
    (its service NAME.ext.svc)."""
    import sys
    d, port, group, version, client_ca, name = sys.argv[1:7]
    ext = ExtServer(ExtPki(d), group=group, version=version,
                    port=int(port), name=name)
    ext.client_ca = client_ca
    ext.start()
    print("ready", flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
