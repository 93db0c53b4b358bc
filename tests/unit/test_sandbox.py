"""advisor.brief.sandbox: a child process the kernel and the caller can always stop.

Each limit is tested by what stops the child, not by how long it took: a target that spins is
stopped by its CPU limit, one that sleeps by the deadline, one that allocates by its memory
limit; the deadlines are upper bounds far above what the outcome needs.
"""

import threading

import pytest

from advisor.brief import sandbox

TARGETS = "tests.support.sandbox_targets"
# Forcing a fork in a process with other threads (a pytest-xdist worker has one) is what the
# tests ask for here; the product forks only a single-threaded process.
pytestmark = pytest.mark.filterwarnings("ignore:This process .* is multi-threaded")
GENEROUS = sandbox.Limits(cpu_s=1, memory_bytes=256 * 1024 * 1024, wall_s=120)
METHODS = ["fork", "spawn"]


@pytest.mark.parametrize("method", METHODS)
def test_a_result_comes_back(method):
    payload = bytes(range(256)) * 4096  # 1 MiB each way: no pipe fills up and blocks
    assert sandbox.run(f"{TARGETS}:echo", payload, GENEROUS, method=method) == payload[::-1]


@pytest.mark.parametrize("method", METHODS)
def test_the_cpu_limit_stops_a_spinning_child(method):
    with pytest.raises(sandbox.Stopped) as stopped:
        sandbox.run(f"{TARGETS}:spin", b"", GENEROUS, method=method)
    assert stopped.value.reason == "cpu"


@pytest.mark.parametrize("method", METHODS)
def test_the_deadline_stops_a_child_that_uses_no_cpu(method):
    limits = sandbox.Limits(cpu_s=60, memory_bytes=256 * 1024 * 1024, wall_s=0.5)
    with pytest.raises(sandbox.Stopped) as stopped:
        sandbox.run(f"{TARGETS}:sleep", b"", limits, method=method)
    assert stopped.value.reason == "deadline"


@pytest.mark.parametrize("method", METHODS)
def test_the_memory_limit_stops_a_child_that_allocates(method):
    limits = sandbox.Limits(cpu_s=30, memory_bytes=128 * 1024 * 1024, wall_s=120)
    with pytest.raises(sandbox.Stopped) as stopped:
        sandbox.run(f"{TARGETS}:hog", b"", limits, method=method)
    assert stopped.value.reason == "memory"


@pytest.mark.parametrize("method", METHODS)
def test_an_exception_in_the_target_is_a_crash_not_an_answer(method):
    with pytest.raises(sandbox.Stopped) as stopped:
        sandbox.run(f"{TARGETS}:fail", b"", GENEROUS, method=method)
    assert stopped.value.reason == "crashed"


def test_no_time_allowed_starts_no_child():
    limits = sandbox.Limits(cpu_s=1, memory_bytes=1, wall_s=0)
    with pytest.raises(sandbox.Stopped, match="deadline"):
        sandbox.run(f"{TARGETS}:echo", b"x", limits)


def test_a_process_with_threads_spawns_instead_of_forking(monkeypatch):
    used = []
    monkeypatch.setattr(sandbox, "_run_forked", lambda *a: used.append("fork") or b"")
    monkeypatch.setattr(sandbox, "_run_spawned", lambda *a: used.append("spawn") or b"")
    monkeypatch.setattr(sandbox, "_threads", lambda: 1)
    sandbox.run(f"{TARGETS}:echo", b"", GENEROUS)
    monkeypatch.undo()
    monkeypatch.setattr(sandbox, "_run_forked", lambda *a: used.append("fork") or b"")
    monkeypatch.setattr(sandbox, "_run_spawned", lambda *a: used.append("spawn") or b"")
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        sandbox.run(f"{TARGETS}:echo", b"", GENEROUS)
    finally:
        release.set()
        other.join()
    assert used == ["fork", "spawn"]


def test_threads_are_counted_as_the_kernel_counts_them():
    before = sandbox._threads()
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert sandbox._threads() == before + 1
    finally:
        release.set()
        other.join()
