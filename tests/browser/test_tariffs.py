"""In Chromium, both languages: the cost flag on results, the electricity breakdown and the
site comparison on the option and comparison pages, the tariff coverage list in admin, and the
same in the PDF brief (rendered, read back and turned into page images)."""

import subprocess
from dataclasses import replace

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings

from advisor.assessments import answers, services
from advisor.brief.render import render_pdf
from advisor.brief.services import _snapshot
from advisor.recommendation.services import assessment_results
from advisor.roles import PROCUREMENT_STAFF
from tests.browser.conftest import ARTIFACTS
from tests.support.assessments import PROCUREMENT, TRAINING
from tests.support.catalog import load_catalog
from tests.support.pdf import pdf_text
from tests.support.training_step import brief_meta
from tests.support.users import make_user

pytestmark = pytest.mark.django_db(transaction=True)
LANGUAGES = {
    "en": ("Why the sites cost differently", "indicative", "hour-weighted mean"),
    "zh-hans": ("各站点成本为何不同", "参考值", "按小时加权平均"),
}
# Shanghai's price is the national figure and only Gui'an has a demand charge: both are left
# out of the site difference, which says so (decision 0105).
LEFT_OUT = {"en": "left out of the difference", "zh-hans": "未计入差异"}


def qwen_32b_buy(owner):
    draft = services.create_assessment(owner, "Qwen2.5 32B LoRA, Guiyang vs Shanghai")
    values = {
        "model": {"source": "preset", "preset": "qwen2-5-32b", "method": "lora"},
        "training": TRAINING,
        "site": {"mode": "compare", "compare": ["example-guian", "example-shanghai-qingpu"]},
        "procurement": {**PROCUREMENT, "modes": ["buy"]},
    }
    for slug, value in values.items():
        draft = services.save_step(draft, slug, value, draft.version)
    return draft


@pytest.fixture
def world():
    with override_settings(PRODUCTION=False, DEMO_PASSWORD="pw-demo-1"):
        call_command("setup_demo")
    load_catalog()
    buyer = make_user("buyer2", PROCUREMENT_STAFF, password="pw-buyer-1")
    assessment = qwen_32b_buy(buyer)
    run = assessment_results(assessment)
    h200 = [
        o.key
        for o in run.recommendation.options
        if o.hardware.server.key == "hgx-h200-8gpu" and o.economics
    ]
    return assessment, sorted(h200, key=lambda k: "guian" not in k)


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_pages_show_flag_breakdown_and_site_difference(
    page, live_server, login, screenshot, world, language
):
    assessment, (guian, shanghai) = world
    page.context.add_cookies(
        [{"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": live_server.url}]
    )
    why, indicative, breakdown = LANGUAGES[language]
    login("buyer2", "pw-buyer-1")
    page.wait_for_url(f"{live_server.url}/")
    base = f"{live_server.url}/assessments/{assessment.pk}/results"

    page.goto(f"{base}/")
    page.wait_for_selector("table.options-table")
    assert indicative in page.inner_text("table.options-table")
    screenshot(f"tariffs-results-{language}")

    page.goto(f"{base}/compare/?option={guian}&option={shanghai}")
    page.wait_for_selector("table.site-comparison")
    text = page.inner_text("main")
    assert why in text and indicative in text
    assert LEFT_OUT[language] in page.inner_text("table.site-comparison")
    page.locator("table.site-comparison").scroll_into_view_if_needed()
    screenshot(f"tariffs-compare-{language}")
    page.set_viewport_size({"width": 320, "height": 900})
    page.locator("table.site-comparison").scroll_into_view_if_needed()
    screenshot(f"tariffs-compare-320-{language}")
    page.set_viewport_size({"width": 1280, "height": 900})

    page.goto(f"{base}/option/{guian}/")
    page.wait_for_selector("table.tariff-breakdown")
    assert breakdown in page.inner_text("table.tariff-breakdown")
    page.locator("table.tariff-breakdown").scroll_into_view_if_needed()
    screenshot(f"tariffs-option-{language}")

    page.click("text=Sign out") if language == "en" else page.click("text=退出")
    login("admin", "pw-demo-1")
    page.wait_for_url(f"{live_server.url}/")
    page.set_viewport_size({"width": 1600, "height": 900})
    page.goto(f"{live_server.url}/admin/vendors/policyzone/")
    page.wait_for_selector("#result_list")
    listing = page.inner_text("#result_list")
    assert "Shanghai" in listing
    assert ("national figure" if language == "en" else "全国数据") in listing  # lacks a price
    assert "0.5620" in listing  # Guizhou's 24-hour price
    screenshot(f"tariffs-admin-zones-{language}")
    page.goto(f"{live_server.url}/admin/vendors/tariff/")
    page.wait_for_selector("#result_list")
    screenshot(f"tariffs-admin-tariffs-{language}")


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_brief_shows_flag_breakdown_and_site_difference(world, language, tmp_path):
    assessment, (guian, _) = world
    document = answers.scenario_document(assessment.answers)
    snapshot = _snapshot(document, guian, assessment_results(assessment).today, {})
    assert len(snapshot["site_comparison"]) == 2
    assert snapshot["options"][0]["confidence"]["headline"] == "indicative"
    assert snapshot["options"][0]["tariff_breakdown"]["bands"]
    meta = replace(brief_meta(language), language=language)
    pdf = tmp_path / f"brief-{language}.pdf"
    pdf.write_bytes(render_pdf(snapshot, meta))
    text = pdf_text(pdf, layout=True)
    why, indicative, breakdown = LANGUAGES[language]
    assert indicative in text
    assert why not in text  # the comparison page's heading; the brief has its own
    marker = breakdown
    assert marker in text
    economics_page = next(
        i for i, page_text in enumerate(text.split("\f"), start=1) if marker in page_text
    )
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            "pdftoppm",
            "-png",
            "-r",
            "80",
            "-f",
            str(economics_page),
            "-l",
            str(economics_page + 1),
            str(pdf),
            str(ARTIFACTS / f"tariffs-brief-{language}"),
        ],
        check=True,
    )
