"""Who is asking: a personal API token (``Authorization: Bearer fta_…``), rate limited per
token; the schema and docs pages also take the session of a signed-in user."""

from __future__ import annotations

from functools import wraps

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.utils.translation import gettext_noop
from django_ratelimit.core import is_ratelimited
from ninja.errors import HttpError
from ninja.openapi.views import openapi_json
from ninja.security import HttpBearer

from advisor.api import tokens

READ_SCOPE = gettext_noop("read scope; this request needs a write token")


class RateLimited(Exception):
    """The token made more requests than ``API_RATE_LIMIT`` allows."""


def _token_key(group, request) -> str:
    return request.auth_token.prefix


def _user_key(group, request) -> str:
    return str(request.auth_token.user_id)


def _limited(request) -> bool:
    """Over ``API_RATE_LIMIT`` for this token, or for its owner over all their tokens (a user
    with many tokens gets no more than one token's allowance)."""
    if not settings.API_RATE_LIMIT:
        return False
    by_token = is_ratelimited(
        request, group="api-token", key=_token_key, rate=settings.API_RATE_LIMIT, increment=True
    )
    by_user = is_ratelimited(
        request, group="api-user", key=_user_key, rate=settings.API_RATE_LIMIT, increment=True
    )
    return by_token or by_user


class TokenAuth(HttpBearer):
    """A valid token makes its owner the request's user; anything else is a 401."""

    def authenticate(self, request, token):
        found = tokens.token_for(token)
        if found is None:
            return None
        request.auth_token = found
        if _limited(request):
            raise RateLimited
        request.user = found.user
        tokens.mark_used(found)
        return found


def require_write(request) -> None:
    """A read-only token may not change anything (403)."""
    if not request.auth.can_write:
        raise HttpError(403, "token: " + READ_SCOPE)


def require_permission(request, permission: str, words: str) -> None:
    """The role check the pages make (403), before any object is looked up."""
    if not request.user.has_perm(permission):
        raise HttpError(403, words)


def signed_in_or_token(view):
    """The interactive docs: a signed-in user's session, or a valid token. The schema itself is
    public (a client generator reads it without a token; it holds no data)."""
    if getattr(view, "func", None) is openapi_json:
        return view

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_authenticated:
            header = request.headers.get("Authorization", "")
            scheme, _space, text = header.partition(" ")
            found = tokens.token_for(text.strip()) if scheme.lower() == "bearer" else None
            if found is None:
                return redirect_to_login(request.get_full_path())
        return view(request, *args, **kwargs)

    return wrapper
