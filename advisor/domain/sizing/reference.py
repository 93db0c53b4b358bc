"""Scoring the sizing engine against the public reference cases (pure Python).

The cases are the project's own data: ``advisor/domain/sizing/data/reference_cases.json``
(each case with its public ``source`` and ``source_url``; the layout is in
``docs/reference-cases.md``, the scenario inside each case follows ``docs/scenario-format.md``).
Tests and ``bench/`` read them through :func:`load_cases`. A case is scored only on what its
``uses`` lists; ``measured`` cases count towards the acceptance figures, ``published-estimate``
rows are shown for comparison only.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path

from advisor.domain.hardware import AcceleratorSpec
from advisor.domain.scenario import Scenario, load_scenario
from advisor.domain.sizing.memory import estimate_memory, layout_of, usable_capacity_gib

# The reference cases ship with the package (beside this module), so a bare clone has them.
CASES_PATH = Path(str(resources.files(__package__) / "data" / "reference_cases.json"))


def case_records(path: Path | None = None) -> list[dict]:
    """The reference cases as stored (a list of dicts); a missing file raises, never skips."""
    return json.loads(Path(path or CASES_PATH).read_text(encoding="utf-8"))


# The training framework a case's source ran, read from the case's own citation and notes
# (scenario v1 cannot carry it; this project's optional ``framework`` field can). Checked in
# order, the first match wins; the patterns name frameworks, never individual cases. Cases that
# match none (rule-of-thumb tables, NeMo AutoModel, Unsloth, MLPerf) keep ``framework`` unset.
SOURCE_FRAMEWORK_PATTERNS = (
    ("pytorch/torchtune", "torchtune"),
    ("Lightning-AI/litgpt", "litgpt"),
    # Hugging Face Transformers/PEFT and the tools built on them (ms-swift's swift sft
    # backend, Qwen's finetune.py, the PEFT examples).
    ("HF Trainer", "hf"),
    ("swift sft", "hf"),
    ("huggingface/peft", "hf"),
    ("QwenLM/Qwen ", "hf"),
    ("Megatron-SWIFT", "megatron"),
    ("MindSpeed", "megatron"),
)


# The publication each case comes from, by the id prefix the cases' documentation assigns to it
# (docs/reference-cases.md). Used only to group cases for leave-one-source-out scoring, never to
# predict: ms-swift's GPU and Ascend tables are one source (the same project's documentation).
SOURCE_OF_PREFIX = (
    ("nemo-am-", "NeMo AutoModel"),
    ("swift-npu-", "ms-swift"),
    ("swift-", "ms-swift"),
    ("qwen1-", "Qwen"),
    ("tt-", "torchtune"),
    ("lg-", "LitGPT"),
    ("peft-", "PEFT"),
    ("ml-", "MindSpeed-LLM"),
    ("unsloth-est-", "Unsloth requirements"),
    ("unsloth-", "Unsloth"),
    ("mlperf", "MLPerf"),
    ("lf-est-", "LLaMA-Factory table"),
    ("hfblog-est-", "Hugging Face blog"),
)


def source_group(case_id: str) -> str:
    """The publication a case comes from (``SOURCE_OF_PREFIX``; the id's prefix otherwise)."""
    for prefix, source in SOURCE_OF_PREFIX:
        if case_id.startswith(prefix):
            return source
    return case_id.split("-")[0]


@dataclass(frozen=True)
class ReferenceCase:
    id: str
    scenario: Scenario
    measured: dict
    uses: tuple[str, ...]
    kind: str  # "measured" or "published-estimate"
    source: str = ""
    notes: str = ""

    @property
    def is_measured(self) -> bool:
        return self.kind == "measured"

    @property
    def source_group(self) -> str:
        return source_group(self.id)

    @property
    def named_framework(self) -> str | None:
        """The framework the case's source and notes name (see SOURCE_FRAMEWORK_PATTERNS)."""
        text = f"{self.source} {self.notes}"
        for pattern, framework in SOURCE_FRAMEWORK_PATTERNS:
            if pattern in text:
                return framework
        return None

    def with_named_framework(self) -> ReferenceCase:
        """The case with ``scenario.framework`` set to the framework its source names."""
        if self.scenario.framework is not None:
            return self
        framework = self.named_framework
        return replace(self, scenario=replace(self.scenario, framework=framework))

    def without_framework(self) -> ReferenceCase:
        """The case as a buyer who does not know the framework would state it."""
        return replace(self, scenario=replace(self.scenario, framework=None))


def load_cases(path: Path | None = None) -> list[ReferenceCase]:
    data = case_records(path)
    return [
        ReferenceCase(
            id=item["id"],
            scenario=load_scenario(item["scenario"]),
            measured=item["measured"],
            uses=tuple(item["uses"]),
            kind=item["measured_kind"],
            source=item.get("source") or "",
            notes=item.get("notes") or "",
        )
        for item in data
    ]


# --- Memory -------------------------------------------------------------------------------


@dataclass(frozen=True)
class MemoryScore:
    """One memory case: the figure predicted and what it is compared with."""

    case_id: str
    kind: str  # "peak", "oom" or "fits_within"
    predicted_gib: float
    measured_gib: float | None  # the reported peak, the card's capacity or the claimed bound
    metric: str
    passed: bool | None  # for oom / fits_within cases
    measured_case: bool
    needed_gib: float | None = None  # what the card must hold (the total, without the drift)
    high_gib: float | None = None  # the upper end of the range a reading may reach

    @property
    def under_error(self) -> float | None:
        """Signed relative error of the range's upper end: a reading above it is what a buyer
        was not told to expect (the under-prediction criterion); equals ``error`` for packed
        batches and allocated metrics."""
        if self.kind != "peak":
            return None
        high = self.high_gib if self.high_gib is not None else self.predicted_gib
        return (high - self.measured_gib) / self.measured_gib

    @property
    def error(self) -> float | None:
        """Signed relative error (predicted - measured) / measured for peak cases."""
        if self.kind != "peak":
            return None
        return (self.predicted_gib - self.measured_gib) / self.measured_gib


def score_memory_case(case: ReferenceCase, accelerators: dict[str, AcceleratorSpec]) -> MemoryScore:
    scenario = case.scenario
    layout = layout_of(scenario)
    accelerator = accelerators.get(scenario.hardware.accelerator or "")
    breakdown = estimate_memory(scenario, layout, accelerator=accelerator)
    metric = case.measured.get("memory_metric") or "unknown"
    if case.measured.get("oom"):
        capacity = usable_capacity_gib(accelerator)
        predicted = breakdown.total
        return MemoryScore(
            case.id, "oom", predicted, capacity, metric, predicted > capacity, case.is_measured
        )
    bound = case.measured.get("fits_within_gib")
    if case.measured.get("peak_memory_gib") is None and bound is not None:
        predicted = breakdown.total
        return MemoryScore(
            case.id, "fits_within", predicted, bound, metric, predicted <= bound, case.is_measured
        )
    predicted = breakdown.at_metric(metric)
    return MemoryScore(
        case.id,
        "peak",
        predicted,
        case.measured["peak_memory_gib"],
        metric,
        None,
        case.is_measured,
        needed_gib=breakdown.total,
        high_gib=breakdown.at_metric(metric, high=True),
    )


def score_memory(
    cases: Iterable[ReferenceCase], accelerators: dict[str, AcceleratorSpec]
) -> list[MemoryScore]:
    return [score_memory_case(c, accelerators) for c in cases if "memory" in c.uses]


@dataclass(frozen=True)
class ErrorSummary:
    """Summary of signed relative errors (fractions, not percent)."""

    count: int
    median_abs: float
    within_20: float  # share of cases within +-20 %
    worst_under: float  # most negative error (0 when none is negative)
    p10: float
    p90: float


def percentile(values: list[float], share: float) -> float:
    """Linear-interpolation percentile (``share`` in 0..1) of a non-empty list."""
    ordered = sorted(values)
    position = share * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summarise(errors: list[float]) -> ErrorSummary:
    if not errors:
        return ErrorSummary(0, 0.0, 0.0, 0.0, 0.0, 0.0)
    return ErrorSummary(
        count=len(errors),
        median_abs=statistics.median(abs(e) for e in errors),
        within_20=sum(abs(e) <= 0.20 for e in errors) / len(errors),
        worst_under=min(0.0, min(errors)),
        p10=percentile(errors, 0.10),
        p90=percentile(errors, 0.90),
    )


# --- Throughput (wired to sizing-time's compute model when it exists) -----------------------


@dataclass(frozen=True)
class ThroughputScore:
    case_id: str
    predicted: float
    measured: float
    measured_case: bool

    @property
    def error(self) -> float:
        return (self.predicted - self.measured) / self.measured


def score_throughput(
    cases: Iterable[ReferenceCase],
    predict: Callable[[ReferenceCase], float | None],
) -> list[ThroughputScore]:
    """Score every throughput case with ``predict`` (job tokens/s, or None when it cannot)."""
    out = []
    for case in cases:
        if "throughput" not in case.uses or case.measured.get("tokens_per_s") is None:
            continue
        predicted = predict(case)
        if predicted is None:
            continue
        out.append(
            ThroughputScore(case.id, predicted, case.measured["tokens_per_s"], case.is_measured)
        )
    return out
