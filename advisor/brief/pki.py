"""A development certificate authority and signing certificate for briefs.

Production deployments configure the organisation's own PKCS#12 (see settings
``BRIEF_SIGNING``); this module only exists so that a fresh checkout can issue and verify
signed briefs, and so that tests and benches can stand in for an organisation's own PKI
(``create_pki(..., development=False)``). A development CA is named "<organisation>
Development CA": production refuses any signer it issued (``is_development_ca``; the deploy
check and the signer itself, docs/decisions/0008-brief-signing.md). RSA keys keep the signed PDF on PDF 1.7 (an EC key would push pyHanko to
PDF 2.0 and break PDF/A-3b). The signer certificate carries the non-repudiation
(content commitment) key usage, which pyHanko requires of document signers by default.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID

from advisor.brief.signing import DEVELOPMENT_CA_SUFFIX

RSA_BITS = 3072  # NIST SP 800-57 Part 1: 3072-bit RSA ~ 128-bit security, valid beyond 2030
CA_YEARS = 10
SIGNER_YEARS = 3


@dataclass(frozen=True)
class DevPki:
    ca_cert_path: Path
    signer_pkcs12_path: Path
    passphrase_path: Path


def _name(common_name: str, organisation: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.COUNTRY_NAME, "CN"),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, organisation),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )


def _key_usage(*, ca: bool) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=not ca,
        content_commitment=not ca,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=ca,
        crl_sign=ca,
        encipher_only=False,
        decipher_only=False,
    )


def _certificate(subject, issuer, public_key, signing_key, *, ca: bool, years: int, now):
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=365 * years))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=0 if ca else None), critical=True)
        .add_extension(_key_usage(ca=ca), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key), critical=False)
    )
    return builder.sign(signing_key, hashes.SHA256())


def create_dev_pki(directory: Path, passphrase: str, organisation: str, signer_name: str) -> DevPki:
    """Write a development CA certificate (PEM), a signer PKCS#12 and its passphrase into
    ``directory`` (``dev-ca.pem``, ``dev-signer.p12``, ``dev-signer.passphrase``)."""
    return create_pki(directory, passphrase, organisation, signer_name, development=True)


def create_pki(
    directory: Path, passphrase: str, organisation: str, signer_name: str, *, development: bool
) -> DevPki:
    """A CA and a signer; ``development=False`` names the CA "<organisation> CA" and the files
    ``ca.pem``, ``signer.p12``, ``signer.passphrase`` (tests' and benches' stand-in for an
    organisation's own PKI)."""
    directory.mkdir(parents=True, exist_ok=True)
    now = dt.datetime.now(dt.UTC)
    ca_key = rsa.generate_private_key(public_exponent=65537, key_size=RSA_BITS)
    ca_common_name = (
        f"{organisation} {DEVELOPMENT_CA_SUFFIX}" if development else f"{organisation} CA"
    )
    ca_name = _name(ca_common_name, organisation)
    ca_cert = _certificate(
        ca_name, ca_name, ca_key.public_key(), ca_key, ca=True, years=CA_YEARS, now=now
    )
    signer_key = rsa.generate_private_key(public_exponent=65537, key_size=RSA_BITS)
    signer_cert = _certificate(
        _name(signer_name, organisation),
        ca_name,
        signer_key.public_key(),
        ca_key,
        ca=False,
        years=SIGNER_YEARS,
        now=now,
    )
    prefix = "dev-" if development else ""
    pki = DevPki(
        ca_cert_path=directory / f"{prefix}ca.pem",
        signer_pkcs12_path=directory / f"{prefix}signer.p12",
        passphrase_path=directory / f"{prefix}signer.passphrase",
    )
    pki.ca_cert_path.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    bundle = pkcs12.serialize_key_and_certificates(
        name=signer_name.encode(),
        key=signer_key,
        cert=signer_cert,
        cas=[ca_cert],
        encryption_algorithm=serialization.BestAvailableEncryption(passphrase.encode()),
    )
    pki.signer_pkcs12_path.write_bytes(bundle)
    pki.signer_pkcs12_path.chmod(0o600)
    pki.passphrase_path.write_text(passphrase)
    pki.passphrase_path.chmod(0o600)
    return pki
