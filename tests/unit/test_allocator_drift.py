"""The caching-allocator replica behind LENGTH_DRIFT_OF_DYNAMIC (bench/allocator_drift.py)."""

import statistics

import pytest

from advisor.domain.sizing.memory import (
    LENGTH_DRIFT_CONTROLLED_OF_DYNAMIC,
    LENGTH_DRIFT_HIGH_OF_DYNAMIC,
    LENGTH_DRIFT_OF_DYNAMIC,
)
from tests.support.bench import load_bench

MIB = 1 << 20
bench = load_bench("allocator_drift")
SMALL_MODEL = bench.Shape("test", hidden=1024, intermediate=2816, vocab=32000, layers=8)


def allocator(capacity_mib=10_000):
    return bench.CachingAllocator(capacity_mib * MIB)


@pytest.mark.parametrize(
    ("request_bytes", "allocated", "reserved"),
    [
        (1, 512, 2 * MIB),  # rounded to 512 bytes, from a 2 MiB small segment
        (1 * MIB, 1 * MIB, 2 * MIB),
        (5 * MIB, 5 * MIB, 20 * MIB),  # below 10 MiB: a 20 MiB segment
        (11 * MIB + 1, 12 * MIB, 12 * MIB),  # larger: 2 MiB steps; a sub-MiB rest stays
    ],
)
def test_requests_are_rounded_and_get_segments_of_the_allocators_sizes(
    request_bytes, allocated, reserved
):
    alloc = allocator()
    alloc.malloc(request_bytes)
    assert (alloc.allocated, alloc.reserved) == (allocated, reserved)


def test_a_large_segment_is_split_and_its_remainder_reused():
    alloc = allocator()
    alloc.malloc(5 * MIB)
    alloc.malloc(5 * MIB)
    assert alloc.reserved == 20 * MIB  # the second request took the cached remainder


def test_freed_neighbours_merge_back_into_one_block():
    alloc = allocator()
    first, second = alloc.malloc(5 * MIB), alloc.malloc(5 * MIB)
    alloc.free(first)
    alloc.free(second)
    alloc.malloc(20 * MIB)  # fits only in the whole segment again
    assert alloc.reserved == 20 * MIB


def test_the_smallest_cached_block_that_fits_is_taken():
    alloc = allocator()
    big, small = alloc.malloc(50 * MIB), alloc.malloc(30 * MIB)
    alloc.free(big)
    alloc.free(small)
    taken = alloc.malloc(25 * MIB)
    assert taken.addr == small.addr


def test_cached_segments_are_released_before_the_device_runs_out():
    alloc = allocator(capacity_mib=100)
    alloc.free(alloc.malloc(60 * MIB))
    alloc.malloc(80 * MIB)
    assert alloc.reserved == 80 * MIB
    with pytest.raises(MemoryError):
        alloc.malloc(30 * MIB)


def test_packed_steps_settle_and_varying_lengths_drift_with_checkpointing():
    lengths = bench.Lengths(0.25, 0.3).draw(40, 2048, seed=0)
    fixed = bench.run(SMALL_MODEL, [2048] * 5, checkpointing=True)
    varying = bench.run(SMALL_MODEL, lengths, checkpointing=True)
    assert fixed.drift < 0.5
    assert varying.drift > 1.0


def test_a_drifting_run_needs_little_more_than_its_peak_allocation():
    lengths = bench.Lengths(0.25, 0.3).draw(40, 2048, seed=0)
    free = bench.run(SMALL_MODEL, lengths, checkpointing=True)
    needed = bench.smallest_device_gib(SMALL_MODEL, lengths, True, free)
    dynamic = (free.peak_allocated - free.weights) / bench.GIB
    assert needed < free.peak_allocated / bench.GIB + 0.3 * dynamic
    assert needed < free.peak_reserved / bench.GIB


# The bench computes the stored figures from five length distributions x three model shapes x
# five sample orders. The test replays only the distribution that sets each stored figure, in
# the shortest run where that figure has settled (bench, 2026-12-01: checkpointed medians 0.83,
# 2.01, 1.15, 1.56, 0.35, so the planning figure (their median) is the (0.25, 0.7)
# distribution's and the upper end the (0.25, 0.3) one's; not checkpointed 0.38, 0.44, 0.58,
# 0.50, 0.06, the planning figure the lowest, (0.5, 0.8), the upper end (0.25, 0.7)). Replayed
# medians by run length (2026-12-02): checkpointed planning 1.137 / 1.148 / 1.148 at 60 / 100 /
# 200 samples; checkpointed upper end 1.35 / 1.79 / 2.01 at 60 / 100 / 200 (2.12 settled at
# 500: it grows until the longest lengths have come); not checkpointed planning 0.055 / 0.057 /
# 0.059 at 30 / 50 / 100; not checkpointed upper end 0.52 / 0.58 at 50 / 100. So a stored figure
# lies at or a little above the replayed one.
SETTLING_ALLOWANCE = 0.15
SETS_THE_FIGURE = {  # (checkpointing, figure): (distribution, samples replayed)
    # The planning figure with checkpointing is the range's upper end (decision 0052).
    (True, "planning"): (bench.Lengths(0.25, 0.3), 200),
    (True, "high"): (bench.Lengths(0.25, 0.3), 200),
    (False, "planning"): (bench.Lengths(0.5, 0.8), 30),
    (False, "high"): (bench.Lengths(0.25, 0.7), 100),
}
STORED = {
    "planning": LENGTH_DRIFT_OF_DYNAMIC,
    "high": LENGTH_DRIFT_HIGH_OF_DYNAMIC,
}
# Each replay once, with every stored figure it sets (the checkpointed pair share one).
REPLAYS = {}
for (checkpointing, figure), (distribution, samples) in sorted(SETS_THE_FIGURE.items()):
    REPLAYS.setdefault((checkpointing, distribution, samples), []).append(figure)


@pytest.mark.parametrize(
    ("checkpointing", "distribution", "samples"),
    [
        pytest.param(*key, id=("checkpointed-" if key[0] else "not-checkpointed-") + "+".join(f))
        for key, f in REPLAYS.items()
    ],
)
def test_stored_drift_is_the_replayed_figure(checkpointing, distribution, samples):
    assert distribution in bench.DISTRIBUTIONS
    by_distribution = bench.drift_by_distribution(
        bench.SHAPES, [distribution], checkpointing, samples, bench.DEFAULT_SEEDS
    )
    replayed = statistics.median(by_distribution[distribution])
    for figure in REPLAYS[(checkpointing, distribution, samples)]:
        stored = STORED[figure][checkpointing]
        assert replayed - 0.05 <= stored <= replayed + SETTLING_ALLOWANCE, figure


def test_the_planning_figure_is_the_heaviest_with_checkpointing_and_the_lowest_without():
    by_distribution = {d: [float(i)] for i, d in enumerate(bench.DISTRIBUTIONS)}
    assert bench.planning_drift(by_distribution, True) == 4.0  # decision 0052
    assert bench.heaviest_drift(by_distribution) == 4.0
    assert bench.planning_drift(by_distribution, False) == 0.0
    assert LENGTH_DRIFT_OF_DYNAMIC[True] == LENGTH_DRIFT_HIGH_OF_DYNAMIC[True]
    assert LENGTH_DRIFT_OF_DYNAMIC[False] < LENGTH_DRIFT_HIGH_OF_DYNAMIC[False]
    assert LENGTH_DRIFT_OF_DYNAMIC[False] < 0.1  # near zero without checkpointing


# --- What removes the drift (decision 0059) ---------------------------------------------------


def test_emptying_the_cache_gives_back_whole_free_segments_only():
    alloc = allocator()
    kept = alloc.malloc(5 * MIB)  # a 20 MiB segment with 5 MiB live
    alloc.free(alloc.malloc(60 * MIB))  # a 60 MiB segment, wholly free
    assert alloc.reserved == 80 * MIB
    alloc.empty_cache()
    assert alloc.reserved == 20 * MIB
    alloc.free(kept)
    alloc.empty_cache()
    assert alloc.reserved == 0


def test_length_grouping_puts_the_longest_sample_first_and_sorts_each_megabatch():
    # 8 samples at batch 1: megabatches of min(8 // 4, 50) = 2 samples, each longest first,
    # then the megabatch holding the longest (900) swaps it to the very front.
    lengths = [100, 300, 200, 50, 900, 10, 40, 60]
    assert bench.grouped_order(lengths) == [900, 100, 200, 50, 300, 10, 60, 40]


@pytest.mark.parametrize("checkpointing", [True, False])
def test_grouping_or_emptying_lowers_the_replayed_drift(checkpointing):
    lengths = bench.Lengths(0.25, 0.3).draw(40, 2048, seed=0)
    shuffled = bench.run(SMALL_MODEL, lengths, checkpointing)
    grouped = bench.run(SMALL_MODEL, bench.grouped_order(lengths), checkpointing)
    emptied = bench.run(SMALL_MODEL, lengths, checkpointing, empty_cache=True)
    assert grouped.drift < shuffled.drift
    assert emptied.drift <= shuffled.drift


# The controls' stored figures (bench/allocator_drift.py --controls --steps 200 --seeds 2,
# 2026-12-03; heaviest distribution's median): grouped 0.27 / 0.08 (checkpointed / not), the
# cache emptied every step 0.73 / 0.41, both 0.28 / 0.09. Grouped runs settle at once (the
# longest batch comes first); each is replayed here on the distribution that sets it, shorter.
SETS_THE_CONTROLLED_FIGURE = {  # (grouped, emptied, checkpointing): (distribution, samples)
    (True, False, True): (bench.Lengths(0.1, 1.0), 60),
    (True, False, False): (bench.Lengths(0.25, 0.3), 60),
}


@pytest.mark.parametrize(
    ("grouped", "emptied", "checkpointing"), sorted(SETS_THE_CONTROLLED_FIGURE)
)
def test_stored_controlled_drift_is_the_replayed_figure(grouped, emptied, checkpointing):
    distribution, samples = SETS_THE_CONTROLLED_FIGURE[(grouped, emptied, checkpointing)]
    by_distribution = bench.drift_by_distribution(
        bench.SHAPES,
        [distribution],
        checkpointing,
        samples,
        1,
        grouped=grouped,
        empty_cache=emptied,
    )
    replayed = statistics.median(by_distribution[distribution])
    stored = LENGTH_DRIFT_CONTROLLED_OF_DYNAMIC[(grouped, emptied)][checkpointing]
    assert replayed - 0.05 <= stored <= replayed + SETTLING_ALLOWANCE
