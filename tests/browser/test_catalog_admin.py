"""The catalog admin in real Chromium: find H100, edit its TDP, see the change in its history;
import a 3-row CSV (preview, then apply) and see a bad row refused with row and field."""

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings

from tests.support.catalog import load_catalog
from vendors.models import Accelerator

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "browser-pw"
HEADER = (
    "key,maker,name,memory_gb,memory_type,bf16_dense_tflops,tdp_w,form_factor,"
    "interconnect_kind,software_stack,china_availability,source,as_of\n"
)
ROWS = (
    "browser-a-24gb,Maker A,Card A,24,GDDR6,100,300,pcie,pcie,cuda,unknown,[vendor] datasheet A,2026-01-01\n"
    "browser-b-48gb,Maker B,Card B,48,GDDR6,150,350,pcie,pcie,cuda,unknown,[vendor] datasheet B,2026-01-01\n"
    "browser-c-96gb,Maker C,Module C,96,HBM3,148,400,sxm,nvlink,cuda,unknown,[vendor] datasheet C,2026-01-01\n"
)
BAD_ROWS = ROWS.replace("Card B,48,", "Card B,lots,")


@pytest.fixture
def admin_page(live_server, login, page):
    with override_settings(PRODUCTION=False, DEMO_PASSWORD=PASSWORD):
        call_command("setup_demo")
    load_catalog()
    login("admin", PASSWORD)
    page.wait_for_url(f"{live_server.url}/")
    return page


def test_admin_finds_h100_edits_tdp_and_sees_history(admin_page, live_server, screenshot):
    page = admin_page
    page.goto(f"{live_server.url}/admin/vendors/accelerator/")
    page.fill("#searchbar", "H100")
    page.press("#searchbar", "Enter")
    page.wait_for_selector("#result_list")
    results = page.locator("#result_list tbody tr")
    assert results.count() == 3
    screenshot("catalog-admin-search-h100")

    page.click("#result_list a:has-text('H100 SXM5 80GB')")
    page.wait_for_selector("#id_tdp_w")
    assert page.input_value("#id_tdp_w") == "700.0"
    page.fill("#id_tdp_w", "650")
    screenshot("catalog-admin-edit-h100")
    page.click("input[name=_save]")
    page.wait_for_selector(".messagelist .success")
    assert "was changed successfully" in page.inner_text(".messagelist")
    assert Accelerator.objects.get(key="h100-sxm-80gb").tdp_w == 650

    page.goto(f"{live_server.url}/admin/vendors/accelerator/")
    page.click("#result_list a:has-text('H100 SXM5 80GB')")
    page.click("a.historylink")
    page.wait_for_selector("#change-history")
    history = page.inner_text("#change-history")
    assert "admin" in history
    assert "700.0" in history and "650.0" in history
    assert "Loaded from catalog fixture" in history
    assert "Source" not in history  # only what the admin changed
    screenshot("catalog-admin-history-h100")


def upload(page, live_server, tmp_path, text):
    path = tmp_path / "accelerators.csv"
    path.write_text(text, encoding="utf-8")
    page.goto(f"{live_server.url}/admin/vendors/accelerator/import/")
    page.set_input_files("#id_import_file", str(path))
    page.select_option("#id_format", label="csv")
    page.click("input[type=submit]")


def test_csv_import_previews_then_applies(admin_page, live_server, tmp_path, screenshot):
    page = admin_page
    upload(page, live_server, tmp_path, HEADER + ROWS)
    page.wait_for_selector("text=Preview")
    assert page.locator("tr.new").count() == 3
    assert not Accelerator.objects.filter(key__startswith="browser-").exists()
    screenshot("catalog-admin-import-preview")
    page.click("input[name=confirm]")
    page.wait_for_selector(".messagelist")
    screenshot("catalog-admin-import-applied")
    assert Accelerator.objects.filter(key__startswith="browser-").count() == 3


def test_bad_row_is_refused_naming_row_and_field(admin_page, live_server, tmp_path, screenshot):
    page = admin_page
    upload(page, live_server, tmp_path, HEADER + BAD_ROWS)
    page.wait_for_selector("text=Some rows failed to validate")
    row = page.locator("table.import-preview tr", has_text="Card B")
    assert row.count() == 1
    first_cell = row.locator("td").first
    assert first_cell.inner_text().strip().startswith("2")
    refused = page.inner_text("#import-refused-rows")
    assert "Row 2, field “memory_gb”: “lots” is not a number." in refused
    first_cell.hover()
    errors = row.locator(".validation-error-list")
    errors.wait_for(state="visible")
    assert "memory_gb" in errors.inner_text().lower()
    screenshot("catalog-admin-import-bad-row")
    assert page.locator("input[name=confirm]").count() == 0
    assert not Accelerator.objects.filter(key__startswith="browser-").exists()


def test_admin_speaks_chinese(admin_page, live_server, screenshot):
    page = admin_page
    page.context.add_cookies(
        [{"name": settings.LANGUAGE_COOKIE_NAME, "value": "zh-hans", "url": live_server.url}]
    )
    page.goto(f"{live_server.url}/admin/vendors/hostingvendor/")
    page.wait_for_selector("#result_list")
    assert "IDC 服务商" in page.inner_text("h1")
    table = page.inner_text("#result_list")
    assert "简米科技" in table and "豫B2-20261089" in table and "经营年限" in table
    screenshot("catalog-admin-vendors-zh-hans")


TARGETS = """() => {
  const small = [];
  const selector = 'input[type=checkbox], input[type=radio], select, button, input[type=submit], '
    + '.button, .related-widget-wrapper-link, .addlink, .changelink, .viewlink, .object-tools a';
  for (const el of document.querySelectorAll(selector)) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;  // not shown
    if (box.width < 24 || box.height < 24) small.push(`${el.tagName} ${el.name || el.className}`);
  }
  return small;
}"""


@pytest.mark.parametrize("path", ["vendors/accelerator/", "vendors/accelerator/add/"])
def test_admin_controls_are_at_least_24_px(admin_page, live_server, path):
    """WCAG 2.2 AA target size (2.5.8) on the list and the form the catalog admin uses most."""
    admin_page.goto(f"{live_server.url}/admin/{path}")
    admin_page.wait_for_selector("#content")
    assert admin_page.evaluate(TARGETS) == []
