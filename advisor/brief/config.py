"""The signing configuration, read from settings when it is needed (not at import).

In production (``DJANGO_DEBUG`` unset) nothing defaults to the development signer under
``var/signing/``: the key is ``BRIEF_SIGNING_PKCS12`` and its passphrase comes from
``BRIEF_SIGNING_PASSPHRASE`` or the secret file ``BRIEF_SIGNING_PASSPHRASE_FILE`` names, and a
signer issued by a development CA is refused (docs/decisions/0008-brief-signing.md). With
``BRIEF_SIGNING_PKCS11_MODULE`` set the key is on a PKCS#11 token instead, and the PKCS#12
settings are not used (docs/decisions/0137-pkcs11-signing-token.md).
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings

from advisor.brief.csc import RemoteCredential
from advisor.brief.signing import SigningConfig, SigningError, TokenKey, ValidationSources


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


def _pin(token: dict) -> str:
    if token.get("PIN"):
        return token["PIN"]
    pin_file = token.get("PIN_FILE")
    if pin_file:
        try:
            return Path(pin_file).read_text().strip()
        except OSError as error:
            raise SigningError(
                f"cannot read the token PIN file {pin_file} "
                f"(BRIEF_SIGNING_PKCS11_PIN_FILE): {error.strerror or error}"
            ) from None
    raise SigningError(
        "No PIN for the PKCS#11 token: set BRIEF_SIGNING_PKCS11_PIN or "
        "BRIEF_SIGNING_PKCS11_PIN_FILE."
    )


def token_key(signing: dict) -> TokenKey | None:
    """The PKCS#11 token key the settings name (``BRIEF_SIGNING_PKCS11_*``), or None."""
    token = signing.get("PKCS11") or {}
    if not token.get("MODULE"):
        return None
    if not token.get("TOKEN_LABEL"):
        raise SigningError("BRIEF_SIGNING_PKCS11_TOKEN (the token's label) is unset.")
    key_id = (token.get("KEY_ID") or "").strip()
    try:
        key_id_bytes = bytes.fromhex(key_id.replace(":", "")) if key_id else None
    except ValueError:
        raise SigningError(
            f"BRIEF_SIGNING_PKCS11_KEY_ID {key_id!r} is not hexadecimal (e.g. 01 or a1:b2)."
        ) from None
    if not token.get("KEY_LABEL") and not key_id_bytes:
        raise SigningError(
            "Name the key on the token: set BRIEF_SIGNING_PKCS11_KEY_LABEL or "
            "BRIEF_SIGNING_PKCS11_KEY_ID."
        )
    return TokenKey(
        module_path=Path(token["MODULE"]),
        token_label=token["TOKEN_LABEL"],
        key_label=token.get("KEY_LABEL") or None,
        key_id=key_id_bytes,
        pin=_pin(token),
    )


def signing_config() -> SigningConfig:
    signing = settings.BRIEF_SIGNING
    token = token_key(signing)
    if token is not None:
        return SigningConfig(
            pkcs12_path=None,
            passphrase="",
            signer_name=signing["SIGNER_NAME"] or None,
            location=signing["LOCATION"],
            timestamp_url=signing["TIMESTAMP_URL"],
            refuse_development=settings.PRODUCTION,
            validation=validation_sources(signing),
            token=token,
        )
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


def approver_token(token_label: str, key_label: str, key_id: str, pin: str) -> TokenKey | None:
    """An approver's key on their PKCS#11 token, reached through the module the deployment
    configures (``BRIEF_APPROVER_PKCS11_MODULE``, docs/decisions/0149); None when none is."""
    module = settings.BRIEF_SIGNING.get("APPROVER_PKCS11_MODULE")
    if not module:
        return None
    return TokenKey(
        module_path=Path(module),
        token_label=token_label,
        key_label=key_label or None,
        key_id=bytes.fromhex(key_id) if key_id else None,
        pin=pin,
    )


def _csc_access_token(service: dict) -> str | None:
    if service.get("TOKEN"):
        return service["TOKEN"]
    token_file = service.get("TOKEN_FILE")
    if not token_file:
        return None
    try:
        return Path(token_file).read_text().strip()
    except OSError as error:
        raise SigningError(
            f"cannot read the signing service's access token file {token_file} "
            f"(BRIEF_APPROVER_CSC_TOKEN_FILE): {error.strerror or error}"
        ) from None


def approver_remote(credential_id: str, pin: str = "", otp: str = "") -> RemoteCredential | None:
    """An approver's credential at the remote signing service the deployment configures
    (``BRIEF_APPROVER_CSC_URL``, docs/decisions/0150); None when none is."""
    service = settings.BRIEF_SIGNING.get("APPROVER_CSC") or {}
    if not service.get("URL"):
        return None
    return RemoteCredential(
        service_url=service["URL"],
        credential_id=credential_id,
        access_token=_csc_access_token(service),
        pin=pin,
        otp=otp,
    )
