"""An approver's own signing certificate (PKCS#12), kept encrypted under their passphrase.

The Electronic Signature Law (电子签名法 第十三条) asks that the signature creation data belong
to the signer alone and be under the signer's sole control when signing. The uploaded PKCS#12
is therefore stored only encrypted (AES-256-GCM) under a key derived (scrypt) from the
passphrase that opens it, which the approver types at upload and again at each approval; the
passphrase is never stored, logged or sent back, and the server cannot sign as the approver
without it. The approver's user id is bound to the ciphertext (associated data), so a blob
copied to another account does not open.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from datetime import UTC, datetime

from django.utils.translation import gettext as _

# scrypt at N=2^15, r=8, p=1: 32 MiB and about 0.1 s a derivation (OWASP's minimum is 2^17 with
# p=1 for passwords; a passphrase typed per approval, kept off the login path, at 2^15 keeps the
# approval quick while brute force still costs 32 MiB a guess).
SCRYPT_N = 2**15
SCRYPT_R = 8
SCRYPT_P = 1
SALT_BYTES = 16
NONCE_BYTES = 12
MAX_PKCS12_BYTES = 64 * 1024


class CredentialError(ValueError):
    """The file or the passphrase does not give a usable signing certificate (user-facing)."""


@dataclass(frozen=True)
class Sealed:
    """What is stored: the ciphertext, its salt and nonce, and the certificate's public facts."""

    ciphertext: bytes
    salt: bytes
    nonce: bytes
    subject: str
    issuer: str
    fingerprint: str  # SHA-256 of the certificate (DER), hex
    not_after: datetime


def derive_key(passphrase: str, salt: bytes) -> bytes:
    # cryptography on first use, as in signing (docs/decisions/0037)
    from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

    kdf = Scrypt(salt=salt, length=32, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P)
    return kdf.derive(passphrase.encode("utf-8"))


def _bound(user_id: int) -> bytes:
    return f"approver-signing-certificate:{user_id}".encode()


def open_pkcs12(data: bytes, passphrase: str):
    """``(key, certificate, chain)`` of a PKCS#12 file; CredentialError in plain words."""
    from cryptography.hazmat.primitives.serialization import pkcs12  # on first use (0037)

    if not data or len(data) > MAX_PKCS12_BYTES:
        raise CredentialError(_("This is not a signing certificate file (PKCS#12, .p12 or .pfx)."))
    try:
        key, certificate, chain = pkcs12.load_key_and_certificates(data, passphrase.encode("utf-8"))
    except ValueError:
        raise CredentialError(
            _("The passphrase does not open this file, or it is not a PKCS#12 file.")
        ) from None
    if key is None or certificate is None:
        raise CredentialError(_("The file holds no private key with its certificate."))
    return key, certificate, list(chain or ())


def seal(data: bytes, passphrase: str, user_id: int, now: datetime | None = None) -> Sealed:
    """Check that ``passphrase`` opens the PKCS#12 ``data`` and that its certificate is valid
    now, then encrypt the file under a key derived from the passphrase."""
    from cryptography.hazmat.primitives import serialization  # on first use (0037)
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    _key, certificate, _chain = open_pkcs12(data, passphrase)
    now = now or datetime.now(UTC)
    if not certificate.not_valid_before_utc <= now <= certificate.not_valid_after_utc:
        raise CredentialError(_("The certificate in this file is not valid today."))
    salt, nonce = os.urandom(SALT_BYTES), os.urandom(NONCE_BYTES)
    ciphertext = AESGCM(derive_key(passphrase, salt)).encrypt(nonce, data, _bound(user_id))
    der = certificate.public_bytes(serialization.Encoding.DER)
    return Sealed(
        ciphertext=ciphertext,
        salt=salt,
        nonce=nonce,
        subject=certificate.subject.rfc4514_string(),
        issuer=certificate.issuer.rfc4514_string(),
        fingerprint=hashlib.sha256(der).hexdigest(),
        not_after=certificate.not_valid_after_utc,
    )


def unseal(ciphertext: bytes, salt: bytes, nonce: bytes, passphrase: str, user_id: int) -> bytes:
    """The PKCS#12 file; CredentialError when the passphrase is not the approver's."""
    from cryptography.exceptions import InvalidTag  # on first use (0037)
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    try:
        return AESGCM(derive_key(passphrase, salt)).decrypt(nonce, ciphertext, _bound(user_id))
    except InvalidTag:
        raise CredentialError(
            _("That passphrase does not open your signing certificate; nothing was signed.")
        ) from None
