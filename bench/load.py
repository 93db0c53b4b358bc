"""Load: procurement users walking the wizard and issuing briefs against gunicorn + PostgreSQL.

    .venv/bin/python bench/load.py [--users 20] [--iterations 2] [--max-seconds 300]

Starts its own stack on loopback (bench/_stack.py: a PostgreSQL cluster on port 54400 with a
fresh database, the production start's gunicorn and task worker, the catalog, users and a
signer standing in for the organisation's own), then runs ``--users`` threads, each a user who signs in and
``--iterations`` times: creates an assessment, opens and saves the four steps, checks and
confirms the answers, opens the results and the first option, issues a brief and polls its
status until the PDF is signed. Prints requests/s, p50/p95/p99 per request kind and every
error; exits 1 when an error occurred or the goal (wizard steps p95 under 150 ms) is missed.
Everything stops by itself: bounded by iterations and by ``--max-seconds``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _stack import Browser, Stack  # noqa: E402

STEP_GOAL_MS = 150


class Recorder:
    def __init__(self):
        self.lock = threading.Lock()
        self.times: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, list[str]] = defaultdict(list)
        self.brief_seconds: list[float] = []
        self.brief_outcomes: dict[str, int] = defaultdict(int)

    def __call__(self, kind: str, seconds: float, ok: bool, detail: str) -> None:
        with self.lock:
            self.times[kind].append(seconds)
            if not ok:
                self.errors[kind].append(detail)


def percentile(values: list[float], q: float) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


class ThinkingBrowser(Browser):
    """Waits ``think`` seconds (uniform) after each page, as a person reads and types."""

    def __init__(self, *args, think: tuple[float, float], **kw):
        super().__init__(*args, **kw)
        self.think = think

    def request(self, kind, method, path, **kw):
        response = super().request(kind, method, path, **kw)
        if kind != "brief status" and self.think[1] > 0:
            time.sleep(random.uniform(*self.think))
        return response


def user_session(
    stack: Stack,
    index: int,
    iterations: int,
    stop_at: float,
    rec: Recorder,
    think=(0.0, 0.0),
    delay: float = 0.0,
):
    time.sleep(delay)
    browser = ThinkingBrowser(stack.url, rec, think=think)
    if not browser.sign_in(f"loadbuyer{index:02d}"):
        return
    browser.request("home", "GET", "/")
    for _ in range(iterations):
        if time.monotonic() > stop_at:
            return
        pk = browser.walk_wizard()
        if pk is None:
            continue
        key = browser.results_and_option(pk)
        if key is None:
            continue
        started = time.monotonic()
        brief_id = browser.issue_brief(pk, key)
        if brief_id is None:
            continue
        outcome = browser.wait_for_brief(brief_id, timeout=max(5.0, stop_at - time.monotonic()))
        with rec.lock:
            rec.brief_outcomes[outcome] += 1
            if outcome == "ready":
                rec.brief_seconds.append(time.monotonic() - started)
        browser.request("brief list", "GET", "/brief/")


def report(rec: Recorder, wall: float, users: int) -> bool:
    total = sum(len(v) for v in rec.times.values())
    errors = sum(len(v) for v in rec.errors.values())
    print(
        f"\n{users} users, {total} requests in {wall:.1f} s: {total / wall:.1f} requests/s, "
        f"{errors} errors"
    )
    print(
        f"{'request':<22}{'count':>7}{'errors':>8}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}"
        f"{'max ms':>9}"
    )
    for kind in sorted(rec.times, key=lambda k: (not k.startswith("step"), k)):
        values = [v * 1000 for v in rec.times[kind]]
        print(
            f"{kind:<22}{len(values):>7}{len(rec.errors.get(kind, [])):>8}"
            f"{percentile(values, 50):>9.0f}{percentile(values, 95):>9.0f}"
            f"{percentile(values, 99):>9.0f}{max(values):>9.0f}"
        )
    steps = [v * 1000 for k, vs in rec.times.items() if k.startswith("step") for v in vs]
    step_p95 = percentile(steps, 95) if steps else float("nan")
    print(
        f"\nwizard steps (GET and POST, all four): p95 {step_p95:.0f} ms "
        f"(goal under {STEP_GOAL_MS} ms)"
    )
    outcomes = ", ".join(f"{k} {v}" for k, v in sorted(rec.brief_outcomes.items()))
    if rec.brief_seconds:
        print(
            f"briefs: {outcomes}; issue to signed PDF p50 "
            f"{statistics.median(rec.brief_seconds):.1f} s, max {max(rec.brief_seconds):.1f} s"
        )
    else:
        print(f"briefs: {outcomes or 'none'}")
    for kind, details in rec.errors.items():
        counts = defaultdict(int)
        for detail in details:
            counts[detail] += 1
        print(f"errors in {kind}: " + ", ".join(f"{d} x{n}" for d, n in counts.items()))
    failed_briefs = sum(v for k, v in rec.brief_outcomes.items() if k != "ready")
    met = errors == 0 and failed_briefs == 0 and step_p95 < STEP_GOAL_MS
    print(
        "goal (0 errors, every brief signed, wizard steps p95 under "
        f"{STEP_GOAL_MS} ms): {'met' if met else 'NOT met'}"
    )
    return met


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--iterations", type=int, default=2)
    parser.add_argument("--max-seconds", type=float, default=300)
    parser.add_argument("--web-workers", type=int, default=None)
    parser.add_argument(
        "--think",
        type=float,
        nargs=2,
        default=(1.0, 3.0),
        metavar=("MIN", "MAX"),
        help="seconds a user pauses after each page, uniform (default 1 3; 0 0: no pause)",
    )
    parser.add_argument(
        "--ramp-seconds", type=float, default=10, help="users start spread over this time"
    )
    parser.add_argument(
        "--worker-nice", type=int, default=0, help="run the task worker under nice N"
    )
    args = parser.parse_args()

    stack = Stack(users=args.users, web_workers=args.web_workers, worker_nice=args.worker_nice)
    print(f"starting the stack in {stack.var} ...", flush=True)
    setup_started = time.monotonic()
    try:
        stack.start()
        print(
            f"stack up in {time.monotonic() - setup_started:.0f} s: {stack.url}, "
            f"{stack.web_workers} gunicorn workers, 1 task worker, PostgreSQL "
            f"port {stack.pg_port}",
            flush=True,
        )
        rec = Recorder()
        started = time.monotonic()
        stop_at = started + args.max_seconds
        threads = [
            threading.Thread(
                target=user_session,
                args=(stack, i, args.iterations, stop_at, rec),
                kwargs={"think": tuple(args.think), "delay": i * args.ramp_seconds / args.users},
                daemon=True,
            )
            for i in range(args.users)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(max(0.0, stop_at + 30 - time.monotonic()))
        wall = time.monotonic() - started
        met = report(rec, wall, args.users)
        server_errors = stack.log("web").count("Internal Server Error")
        tracebacks = stack.log("web").count("Traceback")
        print(f"gunicorn log: {server_errors} internal server errors, {tracebacks} tracebacks")
        print("worker log: " + str(stack.log("worker").count("Traceback")) + " tracebacks")
        return 0 if met and not tracebacks else 1
    finally:
        stack.stop()


if __name__ == "__main__":
    sys.exit(main())
