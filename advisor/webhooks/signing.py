"""Standard Webhooks signatures: ``v1,<base64 HMAC-SHA256 of "id.timestamp.body">``."""

from __future__ import annotations

import base64
import hashlib
import hmac

SECRET_PREFIX = "whsec_"
# A receiver refuses a timestamp further than this from its clock (replay protection).
TOLERANCE_S = 5 * 60


class InvalidSignature(ValueError):
    pass


def _key(secret: str) -> bytes:
    return base64.b64decode(secret.removeprefix(SECRET_PREFIX))


def sign(secret: str, message_id: str, timestamp: int, body: str) -> str:
    signed = f"{message_id}.{timestamp}.{body}".encode()
    digest = hmac.new(_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def headers(secret: str, message_id: str, timestamp: int, body: str) -> dict[str, str]:
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": sign(secret, message_id, timestamp, body),
        "content-type": "application/json",
    }


def verify(secret: str, received: dict[str, str], body: str, now: int) -> None:
    """What a receiver does: raises :class:`InvalidSignature` unless one of the signatures in
    ``webhook-signature`` (space-separated) matches and the timestamp is recent."""
    try:
        message_id = received["webhook-id"]
        timestamp = int(received["webhook-timestamp"])
        offered = received["webhook-signature"].split()
    except (KeyError, ValueError) as error:
        raise InvalidSignature("missing or malformed webhook headers") from error
    if abs(now - timestamp) > TOLERANCE_S:
        raise InvalidSignature("timestamp outside the tolerance")
    expected = sign(secret, message_id, timestamp, body)
    if not any(hmac.compare_digest(expected, candidate) for candidate in offered):
        raise InvalidSignature("no signature matches")
