"""The brief's annexes are audit-grade (issue 51 item 9): the budget and deadline as entered,
records named (never a row id), no field names, no table twice and no section of "not
recorded" only, and the memo within its two pages; in both languages."""

import re
import shutil
import subprocess
from datetime import timedelta

import pytest
from django.utils import timezone, translation

from advisor.assessments.answers import assessment_document
from advisor.brief.generation import meta
from advisor.brief.render import catalog_rows, render_html, render_pdf
from advisor.brief.services import issue_brief
from advisor.demo_scenarios import PROCUREMENT, TRAINING
from advisor.recommendation.services import assessment_results
from advisor.roles import PROCUREMENT_STAFF
from tests.support.assessments import finished_assessment
from tests.support.users import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("brief_ready")]

WORDS = {
    "en": {
        "budget": "¥1,000,000",
        "workload": "2. Workload and assumptions",
        "sign_off": "Sign-off",
        "residency": "Data residency in mainland China",
        "kinds": ("Accelerator", "Server model", "Data center", "Offer", "Policy zone"),
    },
    "zh-hans": {
        "budget": "1,000,000 元",
        "workload": "2. 训练任务与假设",
        "sign_off": "签批",
        "residency": "数据境内存储",
        "kinds": ("加速卡", "服务器型号", "数据中心", "报价", "政策区域"),
    },
}


@pytest.fixture
def job():
    from tests.support.catalog import load_catalog

    load_catalog()
    buyer = make_user("buyer", PROCUREMENT_STAFF, password="pw")
    deadline = (timezone.localdate() + timedelta(days=30)).isoformat()
    assessment = finished_assessment(
        buyer,
        training={**TRAINING, "deadline": deadline},
        procurement={**PROCUREMENT, "budget_cny": 1000000},
    )
    return buyer, assessment, deadline


def brief_for(buyer, assessment, option, language, capture):
    with capture(execute=True):
        brief = issue_brief(
            user=buyer,
            document=assessment_document(assessment),
            assessment=assessment,
            option_key=option.key,
            language=language,
        )
    brief.refresh_from_db()
    return brief


def text_of(pdf: bytes, tmp_path, first=None, last=None) -> str:
    assert shutil.which("pdftotext"), "poppler-utils is missing: scripts/setup --test installs it"
    path = tmp_path / "brief.pdf"
    path.write_bytes(pdf)
    window = [*(["-f", str(first)] if first else []), *(["-l", str(last)] if last else [])]
    done = subprocess.run(
        ["pdftotext", *window, str(path), "-"], capture_output=True, text=True, check=True
    )
    return " ".join(done.stdout.split())


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_annexes_read_as_entered_and_name_records(
    job, tmp_path, language, django_capture_on_commit_callbacks
):
    buyer, assessment, deadline = job
    words = WORDS[language]
    options = assessment_results(assessment).recommendation.options
    cloud = next(o for o in options if o.is_cloud)
    brief = brief_for(buyer, assessment, cloud, language, django_capture_on_commit_callbacks)
    pdf = render_pdf(brief.snapshot, meta(brief, approved=False))
    html = render_html(brief.snapshot, meta(brief, approved=False))
    appendix = html[html.index('id="appendix"') : html.index('id="annex"')]
    text = " ".join(re.sub(r"<[^>]+>", " ", appendix).split())
    # Appendix A: the budget and the deadline as the buyer entered them.
    assert words["budget"] in text and "1000000" not in text
    assert "hours from the assessment" not in text and "自评估日起" not in text
    year, month, day = (int(part) for part in deadline.split("-"))
    entered = f"{year}年{month}月{day}日" if language == "zh-hans" else str(year)
    assert entered in text
    # Appendix B: records are named, never by row id; no field names.
    for kind in words["kinds"]:
        assert not re.search(rf"{kind}\s*\d+\b", text), kind
    with translation.override(language):
        records = catalog_rows(brief.snapshot)
    snake = re.compile(r"\b[a-z0-9]+_[a-z0-9_]+\b")
    for record in records:
        assert not re.search(r"\s\d+$", record["label"]), record["label"]
        for name, value, kind in record["figures"]:
            assert not snake.search(name), (record["label"], name)
            if kind != "code":
                assert not snake.search(str(value)), (record["label"], name, value)
    # Sections 4 and 5: the cloud checks once, no section of "not recorded" only.
    checks = html[html.index('id="site"') : html.index('id="findings"')]
    assert checks.count(words["residency"]) == 1
    assert 'id="vendors-not-recorded"' in html
    # The memo within two pages: section 2 opens page 3, the sign-off table is on pages 1-2.
    assert text_of(pdf, tmp_path, 3, 3).split(words["workload"])[0].count(" ") < 12
    assert words["sign_off"] in text_of(pdf, tmp_path, 1, 2)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_hosted_option_s_memo_stays_within_two_pages(
    job, tmp_path, language, django_capture_on_commit_callbacks
):
    buyer, assessment, _deadline = job
    options = assessment_results(assessment).recommendation.options
    hosted = next(o for o in options if not o.is_cloud and o.economics is not None)
    brief = brief_for(buyer, assessment, hosted, language, django_capture_on_commit_callbacks)
    pdf = render_pdf(brief.snapshot, meta(brief, approved=False))
    words = WORDS[language]
    assert words["sign_off"] in text_of(pdf, tmp_path, 1, 2)
    assert words["workload"] in text_of(pdf, tmp_path, 3, 3)
