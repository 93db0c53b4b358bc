"""The caching-allocator replica behind LENGTH_DRIFT_OF_DYNAMIC (bench/allocator_drift.py)."""

import pytest

from advisor.domain.sizing.memory import LENGTH_DRIFT_OF_DYNAMIC
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


# The bench computes the stored figures from runs of DEFAULT_STEPS samples, where the drift has
# settled (about 3 minutes). The test replays shorter runs (under a minute): the drift grows
# with the run until the longest lengths have come, so the stored figure must lie at or a little
# above the shorter runs' figure (bench, 2026-11-29: checkpointed 2.01 at 200 samples, 2.12 at
# 500 and 1,000; not checkpointed 0.58 from 100 samples on).
CHECK_STEPS = {True: 200, False: 100}
SETTLING_ALLOWANCE = 0.15


@pytest.mark.parametrize("checkpointing", [True, False])
def test_stored_drift_is_the_benchs_planning_figure(checkpointing):
    steps = CHECK_STEPS[checkpointing]
    by_distribution = bench.drift_by_distribution(
        bench.SHAPES, bench.DISTRIBUTIONS, checkpointing, steps, bench.DEFAULT_SEEDS
    )
    stored = LENGTH_DRIFT_OF_DYNAMIC[checkpointing]
    shorter_runs = bench.planning_drift(by_distribution)
    assert shorter_runs - 0.05 <= stored <= shorter_runs + SETTLING_ALLOWANCE
