"""A local certificate authority, its CRL and an RFC 3161 timestamp authority on 127.0.0.1,
for long-term (PAdES B-LT) signatures in tests: nothing leaves the machine.

The CA issues the system's signer, an approver and the timestamp authority; each certificate
names a CRL address that cannot be reached (``.invalid``), so the revocation information can
only come from the CRL file the test hands to the signing configuration.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from asn1crypto import keys, tsp
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

CRL_URL = "http://crl.invalid/long-term-test-ca.crl"


@dataclass(frozen=True)
class LongTermPki:
    ca_path: Path
    crl_path: Path
    signer_path: Path
    approver_path: Path
    passphrase: str
    tsa_cert: object  # asn1crypto
    tsa_key: object  # asn1crypto PrivateKeyInfo


def _name(common_name: str, *place: tuple) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.COUNTRY_NAME, "CN"),
            *(x509.NameAttribute(oid, value) for oid, value in place),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Long Term Test Org"),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )


# The approver's certificate says where its holder is (the approval signature's location).
APPROVER_PLACE = (
    (NameOID.STATE_OR_PROVINCE_NAME, "Guizhou"),
    (NameOID.LOCALITY_NAME, "Guiyang"),
)


def _issue(subject, key, ca_name, ca_key, now, *, ca=False, timestamping=False):
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=365))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=not ca,
                content_commitment=not ca and not timestamping,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=ca,
                crl_sign=ca,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), False)
    )
    if not ca:
        builder = builder.add_extension(
            x509.CRLDistributionPoints(
                [
                    x509.DistributionPoint(
                        [x509.UniformResourceIdentifier(CRL_URL)], None, None, None
                    )
                ]
            ),
            critical=False,
        ).add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False
        )
    if timestamping:
        builder = builder.add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.TIME_STAMPING]), critical=True
        )
    return builder.sign(ca_key, hashes.SHA256())


def _key():
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def create_long_term_pki(directory: Path, passphrase: str = "long term") -> LongTermPki:
    now = dt.datetime.now(dt.UTC)
    ca_key = _key()
    ca_name = _name("Long Term Test CA")
    ca_cert = _issue(ca_name, ca_key, ca_name, ca_key, now, ca=True)
    paths = {}
    for role, common_name, place in (
        ("signer", "Long Term System Signer", ()),
        ("approver", "Li Approver", APPROVER_PLACE),
    ):
        key = _key()
        cert = _issue(_name(common_name, *place), key, ca_name, ca_key, now)
        paths[role] = directory / f"{role}.p12"
        paths[role].write_bytes(
            pkcs12.serialize_key_and_certificates(
                common_name.encode(),
                key,
                cert,
                [ca_cert],
                serialization.BestAvailableEncryption(passphrase.encode()),
            )
        )
    tsa_key = _key()
    tsa_cert = _issue(_name("Long Term Test TSA"), tsa_key, ca_name, ca_key, now, timestamping=True)
    crl = (
        x509.CertificateRevocationListBuilder()
        .issuer_name(ca_name)
        .last_update(now - dt.timedelta(minutes=5))
        .next_update(now + dt.timedelta(days=7))
        .add_extension(x509.CRLNumber(1), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False
        )
        .sign(ca_key, hashes.SHA256())
    )
    ca_path, crl_path = directory / "ca.pem", directory / "ca.crl"
    ca_path.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    crl_path.write_bytes(crl.public_bytes(serialization.Encoding.PEM))
    return LongTermPki(
        ca_path=ca_path,
        crl_path=crl_path,
        signer_path=paths["signer"],
        approver_path=paths["approver"],
        passphrase=passphrase,
        tsa_cert=asn1_x509.Certificate.load(tsa_cert.public_bytes(serialization.Encoding.DER)),
        tsa_key=keys.PrivateKeyInfo.load(
            tsa_key.private_bytes(
                serialization.Encoding.DER,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        ),
    )


class LocalTimestampAuthority:
    """An RFC 3161 timestamp authority served over HTTP on 127.0.0.1 (pyHanko's
    DummyTimeStamper answers each request), started and stopped with the test."""

    def __init__(self, pki: LongTermPki):
        from pyhanko.sign.timestamps.dummy_client import DummyTimeStamper

        stamper = DummyTimeStamper(pki.tsa_cert, pki.tsa_key)
        self.requests = 0

        authority = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers["Content-Length"]))
                request = tsp.TimeStampReq.load(body)
                answer = asyncio.run(stamper.async_request_tsa_response(request)).dump()
                authority.requests += 1
                self.send_response(200)
                self.send_header("Content-Type", "application/timestamp-reply")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/tsa"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)
