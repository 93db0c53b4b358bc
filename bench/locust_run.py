"""The locust measurement in one command: production stack, users, locust stages, one table.

    .venv/bin/python bench/locust_run.py                 # 20 users for 2 min, then 50 for 1 min
    .venv/bin/python bench/locust_run.py --stages 20:180 # one stage: 20 users for 3 minutes
    .venv/bin/python bench/locust_run.py --tiny          # 2 users for 15 s: checks it all works
    .venv/bin/python bench/locust_run.py --brief-workers 2  # as production starts on 2 CPUs

Starts the stack that bench/locustfile.py expects (bench/_stack.py: its own PostgreSQL cluster
on ``--pg-port``, a fresh database, ``scripts/serve-production prepare``, then gunicorn and a
brief worker as the production start runs them, the catalog, procurement users
``loadbuyer00``.. with the bench password, a stand-in for the organisation's signer), then runs locust
headless once per stage (``USERS:SECONDS``; 1-2 s think time, the probe's mix: walking the
wizard, results, option, comparison, own figures, issuing briefs), each stage with fresh users
walking the wizard first. Prints, per stage, p50/p95/p99 per page, requests/s and error counts
(from locust's CSV files, kept under ``--csv-dir``), the load average of the machine before and
after, the CPU seconds gunicorn, the brief worker, PostgreSQL, locust and the whole machine
used (other work on a shared machine shows in latency; CPU ms per request,
``bench/cpu_per_request.py``, does not), and whether the issue's goals are met: 0 errors, p95
≤ 300 ms over all requests and results page p95 ≤ 400 ms at 20 users; 0 errors at 50.
Then, from the locustfile's log of every request, exact p50/p95/p99 over the whole stage and
over the part after the ramp (once every user has walked the wizard and confirmed): the goals
are judged on the whole stage, the second line says how much of the tail the ramp is.
Each stage also says how many briefs its users issued, how many the worker made during it
(issue to made, p50, p95 and max) and how many still waited at its end; after the last stage
the bench waits (at most five minutes) until every brief issued is made and says how long that
took, how many briefs a minute each worker made while the queue drained, the worker's CPU
seconds per brief (the drain rate on a free core, whatever else the machine did), and the issue
to made p50/p95 over all stages: the worker yields the CPUs to page views while a brief is on
time and renders a late one at a page view's priority (decisions 0079, 0145). Exits 1 when a
stage had errors. Everything is stopped at the end, also on Ctrl-C.
Locust reports times above 100 ms rounded to two significant figures.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCUST = ROOT / ".venv" / "bin" / "locust"
LOCUSTFILE = ROOT / "bench" / "locustfile.py"
DEFAULT_STAGES = "20:120,50:60"
TINY_STAGES = "2:15"
GOAL_P95_MS = 300  # over all requests, at 20 users
GOAL_RESULTS_P95_MS = 400
GOAL_USERS = 20


@dataclass(frozen=True)
class Stage:
    users: int
    seconds: int

    @property
    def spawn_rate(self) -> int:
        return max(1, self.users // 4)  # all users started within about 4 s


@dataclass(frozen=True)
class Row:
    name: str
    requests: int
    failures: int
    p50: float
    p95: float
    p99: float
    per_second: float


def parse_stages(text: str) -> list[Stage]:
    """``"20:120,50:60"`` → stages; ValueError naming the bad part."""
    stages = []
    for part in text.split(","):
        users, _, seconds = part.strip().partition(":")
        try:
            stage = Stage(int(users), int(seconds))
        except ValueError:
            raise ValueError(f"stage {part.strip()!r} is not USERS:SECONDS") from None
        if stage.users < 1 or stage.seconds < 5:
            raise ValueError(f"stage {part.strip()!r}: at least 1 user and 5 seconds")
        stages.append(stage)
    return stages


def _number(value: str) -> float:
    try:
        return float(value)
    except ValueError:  # "N/A" when a page had no request
        return float("nan")


def read_stats(path: Path) -> list[Row]:
    """Locust's ``*_stats.csv``: one row per request name, "Aggregated" last."""
    rows = []
    with path.open(newline="", encoding="utf-8") as handle:
        for record in csv.DictReader(handle):
            rows.append(
                Row(
                    name="all requests" if record["Name"] == "Aggregated" else record["Name"],
                    requests=int(record["Request Count"]),
                    failures=int(record["Failure Count"]),
                    p50=_number(record["50%"]),
                    p95=_number(record["95%"]),
                    p99=_number(record["99%"]),
                    per_second=_number(record["Requests/s"]),
                )
            )
    return rows


def read_failures(path: Path) -> list[str]:
    if not path.exists():
        return []
    with path.open(newline="", encoding="utf-8") as handle:
        return [
            f"{r['Occurrences']} × {r['Method']} {r['Name']}: {r['Error']}"
            for r in csv.DictReader(handle)
        ]


def table(rows: list[Row]) -> str:
    lines = [
        f"{'page':<22} {'requests':>8} {'errors':>6} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} "
        f"{'req/s':>6}"
    ]
    for row in rows:
        lines.append(
            f"{row.name:<22} {row.requests:>8} {row.failures:>6} {row.p50:>7.0f} {row.p95:>7.0f} "
            f"{row.p99:>7.0f} {row.per_second:>6.1f}"
        )
    return "\n".join(lines)


def verdict(stage: Stage, rows: list[Row]) -> list[str]:
    """The issue's goals for this stage, each with met / missed."""
    total = next((r for r in rows if r.name == "all requests"), None)
    if total is None:
        return ["no requests were made"]
    errors = sum(r.failures for r in rows if r.name != "all requests")
    out = [f"errors: {errors} (goal 0) {'met' if errors == 0 else 'MISSED'}"]
    if stage.users == GOAL_USERS:
        out.append(
            f"p95 over all requests: {total.p95:.0f} ms (goal ≤ {GOAL_P95_MS}) "
            + ("met" if total.p95 <= GOAL_P95_MS else "MISSED")
        )
        results = next((r for r in rows if r.name == "results"), None)
        if results is not None:
            out.append(
                f"results page p95: {results.p95:.0f} ms (goal ≤ {GOAL_RESULTS_P95_MS}) "
                + ("met" if results.p95 <= GOAL_RESULTS_P95_MS else "MISSED")
            )
    return out


@dataclass(frozen=True)
class Request:
    started: float  # epoch seconds
    name: str
    ms: float
    failed: bool


def read_requests(path: Path) -> list[Request]:
    """The locustfile's request log (``LOCUST_REQUEST_LOG``), one line per request."""
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        started, name, ms, failed = line.rsplit(",", 3)
        out.append(Request(float(started), name, float(ms), failed == "1"))
    return sorted(out, key=lambda r: r.started)


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile (``share`` 0.95 → p95); NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def after_the_ramp(requests: list[Request], users: int) -> list[Request]:
    """The requests that started after every user had walked the wizard (its ``confirm``
    answered); empty when not every user got that far."""
    confirms = [r.started + r.ms / 1000 for r in requests if r.name == "confirm"]
    if len(confirms) < users:
        return []
    ramp_end = sorted(confirms)[users - 1]
    return [r for r in requests if r.started > ramp_end]


def steady_lines(requests: list[Request], users: int) -> list[str]:
    """Exact percentiles over the whole stage and over the part after the ramp, from the log."""
    if not requests:
        return []
    out = []
    first = requests[0].started
    parts = [("whole stage", requests), ("after the ramp", after_the_ramp(requests, users))]
    for label, part in parts:
        if not part:
            out.append(f"{label}: no requests")
            continue
        ms = [r.ms for r in part]
        results = [r.ms for r in part if r.name == "results"]
        out.append(
            f"{label} (from {part[0].started - first:.0f} s, {len(part)} requests): "
            f"p50 {percentile(ms, 0.5):.0f}, p95 {percentile(ms, 0.95):.0f}, "
            f"p99 {percentile(ms, 0.99):.0f} ms; results p95 {percentile(results, 0.95):.0f} ms"
        )
    return out


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} CPUs)"


# --- Where the CPU went (Linux /proc): the stack's processes, locust, the whole machine --------


def _processes() -> list[tuple[int, int, int, float]]:
    """(pid, parent pid, session id, CPU seconds) of every live process: its own user and
    system time and that of its children that ended and were waited for (a PostgreSQL backend
    whose connection closed during a stage counts in its postmaster's)."""
    ticks = os.sysconf("SC_CLK_TCK")
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # the process ended meanwhile
            continue
        rest = text[text.rfind(")") + 2 :].split()
        used = sum(int(value) for value in rest[11:15]) / ticks  # utime stime cutime cstime
        out.append((int(stat.parent.name), int(rest[1]), int(rest[3]), used))
    return out


def _group_cpu(processes, *, session: int | None = None, parent: int | None = None) -> float:
    """CPU seconds of a session's processes, or of a process and its children."""
    if session is not None:
        return sum(cpu for _, _, sid, cpu in processes if sid == session)
    return sum(cpu for pid, ppid, _, cpu in processes if parent in (pid, ppid))


def _machine_busy() -> float:
    """CPU seconds the whole machine has spent busy since boot (all cores)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _postmaster(stack) -> int | None:
    pid_file = Path(os.environ.get("TMPDIR", "/tmp")) / f"ftadvisor-pg-{stack.pg_port}"
    try:
        return int((pid_file / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


class CpuMeter:
    """CPU seconds used during a stage by gunicorn, the brief worker, PostgreSQL, locust and the
    whole machine (everyone's work: a shared machine shows here). A process that ended during
    the stage counts in its parent's figure once the parent has waited for it (``_processes``).
    """

    def __init__(self, stack):
        self.stack = stack
        self.postmaster = _postmaster(stack)

    def _groups(self) -> dict[str, float]:
        processes = _processes()
        groups = {
            "gunicorn": _group_cpu(processes, session=self.stack.web.pid),
            "brief worker": sum(
                _group_cpu(processes, session=worker.pid) for worker in self.stack.workers()
            ),
        }
        if self.postmaster is not None:
            groups["PostgreSQL"] = _group_cpu(processes, parent=self.postmaster)
        return groups

    def settle(self, *, window: float = 3.0, quiet: float = 0.3, limit: float = 120) -> float:
        """Wait until gunicorn and the brief worker have finished starting (less than ``quiet``
        CPU seconds over ``window`` seconds), so that a stage does not measure their start;
        returns the seconds waited."""
        started = time.monotonic()
        while time.monotonic() - started < limit:
            before = sum(self._groups().values())
            time.sleep(window)
            if sum(self._groups().values()) - before < quiet:
                break
        return time.monotonic() - started

    def start(self) -> None:
        self.before = self._groups()
        self.busy = _machine_busy()
        self.children = _children_cpu()
        self.started = time.monotonic()

    def used(self) -> dict[str, float]:
        """CPU seconds each group used since :meth:`start`."""
        return {name: value - self.before.get(name, 0.0) for name, value in self._groups().items()}

    def report(self) -> str:
        used = self.used()
        used["locust"] = _children_cpu() - self.children
        wall = time.monotonic() - self.started
        busy = _machine_busy() - self.busy
        parts = ", ".join(f"{name} {seconds:.0f}" for name, seconds in used.items())
        other = max(0.0, busy - sum(used.values()))
        return (
            f"CPU seconds used: {parts}; other work {other:.0f}; the whole machine {busy:.0f} "
            f"of {wall * (os.cpu_count() or 1):.0f} ({os.cpu_count()} CPUs × {wall:.0f} s)"
        )


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_stage(url: str, stage: Stage, prefix: Path, buyers: int) -> subprocess.CompletedProcess:
    """Locust headless for the stage; its CSV files and the request log under ``prefix``."""
    command = [
        str(LOCUST),
        "-f",
        str(LOCUSTFILE),
        "--host",
        url,
        "--headless",
        "--users",
        str(stage.users),
        "--spawn-rate",
        str(stage.spawn_rate),
        "--run-time",
        f"{stage.seconds}s",
        "--stop-timeout",
        "5",
        "--csv",
        str(prefix),
        "--only-summary",
        "--loglevel",
        "WARNING",
    ]
    log = Path(f"{prefix}_requests.csv")
    log.unlink(missing_ok=True)
    env = {**os.environ, "LOCUST_BUYERS": str(buyers), "LOCUST_REQUEST_LOG": str(log)}
    return subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=stage.seconds + 120
    )


BRIEFS_SINCE = """
SELECT status = 'generating',
       EXTRACT(EPOCH FROM (updated_at - created_at))
FROM brief_brief WHERE created_at >= to_timestamp({since})
"""
DRAIN_SECONDS = 300


def brief_summary(rows) -> str:
    """``(still generating, seconds from issue to its row's last change)`` rows as one line:
    issued, made, still queued, and issue to made at p50, p95 (nearest rank) and the most."""
    waiting = sum(1 for generating, _ in rows if generating)
    took = sorted(float(seconds) for generating, seconds in rows if not generating)
    line = f"briefs issued {len(rows)}, made {len(took)}, still queued {waiting}"
    if took:
        line += (
            f"; issue to made p50 {percentile(took, 0.5):.1f} s, "
            f"p95 {percentile(took, 0.95):.1f} s, max {took[-1]:.1f} s"
        )
    return line


def brief_line(stack, since: float) -> str:
    """Briefs issued since ``since`` (epoch s): how many are made, how long each took from
    issue to made (its row's last change), how many still wait."""
    return brief_summary(stack.sql(BRIEFS_SINCE.format(since=since)))


def drain_rate(made: int, seconds: float, workers: int) -> str:
    """Briefs a minute each worker made while the queue drained (no page views left)."""
    if made == 0 or seconds <= 0:
        return "no brief was left queued after the last stage"
    per_worker = made / seconds * 60 / workers
    return f"drained {made} queued briefs in {seconds:.0f} s: {per_worker:.1f} a minute per worker"


def cpu_per_brief(worker_cpu_s: float, made: int) -> str:
    """The brief workers' CPU seconds per brief made while the queue drained: the drain rate
    per worker on a free core (60 s / that), whatever else the machine was doing."""
    if made == 0:
        return "no brief made while draining"
    per_brief = worker_cpu_s / made
    if per_brief <= 0:
        return f"{made} briefs made, the brief workers' CPU not measured"
    return (
        f"the brief workers' CPU {worker_cpu_s:.0f} s for {made} briefs, {per_brief:.2f} s a "
        f"brief ({60 / per_brief:.0f} a minute per worker on a free core)"
    )


def drain_briefs(stack, since: float, workers: int = 1) -> str:
    """Wait (at most DRAIN_SECONDS) for the briefs queued during the stages to be made, and
    say how fast each worker made them, by the clock and by the CPU it used."""
    meter = CpuMeter(stack)
    meter.start()
    queued = _queued(stack, since)
    line = _drain(stack, since, workers)
    made = queued - _queued(stack, since)
    worker_cpu = meter.used().get("brief worker", 0.0)
    return line + "\n" + cpu_per_brief(worker_cpu, made) + " while draining"


def _queued(stack, since: float) -> int:
    return sum(1 for generating, _ in stack.sql(BRIEFS_SINCE.format(since=since)) if generating)


def _drain(stack, since: float, workers: int) -> str:
    started = time.monotonic()
    queued = _queued(stack, since)
    while time.monotonic() - started < DRAIN_SECONDS:
        rows = stack.sql(BRIEFS_SINCE.format(since=since))
        if not any(generating for generating, _ in rows):
            waited = time.monotonic() - started
            return (
                f"every brief issued during the stages made {waited:.0f} s after the last stage; "
                + drain_rate(queued, waited, workers)
                + "\n"
                + brief_summary(rows)
                + " (all stages)"
            )
        time.sleep(2)
    left = _queued(stack, since)
    return f"briefs still queued {DRAIN_SECONDS} s after the last stage; " + drain_rate(
        queued - left, DRAIN_SECONDS, workers
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--stages",
        default=DEFAULT_STAGES,
        help=f"USERS:SECONDS,… run one after another (default {DEFAULT_STAGES})",
    )
    parser.add_argument("--tiny", action="store_true", help=f"stages {TINY_STAGES}: a quick check")
    parser.add_argument("--web-workers", type=int, help="gunicorn workers (default 2 × CPUs + 1)")
    parser.add_argument(
        "--brief-workers",
        type=int,
        default=1,
        help="brief workers, each in a session of its own (default 1; production starts one "
        "per CPU)",
    )
    parser.add_argument("--pg-port", type=int, default=54400, help="the stack's own PostgreSQL")
    parser.add_argument("--csv-dir", type=Path, help="keep locust's CSV files here")
    args = parser.parse_args(argv)
    try:
        stages = parse_stages(TINY_STAGES if args.tiny else args.stages)
    except ValueError as error:
        parser.error(str(error))

    sys.path.insert(0, str(ROOT / "bench"))
    from _stack import Stack

    csv_dir = args.csv_dir or Path(tempfile.mkdtemp(prefix="advisor-locust-"))
    csv_dir.mkdir(parents=True, exist_ok=True)
    buyers = max(stage.users for stage in stages)
    print(f"starting the production stack ({buyers} users); {load_average()}", flush=True)
    stack = Stack(
        users=buyers,
        web_workers=args.web_workers,
        pg_port=args.pg_port,
        brief_workers=args.brief_workers,
    )
    failed = False
    try:
        stack.start()
        print(
            f"stack at {stack.url}: {stack.web_workers} gunicorn workers, "
            f"{stack.brief_workers} brief worker(s)"
        )
        waited = CpuMeter(stack).settle()
        print(f"waited {waited:.0f} s for gunicorn and the brief worker to finish starting")
        first_began = time.time()
        for stage in stages:
            prefix = csv_dir / f"users-{stage.users}"
            before = load_average()
            stage_began = time.time()
            print(f"\n== {stage.users} users, {stage.seconds} s, 1-2 s think time ==", flush=True)
            started = time.monotonic()
            meter = CpuMeter(stack)
            meter.start()
            done = run_stage(stack.url, stage, prefix, buyers)
            cpu = meter.report()
            stats = Path(f"{prefix}_stats.csv")
            if not stats.exists():
                print(done.stdout[-3000:] + done.stderr[-3000:])
                raise RuntimeError("locust wrote no statistics")
            rows = read_stats(stats)
            print(f"before: {before}; after: {load_average()}")
            print(f"ran {time.monotonic() - started:.0f} s; CSV: {prefix}_*.csv")
            print(cpu)
            print(table(rows))
            for line in verdict(stage, rows):
                print("  " + line)
            for line in steady_lines(read_requests(Path(f"{prefix}_requests.csv")), stage.users):
                print("  " + line)
            print("  " + brief_line(stack, stage_began))
            failures = read_failures(Path(f"{prefix}_failures.csv"))
            for line in failures[:20]:
                print("  error: " + line)
            failed = failed or bool(failures) or any(r.failures for r in rows)
        print("\n" + drain_briefs(stack, first_began, stack.brief_workers))
    finally:
        stack.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
