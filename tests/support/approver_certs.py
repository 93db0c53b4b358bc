"""Approvers' certificates for tests: a CA of the organisation, and PKCS#12 files issued by it
(or self-signed, or by another CA), in any name, for any term, with any key usage and any
number of key-derivation rounds declared."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from asn1crypto import core
from asn1crypto import pkcs12 as asn1_pkcs12
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID


@dataclass(frozen=True)
class Authority:
    key: rsa.RSAPrivateKey
    certificate: x509.Certificate

    @property
    def pem(self) -> bytes:
        return self.certificate.public_bytes(serialization.Encoding.PEM)


def _key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _usage(*, ca: bool, signs: bool = True) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=signs and not ca,
        content_commitment=signs and not ca,
        key_encipherment=not signs,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=ca,
        crl_sign=ca,
        encipher_only=False,
        decipher_only=False,
    )


def authority(name: str) -> Authority:
    key = _key()
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = dt.datetime.now(dt.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=3650))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(_usage(ca=True), critical=True)
        .sign(key, hashes.SHA256())
    )
    return Authority(key, certificate)


def pkcs12_file(
    passphrase: str,
    common_name: str,
    *,
    issuer: Authority | None,
    email: str | None = None,
    days: int = 365,
    signs: bool = True,
    rounds: int = 2048,
) -> bytes:
    """A PKCS#12 holding a key and its certificate (issued by ``issuer``; self-signed when
    None), encrypted with PBES2 (PBKDF2-SHA256, ``rounds``) and a SHA-256 MAC."""
    key = _key()
    attributes = [x509.NameAttribute(NameOID.COMMON_NAME, common_name)]
    if email:
        attributes.append(x509.NameAttribute(NameOID.EMAIL_ADDRESS, email))
    subject = x509.Name(attributes)
    now = dt.datetime.now(dt.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer.certificate.subject if issuer else subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=days))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(_usage(ca=False, signs=signs), critical=True)
    )
    certificate = builder.sign(issuer.key if issuer else key, hashes.SHA256())
    encryption = (
        serialization.PrivateFormat.PKCS12.encryption_builder()
        .kdf_rounds(rounds)
        .key_cert_algorithm(pkcs12.PBES.PBESv2SHA256AndAES256CBC)
        .hmac_hash(hashes.SHA256())
        .build(passphrase.encode())
    )
    return pkcs12.serialize_key_and_certificates(
        name=common_name.encode(),
        key=key,
        cert=certificate,
        cas=[issuer.certificate] if issuer else None,
        encryption_algorithm=encryption,
    )


def with_declared_rounds(data: bytes, rounds: int) -> bytes:
    """``data`` with every key derivation it declares (the MAC's and each encrypted bag's)
    rewritten to ``rounds``: what a hostile upload looks like (opening it would run them)."""
    pfx = asn1_pkcs12.Pfx.load(data)
    infos = []
    for info in pfx.authenticated_safe:
        if info["content_type"].native == "encrypted_data":
            algorithm = info["content"]["encrypted_content_info"]["content_encryption_algorithm"]
            algorithm["parameters"]["key_derivation_func"]["parameters"]["iteration_count"] = rounds
        else:
            contents = asn1_pkcs12.SafeContents.load(info["content"].native)
            for bag in contents:
                if bag["bag_id"].native == "pkcs8_shrouded_key_bag":
                    parameters = bag["bag_value"]["encryption_algorithm"]["parameters"]
                    parameters["key_derivation_func"]["parameters"]["iteration_count"] = rounds
            info = asn1_pkcs12.ContentInfo(
                {"content_type": "data", "content": core.OctetString(contents.dump(force=True))}
            )
        infos.append(info)
    safe = asn1_pkcs12.AuthenticatedSafe(infos)
    pfx["auth_safe"] = asn1_pkcs12.ContentInfo(
        {"content_type": "data", "content": core.OctetString(safe.dump(force=True))}
    )
    pfx["mac_data"]["iterations"] = rounds
    return pfx.dump(force=True)
