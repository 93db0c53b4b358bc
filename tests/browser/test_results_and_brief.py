"""In Chromium: results → compare → option → issue brief → approve → verify the PDF."""

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def test_from_results_to_an_approved_verified_brief(
    page, live_server, login, screenshot, world, tmp_path
):
    login("buyer", "pw-buyer-1")
    page.goto(f"{live_server.url}/assessments/{world.pk}/results/?ranking=all")
    page.wait_for_selector("table.options-table")
    screenshot("results-all-en")

    boxes = page.locator("input[name=option]")
    assert boxes.count() >= 3
    for index in range(3):
        boxes.nth(index).check()
    page.click("text=Compare selected options")
    page.wait_for_selector("table.compare-table")
    assert page.locator("table.compare-table thead th").count() == 4
    screenshot("compare-en")

    page.goto(f"{live_server.url}/assessments/{world.pk}/results/")
    page.locator("table.options-table tbody a").first.click()
    page.wait_for_selector("form.issue-form")
    # The wizard does not ask about packing, so lengths may vary: the page says what
    # monitoring may show beside what the job needs.
    assert "nvidia-smi may show up to" in page.locator("#device-reading").inner_text()
    screenshot("option-detail-en")
    page.select_option("#brief-language", "en")
    page.click("text=Issue brief")
    page.wait_for_selector("text=Download the signed PDF", timeout=60_000)
    number = page.locator("h1").inner_text().split()[-1]
    with page.expect_download() as download_info:
        page.click("text=Download the signed PDF")
    pdf_path = tmp_path / "draft.pdf"
    download_info.value.save_as(pdf_path)
    screenshot("brief-detail-en")

    page.click("text=Sign out")
    login("boss", "pw-boss-1")
    page.goto(f"{live_server.url}/brief/approvals/")
    page.click(f"text={number}")
    page.check("input[value=approve]")
    # The top option's vendor has not answered every veto check: approving says so.
    assert page.locator("#id_acknowledge_vetoes").count() == 1
    page.click("text=Record decision")
    page.wait_for_selector("#id_acknowledge_vetoes[aria-invalid=true], .field-error")
    assert "acknowledge" in page.locator("main").inner_text().lower()
    page.check("input[value=approve]")
    page.check("#id_acknowledge_vetoes")
    page.click("text=Record decision")
    page.wait_for_selector(f"text=Brief {number} approved.")
    screenshot("approvals-after-en")

    page.goto(f"{live_server.url}/brief/")
    approved_url = page.url
    assert approved_url
    page.goto(f"{live_server.url}/brief/verify/")
    page.set_input_files("#id_pdf", str(pdf_path))
    page.click("main button[type=submit]")
    verdict = page.locator("#verdict").inner_text()
    summary = page.locator(".summary-list").inner_text()
    assert number in summary and "since been approved" in summary, summary
    assert "Signature intact" in page.content()
    screenshot("verify-superseded-draft-en")
    assert verdict


def test_results_and_figures_in_chinese(page, live_server, login, screenshot, world):
    login("buyer", "pw-buyer-1")
    page.select_option("#language-select", "zh-hans")
    page.click("text=Change language")
    page.goto(f"{live_server.url}/assessments/{world.pk}/results/?ranking=all")
    page.wait_for_selector("table.options-table")
    assert page.locator("h1").inner_text().startswith("方案")
    assert "不符合条件" in page.locator("main").inner_text()
    screenshot("results-all-zh-hans")
    page.click("text=使用自定义数据")
    page.wait_for_selector("h1:has-text('自定义数据')")
    page.fill("input[name='site__example-guian__pue']", "0.2")
    page.click("text=保存并重新计价")
    summary = page.locator(".error-summary")
    summary.wait_for()
    assert "PUE" in summary.inner_text()
    screenshot("figures-error-zh-hans")


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_results_and_brief_pages_have_no_serious_accessibility_violations(
    page, live_server, login, world, language
):
    from tests.browser.test_wizard_accessibility import violations

    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    login("buyer", "pw-buyer-1")
    page.wait_for_url(f"{live_server.url}/")
    results = f"{live_server.url}/assessments/{world.pk}/results/"
    found = {}
    page.goto(results + "?ranking=all")
    found["results"] = violations(page)
    key = page.locator("input[name=option]").first.get_attribute("value")
    page.goto(f"{results}option/{key}/")
    found["option"] = violations(page)
    page.goto(f"{results}compare/?option={key}")
    found["compare"] = violations(page)
    page.goto(f"{results}figures/")
    found["figures"] = violations(page)
    page.goto(f"{live_server.url}/brief/verify/")
    found["verify"] = violations(page)
    page.goto(f"{live_server.url}/brief/")
    found["briefs"] = violations(page)
    assert {name: v for name, v in found.items() if v} == {}


def test_brief_page_follows_generation_by_itself(page, live_server, login, world):
    """While a brief is generated (the production worker), its page polls with htmx."""
    from advisor.assessments.answers import assessment_document
    from advisor.brief import generation, services
    from advisor.brief.models import Brief, BriefStatus

    buyer = world.owner
    brief = services.issue_brief(
        user=buyer, document=assessment_document(world), language="en", assessment=world
    )
    generation.generate(brief.pk)
    Brief.objects.filter(pk=brief.pk).update(status=BriefStatus.GENERATING)
    login("buyer", "pw-buyer-1")
    page.goto(f"{live_server.url}/brief/{brief.pk}/")
    page.wait_for_selector("text=being generated")
    Brief.objects.filter(pk=brief.pk).update(status=BriefStatus.AWAITING_APPROVAL)
    page.wait_for_selector("text=Download the signed PDF", timeout=60_000)
