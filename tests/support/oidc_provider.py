"""A small OpenID Connect provider in a thread of the test process: discovery, token, user
info and keys, signing ID tokens with a key of its own (RS256). A test plays the person's
browser: it reads the authorization request the site redirects to, then comes back to the
site's callback with a code the provider will exchange for that person's claims."""

from __future__ import annotations

import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

CLIENT_ID, CLIENT_SECRET = "advisor-tests", "client-secret-for-tests"


@dataclass
class Provider:
    issuer: str = ""
    key: rsa.RSAPrivateKey = field(
        default_factory=lambda: rsa.generate_private_key(public_exponent=65537, key_size=2048)
    )
    codes: dict[str, dict] = field(default_factory=dict)  # code -> claims
    tokens: dict[str, dict] = field(default_factory=dict)  # access token -> claims
    token_requests: list[dict] = field(default_factory=list)

    def code_for(self, nonce: str | None = None, **claims) -> str:
        """A code the provider issues after the person signed in there, with their claims; the
        ID token it is exchanged for carries ``nonce``, the authorization request's (OpenID
        Connect Core 3.1.2.1), unless it is None."""
        code = secrets.token_urlsafe(16)
        self.codes[code] = {"claims": claims, "nonce": nonce}
        return code

    def discovery(self) -> dict:
        return {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token",
            "userinfo_endpoint": f"{self.issuer}/userinfo",
            "jwks_uri": f"{self.issuer}/jwks",
            "token_endpoint_auth_methods_supported": ["client_secret_post"],
            "id_token_signing_alg_values_supported": ["RS256"],
        }

    def jwks(self) -> dict:
        key = json.loads(RSAAlgorithm.to_jwk(self.key.public_key()))
        return {"keys": [{**key, "kid": "test", "use": "sig", "alg": "RS256"}]}

    def token(self, form: dict) -> tuple[int, dict]:
        self.token_requests.append(form)
        issued = self.codes.pop(form.get("code", ""), None)
        if issued is None or form.get("client_secret") != CLIENT_SECRET:
            return 400, {"error": "invalid_grant"}
        claims = issued["claims"]
        nonce = {} if issued["nonce"] is None else {"nonce": issued["nonce"]}
        now = int(time.time())
        id_token = jwt.encode(
            {"iss": self.issuer, "aud": CLIENT_ID, "iat": now, "exp": now + 300, **claims, **nonce},
            self.key,
            algorithm="RS256",
            headers={"kid": "test"},
        )
        access = secrets.token_urlsafe(16)
        self.tokens[access] = claims
        return 200, {"access_token": access, "token_type": "Bearer", "id_token": id_token}


def start() -> tuple[Provider, ThreadingHTTPServer]:
    provider = Provider()

    class Handler(BaseHTTPRequestHandler):
        def answer(self, status: int, body: dict):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path == "/.well-known/openid-configuration":
                return self.answer(200, provider.discovery())
            if self.path == "/jwks":
                return self.answer(200, provider.jwks())
            if self.path == "/userinfo":
                access = self.headers.get("Authorization", "").removeprefix("Bearer ")
                claims = provider.tokens.get(access)
                return self.answer(200, claims) if claims else self.answer(401, {})
            return self.answer(404, {})

        def do_POST(self):
            length = int(self.headers.get("Content-Length", 0))
            form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
            if self.path == "/token":
                return self.answer(*provider.token(form))
            return self.answer(404, {})

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    provider.issuer = f"http://127.0.0.1:{server.server_port}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return provider, server
