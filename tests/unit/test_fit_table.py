"""The fit table answers what a walk over every layout answers (decision 0071, fourth pass).

A GPU count's layouts and peaks do not depend on the accelerator, so the placement search
sorts the peaks once and answers "which fit in this room" with one bisection. For every GPU
count, a table of rooms (each peak, just below and above it, none, all) and rooms drawn at
random, the table's answers equal those of the plain walk in preference order.
"""

from __future__ import annotations

import math
import random

import pytest

from advisor.domain.scenario import load_scenario
from advisor.domain.sizing.parallelism import FitTable, PlacementSearch
from tests.support.scenarios import llama2_7b_full


def _scenario(accelerator: str, strategy: str):
    return load_scenario(llama2_7b_full(accelerator, strategy))


def _walk(layouts, reserved, room):
    """What the search did before the table: every layout, in preference order."""
    fitting = [x for x, peak in zip(layouts, reserved, strict=True) if peak <= room]
    strategies = list(dict.fromkeys(x.strategy for x in fitting))
    resident = any(x.offload == "none" for x in fitting)
    return (fitting[0] if fitting else None), set(strategies), resident, len(fitting)


def _rooms(reserved, rng):
    rooms = [0.0, -1.0, math.inf, max(reserved) + 1]
    for peak in reserved:
        rooms += [peak, math.nextafter(peak, -math.inf), math.nextafter(peak, math.inf)]
    rooms += [rng.uniform(0, max(reserved) * 1.1) for _ in range(50)]
    return rooms


@pytest.mark.parametrize("strategy", ["fsdp", "ddp"])
@pytest.mark.parametrize("accelerator", ["h100-sxm-80gb", "rtx-4090-24gb"])
def test_the_table_answers_as_the_walk_over_every_layout(accelerator, strategy):
    search = PlacementSearch(_scenario(accelerator, strategy), allow_offload=True)
    rng = random.Random(29)
    for gpus in (1, 2, 3, 4, 6, 8, 16, 24, 64):
        for per_server in (4, 8):
            layouts, reserved = search._candidates(gpus, per_server)
            table = search.fit_table(gpus, per_server)
            assert table.layouts == layouts
            assert list(table.peaks) == sorted(reserved)
            for room in _rooms(reserved, rng):
                first, strategies, resident, count = _walk(layouts, reserved, room)
                assert table.first(room) == first
                assert set(table.strategies(room)) == strategies
                assert len(table.strategies(room)) == len(strategies)
                assert table.fits_resident(room) == resident
                assert table.cut(room) == count


def test_equal_peaks_keep_the_preferred_layout_first():
    """Ties in peak: the first layout in preference order is the answer, whatever the sort."""
    search = PlacementSearch(_scenario("h100-sxm-80gb", "ddp"), allow_offload=True)
    layouts = search.layouts(8, 8)
    table = FitTable.of(layouts, [5.0] * len(layouts))
    assert table.first(5.0) == layouts[0]
    assert table.first(4.9) is None
    assert table.strategies(4.9) == ()
    assert not table.fits_resident(4.9)


def test_no_layout_without_offload_is_never_resident():
    search = PlacementSearch(_scenario("h100-sxm-80gb", "ddp"), allow_offload=True)
    layouts = tuple(x for x in search.layouts(2, 8) if x.offload != "none")
    table = FitTable.of(layouts, [1.0] * len(layouts))
    assert table.resident_peak == math.inf
    assert not table.fits_resident(1e9)
    assert table.first(1e9) == layouts[0]
