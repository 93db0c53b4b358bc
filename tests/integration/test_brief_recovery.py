"""Briefs recover by themselves when their worker dies mid-render.

The finding: a brief whose worker died stayed "Being generated" until someone ran
``requeue_stuck_briefs`` by hand. Now a worker holds a lease on the brief while it renders
and renews it; when the lease runs out, any brief worker's watchdog queues the brief again;
the buyer sees "retrying", then the brief.
"""

import json
import os
import signal
import sqlite3
import subprocess
import textwrap
import time
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from advisor.brief import generation, recovery, services
from advisor.brief.models import Brief, BriefStatus
from advisor.roles import PROCUREMENT_STAFF
from tests.support.production_data import SHARED, sqlite_source
from tests.support.scenarios import QWEN_7B_LORA_COMPARED as SCENARIO
from tests.support.servers import PYTHON, ROOT, manage
from tests.support.users import make_user

# --- The lease, the recovery and what the buyer sees (one process, immediate tasks) ----------


@pytest.fixture
def buyer(client):
    user = make_user("recovery-buyer", PROCUREMENT_STAFF, password="pw")
    client.force_login(user)
    return user


@pytest.fixture
def lost(buyer, settings):
    """A brief whose worker took the lease, then died: the lease has run out."""
    settings.TASKS = {
        "default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend", "QUEUES": ["default"]}
    }
    brief = services.issue_brief(user=buyer, document=SCENARIO, language="en")
    Brief.objects.filter(pk=brief.pk).update(
        generation_attempts=1, lease_until=timezone.now() - timedelta(seconds=1)
    )
    settings.TASKS = {
        "default": {
            "BACKEND": "django.tasks.backends.immediate.ImmediateBackend",
            "QUEUES": ["default"],
        }
    }
    return Brief.objects.get(pk=brief.pk)


def page_text(client, brief) -> str:
    return client.get(
        reverse("brief:detail", args=[brief.pk]), HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()


@pytest.mark.django_db
@pytest.mark.usefixtures("brief_ready")
def test_the_buyer_sees_retrying_then_the_brief(client, lost):
    assert lost.retrying
    html = page_text(client, lost)
    assert "retrying" in html and "being generated again by itself" in html
    assert recovery.recover_stalled() == [lost]
    brief = Brief.objects.get(pk=lost.pk)
    assert brief.status == BriefStatus.AWAITING_APPROVAL
    assert brief.generation_attempts == 2 and brief.lease_until is None
    html = page_text(client, brief)
    assert "retrying" not in html and "Download the signed PDF" in html


@pytest.mark.django_db
@pytest.mark.usefixtures("brief_ready")
def test_a_live_lease_is_left_alone(client, lost, monkeypatch):
    Brief.objects.filter(pk=lost.pk).update(lease_until=timezone.now() + timedelta(minutes=5))

    def must_not_render(*args, **kwargs):
        raise AssertionError("a second worker rendered a brief another one is rendering")

    monkeypatch.setattr(generation, "signed_pdf", must_not_render)
    assert recovery.recover_stalled() == []
    assert generation.generate(lost.pk).status == BriefStatus.GENERATING  # duplicate task: no-op
    assert not Brief.objects.get(pk=lost.pk).retrying


@pytest.mark.django_db
@pytest.mark.usefixtures("brief_ready")
def test_after_the_last_attempt_the_brief_fails_and_can_be_retried(
    client, lost, django_capture_on_commit_callbacks
):
    Brief.objects.filter(pk=lost.pk).update(generation_attempts=generation.MAX_GENERATION_ATTEMPTS)
    assert recovery.recover_stalled() == [lost]
    brief = Brief.objects.get(pk=lost.pk)
    assert brief.status == BriefStatus.FAILED
    assert "worker stopped 3 times" in brief.failure
    html = page_text(client, brief)
    assert "Try again" in html
    with django_capture_on_commit_callbacks(execute=True):
        services.retry(brief, brief.prepared_by)
    brief.refresh_from_db()
    assert brief.status == BriefStatus.AWAITING_APPROVAL and brief.generation_attempts == 1


# --- A real worker process killed mid-render, a second worker recovers the brief -------------

HANGING_WORKER = textwrap.dedent(
    """
    import sys, threading
    from pathlib import Path
    import django
    django.setup()
    from django.core.management import call_command
    from advisor.brief import generation, recovery, services

    def hang(brief, *, approved):
        Path(sys.argv[1]).write_text(str(brief.pk))  # the test kills this process now
        threading.Event().wait()

    generation.signed_pdf = hang
    call_command("brief_worker", "--queue-name", "default", "--no-reload", "--interval", "0.2")
    """
)


def status_of(database: str) -> tuple[str, int]:
    with sqlite3.connect(database) as db:
        return db.execute("SELECT status, generation_attempts FROM brief_brief").fetchone()


def task_statuses(database: str) -> list[str]:
    with sqlite3.connect(database) as db:
        rows = db.execute(
            "SELECT status FROM django_tasks_database_dbtaskresult ORDER BY enqueued_at"
        )
        return [row[0] for row in rows]


def wait_for(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.mark.xdist_group(SHARED)  # with the other users of the seeded database
def test_a_worker_killed_mid_render_is_recovered_by_another(tmp_path, pki_dir, seeded_sqlite):
    env = sqlite_source(tmp_path, pki_dir, seeded_sqlite)  # migrated, the catalog and the buyer
    database = env["DATABASE_URL"].removeprefix("sqlite:///")
    env.update(ADVISOR_TASKS_BACKEND="database", BRIEF_GENERATION_LEASE_S="3")
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps(SCENARIO))
    manage(
        env,
        "shell",
        "-c",
        "import json; from django.contrib.auth.models import User; "
        "from advisor.brief.services import issue_brief; "
        "u = User.objects.get(username='buyer'); "
        f"issue_brief(user=u, document=json.load(open({str(scenario)!r})), language='en')",
    )
    assert status_of(database) == ("generating", 0)

    marker = tmp_path / "rendering"
    first = subprocess.Popen(
        [str(PYTHON), "-c", HANGING_WORKER, str(marker)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    second = None
    try:
        wait_for(marker.exists, 120, "the first worker to start rendering")
        assert status_of(database) == ("generating", 1)
        os.kill(first.pid, signal.SIGKILL)  # mid-render: no chance to clean up
        first.wait(30)
        assert status_of(database) == ("generating", 1), "nothing recovers without a worker"

        said = tmp_path / "second-worker.log"
        second = subprocess.Popen(
            [str(PYTHON), "manage.py", "brief_worker", "--queue-name", "default", "--no-reload"],
            cwd=ROOT,
            env=env,
            stdout=said.open("w"),
            stderr=subprocess.STDOUT,
        )
        status, attempts = wait_for(
            lambda: (s := status_of(database))[0] != "generating" and s, 240, "the brief"
        )
        assert (status, attempts) == ("awaiting_approval", 2)
        # The task's result is written just after the brief's row (by a thread that may run
        # niced, decision 0145): wait for it to be written rather than race it.
        statuses = wait_for(
            lambda: (t := task_statuses(database))[-1] not in ("READY", "RUNNING") and t,
            60,
            "the task's result",
        )
        assert statuses == ["FAILED", "SUCCESSFUL"]
        # It warmed up before taking the brief, as the web does (decision 0145).
        assert "brief worker warmed:" in said.read_text()
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(30)
                except subprocess.TimeoutExpired:
                    process.kill()
