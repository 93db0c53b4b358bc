"""Production serving: the documented start, static files, and a database outage as a 503."""

import re
import subprocess
from io import StringIO
from pathlib import Path
from unittest import mock

import pytest
import requests
from django.contrib.auth.models import User
from django.contrib.sessions.backends.db import SessionStore
from django.core.management import call_command
from django.db.migrations.loader import MigrationLoader
from django.db.utils import InterfaceError, OperationalError
from django.test import Client
from django.urls import reverse

from tests.support.servers import (
    SERVE,
    STACK,
    Server,
    free_port,
    production_env,
)

UNAVAILABLE_ZH = "服务暂时不可用"
UNAVAILABLE_EN = "Service briefly unavailable"


@pytest.fixture
def client_500():
    """A client that gets the response Django would serve, not the raised exception.

    Requests go over HTTPS (``secure=True``), as production serves them.
    """
    return Client(raise_request_exception=False)


@pytest.mark.django_db
class TestDatabaseOutagePage:
    def test_view_failing_on_the_database_gets_a_translated_503(self, client_500):
        user = User.objects.create_user("outage")
        client_500.force_login(user)
        with mock.patch("advisor.views.assessments_for", side_effect=OperationalError("down")):
            response = client_500.get(reverse("home"), secure=True)
        assert response.status_code == 503
        assert response["Retry-After"] == "30"
        body = response.content.decode()
        assert UNAVAILABLE_ZH in body and "Traceback" not in body and "down" not in body
        assert '<html lang="zh-hans">' in body

    def test_english_reader_gets_the_english_page(self, client_500):
        client_500.cookies["django_language"] = "en"
        with mock.patch.object(SessionStore, "load", side_effect=InterfaceError("closed")):
            client_500.cookies["sessionid"] = "x" * 32
            response = client_500.get(reverse("home"), secure=True)
        assert response.status_code == 503
        body = response.content.decode()
        assert UNAVAILABLE_EN in body and "Please try again in about 30 seconds." in body
        assert response["Content-Language"] == "en"

    def test_failure_while_saving_the_session_after_the_view_is_a_503(self, client_500):
        """The session is written in middleware after the view: still the friendly page."""
        User.objects.create_user("saver", password="a-long-pass-phrase-42")
        with mock.patch.object(SessionStore, "save", side_effect=OperationalError("gone")):
            response = client_500.post(
                reverse("login"),
                {"username": "saver", "password": "a-long-pass-phrase-42"},
                secure=True,
            )
        assert response.status_code == 503
        assert UNAVAILABLE_ZH in response.content.decode()

    def test_api_client_gets_json(self, client_500):
        user = User.objects.create_user("api")
        client_500.force_login(user)
        with mock.patch("advisor.views.assessments_for", side_effect=OperationalError("down")):
            response = client_500.get(
                reverse("home"), secure=True, headers={"accept": "application/json"}
            )
        assert response.status_code == 503
        assert response.json()["database"] == "unreachable"

    def test_other_errors_stay_an_ordinary_500(self, client_500):
        user = User.objects.create_user("bug")
        client_500.force_login(user)
        with mock.patch("advisor.views.assessments_for", side_effect=RuntimeError("bug")):
            response = client_500.get(reverse("home"), secure=True)
        assert response.status_code == 500
        assert UNAVAILABLE_ZH not in response.content.decode()

    def test_health_reports_the_database(self, client_500):
        assert client_500.get(reverse("health"), secure=True).json() == {
            "status": "ok",
            "database": "ok",
        }
        with mock.patch(
            "django.db.backends.base.base.BaseDatabaseWrapper.cursor",
            side_effect=OperationalError("down"),
        ):
            response = client_500.get(reverse("health"), secure=True)
        assert response.status_code == 503
        assert response.json()["database"] == "unreachable"


# The production start runs on its own SQLite file, in the SQLite stage (not marked `database`);
# the PostgreSQL stage starts app servers in test_two_app_servers.py instead. The session's one
# production stack (tests/integration/conftest.py) serves the tests of its xdist group.


@pytest.mark.xdist_group(STACK)
def test_production_start_serves_pages_static_files_and_runs_the_worker(production_stack):
    server = production_stack
    health = requests.get(server.url + "/health/", timeout=5)
    assert health.status_code == 200 and health.json()["database"] == "ok"

    login = requests.get(server.url + "/accounts/login/", timeout=5)
    assert login.status_code == 200
    # Hashed names from the collected manifest, served by whitenoise, compressed and cached.
    css = re.search(r'href="(/static/css/site\.[0-9a-f]{12}\.css)"', login.text).group(1)
    served = requests.get(server.url + css, headers={"Accept-Encoding": "gzip"}, timeout=5)
    assert served.status_code == 200
    assert served.headers["Content-Encoding"] == "gzip"
    assert "max-age=315360000" in served.headers["Cache-Control"]
    assert "immutable" in served.headers["Cache-Control"]
    # Only the hashed names are collected, and source maps are not compressed (settings).
    collected = Path(server.env["ADVISOR_VAR_DIR"]) / "staticfiles"
    assert (collected / css.removeprefix("/static/")).exists()
    assert not (collected / "css" / "site.css").exists()
    assert requests.get(server.url + "/static/css/site.css", timeout=5).status_code == 404
    maps = list(collected.rglob("*.map"))
    assert maps and not list(collected.rglob("*.map.br")) and not list(collected.rglob("*.map.gz"))

    # The task worker runs beside gunicorn (after requeueing any stuck brief).
    output = server.output()
    assert "Booting worker" in output  # gunicorn
    assert "Starting worker" in output and "queues=default" in output  # db_worker


def session_processes(session: int) -> dict[str, dict[str, str]]:
    """Command line -> environment of each live process in ``session`` (Linux /proc)."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
            if int(text[text.rfind(")") + 2 :].split()[3]) != session:
                continue
            command = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            pairs = (stat.parent / "environ").read_bytes().split(b"\0")
        except OSError:  # the process ended meanwhile
            continue
        found[command] = dict(p.decode().split("=", 1) for p in pairs if b"=" in p)
    return found


@pytest.mark.xdist_group(STACK)
def test_production_start_keeps_database_connections(production_stack):
    """gunicorn and the brief workers reuse one connection each, not one per request
    (DATABASE_CONN_MAX_AGE unset here: the production start's default, decision 0069)."""
    assert "DATABASE_CONN_MAX_AGE" not in production_stack.env
    processes = session_processes(production_stack.process.pid)
    served = {c: e for c, e in processes.items() if "gunicorn" in c or "brief_worker" in c}
    assert any("gunicorn" in c for c in served) and any("brief_worker" in c for c in served)
    assert {e.get("DATABASE_CONN_MAX_AGE") for e in served.values()} == {"60"}


@pytest.mark.xdist_group(STACK)
def test_unreachable_database_is_a_friendly_503_from_gunicorn(production_stack):
    closed_port = free_port()  # nothing listens here: every connection is refused
    # The stack's data directory holds the collected static manifest ("web" mode does not
    # prepare; without the manifest every page would be a 500 for that reason instead).
    env = {
        **production_stack.env,
        "DATABASE_URL": f"postgres://advisor@127.0.0.1:{closed_port}/advisor",
    }
    server = Server(env, mode="web")
    try:
        server.wait_until_up(timeout=180)  # an upper bound for a busy machine
        health = requests.get(server.url + "/health/", timeout=10)
        assert health.status_code == 503 and health.json()["database"] == "unreachable"

        for path, language, text in [
            ("/accounts/login/", "zh-hans", UNAVAILABLE_ZH),
            ("/", "en", UNAVAILABLE_EN),
        ]:
            page = requests.get(
                server.url + path,
                cookies={"django_language": language, "sessionid": "s" * 32},
                timeout=10,
            )
            assert page.status_code == 503, (path, page.text[:300])
            assert text in page.text and "Traceback" not in page.text
            assert page.headers["Retry-After"] == "30"
    finally:
        server.stop()


@pytest.mark.database
@pytest.mark.django_db
def test_models_and_migrations_agree(settings):
    """`makemigrations --check` finds nothing to write: every model change has its migration.

    The suite's test databases are made from the models (``--no-migrations``, decision 0027),
    which hides the migration modules from Django while the session runs: the check reads them
    again (``MIGRATION_MODULES`` back to the default) and fails if it finds none. The
    migrations run from empty on SQLite (production start, restores) and PostgreSQL (two app
    servers, the ``pg_dump`` round trip), in subprocesses.
    """
    settings.MIGRATION_MODULES = {}
    found = MigrationLoader(None, ignore_no_migrations=True).migrated_apps
    assert {"advisor", "wizard", "brief", "questionnaire", "vendors"} <= found
    out = StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit as exit_:
        pytest.fail(f"makemigrations --check exited {exit_.code}:\n{out.getvalue()}")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"DJANGO_DEBUG": "1"}, "DJANGO_DEBUG is on"),
        ({"DJANGO_SECRET_KEY": ""}, "set DJANGO_SECRET_KEY"),
        ({"DJANGO_ALLOWED_HOSTS": ""}, "set DJANGO_ALLOWED_HOSTS"),
    ],
)
def test_production_start_refuses_an_unsafe_configuration(tmp_path, change, message):
    env = {**production_env(tmp_path, f"sqlite:///{tmp_path / 'db.sqlite3'}"), **change}
    result = subprocess.run(
        [str(SERVE)], env=env, capture_output=True, text=True, timeout=30, check=False
    )
    assert result.returncode != 0 and message in result.stderr
    assert not (tmp_path / "db.sqlite3").exists(), "nothing was prepared"


@pytest.mark.xdist_group(STACK)
def test_five_hostile_uploads_at_once_on_the_production_stack(production_stack):
    """gunicorn's workers check each crafted PDF in a child process and answer every upload
    plainly (422, or 503 with Retry-After when every verification slot is taken), never a 500,
    while /health/ keeps answering. The latency figures are bench/verify_attack.py's."""
    from concurrent.futures import ThreadPoolExecutor

    from tests.support.bench import load_bench

    hostile = load_bench("_hostile_pdfs")
    files = [make() for make in hostile.HOSTILE.values()]
    files.append(hostile.fields_in_object_streams(20_000))
    url = production_stack.url

    def upload(data: bytes):
        session = requests.Session()
        session.get(url + "/brief/verify/", timeout=60)
        for cookie in session.cookies:
            cookie.secure = False
        response = session.post(
            url + "/brief/verify/",
            data={"csrfmiddlewaretoken": session.cookies.get("csrftoken", "")},
            files={"pdf": ("upload.pdf", data, "application/pdf")},
            headers={"Referer": url + "/brief/verify/", "Accept-Language": "en"},
            timeout=60,  # an upper bound for a busy machine: the page waits at most 4 s
        )
        return response.status_code, response.headers.get("Retry-After"), response.text

    with ThreadPoolExecutor(max_workers=5) as pool:
        answers = list(pool.map(upload, files[:5]))
        health = requests.get(url + "/health/", timeout=60)
    assert health.status_code == 200
    for status, retry_after, text in answers:
        assert status in (422, 429, 503), (status, text[:500])
        if status == 422:
            assert "too complex to check here" in text or "the check was stopped" in text
        else:
            assert retry_after and "Traceback" not in text
    assert any(status == 422 for status, _, _ in answers)
