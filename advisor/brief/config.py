"""The signing configuration, read from settings when it is needed (not at import).

In production (``DJANGO_DEBUG`` unset) nothing defaults to the development signer under
``var/signing/``: the key is ``BRIEF_SIGNING_PKCS12`` and its passphrase comes from
``BRIEF_SIGNING_PASSPHRASE`` or the secret file ``BRIEF_SIGNING_PASSPHRASE_FILE`` names, and a
signer issued by a development CA is refused (docs/decisions/0008-brief-signing.md).
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings

from advisor.brief.signing import SigningConfig, SigningError, ValidationSources


def _passphrase(signing: dict) -> str:
    if signing.get("PASSPHRASE"):
        return signing["PASSPHRASE"]
    passphrase_file = signing.get("PASSPHRASE_FILE")
    if passphrase_file:
        try:
            return Path(passphrase_file).read_text().strip()
        except OSError as error:
            raise SigningError(
                f"cannot read the signing passphrase file {passphrase_file} "
                f"(BRIEF_SIGNING_PASSPHRASE_FILE): {error.strerror or error}"
            ) from None
    raise SigningError(
        "No signing passphrase: set BRIEF_SIGNING_PASSPHRASE or BRIEF_SIGNING_PASSPHRASE_FILE, "
        "or run `manage.py make_dev_signing_cert` in development."
    )


def signing_config() -> SigningConfig:
    signing = settings.BRIEF_SIGNING
    if not signing.get("PKCS12_PATH"):
        raise SigningError(
            "No signing key: set BRIEF_SIGNING_PKCS12 to the organisation's PKCS#12 file "
            "(production never uses the development signer)."
        )
    return SigningConfig(
        pkcs12_path=Path(signing["PKCS12_PATH"]),
        passphrase=_passphrase(signing),
        signer_name=signing["SIGNER_NAME"] or None,
        location=signing["LOCATION"],
        timestamp_url=signing["TIMESTAMP_URL"],
        refuse_development=settings.PRODUCTION,
        validation=validation_sources(signing),
    )


def validation_sources(signing: dict) -> ValidationSources | None:
    """Where B-LT's validation data come from: the trust roots, the operator's CRL files
    (``BRIEF_REVOCATION_FILES``) and fetching (``BRIEF_REVOCATION_FETCH``); None without a
    timestamp authority (B-LT needs one)."""
    if not signing.get("TIMESTAMP_URL"):
        return None
    return ValidationSources(
        trust_roots=tuple(signing["TRUST_ROOTS"]),
        revocation_files=tuple(signing.get("REVOCATION_FILES") or ()),
        fetch=bool(signing.get("REVOCATION_FETCH")),
    )


def trust_roots() -> list:
    """The CA certificates a brief's signature must chain to."""
    from pyhanko.keys import load_cert_from_pemder  # on first use (docs/decisions/0037)

    return [load_cert_from_pemder(str(path)) for path in settings.BRIEF_SIGNING["TRUST_ROOTS"]]
