"""The brief as a 采购申请 attachment (issue 26 item 4): a two-page decision memo with the
sign-off table, the real rank of the option, checks that fit the mode, the approver's comment
in the approved PDF, and appendices that read as a document (no JSON in the text)."""

import re

import pytest
from django.contrib.auth.models import User

from advisor.brief import services
from advisor.brief.generation import meta
from advisor.brief.render import render_html
from advisor.recommendation.run import run_recommendation
from tests.support.pdf import pdf_text
from tests.support.scenarios import QWEN_7B_LORA_COMPARED as SCENARIO

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("brief_ready")]

MEMO = {
    "en": ["1. Decision", "Scope", "Budget and cost", "Why this option", "Main risks",
           "Open veto checks and vendor questions", "Sign-off", "Requester",
           "Head of department", "Finance", "Approver"],
    "zh-hans": ["一、决定", "采购范围", "预算与成本", "为何选择此方案", "主要风险", "未确认的否决项与供应商问题",
                "签批", "申请人", "部门负责人", "财务", "审批人"],
}  # fmt: skip
SERVER_ROOM = {
    "en": ["On-site staff around the clock", "Spare parts", "Full-load burn-in"],
    "zh-hans": ["7×24 小时驻场", "备品备件", "满载老化测试"],
}


@pytest.fixture
def buyer():
    return User.objects.create_user("buyer-m")


@pytest.fixture
def approver():
    return User.objects.create_user("approver-m")


def pages(brief, tmp_path, first=None, last=None) -> str:
    return pdf_text(brief.pdf, tmp_path, first=first, last=last, name=f"brief-{brief.pk}.pdf")


def one_line(text: str) -> str:
    return " ".join(text.split())


def issued(buyer, capture, option_key=None, language="en"):
    with capture(execute=True):
        brief = services.issue_brief(
            user=buyer, document=SCENARIO, option_key=option_key, language=language
        )
    brief.refresh_from_db()
    return brief


def options():
    return run_recommendation(SCENARIO).recommendation


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_pages_one_and_two_hold_the_memo_with_the_sign_off_table(shared_briefs, tmp_path, language):
    brief = shared_briefs(language)
    memo = one_line(pdf_text(brief.pdf, tmp_path, first=1, last=2))
    for phrase in MEMO[language]:
        assert phrase in memo, phrase
    # The figures of the memo are the chosen option's: its cash out is on page 1.
    assert brief.snapshot["memo"]["rank"] == 1
    if language == "zh-hans":  # a label ends with the Chinese colon, not ": "
        assert "推荐：" in memo and "推荐 :" not in memo and "推荐:" not in memo


def test_an_option_that_is_not_rank_one_says_so(
    buyer, tmp_path, django_capture_on_commit_callbacks
):
    ranked = options().rankings["recommended"]
    third = ranked[2]
    brief = issued(buyer, django_capture_on_commit_callbacks, option_key=third.key)
    memo = one_line(pages(brief, tmp_path, 1, 2))
    assert "Chosen by the buyer: rank 3 of" in memo
    assert "Recommended:" not in memo
    assert "Rank 1 is" in memo


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_cloud_brief_has_no_server_room_checks(
    buyer, tmp_path, language, django_capture_on_commit_callbacks
):
    cloud = next(o for o in options().rankings["recommended"] if o.is_cloud)
    brief = issued(buyer, django_capture_on_commit_callbacks, cloud.key, language)
    text = one_line(pages(brief, tmp_path))
    for phrase in SERVER_ROOM[language]:
        assert phrase not in text, phrase
    # The control: a bought server's brief has them (its text read from the HTML the PDF is
    # made from, without rendering and signing a second PDF).
    hosted = next(o for o in options().rankings["recommended"] if o.mode == "buy")
    bought = services.issue_brief(
        user=buyer, document=SCENARIO, option_key=hosted.key, language=language
    )
    html = render_html(bought.snapshot, meta(bought, approved=False))
    words = one_line(re.sub(r"<[^>]+>", " ", html))
    assert any(phrase in words for phrase in SERVER_ROOM[language])


def test_the_approved_pdf_prints_the_comment_and_the_acknowledgement(
    buyer, approver, tmp_path, django_capture_on_commit_callbacks
):
    brief = issued(buyer, django_capture_on_commit_callbacks)
    open_vetoes = brief.snapshot["memo"]["unknown_vetoes"]
    assert open_vetoes, "the standard job's rank 1 has veto checks awaiting the vendor"
    with pytest.raises(services.BriefError):
        services.approve(brief, approver, comment="Go ahead.")  # not acknowledged
    services.approve(brief, approver, comment="Go ahead, budget line 2027-04.", acknowledged=True)
    brief.refresh_from_db()
    memo = one_line(pages(brief, tmp_path, 1, 2))
    assert "Approved in the advisor: Go ahead, budget line 2027-04." in memo
    assert "The approver acknowledged the open veto checks listed above." in memo


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_no_json_or_key_dumps_in_the_text(shared_briefs, tmp_path, language):
    text = pdf_text(shared_briefs(language).pdf, tmp_path)
    assert not re.search(r'[{\[]\s*"', text), "JSON in the text"
    assert not re.search(r'"[a-z_]+":', text), "a JSON key in the text"
    assert not re.search(r"\b[a-z]+_[a-z_]+: ", text), "a field_name: dump in the text"
    assert "'value'" not in text and "None" not in text.split()
