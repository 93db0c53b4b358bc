"""Faults: the task worker killed mid-brief, PostgreSQL restarted under load. Prints what happened.

    .venv/bin/python bench/faults.py [--users 6] [--outage-seconds 6]

Starts its own stack on loopback (bench/_stack.py: PostgreSQL cluster on port 54400 with a
fresh database, gunicorn and ``manage.py db_worker`` from the production start, database task
backend), then:

1. Worker killed while a brief is generated: a user issues a brief; as soon as the worker has
   claimed its task (RUNNING), the worker gets SIGKILL. The worker is restarted; django_tasks_db
   does not hand a RUNNING task to another worker, so ``manage.py requeue_stuck_briefs`` queues
   it again; the brief must then be signed, and the PDF must verify on /brief/verify/.
2. PostgreSQL restarted under load: users walk the wizard and issue briefs while the cluster is
   stopped for ``--outage-seconds`` and started again. Every failed response must be the
   friendly 503 page (no traceback, no 500); requests must succeed again after the restart;
   afterwards no record is half-written: every brief has its "issued" audit entry (same
   transaction), every brief not generating has its PDF and hash, every assessment's version
   counts its saves, and once stuck briefs are requeued every brief is signed.

Exit status 0 only when every check held.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _stack import Browser, Stack, pg_ctl  # noqa: E402

CHECKS: list[tuple[str, bool]] = []


def check(label: str, ok: bool) -> bool:
    CHECKS.append((label, ok))
    print(f"  [{'ok' if ok else 'FAILED'}] {label}", flush=True)
    return ok


def ignore(*_args) -> None:
    return None


def _task_status(stack: Stack, brief_id: int) -> list[str]:
    rows = stack.sql(
        "SELECT status FROM django_tasks_database_dbtaskresult "
        f"WHERE args_kwargs->'args'->>0 = '{int(brief_id)}' ORDER BY enqueued_at"
    )
    return [row[0] for row in rows]


def _brief_status(stack: Stack, brief_id: int) -> str:
    return stack.sql(f"SELECT status FROM brief_brief WHERE id = {int(brief_id)}")[0][0]


def prepared_user(stack: Stack, index: int, record=ignore, observe=None):
    """A signed-in user with a confirmed assessment; returns (browser, assessment, option)."""
    browser = Browser(stack.url, record, observe)
    assert browser.sign_in(f"loadbuyer{index:02d}"), "sign-in failed"
    pk = browser.walk_wizard()
    assert pk is not None, "wizard walk failed"
    key = browser.results_and_option(pk)
    assert key is not None, "results failed"
    return browser, pk, key


# --- 1. the worker killed mid-task ---------------------------------------------------------


def worker_killed(stack: Stack) -> None:
    print("\n1. Task worker killed while a brief is being generated", flush=True)
    browser, pk, key = prepared_user(stack, 0)
    brief_id = browser.issue_brief(pk, key)
    assert brief_id is not None, "issue failed"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and "RUNNING" not in _task_status(stack, brief_id):
        time.sleep(0.02)
    claimed = "RUNNING" in _task_status(stack, brief_id)
    check("the worker claimed the brief's task (RUNNING)", claimed)
    stack.kill_worker(signal.SIGKILL)
    print(
        f"  worker killed (SIGKILL); brief {brief_id}: {_brief_status(stack, brief_id)}, "
        f"task: {_task_status(stack, brief_id)}"
    )
    check(
        "the brief is still generating (no half-written PDF)",
        _brief_status(stack, brief_id) == "generating",
    )

    stack.start_worker()
    time.sleep(8)
    stuck = _brief_status(stack, brief_id) == "generating"
    print(
        f"  worker restarted; after 8 s the brief is {_brief_status(stack, brief_id)}, task "
        f"{_task_status(stack, brief_id)} (django_tasks_db does not requeue a RUNNING task)"
    )
    out = stack.manage("requeue_stuck_briefs", "--older-than", "0")
    print("  requeue_stuck_briefs: " + " / ".join(out.strip().splitlines()))
    if not stuck:
        check("the restarted worker finished the brief by itself", True)
    started = time.monotonic()
    outcome = browser.wait_for_brief(brief_id, timeout=120)
    print(
        f"  brief {brief_id}: {outcome} {time.monotonic() - started:.1f} s after the requeue; "
        f"tasks: {_task_status(stack, brief_id)}"
    )
    check("the brief completes after the worker restarts", outcome == "ready")
    pdf = browser.request("download", "GET", f"/brief/{brief_id}/download/")
    if pdf is not None:
        verified = browser.request(
            "verify",
            "POST",
            "/brief/verify/",
            files={"pdf": ("brief.pdf", pdf.content, "application/pdf")},
        )
        text = verified.text if verified is not None else ""
        check(
            "its PDF verifies on /brief/verify/ (signature intact, on record)",
            "Signature intact, document unchanged, on record" in text,
        )


# --- 2. PostgreSQL restarted under load ------------------------------------------------------


class Outage:
    def __init__(self):
        self.lock = threading.Lock()
        self.statuses: Counter = Counter()
        self.bad_pages: list[str] = []
        self.connection_errors = 0
        self.ok_after_restart: float | None = None
        self.restarted_at: float | None = None
        self.stop = threading.Event()

    def record(self, kind, seconds, ok, detail):
        if detail and not detail.startswith("HTTP"):
            with self.lock:
                self.connection_errors += 1

    def observe(self, kind, response):
        with self.lock:
            self.statuses[response.status_code] += 1
            if response.status_code >= 500:
                body = response.text
                friendly = (
                    response.status_code == 503
                    and "Traceback" not in body
                    and ("briefly unavailable" in body or '"database": "unreachable"' in body)
                )
                if not friendly:
                    self.bad_pages.append(f"{kind}: HTTP {response.status_code} {body[:200]!r}")
            elif (
                response.status_code < 400
                and self.restarted_at is not None
                and self.ok_after_restart is None
            ):
                self.ok_after_restart = time.monotonic() - self.restarted_at


def busy_user(stack: Stack, index: int, outage: Outage) -> None:
    browser = Browser(stack.url, outage.record, outage.observe)
    while not outage.stop.is_set() and not browser.sign_in(f"loadbuyer{index:02d}"):
        time.sleep(0.5)
    while not outage.stop.is_set():
        pk = browser.walk_wizard()
        key = browser.results_and_option(pk) if pk else None
        if key:
            browser.issue_brief(pk, key)
        if pk is None or key is None:
            time.sleep(0.3)


def postgres_restarted(stack: Stack, users: int, outage_seconds: float) -> None:
    print(
        f"\n2. PostgreSQL restarted under load ({users} users, {outage_seconds:.0f} s down)",
        flush=True,
    )
    outage = Outage()
    threads = [
        threading.Thread(target=busy_user, args=(stack, i, outage), daemon=True)
        for i in range(1, users + 1)
    ]
    for thread in threads:
        thread.start()
    time.sleep(10)
    before = dict(outage.statuses)
    pg_ctl("stop", stack.pg_port)
    print(f"  PostgreSQL stopped after 10 s of load (responses so far: {before})", flush=True)
    time.sleep(outage_seconds)
    pg_ctl("start", stack.pg_port)
    outage.restarted_at = time.monotonic()
    print("  PostgreSQL started again", flush=True)
    time.sleep(15)
    outage.stop.set()
    for thread in threads:
        thread.join(60)
    print(
        f"  responses by status: {dict(sorted(outage.statuses.items()))}; "
        f"connection errors: {outage.connection_errors}"
    )
    check("the outage was seen by the users (503 responses)", outage.statuses[503] > 0)
    check("no 500 and no traceback: every failure is the friendly 503 page", not outage.bad_pages)
    for page in outage.bad_pages[:5]:
        print("    " + page)
    check("no connection dropped by the app server", outage.connection_errors == 0)
    recovered = outage.ok_after_restart
    check(
        f"requests succeed again after the restart ({recovered or 0:.1f} s)", recovered is not None
    )

    worker_alive = stack.worker is not None and stack.worker.poll() is None
    print(f"  task worker after the outage: {'running' if worker_alive else 'exited'}")
    if not worker_alive:
        print("    (db_worker exits on a database error; its supervisor restarts it)")
        stack.start_worker()
    consistency(stack)


def consistency(stack: Stack) -> None:
    briefs = stack.sql("SELECT count(*) FROM brief_brief")[0][0]
    issued = stack.sql(
        "SELECT count(DISTINCT brief_id) FROM brief_auditevent WHERE action = 'brief_issued'"
    )[0][0]
    check(
        f"every brief has its 'issued' audit entry ({briefs} briefs, {issued} entries)",
        briefs == issued,
    )
    half = stack.sql(
        "SELECT count(*) FROM brief_brief WHERE status NOT IN ('generating', 'failed') "
        "AND (pdf = '' OR sha256 = '' OR unsigned_sha256 = '')"
    )[0][0]
    check("no brief is marked generated without its PDF and hashes", half == 0)
    numbers = stack.sql("SELECT count(DISTINCT number), count(*) FROM brief_brief")[0]
    check("brief numbers are unique", numbers[0] == numbers[1])
    versions = stack.sql(
        "SELECT count(*) FROM wizard_assessment WHERE version < "
        "(SELECT count(*) FROM jsonb_object_keys(answers::jsonb) k "
        "WHERE k IN ('model', 'training', 'site', 'procurement'))"
    )[0][0]
    check("every assessment's version counts at least its saved steps", versions == 0)

    out = stack.manage("requeue_stuck_briefs", "--older-than", "0")
    print("  requeue_stuck_briefs: " + out.strip().splitlines()[-1])
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        left = stack.sql("SELECT count(*) FROM brief_brief WHERE status = 'generating'")[0][0]
        if left == 0:
            break
        time.sleep(2)
    states = dict(stack.sql("SELECT status, count(*) FROM brief_brief GROUP BY status"))
    print(f"  briefs by status after recovery: {states}")
    check(
        "every brief is signed after recovery (none generating or failed)",
        set(states) <= {"awaiting_approval", "issued"},
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=6)
    parser.add_argument("--outage-seconds", type=float, default=6)
    args = parser.parse_args()
    stack = Stack(users=args.users + 1, web_workers=3)
    print(f"starting the stack in {stack.var} ...", flush=True)
    try:
        stack.start()
        print(f"stack up: {stack.url}, PostgreSQL port {stack.pg_port}", flush=True)
        worker_killed(stack)
        postgres_restarted(stack, args.users, args.outage_seconds)
    finally:
        web_log = stack.log("web")
        stack.stop()
    print(f"\ngunicorn log: {web_log.count('Traceback')} tracebacks")
    failed = [label for label, ok in CHECKS if not ok]
    print(
        f"{len(CHECKS) - len(failed)} of {len(CHECKS)} checks held"
        + (": FAILED " + "; ".join(failed) if failed else "")
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
