"""The brief worker yields the CPU to page views also when it leads a session of its own
(advisor/brief/priority.py, decision 0079): its autogroup takes its niceness, and a worker
sharing the web's session leaves the group alone. Each brief is rendered in a thread niced
while the brief is on time and at a page view's priority once it is late (decision 0145)."""

import json
import os
import subprocess
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace
from unittest.mock import patch

import pytest
from django.test import override_settings
from django.utils import timezone
from django_tasks_db.management.commands import db_worker

from advisor.brief import priority
from advisor.brief.management.commands.brief_worker import BriefWorker
from tests.support.servers import PYTHON, ROOT

PROBE = """
import json, os
from pathlib import Path
from advisor.brief.priority import AUTOGROUP, yield_to_the_web
done = yield_to_the_web()
group = AUTOGROUP.read_text().strip() if AUTOGROUP.exists() else None
print(json.dumps({"done": done, "group": group}))
"""
AUTOGROUPS = Path("/proc/self/autogroup").exists()  # a kernel built with them


def probe(*, nice: int, own_session: bool) -> dict:
    command = [str(PYTHON), "-c", PROBE]
    if nice:
        command = ["nice", "-n", str(nice), *command]
    result = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, start_new_session=own_session
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_niced_worker_leading_its_own_session_nices_its_autogroup():
    seen = probe(nice=10, own_session=True)
    if AUTOGROUPS:
        assert seen["done"] == priority.AUTOGROUP_NICED
        assert seen["group"].endswith("nice 10")
    else:
        assert seen == {"done": priority.NO_AUTOGROUPS, "group": None}


def test_a_worker_sharing_a_session_leaves_the_group_as_it_is():
    before = priority.AUTOGROUP.read_text().strip() if AUTOGROUPS else None
    seen = probe(nice=10, own_session=False)
    assert seen == {"done": priority.SHARED_SESSION, "group": before}  # this test's group


def test_a_worker_at_normal_priority_changes_nothing():
    assert probe(nice=0, own_session=True)["done"] == priority.NOT_NICED


# --- Each brief rendered in a thread of its own, niced while on time (decision 0145) ---------

RENDER_PROBE = """
import json, os, sys
from datetime import timedelta
from types import SimpleNamespace
import django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()
from django.utils import timezone
from django_tasks_db.management.commands import db_worker
from advisor.brief.management.commands.brief_worker import BriefWorker
from advisor.brief.priority import AUTOGROUP, thread_niceness

seen = []
def record(self, db_task_result):
    group = AUTOGROUP.read_text().split()[-1] if AUTOGROUP.exists() else None
    seen.append({"waited": db_task_result.waited, "thread": thread_niceness(), "group": group})
db_worker.Worker.run_task = record

worker = BriefWorker(queue_names=["default"], interval=1, batch=True, backend_name="default",
    startup_delay=False, max_tasks=None, worker_id="probe", excluded_queue_names=[])
for waited in json.loads(sys.argv[1]):
    worker.run_task(SimpleNamespace(enqueued_at=timezone.now() - timedelta(seconds=waited),
                                    waited=waited))
print(json.dumps({"seen": seen, "main": thread_niceness()}))
"""


def render_probe(waits: list[float], *, nice: int = 0, own_session: bool = False) -> dict:
    command = [str(PYTHON), "-c", RENDER_PROBE, json.dumps(waits)]
    if nice:
        command = ["nice", "-n", str(nice), *command]
    env = {
        **os.environ,
        "ADVISOR_WORKER_NICE": "10",
        "ADVISOR_BRIEF_LATE_AFTER_S": "10",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    result = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, start_new_session=own_session
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def render_in_this_process(waits: list[float], *, nice: int = 0) -> tuple[list[int], int]:
    """BriefWorker.run_task for briefs that waited ``waits`` seconds, called from a thread of
    this test process started at ``nice`` above the test's own niceness (a worker started so):
    the niceness each brief was rendered at, and the calling thread's niceness afterwards.
    This pytest worker shares its session, so no autogroup is touched."""
    rendered: list[int] = []

    def record(self, db_task_result):
        rendered.append(priority.thread_niceness())

    def worker_thread() -> int:
        worker = BriefWorker(
            queue_names=["default"], interval=1, batch=True, backend_name="default",
            startup_delay=False, max_tasks=None, worker_id="probe", excluded_queue_names=[],
        )  # fmt: skip
        for waited in waits:
            worker.run_task(SimpleNamespace(enqueued_at=timezone.now() - timedelta(seconds=waited)))
        return priority.thread_niceness()

    base = priority.thread_niceness()
    with (
        override_settings(BRIEF_WORKER_NICE=10, BRIEF_LATE_AFTER_S=10),
        patch.object(db_worker.Worker, "run_task", record),
    ):
        # The worker's thread started niced, with errors raised here (the module's own helper).
        caller = priority.run_at_niceness(base + nice, worker_thread, name="probe-worker")
    return rendered, caller - base


def test_a_brief_on_time_is_rendered_niced_and_a_late_one_at_a_page_views_priority():
    base = priority.thread_niceness()  # 0 unless the suite itself was started niced
    rendered, caller = render_in_this_process([0, 9.5, 10, 120])
    assert rendered == [max(10, base), max(10, base), base, base]
    assert caller == 0  # the worker's own thread is never niced: the next brief may be late


def test_a_worker_started_niced_never_renders_below_its_niceness():
    base = priority.thread_niceness()
    rendered, _ = render_in_this_process([0, 120], nice=15)
    assert rendered == [min(19, base + 15)] * 2


def test_a_worker_leading_its_own_session_gives_its_autogroup_the_briefs_niceness():
    seen = render_probe([0, 120, 1], own_session=True)
    if AUTOGROUPS:
        assert [s["group"] for s in seen["seen"]] == ["10", "0", "10"]
    else:
        assert [s["group"] for s in seen["seen"]] == [None, None, None]


def test_render_niceness_is_the_workers_until_the_brief_is_late():
    assert priority.render_niceness(0, nice=10, late_after_s=10) == 10
    assert priority.render_niceness(9.99, nice=10, late_after_s=10) == 10
    assert priority.render_niceness(10, nice=10, late_after_s=10) == 0
    assert priority.render_niceness(5, nice=10, late_after_s=0) == 0  # never niced


def test_run_at_niceness_returns_the_result_and_raises_the_error_in_the_caller():
    assert priority.run_at_niceness(0, lambda: 42, name="probe") == 42

    def fail():
        raise ValueError("in the thread")

    with pytest.raises(ValueError, match="in the thread"):
        priority.run_at_niceness(0, fail, name="probe")
