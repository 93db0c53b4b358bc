"""Audit-log entries from signals: sign-ins, failed sign-ins, catalog edits; and clean text.

Connected in ``AdvisorConfig.ready()``. Brief events (issued, approved, downloaded, verified)
are written where they happen (advisor.brief.services and views); these are the events that
happen inside Django's auth and django-simple-history instead. ``clean_stored_text`` removes
NUL, control and bidirectional-control characters from every text our models store.
"""

from __future__ import annotations

from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.db import models
from django.db.models.signals import pre_save
from django.dispatch import receiver
from simple_history.signals import post_create_historical_record

from advisor.brief.audit import record
from advisor.brief.models import AuditAction
from advisor.text import clean_json, clean_text

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


# The apps whose models hold user, vendor and catalog text (simple-history's copies included).
CLEANED_APPS = frozenset(
    {
        "advisor",
        "assessments",
        "recommendation",
        "brief",
        "questionnaire",
        "vendors",
        "api",
        "webhooks",
    }
)
_TEXT_FIELDS: dict[type, tuple[list[str], list[str]]] = {}


def _text_fields(model) -> tuple[list[str], list[str]]:
    if model not in _TEXT_FIELDS:
        fields = model._meta.concrete_fields
        _TEXT_FIELDS[model] = (
            [f.attname for f in fields if isinstance(f, models.CharField | models.TextField)],
            [f.attname for f in fields if isinstance(f, models.JSONField)],
        )
    return _TEXT_FIELDS[model]


@receiver(pre_save, dispatch_uid="advisor.text.clean_stored_text")
def clean_stored_text(sender, instance, **kwargs):
    """Every text a model of ours stores, whoever wrote it (a form, admin, an import, an
    uploaded answer sheet, a fixture), without NUL, control or bidi-control characters
    (advisor.domain.text). ``QuerySet.update`` bypasses this: the code that uses it writes
    its own text."""
    if sender._meta.app_label not in CLEANED_APPS:
        return
    texts, documents = _text_fields(sender)
    for name in texts:
        value = getattr(instance, name)
        if isinstance(value, str):
            setattr(instance, name, clean_text(value))
    for name in documents:
        setattr(instance, name, clean_json(getattr(instance, name)))
