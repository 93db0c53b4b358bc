"""A SoftHSM token holding a test signer's key and certificate (docs/decisions/0137).

SoftHSM (Debian package ``softhsm2``, installed by ``scripts/setup --test``) is a PKCS#11 module
that keeps its tokens in files: the token is made in a temporary folder that ``SOFTHSM2_CONF``
names, its key and certificate imported from a PKCS#12 with python-pkcs11, as an operator's
would be with their HSM's tools."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

MODULE_CANDIDATES = (
    Path("/usr/lib/softhsm/libsofthsm2.so"),
    Path("/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so"),
    Path("/usr/lib/aarch64-linux-gnu/softhsm/libsofthsm2.so"),
)
TOKEN_LABEL = "advisor-test"
DEV_LABEL = "dev-token"  # a development CA's signer (tests/integration/test_pkcs11_signing.py)
LT_LABEL = "long-term-token"  # a signer with a CRL and a timestamp authority (same)
APPROVER_LABEL = "approver-token"  # an approver's own key (docs/decisions/0149)
# Every token a test process may use, made together before any is loaded (configure_softhsm).
ALL_LABELS = (TOKEN_LABEL, DEV_LABEL, LT_LABEL, APPROVER_LABEL)
# A PIN no test output could hold by chance, for the approver's token (checked absent from logs).
PINS = {APPROVER_LABEL: "wf-pin-7391"}
KEY_LABEL = "brief-signer"
KEY_ID = bytes.fromhex("a1b2")
USER_PIN = "123456"
SO_PIN = "654321"

_configured: list[Path] = []  # the token folder this process was pointed at, once


@dataclass(frozen=True)
class SoftToken:
    module: Path
    label: str
    key_label: str
    key_id: bytes
    pin: str


def softhsm_module() -> Path:
    for candidate in MODULE_CANDIDATES:
        if candidate.exists():
            return candidate
    raise FileNotFoundError(
        "SoftHSM's PKCS#11 module is not installed: run scripts/setup --test (package softhsm2)"
    )


def configure_softhsm(directory: Path, labels: tuple[str, ...] = ALL_LABELS) -> None:
    """Point SoftHSM (this process and its children) at a token folder under ``directory``
    holding empty tokens labelled ``labels``. SoftHSM lists its tokens once, when a process
    first loads it, and python-pkcs11 keeps the loaded module: every token a process uses is
    made here, once per process (a session-scoped fixture), before then. A second folder would be
    invisible to this process while its subprocesses read it, so a second call is refused."""
    if _configured:
        raise RuntimeError(
            f"SoftHSM is already configured in this process ({_configured[0]}): make tokens "
            "once per test process, in a session-scoped fixture"
        )
    _configured.append(directory)
    tokens = directory / "tokens"
    tokens.mkdir(parents=True, exist_ok=True)
    conf = directory / "softhsm2.conf"
    conf.write_text(
        f"directories.tokendir = {tokens}\nobjectstore.backend = file\nlog.level = ERROR\n"
    )
    os.environ["SOFTHSM2_CONF"] = str(conf)
    for label in labels:
        subprocess.run(
            ["softhsm2-util", "--init-token", "--free", "--label", label]
            + ["--pin", PINS.get(label, USER_PIN), "--so-pin", SO_PIN],
            check=True,
            capture_output=True,
        )


def make_token(
    pkcs12_path: Path, passphrase: str, label: str = TOKEN_LABEL, key_label: str = KEY_LABEL
) -> SoftToken:
    """The token labelled ``label`` (made by ``configure_softhsm``) with the key and
    certificate of ``pkcs12_path`` (an RSA signer) imported."""
    import pkcs11
    from cryptography.hazmat.primitives.serialization import (
        Encoding,
        NoEncryption,
        PrivateFormat,
        pkcs12,
    )
    from pkcs11 import Attribute, ObjectClass
    from pkcs11.util.rsa import decode_rsa_private_key
    from pkcs11.util.x509 import decode_x509_certificate

    module = softhsm_module()
    key, certificate, _others = pkcs12.load_key_and_certificates(
        pkcs12_path.read_bytes(), passphrase.encode()
    )
    key_der = key.private_bytes(Encoding.DER, PrivateFormat.TraditionalOpenSSL, NoEncryption())
    token = pkcs11.lib(str(module)).get_token(token_label=label)
    pin = PINS.get(label, USER_PIN)
    with token.open(rw=True, user_pin=pin) as session:
        key_attributes = decode_rsa_private_key(key_der)
        key_attributes.update(
            {
                Attribute.TOKEN: True,
                Attribute.LABEL: key_label,
                Attribute.ID: KEY_ID,
                Attribute.SIGN: True,
                Attribute.SENSITIVE: True,
                Attribute.EXTRACTABLE: False,
            }
        )
        session.create_object(key_attributes)
        cert_attributes = decode_x509_certificate(certificate.public_bytes(Encoding.DER))
        cert_attributes.update(
            {
                Attribute.CLASS: ObjectClass.CERTIFICATE,
                Attribute.TOKEN: True,
                Attribute.LABEL: key_label,
                Attribute.ID: KEY_ID,
            }
        )
        session.create_object(cert_attributes)
    return SoftToken(module, label, key_label, KEY_ID, pin)


def token_settings(token: SoftToken, *, by_id: bool = False, pin_file: Path | None = None):
    """The ``BRIEF_SIGNING["PKCS11"]`` settings for ``token`` (the key by label or by id; the
    PIN in the settings or in ``pin_file``)."""
    if pin_file is not None:
        pin_file.write_text(token.pin + "\n")
    return {
        "MODULE": str(token.module),
        "TOKEN_LABEL": token.label,
        "KEY_LABEL": "" if by_id else token.key_label,
        "KEY_ID": token.key_id.hex() if by_id else "",
        "PIN": None if pin_file is not None else token.pin,
        "PIN_FILE": str(pin_file) if pin_file is not None else None,
    }
