"""Production hygiene: error logs with tracebacks, unsafe characters, caching, /health/ on HTTP.

Findings: production logged no traceback for a 500; a NUL byte in the preset search gave a 500
on PostgreSQL; personal pages and brief PDFs had no Cache-Control; bidi controls in a room or
model name reordered the system's text in the signed PDF; /health/ answered 301 over HTTP.
"""

import json
import logging
import subprocess
import sys
import textwrap

import pytest
from django.test import Client, override_settings
from django.urls import reverse

from advisor.assessments import services
from advisor.brief.render import BriefMeta, render_html, typed_names_isolated
from advisor.log import JsonFormatter
from advisor.roles import PROCUREMENT_STAFF
from advisor.text import FSI, PDI, clean_text, isolate
from tests.support.servers import PYTHON, ROOT, production_env
from tests.support.users import make_user

# --- NUL and bidi controls --------------------------------------------------------------------

RLO, LRI, PDF_, NUL = "\u202e", "\u2066", "\u202c", "\x00"


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        (f"Room{NUL} 1", "Room 1"),
        (f"{RLO}moor ruO{PDF_}", "moor ruO"),
        (f"A{LRI}B\u2069C\u200e\u200fD\u061c", "ABCD"),
        ("机房 A\tB\nC", "机房 A\tB\nC"),  # tabs, line breaks and Chinese stay
        ("\u05d0\u05d1 room", "\u05d0\u05d1 room"),  # right-to-left letters themselves stay
    ],
)
def test_clean_text_removes_nul_and_bidi_controls_only(typed, kept):
    assert clean_text(typed) == kept


def test_isolate_wraps_a_cleaned_name():
    assert isolate(f"{RLO}x") == f"{FSI}x{PDI}"
    assert isolate("") == "" and isolate(None) == ""


@pytest.fixture
def buyer(client):
    user = make_user("hygiene-buyer", PROCUREMENT_STAFF, password="pw")
    client.force_login(user)
    return user


@pytest.mark.django_db
@pytest.mark.database  # PostgreSQL refuses NUL in a query parameter; SQLite does not
def test_nul_in_the_preset_search_is_not_an_error(client, buyer):
    response = client.get(reverse("wizard:preset_options"), {"q": f"qw{NUL}en", "preset": NUL})
    assert response.status_code == 200


@pytest.mark.django_db
def test_typed_names_are_stored_without_controls(client, buyer):
    draft = services.create_assessment(buyer, "x")
    response = client.post(
        reverse("wizard:rename", args=[draft.pk]),
        {"title": f"{RLO}Support{NUL} bot", "version": draft.version},
    )
    assert response.status_code == 302
    draft.refresh_from_db()
    assert draft.title == "Support bot"


def test_names_in_the_pdf_are_isolated_and_the_frozen_snapshot_is_not(settings):
    room = {"key": "own-room", "name": f"{RLO}Our room"}
    snapshot = {
        "scenario": {"model": {"name": f"Qwen{RLO}"}},
        "options": [{"data_center": dict(room), "vendor": dict(room)}],
    }
    meta = BriefMeta(
        number="FT-2026-000001",
        language="en",
        status="approved",
        status_label="Approved",
        approved=True,
        prepared_by=f"{RLO}Mallory",
        prepared_at=None,
        approved_by="Boss",
        approved_at=None,
        verify_url="https://x/",
        organisation="Org",
    )
    shown, shown_meta = typed_names_isolated(snapshot, meta)
    assert shown["scenario"]["model"]["name"] == f"{FSI}Qwen{PDI}"
    assert shown["options"][0]["data_center"]["name"] == f"{FSI}Our room{PDI}"
    assert shown["options"][0]["vendor"]["name"] == f"{FSI}Our room{PDI}"
    assert shown_meta.prepared_by == f"{FSI}Mallory{PDI}"
    assert shown_meta.approved_by == f"{FSI}Boss{PDI}"
    assert snapshot["scenario"]["model"]["name"] == f"Qwen{RLO}", "the snapshot stays as frozen"


@pytest.mark.django_db
@pytest.mark.usefixtures("brief_ready", "one_page_briefs")
def test_a_rendered_brief_has_no_bidi_override_from_a_typed_name(
    django_capture_on_commit_callbacks,
):
    from advisor.brief import services as brief_services
    from advisor.brief.generation import meta
    from tests.integration.test_recommend_catalog import SCENARIO

    user = make_user(f"{RLO}evil", PROCUREMENT_STAFF, first_name=f"{RLO}Eve")
    document = {**SCENARIO, "model": {**SCENARIO["model"], "name": f"Qwen{RLO}-7B"}}
    with django_capture_on_commit_callbacks(execute=False):
        brief = brief_services.issue_brief(user=user, document=document, language="en")
    html = render_html(brief.snapshot, meta(brief, approved=False))
    assert RLO not in html
    assert f"{FSI}Qwen-7B{PDI}" in html and f"{FSI}Eve{PDI}" in html


# --- Cache-Control ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_personal_pages_are_private_and_not_stored(client, buyer):
    for url in (reverse("home"), reverse("brief:list")):
        response = client.get(url)
        assert response.status_code == 200
        directives = {d.strip() for d in response["Cache-Control"].split(",")}
        assert {"private", "no-store"} <= directives and "public" not in directives


@pytest.mark.django_db
def test_public_pages_are_not_marked_private(client):
    response = client.get(reverse("brief:verify"))
    assert "private" not in response.get("Cache-Control", "")


@pytest.mark.django_db
@pytest.mark.usefixtures("brief_ready", "one_page_briefs")
def test_a_brief_pdf_download_is_private_and_not_stored(
    client, buyer, django_capture_on_commit_callbacks
):
    from advisor.brief import services as brief_services
    from tests.integration.test_recommend_catalog import SCENARIO

    with django_capture_on_commit_callbacks(execute=True):
        brief = brief_services.issue_brief(user=buyer, document=SCENARIO, language="en")
    response = client.get(reverse("brief:download", args=[brief.pk]))
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    assert {"private", "no-store"} <= {d.strip() for d in response["Cache-Control"].split(",")}


# --- /health/ over plain HTTP ----------------------------------------------------------------


@pytest.mark.django_db
def test_health_answers_over_plain_http_while_pages_redirect():
    client = Client()
    with override_settings(SECURE_SSL_REDIRECT=True, ALLOWED_HOSTS=["testserver"]):
        assert client.get("/health/").status_code == 200
        assert client.get("/brief/verify/").status_code == 301


# --- Error logs with tracebacks ---------------------------------------------------------------


def test_the_formatter_writes_one_json_line_with_the_traceback():
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        record = logging.getLogger("django.request").makeRecord(
            "django.request",
            logging.ERROR,
            __file__,
            1,
            "Internal Server Error: %s",
            ("/x/",),
            sys.exc_info(),
        )
    line = JsonFormatter().format(record)
    assert "\n" not in line
    entry = json.loads(line)
    assert entry["level"] == "ERROR" and entry["message"] == "Internal Server Error: /x/"
    assert entry["exception"] == "RuntimeError" and "RuntimeError: boom" in entry["traceback"]


def test_production_logs_a_500_with_its_traceback_on_stderr(tmp_path):
    """In a production-mode process: a view that raises leaves a JSON line with the traceback."""
    script = textwrap.dedent(
        """
        import sys, types
        import django
        django.setup()
        from django.test import Client, override_settings
        from django.urls import path

        def boom(request):
            raise RuntimeError("boom in a view")

        urls = types.ModuleType("boom_urls")
        urls.urlpatterns = [path("boom/", boom)]
        sys.modules["boom_urls"] = urls
        with override_settings(ROOT_URLCONF="boom_urls"):
            status = Client(raise_request_exception=False).get("/boom/", HTTP_HOST="localhost").status_code
        print(status)
        """
    )
    env = production_env(tmp_path, f"sqlite:///{tmp_path / 'db.sqlite3'}")
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    result = subprocess.run(
        [str(PYTHON), "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.stdout.strip() == "500", result.stderr[-2000:]
    entries = [json.loads(line) for line in result.stderr.splitlines() if line.startswith("{")]
    errors = [e for e in entries if e["logger"] == "django.request" and e["level"] == "ERROR"]
    assert errors, result.stderr[-2000:]
    assert errors[0]["status"] == 500 and errors[0]["path"] == "/boom/"
    assert "RuntimeError: boom in a view" in errors[0]["traceback"]
