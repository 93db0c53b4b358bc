"""One decision per brief: two approvers deciding the same brief, in either order.

The finding: approver A approves while approver B sends the same brief back; both were told
they succeeded, the brief ended approved with B's comment erased, and a double approval left
two signed "approved" PDFs. Each approver here holds the brief as loaded before the other
decided (what each review page had), so the second decision must be refused with "already
decided", change nothing and sign or store no file.
"""

import threading
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.urls import reverse
from django.utils import translation

from advisor.brief import generation, services
from advisor.brief.models import AuditAction, AuditEvent, Brief, BriefStatus
from advisor.roles import APPROVER
from tests.support.scenarios import QWEN_7B_LORA_COMPARED as SCENARIO
from tests.support.users import make_user

# Both stages (marker `database`): the decision lock is a row lock on PostgreSQL.
pytestmark = [
    pytest.mark.django_db,
    pytest.mark.database,
    pytest.mark.usefixtures("brief_ready", "one_page_briefs"),
]


@pytest.fixture
def buyer():
    return User.objects.create_user("buyer-race")


@pytest.fixture
def approvers():
    return make_user("approver-a", APPROVER), make_user("approver-b", APPROVER)


@pytest.fixture
def awaiting(buyer, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        brief = services.issue_brief(user=buyer, document=SCENARIO, language="en")
    brief.refresh_from_db()
    assert brief.status == BriefStatus.AWAITING_APPROVAL
    return brief


def stored_files(settings) -> list[Path]:
    return sorted(p for p in Path(settings.MEDIA_ROOT).rglob("*.pdf"))


def decide(kind, brief, user):
    if kind == "approve":
        return services.approve(brief, user, acknowledged=True)
    return services.send_back(brief, user, f"Comment from {user.username}")


DECISIONS = [
    # (first, second, status at the end)
    ("approve", "send_back", BriefStatus.APPROVED),
    ("send_back", "approve", BriefStatus.SENT_BACK),
    ("approve", "approve", BriefStatus.APPROVED),
    ("send_back", "send_back", BriefStatus.SENT_BACK),
]


@pytest.mark.parametrize(("first", "second", "final"), DECISIONS)
def test_the_second_decision_on_a_stale_page_is_refused(
    awaiting, approvers, settings, first, second, final
):
    a, b = approvers
    seen_by_a = Brief.objects.get(pk=awaiting.pk)
    seen_by_b = Brief.objects.get(pk=awaiting.pk)
    decide(first, seen_by_a, a)
    files = stored_files(settings)
    with (
        translation.override("en"),
        pytest.raises(services.AlreadyDecided, match="already been decided"),
    ):
        decide(second, seen_by_b, b)
    brief = Brief.objects.get(pk=awaiting.pk)
    assert brief.status == final
    assert brief.approved_by == (a if final == BriefStatus.APPROVED else None)
    expected_comment = "Comment from approver-a" if final == BriefStatus.SENT_BACK else ""
    assert brief.review_comment == expected_comment
    assert stored_files(settings) == files, "no file is stored for the losing decision"
    decisions = AuditEvent.objects.filter(
        brief=brief, action__in=[AuditAction.BRIEF_APPROVED, AuditAction.BRIEF_SENT_BACK]
    )
    assert [event.actor for event in decisions] == [a]


@pytest.mark.parametrize("second", ["approve", "send_back"])
def test_a_decision_made_while_the_approval_renders_wins_over_it(
    awaiting, approvers, settings, monkeypatch, second
):
    """The conditional update: another decision lands between the status check and the save.

    On SQLite there is no row lock, so this is the guard that holds: the approval that
    rendered in the meantime finds the brief no longer awaiting approval and stores nothing.
    """
    a, b = approvers
    files = stored_files(settings)
    original = generation.signed_pdf

    def other_decides_meanwhile(brief, *, approved, countersign=None):
        result = original(brief, approved=approved, countersign=countersign)
        status = BriefStatus.SENT_BACK if second == "send_back" else BriefStatus.APPROVED
        Brief.objects.filter(pk=brief.pk).update(status=status, approved_by=b)
        return result

    monkeypatch.setattr(generation, "signed_pdf", other_decides_meanwhile)
    with pytest.raises(services.AlreadyDecided):
        services.approve(Brief.objects.get(pk=awaiting.pk), a, acknowledged=True)
    assert stored_files(settings) == files
    assert not AuditEvent.objects.filter(action=AuditAction.BRIEF_APPROVED).exists()


def test_the_losing_approver_is_told_on_the_page(client, awaiting, approvers, settings):
    a, b = approvers
    stale = Brief.objects.get(pk=awaiting.pk)
    services.send_back(stale, b, "Compare a second site")
    client.force_login(a)
    response = client.post(
        reverse("brief:review", args=(awaiting.pk,)),
        {"decision": "approve", "acknowledge_vetoes": "on"},
        HTTP_ACCEPT_LANGUAGE="en",
        follow=True,
    )
    text = response.content.decode()
    assert "already been decided by someone else" in text
    assert f"Brief {awaiting.number} approved" not in text
    brief = Brief.objects.get(pk=awaiting.pk)
    assert brief.status == BriefStatus.SENT_BACK
    assert brief.review_comment == "Compare a second site"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_approve_and_send_back_on_postgresql(awaiting, approvers, settings):
    """Two threads, two connections: the row lock makes the second wait, then refuse."""
    a, b = approvers
    start = threading.Barrier(2)
    outcomes: dict[str, str] = {}

    def run(kind, user):
        try:
            brief = Brief.objects.get(pk=awaiting.pk)
            start.wait()
            decide(kind, brief, user)
            outcomes[kind] = "won"
        except services.AlreadyDecided:
            outcomes[kind] = "refused"
        finally:
            connection.close()

    threads = [
        threading.Thread(target=run, args=("approve", a)),
        threading.Thread(target=run, args=("send_back", b)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes.values()) == ["refused", "won"]
    brief = Brief.objects.get(pk=awaiting.pk)
    winner = next(kind for kind, outcome in outcomes.items() if outcome == "won")
    assert brief.status == (BriefStatus.APPROVED if winner == "approve" else BriefStatus.SENT_BACK)
    decisions = AuditEvent.objects.filter(
        brief=brief, action__in=[AuditAction.BRIEF_APPROVED, AuditAction.BRIEF_SENT_BACK]
    )
    assert decisions.count() == 1
    approved_files = [p for p in stored_files(settings) if p.name.endswith("-approved.pdf")]
    assert len(approved_files) == (1 if winner == "approve" else 0)
