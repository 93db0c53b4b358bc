import pytest
from django.contrib.auth.models import User

from advisor.brief.audit import record
from advisor.brief.models import AuditAction, AuditEvent, next_brief_number

# Both stages (marker `database`): the per-year sequence under a row lock.
pytestmark = [pytest.mark.django_db, pytest.mark.database]


def test_brief_numbers_are_sequential_per_year():
    assert [next_brief_number(2026) for _ in range(3)] == [
        "FT-2026-000001",
        "FT-2026-000002",
        "FT-2026-000003",
    ]
    assert next_brief_number(2027) == "FT-2027-000001"
    assert next_brief_number(2026) == "FT-2026-000004"


def test_audit_event_outlives_its_user():
    user = User.objects.create_user("leaver")
    record(AuditAction.SIGN_IN, actor=user)
    user.delete()
    event = AuditEvent.objects.get()
    assert event.actor is None
    assert event.actor_username == "leaver"


def test_anonymous_events_keep_the_attempted_name():
    from django.contrib.auth.models import AnonymousUser

    record(AuditAction.SIGN_IN_FAILED, actor=AnonymousUser(), username="mallory")
    event = AuditEvent.objects.get()
    assert event.actor is None and event.actor_username == "mallory"
    assert event.detail == {}
