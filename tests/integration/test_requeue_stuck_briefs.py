"""A brief whose task worker died mid-generation is queued again and completes."""

from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.tasks import TaskResultStatus
from django.utils import timezone
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult

from advisor.assessments.answers import assessment_document
from advisor.brief import services
from advisor.brief.models import Brief, BriefStatus
from tests.support.assessments import finished_assessment

# Both stages (marker `database`): the task queue table and its locks.
pytestmark = [pytest.mark.django_db, pytest.mark.database]

DATABASE_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}


@pytest.fixture
def database_tasks(settings):
    settings.TASKS = DATABASE_TASKS


@pytest.fixture
def issued(brief_ready, one_page_briefs, database_tasks, django_capture_on_commit_callbacks):
    user = User.objects.create_user("preparer")
    assessment = finished_assessment(user)
    with django_capture_on_commit_callbacks(execute=True):
        brief = services.issue_brief(
            user=user,
            document=assessment_document(assessment),
            language="en",
            assessment=assessment,
            inputs=assessment.answers,
        )
    return brief


def _task_rows(brief):
    return [
        row
        for row in DBTaskResult.objects.order_by("enqueued_at")
        if row.args_kwargs["args"] == [brief.pk]
    ]


def _age(brief, row=None, minutes=30):
    past = timezone.now() - timedelta(minutes=minutes)
    Brief.objects.filter(pk=brief.pk).update(updated_at=past)
    if row is not None:
        DBTaskResult.objects.filter(pk=row.pk).update(started_at=past)


def _requeue(*args):
    out = StringIO()
    call_command("requeue_stuck_briefs", *args, stdout=out)
    return out.getvalue()


def _run_worker():
    """What ``db_worker`` does for each waiting task (claim, run, record), in this process.

    Not ``call_command("db_worker", "--batch")``: its loop calls close_old_connections(),
    which closes the test's transaction on PostgreSQL.
    """
    worker = Worker(
        queue_names=["default"],
        interval=0,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id="test-worker",
        excluded_queue_names=[],
    )
    for row in DBTaskResult.objects.ready():
        row.claim(worker.worker_id)
        worker.run_task(row)


def test_a_task_left_running_by_a_dead_worker_is_queued_again_and_the_brief_completes(issued):
    (row,) = _task_rows(issued)
    row.claim("worker-that-died")  # what a worker does before it is killed mid-task
    _age(issued, row)

    out = _requeue()
    assert f"{issued.number} (id {issued.pk}): queued again" in out
    old, new = _task_rows(issued)
    old.refresh_from_db()
    assert old.status == TaskResultStatus.FAILED
    assert old.exception_class_path.endswith("WorkerLost")
    assert new.status == TaskResultStatus.READY

    assert "0 briefs" in _requeue()  # touched: not requeued twice

    _run_worker()
    issued.refresh_from_db()
    assert issued.status == BriefStatus.AWAITING_APPROVAL
    assert issued.pdf and issued.sha256


def test_a_brief_whose_task_never_reached_the_queue_is_queued(issued):
    DBTaskResult.objects.all().delete()  # e.g. the enqueue was lost with the connection
    _age(issued)
    assert "1 brief queued again" in _requeue()
    _run_worker()
    issued.refresh_from_db()
    assert issued.status == BriefStatus.AWAITING_APPROVAL


def test_waiting_recent_and_finished_briefs_are_left_alone(issued):
    (row,) = _task_rows(issued)
    _age(issued)  # old, but its task still waits in the queue (a long backlog)
    assert "0 briefs" in _requeue()

    row.claim("busy-worker")  # a worker started it just now
    assert "0 briefs" in _requeue()

    DBTaskResult.objects.filter(pk=row.pk).update(status=TaskResultStatus.FAILED)
    Brief.objects.filter(pk=issued.pk).update(updated_at=timezone.now())  # recently issued
    assert "0 briefs" in _requeue()

    _age(issued)
    assert "stuck (dry run)" in _requeue("--dry-run")
    assert len(_task_rows(issued)) == 1  # the dry run queued nothing
