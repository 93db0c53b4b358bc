"""A webhook receiver for tests: a small HTTP server in a thread of the test process that
checks each request's Standard Webhooks signature itself (its own code, not the sender's)."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import json
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def expected_signature(secret: str, message_id: str, timestamp: str, body: bytes) -> str:
    key = base64.b64decode(secret.split("_", 1)[1])
    signed = message_id.encode() + b"." + timestamp.encode() + b"." + body
    return "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()


@dataclass
class Received:
    headers: dict
    body: bytes
    verified: bool
    path: str = ""

    @property
    def event(self) -> dict:
        return json.loads(self.body)


@dataclass
class Receiver:
    secret: str
    # Answers in turn, then 204: a status, or (status, JSON body) as a chat robot answers.
    answers: list = field(default_factory=list)
    received: list[Received] = field(default_factory=list)
    url: str = ""

    def check(self, headers: dict, body: bytes) -> bool:
        try:
            stamp = headers["webhook-timestamp"]
            fresh = abs(time.time() - int(stamp)) <= 300
            wanted = expected_signature(self.secret, headers["webhook-id"], stamp, body)
        except (KeyError, ValueError):
            return False
        offered = headers.get("webhook-signature", "").split()
        return fresh and any(hmac.compare_digest(wanted, s) for s in offered)


def start(secret: str, answers=()) -> tuple[Receiver, ThreadingHTTPServer]:
    receiver = Receiver(secret, list(answers))

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            headers = {k.lower(): v for k, v in self.headers.items()}
            checked = receiver.check(headers, body)
            receiver.received.append(Received(headers, body, checked, self.path))
            answer = receiver.answers.pop(0) if receiver.answers else 204
            status, reply = answer if isinstance(answer, tuple) else (answer, None)
            data = json.dumps(reply).encode() if reply is not None else b""
            self.send_response(status)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.url = f"http://127.0.0.1:{server.server_port}/hooks"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return receiver, server


def closed_port_url() -> str:
    """A local address nothing listens on: a receiver that is down (connection refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/hooks"


@contextlib.contextmanager
def silent_url():
    """A local address that accepts connections (the kernel's backlog) and never answers: a
    receiver that holds its caller until the caller's read timeout."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/hooks"
