"""axe-core scans of the wizard's pages: no serious or critical violation, in both languages."""

from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import override_settings

from tests.support.catalog import load_catalog

pytestmark = pytest.mark.django_db(transaction=True)

AXE = Path(__file__).parent / "vendor" / "axe.min.js"
PASSWORD = "browser-pw"


def violations(page) -> list[str]:
    # Evaluated through the DevTools protocol: an injected <script> would be refused by the CSP.
    page.evaluate(AXE.read_text(encoding="utf-8"))
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — "
        + "; ".join(node["target"][0] for node in v["nodes"][:3])
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_wizard_pages_have_no_serious_accessibility_violations(page, live_server, login, language):
    with override_settings(PRODUCTION=False, DEMO_PASSWORD=PASSWORD):
        call_command("setup_demo")
    load_catalog()
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    login("buyer", PASSWORD)
    page.wait_for_url(f"{live_server.url}/")
    found = {}
    found["home"] = violations(page)
    page.click("button.start-button")
    page.wait_for_selector(".task-list")
    found["task list"] = violations(page)
    base = page.url
    for slug in ("model", "training", "site", "procurement"):
        page.goto(f"{base}{slug}/")
        found[slug] = violations(page)
        page.click("button[name=continue]")  # empty answers: the error state
        page.locator(".error-summary").wait_for()
        found[f"{slug} with errors"] = violations(page)
    page.goto(f"{base}check/")
    found["check"] = violations(page)
    page.goto(f"{base}delete/")
    found["delete"] = violations(page)
    assert {name: v for name, v in found.items() if v} == {}


def test_the_scan_finds_a_serious_violation_when_there_is_one(page):
    page.set_content('<html lang="en"><body><main><input type="text"></main></body></html>')
    assert any(v.startswith("label ") for v in violations(page))
