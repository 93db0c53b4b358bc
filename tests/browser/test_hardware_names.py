"""In Chromium: the results and option pages name accelerators, servers and their makers in the
page's language (screenshots: hardware-names-*-en.png, hardware-names-*-zh.png)."""

import pytest

from advisor.roles import PROCUREMENT_STAFF
from tests.browser.conftest import ARTIFACTS
from tests.support.assessments import finished_assessment
from tests.support.catalog import load_catalog
from tests.support.users import make_user

pytestmark = pytest.mark.django_db(transaction=True)

# (text of the Atlas 800T A2 row, names that must not show in the row)
ROWS = {
    "en": (
        ["Ascend 910B 64GB (910B1-B3, Atlas 800T A2)", "Atlas 800T A2 (8× Ascend 910B) · Huawei"],
        ["昇腾", "华为"],
    ),
    "zh": (["昇腾 910B 64GB", "Atlas 800T A2 训练服务器 · 华为"], ["Ascend 910B 64GB (", "Huawei"]),
}


@pytest.fixture
def assessment():
    load_catalog()
    buyer = make_user("buyer", PROCUREMENT_STAFF, password="pw-buyer-1")
    return finished_assessment(buyer)


def shot(page, name):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def check_results(page, language):
    page.wait_for_selector("table.options-table")
    # A row of a server at a data center (a cloud option names its provider, not a server).
    row = page.locator(
        "table.options-table tbody tr:not([data-mode=cloud])", has_text="Atlas 800T A2"
    ).first
    row.scroll_into_view_if_needed()
    text = row.inner_text()
    shown, hidden = ROWS[language]
    for name in shown:
        assert name in text, (language, name, text)
    for name in hidden:
        assert name not in text, (language, name, text)
    shot(page, f"hardware-names-results-{language}")
    return row


def test_hardware_names_follow_the_page_language(page, live_server, login, assessment):
    login("buyer", "pw-buyer-1")
    results = f"{live_server.url}/assessments/{assessment.pk}/results/?ranking=all"
    page.goto(results)
    check_results(page, "en").locator("a").first.click()
    page.wait_for_selector("h1")
    assert "Ascend 910B 64GB (910B1-B3, Atlas 800T A2)" in page.locator("h1").inner_text()
    assert "Atlas 800T A2 (8× Ascend 910B) · Huawei" in page.locator("p.lead").first.inner_text()
    shot(page, "hardware-names-option-en")

    page.select_option("#language-select", "zh-hans")
    page.click("button:has-text('Change language')")
    page.goto(results)
    row = check_results(page, "zh")
    row.locator("a").first.click()
    page.wait_for_selector("h1")
    assert "昇腾 910B 64GB" in page.locator("h1").inner_text()
    assert "Atlas 800T A2 训练服务器 · 华为" in page.locator("p.lead").first.inner_text()
    shot(page, "hardware-names-option-zh")
