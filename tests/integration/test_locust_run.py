"""bench/locust_run.py: the locust measurement as one command (stages, table, goals).

Its table and verdicts are checked on locust CSV files written here, and it answers --help
(tests/integration/test_benches.py too). The whole run (its own PostgreSQL cluster, production
stack, users, locust) is a measurement of a minute or more, run by hand: ``--tiny`` checks it all
works in about a minute; it is not part of the suite, whose time it would add to.
"""

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.bench import load_bench

ROOT = Path(__file__).resolve().parents[2]
bench = load_bench("locust_run")

HEADER = (
    '"Type","Name","Request Count","Failure Count","Median Response Time",'
    '"Average Response Time","Min Response Time","Max Response Time","Average Content Size",'
    '"Requests/s","Failures/s","50%","66%","75%","80%","90%","95%","98%","99%","99.9%",'
    '"99.99%","100%"'
)


def stats_file(tmp_path, rows) -> Path:
    lines = [HEADER]
    for kind, name, count, failures, p50, p95, p99, rate in rows:
        lines.append(
            f'"{kind}","{name}",{count},{failures},{p50},{p50},1,{p99},900,{rate},0,'
            f"{p50},{p50},{p50},{p50},{p95},{p95},{p99},{p99},{p99},{p99},{p99}"
        )
    path = tmp_path / "users-20_stats.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("20:120,50:60", [(20, 120), (50, 60)]),
        ("2:15", [(2, 15)]),
        (" 5 : 30 ", [(5, 30)]),
    ],
)
def test_stages_are_users_and_seconds(text, expected):
    assert [(s.users, s.seconds) for s in bench.parse_stages(text)] == expected


@pytest.mark.parametrize("text", ["20", "20:x", "0:60", "20:2", ""])
def test_a_bad_stage_is_named(text):
    with pytest.raises(ValueError, match="stage"):
        bench.parse_stages(text)


@pytest.mark.parametrize(
    ("total_p95", "results_p95", "failures", "expected"),
    [
        (250, 380, 0, ["errors: 0 (goal 0) met", "all requests: 250 ms", "met", "380 ms"]),
        (310, 380, 0, ["p95 over all requests: 310 ms (goal ≤ 300) MISSED"]),
        (250, 420, 0, ["results page p95: 420 ms (goal ≤ 400) MISSED"]),
        (250, 380, 3, ["errors: 3 (goal 0) MISSED"]),
    ],
)
def test_the_table_and_the_goals_come_from_locusts_csv(
    tmp_path, total_p95, results_p95, failures, expected
):
    path = stats_file(
        tmp_path,
        [
            ("GET", "results", 120, failures, 90, results_p95, 600, 2.1),
            ("GET", "option", 80, 0, 60, 200, 400, 1.4),
            ("", "Aggregated", 200, failures, 70, total_p95, 500, 3.5),
        ],
    )
    rows = bench.read_stats(path)
    assert [r.name for r in rows] == ["results", "option", "all requests"]
    printed = bench.table(rows)
    assert "p95 ms" in printed and "results" in printed.splitlines()[1]
    assert f"{results_p95:>7}" in printed.splitlines()[1]
    said = "\n".join(bench.verdict(bench.Stage(20, 120), rows))
    for needle in expected:
        assert needle in said


def test_at_fifty_users_only_errors_are_a_goal(tmp_path):
    rows = bench.read_stats(
        stats_file(tmp_path, [("", "Aggregated", 10, 0, 900, 3000, 5000, 30.0)])
    )
    assert bench.verdict(bench.Stage(50, 60), rows) == ["errors: 0 (goal 0) met"]


PROCESSES = [  # (pid, parent pid, session, CPU seconds)
    (100, 1, 100, 2.0),  # gunicorn master: its session
    (101, 100, 100, 5.5),  # a gunicorn worker
    (200, 1, 200, 1.0),  # brief worker
    (300, 1, 300, 0.5),  # postmaster (its own session)
    (301, 300, 300, 1.5),  # a backend
    (302, 300, 300, 0.25),
    (400, 1, 400, 9.0),  # someone else's work
]


@pytest.mark.parametrize(
    ("selection", "expected"),
    [
        ({"session": 100}, 7.5),
        ({"session": 200}, 1.0),
        ({"parent": 300}, 2.25),
        ({"session": 999}, 0.0),
    ],
)
def test_cpu_is_summed_per_session_or_process_tree(selection, expected):
    assert bench._group_cpu(PROCESSES, **selection) == expected


def test_this_machine_reports_its_processes_and_busy_time():
    processes = bench._processes()
    assert any(pid == os.getpid() for pid, *_ in processes)
    assert bench._machine_busy() > 0


def test_a_child_that_ended_counts_in_its_parent_s_cpu():
    """A PostgreSQL backend whose connection closed during a stage: its CPU stays in the
    postmaster's figure (it was lost before, and a stage could report negative seconds)."""

    def own() -> float:
        return next(cpu for pid, _, _, cpu in bench._processes() if pid == os.getpid())

    def children() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    before, children_before = own(), children()
    subprocess.run([sys.executable, "-c", "sum(i * i for i in range(4_000_000))"], check=True)
    ended = children() - children_before
    assert ended > 0.05
    assert own() - before >= ended - 0.03  # clock ticks of 10 ms, rounded on both sides


def test_help_says_how_to_run_it():
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "locust_run.py"), "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0
    assert "--tiny" in done.stdout and "20 users for 2 min, then 50 for 1 min" in done.stdout


@pytest.mark.parametrize(
    ("values", "share", "expected"),
    [
        ([5.0, 1.0, 3.0, 2.0, 4.0], 0.5, 3.0),
        (list(map(float, range(1, 101))), 0.95, 95.0),
        (list(map(float, range(1, 101))), 0.99, 99.0),
        ([7.0], 0.95, 7.0),
    ],
)
def test_percentiles_are_nearest_rank(values, share, expected):
    assert bench.percentile(values, share) == expected


def request_log(tmp_path, lines) -> Path:
    path = tmp_path / "users-2_requests.csv"
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def test_the_steady_state_starts_when_every_user_has_confirmed(tmp_path):
    log = request_log(
        tmp_path,
        [
            "100.000,sign in,700.0,0",
            "101.000,confirm,100.0,0",  # first user done at 101.1
            "102.000,results,900.0,0",  # still the ramp: the second user has not confirmed
            "103.000,confirm,500.0,0",  # every user done at 103.5
            "103.400,results,800.0,0",  # started before the end of the ramp
            "104.000,results,50.0,0",
            "105.000,option,30.0,1",
        ],
    )
    requests = bench.read_requests(log)
    assert [r.name for r in bench.after_the_ramp(requests, 2)] == ["results", "option"]
    assert requests[-1].failed and not requests[0].failed
    whole, steady = bench.steady_lines(requests, 2)
    assert whole.startswith("whole stage (from 0 s, 7 requests): p50 500, p95 900")
    assert steady.startswith("after the ramp (from 4 s, 2 requests): p50 30, p95 50")
    assert steady.endswith("results p95 50 ms")


def test_no_steady_state_when_a_user_never_confirmed(tmp_path):
    log = request_log(tmp_path, ["100.000,confirm,100.0,0", "101.000,results,50.0,0"])
    requests = bench.read_requests(log)
    assert bench.after_the_ramp(requests, 2) == []
    assert bench.steady_lines(requests, 2)[1] == "after the ramp: no requests"
    assert bench.read_requests(tmp_path / "absent.csv") == []


def test_the_brief_line_states_issued_made_queued_and_issue_to_made_p50_p95():
    bench = load_bench("locust_run")
    rows = [(False, seconds) for seconds in range(1, 21)] + [(True, 3.0), (True, 1.0)]
    assert bench.brief_summary(rows) == (
        "briefs issued 22, made 20, still queued 2; issue to made p50 10.0 s, p95 19.0 s, "
        "max 20.0 s"
    )
    assert bench.brief_summary([(True, 0.0)]) == "briefs issued 1, made 0, still queued 1"


def test_the_drain_rate_is_per_worker_per_minute():
    bench = load_bench("locust_run")
    assert (
        bench.drain_rate(59, 111, 2)
        == "drained 59 queued briefs in 111 s: 15.9 a minute per worker"
    )
    assert bench.drain_rate(0, 5, 1) == "no brief was left queued after the last stage"


def test_the_cpu_per_brief_gives_the_drain_rate_on_a_free_core():
    bench = load_bench("locust_run")
    assert bench.cpu_per_brief(12.0, 10) == (
        "the brief workers' CPU 12 s for 10 briefs, 1.20 s a brief "
        "(50 a minute per worker on a free core)"
    )
    assert bench.cpu_per_brief(3.0, 0) == "no brief made while draining"
    assert bench.cpu_per_brief(0.0, 2) == "2 briefs made, the brief workers' CPU not measured"
