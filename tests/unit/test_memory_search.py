"""The largest micro-batch or sequence length that fits: the interpolation search finds what a
binary search finds, in a handful of evaluations (advisor.domain.sizing.memory)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.domain.sizing.memory import MemoryModel, _largest_fitting, layout_of
from advisor.domain.sizing.reference import load_cases

SEQ_LIMIT = 1_048_576


def binary_search(total, capacity: float, limit: int) -> int:
    """The search the advisor used before: doubling, then bisection (the reference)."""
    if total(1) > capacity:
        return 0
    low, high = 1, 2
    while high <= limit and total(high) <= capacity:
        low, high = high, high * 2
    high = min(high, limit + 1)
    while high - low > 1:
        middle = (low + high) // 2
        if total(middle) <= capacity:
            low = middle
        else:
            high = middle
    return low


class Counted:
    def __init__(self, total):
        self.total = total
        self.calls = 0

    def __call__(self, n):
        self.calls += 1
        return self.total(n)


CURVES = {
    "linear": lambda n: 14.2 + 0.0031 * n,
    "steep line": lambda n: 3.0 + 2.5 * n,
    "quadratic": lambda n: 10 + 1e-9 * n * n,
    "square root": lambda n: 5 + 0.05 * math.sqrt(n),
    "steps of 128": lambda n: 20 + 0.4 * math.ceil(n / 128),
    "flat then a wall": lambda n: 40.0 if n <= 70_000 else 900.0,
    "constant": lambda n: 33.0,
}


@pytest.mark.parametrize("curve", CURVES, ids=list(CURVES))
@pytest.mark.parametrize("capacity", [0.5, 14.3, 21.0, 33.0, 40.0, 64.0, 80.0, 5000.0])
def test_the_same_answer_as_a_binary_search(curve, capacity):
    total = CURVES[curve]
    assert _largest_fitting(total, capacity, SEQ_LIMIT) == binary_search(total, capacity, SEQ_LIMIT)


@pytest.mark.parametrize("capacity", [14.3, 40.0, 64.0, 80.0, 141.0])
def test_a_nearly_linear_curve_takes_a_handful_of_evaluations(capacity):
    searched = Counted(CURVES["linear"])
    reference = Counted(CURVES["linear"])
    assert _largest_fitting(searched, capacity, SEQ_LIMIT) == binary_search(
        reference, capacity, SEQ_LIMIT
    )
    assert searched.calls <= 6 < reference.calls


@settings(max_examples=300, deadline=None)
@given(
    base=st.floats(0, 100),
    slope=st.floats(1e-9, 10),
    power=st.floats(0.3, 3),
    step=st.integers(1, 4096),
    capacity=st.floats(0, 300),
    limit=st.integers(1, SEQ_LIMIT),
)
def test_any_non_decreasing_curve(base, slope, power, step, capacity, limit):
    def total(n):
        return base + slope * (math.ceil(n / step) * step) ** power

    searched = Counted(total)
    found = _largest_fitting(searched, capacity, limit)
    assert found == binary_search(total, capacity, limit)
    assert searched.calls <= 3 * math.ceil(math.log2(limit + 1)) + 2  # never much worse


def test_the_memory_model_s_answers_are_a_binary_search_s():
    """Every reference case's job, in its own layout, against cards of several sizes."""
    for case in load_cases():
        for capacity in (20.0, 60.0, 75.0, 130.0):
            check_model(case.scenario, capacity)


def check_model(scenario, capacity: float) -> None:
    model = MemoryModel(scenario)
    layout = layout_of(scenario)
    context = 1.0
    for what in ("micro_batch", "seq_len"):
        limit = 4096 if what == "micro_batch" else SEQ_LIMIT

        def total(n, what=what):
            return model.total_gib(layout, context, **{what: n})

        assert _largest_fitting(total, capacity, limit) == binary_search(total, capacity, limit)
