"""Running the production start (scripts/serve-production) in a subprocess for tests."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

import requests

from tests.support.bench import load_bench

_servers = load_bench("_servers")
free_port = _servers.free_port
production_env = _servers.production_env

ROOT = Path(__file__).resolve().parents[2]
SERVE = ROOT / "scripts" / "serve-production"
PYTHON = ROOT / ".venv" / "bin" / "python"


def manage(env: dict, *args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(PYTHON), "manage.py", *args],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
        **kwargs,
    )


# The xdist group of the tests that use the session's production stack (--dist loadgroup).
STACK = "production-stack"


class Server:
    """``scripts/serve-production <mode>`` in its own process group, stopped with SIGTERM."""

    def __init__(self, env: dict, mode: str | None = None, log: Path | None = None):
        self.env = env
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log or Path(env["ADVISOR_VAR_DIR"]) / f"serve-{self.port}.log"
        env = {**env, "ADVISOR_BIND": f"127.0.0.1:{self.port}"}
        env.setdefault("WEB_CONCURRENCY", "2")
        with self.log.open("w") as out:
            self.process = subprocess.Popen(
                [str(SERVE), *([mode] if mode else [])],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    # Timeouts here are upper bounds for a busy machine: a healthy server answers long before.
    def wait_until_up(self, timeout: float = 180) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"server exited {self.process.returncode}:\n{self.output()}")
            try:
                requests.get(self.url + "/health/", timeout=5)
                return
            except (requests.ConnectionError, requests.Timeout):
                time.sleep(0.2)
        raise AssertionError(f"server did not answer within {timeout} s:\n{self.output()}")

    def wait_for_output(self, text: str, timeout: float = 60) -> None:
        """Poll the log until ``text`` appears (bounded by ``timeout``; never a fixed sleep)."""
        deadline = time.monotonic() + timeout
        while text not in self.output():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"no {text!r} within {timeout} s:\n{self.output()}")
            time.sleep(0.2)

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self, timeout: float = 20) -> int:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        return self.process.returncode


class LoopbackSession(requests.Session):
    """A client session that sends Secure cookies over plain HTTP (tests talk to loopback)."""

    def prepare_request(self, request):
        for cookie in self.cookies:
            cookie.secure = False
        return super().prepare_request(request)


def browser_session() -> requests.Session:
    return LoopbackSession()


def log_in(session: requests.Session, base_url: str, username: str, password: str) -> None:
    page = session.get(base_url + "/accounts/login/", timeout=10)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    response = session.post(
        base_url + "/accounts/login/",
        data={"username": username, "password": password, "csrfmiddlewaretoken": token},
        headers={"Referer": base_url + "/accounts/login/", "Origin": base_url},
        timeout=10,
        allow_redirects=False,
    )
    assert response.status_code == 302, response.text[:500]


def csrf_token(session: requests.Session) -> str:
    return session.cookies["csrftoken"]


def on_postgres_stage() -> bool:
    """The PostgreSQL half of scripts/test (DATABASE_URL names the test server)."""
    return os.environ.get("DATABASE_URL", "").startswith("postgres")


@contextmanager
def fresh_postgres_databases(count: int):
    """New, empty databases on the test PostgreSQL server, dropped afterwards."""
    import psycopg

    server = os.environ["DATABASE_URL"]
    base = server.rsplit("/", 1)[0]
    names = [f"advisor_test_{uuid.uuid4().hex[:10]}" for _ in range(count)]
    with psycopg.connect(server, autocommit=True) as connection:
        for name in names:
            connection.execute(f'CREATE DATABASE "{name}"')
    try:
        yield [f"{base}/{name}" for name in names]
    finally:
        with psycopg.connect(server, autocommit=True) as connection:
            for name in names:
                connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
