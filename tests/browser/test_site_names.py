"""In Chromium: results and the wizard's site step name data centers and operators in the
page's language (screenshots: site-names-*-en.png, site-names-*-zh.png)."""

import pytest

from advisor.roles import PROCUREMENT_STAFF
from tests.browser.conftest import ARTIFACTS
from tests.support.assessments import finished_assessment
from tests.support.catalog import load_catalog
from tests.support.users import make_user

pytestmark = pytest.mark.django_db(transaction=True)

SITES = ["ctc-guizhou-info-park", "cucc-shanghai-lingang", "example-guian"]
NAMES = {
    "en": ["China Telecom Cloud Computing Guizhou Information Park", "China Unicom", "DEMO:"],
    "zh": ["中国电信云计算贵州信息园", "中国联通上海临港国际云数据中心", "中国联通", "演示:"],
}


@pytest.fixture
def assessment():
    load_catalog()
    buyer = make_user("buyer", PROCUREMENT_STAFF, password="pw-buyer-1")
    return finished_assessment(buyer, site={"mode": "compare", "compare": SITES})


def top(page, name):
    """The first screen of the page (a full-page shot of 40 options is too tall to read)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def check_names(page, language, other):
    text = page.locator("main").inner_text()
    for name in NAMES[language]:
        assert name in text, (language, name)
    for name in NAMES[other][:2]:
        assert name not in text, (language, name)


def test_site_names_follow_the_page_language(page, live_server, login, assessment):
    login("buyer", "pw-buyer-1")
    results = f"{live_server.url}/assessments/{assessment.pk}/results/?ranking=all"
    page.goto(results)
    page.wait_for_selector("table.options-table")
    check_names(page, "en", "zh")
    top(page, "site-names-results-en")

    page.select_option("#language-select", "zh-hans")
    page.click("button:has-text('Change language')")
    page.goto(results)
    page.wait_for_selector("table.options-table")
    check_names(page, "zh", "en")
    top(page, "site-names-results-zh")

    page.goto(f"{live_server.url}/assessments/{assessment.pk}/site/")
    page.wait_for_selector("form")
    page.check("input[value=catalog]")
    options = page.locator("#id_data_center option").all_inner_texts()
    assert "中国电信云计算贵州信息园 · 贵安新区 · 中国电信" in options
    assert "China Telecom Cloud Computing Guizhou Information Park" not in " ".join(options)
    page.select_option("#id_data_center", "ctc-guizhou-info-park")
    top(page, "site-names-wizard-site-zh")
    page.check("input[value=compare]")
    labels = page.locator("main").inner_text()
    assert "中国联通上海临港国际云数据中心 · 上海临港新片区泥城镇 · 中国联通" in labels
    top(page, "site-names-wizard-compare-zh")
