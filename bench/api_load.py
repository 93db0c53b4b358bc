"""The HTTP API under load, as a CI job would call it: sizing and ranking the standard scenarios.

    .venv/bin/python bench/api_load.py                    # own production stack, 4 clients
    .venv/bin/python bench/api_load.py --rounds 50 --clients 8
    .venv/bin/python bench/api_load.py --url http://127.0.0.1:8000 --user buyer
    .venv/bin/python bench/api_load.py --tiny ...         # one round, two clients: it works

Without ``--url`` it starts the production stack of the load bench (bench/_stack.py: its own
PostgreSQL cluster on ``--pg-port``, ``scripts/serve-production``'s gunicorn, the catalog, the
procurement user ``loadbuyer00``) with the per-token rate limit off. With ``--url`` it talks to
a server already running, whose database this environment's settings (DATABASE_URL, …) name:
the token is made there. Either way it creates a personal API token with
``manage.py api_token create --scope read`` and then, from ``--clients`` concurrent clients,
posts each standard scenario (advisor/demo_scenarios.py: the 7B LoRA job comparing two sites,
the 32B LoRA job over every site, and a hostile document that must get a 400) to
``POST /api/v1/size`` and ``POST /api/v1/recommend``, ``--rounds`` times. Prints p50/p95/p99 latency
per endpoint (and per scenario), requests/s over the run and the errors (a wrong status, a
refused connection); exits 1 when there were any. A server's rate limit
(ADVISOR_API_RATE_LIMIT, 120 a minute per token by default) shows as 429 errors: run
against your own server with the limit off or raised.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from advisor.demo_scenarios import QWEN_7B_LORA_COMPARED, QWEN_32B_LORA  # noqa: E402

PYTHON = ROOT / ".venv" / "bin" / "python"
ENDPOINTS = ("/api/v1/size", "/api/v1/recommend")
# A document the scenario validator refuses (a negative sequence length): 400, never a 500.
HOSTILE = {**QWEN_7B_LORA_COMPARED, "seq_len": -4096}
SCENARIOS = {
    "7b-compared": (QWEN_7B_LORA_COMPARED, 200),
    "32b-all-sites": (QWEN_32B_LORA, 200),
    "hostile": (HOSTILE, 400),
}


@dataclass(frozen=True)
class Call:
    endpoint: str
    scenario: str
    seconds: float
    error: str  # empty when the expected status came back


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile (``share`` 0.95 → p95); NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def create_token(username: str, env: dict | None = None) -> str:
    """A new read token for ``username``, from ``manage.py api_token create``."""
    done = subprocess.run(
        [str(PYTHON), "manage.py", "api_token", "create", "--user", username, "--scope", "read"]
        + ["--days", "1", "--name", "api load bench"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise RuntimeError(f"manage.py api_token create failed: {done.stderr.strip()}")
    return done.stdout.strip()


def plan(rounds: int) -> list[tuple[str, str]]:
    """(endpoint, scenario) of every call, round after round."""
    return [(endpoint, name) for _ in range(rounds) for name in SCENARIOS for endpoint in ENDPOINTS]


class Client:
    """One HTTP session per thread, every call timed."""

    def __init__(self, url: str, token: str):
        self.url = url.rstrip("/")
        self.token = token
        self.local = threading.local()
        self.bodies = {name: json.dumps(doc) for name, (doc, _status) in SCENARIOS.items()}

    def session(self) -> requests.Session:
        if not hasattr(self.local, "session"):
            session = requests.Session()
            session.headers.update(
                {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"}
            )
            self.local.session = session
        return self.local.session

    def call(self, endpoint: str, scenario: str) -> Call:
        expected = SCENARIOS[scenario][1]
        start = time.perf_counter()
        try:
            response = self.session().post(
                self.url + endpoint, data=self.bodies[scenario], timeout=120
            )
        except requests.RequestException as error:
            return Call(endpoint, scenario, time.perf_counter() - start, type(error).__name__)
        seconds = time.perf_counter() - start
        error = "" if response.status_code == expected else f"HTTP {response.status_code}"
        return Call(endpoint, scenario, seconds, error)


def run(url: str, token: str, rounds: int, clients: int) -> tuple[list[Call], float]:
    client = Client(url, token)
    calls = plan(rounds)
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=clients) as pool:
        done = list(pool.map(lambda call: client.call(*call), calls))
    return done, time.perf_counter() - started


def row(label: str, calls: list[Call]) -> str:
    ms = [c.seconds * 1000 for c in calls]
    errors = sum(1 for c in calls if c.error)
    return (
        f"{label:<32} {len(calls):>8} {errors:>6} {percentile(ms, 0.5):>7.0f} "
        f"{percentile(ms, 0.95):>7.0f} {percentile(ms, 0.99):>7.0f}"
    )


def report(calls: list[Call], wall: float) -> list[str]:
    lines = [
        f"{'endpoint':<32} {'requests':>8} {'errors':>6} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7}"
    ]
    for endpoint in ENDPOINTS:
        mine = [c for c in calls if c.endpoint == endpoint]
        lines.append(row(f"POST {endpoint}", mine))
        for name in SCENARIOS:
            lines.append(row(f"  {name}", [c for c in mine if c.scenario == name]))
    lines.append(row("all requests", calls))
    lines.append(f"{len(calls)} requests in {wall:.1f} s: {len(calls) / wall:.1f} requests/s")
    errors: dict[str, int] = {}
    for c in calls:
        if c.error:
            key = f"POST {c.endpoint} {c.scenario}: {c.error}"
            errors[key] = errors.get(key, 0) + 1
    lines.append(f"errors: {sum(errors.values())}")
    lines += [f"  {count} × {key}" for key, count in sorted(errors.items())]
    return lines


def measure(url: str, token: str, rounds: int, clients: int) -> int:
    print(
        f"{rounds} rounds × {len(SCENARIOS)} scenarios × {len(ENDPOINTS)} endpoints from "
        f"{clients} clients against {url}",
        flush=True,
    )
    calls, wall = run(url, token, rounds, clients)
    for line in report(calls, wall):
        print(line)
    return 1 if any(c.error for c in calls) else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--url", help="a running server (default: start the production stack)")
    parser.add_argument("--user", help="with --url: the procurement user who owns the token")
    parser.add_argument("--rounds", type=int, default=20, help="times each call is made (20)")
    parser.add_argument("--clients", type=int, default=4, help="concurrent clients (4)")
    parser.add_argument("--tiny", action="store_true", help="one round, two clients: a check")
    parser.add_argument("--pg-port", type=int, default=54400, help="the stack's own PostgreSQL")
    args = parser.parse_args(argv)
    if args.url and not args.user:
        parser.error("--url needs --user (a procurement user of that server)")
    rounds, clients = (1, 2) if args.tiny else (args.rounds, args.clients)
    if rounds < 1 or clients < 1:
        parser.error("--rounds and --clients: at least 1")

    if args.url:
        return measure(args.url, create_token(args.user), rounds, clients)

    sys.path.insert(0, str(ROOT / "bench"))
    from _stack import Stack

    stack = Stack(users=1, pg_port=args.pg_port)
    stack.extra_env["ADVISOR_API_RATE_LIMIT"] = ""  # the bench measures, the limit would refuse
    print("starting the production stack", flush=True)
    try:
        stack.start()
        return measure(stack.url, create_token("loadbuyer00", stack.env()), rounds, clients)
    finally:
        stack.stop()


if __name__ == "__main__":
    sys.exit(main())
