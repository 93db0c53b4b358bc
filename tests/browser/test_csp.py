"""In Chromium, with the Content Security Policy enforced: no page kind reports a violation.

Every kind of page is visited as the person who would see it (buyer, approver, catalog admin,
anyone), including htmx requests and a brief issued and verified through the pages. A blocked
inline script, style, style attribute or handler shows up twice: as a
``securitypolicyviolation`` event (listened for before any page script runs) and as a console
message naming the Content Security Policy; either fails the test.
"""

import pytest

from advisor.roles import CATALOG_ADMIN
from tests.support.users import make_user

# A brief issued here is one real page (tests/conftest.py one_page_briefs): its PDF is not read.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("one_page_briefs")]

LISTENER = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(`${e.effectiveDirective} blocked ${e.blockedURI || "inline"} `
    + `at ${e.sourceFile}:${e.lineNumber} ${e.sample}`);
});
"""

# Resolves after the next frame and the tasks queued before it (violation events are tasks).
SETTLED = "() => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)))"


class Watch:
    """Collects CSP violations per page name: the page's events plus console messages."""

    def __init__(self, page, base_url):
        self.page = page
        self.base_url = base_url
        self.console: list[str] = []
        self.found: dict[str, list[str]] = {}
        self.visited: list[str] = []
        page.context.add_init_script(LISTENER)
        page.on("console", self._console)

    def _console(self, message):
        if "Content Security Policy" in message.text:
            self.console.append(message.text)

    def goto(self, name: str, path: str):
        response = self.page.goto(self.base_url + path)
        policy = response.headers.get("content-security-policy", "")
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy, (name, policy)
        self.check(name)

    def check(self, name: str):
        """Record what the page now shown reported, once it has loaded, no htmx request is in
        flight (htmx marks the element that asked with ``htmx-request``) and the events queued
        meanwhile were delivered. (Playwright's "networkidle" would wait 500 ms on every page.)"""
        self.page.wait_for_load_state("load")
        self.page.wait_for_function("() => !document.querySelector('.htmx-request')")
        self.page.evaluate(SETTLED)
        events = self.page.evaluate("() => window.__csp || []")
        reported = [*events, *self.console]
        self.console.clear()
        self.visited.append(name)
        if reported:
            self.found[name] = reported

    def sign_in(self, username: str, password: str):
        self.goto(f"sign-in as {username}", "/accounts/login/")
        self.page.fill("#id_username", username)
        self.page.fill("#id_password", password)
        self.page.click("main button[type=submit]")
        # Home, or the approvals queue for an approver (the home page sends them there).
        self.page.wait_for_url(lambda url: "/accounts/login/" not in url)
        self.check(f"home of {username}")

    def sign_out(self):
        self.page.click("text=Sign out")
        self.page.wait_for_url("**/accounts/login/")


@pytest.fixture
def world(world):
    """The shared world (tests/browser/conftest.py) with a catalog editor."""
    make_user("editor", CATALOG_ADMIN, password="pw-editor-1", is_staff=True)
    return world


def test_no_page_kind_violates_the_content_security_policy(page, live_server, world, tmp_path):
    watch = Watch(page, live_server.url)
    watch.sign_in("buyer", "pw-buyer-1")

    # Wizard: a new draft's task list, every step (htmx loaded with the nonce), the check page.
    page.click("button.start-button")
    page.wait_for_selector(".task-list")
    watch.check("task list")
    wizard = f"/assessments/{world.pk}/"
    for slug in ("model", "training", "site", "procurement"):
        watch.goto(f"step {slug}", f"{wizard}{slug}/")
    watch.goto("step model, htmx preset search", f"{wizard}model/")
    with page.expect_response("**/assessments/presets/**"):
        page.fill("#preset-search", "qwen")
    watch.check("step model, htmx preset search")
    watch.goto("step training, htmx estimate", f"{wizard}training/")
    with page.expect_response("**/estimate/"):
        page.fill("#id_micro_batch", "2")
        page.press("#id_micro_batch", "Tab")
    watch.check("step training, htmx estimate")
    page.click("button[name=continue]")  # saved: on to the next step
    watch.check("step after saving")
    watch.goto("check answers", f"{wizard}check/")
    watch.goto("rename", f"{wizard}rename/")
    watch.goto("delete (confirmation)", f"{wizard}delete/")

    # Options: results with the memory bars, an option's SVG charts, comparison, own figures.
    results = f"/assessments/{world.pk}/results/"
    watch.goto("results", results + "?ranking=all")
    keys = [page.locator("input[name=option]").nth(i).get_attribute("value") for i in range(3)]
    watch.goto("option", f"{results}option/{keys[0]}/")
    watch.goto("compare", f"{results}compare/?" + "&".join(f"option={k}" for k in keys))
    watch.goto("figures", f"{results}figures/")

    # A brief, issued from the option page, downloaded, then verified.
    watch.goto("option before issuing", f"{results}option/{keys[0]}/")
    page.select_option("#brief-language", "en")
    page.click("text=Issue brief")
    page.wait_for_selector("text=Download the signed PDF", timeout=60_000)
    watch.check("brief detail")
    brief_path = page.url.removeprefix(live_server.url)
    with page.expect_download() as download:
        page.click("text=Download the signed PDF")
    pdf = tmp_path / "brief.pdf"
    download.value.save_as(pdf)
    watch.goto("brief list", "/brief/")
    watch.goto("verify", "/brief/verify/")
    page.set_input_files("#id_pdf", str(pdf))
    page.click("main button[type=submit]")
    page.wait_for_selector("#verdict")
    watch.check("verify result")
    watch.sign_out()

    # The approver's queue and the brief with its decision form.
    watch.sign_in("boss", "pw-boss-1")
    watch.goto("approvals", "/brief/approvals/")
    watch.goto("brief detail with review form", brief_path)
    watch.sign_out()

    # Django admin as catalog admin: index, a changelist, a change form, history, export.
    watch.sign_in("editor", "pw-editor-1")
    watch.goto("admin index", "/admin/")
    watch.goto("admin changelist", "/admin/vendors/accelerator/")
    page.locator("#result_list tbody th a").first.click()
    watch.check("admin change form")
    change_url = page.url.removeprefix(live_server.url)
    watch.goto("admin history", change_url.replace("/change/", "/history/"))
    watch.goto("admin export", "/admin/vendors/accelerator/export/")
    watch.goto("admin rule parameters", "/admin/advisor/ruleparameter/")

    assert len(watch.visited) >= 30
    assert watch.found == {}


def test_anonymous_pages_and_the_lockout_have_no_violation(page, live_server, settings):
    settings.AXES_FAILURE_LIMIT = 2
    watch = Watch(page, live_server.url)
    watch.goto("sign-in", "/accounts/login/")
    for attempt in range(2):  # the second failure locks
        page.fill("#id_username", "mallory")
        page.fill("#id_password", f"guess-{attempt}")
        page.click("main button[type=submit]")
        watch.check(f"failed sign-in {attempt + 1}")
    assert page.locator("h1").inner_text() == "Sign-in locked"
    watch.goto("verify", "/brief/verify/")
    page.set_input_files(
        "#id_pdf", files=[{"name": "x.pdf", "mimeType": "application/pdf", "buffer": b"nope"}]
    )
    page.click("main button[type=submit]")
    page.wait_for_selector(".error-summary")
    watch.check("verify with an error")
    watch.goto("admin sign-in", "/admin/login/")
    assert watch.found == {}
