"""Production settings, HTTPS, headers and the Content Security Policy (docs/decisions/0011)."""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.test import Client, override_settings
from django.urls import reverse

from advisor.assessments import services
from advisor.presentation.charts import Segment, Series, bar_chart, line_chart, stacked_bar
from advisor.roles import PROCUREMENT_STAFF
from config.settings.security import proxy_ssl_header
from tests.support.briefs import signer_env
from tests.support.users import make_user

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venv" / "bin" / "python"


def environment(tmp_path: Path, **values: str) -> dict:
    """This process's environment without the app's own variables, plus ``values``."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "ADVISOR_", "BRIEF_", "DATABASE_", "AXES_"))
    }
    env.update(ADVISOR_VAR_DIR=str(tmp_path), **values)
    return env


def production(tmp_path: Path, **values: str) -> dict:
    return environment(
        tmp_path,
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(60),
        DJANGO_ALLOWED_HOSTS="advisor.example.cn",
        ADVISOR_SITE_URL="https://advisor.example.cn",
        **values,
    )


def manage(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(PYTHON), "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


# --- check --deploy ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"DJANGO_SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto: https"},
    ],
    ids=["direct", "behind a TLS proxy"],
)
def test_production_passes_check_deploy_at_warning_level(tmp_path, pki_dir, extra):
    # The organisation's signer and a timestamp authority (briefs signed PAdES B-LT; none
    # gives the warning brief.W001, docs/decisions/0117).
    timestamps = {"BRIEF_TIMESTAMP_URL": "https://tsa.example.cn/tsr"}
    env = production(tmp_path, **signer_env(pki_dir), **timestamps, **extra)
    result = manage(env, "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_check_deploy_fails_on_the_development_key_and_an_http_site_url(tmp_path):
    env = production(tmp_path)
    del env["DJANGO_SECRET_KEY"], env["ADVISOR_SITE_URL"]
    result = manage(env, "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode != 0
    assert "advisor.W001" in result.stderr and "advisor.W002" in result.stderr


SHOW = (
    "import json; from django.conf import settings as s; print(json.dumps({n: getattr(s, n) for n "
    "in ['SECURE_SSL_REDIRECT', 'SESSION_COOKIE_SECURE', 'CSRF_COOKIE_SECURE', "
    "'SECURE_HSTS_SECONDS', 'SECURE_PROXY_SSL_HEADER', 'SESSION_COOKIE_AGE', "
    "'SESSION_EXPIRE_AT_BROWSER_CLOSE', 'SECURE_CSP', 'SECURE_CSP_REPORT_ONLY', "
    "'PASSWORD_HASHERS']}))"
)


def settings_in(env: dict) -> dict:
    result = manage(env, "shell", "-c", SHOW)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_development_keeps_plain_http(tmp_path):
    shown = settings_in(environment(tmp_path, DJANGO_DEBUG="1"))
    assert shown["SECURE_SSL_REDIRECT"] is False
    assert shown["SESSION_COOKIE_SECURE"] is False and shown["CSRF_COOKIE_SECURE"] is False
    assert shown["SECURE_HSTS_SECONDS"] == 0
    # The policy reports in the console but does not block Django's debug pages.
    assert shown["SECURE_CSP"] == {} and "script-src" in shown["SECURE_CSP_REPORT_ONLY"]


def test_production_settings_from_the_environment(tmp_path):
    shown = settings_in(
        production(
            tmp_path,
            DJANGO_SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto: https",
            DJANGO_SESSION_HOURS="4",
            DJANGO_SESSION_EXPIRE_AT_BROWSER_CLOSE="0",
        )
    )
    assert shown["SECURE_SSL_REDIRECT"] is True
    assert shown["SESSION_COOKIE_SECURE"] is True and shown["CSRF_COOKIE_SECURE"] is True
    assert shown["SECURE_HSTS_SECONDS"] == 365 * 24 * 3600
    assert shown["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert shown["SESSION_COOKIE_AGE"] == 4 * 3600
    assert shown["SESSION_EXPIRE_AT_BROWSER_CLOSE"] is False
    assert "script-src" in shown["SECURE_CSP"] and shown["SECURE_CSP_REPORT_ONLY"] == {}


def test_production_passwords_use_argon2_and_still_accept_pbkdf2(tmp_path):
    """The suite's fast hasher (tests/conftest.py) never reaches a real start."""
    hashers = settings_in(production(tmp_path))["PASSWORD_HASHERS"]
    assert hashers[0] == "advisor.passwords.OwaspArgon2PasswordHasher", hashers
    assert "django.contrib.auth.hashers.PBKDF2PasswordHasher" in hashers
    assert not any("MD5" in hasher for hasher in hashers)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("X-Forwarded-Proto: https", ("HTTP_X_FORWARDED_PROTO", "https")),
        ("x-forwarded-ssl:on", ("HTTP_X_FORWARDED_SSL", "on")),
        ("", None),
        ("X-Forwarded-Proto", None),
    ],
)
def test_proxy_ssl_header_is_parsed(value, expected):
    assert proxy_ssl_header(value) == expected


# --- HTTPS and headers, in process -------------------------------------------------------


@override_settings(SECURE_SSL_REDIRECT=True)
def test_plain_http_is_redirected_to_https():
    response = Client().get("/accounts/login/")
    assert response.status_code == 301
    assert response["Location"] == "https://testserver/accounts/login/"


@override_settings(
    SECURE_SSL_REDIRECT=True, SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https")
)
def test_behind_a_tls_proxy_https_is_served_with_hsts():
    response = Client().get("/accounts/login/", HTTP_X_FORWARDED_PROTO="https")
    assert response.status_code == 200
    assert response["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"


def test_every_page_carries_the_security_headers(client):
    response = client.get("/accounts/login/")
    policy = response["Content-Security-Policy"]
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    for directive in (
        "default-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
        "form-action 'self'",
    ):
        assert directive in policy
    assert response["X-Frame-Options"] == "DENY"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"
    # No device or browser feature is used by any page (issue 33).
    features = dict(item.split("=") for item in response["Permissions-Policy"].split(", "))
    assert {"camera", "microphone", "geolocation", "payment", "usb"} <= set(features)
    assert set(features.values()) == {"()"}


def test_htmx_and_the_noscript_style_carry_the_responses_nonce(client):
    buyer = make_user("buyer", PROCUREMENT_STAFF)
    client.force_login(buyer)
    draft = services.create_assessment(buyer, "x")
    response = client.get(reverse("wizard:step", args=[draft.pk, "model"]))
    nonce = re.search(r"'nonce-([^']+)'", response["Content-Security-Policy"]).group(1)
    html = response.content.decode()
    assert re.search(rf'<script src="[^"]*htmx\.min\.js" defer nonce="{nonce}">', html)
    assert f'<noscript><style nonce="{nonce}">' in html
    assert '"includeIndicatorStyles": false' in html  # htmx injects no <style> of its own
    other = client.get(reverse("wizard:step", args=[draft.pk, "model"]))
    assert nonce not in other["Content-Security-Policy"]  # a new nonce per response


def test_session_and_csrf_cookies_are_secure_and_end_with_the_browser(client):
    make_user("buyer", PROCUREMENT_STAFF, password="pw-for-tests-1")
    page = client.get(reverse("login"))
    csrf = page.cookies["csrftoken"]
    assert csrf["secure"] and csrf["httponly"]
    response = client.post(reverse("login"), {"username": "buyer", "password": "pw-for-tests-1"})
    session = response.cookies["sessionid"]
    assert session["secure"] and session["httponly"] and session["samesite"] == "Lax"
    assert not session["max-age"] and not session["expires"]  # gone when the browser closes
    assert client.session.get_expiry_age() == 8 * 3600


def test_a_sign_in_expires_after_its_hours(client):
    from django.contrib.sessions.models import Session
    from django.utils import timezone

    buyer = make_user("buyer", PROCUREMENT_STAFF)
    client.force_login(buyer)
    assert client.get(reverse("home")).status_code == 200
    Session.objects.update(expire_date=timezone.now() - timezone.timedelta(seconds=1))
    response = client.get(reverse("home"))
    assert response.status_code == 302 and reverse("login") in response["Location"]


# --- What the Content Security Policy would block, found in the sources -----------------

TEMPLATE_DIRS = [ROOT / "templates", *sorted((ROOT / "advisor").glob("**/templates"))]
# Rendered by WeasyPrint into the PDF, never served to a browser.
NOT_SERVED = {"brief/pdf.html", "brief/specification.html", "questionnaire/letter.html"}
INLINE_STYLE_ATTRIBUTE = re.compile(r"""\sstyle\s*=\s*["']""", re.I)
INLINE_HANDLER = re.compile(r"""\s(on[a-z]+|hx-on[:\w-]*)\s*=\s*["']""", re.I)
OPENING = re.compile(r"<(script|style)\b([^>]*)>", re.I)


def served_templates():
    for directory in TEMPLATE_DIRS:
        for path in sorted(directory.rglob("*.html")):
            name = path.relative_to(directory).as_posix()
            if name not in NOT_SERVED:
                yield name, path.read_text(encoding="utf-8")


def test_templates_have_no_inline_styles_handlers_or_unnonced_blocks():
    found = []
    for name, text in served_templates():
        found += [f"{name}: style attribute" for _ in INLINE_STYLE_ATTRIBUTE.finditer(text)]
        found += [f"{name}: {m.group(1)} handler" for m in INLINE_HANDLER.finditer(text)]
        for tag, attributes in OPENING.findall(text):
            external = tag.lower() == "script" and "src=" in attributes
            json_data = 'type="application/json"' in attributes
            if not (external or json_data or "csp_nonce" in attributes):
                found.append(f"{name}: <{tag}> without a nonce")
    assert found == []


def test_the_served_templates_were_scanned():
    names = {name for name, _ in served_templates()}
    assert {"base.html", "wizard/step_base.html", "results/option.html"} <= names
    assert "admin/import_export/export.html" in names  # the CSP-clean override


def test_server_drawn_svg_charts_use_attributes_not_styles():
    charts = [
        stacked_bar(
            [Segment("weights", 14.0), Segment("activations", 20.5)],
            80.0,
            title="Memory <per> GPU",
            unit="GiB",
            capacity_label="usable",
        ),
        line_chart(
            [Series("buy", (1.0, 2.0, 3.0)), Series("rent", (2.0, 2.5, 3.0))],
            title="t",
            x_label="month",
            y_label="CNY",
        ),
        bar_chart([Segment("a", 1.0), Segment("b", 3.0)], title="t", unit="h"),
    ]
    for svg in charts:
        assert "<svg" in svg and "fill=" in svg
        assert not INLINE_STYLE_ATTRIBUTE.search(svg) and "<style" not in svg


def test_suite_runs_in_production_mode_with_the_policy_on():
    assert django_settings.PRODUCTION
    assert "django.middleware.csp.ContentSecurityPolicyMiddleware" in django_settings.MIDDLEWARE


# --- Uploads -------------------------------------------------------------------------------


def test_a_request_body_over_the_limit_is_refused_unread(client):
    too_big = django_settings.ADVISOR_MAX_REQUEST_BYTES + 1
    response = client.post(
        reverse("brief:verify"),
        data=b"x",
        content_type="application/pdf",
        CONTENT_LENGTH=str(too_big),
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 413
    assert "The file is too large" in response.content.decode()
    assert response["Content-Security-Policy"]


def test_upload_limits_are_set():
    assert django_settings.DATA_UPLOAD_MAX_MEMORY_SIZE <= 2_621_440
    assert django_settings.FILE_UPLOAD_MAX_MEMORY_SIZE <= 2_621_440
    assert django_settings.DATA_UPLOAD_MAX_NUMBER_FILES <= 10
    from advisor.brief.verification import MAX_PDF_BYTES

    # The verify form explains a PDF over its limit itself: the request cap sits above it.
    assert MAX_PDF_BYTES < django_settings.ADVISOR_MAX_REQUEST_BYTES


def test_too_many_files_in_one_request_is_a_bad_request(client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    files = [SimpleUploadedFile(f"{i}.pdf", b"%PDF-1.7") for i in range(10)]
    response = client.post(reverse("brief:verify"), {"pdf": files})
    assert response.status_code == 400
