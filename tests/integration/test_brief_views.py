"""Brief pages: issue from an option, status, download, retry, approvals, access."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from advisor.brief.models import AuditAction, AuditEvent, Brief, BriefStatus
from advisor.recommendation.services import assessment_results
from advisor.roles import APPROVER, PROCUREMENT_STAFF
from tests.support.assessments import finished_assessment
from tests.support.users import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("brief_ready", "one_page_briefs")]


@pytest.fixture
def buyer():
    return make_user("buyer", PROCUREMENT_STAFF, password="pw")


@pytest.fixture
def approver():
    user = make_user("boss", APPROVER, password="pw")
    return user


@pytest.fixture
def issued(client, buyer, django_capture_on_commit_callbacks):
    assessment = finished_assessment(buyer)
    option = assessment_results(assessment).recommendation.rankings["recommended"][0]
    client.force_login(buyer)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("brief:issue"),
            {"assessment": assessment.pk, "option": option.key, "language": "en"},
        )
    brief = Brief.objects.get()
    assert response["Location"] == reverse("brief:detail", args=(brief.pk,))
    return brief


def test_issue_from_an_option_generates_a_signed_pdf(client, issued):
    issued.refresh_from_db()
    assert issued.status == BriefStatus.AWAITING_APPROVAL
    page = client.get(reverse("brief:detail", args=(issued.pk,)), HTTP_ACCEPT_LANGUAGE="en")
    assert "Download the signed PDF" in page.content.decode()
    download = client.get(reverse("brief:download", args=(issued.pk,)))
    assert download["Content-Type"] == "application/pdf"
    assert b"".join(download.streaming_content).startswith(b"%PDF-")
    assert AuditEvent.objects.filter(action=AuditAction.BRIEF_DOWNLOADED).count() == 1


def test_status_partial_for_htmx_polling(client, issued):
    response = client.get(reverse("brief:detail", args=(issued.pk,)), HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert 'id="brief-status"' in html and "<html" not in html


def test_generating_brief_polls(client, buyer, issued):
    Brief.objects.filter(pk=issued.pk).update(status=BriefStatus.GENERATING)
    html = client.get(reverse("brief:detail", args=(issued.pk,))).content.decode()
    assert 'hx-trigger="every 1s"' in html


def test_other_users_cannot_see_or_download(client, issued):
    client.force_login(make_user("stranger", PROCUREMENT_STAFF))
    for name in ("brief:detail", "brief:download"):
        assert client.get(reverse(name, args=(issued.pk,))).status_code == 404


def test_approver_queue_and_approval(client, issued, approver):
    client.force_login(approver)
    queue = client.get(reverse("brief:approvals"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert issued.number in queue
    response = client.post(
        reverse("brief:review", args=(issued.pk,)),
        {"decision": "approve", "acknowledge_vetoes": "on"},
    )
    assert response.status_code == 302
    issued.refresh_from_db()
    assert issued.status == BriefStatus.APPROVED and issued.approved_by == approver


def test_send_back_requires_a_comment(client, issued, approver):
    client.force_login(approver)
    url = reverse("brief:review", args=(issued.pk,))
    response = client.post(url, {"decision": "send_back"}, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 400
    assert "Say what needs to change" in response.content.decode()
    client.post(url, {"decision": "send_back", "comment": "Compare a second site"})
    issued.refresh_from_db()
    assert issued.status == BriefStatus.SENT_BACK


def test_buyer_cannot_open_the_approval_queue_or_review(client, buyer, issued):
    client.force_login(buyer)
    assert client.get(reverse("brief:approvals")).status_code == 403
    response = client.post(
        reverse("brief:review", args=(issued.pk,)),
        {"decision": "approve", "acknowledge_vetoes": "on"},
    )
    assert response.status_code == 403


def test_failed_generation_can_be_retried_from_the_page(
    client, buyer, issued, settings, django_capture_on_commit_callbacks
):
    Brief.objects.filter(pk=issued.pk).update(status=BriefStatus.FAILED, failure="boom")
    client.force_login(buyer)
    page = client.get(reverse("brief:detail", args=(issued.pk,)), HTTP_ACCEPT_LANGUAGE="en")
    assert "Try again" in page.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("brief:retry", args=(issued.pk,)))
    issued.refresh_from_db()
    assert issued.status == BriefStatus.AWAITING_APPROVAL


def test_issue_with_a_vanished_option_explains(client, buyer):
    assessment = finished_assessment(buyer)
    client.force_login(buyer)
    response = client.post(
        reverse("brief:issue"),
        {"assessment": assessment.pk, "option": "gone@nowhere", "language": "en"},
        HTTP_ACCEPT_LANGUAGE="en",
        follow=True,
    )
    assert "no longer among the results" in response.content.decode()
    assert not Brief.objects.exists()


def waiting_briefs(issued, count: int) -> list[Brief]:
    """``count`` briefs waiting for a worker, issued one after another (copies of ``issued``)."""
    Brief.objects.filter(pk=issued.pk).update(status=BriefStatus.GENERATING, lease_until=None)
    briefs = [Brief.objects.get(pk=issued.pk)]
    for number in range(2, count + 1):
        copy = Brief.objects.get(pk=issued.pk)
        copy.pk = None
        copy.number = f"{issued.number}-{number}"
        copy.save()
        briefs.append(copy)
    return briefs


def position_line(client, brief, language="en") -> str:
    html = client.get(
        reverse("brief:detail", args=(brief.pk,)),
        HTTP_HX_REQUEST="true",
        HTTP_ACCEPT_LANGUAGE=language,
    ).content.decode()
    start = html.index('id="queue-position">') + len('id="queue-position">')
    return html[start : html.index("</p>", start)]


def test_the_queue_position_is_shown_while_a_brief_waits(client, issued):
    first, second, third = waiting_briefs(issued, 3)
    assert position_line(client, first) == "It is next in the queue."
    assert position_line(client, third) == "2 briefs are ahead of it in the queue."
    # A worker takes the first: it is being made, and the others move up.
    Brief.objects.filter(pk=first.pk).update(lease_until=timezone.now() + timedelta(seconds=60))
    assert position_line(client, first) == "A brief worker is making and signing it now."
    assert position_line(client, second) == "It is next in the queue."
    assert position_line(client, third) == "1 brief is ahead of it in the queue."
    assert position_line(client, third, "zh-hans") == "队列中排在它前面的还有 1 份简报。"


# --- The approver's view and the brief's lifecycle (issue 26 item 5) ----------------------------


def test_an_approver_lands_on_the_queue_which_shows_the_decision(client, issued, approver):
    client.force_login(approver)
    home = client.get(reverse("home"))
    assert home.status_code == 302 and home["Location"] == reverse("brief:approvals")
    queue = client.get(reverse("brief:approvals"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    chosen = issued.snapshot["options"][0]
    cost = issued.snapshot["memo"]["cost"]
    assert issued.snapshot["scenario"]["model"]["name"] in queue
    assert chosen["accelerator"]["name"] in queue
    assert f"{round(float(cost['cash_out_cny'])):,}" in queue
    assert f"verdict-{chosen['compliance']['verdict']}" in queue
    if issued.snapshot["memo"]["unknown_vetoes"]:
        assert "veto" in queue


def test_the_brief_page_opens_with_its_decision(client, buyer, issued):
    client.force_login(buyer)
    html = client.get(reverse("brief:detail", args=(issued.pk,)), HTTP_ACCEPT_LANGUAGE="en")
    html = html.content.decode()
    assert 'id="brief-summary"' in html and "Decision in this brief" in html
    assert 'id="superseded"' not in html


def test_a_brief_whose_option_changed_verdict_is_superseded(client, buyer, approver, issued):
    """The catalog changes after issue (the cloud offer turns out to run outside mainland
    China); once the buyer recomputes, the brief's page and the queue say to re-issue it."""
    from vendors.models import Offer

    chosen = issued.snapshot["options"][0]
    assert chosen["mode"] == "cloud", "the standard job's rank 1 is a cloud instance"
    offer_key = chosen["key"].split("@cloud:")[1]
    assert Offer.objects.filter(key=offer_key).update(region_in_mainland_china=False) == 1
    client.force_login(buyer)
    client.post(reverse("results:recompute", args=(issued.assessment_id,)))
    page = client.get(reverse("brief:detail", args=(issued.pk,)), HTTP_ACCEPT_LANGUAGE="en")
    assert 'id="superseded"' in page.content.decode()
    client.force_login(approver)
    queue = client.get(reverse("brief:approvals"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Superseded — re-issue" in queue


def test_a_superseded_brief_is_verified_as_superseded(client, buyer, approver, issued):
    """Signature intact and on record, but the verify page and ``POST /api/verify`` both say the
    brief no longer holds: since when (the result that supersedes it) and why (its verdict
    then and now)."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.support.api import api_client
    from vendors.models import Offer

    client.force_login(buyer)
    pdf = b"".join(client.get(reverse("brief:download", args=(issued.pk,))).streaming_content)

    def upload():
        return SimpleUploadedFile("brief.pdf", pdf, content_type="application/pdf")

    page = client.post(reverse("brief:verify"), {"pdf": upload()}, HTTP_ACCEPT_LANGUAGE="en")
    first = " ".join(page.content.decode().split())
    assert "Signature intact, document unchanged, on record </h2>" in first, first[-4000:]
    assert 'id="superseded"' not in page.content.decode()
    api = api_client(buyer)
    assert api.post("/api/verify", {"pdf": upload()}).json()["superseded"] is None

    offer_key = issued.snapshot["options"][0]["key"].split("@cloud:")[1]
    Offer.objects.filter(key=offer_key).update(region_in_mainland_china=False)
    client.post(reverse("results:recompute", args=(issued.assessment_id,)))
    since = timezone.localtime(issued.assessment.recommendations.get().computed_at)

    html = client.post(reverse("brief:verify"), {"pdf": upload()}, HTTP_ACCEPT_LANGUAGE="en")
    html = " ".join(html.content.decode().split())
    assert "on record, but superseded: it no longer holds" in html
    assert f"Superseded since {since:%Y-%m-%d %H:%M}:" in html
    assert "when issued and is now “not eligible”" in html, html[html.index("superseded:") :][:1500]
    chinese = client.post(
        reverse("brief:verify"), {"pdf": upload()}, HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert f"{since:%Y-%m-%d %H:%M} 起已过时：" in chinese.content.decode()

    answer = api.post("/api/verify", {"pdf": upload()}).json()
    assert answer["ok"] and answer["brief"] == issued.number
    superseded = answer["superseded"]
    assert superseded["verdict_now"] == "not-eligible"
    assert superseded["verdict_when_issued"] != "not-eligible"
    assert superseded["since"].startswith(since.astimezone(timezone.UTC).strftime("%Y-%m-%d"))
