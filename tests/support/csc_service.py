"""A local signing service speaking the parts of the Cloud Signature Consortium API (v1) that
pyHanko's CSC signer uses, for tests (docs/decisions/0150): ``credentials/info``,
``credentials/authorize`` and ``signatures/signHash``, on 127.0.0.1, no network.

It holds one credential, the key and certificate of a PKCS#12 (an approver's test
certificate), answers only requests carrying its access token, authorises a signature only
with the credential's PIN, and, like a service at SCAL 2, binds each authorisation (SAD) to
the digests it was asked for and to one use. It records every request's endpoint and body
(``requests``) for tests to look at.
"""

from __future__ import annotations

import base64
import json
import secrets
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, utils
from cryptography.hazmat.primitives.serialization import pkcs12

SHA256_RSA = "1.2.840.113549.1.1.11"
SHA256 = "2.16.840.1.101.3.4.2.1"
PREFIX = "/csc/v1/"


@dataclass
class LocalSigningService:
    """The service's state: its credential, the PIN, the access token and what it was asked."""

    credential_id: str
    pin: str
    access_token: str
    key: object = field(repr=False)
    certificates: list[bytes] = field(repr=False)  # DER, the signer's first
    scal: int = 2
    requests: list[tuple[str, dict]] = field(default_factory=list)
    granted: dict[str, list[str]] = field(default_factory=dict)  # SAD -> the digests it allows
    url: str = ""
    _server: ThreadingHTTPServer | None = None

    def answer(self, endpoint: str, body: dict, authorization: str) -> tuple[int, dict]:
        self.requests.append((endpoint, body))
        if authorization != f"Bearer {self.access_token}":
            return 401, {"error": "invalid_token", "error_description": "Unknown access token"}
        if body.get("credentialID") != self.credential_id:
            return 400, {"error": "invalid_request", "error_description": "Invalid credentialID"}
        if endpoint == "credentials/info":
            return 200, self._info()
        if endpoint == "credentials/authorize":
            return self._authorize(body)
        if endpoint == "signatures/signHash":
            return self._sign(body)
        return 404, {"error": "invalid_request", "error_description": "Unknown endpoint"}

    def _info(self) -> dict:
        return {
            "key": {"status": "enabled", "algo": [SHA256_RSA], "len": self.key.key_size},
            "cert": {
                "status": "valid",
                "certificates": [base64.b64encode(c).decode() for c in self.certificates],
            },
            "authMode": "explicit",
            "SCAL": str(self.scal),
            "PIN": {"presence": "true", "format": "N"},
            "multisign": 1,
        }

    def _authorize(self, body: dict) -> tuple[int, dict]:
        if body.get("PIN") != self.pin:
            return 400, {"error": "invalid_request", "error_description": "Invalid PIN"}
        digests = body.get("hash") or []
        if self.scal == 2 and len(digests) != int(body.get("numSignatures", 0)):
            return 400, {"error": "invalid_request", "error_description": "Missing hash"}
        sad = secrets.token_urlsafe(16)
        self.granted[sad] = list(digests)
        return 200, {"SAD": sad, "expiresIn": 300}

    def _sign(self, body: dict) -> tuple[int, dict]:
        allowed = self.granted.pop(body.get("SAD"), None)  # one use
        digests = body.get("hash") or []
        if allowed is None or (self.scal == 2 and sorted(allowed) != sorted(digests)):
            return 400, {"error": "invalid_request", "error_description": "Invalid SAD"}
        if body.get("signAlgo") != SHA256_RSA or body.get("hashAlgo") != SHA256:
            return 400, {"error": "invalid_request", "error_description": "Unsupported algo"}
        prehashed = utils.Prehashed(hashes.SHA256())
        signatures = [
            self.key.sign(base64.b64decode(d), padding.PKCS1v15(), prehashed) for d in digests
        ]
        return 200, {"signatures": [base64.b64encode(s).decode() for s in signatures]}

    def start(self) -> LocalSigningService:
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    body = {}
                endpoint = self.path.removeprefix(PREFIX) if self.path.startswith(PREFIX) else ""
                status, answer = service.answer(
                    endpoint, body, self.headers.get("Authorization", "")
                )
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):  # quiet
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()


def signing_service(
    pkcs12_path: Path, passphrase: str, *, credential_id: str, pin: str, scal: int = 2
) -> LocalSigningService:
    """A started service holding the key and certificates of ``pkcs12_path``."""
    key, certificate, others = pkcs12.load_key_and_certificates(
        pkcs12_path.read_bytes(), passphrase.encode()
    )
    der = [c.public_bytes(serialization.Encoding.DER) for c in [certificate, *(others or [])]]
    return LocalSigningService(
        credential_id=credential_id,
        pin=pin,
        access_token=secrets.token_urlsafe(16),
        key=key,
        certificates=der,
        scal=scal,
    ).start()
