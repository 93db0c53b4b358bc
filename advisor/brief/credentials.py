"""An approver's own signing certificate (PKCS#12), kept encrypted under their passphrase.

The Electronic Signature Law (电子签名法 第十三条) asks that the signature creation data belong
to the signer alone and be under the signer's sole control when signing. The uploaded PKCS#12
is therefore stored only encrypted (AES-256-GCM) under a key derived (scrypt) from the
passphrase that opens it, which the approver types at upload and again at each approval; the
passphrase is never stored, logged or sent back, and the server cannot sign as the approver
without it. The approver's user id is bound to the ciphertext (associated data), so a blob
copied to another account does not open.

An uploaded file is opened within a budget (docs/decisions/0120-bounded-credentials.md): the
key-derivation rounds it declares are read from its ASN.1 first and a file asking for more
than a stated ceiling is refused unopened; the rest is opened in a child process under hard
CPU, memory and time limits (advisor.brief.sandbox), one upload at a time per user. The
certificate must then vouch for its holder (docs/decisions/0121-approver-certificate-vouches.md):
it chains to the approvers' trust roots, may sign documents, is valid for 30 more days and
names the account.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import fcntl
import hashlib
import json
import os
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from advisor.brief import sandbox
from advisor.brief.csc import remote_certificates
from advisor.brief.signing import KeyUnavailable, outside_event_loop, token_signer

# scrypt at N=2^15, r=8, p=1: 32 MiB and about 0.1 s a derivation (OWASP's minimum is 2^17 with
# p=1 for passwords; a passphrase typed per approval, kept off the login path, at 2^15 keeps the
# approval quick while brute force still costs 32 MiB a guess).
SCRYPT_N = 2**15
SCRYPT_R = 8
SCRYPT_P = 1
SALT_BYTES = 16
NONCE_BYTES = 12
MAX_PKCS12_BYTES = 64 * 1024
# Key-derivation rounds a file may ask for: per derivation (PBKDF2 of a PBES2 bag, the PKCS#12
# KDF of a PKCS#12 PBE bag or of the MAC), and over all of them together. OpenSSL 3 writes
# 2,048 rounds, Windows 2,000 to 10,000, Python's cryptography 20,000; 10⁶ PBKDF2-SHA256
# rounds cost ~0.3 s of CPU here.
MAX_KDF_ROUNDS = 1_000_000
MAX_KDF_WORK = 2_000_000
MAX_BAGS = 16  # safe bags (key, certificates) in a file: a certificate and its chain
# An approver's certificate must stay valid at least this long after registration.
MIN_VALID_DAYS = 30


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


def _not_pkcs12() -> CredentialError:
    return CredentialError(_("This is not a signing certificate file (PKCS#12, .p12 or .pfx)."))


def kdf_work(data: bytes) -> int:
    """The key-derivation rounds opening ``data`` costs, read from its ASN.1 without deriving
    anything: the MAC's and every encrypted bag's. CredentialError when the file is not a
    PKCS#12 this reading understands, or asks for more than ``MAX_KDF_ROUNDS`` in one
    derivation or ``MAX_KDF_WORK`` in all."""
    from asn1crypto import pkcs12  # on first use (0037)

    if not data or len(data) > MAX_PKCS12_BYTES:
        raise _not_pkcs12()
    rounds = []
    try:
        pfx = pkcs12.Pfx.load(data, strict=True)
        if pfx["mac_data"].native is not None:
            rounds.append(int(pfx["mac_data"]["iterations"].native))
        bags = 0
        for info in pfx.authenticated_safe:
            kind = info["content_type"].native
            if kind == "encrypted_data":
                algorithm = info["content"]["encrypted_content_info"]
                rounds.append(algorithm["content_encryption_algorithm"].kdf_iterations)
                continue
            if kind != "data":
                raise ValueError(kind)
            for bag in pkcs12.SafeContents.load(info["content"].native):
                bags += 1
                if bags > MAX_BAGS:
                    raise ValueError("too many bags")
                if bag["bag_id"].native == "pkcs8_shrouded_key_bag":
                    rounds.append(bag["bag_value"]["encryption_algorithm"].kdf_iterations)
                elif bag["bag_id"].native not in ("cert_bag", "key_bag", "crl_bag"):
                    raise ValueError(bag["bag_id"].native)
    except (ValueError, TypeError, KeyError, AttributeError):
        raise _not_pkcs12() from None
    work = sum(rounds)
    if max(rounds, default=0) > MAX_KDF_ROUNDS or work > MAX_KDF_WORK:
        raise CredentialError(
            _(
                "This file asks for %(rounds)s key-derivation rounds; a certificate file needs "
                "far fewer (at most %(limit)s here), so it was not opened."
            )
            % {"rounds": f"{work:,}", "limit": f"{MAX_KDF_ROUNDS:,}"}
        )
    return work


def limits() -> sandbox.Limits:
    return sandbox.Limits(
        cpu_s=settings.CREDENTIAL_CPU_S,
        memory_bytes=settings.CREDENTIAL_MEMORY_MB * 1024 * 1024,
        wall_s=settings.CREDENTIAL_BUDGET_S,
    )


@contextlib.contextmanager
def one_at_a_time(user_id: int):
    """Hold the user's upload lock (a file lock, shared by every web worker on the host);
    CredentialError when another of their uploads is being opened."""
    directory = Path(settings.VERIFY_SLOT_DIR)
    directory.mkdir(parents=True, exist_ok=True)
    fd = os.open(directory / f"credential-{int(user_id)}", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise CredentialError(
                _(
                    "Your previous certificate upload is still being checked. Wait a moment, then try again."
                )
            ) from None
        yield
    finally:
        os.close(fd)  # closing drops the lock


def open_pkcs12(data: bytes, passphrase: str):
    """``(certificate, chain)`` of a PKCS#12 file (cryptography certificates), opened in a
    child process under ``limits()`` after its declared rounds were counted; CredentialError
    in plain words. The private key stays in the child."""
    from cryptography import x509  # on first use (0037)

    import advisor.brief.credential_child as child  # imported before a fork

    kdf_work(data)
    try:
        output = sandbox.run(child.TARGET, child.payload(data, passphrase), limits())
    except sandbox.Stopped:
        raise CredentialError(
            _(
                "Opening this file needed far more time or memory than any certificate file, "
                "so it was stopped."
            )
        ) from None
    result = json.loads(output)
    if result.get("refused") == "passphrase":
        raise CredentialError(
            _("The passphrase does not open this file, or it is not a PKCS#12 file.")
        )
    if result.get("refused"):
        raise CredentialError(_("The file holds no private key with its certificate."))
    certificate = x509.load_der_x509_certificate(base64.b64decode(result["certificate"]))
    chain = [x509.load_der_x509_certificate(base64.b64decode(c)) for c in result["chain"]]
    return certificate, chain


# --- Does the certificate vouch for its holder? -------------------------------------------


def _folded(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def account_names(user) -> tuple[set[str], set[str]]:
    """The account as the directory records it: its e-mail addresses and its full name in
    either order (given-family, family-given: 王芳 or Wang Fang), folded."""
    emails = {_folded(user.email)} if user.email else set()
    first, last = user.first_name.strip(), user.last_name.strip()
    names = {_folded(f"{first}{last}"), _folded(f"{last}{first}")} if first or last else set()
    return emails, names


def names_account(common_names, emails, user) -> bool:
    """Whether a certificate naming ``common_names`` and ``emails`` names ``user``."""
    account_emails, account_full_names = account_names(user)
    return bool(
        account_emails & {_folded(e) for e in emails}
        or account_full_names & {_folded(n) for n in common_names}
    )


def certificate_names(certificate) -> tuple[list[str], list[str]]:
    """Common names and e-mail addresses (subject and subject alternative names)."""
    from cryptography import x509
    from cryptography.x509.oid import NameOID

    common = [a.value for a in certificate.subject.get_attributes_for_oid(NameOID.COMMON_NAME)]
    emails = [a.value for a in certificate.subject.get_attributes_for_oid(NameOID.EMAIL_ADDRESS)]
    try:
        alternative = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName)
        emails += alternative.value.get_values_for_type(x509.RFC822Name)
    except x509.ExtensionNotFound:
        pass
    return [str(c) for c in common], [str(e) for e in emails]


def approver_trust_roots() -> list[Path]:
    """The CAs an approver's certificate must chain to: ``BRIEF_APPROVER_TRUST_ROOTS`` when
    configured, else the brief signature's own trust roots."""
    signing = settings.BRIEF_SIGNING
    return list(signing.get("APPROVER_TRUST_ROOTS") or signing["TRUST_ROOTS"])


def _chains_to_roots(certificate, chain, now: datetime) -> bool:
    from asn1crypto import x509 as asn1_x509
    from cryptography.hazmat.primitives import serialization
    from pyhanko.keys import load_cert_from_pemder
    from pyhanko_certvalidator import CertificateValidator, ValidationContext

    def der(cert):
        return asn1_x509.Certificate.load(cert.public_bytes(serialization.Encoding.DER))

    roots = [load_cert_from_pemder(str(path)) for path in approver_trust_roots()]
    if not roots:
        return False
    context = ValidationContext(trust_roots=roots, allow_fetching=False, moment=now)
    validator = CertificateValidator(der(certificate), [der(c) for c in chain], context)

    def validate():
        asyncio.run(validator.async_validate_path())

    try:
        outside_event_loop(validate)
    except Exception:  # noqa: BLE001 - no path to a trust root, whatever the reason
        return False
    return True


def _may_sign(certificate) -> bool:
    from cryptography import x509

    try:
        usage = certificate.extensions.get_extension_for_class(x509.KeyUsage).value
    except x509.ExtensionNotFound:
        return False
    return usage.content_commitment or usage.digital_signature


def check_vouches(certificate, chain, user, now: datetime) -> None:
    """CredentialError unless the certificate vouches for ``user``: chains to the approvers'
    trust roots, may sign documents, is valid now and for ``MIN_VALID_DAYS`` more, and names
    the account."""
    if not certificate.not_valid_before_utc <= now <= certificate.not_valid_after_utc:
        raise CredentialError(_("The certificate in this file is not valid today."))
    if certificate.not_valid_after_utc < now + timedelta(days=MIN_VALID_DAYS):
        raise CredentialError(
            _(
                "This certificate expires on %(date)s, in less than %(days)d days. Register "
                "one that stays valid longer."
            )
            % {"date": date_format(certificate.not_valid_after_utc.date()), "days": MIN_VALID_DAYS}
        )
    if not _may_sign(certificate):
        raise CredentialError(
            _(
                "This certificate may not sign documents: it carries neither the "
                "non-repudiation nor the digital signature key usage."
            )
        )
    if not _chains_to_roots(certificate, chain, now):
        raise CredentialError(
            _(
                "This certificate was not issued by a certificate authority this site trusts "
                "for approvers. A self-signed certificate, or one from another authority, "
                "cannot vouch for you."
            )
        )
    common_names, emails = certificate_names(certificate)
    if not names_account(common_names, emails, user):
        raise CredentialError(
            _(
                "This certificate is in the name of %(name)s, not yours: it must carry your "
                "e-mail address or your full name as this site records them (%(account)s)."
            )
            % {
                "name": ", ".join(common_names + emails) or "—",
                "account": ", ".join(v for v in (user.get_full_name(), user.email) if v)
                or user.get_username(),
            }
        )


def seal(data: bytes, passphrase: str, user, now: datetime | None = None) -> Sealed:
    """Check that ``passphrase`` opens the PKCS#12 ``data`` (within a budget, one upload at a
    time per user) and that its certificate vouches for ``user``, then encrypt the file under a
    key derived from the passphrase."""
    from cryptography.hazmat.primitives import serialization  # on first use (0037)
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    user_id = user.pk
    with one_at_a_time(user_id):
        certificate, chain = open_pkcs12(data, passphrase)
    now = now or datetime.now(UTC)
    check_vouches(certificate, chain, user, now)
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


# --- A key on the approver's own PKCS#11 token (docs/decisions/0149) ----------------------


@dataclass(frozen=True)
class CertificateFacts:
    """The public facts of a certificate read from a token, as stored for an uploaded one."""

    subject: str
    issuer: str
    fingerprint: str  # SHA-256 of the certificate (DER), hex
    not_after: datetime


def token_refusal(fault: str, token) -> CredentialError:
    """Why ``token`` (a TokenKey) could not be used, in plain words (``KeyUnavailable.fault``)."""
    if fault == "pin":
        return CredentialError(
            _(
                "The token refused this PIN. Check it and try again; too many wrong PINs lock "
                "the token."
            )
        )
    if fault == "key":
        return CredentialError(
            _(
                "The token “%(token)s” holds no key with its certificate under “%(key)s”. "
                "Check the key's label or ID."
            )
            % {"token": token.token_label, "key": token.key_label or (token.key_id or b"").hex()}
        )
    return CredentialError(
        _(
            "No signing token labelled “%(token)s” can be reached from this site. Check the "
            "label and that the token is connected, then try again."
        )
        % {"token": token.token_label}
    )


def _token_certificates(token):
    from cryptography import x509

    with token_signer(token) as signer:
        certificate = x509.load_der_x509_certificate(signer.signing_cert.dump())
        chain = [x509.load_der_x509_certificate(c.dump()) for c in signer.cert_registry]
    return certificate, chain


def token_certificate(token, user, now: datetime | None = None) -> CertificateFacts:
    """The certificate stored with the key on the approver's token, read with their PIN and
    checked as an uploaded one is (``check_vouches``); CredentialError in plain words when the
    token, the key or the PIN cannot be used or the certificate does not vouch for ``user``."""
    try:
        certificate, chain = _token_certificates(token)
    except KeyUnavailable as error:
        raise token_refusal(error.fault, token) from None
    check_vouches(certificate, chain, user, now or datetime.now(UTC))
    return _facts(certificate)


def token_fingerprint(token) -> str:
    """The SHA-256 fingerprint of the certificate stored with the key on ``token``, read with
    the PIN it carries; CredentialError in plain words when the token cannot be used."""
    try:
        certificate, _chain = _token_certificates(token)
    except KeyUnavailable as error:
        raise token_refusal(error.fault, token) from None
    return _facts(certificate).fingerprint


# --- A credential at a remote signing service (docs/decisions/0150) -----------------------


def remote_refusal(fault: str, credential) -> CredentialError:
    """Why the signing service could not sign with ``credential`` (a RemoteCredential), in
    plain words (``KeyUnavailable.fault``)."""
    if fault == "pin":
        return CredentialError(
            _(
                "The signing service refused this PIN or code. Check it and try again; too many "
                "wrong tries can lock your key at the service."
            )
        )
    if fault == "key":
        return CredentialError(
            _(
                "The signing service has no credential “%(credential)s” that this site may use. "
                "Check the credential ID."
            )
            % {"credential": credential.credential_id}
        )
    return CredentialError(
        _(
            "The signing service cannot be used now: it is out of reach or does not accept "
            "this site. Try again later; if it keeps failing, tell the administrator."
        )
    )


def _remote_certificates(credential):
    from cryptography import x509

    certificate, chain = remote_certificates(credential)
    return (
        x509.load_der_x509_certificate(certificate.dump()),
        [x509.load_der_x509_certificate(c.dump()) for c in chain],
    )


def _facts(certificate) -> CertificateFacts:
    from cryptography.hazmat.primitives import serialization

    der = certificate.public_bytes(serialization.Encoding.DER)
    return CertificateFacts(
        subject=certificate.subject.rfc4514_string(),
        issuer=certificate.issuer.rfc4514_string(),
        fingerprint=hashlib.sha256(der).hexdigest(),
        not_after=certificate.not_valid_after_utc,
    )


def remote_certificate(credential, user, now: datetime | None = None) -> CertificateFacts:
    """The certificate of the approver's credential at the signing service, checked as an
    uploaded one is (``check_vouches``); CredentialError in plain words otherwise."""
    try:
        certificate, chain = _remote_certificates(credential)
    except KeyUnavailable as error:
        raise remote_refusal(error.fault, credential) from None
    check_vouches(certificate, chain, user, now or datetime.now(UTC))
    return _facts(certificate)


def remote_fingerprint(credential) -> str:
    """The SHA-256 fingerprint of the credential's certificate as the service lists it now;
    CredentialError in plain words when the service cannot say."""
    try:
        certificate, _chain = _remote_certificates(credential)
    except KeyUnavailable as error:
        raise remote_refusal(error.fault, credential) from None
    return _facts(certificate).fingerprint
