"""The brief worker yields the CPU to page views while its briefs are on time (decisions 0079
and 0145).

A brief worker renders each brief in a thread of its own (Linux keeps a niceness per thread).
While the brief it takes has waited less than ``BRIEF_LATE_AFTER_S`` since it was queued, that
thread runs at ``BRIEF_WORKER_NICE`` (``ADVISOR_WORKER_NICE``, default 10): a brief's second of
CPU yields to page views. A brief that has waited longer is late: its thread keeps the process's
own niceness, a page view's, so the queue drains even while page views keep the CPUs busy. The
worker's main thread (taking tasks, the watchdog) is never niced, so the next brief's thread can
start at either. A worker started niced as a whole (``nice -n 10 manage.py brief_worker``) never
renders below that niceness: an unprivileged thread may raise its niceness, not lower it.

With Linux's autogroups (``kernel.sched_autogroup_enabled``, on by default in most
distributions) the scheduler first shares the CPUs between sessions and only then between the
threads of each session by their niceness: a worker started in a session of its own (its own
terminal, a service manager's unit, a bench's stack) would get as much CPU as the whole web,
niced or not. A worker that leads its own session therefore gives its session's autogroup the
niceness of the brief it renders (an unprivileged process may set its own group's niceness to any
value from 0 up); one that shares a session (``scripts/serve-production``'s default mode, whose
web is in the same session) leaves the group alone, since that would change the web's priority
with its own, and its threads' niceness already orders it below the web there.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from django.db import connections

AUTOGROUP = Path("/proc/self/autogroup")

NOT_NICED = "not niced"
SHARED_SESSION = "shares its session"
NO_AUTOGROUPS = "no autogroups"
NOT_ALLOWED = "not allowed"
AUTOGROUP_NICED = "autogroup niced"


def yield_to_the_web(niceness: int | None = None, autogroup: Path = AUTOGROUP) -> str:
    """Give this process's own autogroup ``niceness`` (by default the niceness the process runs
    at) when the process leads its session; says what it did."""
    if niceness is None:
        niceness = os.nice(0)
    if niceness <= 0:
        return NOT_NICED
    return set_autogroup(niceness, autogroup)


def set_autogroup(niceness: int, autogroup: Path = AUTOGROUP, *, tries: int = 5) -> str:
    """Set this process's autogroup niceness (0 too) when it leads its own session.

    The kernel takes one such change a tenth of a second on the whole machine (EAGAIN for
    the others): a change it refuses so is tried again a little later, a few times."""
    if os.getsid(0) != os.getpid():
        return SHARED_SESSION
    for _ in range(tries):
        try:
            if autogroup.read_text().split()[-1] != str(niceness):
                autogroup.write_text(f"{niceness}\n")
            return AUTOGROUP_NICED
        except FileNotFoundError:
            return NO_AUTOGROUPS
        except BlockingIOError:  # EAGAIN: changed less than 0.1 s ago, by anyone
            time.sleep(0.11)
        except OSError:
            return NOT_ALLOWED
    return NOT_ALLOWED


def render_niceness(waited_s: float, *, nice: int, late_after_s: float) -> int:
    """The niceness a brief is rendered at: ``nice`` while it is on time, 0 (a page view's)
    once it has waited ``late_after_s`` seconds or more."""
    return 0 if waited_s >= late_after_s else max(0, nice)


def thread_niceness() -> int:
    """The calling thread's own niceness (Linux: per thread)."""
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


def run_at_niceness[T](niceness: int, function: Callable[[], T], *, name: str) -> T:
    """``function()`` in a thread of its own at ``niceness``, or at the calling thread's when
    that is higher (an unprivileged thread may only raise its niceness); returns its result or
    raises what it raised. While it runs, the process's autogroup takes the same niceness when
    the process leads its session (see the module's note). The thread closes the database
    connections it opened (Django keeps them per thread)."""
    niceness = max(niceness, thread_niceness())
    outcome: dict[str, object] = {}

    def work() -> None:
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), niceness)
            outcome["value"] = function()
        except BaseException as error:  # noqa: BLE001 - handed to the caller
            outcome["error"] = error
        finally:
            connections.close_all()

    set_autogroup(niceness)
    # A daemon: a second Ctrl-C or SIGTERM ends the worker at once, as db_worker's does.
    thread = threading.Thread(target=work, name=name, daemon=True)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]
