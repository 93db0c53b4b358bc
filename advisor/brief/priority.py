"""The brief worker yields the CPU to page views, also across Linux autogroups (decision 0079).

``scripts/serve-production worker`` starts the worker at a lower CPU priority (``nice``,
``ADVISOR_WORKER_NICE``, default 10). With Linux's autogroups (``kernel.sched_autogroup_enabled``,
on by default in most distributions) the scheduler first shares the CPUs between sessions and
only then between the processes of each session by their niceness: a worker started in a
session of its own (its own terminal, a service manager's unit, a bench's stack) got as much
CPU as the whole web, niced or not. A worker that leads its own session therefore gives its
session's autogroup its niceness; one that shares a session (``scripts/serve-production``'s
default mode, whose web is in the same session) leaves the group alone, since that would lower
the web's priority with its own, and its niceness already orders it below the web there.
"""

from __future__ import annotations

import os
from pathlib import Path

AUTOGROUP = Path("/proc/self/autogroup")

NOT_NICED = "not niced"
SHARED_SESSION = "shares its session"
NO_AUTOGROUPS = "no autogroups"
NOT_ALLOWED = "not allowed"
AUTOGROUP_NICED = "autogroup niced"


def yield_to_the_web(autogroup: Path = AUTOGROUP) -> str:
    """Give this process's own autogroup the niceness the process runs at; says what it did."""
    niceness = os.nice(0)
    if niceness <= 0:
        return NOT_NICED
    if os.getsid(0) != os.getpid():
        return SHARED_SESSION
    try:
        autogroup.write_text(f"{niceness}\n")
    except FileNotFoundError:
        return NO_AUTOGROUPS
    except OSError:
        return NOT_ALLOWED
    return AUTOGROUP_NICED
