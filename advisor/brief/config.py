"""The signing configuration, read from settings when it is needed (not at import)."""

from __future__ import annotations

from django.conf import settings

from advisor.brief.signing import SigningConfig, SigningError


def _passphrase(signing: dict) -> str:
    if signing.get("PASSPHRASE"):
        return signing["PASSPHRASE"]
    passphrase_file = signing.get("PASSPHRASE_FILE")
    if passphrase_file and passphrase_file.exists():
        return passphrase_file.read_text().strip()
    raise SigningError(
        "No signing passphrase: set BRIEF_SIGNING_PASSPHRASE, or run "
        "`manage.py make_dev_signing_cert` in development."
    )


def signing_config() -> SigningConfig:
    signing = settings.BRIEF_SIGNING
    return SigningConfig(
        pkcs12_path=signing["PKCS12_PATH"],
        passphrase=_passphrase(signing),
        signer_name=signing["SIGNER_NAME"],
        location=signing["LOCATION"],
        timestamp_url=signing["TIMESTAMP_URL"],
    )


def trust_roots() -> list:
    """The CA certificates a brief's signature must chain to."""
    from pyhanko.keys import load_cert_from_pemder  # on first use (docs/decisions/0037)

    return [load_cert_from_pemder(str(path)) for path in settings.BRIEF_SIGNING["TRUST_ROOTS"]]
