"""Creating, finding and revoking personal API tokens (the only code that writes them)."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from advisor.api.models import ApiToken, Scope
from advisor.brief import audit
from advisor.brief.models import AuditAction

PREFIX_LENGTH = 8
MAX_DAYS = 366
# Active (not revoked, not expired) tokens a user may hold: limits count per user as well as
# per token (advisor.api.auth), and a cap keeps the tokens page and the audit trail readable
# (docs/decisions/0122-fair-verification.md).
MAX_ACTIVE_TOKENS = 10
# What a token looks like (a secret scanner can find one in a leaked file by it).
TOKEN_START = "fta_"


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _new_prefix() -> str:
    while True:
        prefix = secrets.token_hex(PREFIX_LENGTH // 2)
        if not ApiToken.objects.filter(prefix=prefix).exists():
            return prefix


class TooManyTokens(ValueError):
    """The user already holds ``MAX_ACTIVE_TOKENS`` active tokens."""


def active_tokens(user):
    now = timezone.now()
    return ApiToken.objects.filter(user=user, revoked_at__isnull=True).exclude(expires_at__lte=now)


def create_token(*, user, name: str, scope: str, days: int | None) -> tuple[ApiToken, str]:
    """A new token of ``user`` and its text, which is never stored (show it once);
    :class:`TooManyTokens` when they hold ``MAX_ACTIVE_TOKENS`` already."""
    if scope not in Scope.values:
        raise ValueError(f"scope: must be one of {', '.join(Scope.values)}")
    if days is not None and not 1 <= days <= MAX_DAYS:
        raise ValueError(f"days: must be between 1 and {MAX_DAYS}")
    prefix = _new_prefix()
    text = f"{TOKEN_START}{prefix}_{secrets.token_urlsafe(32)}"
    expires = timezone.now() + timedelta(days=days) if days else None
    with transaction.atomic():
        # One creation at a time per user, so two at once cannot both pass the cap.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        if active_tokens(user).count() >= MAX_ACTIVE_TOKENS:
            raise TooManyTokens(
                f"tokens: at most {MAX_ACTIVE_TOKENS} active tokens per user; revoke one first"
            )
        token = ApiToken.objects.create(
            user=user,
            name=name.strip()[:80] or prefix,
            prefix=prefix,
            digest=digest(text),
            scope=scope,
            expires_at=expires,
        )
        audit.record(
            AuditAction.API_TOKEN_CREATED,
            actor=user,
            token=prefix,
            scope=scope,
            expires=expires.isoformat() if expires else None,
        )
    return token, text


def token_for(text: str) -> ApiToken | None:
    """The active token whose text this is (its owner active too); None otherwise."""
    if not text.startswith(TOKEN_START) or len(text) > 100:
        return None
    token = ApiToken.objects.select_related("user").filter(digest=digest(text)).first()
    if token is None or not token.active or not token.user.is_active:
        return None
    return token


def mark_used(token: ApiToken) -> None:
    """Remember when a token was last used (at most once a minute per token: no write per
    request)."""
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > timedelta(minutes=1):
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)


def tokens_of(user):
    return ApiToken.objects.filter(user=user)


def revoke_token(*, user, pk) -> ApiToken | None:
    """Revoke ``user``'s token ``pk`` (another user's, or none: None); idempotent."""
    token = ApiToken.objects.filter(user=user, pk=pk).first()
    if token is None:
        return None
    if token.revoked_at is None:
        with transaction.atomic():
            token.revoked_at = timezone.now()
            token.save(update_fields=["revoked_at"])
            audit.record(AuditAction.API_TOKEN_REVOKED, actor=user, token=token.prefix)
    return token
