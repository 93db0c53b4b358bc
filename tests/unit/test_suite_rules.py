"""Rules of the test suite itself: no outcome depends on time, nothing is silently skipped.

Every Hypothesis test of the suite runs without a deadline and without the "too slow" health
check (tests/conftest.py registers the profile; a test's own ``@settings`` inherits from it), so
a busy machine cannot fail an example that passes on a quiet one. Tests do not skip on missing
data or tools: a missing file or program fails the test that needs it.
"""

import importlib
import os
import pkgutil
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

import tests

TESTS = Path(tests.__file__).resolve().parent


def hypothesis_tests():
    """(name, settings) of every @given test in the suite's modules."""
    found = []
    for module_info in pkgutil.walk_packages([str(TESTS)], prefix="tests."):
        if not module_info.name.rsplit(".", 1)[-1].startswith("test_"):
            continue
        module = importlib.import_module(module_info.name)
        for name, value in vars(module).items():
            candidates = [value]
            if isinstance(value, type):
                candidates = [getattr(value, attr) for attr in vars(value)]
            for candidate in candidates:
                inner = getattr(candidate, "hypothesis", None)
                if inner is not None and hasattr(candidate, "_hypothesis_internal_use_settings"):
                    found.append((f"{module_info.name}.{name}", candidate))
    return found


def test_the_suite_profile_has_no_deadline():
    current = hypothesis_settings()
    assert current.deadline is None
    assert HealthCheck.too_slow in current.suppress_health_check


def test_every_hypothesis_test_runs_without_a_deadline():
    found = hypothesis_tests()
    # The suite has property tests in several modules (economics, sizing, storage, forms …).
    assert len(found) >= 10, [name for name, _ in found]
    timed = [
        name for name, test in found if test._hypothesis_internal_use_settings.deadline is not None
    ]
    assert timed == []


# A skip that hides missing data or tools: pytest.skip(...), skipif, importorskip. Tests that
# need PostgreSQL are marked `postgres` and deselected off it instead (tests/conftest.py).
SKIP = re.compile(r"pytest\.skip\(|\.skipif\(|importorskip\(|mark\.skip\b")


@pytest.mark.parametrize(
    "path",
    sorted(p for p in TESTS.rglob("*.py") if p.name != Path(__file__).name),
    ids=lambda p: str(p.relative_to(TESTS)),
)
def test_no_test_skips(path):
    lines = [
        f"{path.name}:{number}: {line.strip()}"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if SKIP.search(line)
    ]
    assert lines == [], "fail instead of skipping when data or a tool is missing"


@pytest.mark.parametrize(
    ("node_id", "unstable"),
    [
        ("t.py::test[frozenset({'b', 'a'})]", True),
        ("t.py::test[{'b', 'a'}]", True),
        ("t.py::test[set({1, 2})]", True),
        ("t.py::test[frozenset(['a', 'b'])]", False),
        ("t.py::test[{'plain': {'nested': 1}}]", False),
        ("t.py::test[{'a': 1, 'b': 2}]", False),
    ],
    ids=["frozenset", "set literal", "set call", "frozenset of a list", "nested dict", "dict"],
)
def test_ids_holding_a_sets_repr_are_refused_at_collection(node_id, unstable):
    """A set's repr follows the hash seed: two xdist workers would collect different ids."""
    from tests.conftest import SET_REPR

    assert bool(SET_REPR.search(node_id)) is unstable


GROUPED_TESTS = """
import os

import pytest


@pytest.mark.xdist_group("together")
@pytest.mark.parametrize("number", range(8))
def test_grouped(number):
    assert os.environ["PYTEST_XDIST_WORKER"].startswith("gw"), number
"""


def test_an_xdist_group_runs_in_one_worker(tmp_path):
    """scripts/test's ``--dist loadgroup`` keeps a group's tests in one worker (its session
    fixture, a production stack or the seeded production data, made once): the suite's own
    collection hook, on a throw-away file of eight grouped tests run by two workers."""
    (tmp_path / "conftest.py").write_text(
        "from tests.conftest import pytest_collection_modifyitems  # noqa: F401\n"
    )
    (tmp_path / "test_grouped.py").write_text(GROUPED_TESTS)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:django"]
        + ["-n", "2", "--dist", "loadgroup", "-v", "-c", str(tmp_path / "pytest.ini")]
        + [str(tmp_path)],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(TESTS.parent)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    passed = re.findall(r"\[(gw\d)\] \[\s*\d+%\] PASSED \S+@together", done.stdout)
    assert len(passed) == 8, done.stdout[-3000:]
    assert len(set(passed)) == 1, passed


class _Item:
    """A collected test as the PostgreSQL stage's guard reads it."""

    def __init__(self, nodeid: str, *markers: pytest.MarkDecorator):
        self.nodeid = nodeid
        self.markers = [m.mark for m in markers]

    def get_closest_marker(self, name):
        return next((m for m in self.markers if m.name == name), None)

    def iter_markers(self, name):
        return (m for m in self.markers if m.name == name)


@pytest.mark.parametrize("stage_url", ["postgres://x@127.0.0.1:1/x", ""])
def test_the_postgresql_stage_refuses_a_grouped_test_it_would_spread(monkeypatch, stage_url):
    """scripts/test runs the PostgreSQL stage with --dist worksteal, which ignores xdist_group."""
    from tests.conftest import pytest_collection_finish

    monkeypatch.setenv("DATABASE_URL", stage_url)
    grouped = _Item("t.py::grouped", pytest.mark.database, pytest.mark.xdist_group("g"))
    sqlite_only = _Item("t.py::sqlite_only", pytest.mark.xdist_group("g"))
    plain = _Item("t.py::plain", pytest.mark.database)
    pytest_collection_finish(SimpleNamespace(items=[sqlite_only, plain]))  # allowed
    if stage_url:
        with pytest.raises(pytest.UsageError, match="t.py::grouped"):
            pytest_collection_finish(SimpleNamespace(items=[grouped, plain]))
    else:
        pytest_collection_finish(SimpleNamespace(items=[grouped, plain]))  # SQLite: loadgroup
