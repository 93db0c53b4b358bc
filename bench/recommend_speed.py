"""CPU and SQL queries of one recommendation, as `recommend --format json` makes it in-process.

Usage: ``.venv/bin/python bench/recommend_speed.py [--runs N] [--case 7b-two|7b-all|32b-all]``

Cases over the seeded catalog: the standard Qwen2.5-7B LoRA job comparing two sites, the same
job over every data center, and the source article's Qwen2.5-32B LoRA job over every data
center (the heaviest document the wizard produces). For each: the options made, the SQL
queries of one run, and the median CPU time (this process, ``time.process_time``) of the
recommendation alone (catalog reads, sizing, compliance, economics, ranking) and of the whole
command (the same plus the JSON it prints). The goals it reports against: 100 ms CPU median
and 20 queries for the 32B all-sites command.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import tempfile
import time
from pathlib import Path

from _django import setup

GOAL_CPU_MS = 100
GOAL_QUERIES = 20


def cpu_ms(function, runs: int) -> float:
    spent = []
    for _ in range(runs):
        start = time.process_time()
        function()
        spent.append(time.process_time() - start)
    return statistics.median(spent) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--case", choices=("7b-two", "7b-all", "32b-all"), help="one case only")
    args = parser.parse_args()
    setup()

    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from advisor.demo_scenarios import QWEN_7B_LORA, QWEN_7B_LORA_COMPARED, QWEN_32B_LORA
    from advisor.recommendation.run import run_recommendation

    cases = {
        "7b-two": ("7B LoRA, two sites", QWEN_7B_LORA_COMPARED),
        "7b-all": ("7B LoRA, every site", QWEN_7B_LORA),
        "32b-all": ("32B LoRA, every site", QWEN_32B_LORA),
    }
    chosen = [args.case] if args.case else list(cases)
    folder = Path(tempfile.mkdtemp(prefix="advisor-recommend-"))
    print(f"{'case':<24} {'options':>7} {'queries':>7} {'recommend':>10} {'command':>9}")
    verdict = ""
    for key in chosen:
        name, document = cases[key]
        path = folder / f"{key}.json"
        path.write_text(json.dumps(document), encoding="utf-8")

        def command(path=path):
            call_command("recommend", input=str(path), format="json", stdout=io.StringIO())

        run = run_recommendation(document)  # warm: templates, translations, catalog memo
        command()
        with CaptureQueriesContext(connection) as queries:
            command()
        recommend = cpu_ms(lambda document=document: run_recommendation(document), args.runs)
        whole = cpu_ms(command, args.runs)
        options = len(run.recommendation.options)
        count = len(queries.captured_queries)
        print(f"{name:<24} {options:>7} {count:>7} {recommend:>8.0f} ms {whole:>6.0f} ms")
        if name.startswith("32B"):
            met = whole <= GOAL_CPU_MS and count <= GOAL_QUERIES
            verdict = (
                f"32B every site: {whole:.0f} ms CPU, {count} queries; goal <= {GOAL_CPU_MS} ms "
                f"and <= {GOAL_QUERIES} queries: {'meets' if met else 'misses'}"
            )
    print(verdict)


if __name__ == "__main__":
    main()
