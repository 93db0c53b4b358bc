"""The recommendation's answer, pinned: the same options, ranks, totals and verdicts as recorded.

Speed work on the recommendation (issue 34: catalog reads kept per catalog version, shared work
across options, words only at the edge) must not change what a buyer reads. For the standard
scenarios over the seeded catalog on a fixed day, every option's rank, key, verdict, finding
statuses, GPUs, hours, memory and cost lines with their totals are compared with the record in
``tests/integration/golden/``. The record was written by the code before that work.

A deliberate change to the answer (a catalog figure, a rule, the cost model) rewrites the record:
``ADVISOR_WRITE_GOLDEN=1 .venv/bin/python -m pytest tests/integration/test_recommendation_golden.py``
and the diff of the record is reviewed with the change.
"""

from __future__ import annotations

import json
import os
from datetime import date
from pathlib import Path

import pytest
from django.utils import translation

from advisor.demo_scenarios import QWEN_7B_LORA, QWEN_7B_LORA_COMPARED, QWEN_32B_LORA
from advisor.presentation.compared import comparison_text
from advisor.presentation.text import render_text
from advisor.recommendation.output import option_findings, recommendation_document
from advisor.recommendation.run import run_recommendation
from tests.support.catalog import load_catalog

pytestmark = pytest.mark.django_db

GOLDEN = Path(__file__).parent / "golden"
TODAY = date(2026, 12, 1)
CASES = {
    "7b-two-sites": QWEN_7B_LORA_COMPARED,
    "7b-every-site": QWEN_7B_LORA,
    "32b-every-site": QWEN_32B_LORA,
}


def _compact(row: dict, findings: list[dict]) -> dict:
    """What a buyer decides on, from one option as ``recommend --format json`` writes it."""
    cost = row["cost"]
    return {
        "rank": row["rank"],
        "key": row["key"],
        "qualifies": row["qualifies"],
        "verdict": row["verdict"],
        "gpus": row["gpus"],
        "servers": row["servers"],
        "fits": row["fits"],
        "memory_per_gpu_gib": row["memory_per_gpu_gib"],
        "time_to_train_hours": row["time_to_train_hours"],
        "findings": [f"{f['rule']}:{f['status']}" for f in findings],
        "cost": None
        if cost is None
        else {
            "lines": [[line["item"], line["amount_cny"]] for line in cost["lines"]],
            "cash_out_cny": cost["cash_out_cny"],
            "net_of_resale_cny": cost["net_of_resale_cny"],
            "per_run_cny": cost["per_run_cny"],
        },
    }


def answer(document: dict) -> list[dict]:
    run = run_recommendation(document, today=TODAY)
    with translation.override("en"):
        document = json.loads(
            json.dumps(recommendation_document(run, render_text, compared=comparison_text))
        )
    return [_compact(row, option_findings(document, row)) for row in document["options"]]


@pytest.mark.parametrize("case", CASES)
def test_the_answer_is_the_recorded_one(case):
    load_catalog()
    path = GOLDEN / f"recommend-{case}.json"
    got = answer(CASES[case])
    if os.environ.get("ADVISOR_WRITE_GOLDEN") == "1":
        lines = (json.dumps(row, ensure_ascii=False, separators=(",", ":")) for row in got)
        path.write_text("[\n" + ",\n".join(lines) + "\n]\n", encoding="utf-8")
    recorded = json.loads(path.read_text(encoding="utf-8"))
    assert len(got) == len(recorded)
    for mine, theirs in zip(got, recorded, strict=True):
        assert mine == theirs, f"rank {theirs['rank']} ({theirs['key']}) differs"


def test_a_second_computation_gives_the_same_answer():
    """Work kept between computations (catalog reads, shared evaluations) changes nothing."""
    load_catalog()
    assert answer(QWEN_32B_LORA) == answer(QWEN_32B_LORA)
