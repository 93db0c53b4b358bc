"""Issuing a brief end to end: snapshot, number, PDF, signature, approval, immutability."""

import json
import re
import subprocess

import pytest
from django.contrib.auth.models import User
from django.test import override_settings

from advisor.brief import services
from advisor.brief.models import AuditAction, AuditEvent, BriefStatus
from advisor.brief.verification import verify_upload
from tests.support.pdf import pdf_bytes, pdf_text
from tests.support.scenarios import QWEN_7B_LORA_COMPARED as SCENARIO
from vendors.models import Accelerator

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("brief_ready")]

# Both stages (marker `database`) for the tests of what the engine decides: numbers under a row
# lock, the frozen JSON snapshot, status changes and audit rows; the others (the PDF's language
# and cover, who may decide, choosing an option) run once.
database = pytest.mark.database
# Tests of what happens to a brief, not of what its pages say, render it as one page (0027).
one_page = pytest.mark.usefixtures("one_page_briefs")


@pytest.fixture
def buyer():
    return User.objects.create_user("buyer7", email="buyer7@example.cn")


@pytest.fixture
def approver():
    return User.objects.create_user("approver7")


def issue(buyer, language="en", **kwargs):
    return services.issue_brief(user=buyer, document=SCENARIO, language=language, **kwargs)


@database
def test_issue_freezes_a_numbered_snapshot_and_signs_a_draft(
    buyer, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        brief = issue(buyer)
    brief.refresh_from_db()
    assert brief.number.startswith("FT-") and len(brief.number) == len("FT-2026-000001")
    assert brief.status == BriefStatus.AWAITING_APPROVAL
    assert len(brief.snapshot["options"]) == 3  # chosen + two alternatives
    assert brief.snapshot["catalog"], "the appendix lists the catalog records used"
    assert brief.ruleset_version == brief.snapshot["ruleset_version"]
    verification = verify_upload(pdf_bytes(brief))
    assert verification.ok and verification.brief == brief
    assert AuditEvent.objects.filter(action=AuditAction.BRIEF_ISSUED, brief=brief).exists()


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", ["Procurement request attachment", "Draft — not approved", "Acceptance checklist"]),
        ("zh-hans", ["采购简报", "草稿", "验收"]),
    ],
)
def test_pdf_speaks_the_brief_language(shared_briefs, tmp_path, language, expected):
    brief = shared_briefs(language)  # the standard job's, as issue() makes it
    text = pdf_text(brief.pdf, tmp_path)
    for phrase in expected:
        assert phrase in text, phrase
    assert brief.number in text
    fonts = subprocess.run(
        ["pdffonts", str(tmp_path / "brief.pdf")], capture_output=True, text=True, check=True
    ).stdout.splitlines()[2:]
    assert fonts, "the PDF has fonts"
    for line in fonts:  # columns: name type encoding emb sub uni object ID
        assert line.split()[-5] == "yes", f"font not embedded: {line}"


@pytest.mark.parametrize(
    ("language", "label", "awaiting", "approved", "generating"),
    [
        ("en", "Status", "Awaiting approval", "Approved", "Being generated"),
        ("zh-hans", "状态", "待审批", "已批准", "正在生成"),
    ],
)
def test_cover_status_is_what_the_pdf_is_never_the_render_moment(
    buyer,
    approver,
    tmp_path,
    language,
    label,
    awaiting,
    approved,
    generating,
    django_capture_on_commit_callbacks,
):
    with django_capture_on_commit_callbacks(execute=True):
        brief = issue(buyer, language=language)
    brief.refresh_from_db()
    draft = pdf_text(brief.pdf, tmp_path)
    cover = draft.split("\f")[0]
    assert label in cover and awaiting in cover and generating not in draft
    services.approve(brief, approver, acknowledged=True)
    brief.refresh_from_db()
    final = pdf_text(brief.pdf, tmp_path).split("\f")[0]
    # "Approved" as the status, not the "Approved by" label beside it.
    assert re.search(rf"{approved}(?! by)", final)
    assert awaiting not in final and generating not in final


@database
def test_approval_removes_the_draft_mark_and_resigns(
    buyer, approver, tmp_path, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        brief = issue(buyer)
    brief.refresh_from_db()
    draft_hash = brief.sha256
    services.approve(brief, approver, acknowledged=True)
    brief.refresh_from_db()
    assert brief.status == BriefStatus.APPROVED and brief.approved_by == approver
    assert brief.sha256 != draft_hash and brief.draft_sha256 == draft_hash
    text = pdf_text(brief.pdf, tmp_path)
    assert "Draft — not approved" not in text
    assert "approver7" in text
    assert verify_upload(pdf_bytes(brief)).ok


@one_page
def test_preparer_cannot_approve_own_brief(buyer, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        brief = issue(buyer)
    brief.refresh_from_db()
    with pytest.raises(services.BriefError):
        services.approve(brief, buyer, acknowledged=True)


@one_page
def test_send_back_needs_a_comment(buyer, approver, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        brief = issue(buyer)
    brief.refresh_from_db()
    with pytest.raises(services.BriefError):
        services.send_back(brief, approver, "  ")
    services.send_back(brief, approver, "Add a second site")
    brief.refresh_from_db()
    assert brief.status == BriefStatus.SENT_BACK and brief.review_comment == "Add a second site"


@one_page
@database
def test_catalog_change_after_issue_leaves_the_brief_unchanged(
    buyer, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        brief = issue(buyer)
    brief.refresh_from_db()
    before = json.dumps(brief.snapshot, sort_keys=True)
    chosen_key = brief.snapshot["options"][0]["accelerator"]["key"]
    Accelerator.objects.filter(key=chosen_key).update(tdp_w=1, memory_gb=1)
    brief.refresh_from_db()
    assert json.dumps(brief.snapshot, sort_keys=True) == before
    # Re-rendering after the change (as approval does) still shows the frozen figures.
    assert brief.snapshot["options"][0]["accelerator"]["tdp_w"] != 1


@one_page
@database
def test_failed_generation_is_recorded_and_retryable(
    buyer, settings, django_capture_on_commit_callbacks
):
    good = settings.BRIEF_SIGNING
    settings.BRIEF_SIGNING = {**good, "PASSPHRASE": "wrong"}
    with django_capture_on_commit_callbacks(execute=True):
        brief = issue(buyer)
    brief.refresh_from_db()
    assert brief.status == BriefStatus.FAILED and brief.failure
    assert brief.snapshot["options"], "nothing the user chose is lost"
    settings.BRIEF_SIGNING = good
    with django_capture_on_commit_callbacks(execute=True):
        services.retry(brief, buyer)
    brief.refresh_from_db()
    assert brief.status == BriefStatus.AWAITING_APPROVAL and brief.pdf


@one_page
@override_settings(BRIEF_APPROVAL_REQUIRED=False)
def test_without_approval_the_brief_is_issued_directly(
    buyer, tmp_path, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        brief = issue(buyer)
    brief.refresh_from_db()
    assert brief.status == BriefStatus.ISSUED


@one_page
def test_choosing_an_option_by_key(buyer, django_capture_on_commit_callbacks):
    from advisor.recommendation.run import run_recommendation

    options = run_recommendation(SCENARIO).recommendation.options
    wanted = options[-1].key
    with django_capture_on_commit_callbacks(execute=True):
        brief = issue(buyer, option_key=wanted)
    assert brief.snapshot["options"][0]["key"] == wanted
    with pytest.raises(services.BriefError):
        issue(buyer, option_key="no-such-server@nowhere")


@one_page
def test_the_draft_of_an_approved_brief_is_recognised_as_superseded(
    buyer, approver, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        brief = issue(buyer)
    brief.refresh_from_db()
    draft = pdf_bytes(brief)
    services.approve(brief, approver, acknowledged=True)
    result = verify_upload(draft)
    assert result.report.intact_and_trusted
    assert result.brief is None and result.superseded_draft_of == brief
    assert not result.ok
