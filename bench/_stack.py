"""A throw-away production stack on loopback for the load and fault benches.

Its own PostgreSQL cluster (``scripts/postgres`` on ADVISOR_PG_PORT, default 54400, so the
suite's server on 54329 is never touched), a fresh database, the production start
(``scripts/serve-production prepare``, then ``web`` and ``worker`` as separate processes so a
bench can kill one), the catalog, procurement users, and a signer standing in for the
organisation's own (production refuses the development one).
Everything is stopped (and the cluster too, when this started it) by :meth:`Stack.stop`.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _servers import free_port, production_env, production_signer  # noqa: E402

from advisor.demo_scenarios import STEP_VALUES  # noqa: E402

PYTHON = ROOT / ".venv" / "bin" / "python"
SERVE = ROOT / "scripts" / "serve-production"
POSTGRES = ROOT / "scripts" / "postgres"
PASSWORD = "load-bench-password-1"

VERSION = re.compile(r'name="version" value="(\d+)"')
OPTION_LINK = re.compile(r'/assessments/\d+/results/option/([^/"]+)/')


def pg_ctl(action: str, port: int) -> str:
    env = {**os.environ, "ADVISOR_PG_PORT": str(port)}
    done = subprocess.run(
        [str(POSTGRES), action], env=env, check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


def pg_ready(port: int) -> bool:
    bindir = sorted(Path("/usr/lib/postgresql").glob("*/bin"))
    isready = str(bindir[-1] / "pg_isready") if bindir else "pg_isready"
    return subprocess.run([isready, "-q", "-h", "127.0.0.1", "-p", str(port)]).returncode == 0


class Stack:
    def __init__(
        self,
        *,
        users: int = 20,
        web_workers: int | None = None,
        pg_port: int = 54400,
        worker_nice: int = 0,
        brief_workers: int = 1,
    ):
        self.pg_port = pg_port
        self.worker_nice = worker_nice
        self.brief_workers = max(1, brief_workers)
        self.users = users
        self.web_workers = web_workers or 2 * (os.cpu_count() or 1) + 1
        self.var = Path(tempfile.mkdtemp(prefix="advisor-stack-"))
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.started_pg = False
        self.web: subprocess.Popen | None = None
        self.worker: subprocess.Popen | None = None  # the first brief worker (benches kill it)
        self.more_workers: list[subprocess.Popen] = []
        self.database = f"advisor_bench_{os.getpid()}"
        self.extra_env: dict[str, str] = {}  # a bench's own settings, for every process
        self.signer: dict[str, str] = {}

    # --- processes ----------------------------------------------------------------------

    def env(self, **extra: str) -> dict:
        env = production_env(self.var, self.database_url)
        env.update(
            DJANGO_SECRET_KEY="bench-only-" + "k" * 50,
            DJANGO_HSTS_SECONDS="0",
            ADVISOR_BIND=f"127.0.0.1:{self.port}",
            ADVISOR_SITE_URL=self.url,
            ADVISOR_TASKS_BACKEND="database",
            WEB_CONCURRENCY=str(self.web_workers),
            AXES_FAILURE_LIMIT="1000",
        )
        if "DATABASE_CONN_MAX_AGE" in os.environ:  # else the production start's default
            env["DATABASE_CONN_MAX_AGE"] = os.environ["DATABASE_CONN_MAX_AGE"]
        env.update(self.signer)
        env.update(self.extra_env)
        env.update(extra)
        return env

    def manage(self, *args: str, **extra: str) -> str:
        done = subprocess.run(
            [str(PYTHON), "manage.py", *args],
            cwd=ROOT,
            env=self.env(**extra),
            capture_output=True,
            text=True,
        )
        if done.returncode:
            raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
        return done.stdout

    def start(self) -> Stack:
        self.started_pg = not pg_ready(self.pg_port)
        server = pg_ctl("start", self.pg_port)
        self.database_url = server.rsplit("/", 1)[0] + "/" + self.database
        self._fresh_database(server)
        subprocess.run(
            [str(SERVE), "prepare"], cwd=ROOT, env=self.env(), check=True, capture_output=True
        )
        self.manage("load_catalog")
        self.manage("setup_demo", "--roles-only")
        # Production refuses the development signer: a stand-in for the organisation's own.
        self.signer = production_signer(self.var / "signing-keys")
        self._create_users()
        self.start_web()
        self.start_worker()
        return self

    def _fresh_database(self, server_url: str) -> None:
        import psycopg

        with psycopg.connect(server_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{self.database}"')

    def _create_users(self) -> None:
        code = (
            "from django.contrib.auth.models import Group, User\n"
            "from advisor.roles import APPROVER, PROCUREMENT_STAFF\n"
            "staff = Group.objects.get(name=PROCUREMENT_STAFF)\n"
            f"for i in range({self.users}):\n"
            "    u = User.objects.create_user(f'loadbuyer{i:02d}', password='" + PASSWORD + "')\n"
            "    u.groups.add(staff)\n"
            "a = User.objects.create_user('loadapprover', password='" + PASSWORD + "')\n"
            "a.groups.add(Group.objects.get(name=APPROVER))\n"
        )
        self.manage("shell", "-c", code)

    def _spawn(self, mode: str, nice: int = 0) -> subprocess.Popen:
        log = (self.var / f"{mode}.log").open("a")
        return subprocess.Popen(
            [*(["nice", "-n", str(nice)] if nice else []), str(SERVE), mode],
            cwd=ROOT,
            env=self.env(),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def start_web(self) -> None:
        self.web = self._spawn("web")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                requests.get(self.url + "/health/", timeout=5)
                return
            except requests.RequestException:
                if self.web.poll() is not None:
                    raise RuntimeError("gunicorn exited:\n" + self.log("web")) from None
                time.sleep(0.3)
        raise RuntimeError("gunicorn did not answer within 60 s")

    def start_worker(self) -> None:
        self.worker = self._spawn("worker", self.worker_nice)
        while len(self.more_workers) < self.brief_workers - 1:
            self.more_workers.append(self._spawn("worker", self.worker_nice))

    def workers(self) -> list[subprocess.Popen]:
        """The brief worker processes started (each leads a session of its own)."""
        return [w for w in (self.worker, *self.more_workers) if w is not None]

    def kill_worker(self, sig: int = signal.SIGKILL) -> None:
        if self.worker is not None and self.worker.poll() is None:
            os.killpg(self.worker.pid, sig)
            self.worker.wait(30)

    def log(self, mode: str) -> str:
        path = self.var / f"{mode}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self) -> None:
        for process in (self.web, *self.workers()):
            if process is not None and process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(30)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
        try:
            if pg_ready(self.pg_port):
                self._drop_database()
        finally:
            if self.started_pg:
                pg_ctl("stop", self.pg_port)
            shutil.rmtree(self.var, ignore_errors=True)

    def _drop_database(self) -> None:
        import psycopg

        server = self.database_url.rsplit("/", 1)[0] + "/postgres"
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')

    def sql(self, query: str) -> list[tuple]:
        import psycopg

        with psycopg.connect(self.database_url) as conn:
            return conn.execute(query).fetchall()


# --- A procurement user's browser --------------------------------------------------------


class Browser:
    """One signed-in user (requests session); every request is timed under a kind."""

    def __init__(self, base_url: str, record, observe=None):
        self.base = base_url
        self.record = record  # record(kind, seconds, ok, detail)
        self.observe = observe  # observe(kind, response): every response, for fault checks
        self.session = requests.Session()
        self.session.headers.update({"Accept-Language": "en", "Origin": base_url})

    def request(self, kind, method, path, *, expect=(200,), **kw) -> requests.Response | None:
        kw.setdefault("timeout", 30)
        kw.setdefault("allow_redirects", False)
        headers = {"Referer": self.base + path, **kw.pop("headers", {})}
        if method == "POST":
            data = dict(kw.pop("data", {}))
            data["csrfmiddlewaretoken"] = self.session.cookies.get("csrftoken", "")
            kw["data"] = data
        start = time.perf_counter()
        try:
            response = self.session.request(method, self.base + path, headers=headers, **kw)
        except requests.RequestException as error:
            self.record(kind, time.perf_counter() - start, False, type(error).__name__)
            return None
        elapsed = time.perf_counter() - start
        # Production cookies are Secure; on plain-HTTP loopback send them back all the same
        # (requests merges cookies into a fresh jar per request, so a jar policy is lost).
        for cookie in self.session.cookies:
            cookie.secure = False
        if self.observe is not None:
            self.observe(kind, response)
        ok = response.status_code in expect
        self.record(kind, elapsed, ok, "" if ok else f"HTTP {response.status_code}")
        return response if ok else None

    def sign_in(self, username: str) -> bool:
        if self.request("sign-in page", "GET", "/accounts/login/") is None:
            return False
        done = self.request(
            "sign in",
            "POST",
            "/accounts/login/",
            data={"username": username, "password": PASSWORD},
            expect=(302,),
        )
        return done is not None

    def walk_wizard(self) -> int | None:
        """Create an assessment, answer the four steps, confirm; returns its id."""
        created = self.request("create", "POST", "/assessments/new/", expect=(302,))
        if created is None:
            return None
        task_list = created.headers["Location"]
        pk = int(task_list.rstrip("/").split("/")[-1])
        if self.request("task list", "GET", task_list) is None:
            return None
        for slug, values in STEP_VALUES.items():
            page = self.request(f"step GET {slug}", "GET", f"/assessments/{pk}/{slug}/")
            if page is None:
                return None
            version = VERSION.search(page.text).group(1)
            saved = self.request(
                f"step POST {slug}",
                "POST",
                f"/assessments/{pk}/{slug}/",
                data={**values, "version": version},
                expect=(302,),
            )
            if saved is None:
                return None
        check = self.request("check GET", "GET", f"/assessments/{pk}/check/")
        if check is None:
            return None
        version = VERSION.search(check.text).group(1)
        confirmed = self.request(
            "check POST",
            "POST",
            f"/assessments/{pk}/check/",
            data={"version": version},
            expect=(302,),
        )
        return pk if confirmed is not None else None

    def results_and_option(self, pk: int) -> str | None:
        page = self.request("results", "GET", f"/assessments/{pk}/results/")
        if page is None:
            return None
        match = OPTION_LINK.search(page.text)
        if match is None:
            self.record("results", 0.0, False, "no option link")
            return None
        key = match.group(1)
        if self.request("option", "GET", f"/assessments/{pk}/results/option/{key}/") is None:
            return None
        return key

    def issue_brief(self, pk: int, key: str) -> int | None:
        issued = self.request(
            "issue brief",
            "POST",
            "/brief/issue/",
            data={"assessment": str(pk), "option": key, "language": "en"},
            expect=(302,),
        )
        if issued is None:
            return None
        location = issued.headers["Location"]
        if "/brief/" not in location:
            self.record("issue brief", 0.0, False, f"redirected to {location}")
            return None
        return int(location.rstrip("/").split("/")[-1])

    def wait_for_brief(self, brief_id: int, timeout: float = 180) -> str:
        """Poll the status partial (as htmx does, every second); 'ready', 'failed' or 'timeout'."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            page = self.request(
                "brief status", "GET", f"/brief/{brief_id}/", headers={"HX-Request": "true"}
            )
            if page is not None and 'hx-trigger="every 1s"' not in page.text:
                return "ready" if f"/brief/{brief_id}/download/" in page.text else "failed"
            time.sleep(1.0)
        return "timeout"
