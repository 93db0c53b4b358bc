"""A webhook delivery whose worker is killed mid-send is sent again (decision 0144).

A worker claims the message it sends until ``WEBHOOK_CLAIM_S`` from now; killed, it never
releases the claim, and django_tasks_db leaves its task RUNNING. Once the claim has run out,
any webhook worker's watchdog logs the lost attempt and queues the message again. The tests
set the clock (``now``) or the claim time in the past: nothing waits for a claim to run out.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import threading
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.core.management import call_command
from django.tasks import TaskResultStatus
from django.utils import timezone
from django_tasks_db.models import DBTaskResult
from standardwebhooks.webhooks import Webhook

from advisor.webhooks import delivery, recovery
from advisor.webhooks.models import (
    DeliveryStatus,
    EventType,
    WebhookEndpoint,
    WebhookMessage,
    new_secret,
)
from advisor.webhooks.tasks import deliver_webhook
from tests.support import webhook_receiver
from tests.support.production_data import SHARED, sqlite_source
from tests.support.servers import PYTHON, ROOT, manage

DATABASE_TASKS = {
    "default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default", "webhooks"]}
}


class Killed(BaseException):
    """What SIGKILL does to a worker in the middle of a send: nothing after it runs."""


@pytest.fixture
def receiver(settings):
    settings.WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]  # the receiver listens on loopback
    secret = new_secret()
    receiver, server = webhook_receiver.start(secret)
    yield receiver
    server.shutdown()
    server.server_close()


@pytest.fixture
def message(receiver):
    endpoint = WebhookEndpoint.objects.create(
        name="purchase requests", url=receiver.url, secret=receiver.secret
    )
    body = '{"type":"brief.issued","timestamp":"2026-12-07T08:00:00+08:00","data":{"id":1}}'
    return WebhookMessage.objects.create(
        endpoint=endpoint, event_type=EventType.ISSUED, brief_number="FT-1", body=body
    )


def killed_mid_send(message, monkeypatch) -> WebhookMessage:
    """A worker claims ``message`` and dies while posting it."""

    def die(*args, **kwargs):
        raise Killed

    with monkeypatch.context() as patch:
        patch.setattr(delivery, "post", die)
        with pytest.raises(Killed):
            deliver_webhook.call(message.pk)
    message.refresh_from_db()
    return message


@pytest.mark.django_db
def test_a_delivery_killed_mid_send_is_sent_again_once_its_claim_runs_out(
    message, receiver, monkeypatch, django_capture_on_commit_callbacks
):
    lost = killed_mid_send(message, monkeypatch)
    assert lost.status == DeliveryStatus.PENDING and lost.attempts == 0
    assert lost.claimed_until > timezone.now()  # still held by the dead worker
    assert not receiver.received and not lost.attempt_log.exists()

    # While the claim holds, a duplicate task and the watchdog leave the message alone.
    assert delivery.deliver(message.pk) is None
    assert recovery.recover_lost() == []
    assert not receiver.received

    later = lost.claimed_until + timedelta(seconds=1)  # the clock, moved past the claim
    with django_capture_on_commit_callbacks(execute=True):
        assert recovery.recover_lost(now=later) == [lost]
    message.refresh_from_db()
    assert (message.status, message.attempts, message.claimed_until) == ("delivered", 2, None)
    log = list(message.attempt_log.order_by("number"))
    assert [a.number for a in log] == [1, 2]
    assert log[0].error.startswith("WorkerLost") and log[0].status_code is None
    assert log[1].status_code == 204
    (received,) = receiver.received
    event = Webhook(receiver.secret).verify(received.body, received.headers)
    assert event["type"] == "brief.issued" and received.headers["webhook-id"] == message.message_id
    assert recovery.recover_lost(now=later) == []  # handled once


@pytest.mark.django_db
def test_a_message_that_kills_its_worker_every_time_fails_after_the_last_attempt(
    message, monkeypatch, settings
):
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    for _ in range(len(delivery.RETRY_DELAYS_S) + 1):
        lost = killed_mid_send(message, monkeypatch)
        recovery.recover_lost(now=lost.claimed_until + timedelta(seconds=1))
    message.refresh_from_db()
    assert message.status == DeliveryStatus.FAILED
    assert message.attempts == len(delivery.RETRY_DELAYS_S) + 1
    assert all(a.error.startswith("WorkerLost") for a in message.attempt_log.all())


@pytest.mark.django_db
def test_on_the_database_worker_the_dead_task_is_failed_and_a_new_one_queued(
    message, receiver, settings, django_capture_on_commit_callbacks
):
    settings.TASKS = DATABASE_TASKS
    deliver_webhook.enqueue(message.pk)
    row = DBTaskResult.objects.get()
    row.claim("worker-that-dies")
    claimed = delivery.claim(message.pk, timezone.now())  # ...then it is killed mid-send
    with django_capture_on_commit_callbacks(execute=True):
        recovery.recover_lost(now=claimed.claimed_until + timedelta(seconds=1))
    row.refresh_from_db()
    assert row.status == TaskResultStatus.FAILED
    assert row.exception_class_path.endswith("WorkerLost")
    (queued,) = DBTaskResult.objects.filter(status=TaskResultStatus.READY)
    assert queued.args_kwargs["args"] == [message.pk] and queued.queue_name == "webhooks"

    # A webhook worker starting now (its watchdog ran before it took work) sends it.
    with django_capture_on_commit_callbacks(execute=True):
        call_command("webhook_worker", "--queue-name", "webhooks", "--batch", "--no-startup-delay")
    message.refresh_from_db()
    assert message.status == DeliveryStatus.DELIVERED and len(receiver.received) == 1


@pytest.mark.django_db
def test_a_message_whose_task_was_lost_before_any_claim_is_queued_again(
    message, settings, django_capture_on_commit_callbacks
):
    settings.TASKS = DATABASE_TASKS
    long_ago = timezone.now() - recovery.UNCLAIMED_AFTER - timedelta(minutes=1)
    WebhookMessage.objects.filter(pk=message.pk).update(created_at=long_ago)
    deliver_webhook.enqueue(message.pk)
    assert recovery.requeue_unclaimed() == []  # its task still waits: the queue is long
    DBTaskResult.objects.update(status=TaskResultStatus.RUNNING, started_at=long_ago)
    assert recovery.requeue_unclaimed() == [message]  # its worker died before claiming it
    statuses = sorted(DBTaskResult.objects.values_list("status", flat=True))
    assert statuses == [TaskResultStatus.FAILED, TaskResultStatus.READY]
    fresh = WebhookMessage.objects.create(
        endpoint=message.endpoint, event_type=EventType.ISSUED, body="{}"
    )
    assert fresh not in recovery.requeue_unclaimed()  # not due long enough to be lost


# --- A real webhook worker process killed with SIGKILL mid-send --------------------------------


class HoldingReceiver:
    """Holds the first request open (the worker is killed while it waits for the answer), then
    answers every later one with 204; checks each signature with ``standardwebhooks``."""

    def __init__(self, secret: str):
        self.secret = secret
        self.first_arrived = threading.Event()
        self.release = threading.Event()
        self.verified: list[str] = []
        self.delivered = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                headers = {k.lower(): v for k, v in self.headers.items()}
                event = Webhook(receiver.secret).verify(body, headers)
                if not receiver.first_arrived.is_set():
                    receiver.first_arrived.set()
                    receiver.release.wait(60)
                    return
                receiver.verified.append(event["type"])
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()
                receiver.delivered.set()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hooks"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def message_row(database: str) -> tuple:
    with sqlite3.connect(database) as db:
        return db.execute(
            "SELECT status, attempts, claimed_until IS NOT NULL FROM webhooks_webhookmessage"
        ).fetchone()


def worker(env) -> subprocess.Popen:
    return subprocess.Popen(
        [str(PYTHON), "manage.py", "webhook_worker", "--queue-name", "webhooks", "--no-reload"]
        + ["--interval", "0.2"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def stop(process):
    if process is not None and process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.mark.xdist_group(SHARED)  # with the other users of the seeded database
def test_a_webhook_worker_killed_mid_send_is_recovered_by_another(tmp_path, pki_dir, seeded_sqlite):
    secret = new_secret()
    receiver = HoldingReceiver(secret)
    env = sqlite_source(
        tmp_path, pki_dir, seeded_sqlite
    )  # migrated (the catalog and buyer are unused)
    database = env["DATABASE_URL"].removeprefix("sqlite:///")
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        ADVISOR_TASKS_BACKEND="database",
        ADVISOR_WEBHOOK_ALLOWED_NETWORKS="127.0.0.0/8",
        ADVISOR_WEBHOOK_TIMEOUT_S="120",  # the first worker waits for the answer until killed
    )
    first = second = None
    try:
        manage(
            env,
            "shell",
            "-c",
            "from advisor.webhooks.models import WebhookEndpoint, WebhookMessage; "
            "from advisor.webhooks.tasks import deliver_webhook; "
            f"e = WebhookEndpoint.objects.create(name='r', url={receiver.url!r}, "
            f"secret={secret!r}); "
            "m = WebhookMessage.objects.create(endpoint=e, event_type='brief.issued', "
            'brief_number=\'FT-1\', body=\'{"type":"brief.issued","data":{}}\'); '
            "deliver_webhook.enqueue(m.pk)",
        )
        first = worker(env)
        assert receiver.first_arrived.wait(120), "the first worker never sent"
        os.kill(first.pid, signal.SIGKILL)  # mid-send: no chance to record anything
        first.wait(30)
        assert message_row(database) == ("pending", 0, 1)  # claimed by a dead worker

        # The claim runs out (set in the past here rather than waited for).
        with sqlite3.connect(database) as db:
            db.execute("UPDATE webhooks_webhookmessage SET claimed_until = '2000-01-01 00:00:00'")
        second = worker(env)
        assert receiver.delivered.wait(120), "the second worker never sent it again"
        stop(second)
        assert receiver.verified == ["brief.issued"]
        assert message_row(database) == ("delivered", 2, 0)
        with sqlite3.connect(database) as db:
            errors = [
                r[0]
                for r in db.execute("SELECT error FROM webhooks_webhookattempt ORDER BY number")
            ]
            tasks = sorted(
                r[0] for r in db.execute("SELECT status FROM django_tasks_database_dbtaskresult")
            )
        assert errors[0].startswith("WorkerLost") and errors[1] == ""
        assert tasks == ["FAILED", "SUCCESSFUL"]
    finally:
        stop(first)
        stop(second)
        receiver.close()
