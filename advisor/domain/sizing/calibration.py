"""Utilisation per accelerator family, calibrated on the published reference runs.

What is calibrated, on which cases, and how (``bench/throughput_calibration.py`` reproduces
every figure below from ``advisor/domain/sizing/data/reference_cases.json``; ``tests/unit/
test_throughput_fidelity.py`` recomputes them and fails when a stored value drifts):

* **Cases.** Every reference case whose ``uses`` includes ``"throughput"`` and whose
  ``measured_kind`` is ``"measured"`` (40 runs: torchtune, Qwen, NeMo AutoModel, ms-swift,
  MindSpeed-LLM), with the accelerator figures of the catalog (``fixtures/catalog``).
* **Family utilisation** (share of the dense 16-bit peak the matrix work reaches) is fitted per
  accelerator *family* (the catalog's ``architecture``: Hopper, Ampere, Ada Lovelace, Ascend Da
  Vinci), never per case: the median over the family's dense, unquantised cases of
  measured / predicted tokens/s, iterated to a fixed point with the two factors below.
* **QLoRA factor** (dequantising the 4-bit base in every pass) and **MoE factor** (routing,
  token permutation and small per-expert matrices) are fitted across families: the median of
  measured / predicted over the QLoRA cases, resp. the MoE cases, of all families.
* **Launch overhead per layer and pass** (host-side Python and kernel launches, which dominate
  short sequences and small models) is the value on a grid that gives the lowest median error
  over all cases, the family utilisations and factors refitted at each grid point.
* **Error band**: the 10th and 90th percentiles of measured / predicted over all cases, applied
  to tokens/s (and inversely to time); not an invented +/-.

Families without a measured run (Blackwell, CDNA 3, ...) take the lowest calibrated family's
utilisation, and the estimate says so.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache

from advisor.domain.hardware import AcceleratorSpec

# Families as named by the catalog's ``architecture`` field, normalised (lower case, no spaces).
_FAMILY_ALIASES = {
    "adalovelace": "ada",
    "ada": "ada",
    "davinci": "davinci",
    "davinci(dual-die)": "davinci",
    "cdna3": "cdna3",
}


def family_of(accelerator: AcceleratorSpec) -> str:
    """The accelerator family the calibration is keyed by (normalised ``architecture``)."""
    return _family(accelerator.architecture or "")


@lru_cache(maxsize=128)
def _family(architecture: str) -> str:
    raw = architecture.lower().replace(" ", "").replace("_", "")
    for prefix, family in _FAMILY_ALIASES.items():
        if raw.startswith(prefix):
            return family
    return raw or "unknown"


@dataclass(frozen=True)
class Calibration:
    """Calibrated constants of the throughput model (see the module docstring)."""

    utilisation_by_family: dict[str, float] = field(default_factory=dict)
    cases_by_family: dict[str, int] = field(default_factory=dict)
    qlora_factor: float = 1.0
    moe_factor: float = 1.0
    layer_pass_overhead_s: float = 0.0
    error_ratio_low: float = 1.0  # 10th percentile of measured / predicted
    error_ratio_high: float = 1.0  # 90th percentile
    error_cases: int = 0

    @property
    def fallback_utilisation(self) -> float:
        """For families without a measured run: the lowest calibrated family (the safe side,
        since a buyer is hurt by an optimistic time on hardware nobody has measured here)."""
        values = list(self.utilisation_by_family.values())
        return min(values) if values else START_UTILISATION

    def family_utilisation(self, family: str) -> tuple[float, bool]:
        """(utilisation, calibrated?) for ``family``."""
        if family in self.utilisation_by_family:
            return self.utilisation_by_family[family], True
        return self.fallback_utilisation, False


# --- Stored calibration (written by bench/throughput_calibration.py) -----------------------------
STORED = Calibration(
    utilisation_by_family={"ada": 0.681, "ampere": 0.609, "davinci": 0.726, "hopper": 0.582},
    cases_by_family={"ada": 7, "ampere": 20, "davinci": 6, "hopper": 7},
    qlora_factor=0.709,
    moe_factor=0.623,
    layer_pass_overhead_s=0.0008,
    error_ratio_low=0.571,
    error_ratio_high=1.489,
    error_cases=40,
)
# --- end of stored calibration -------------------------------------------------------------------


@dataclass(frozen=True)
class Observation:
    """A measured run: its id, what it needs to be predicted, and the measured tokens/s."""

    case_id: str
    scenario: object  # advisor.domain.scenario.Scenario
    accelerator: AcceleratorSpec
    measured_tokens_per_s: float

    @property
    def is_qlora(self) -> bool:
        return self.scenario.method == "qlora"

    @property
    def is_moe(self) -> bool:
        return self.scenario.model.is_moe


# Predicts whole-job tokens/s for an observation under a calibration (compute.estimate_time).
Predictor = Callable[[Observation, Calibration], float]

# Grid for the launch overhead per layer and pass, in seconds (0 to 2 ms by 0.2 ms).
OVERHEAD_GRID_S = tuple(step * 0.1e-3 for step in range(0, 21, 2))
FIT_ROUNDS = 12
START_UTILISATION = 0.5


def ratios(observations: Iterable[Observation], predict: Predictor, cal: Calibration) -> list:
    """measured / predicted for each observation."""
    return [o.measured_tokens_per_s / predict(o, cal) for o in observations]


def fit_family_and_factors(
    observations: list[Observation], predict: Predictor, overhead_s: float
) -> Calibration:
    """Fit family utilisations and the QLoRA and MoE factors for a given launch overhead."""
    families = sorted({family_of(o.accelerator) for o in observations})
    cal = Calibration(
        utilisation_by_family={f: START_UTILISATION for f in families},
        cases_by_family={
            f: sum(family_of(o.accelerator) == f for o in observations) for f in families
        },
        layer_pass_overhead_s=overhead_s,
    )
    dense = [o for o in observations if not o.is_qlora and not o.is_moe]
    qlora = [o for o in observations if o.is_qlora]
    moe = [o for o in observations if o.is_moe]
    for _ in range(FIT_ROUNDS):
        utilisation = dict(cal.utilisation_by_family)
        for family in families:
            members = [o for o in dense if family_of(o.accelerator) == family]
            if members:
                scale = statistics.median(ratios(members, predict, cal))
                utilisation[family] = min(1.0, utilisation[family] * scale)
        cal = replace(cal, utilisation_by_family=utilisation)
        if qlora:
            factor = cal.qlora_factor * statistics.median(ratios(qlora, predict, cal))
            cal = replace(cal, qlora_factor=min(1.0, factor))
        if moe:
            factor = cal.moe_factor * statistics.median(ratios(moe, predict, cal))
            cal = replace(cal, moe_factor=min(1.0, factor))
    return with_error_band(cal, observations, predict)


def with_error_band(
    cal: Calibration, observations: list[Observation], predict: Predictor
) -> Calibration:
    """``cal`` with the 10th/90th percentiles of measured / predicted over ``observations``."""
    values = ratios(observations, predict, cal)
    deciles = statistics.quantiles(values, n=10, method="inclusive")
    return replace(
        cal,
        error_ratio_low=deciles[0],
        error_ratio_high=deciles[-1],
        error_cases=len(values),
    )


def median_abs_error(cal: Calibration, observations: list[Observation], predict: Predictor):
    return statistics.median(abs(1 / r - 1) for r in ratios(observations, predict, cal))


def fit(observations: list[Observation], predict: Predictor) -> tuple[Calibration, list]:
    """The full calibration: the overhead grid point with the lowest median error.

    Returns the calibration and the grid as (overhead_s, median |error|) pairs.
    """
    grid = []
    best = None
    for overhead in OVERHEAD_GRID_S:
        cal = fit_family_and_factors(observations, predict, overhead)
        error = median_abs_error(cal, observations, predict)
        grid.append((overhead, error))
        if best is None or error < best[1]:
            best = (cal, error)
    return best[0], grid


def rounded(cal: Calibration) -> Calibration:
    """The calibration as stored: three significant decimals."""
    return replace(
        cal,
        utilisation_by_family={k: round(v, 3) for k, v in cal.utilisation_by_family.items()},
        qlora_factor=round(cal.qlora_factor, 3),
        moe_factor=round(cal.moe_factor, 3),
        error_ratio_low=round(cal.error_ratio_low, 3),
        error_ratio_high=round(cal.error_ratio_high, 3),
    )


def measured_throughput_cases(cases: Iterable[dict]) -> list[dict]:
    """Reference cases scored for throughput: ``"throughput"`` in ``uses``, measured runs."""
    return [
        c
        for c in cases
        if "throughput" in c.get("uses", ())
        and c.get("measured_kind") == "measured"
        and (c.get("measured") or {}).get("tokens_per_s")
    ]


def observations_from_cases(
    cases: Iterable[dict], accelerators: dict[str, AcceleratorSpec], load_scenario
) -> list[Observation]:
    """Observations for the measured throughput cases whose accelerator is known.

    ``load_scenario`` is :func:`advisor.domain.scenario.load_scenario` (passed in to keep this
    module free of the scenario import cycle).
    """
    out = []
    for case in measured_throughput_cases(cases):
        key = case["scenario"]["hardware"]["accelerator"]
        if key not in accelerators:
            continue
        out.append(
            Observation(
                case_id=case["id"],
                scenario=load_scenario(case["scenario"]),
                accelerator=accelerators[key],
                measured_tokens_per_s=float(case["measured"]["tokens_per_s"]),
            )
        )
    return out
