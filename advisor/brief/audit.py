"""Writing the audit trail (one function, used by views, services and signal handlers)."""

from advisor.brief.models import AuditEvent


def record(action: str, *, actor=None, brief=None, **detail) -> AuditEvent:
    user = actor if getattr(actor, "is_authenticated", False) else None
    return AuditEvent.objects.create(
        action=action,
        actor=user,
        actor_username=user.get_username() if user else detail.pop("username", ""),
        brief=brief,
        brief_number=brief.number if brief else "",
        detail=detail,
    )
