"""Audit-log entries from signals: sign-ins, failed sign-ins, catalog edits.

Connected in ``AdvisorConfig.ready()``. Brief events (issued, approved, downloaded, verified)
are written where they happen (advisor.brief.services and views); these are the events that
happen inside Django's auth and django-simple-history instead.
"""

from __future__ import annotations

from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.dispatch import receiver
from simple_history.signals import post_create_historical_record

from advisor.brief.audit import record
from advisor.brief.models import AuditAction

CHANGE_TYPES = {"+": "created", "~": "changed", "-": "deleted"}


def _where(request) -> dict:
    if request is None:
        return {}
    address = getattr(request, "axes_ip_address", None) or request.META.get("REMOTE_ADDR", "")
    return {"ip": address, "path": request.path}


@receiver(user_logged_in, dispatch_uid="advisor.audit.sign_in")
def sign_in(sender, request, user, **kwargs):
    record(AuditAction.SIGN_IN, actor=user, **_where(request))


@receiver(user_login_failed, dispatch_uid="advisor.audit.sign_in_failed")
def sign_in_failed(sender, credentials, request=None, **kwargs):
    """Django has already masked the password in ``credentials``; only the name is kept."""
    username = str(credentials.get("username") or "")[:150]
    detail = _where(request)
    if request is not None and getattr(request, "axes_locked_out", False):
        detail["locked_out"] = True
    record(AuditAction.SIGN_IN_FAILED, username=username, **detail)


@receiver(post_create_historical_record, dispatch_uid="advisor.audit.catalog_edited")
def catalog_edited(sender, instance, history_instance, history_user=None, **kwargs):
    """A catalog row or rule parameter changed by a signed-in user (admin form or import).

    Loads from the command line (``load_catalog``) have no user: their history rows say what
    changed; the audit log is about who did.
    """
    if history_user is None or not getattr(history_user, "is_authenticated", False):
        return
    record(
        AuditAction.CATALOG_EDITED,
        actor=history_user,
        model=instance._meta.label_lower,
        object_id=str(instance.pk),
        object=str(instance)[:200],
        change=CHANGE_TYPES.get(history_instance.history_type, history_instance.history_type),
    )
