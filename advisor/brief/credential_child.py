"""What runs in the child process that opens an uploaded PKCS#12 (advisor.brief.sandbox).

Opening a PKCS#12 runs its key derivations (PBKDF2 or the PKCS#12 KDF, as many rounds as the
file asks for) and cannot be interrupted from the process that runs them: a 3 KB file asking
for 10⁸ rounds held a web worker past gunicorn's timeout. So it is opened here, under the same
hard limits as the verify page's check (docs/decisions/0120-bounded-credentials.md), after the
parent has read the rounds the file declares (``advisor.brief.credentials.kdf_work``).

Payload: a JSON header line (the passphrase), then the file. Result: one JSON object,
``{"certificate": <DER, base64>, "chain": [...]}`` or ``{"refused": "passphrase" | "no-key"}``.
The private key never leaves the child.
"""

from __future__ import annotations

import base64
import json

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12

TARGET = "advisor.brief.credential_child:open_file"


def payload(data: bytes, passphrase: str) -> bytes:
    return json.dumps({"passphrase": passphrase}).encode() + b"\n" + data


def _der(certificate) -> str:
    return base64.b64encode(certificate.public_bytes(serialization.Encoding.DER)).decode()


def open_file(data: bytes) -> bytes:
    header, _, p12 = data.partition(b"\n")
    passphrase = json.loads(header)["passphrase"]
    try:
        key, certificate, chain = pkcs12.load_key_and_certificates(p12, passphrase.encode())
    except ValueError:
        return json.dumps({"refused": "passphrase"}).encode()
    if key is None or certificate is None:
        return json.dumps({"refused": "no-key"}).encode()
    return json.dumps(
        {"certificate": _der(certificate), "chain": [_der(c) for c in chain or ()]}
    ).encode()
