"""Run one function on untrusted input in a child process that can be stopped.

The public verify page hands an anonymous upload to pyHanko. Parsing a PDF is not
interruptible from the same process, and a crafted file can make it take minutes or grow
without bound (docs/decisions/0019-verify-bounds.md). So the parse runs in a child process with
hard limits that the kernel enforces:

- CPU time (``RLIMIT_CPU``): the kernel stops the child when it has used its seconds;
- memory (``RLIMIT_AS``): allocations beyond the allowance fail (Python's ``MemoryError``);
- wall clock: the parent kills the child (``SIGKILL``) at the deadline, whatever it does;
- priority: the child runs at a lower CPU priority (``nice``) than the web workers.

The child is forked from the caller when the caller runs a single thread, as the kernel counts
them (a gunicorn sync worker, a management command): it starts in a millisecond with the PDF
libraries already imported. A process with other threads (gthread workers, the development
server, a test's live server, a pytest-xdist worker) starts a fresh interpreter instead (``python -m advisor.brief.sandbox``), since a fork
copies locks that other threads may hold; that costs the libraries' import (~0.6 s of CPU),
counted outside the CPU allowance. Both run the same code and the same limits.

A target is ``"module:function"``: a function taking the payload (bytes) and returning the
result (bytes). It should catch its own errors; an exception it lets through is ``crashed``.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import logging
import math
import os
import resource
import selectors
import signal
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

EXIT_OK = 0
EXIT_MEMORY = 3  # the target ran out of its memory allowance (MemoryError)
EXIT_ERROR = 4  # the target raised

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Limits:
    cpu_s: float  # CPU seconds the target may use (rounded up to whole seconds)
    memory_bytes: int  # address space the target may add to what the child starts with
    wall_s: float  # seconds after which the parent kills the child, whatever it does
    nice: int = 10  # added to the child's niceness: page views come first


class Stopped(Exception):
    """The child was stopped or failed; ``reason`` is cpu, memory, deadline or crashed."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


def run(target: str, payload: bytes, limits: Limits, *, method: str | None = None) -> bytes:
    """``target(payload)`` in a child process under ``limits``; its result, or :class:`Stopped`.

    ``method`` is ``"fork"`` or ``"spawn"``; by default fork when this process runs one thread.
    """
    if method is None:
        method = "fork" if hasattr(os, "fork") and _threads() == 1 else "spawn"
    if limits.wall_s <= 0:
        raise Stopped("deadline", "no time allowed")
    if method == "fork":
        return _run_forked(target, payload, limits)
    return _run_spawned(target, payload, limits)


def _threads() -> int:
    """Threads of this process as the kernel counts them: also those a library started
    without Python's ``threading`` (pytest-xdist's channel, C libraries)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count() + 1  # unknown: never fork


# --- In the child ----------------------------------------------------------------------------


def _address_space() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[0]) * resource.getpagesize()


def apply_limits(limits: Limits) -> None:
    """Limit this process (the child): CPU from now, memory above what it holds now."""
    os.nice(limits.nice)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = math.ceil(usage.ru_utime + usage.ru_stime + limits.cpu_s)
    # SIGXCPU at the soft limit (its default action ends the process), SIGKILL a second later.
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    memory = _address_space() + limits.memory_bytes
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _quiet() -> None:
    """No output from the libraries: the parent reports the outcome in one line."""
    logging.disable(logging.CRITICAL)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)


def _call(target: str, payload: bytes) -> tuple[int, bytes]:
    module, _, name = target.partition(":")
    function = getattr(importlib.import_module(module), name)
    try:
        return EXIT_OK, function(payload)
    except MemoryError:
        return EXIT_MEMORY, b""
    except BaseException:  # noqa: BLE001 - the parent reports it as "crashed"
        return EXIT_ERROR, b""


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


# --- Fork ------------------------------------------------------------------------------------

# Signals whose handlers the caller may have set (gunicorn's worker): the child takes the
# default action instead of running the caller's handler.
_RESET = (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT, signal.SIGHUP, signal.SIGUSR1,
          signal.SIGUSR2, signal.SIGWINCH, signal.SIGCHLD, signal.SIGABRT)  # fmt: skip


def _run_forked(target: str, payload: bytes, limits: Limits) -> bytes:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        status = EXIT_ERROR
        try:
            os.close(read_end)
            for number in _RESET:
                signal.signal(number, signal.SIG_DFL)
            _quiet()
            apply_limits(limits)
            status, result = _call(target, payload)
            if status == EXIT_OK:
                _write_all(write_end, result)
        except MemoryError:
            status = EXIT_MEMORY
        except BaseException:  # noqa: BLE001, S110 - reported by the exit status
            pass
        finally:
            os._exit(status)
    os.close(write_end)
    try:
        output, timed_out = _read_until(read_end, time.monotonic() + limits.wall_s)
    finally:
        os.close(read_end)
    if timed_out:
        _kill(pid)
    _pid, status = os.waitpid(pid, 0)
    return _outcome(status, output, timed_out)


def _read_until(fd: int, deadline: float) -> tuple[bytes, bool]:
    """Everything the child writes until it closes the pipe, or (…, True) at the deadline."""
    chunks = []
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                return b"".join(chunks), True
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return b"".join(chunks), False
            chunks.append(chunk)


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def _outcome(status: int, output: bytes, timed_out: bool) -> bytes:
    if timed_out:
        raise Stopped("deadline")
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        if number in (signal.SIGXCPU, signal.SIGKILL):
            raise Stopped("cpu", signal.Signals(number).name)
        raise Stopped("crashed", signal.Signals(number).name)
    code = os.WEXITSTATUS(status)
    if code == EXIT_MEMORY:
        raise Stopped("memory")
    if code != EXIT_OK:
        raise Stopped("crashed", f"exit status {code}")
    return output


# --- Spawn -----------------------------------------------------------------------------------


def _run_spawned(target: str, payload: bytes, limits: Limits) -> bytes:
    spec = json.dumps({"target": target, "limits": asdict(limits)})
    child = subprocess.Popen(
        [sys.executable, "-m", "advisor.brief.sandbox", spec],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # a signal to the caller's group (Ctrl-C) is not the child's
    )
    try:
        output, _ = child.communicate(payload, timeout=limits.wall_s)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        raise Stopped("deadline") from None
    status = child.returncode
    wait_status = (-status) if status < 0 else (status << 8)  # as os.waitpid reports it
    return _outcome(wait_status, output, False)


def main(argv: list[str]) -> int:
    """The spawned child: import the target, limit itself, read stdin, write stdout."""
    spec = json.loads(argv[0])
    target, limits = spec["target"], Limits(**spec["limits"])
    _quiet()
    module = target.partition(":")[0]
    importlib.import_module(module)  # before the limits: the import is not the upload's cost
    apply_limits(limits)
    payload = sys.stdin.buffer.read()
    status, result = _call(target, payload)
    if status == EXIT_OK:
        sys.stdout.buffer.write(result)
        sys.stdout.buffer.flush()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
