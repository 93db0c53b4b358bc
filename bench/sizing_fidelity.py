"""Score the memory model (and the whole sizing path's throughput) on the reference cases.

Usage: ``.venv/bin/python bench/sizing_fidelity.py [--write]``

Reads the reference cases (``advisor/domain/sizing/data/reference_cases.json``) and the
catalog's accelerator figures (``fixtures/catalog``) and prints:

* the memory table: case, the framework its source names, metric compared, predicted and
  measured GiB, signed error (or, for out-of-memory and "fits within" claims, whether the
  prediction agrees);
* the memory summary on measured cases (median |error|, share within +/-20 %, worst
  under-prediction, 10th/90th percentiles) against issue 3's acceptance, and the same figures
  for the published rule-of-thumb estimates, shown for comparison only;
* the same summary with each scenario exactly as v1 gives it (no framework), for comparison:
  the acceptance figures set ``framework`` to what each case's own source and notes name
  (``ReferenceCase.named_framework``; docs/decisions/0015-training-framework.md);
* the five worst measured memory cases;
* the throughput table through :func:`advisor.domain.sizing.estimate.size` and its median.

``--write`` stores the 10th/90th error percentiles (the memory bands, framework stated and
unstated) in ``memory.py``.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from advisor.domain.hardware import load_fixture_specs  # noqa: E402
from advisor.domain.sizing.estimate import size  # noqa: E402
from advisor.domain.sizing.reference import (  # noqa: E402
    load_cases,
    score_memory,
    score_throughput,
    summarise,
)

MEMORY_PATH = ROOT / "advisor" / "domain" / "sizing" / "memory.py"
CATALOG_DIR = ROOT / "fixtures" / "catalog"

# Issue 3's acceptance on measured cases.
MEMORY_MEDIAN_LIMIT = 0.10
MEMORY_WITHIN_20_MIN = 0.85
MEMORY_WORST_UNDER_LIMIT = -0.15
THROUGHPUT_MEDIAN_LIMIT = 0.25


def accelerators():
    return load_fixture_specs(CATALOG_DIR)[0]


def memory_scores(cases=None, specs=None, *, named_framework=True):
    """Memory scores; with ``named_framework`` each scenario gets the framework its source names."""
    cases = cases if cases is not None else load_cases()
    if named_framework:
        cases = [case.with_named_framework() for case in cases]
    return score_memory(cases, specs or accelerators())


def measured_errors(scores) -> list[float]:
    return [s.error for s in scores if s.measured_case and s.error is not None]


def predict_throughput(case, specs):
    accelerator = specs.get(case.scenario.hardware.accelerator or "")
    if accelerator is None:
        return None
    result = size(case.scenario, accelerator)
    return result.time.tokens_per_s if result.time else None


def throughput_scores(cases=None, specs=None):
    cases = cases if cases is not None else load_cases()
    cases = [case.with_named_framework() for case in cases]
    specs = specs or accelerators()
    return score_throughput(cases, lambda case: predict_throughput(case, specs))


def write_band(p10: float, p90: float, prefix: str = "MEMORY_ERROR_") -> None:
    text = MEMORY_PATH.read_text(encoding="utf-8")
    text = re.sub(rf"\b{prefix}P10 = -?[0-9.]+", f"{prefix}P10 = {p10:.3f}", text)
    text = re.sub(rf"\b{prefix}P90 = -?[0-9.]+", f"{prefix}P90 = {p90:.3f}", text)
    MEMORY_PATH.write_text(text, encoding="utf-8")


def _pct(value: float) -> str:
    return f"{value * 100:+.1f}%"


def print_memory(scores, frameworks: dict[str, str | None]) -> None:
    print("Memory per GPU (GiB): predicted at the case's metric vs measured")
    print("(needed: what the card must hold; a reading adds the allocator's length drift)")
    print(
        f"{'case':<44} {'framework':<10} {'kind':<6} {'metric':<9} {'needed':>7} "
        f"{'predicted':>9} {'measured':>9} {'error':>8}"
    )
    for s in scores:
        tag = "" if s.measured_case else " (est)"
        agrees = "ok" if s.passed else "WRONG"
        outcome = _pct(s.error) if s.kind == "peak" else agrees
        label = {"peak": "peak", "oom": "OOM", "fits_within": "fits"}[s.kind]
        needed = f"{s.needed_gib:7.1f}" if s.needed_gib is not None else f"{'':7}"
        print(
            f"{(s.case_id + tag)[:44]:<44} {frameworks.get(s.case_id) or '-':<10} {label:<6} "
            f"{s.metric:<9} {needed} {s.predicted_gib:9.1f} "
            f"{s.measured_gib:9.1f} {outcome:>8}"
        )


def print_summary(title: str, errors: list[float]) -> None:
    summary = summarise(errors)
    print(
        f"{title}: {summary.count} cases, median |error| {summary.median_abs:.1%}, "
        f"within +/-20% {summary.within_20:.0%}, worst under-prediction "
        f"{summary.worst_under:+.1%}, p10 {summary.p10:+.1%}, p90 {summary.p90:+.1%}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="store the memory error band")
    args = parser.parse_args()
    cases = load_cases()
    specs = accelerators()
    scores = memory_scores(cases, specs)
    print_memory(scores, {case.id: case.named_framework for case in cases})
    print()
    errors = measured_errors(scores)
    summary = summarise(errors)
    print_summary("Measured memory cases (framework named by each source)", errors)
    print(
        f"  acceptance: median <= {MEMORY_MEDIAN_LIMIT:.0%}: "
        f"{'PASS' if summary.median_abs <= MEMORY_MEDIAN_LIMIT else 'FAIL'}; "
        f">= {MEMORY_WITHIN_20_MIN:.0%} within +/-20%: "
        f"{'PASS' if summary.within_20 >= MEMORY_WITHIN_20_MIN else 'FAIL'}; "
        f"no under-prediction beyond {MEMORY_WORST_UNDER_LIMIT:.0%}: "
        f"{'PASS' if summary.worst_under >= MEMORY_WORST_UNDER_LIMIT else 'FAIL'}"
    )
    checks = [s for s in scores if s.measured_case and s.kind != "peak"]
    wrong = [s.case_id for s in checks if not s.passed]
    print(f"  OOM / fits-within claims: {len(checks) - len(wrong)} of {len(checks)} agree {wrong}")
    unstated_errors = measured_errors(memory_scores(cases, specs, named_framework=False))
    unstated = summarise(unstated_errors)
    print_summary("Same cases, scenario v1 only (no framework)", unstated_errors)
    estimates = [s.error for s in scores if not s.measured_case and s.error is not None]
    print_summary("Published rule-of-thumb estimates (comparison only)", estimates)
    print()
    print("Worst five measured memory cases:")
    peaks = [s for s in scores if s.measured_case and s.error is not None]
    for s in sorted(peaks, key=lambda s: abs(s.error), reverse=True)[:5]:
        print(f"  {s.case_id:<44} {_pct(s.error):>8}  ({s.predicted_gib:.1f} vs {s.measured_gib})")
    print()
    throughput = throughput_scores(cases, specs)
    print("Throughput through size() (tokens/s, whole job)")
    print(f"{'case':<44} {'predicted':>11} {'measured':>11} {'error':>8}")
    for t in throughput:
        tag = "" if t.measured_case else " (est)"
        print(
            f"{(t.case_id + tag)[:44]:<44} {t.predicted:11,.0f} {t.measured:11,.0f} "
            f"{_pct(t.error):>8}"
        )
    measured = [abs(t.error) for t in throughput if t.measured_case]
    if measured:
        median = statistics.median(measured)
        verdict = "PASS" if median <= THROUGHPUT_MEDIAN_LIMIT else "FAIL"
        print(
            f"Throughput: {len(measured)} measured cases, median |error| {median:.1%} ({verdict})"
        )
    if args.write:
        write_band(summary.p10, summary.p90)
        write_band(unstated.p10, unstated.p90, prefix="MEMORY_ERROR_UNSTATED_")
        print(
            f"stored memory bands p10 {summary.p10:+.3f}, p90 {summary.p90:+.3f} (framework "
            f"stated), p10 {unstated.p10:+.3f}, p90 {unstated.p90:+.3f} (unstated) in "
            f"{MEMORY_PATH}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
