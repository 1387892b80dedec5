"""An OpenID Connect issuer served by a test on loopback: HTTPS with its
own CA (a certificate for 127.0.0.1), the discovery document at
/.well-known/openid-configuration and the JSON Web Key Set at /keys; it
signs tokens with its keys (RS256/384/512, PS256/384/512, ES256/384/512)
and rotates them on demand.  It counts the documents it served, so a test
can tell a cached key set from a fetched one."""

import base64
import datetime
import http.server
import json
import ssl
import tempfile
import os
import threading
import time
import uuid

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature)
from cryptography.x509.oid import NameOID
import ipaddress

from gcp_server import free_port

HASHES = {"256": hashes.SHA256, "384": hashes.SHA384, "512": hashes.SHA512}
CURVES = {"ES256": (ec.SECP256R1, "P-256", 32),
          "ES384": (ec.SECP384R1, "P-384", 48),
          "ES512": (ec.SECP521R1, "P-521", 66)}


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _int_b64(n, size=None):
    size = size or (n.bit_length() + 7) // 8
    return b64(n.to_bytes(size, "big"))


class Key:
    """A signing key for algorithm alg, with its JWK."""

    def __init__(self, alg, kid=None):
        self.alg = alg
        self.kid = kid or uuid.uuid4().hex
        if alg.startswith("ES"):
            curve, crv, size = CURVES[alg]
            self.priv = ec.generate_private_key(curve())
            nums = self.priv.public_key().public_numbers()
            self.jwk = {"kty": "EC", "crv": crv, "kid": self.kid,
                        "use": "sig", "alg": alg,
                        "x": _int_b64(nums.x, size),
                        "y": _int_b64(nums.y, size)}
            self.size = size
        else:
            self.priv = rsa.generate_private_key(public_exponent=65537,
                                                 key_size=2048)
            nums = self.priv.public_key().public_numbers()
            self.jwk = {"kty": "RSA", "kid": self.kid, "use": "sig",
                        "alg": alg, "n": _int_b64(nums.n),
                        "e": _int_b64(nums.e)}

    def sign(self, data):
        h = HASHES[self.alg[2:]]()
        if self.alg.startswith("ES"):
            r, s = decode_dss_signature(self.priv.sign(data, ec.ECDSA(h)))
            return r.to_bytes(self.size, "big") + s.to_bytes(self.size,
                                                            "big")
        if self.alg.startswith("PS"):
            return self.priv.sign(data, padding.PSS(
                mgf=padding.MGF1(h), salt_length=h.digest_size), h)
        return self.priv.sign(data, padding.PKCS1v15(), h)


class Issuer:
    """The issuer at https://127.0.0.1:PORT (start() before use)."""

    def __init__(self, algs=("RS256",)):
        self.port = free_port()
        self.url = "https://127.0.0.1:%d" % self.port
        self.keys = [Key(a) for a in algs]
        self.served = {"discovery": 0, "jwks": 0}
        self.lock = threading.Lock()
        self.dir = tempfile.mkdtemp(prefix="gcp-oidc-")
        self._make_pki()
        self.httpd = None

    def _make_pki(self):
        now = datetime.datetime.now(datetime.timezone.utc)
        ca_key = ec.generate_private_key(ec.SECP256R1())
        ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME,
                                                "test-oidc-ca")])
        ca = (x509.CertificateBuilder().subject_name(ca_name)
              .issuer_name(ca_name).public_key(ca_key.public_key())
              .serial_number(x509.random_serial_number())
              .not_valid_before(now - datetime.timedelta(hours=1))
              .not_valid_after(now + datetime.timedelta(days=1))
              .add_extension(x509.BasicConstraints(ca=True, path_length=None),
                             critical=True)
              .add_extension(x509.KeyUsage(
                  digital_signature=True, content_commitment=False,
                  key_encipherment=False, data_encipherment=False,
                  key_agreement=False, key_cert_sign=True, crl_sign=True,
                  encipher_only=False, decipher_only=False), critical=True)
              .sign(ca_key, hashes.SHA256()))
        key = ec.generate_private_key(ec.SECP256R1())
        cert = (x509.CertificateBuilder()
                .subject_name(x509.Name([x509.NameAttribute(
                    NameOID.COMMON_NAME, "127.0.0.1")]))
                .issuer_name(ca_name).public_key(key.public_key())
                .serial_number(x509.random_serial_number())
                .not_valid_before(now - datetime.timedelta(hours=1))
                .not_valid_after(now + datetime.timedelta(days=1))
                .add_extension(x509.SubjectAlternativeName(
                    [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                    critical=False)
                .sign(ca_key, hashes.SHA256()))
        self.ca_pem = ca.public_bytes(serialization.Encoding.PEM).decode()
        self.cert_file = os.path.join(self.dir, "server.crt")
        self.key_file = os.path.join(self.dir, "server.key")
        with open(self.cert_file, "wb") as f:
            f.write(cert.public_bytes(serialization.Encoding.PEM))
        with open(self.key_file, "wb") as f:
            f.write(key.private_bytes(serialization.Encoding.PEM,
                                      serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))

    # -------------------------------------------------------- serving

    def start(self):
        issuer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                if self.path == "/.well-known/openid-configuration":
                    what = "discovery"
                    doc = {"issuer": issuer.url,
                           "jwks_uri": issuer.url + "/keys",
                           "id_token_signing_alg_values_supported":
                               ["RS256"]}
                elif self.path == "/keys":
                    what = "jwks"
                    with issuer.lock:
                        doc = {"keys": [k.jwk for k in issuer.keys]}
                else:
                    self.send_error(404)
                    return
                body = json.dumps(doc).encode()
                with issuer.lock:
                    issuer.served[what] += 1
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1",
                                                      self.port), Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(self.cert_file, self.key_file)
        self.httpd.socket = ctx.wrap_socket(self.httpd.socket,
                                            server_side=True)
        threading.Thread(target=self.httpd.serve_forever,
                         daemon=True).start()
        return self

    def stop(self):
        if self.httpd:
            self.httpd.shutdown()
            self.httpd.server_close()

    def count(self, what):
        with self.lock:
            return self.served[what]

    # -------------------------------------------------------- tokens

    def rotate(self, alg="RS256"):
        """Replaces every key by a new one; returns it."""
        k = Key(alg)
        with self.lock:
            self.keys = [k]
        return k

    def add_key(self, alg):
        k = Key(alg)
        with self.lock:
            self.keys.append(k)
        return k

    def token(self, claims=None, key=None, lifetime=600, **extra):
        """A token of this issuer signed with key (default: the first),
        with iss, iat, exp (lifetime seconds from now) and claims."""
        key = key or self.keys[0]
        now = int(time.time())
        body = {"iss": self.url, "iat": now, "exp": now + lifetime}
        body.update(claims or {})
        body.update(extra)
        head = {"alg": key.alg, "kid": key.kid, "typ": "JWT"}
        signed = (b64(json.dumps(head).encode()) + "."
                  + b64(json.dumps(body).encode()))
        return signed + "." + b64(key.sign(signed.encode()))
