"""Every bench script runs on a fresh clone: each answers --help, the quick ones run a tiny mode.

The benches are run as a person runs them (``.venv/bin/python bench/NAME.py``), in a
subprocess from the repository root, with nothing prepared beforehand: the Django benches make
their own throw-away database (migrations, cache table, catalog). The load and fault benches
start their own PostgreSQL cluster and production stack; they and the reference-case benches
are checked here through --help only (their figures are checked by their own tests). The API
bench runs its tiny mode against the session's production stack (``--url``).
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.servers import STACK, manage

ROOT = Path(__file__).resolve().parents[2]
BENCHES = sorted(path.name for path in (ROOT / "bench").glob("[!_]*.py"))


def run_bench(name: str, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    return subprocess.run(
        [sys.executable, str(ROOT / "bench" / name), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_every_bench_is_listed():
    assert len(BENCHES) >= 9 and "results_speed.py" in BENCHES, BENCHES


@pytest.mark.parametrize("name", BENCHES)
def test_bench_answers_help(name):
    done = run_bench(name, "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: {name}"), done.stdout[:200]


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    [
        ("economics_examples.py", (), "net of resale"),
        ("results_speed.py", ("--runs", "1"), "results page, cached"),
        ("recommend_speed.py", ("--runs", "1", "--case", "32b-all"), "32B every site"),
    ],
)
def test_bench_tiny_mode_runs_on_a_fresh_database(name, args, expected):
    done = run_bench(name, *args)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert expected in done.stdout, done.stdout[-2000:]


def test_sizing_speed_bench_sweeps_the_whole_catalog():
    """One sweep; its verdict on the 20 ms goal depends on the machine, its table does not."""
    done = run_bench("sizing_speed.py", "--runs", "1")
    assert done.returncode in (0, 1), done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert "layouts evaluated" in lines[0] and lines[-1] in ("PASS", "FAIL"), done.stdout[-2000:]
    table = [line.split()[0] for line in lines if line.startswith("  ")][1:]  # after the header
    assert len(table) >= 20 and "h100-pcie-80gb" in table, done.stdout


API_BENCH_USER = (
    "from django.contrib.auth.models import Group, User\n"
    "from advisor.roles import PROCUREMENT_STAFF\n"
    "user, _ = User.objects.get_or_create(username='apibench')\n"
    "user.groups.add(Group.objects.get(name=PROCUREMENT_STAFF))\n"
)


@pytest.mark.xdist_group(STACK)
def test_api_bench_tiny_mode_against_the_production_stack(production_stack):
    env = production_stack.env
    manage(env, "load_catalog")
    manage(env, "shell", "-c", API_BENCH_USER)
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "api_load.py"), "--tiny"]
        + ["--url", production_stack.url, "--user", "apibench"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    lines = done.stdout.splitlines()
    # One round: three scenarios to each endpoint, the hostile one answered 400 as expected.
    assert any(line.split()[:4] == ["POST", "/api/v1/size", "3", "0"] for line in lines), lines
    assert any(line.split()[:4] == ["POST", "/api/v1/recommend", "3", "0"] for line in lines)
    assert "6 requests in" in done.stdout, done.stdout
    assert lines[-1] == "errors: 0", lines


TESTS_IMPORT = re.compile(r"^\s*(?:from|import)\s+tests(?:\.|\s|$)", re.MULTILINE)


def test_no_bench_imports_from_the_tests():
    # A bench runs on a clone that may ship without tests/; what both share lives in bench/ or
    # advisor/ (e.g. bench/_servers.py, advisor/demo_scenarios.py).
    found = {
        path.name: TESTS_IMPORT.findall(path.read_text(encoding="utf-8"))
        for path in (ROOT / "bench").glob("*.py")
    }
    assert not {name: lines for name, lines in found.items() if lines}


@pytest.mark.parametrize(
    ("line", "imports"),
    [
        ("from tests.support.users import make_user", True),
        ("    import tests.support.bench", True),
        ("import tests", True),
        ("from testsuite import x", False),
        ("# tests.support is not imported here", False),
    ],
)
def test_the_tests_import_rule(line, imports):
    assert bool(TESTS_IMPORT.search(line)) is imports
