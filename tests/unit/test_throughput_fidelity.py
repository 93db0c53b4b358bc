"""Throughput fidelity on the published measured runs, and the stored calibration's drift.

Scores every reference case with ``"throughput"`` in ``uses`` and ``measured_kind`` "measured"
(``advisor/domain/sizing/data/reference_cases.json``; a missing file fails, never skips) and fails when the median absolute error exceeds
25 % (issue 3's acceptance). Then refits the calibration exactly as
``bench/throughput_calibration.py`` does and fails when a stored value has drifted from it.
"""

import statistics

import pytest

from advisor.domain.sizing import calibration
from advisor.domain.sizing.calibration import STORED
from tests.support.bench import load_bench

MEDIAN_ABS_ERROR_LIMIT = 0.25


BENCH = load_bench("throughput_calibration")


@pytest.fixture(scope="module")
def observations():
    return BENCH.load_observations()


@pytest.fixture(scope="module")
def errors(observations):
    return {o.case_id: BENCH.error(o, STORED) for o in observations}


def test_every_measured_throughput_case_is_scored(observations):
    import json

    cases = json.loads(BENCH.CASES_PATH.read_text(encoding="utf-8"))
    expected = {c["id"] for c in calibration.measured_throughput_cases(cases)}
    assert {o.case_id for o in observations} == expected
    assert len(observations) >= 30


def test_median_absolute_throughput_error_within_25_percent(errors):
    median = statistics.median(abs(e) for e in errors.values())
    assert median <= MEDIAN_ABS_ERROR_LIMIT, f"median |error| {median:.1%}"


def test_every_prediction_is_positive_and_finite(observations):
    for o in observations:
        predicted = BENCH.predict(o, STORED)
        assert predicted is not None and 0 < predicted < float("inf"), o.case_id


def test_stored_calibration_matches_a_refit(observations):
    """Drift check: the stored constants are what the bench's fit produces today."""
    fitted, _grid = calibration.fit(observations, BENCH.predict)
    fitted = calibration.rounded(fitted)
    assert fitted.layer_pass_overhead_s == pytest.approx(STORED.layer_pass_overhead_s)
    assert fitted.cases_by_family == STORED.cases_by_family
    assert STORED.utilisation == pytest.approx(fitted.utilisation, abs=0.002)


def test_stored_error_band_is_the_measured_percentiles(observations):
    """The time band comes from the errors measured with the stored calibration."""
    recomputed = calibration.with_error_band(STORED, observations, BENCH.predict)
    assert STORED.error_ratio_low == pytest.approx(recomputed.error_ratio_low, abs=0.002)
    assert STORED.error_ratio_high == pytest.approx(recomputed.error_ratio_high, abs=0.002)
    assert STORED.error_cases == recomputed.error_cases
    assert STORED.error_ratio_low < 1 < STORED.error_ratio_high


def test_utilisation_is_a_physical_share_of_peak():
    assert 0.05 < STORED.utilisation <= 1.0
    assert not hasattr(STORED, "moe_factor")  # no MoE factor since decision 0056
