"""Clients of the HTTP API: a personal token of a user, sent as ``Authorization: Bearer``."""

from __future__ import annotations

import json
from urllib.parse import urlencode

from django.test import Client

from advisor.api import tokens


def api_client(user, scope: str = "write", days: int | None = 30) -> Client:
    """A test client that sends a new token of ``user`` with every request."""
    _token, text = tokens.create_token(user=user, name="tests", scope=scope, days=days)
    return token_client(text)


def token_client(text: str) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Bearer {text}", raise_request_exception=False)


def post_document(client: Client, url: str, document, **query):
    body = document if isinstance(document, (bytes, str)) else json.dumps(document)
    suffix = "?" + urlencode(query) if query else ""
    return client.post(url + suffix, body, content_type="application/json")
