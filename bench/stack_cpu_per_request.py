"""CPU milliseconds per request kind as the production stack serves them (gunicorn, PostgreSQL).

    .venv/bin/python bench/stack_cpu_per_request.py [--runs N] [--set NAME=VALUE ...]

``bench/cpu_per_request.py`` measures the views in one process (test client, SQLite); this
starts the stack ``bench/locust_run.py`` loads (bench/_stack.py: ``scripts/serve-production``
web and worker, its own PostgreSQL, production settings), signs one buyer in, walks the wizard
once, then makes each page kind of the locust mix ``--runs`` times after one warm-up request,
one request at a time. Per kind: the CPU seconds gunicorn's processes (master and workers) and
PostgreSQL's processes used, read from /proc before and after, divided by the requests; and the
median wall time. CPU time, unlike wall time, means something on a shared machine.
``--set`` gives every process of the stack a variable (``--set DATABASE_CONN_MAX_AGE=0``), to
compare a setting. The stack is stopped at the end.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _stack import OPTION_LINK, Browser, Stack  # noqa: E402
from locust_run import CpuMeter, _group_cpu, _processes  # noqa: E402


def stack_cpu(stack: Stack, postmaster: int | None) -> tuple[float, float]:
    """CPU seconds so far of gunicorn (its session) and of PostgreSQL (the postmaster's tree)."""
    processes = _processes()
    web = _group_cpu(processes, session=stack.web.pid)
    database = _group_cpu(processes, parent=postmaster) if postmaster else 0.0
    return web, database


def page_kinds(pk: int, keys: list[str]) -> list[tuple[str, str, dict]]:
    """(kind, path, headers) of each GET in the locust mix, after the wizard."""
    base = f"/assessments/{pk}"
    compare = "&".join(f"option={k}" for k in keys)
    return [
        ("results", f"{base}/results/", {}),
        ("option", f"{base}/results/option/{keys[0]}/", {}),
        ("compare", f"{base}/results/compare/?{compare}", {}),
        ("own figures", f"{base}/results/figures/", {}),
        ("step training", f"{base}/training/", {}),
        ("health", "/health/", {}),
    ]


def measure(stack: Stack, browser: Browser, kinds, runs: int) -> list[str]:
    meter = CpuMeter(stack)
    postmaster = meter.postmaster
    lines = [f"{'kind':<14} {'web CPU ms':>10} {'PG CPU ms':>9} {'wall ms':>8} {'bytes':>7}"]
    for kind, path, headers in kinds:
        page = browser.request(kind, "GET", path, headers=headers)  # warm-up
        if page is None:
            raise RuntimeError(f"{kind}: GET {path} failed")
        meter.settle(window=1.0, quiet=0.05, limit=20)
        walls = []
        web0, db0 = stack_cpu(stack, postmaster)
        for _ in range(runs):
            started = time.perf_counter()
            browser.request(kind, "GET", path, headers=headers)
            walls.append(time.perf_counter() - started)
        web1, db1 = stack_cpu(stack, postmaster)
        lines.append(
            f"{kind:<14} {(web1 - web0) / runs * 1000:>10.1f} {(db1 - db0) / runs * 1000:>9.1f} "
            f"{statistics.median(walls) * 1000:>8.1f} {len(page.content):>7}"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--pg-port", type=int, default=54406, help="the stack's own PostgreSQL")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args()
    errors: list[str] = []

    def record(kind, seconds, ok, detail):
        if not ok:
            errors.append(f"{kind}: {detail}")

    stack = Stack(users=1, web_workers=2, pg_port=args.pg_port)
    stack.extra_env.update(item.split("=", 1) for item in args.set)
    try:
        stack.start()
        browser = Browser(stack.url, record)
        browser.session.headers["Accept-Encoding"] = "gzip, deflate"  # as browsers and locust
        if not browser.sign_in("loadbuyer00"):
            raise RuntimeError(f"sign-in failed: {errors}")
        pk = browser.walk_wizard()
        key = browser.results_and_option(pk) if pk else None
        if key is None:
            raise RuntimeError(f"the wizard or results failed: {errors}")
        page = browser.request("results", "GET", f"/assessments/{pk}/results/")
        keys = list(dict.fromkeys(OPTION_LINK.findall(page.text)))[:3]
        settings = ", ".join(args.set) or "the stack's defaults"
        print(f"{args.runs} requests per kind, one at a time; {settings}")
        for line in measure(stack, browser, page_kinds(pk, keys), args.runs):
            print(line, flush=True)
    finally:
        stack.stop()
    if errors:
        print("errors:", *errors, sep="\n  ")
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
