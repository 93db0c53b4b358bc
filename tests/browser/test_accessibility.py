"""WCAG 2.2 AA in Chromium, both languages (issue 33 item 7): axe-core finds no critical, serious
or moderate violation on the pages after the wizard (results, options, comparison, own figures
and their error state, questionnaires, briefs, approvals, verification); and what axe leaves to
review: no duplicated id, exactly one label per control, a title per page, and no page that
scrolls sideways at 320 px."""

import pytest

from tests.browser.test_wizard_accessibility import AXE

# A brief issued here is one real page (tests/conftest.py one_page_briefs): its PDF is not read.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("one_page_briefs")]

IMPACTS = ("moderate", "serious", "critical")
AXE_OPTIONS = (
    "{resultTypes: ['violations'], runOnly: {type: 'tag', values: "
    "['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']}}"
)
# What axe leaves to a person, checked in the page: duplicated ids, controls without exactly
# one label (a name from aria-label or aria-labelledby counts as its label), sideways scroll.
REVIEW = """() => {
  const ids = {};
  for (const el of document.querySelectorAll('[id]')) ids[el.id] = (ids[el.id] || 0) + 1;
  const duplicated = Object.keys(ids).filter((id) => ids[id] > 1);
  const controls = document.querySelectorAll(
    'input:not([type=hidden]):not([type=submit]):not([type=button]), select, textarea');
  const unlabelled = [];
  for (const c of controls) {
    const named = c.getAttribute('aria-label') || c.getAttribute('aria-labelledby');
    const labels = c.labels ? c.labels.length : 0;
    if (!(labels === 1 || (labels === 0 && named))) unlabelled.push(c.name || c.id);
  }
  const wide = [];
  if (document.documentElement.scrollWidth > window.innerWidth + 1) {
    for (const el of document.querySelectorAll('body *')) {
      if (el.parentElement && el.parentElement.closest('.table-scroll')) continue;  // scrolls in its own region
      const box = el.getBoundingClientRect();
      if (box.right > window.innerWidth + 1 && wide.length < 4)
        wide.push(`${el.tagName.toLowerCase()}.${el.className} (${Math.round(box.right)} px)`);
    }
  }
  return {duplicated, unlabelled, title: document.title, wide,
          sideways: document.documentElement.scrollWidth > window.innerWidth + 1};
}"""


def review(page, name: str, found: dict, titles: dict | None, narrow: bool = True) -> None:
    """Scan the page shown; ``titles`` collects its title (None: another state of a page
    already seen, whose title may repeat)."""
    page.evaluate(AXE.read_text(encoding="utf-8"))
    result = page.evaluate(f"async () => await axe.run(document, {AXE_OPTIONS})")
    problems = [
        f"{v['id']} ({v['impact']}): " + "; ".join(n["target"][0] for n in v["nodes"][:3])
        for v in result["violations"]
        if v["impact"] in IMPACTS
    ]
    checked = page.evaluate(REVIEW)
    if checked["duplicated"]:
        problems.append(f"duplicated ids: {checked['duplicated']}")
    if checked["unlabelled"]:
        problems.append(f"not exactly one label: {checked['unlabelled']}")
    if titles is not None:
        titles.setdefault(checked["title"], []).append(name)
    if narrow:
        size = page.viewport_size
        page.set_viewport_size({"width": 320, "height": 800})
        narrow_review = page.evaluate(REVIEW)
        if narrow_review["sideways"]:
            problems.append(f"scrolls sideways at 320 px: {narrow_review['wide']}")
        page.set_viewport_size(size)
    if problems:
        found[name] = problems


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_every_page_after_the_wizard_meets_wcag_aa(
    page, live_server, login, screenshot, world, language
):
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    found, titles = {}, {}
    page.goto(f"{live_server.url}/accounts/login/")
    review(page, "sign in", found, titles)
    login("buyer", "pw-buyer-1")
    page.wait_for_selector("main h1")
    review(page, "home", found, titles)

    results = f"{live_server.url}/assessments/{world.pk}/results/"
    page.goto(results)
    review(page, "results", found, titles)
    page.goto(f"{results}?ranking=all")
    review(page, "results, all options", found, None)
    keys = [page.locator("input[name=option]").nth(i).get_attribute("value") for i in range(3)]
    cloud = page.locator("tr[data-mode=cloud] input[name=option]").first.get_attribute("value")
    hosted = page.locator("tr[data-mode=buy] input[name=option]").first.get_attribute("value")
    page.goto(f"{results}option/{cloud}/")
    review(page, "cloud option", found, titles)
    page.goto(f"{results}option/{hosted}/")
    review(page, "hosted option", found, titles)
    page.goto(f"{results}compare/?" + "&".join(f"option={k}" for k in keys))
    review(page, "comparison", found, titles)
    page.goto(f"{results}figures/")
    review(page, "own figures", found, titles)
    page.fill("input[name='site__example-guian__pue']", "0.2")
    page.locator("form button[type=submit]").last.click()
    page.locator(".error-summary").wait_for()
    assert page.evaluate("document.activeElement.id") == "error-summary"
    assert page.title().startswith("Error: " if language == "en" else "错误：")
    review(page, "own figures with an error", found, None)
    page.goto(f"{live_server.url}/assessments/{world.pk}/questionnaire/vendors/")
    review(page, "questionnaires", found, titles)

    page.goto(f"{results}option/{hosted}/")
    page.select_option("#brief-language", language)
    if page.locator("#brief-reason").count():  # not rank 1: the buyer says why
        page.fill("#brief-reason", "Bought and hosted, as our policy asks")
    page.locator("form.issue-form button[type=submit]").click()
    page.wait_for_selector("a[href$='download/']", timeout=60_000)
    brief = page.url
    review(page, "brief", found, titles)
    page.goto(f"{live_server.url}/brief/")
    review(page, "briefs", found, titles)
    page.goto(f"{live_server.url}/brief/verify/")
    review(page, "verify", found, titles)

    page.context.clear_cookies()
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    login("boss", "pw-boss-1")
    page.wait_for_selector("main h1")
    review(page, "approvals", found, titles)
    page.goto(brief)
    review(page, "brief with its review form", found, None)
    screenshot(f"accessibility-brief-review-{language}")
    page.goto(f"{live_server.url}/brief/certificate/")
    review(page, "signing certificate", found, titles)
    screenshot(f"accessibility-certificate-{language}")
    page.click("form.issue-form button[type=submit]")
    page.wait_for_selector("#error-summary")
    review(page, "signing certificate with its errors", found, None)

    assert found == {}, "\n".join(f"{name}: {problems}" for name, problems in found.items())
    repeated = {title: names for title, names in titles.items() if len(names) > 1}
    assert repeated == {}, repeated
