"""Utilisation per accelerator family, calibrated on the published reference runs.

What is calibrated, on which cases, and how (``bench/throughput_calibration.py`` reproduces
every figure below from ``advisor/domain/sizing/data/reference_cases.json``; ``tests/unit/
test_throughput_fidelity.py`` recomputes them and fails when a stored value drifts):

* **Cases.** Every reference case whose ``uses`` includes ``"throughput"`` and whose
  ``measured_kind`` is ``"measured"`` (40 runs: torchtune, Qwen, NeMo AutoModel, ms-swift,
  MindSpeed-LLM), with the accelerator figures of the catalog (``fixtures/catalog``).
* **Utilisation** (share of the dense 16-bit peak the matrix work reaches): ONE value for every
  accelerator, the median over every case, dense and mixture of experts (QLoRA included: its
  dequantisation is a physical memory-bound term of the time model, not a factor), of measured
  / predicted tokens/s. Until issue 49 the median was taken over the dense cases only, a
  remnant of the MoE factor fitted on the others (below); with what that factor stood for
  modelled, and the last large MoE miss explained by ZeRO-3's fetch loop (``host_step``),
  excluding seven of the 40 runs only made the fit noisier: out of fold 14.7 % with them
  against 17.2 % without (docs/decisions/0141).
  It used to be fitted per accelerator family
  (Hopper, Ampere, Ada, Da Vinci: four constants); scored leave-one-source-out
  (``bench/sizing_fidelity.py``) the per-family values moved only the in-sample figure (median
  |error| 13.9 % in sample, 40.5 % out of fold, against 13.6 % and 22.5 % with one shared value):
  each family's value was set by one or two sources. A flat QLoRA factor went for the same reason
  (21.7 % out of fold without it).
* **No MoE factor.** Until 2026-12-03 a shared factor on the utilisation of mixture-of-experts
  runs (routing, token permutation, small expert matrices) was fitted as the median over the MoE
  cases (0.868). Scored leave one source out it was the least stable constant: with only seven
  MoE runs from four sources, holding one source out moved it enough to send NeMo AutoModel's
  gpt-oss run from -1 % to -46 % and ms-swift's Qwen3-30B-A3B run from 0 % to -25 %; without it
  the out-of-fold median is 16.6 % instead of 18.1 % (decision 0056). What it stood for is
  modelled: expert parallelism's all-to-all, the expert loop, and the experts' own roofline
  intensity (``compute.expert_gemm_intensity``).
* **Launch overhead per layer and pass** (host-side Python and kernel launches, which dominate
  short sequences and small models) is the value on a grid that gives the lowest median error
  over all cases, the utilisation refitted at each grid point.
* **Error band**: the 10th and 90th percentiles of measured / predicted over all cases, applied
  to tokens/s (and inversely to time); not an invented +/-.

Families without a measured run (Blackwell, CDNA 3, ...) take the same shared utilisation, and
the estimate says that no run of theirs was measured.
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

    utilisation: float = 0.5  # share of the dense 16-bit peak reached by matrix work
    cases_by_family: dict[str, int] = field(default_factory=dict)  # measured runs per family
    layer_pass_overhead_s: float = 0.0
    error_ratio_low: float = 1.0  # 10th percentile of measured / predicted
    error_ratio_high: float = 1.0  # 90th percentile
    error_cases: int = 0

    def family_utilisation(self, family: str) -> tuple[float, bool]:
        """(utilisation, whether a measured run of ``family`` is in the calibration set)."""
        return self.utilisation, family in self.cases_by_family


# --- Stored calibration (written by bench/throughput_calibration.py) -----------------------------
STORED = Calibration(
    utilisation=0.65,
    cases_by_family={"ada": 7, "ampere": 20, "davinci": 6, "hopper": 7},
    layer_pass_overhead_s=0.0014,
    error_ratio_low=0.554,
    error_ratio_high=1.427,
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
    """Fit the shared utilisation for a given launch overhead (the median of measured /
    predicted over every case, dense and MoE, iterated to a fixed point)."""
    families = sorted({family_of(o.accelerator) for o in observations})
    cal = Calibration(
        utilisation=START_UTILISATION,
        cases_by_family={
            f: sum(family_of(o.accelerator) == f for o in observations) for f in families
        },
        layer_pass_overhead_s=overhead_s,
    )
    for _ in range(FIT_ROUNDS if observations else 0):
        scale = statistics.median(ratios(observations, predict, cal))
        cal = replace(cal, utilisation=min(1.0, cal.utilisation * scale))
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
        utilisation=round(cal.utilisation, 3),
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
