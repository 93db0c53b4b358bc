"""The brief signatures' deploy checks: production signs with the organisation's own key, never
the development signer (docs/decisions/0008 and 0088), and at a level that outlives the
certificates (a timestamp authority and revocation information, decision 0117). Registered by
the brief app's ``ready()``; `manage.py check --deploy --tag signing` runs only them.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core import checks

from advisor.brief.config import _passphrase, token_key
from advisor.brief.signing import SigningError, is_development_ca, token_certificate

# `manage.py check --deploy --tag signing` runs only these; scripts/serve-production runs it
# before it starts anything and refuses to start on an error.
SIGNING_TAG = "signing"
DEVELOPMENT_ORGANISATION = "Procurement Advisor Dev"


def _common_name(name) -> str:
    from cryptography.x509.oid import NameOID

    values = name.get_attributes_for_oid(NameOID.COMMON_NAME)
    return str(values[0].value) if values else name.rfc4514_string()


@checks.register(SIGNING_TAG, deploy=True)
def check_brief_signer(app_configs=None, **kwargs):
    """Production signs with the organisation's own key, never the development signer.

    Errors: no key configured (advisor.E010); the development signer, by its file or by its
    development CA (E011); no passphrase, or a key it does not open (E012); no trust roots, or
    the development CA among them (E013). A PKCS#11 token configured in place of the PKCS#12
    (decision 0137) is opened and its certificate checked the same way (E012 if it cannot be). Warnings: the development organisation name
    (W003); a signer that does not chain to the trust roots (W004)."""
    if not settings.PRODUCTION:
        return []
    signing = settings.BRIEF_SIGNING
    messages = []
    hint = (
        "Set BRIEF_SIGNING_PKCS12 to the organisation's PKCS#12 file, BRIEF_SIGNING_PASSPHRASE "
        "or BRIEF_SIGNING_PASSPHRASE_FILE (or BRIEF_SIGNING_PKCS11_MODULE and the token's "
        "settings), and BRIEF_SIGNING_TRUST_ROOTS to its CA certificates; "
        "`make_dev_signing_cert` is for development only."
    )
    roots = [Path(p) for p in signing.get("TRUST_ROOTS") or []]
    root_names = set()
    if not roots:
        messages.append(
            checks.Error("BRIEF_SIGNING_TRUST_ROOTS is unset.", hint=hint, id="advisor.E013")
        )
    for root in roots:
        name = _root_name(root)
        if name is None:
            messages.append(
                checks.Error(f"Trust root {root} cannot be read.", hint=hint, id="advisor.E013")
            )
        elif is_development_ca(name):
            messages.append(
                checks.Error(
                    f"Trust root {root} is the development CA {name!r}.",
                    hint=hint,
                    id="advisor.E013",
                )
            )
        else:
            root_names.add(name)
    if signing.get("ORGANISATION") == DEVELOPMENT_ORGANISATION:
        messages.append(
            checks.Warning(
                f"BRIEF_SIGNING_ORGANISATION is unset: briefs print {DEVELOPMENT_ORGANISATION!r}.",
                hint="Set BRIEF_SIGNING_ORGANISATION to the organisation's name.",
                id="advisor.W003",
            )
        )
    if (signing.get("PKCS11") or {}).get("MODULE"):
        return messages + _token_messages(signing, root_names, hint)
    path = signing.get("PKCS12_PATH")
    if not path:
        development = Path(settings.SIGNING_DIR) / "dev-signer.p12"
        found = (
            f"; the development signer in the data folder ({development}) is never used in "
            "production"
            if development.exists()
            else ""
        )
        messages.append(
            checks.Error(
                f"BRIEF_SIGNING_PKCS12 is unset: production has no signing key{found}.",
                hint=hint,
                id="advisor.E010",
            )
        )
        return messages
    path = Path(path)
    if path.name == "dev-signer.p12":
        messages.append(
            checks.Error(
                f"BRIEF_SIGNING_PKCS12 is the development signer {path}.",
                hint=hint,
                id="advisor.E011",
            )
        )
        return messages
    try:
        passphrase = _passphrase(signing)
    except SigningError as error:
        messages.append(checks.Error(str(error), hint=hint, id="advisor.E012"))
        return messages
    certificate = _signer_certificate(path, passphrase)
    if isinstance(certificate, str):
        messages.append(checks.Error(certificate, hint=hint, id="advisor.E012"))
        return messages
    return messages + _certificate_messages(certificate, f"in {path}", root_names, hint)


def _token_messages(signing: dict, root_names: set, hint: str) -> list:
    """The checks of a signer on a PKCS#11 token: its settings, the token opened with its PIN,
    the certificate stored with the key."""
    from cryptography import x509

    try:
        token = token_key(signing)
        certificate = x509.load_der_x509_certificate(token_certificate(token).dump())
    except SigningError as error:
        return [checks.Error(str(error), hint=hint, id="advisor.E012")]
    return _certificate_messages(certificate, f"on the {token}", root_names, hint)


def _certificate_messages(certificate, where: str, root_names: set, hint: str) -> list:
    subject, issuer = _common_name(certificate.subject), _common_name(certificate.issuer)
    if is_development_ca(issuer):
        return [
            checks.Error(
                f"The brief signer {where} is the development signer {subject!r}, issued "
                f"by {issuer!r}.",
                hint=hint,
                id="advisor.E011",
            )
        ]
    if root_names and issuer not in root_names:
        return [
            checks.Warning(
                f"The brief signer {subject!r} is issued by {issuer!r}, which is not among "
                "the trust roots: the verify page would call new briefs 'not signed by us'.",
                hint="Add the issuing CA's certificate to BRIEF_SIGNING_TRUST_ROOTS.",
                id="advisor.W004",
            )
        ]
    return []


def _root_name(path: Path) -> str | None:
    from cryptography import x509

    try:
        data = path.read_bytes()
        cert = (
            x509.load_pem_x509_certificate(data)
            if b"-----BEGIN" in data
            else x509.load_der_x509_certificate(data)
        )
    except (OSError, ValueError):
        return None
    return _common_name(cert.subject)


def _signer_certificate(path: Path, passphrase: str):
    """The signer's certificate, or a sentence saying why it cannot be read."""
    from cryptography.hazmat.primitives.serialization import pkcs12

    try:
        data = path.read_bytes()
    except OSError as error:
        return f"The signing key {path} cannot be read ({error.strerror or error})."
    try:
        _key, certificate, _others = pkcs12.load_key_and_certificates(data, passphrase.encode())
    except ValueError:
        return f"The signing key {path} does not open with the configured passphrase."
    if certificate is None:
        return f"The signing key {path} holds no certificate."
    return certificate


@checks.register(SIGNING_TAG, deploy=True)
def check_timestamp_authority(app_configs=None, **kwargs):
    """Warnings: no timestamp authority (brief.W001: briefs are signed PAdES B-B, which cannot
    be checked once the certificates expire); a timestamp authority without any source of
    revocation information (brief.W002: B-LT falls back to B-T)."""
    if not settings.PRODUCTION:
        return []
    signing = settings.BRIEF_SIGNING
    if not signing.get("TIMESTAMP_URL"):
        return [
            checks.Warning(
                "No timestamp authority is configured: briefs are signed PAdES B-B, without a "
                "trusted time or validation data, and their signatures cannot be checked once "
                "the signers' certificates expire.",
                hint="Set BRIEF_TIMESTAMP_URL to an RFC 3161 timestamp authority; with the "
                "CAs' revocation information (BRIEF_REVOCATION_FILES or BRIEF_REVOCATION_FETCH) "
                "briefs are signed PAdES B-LT.",
                id="brief.W001",
            )
        ]
    if not signing.get("REVOCATION_FILES") and not signing.get("REVOCATION_FETCH"):
        return [
            checks.Warning(
                "A timestamp authority is configured but no revocation information can be had "
                "(no CRL files, fetching off): briefs are signed PAdES B-T, not B-LT.",
                hint="Set BRIEF_REVOCATION_FILES to the CAs' CRL files, or "
                "BRIEF_REVOCATION_FETCH=1.",
                id="brief.W002",
            )
        ]
    return []


@checks.register(SIGNING_TAG, deploy=True)
def check_approver_key_sources(app_configs=None, **kwargs):
    """Where approvers' own keys may be (decisions 0149, 0150): the PKCS#11 module through
    which the server reaches their tokens exists (advisor.E014), and the remote signing
    service, to which approvers' PINs are sent, is reached over HTTPS (advisor.E015)."""
    if not settings.PRODUCTION:
        return []
    signing = settings.BRIEF_SIGNING
    messages = []
    module = signing.get("APPROVER_PKCS11_MODULE")
    if module and not Path(module).is_file():
        messages.append(
            checks.Error(
                f"The approvers' PKCS#11 module {module} does not exist.",
                hint="Set BRIEF_APPROVER_PKCS11_MODULE to the token vendor's module (.so).",
                id="advisor.E014",
            )
        )
    url = (signing.get("APPROVER_CSC") or {}).get("URL") or ""
    if url and not url.lower().startswith("https://"):
        messages.append(
            checks.Error(
                f"The approvers' signing service {url} is not reached over HTTPS: their PINs "
                "would cross the network in clear.",
                hint="Set BRIEF_APPROVER_CSC_URL to the service's https:// address.",
                id="advisor.E015",
            )
        )
    return messages
