"""A local RFC 3161 timestamp authority for tests (PAdES B-T without the network).

It answers POSTed TimeStampReq bodies with pyHanko's DummyTimeStamper, signed by a
throw-away TSA certificate (extended key usage: timeStamping, critical) under its own CA.
"""

from __future__ import annotations

import datetime as dt
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from asn1crypto import keys as asn1_keys
from asn1crypto import tsp
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from pyhanko.sign.timestamps.dummy_client import DummyTimeStamper


@dataclass
class LocalTsa:
    url: str
    ca_cert_path: Path


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _make_tsa(directory: Path):
    now = dt.datetime.now(dt.UTC)
    ca_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ca_cert = (
        x509.CertificateBuilder()
        .subject_name(_name("Test TSA Root"))
        .issuer_name(_name("Test TSA Root"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1))
        .not_valid_after(now + dt.timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    tsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    tsa_cert = (
        x509.CertificateBuilder()
        .subject_name(_name("Test TSA"))
        .issuer_name(ca_cert.subject)
        .public_key(tsa_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1))
        .not_valid_after(now + dt.timedelta(days=30))
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.TIME_STAMPING]), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    ca_path = directory / "tsa-ca.pem"
    ca_path.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    der = serialization.Encoding.DER
    stamper = DummyTimeStamper(
        tsa_cert=asn1_x509.Certificate.load(tsa_cert.public_bytes(der)),
        tsa_key=asn1_keys.PrivateKeyInfo.load(
            tsa_key.private_bytes(
                der, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        ),
        certs_to_embed=[asn1_x509.Certificate.load(ca_cert.public_bytes(der))],
    )
    return stamper, ca_path


@contextmanager
def local_tsa(directory: Path):
    stamper, ca_path = _make_tsa(directory)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server's naming
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            response = stamper.request_tsa_response(tsp.TimeStampReq.load(body)).dump()
            self.send_response(200)
            self.send_header("Content-Type", "application/timestamp-reply")
            self.send_header("Content-Length", str(len(response)))
            self.end_headers()
            self.wfile.write(response)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield LocalTsa(url=f"http://127.0.0.1:{server.server_port}/", ca_cert_path=ca_path)
    finally:
        server.shutdown()
        server.server_close()
