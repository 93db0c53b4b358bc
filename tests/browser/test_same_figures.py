"""In Chromium, both languages: one answer, one set of figures (issue 25, "one figure, one place").

For the same answers, the rank-1 option's GPUs, hours and cash out read the same on the
results list, the option page and the signed brief; the option page's cost lines sum to the
cash out it shows; the wizard's estimate panel shows the fewest GPUs the option page names.
Screenshots: same-figures-{panel,results,option}-{en,zh-hans}.png.
"""

import re
from decimal import Decimal

import pytest
from django.conf import settings
from django.test import override_settings

from advisor.roles import PROCUREMENT_STAFF
from tests.support.assessments import finished_assessment
from tests.support.briefs import signing_settings
from tests.support.catalog import load_catalog
from tests.support.pdf import pdf_text
from tests.support.users import make_user

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def world(tmp_path, pki_dir):
    load_catalog()
    buyer = make_user("buyer", PROCUREMENT_STAFF, password="pw-buyer-1")
    assessment = finished_assessment(buyer)
    with override_settings(BRIEF_SIGNING=signing_settings(pki_dir), MEDIA_ROOT=tmp_path / "media"):
        yield assessment


def squeezed(text: str) -> str:
    """Text without white space (pdftotext breaks lines and spaces differently)."""
    return re.sub(r"\s+", "", text)


def amount(text: str) -> Decimal:
    """A money figure as shown (¥1,234.56 or 1,234.56 元) as a number."""
    digits = re.sub(r"[^\d.\-]", "", text.replace("−", "-"))
    return Decimal(digits)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_rank_one_reads_the_same_everywhere(
    page, live_server, login, screenshot, world, tmp_path, language
):
    page.context.add_cookies(
        [{"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": live_server.url}]
    )
    login("buyer", "pw-buyer-1")
    page.wait_for_selector("main h1")
    results = f"{live_server.url}/assessments/{world.pk}/results/"

    # Results: rank 1 is the first row.
    page.goto(results)
    row = page.locator("#row-1")
    assert row.locator("td").nth(1).inner_text().strip() == "1"
    title = row.locator("td").nth(2).locator("a").first.inner_text().strip()
    gpus = title.split("×")[0].strip()
    hours = row.locator(".time-cell").inner_text().strip()
    cash = row.locator(".cost-cash").inner_text().strip()
    screenshot(f"same-figures-results-{language}")

    # The option page: the same GPUs, hours and cash out; its lines sum to that cash out.
    row.locator("td").nth(2).locator("a").first.click()
    page.wait_for_selector("#key-cost")
    assert page.locator("h1").inner_text().split("×")[0].strip() == gpus
    assert page.locator("#key-time .value").inner_text().strip() == hours
    assert page.locator("#key-cost .cost-cash").inner_text().strip() == cash
    amounts = page.locator("#cost-lines tbody td:last-child").all_inner_texts()
    total = sum((amount(a) for a in amounts), Decimal(0))
    assert total == amount(page.locator("#cost-lines-cash").inner_text())
    assert round(total) == amount(cash)
    fewest = page.locator("#fewest-gpus td").inner_text()
    fewest_gpus = fewest.split()[0]
    accelerator = page.locator("h1").inner_text().split("×")[1].split("·")[0].strip()
    screenshot(f"same-figures-option-{language}")

    # The signed brief, in the page's language: the same figures on its first pages.
    page.select_option("#brief-language", language)
    page.click("form.issue-form button[type=submit]")
    page.wait_for_selector("a[href$='download/']", timeout=60_000)
    with page.expect_download() as download:
        page.locator("a[href$='download/']").first.click()
    path = tmp_path / f"brief-{language}.pdf"
    download.value.save_as(path)
    text = squeezed(pdf_text(path))
    for figure in (squeezed(cash), squeezed(hours), squeezed(f"{gpus}×")):
        assert figure in text, figure

    # The wizard's estimate panel: the fewest GPUs of that accelerator, as the option page says.
    page.goto(f"{live_server.url}/assessments/{world.pk}/training/")
    page.wait_for_selector("#estimate-panel table")
    panel_row = page.locator("#estimate-panel tbody tr", has_text=accelerator)
    assert panel_row.count() == 1, accelerator
    assert panel_row.locator("td").first.inner_text().strip() == fewest_gpus
    screenshot(f"same-figures-panel-{language}")
