"""Real-browser tests: Playwright drives Debian's Chromium headless shell (no browser download).

The headless shell (``chromium-headless-shell``, Chromium's old headless mode, the build
Playwright itself uses for headless runs) renders pages with the same Blink engine at about half
the CPU of the full browser in headless mode (docs/decisions/0039-headless-shell.md). A machine
that has only the full ``chromium`` uses that.

Screenshots go to test-artifacts/screenshots/ so people can look at what a user sees.
"""

import os
import shutil
from pathlib import Path

import pytest
from django.core.servers.basehttp import WSGIServer
from django.test import override_settings
from pytest_django.live_server_helper import LiveServer

from advisor.roles import APPROVER, PROCUREMENT_STAFF
from tests.support.assessments import finished_assessment
from tests.support.briefs import signing_settings
from tests.support.catalog import load_catalog
from tests.support.users import make_user

# Playwright's sync API runs an event loop in this thread; Django's ORM calls made by the
# test itself (fixtures, assertions) are still synchronous and safe here.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
CHROMIUM = (
    shutil.which("chromium-headless-shell")
    or shutil.which("chromium")
    or "/usr/bin/chromium-headless-shell"
)
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)


class SerialWSGIServer(WSGIServer):
    """Serves one request at a time, in the live server's own thread.

    The test database is SQLite in memory: the live server's thread shares the test's one
    connection. Django's threaded live server handles each request in a thread of its own, so
    two requests at once (an htmx estimate fired while a form posts) used that connection from
    two threads together, and SQLite answered one of them "bad parameter or other API misuse"
    (a 503, now and then). One at a time, with ``Connection: close`` (Django's handler sends it
    from a server that is not threaded), a browser's parallel requests queue instead.
    """

    def __init__(self, *args, connections_override=None, **kwargs):
        super().__init__(*args, **kwargs)  # the thread already holds the shared connections


@pytest.fixture(scope="session")
def live_server(request):
    """pytest-django's live server (same address rules), serving one request at a time."""
    address = request.config.getvalue("liveserver") or "localhost"
    server = LiveServer(address, start=False)
    server.thread.server_class = SerialWSGIServer
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser():
    """One Chromium per test session (per xdist worker); each test gets a fresh context."""
    from playwright.sync_api import expect, sync_playwright

    # Assertions that wait for the page wait up to 30 s (Playwright's default is 5 s): a bound
    # for a busy machine, not a pause; a passing assertion returns as soon as it holds.
    expect.set_options(timeout=30_000)

    if not Path(CHROMIUM).exists():
        pytest.fail(
            "Chromium is missing: run scripts/setup --test "
            "(installs Debian's chromium-headless-shell)"
        )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def screenshot(page):
    """Save a full-page screenshot under test-artifacts/screenshots/NAME.png."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)

    def take(name: str) -> Path:
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take


@pytest.fixture
def login(page, live_server):
    def sign_in(username: str, password: str):
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("#id_username", username)
        page.fill("#id_password", password)
        page.click("button[type=submit]:has-text('Sign in'), button[type=submit]:has-text('登录')")

    return sign_in


@pytest.fixture
def world(tmp_path, pki_dir):
    """The standard assessment, finished by ``buyer`` (password pw-buyer-1), with ``boss``
    (pw-boss-1) to approve and the session's test signer for its briefs. A module may define its
    own ``world``."""
    load_catalog()
    buyer = make_user("buyer", PROCUREMENT_STAFF, password="pw-buyer-1")
    make_user("boss", APPROVER, password="pw-boss-1")
    assessment = finished_assessment(buyer)
    with override_settings(BRIEF_SIGNING=signing_settings(pki_dir), MEDIA_ROOT=tmp_path / "media"):
        yield assessment
