"""Calibrate and score the throughput model on the published reference runs.

Usage: ``.venv/bin/python bench/throughput_calibration.py [--write]``

Reads the reference cases (``advisor/domain/sizing/data/reference_cases.json``) and the
catalog's accelerator figures (``fixtures/catalog``), fits the calibration described in
``advisor/domain/sizing/calibration.py``, and prints:

* the launch-overhead grid with the median error at each point,
* the fitted calibration (the shared utilisation, the launch overhead, error band),
* the per-case table: case, accelerator, predicted and measured tokens/s, error,
* the summary (median |error|, share within +/-25 %, by family), and the worst five cases with
  the features that explain them.

``--write`` replaces the stored calibration block in ``calibration.py`` with the fitted values.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from dataclasses import dataclass, fields
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from advisor.domain.hardware import AcceleratorSpec  # noqa: E402
from advisor.domain.scenario import STRATEGIES, load_scenario  # noqa: E402
from advisor.domain.sizing import calibration, reference  # noqa: E402
from advisor.domain.sizing.calibration import Calibration, Observation  # noqa: E402
from advisor.domain.sizing.compute import estimate_time, tokens_per_second  # noqa: E402

CASES_PATH = reference.CASES_PATH
CATALOG_PATH = ROOT / "fixtures" / "catalog" / "10_accelerators.json"
CALIBRATION_PATH = ROOT / "advisor" / "domain" / "sizing" / "calibration.py"


@dataclass(frozen=True)
class CatalogAccelerator(AcceleratorSpec):
    """The domain spec plus the catalog's FP16 figure (the only 16-bit figure of some NPUs)."""

    fp16_dense_tflops: float | None = None


def load_accelerators(path: Path = CATALOG_PATH) -> dict[str, CatalogAccelerator]:
    names = {f.name for f in fields(CatalogAccelerator)}
    out = {}
    for record in json.loads(path.read_text(encoding="utf-8")):
        if record.get("model") != "vendors.accelerator":
            continue
        data = record["fields"]
        out[data["key"]] = CatalogAccelerator(**{n: data.get(n) for n in names})
    return out


def load_observations(cases_path: Path = CASES_PATH) -> list[Observation]:
    cases = json.loads(cases_path.read_text(encoding="utf-8"))
    return calibration.observations_from_cases(cases, load_accelerators(), load_scenario)


def predict(observation: Observation, cal: Calibration) -> float:
    estimate = estimate_time(observation.scenario, observation.accelerator, cal=cal)
    return estimate.tokens_per_s


def error(observation: Observation, cal: Calibration) -> float:
    return predict(observation, cal) / observation.measured_tokens_per_s - 1


# Features of a case that the v1 format cannot express and that move throughput; printed next
# to the worst cases so that the reason for each miss is visible.
EXPLANATIONS = (
    (r"CAUTION on throughput", "source flagged: its tokens/s imply an implausible share of peak"),
    (r"loops over experts", "HF MoE loops over experts (no grouped GEMM)"),
    (r"packed=false", "unpacked short samples: real tokens per batch far below seq_len"),
    (r"\bEP \d|expert parallelism", "expert parallelism (all-to-all and per-expert efficiency)"),
    (r"sliding-window", "sliding-window attention (less attention work than full causal)"),
    (r"context parallel", "context parallelism (stated: parallelism.context_parallel)"),
    (r"offload", "CPU offload"),
    (r"pre-?training|PRE-TRAINING", "pre-training benchmark configuration"),
    (r"torch\.compile", "torch.compile"),
    (r"activation offloading", "activation offloading (not in v1)"),
    (r"GPTQ", "GPTQ int4 base (not bitsandbytes NF4)"),
)


def explain(case_notes: str) -> str:
    found = [text for pattern, text in EXPLANATIONS if re.search(pattern, case_notes)]
    return "; ".join(found) or "no unmodelled feature named in the notes"


def source_of(case_id: str) -> str:
    """The publication a case comes from (the grouping of bench/sizing_fidelity.py)."""
    return reference.source_group(case_id)


def leave_one_source_out(observations: list[Observation]) -> list[tuple[str, float]]:
    """Median |error| of each source's cases under a calibration fitted on the other sources.

    Every family takes the shared utilisation, so a source's family need not be in the fit.
    """
    out = []
    for source in sorted({source_of(o.case_id) for o in observations}):
        held_out = [o for o in observations if source_of(o.case_id) == source]
        rest = [o for o in observations if source_of(o.case_id) != source]
        cal, _ = calibration.fit(rest, predict)
        out.append((source, statistics.median(abs(error(o, cal)) for o in held_out)))
    return out


def catalog_sweep_ms(scenario) -> float:
    """Milliseconds for the fast path over the whole catalog (accelerators x 1-64 x strategies)."""
    accelerators = list(load_accelerators().values())
    started = time.perf_counter()
    for accelerator in accelerators:
        for gpus in range(1, 65):
            for strategy in STRATEGIES:
                tokens_per_second(scenario, accelerator, gpus=gpus, strategy=strategy)
    return (time.perf_counter() - started) * 1000


def write_stored(cal: Calibration) -> None:
    text = CALIBRATION_PATH.read_text(encoding="utf-8")
    start = text.index("STORED = Calibration(")
    end = text.index("# --- end of stored calibration")
    counts = ", ".join(f'"{k}": {v}' for k, v in sorted(cal.cases_by_family.items()))
    block = (
        "STORED = Calibration(\n"
        f"    utilisation={cal.utilisation},\n"
        f"    cases_by_family={{{counts}}},\n"
        f"    layer_pass_overhead_s={cal.layer_pass_overhead_s},\n"
        f"    error_ratio_low={cal.error_ratio_low},\n"
        f"    error_ratio_high={cal.error_ratio_high},\n"
        f"    error_cases={cal.error_cases},\n"
        ")\n"
    )
    CALIBRATION_PATH.write_text(text[:start] + block + text[end:], encoding="utf-8")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="store the fitted calibration")
    args = parser.parse_args(argv)
    notes = {c["id"]: c["notes"] for c in json.loads(CASES_PATH.read_text(encoding="utf-8"))}
    observations = load_observations()
    started = time.perf_counter()
    fitted, grid = calibration.fit(observations, predict)
    fitted = calibration.rounded(fitted)
    print(
        f"Calibration fitted on {len(observations)} measured runs in "
        f"{time.perf_counter() - started:.1f} s"
    )
    print("\nLaunch overhead per layer and pass -> median |error|")
    for overhead, err in grid:
        print(f"  {overhead * 1e3:5.2f} ms  {err:6.1%}")
    print("\nFitted calibration")
    print(f"  matrix utilisation {fitted.utilisation:.3f} (every accelerator)")
    for family, count in sorted(fitted.cases_by_family.items()):
        print(f"  {family:10s} {count} measured cases")
    print(f"  overhead {fitted.layer_pass_overhead_s * 1e3:.2f} ms per layer and pass")
    print(
        f"  error band (measured/predicted, p10..p90): {fitted.error_ratio_low} .. "
        f"{fitted.error_ratio_high} over {fitted.error_cases} cases"
    )
    cal = calibration.STORED if not args.write else fitted
    if args.write:
        write_stored(fitted)
        print(f"\nStored in {CALIBRATION_PATH.relative_to(ROOT)}")
    elif cal != fitted:
        print("\nNOTE: the stored calibration differs from this fit; run with --write")
    print(
        f"\nPer-case table (stored calibration)\n{'case':46s} {'accelerator':17s} "
        f"{'predicted':>10s} {'measured':>10s} {'error':>7s}"
    )
    rows = []
    for o in observations:
        predicted = predict(o, cal)
        err = predicted / o.measured_tokens_per_s - 1
        rows.append((o, predicted, err))
        print(
            f"{o.case_id:46s} {o.accelerator.key:17s} {predicted:10.0f} "
            f"{o.measured_tokens_per_s:10.0f} {err:+7.1%}"
        )
    abs_errors = [abs(e) for _, _, e in rows]
    print("\nSummary")
    print(
        f"  cases {len(rows)}; median |error| {statistics.median(abs_errors):.1%} "
        f"(acceptance <= 25 %); within +/-25 %: "
        f"{sum(a <= 0.25 for a in abs_errors) / len(rows):.0%}; "
        f"mean signed error {statistics.mean(e for _, _, e in rows):+.1%}"
    )
    for family in sorted(cal.cases_by_family):
        errs = [abs(e) for o, _, e in rows if calibration.family_of(o.accelerator) == family]
        if errs:
            print(f"  {family:10s} median |error| {statistics.median(errs):.1%} ({len(errs)})")
    print("\nOut of sample: each source's cases predicted by a calibration fitted without them")
    for source, err in leave_one_source_out(observations):
        print(f"  {source:10s} median |error| {err:6.1%}")
    print(
        f"\nSpeed: {catalog_sweep_ms(observations[0].scenario):.1f} ms for tokens/s of one scenario "
        "on every catalog accelerator x 1-64 GPUs x every strategy"
    )
    print("\nWorst five")
    for o, predicted, err in sorted(rows, key=lambda r: -abs(r[2]))[:5]:
        print(
            f"  {o.case_id}: predicted {predicted:.0f}, measured "
            f"{o.measured_tokens_per_s:.0f} ({err:+.0%}) - {explain(notes[o.case_id])}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
