"""How far a device reading drifts above what a training job needs when sample lengths vary.

Usage: ``.venv/bin/python bench/allocator_drift.py [--steps N] [--seeds N] [--controls]``

PyTorch (and torch_npu, which ports it) hands GPU memory out through a caching allocator: it
keeps freed blocks cached for reuse and only gives memory back to the driver when a new
segment cannot be allocated. ``nvidia-smi``/``npu-smi`` and ``max_memory_reserved`` show the
cached blocks too. When every step has the same shapes (packed samples) the cache settles
after the first step. When batch lengths vary, a longer batch than any before needs blocks
larger than the cached ones, so new segments are allocated while the old ones stay cached;
gradient checkpointing makes it worse because the recomputed activations live between the
long-lived checkpoints instead of being freed in the reverse order of allocation (GMLake,
Guo et al., ASPLOS 2024, names recomputation and LoRA among the techniques that degrade the
caching allocator, "up to 30 % GPU memory fragmentation" on A100-80GB).

This script replays one training step per sample through a replica of the allocator's
policy (c10/cuda/CUDACachingAllocator.cpp: sizes rounded to 512 bytes; requests up to 1 MiB
served from 2 MiB segments, up to 10 MiB from 20 MiB segments, larger ones from segments
rounded to 2 MiB; best fit among cached blocks; a large block split when more than 1 MiB
remains; freed blocks merged with free neighbours; when the device is full, cached segments
with nothing live in them are released and the request retried). The step is a Hugging Face
style decoder step (embedding, blocks, fp32 logits and cross-entropy, backward), with or
without gradient checkpointing, for lengths drawn from log-normal distributions of several
medians and spreads and for packed (fixed-length) batches.

It prints, for each condition, the drift: (peak reserved - peak allocated) divided by the
step's dynamic peak (peak allocated minus the weights), over many sample orders; and, for
a few runs, the smallest device that completes the run (what the job needs: the allocator
releases the drift before failing). ``advisor/domain/sizing/memory/capacity.py`` takes the drift as a
range per row: ``LENGTH_DRIFT_HIGH_OF_DYNAMIC``, the upper end, is the heaviest distribution's
median over sample orders; ``LENGTH_DRIFT_OF_DYNAMIC``, the planning figure compared with a
reading, is with checkpointing the heaviest distribution's too (the planning figure must not
fall short of a reading, decision 0052; it was the median over the distributions before), and
without it the lowest distribution's (the replay's no-checkpointing medians over-predict the readings of
runs outside the reference set, issue 15). A scenario does not state its distribution; the order
is chance, so its median is taken.

``--controls`` replays instead what removes most of the drift when a scenario states it
(decision 0059): samples grouped by length with the longest batch first (Transformers'
``group_by_length``), the cache emptied at every step between the loss and the backward pass
(``torch_empty_cache_steps: 1``), and both; ``LENGTH_DRIFT_CONTROLLED_OF_DYNAMIC`` stores the
heaviest distribution's median of each.

This is a model of the allocator, not a measurement on a GPU.
"""

from __future__ import annotations

import argparse
import bisect
import math
import random
import statistics
import time
from dataclasses import dataclass

GIB = 1 << 30
MIB = 1 << 20

# c10/cuda/CUDACachingAllocator.cpp constants.
MIN_BLOCK = 512  # kMinBlockSize: every request is rounded up to a multiple of this
SMALL_SIZE = 1 * MIB  # kSmallSize: largest request served from the small pool
SMALL_BUFFER = 2 * MIB  # kSmallBuffer: segment size of the small pool
MIN_LARGE_ALLOC = 10 * MIB  # kMinLargeAlloc: requests below it get a 20 MiB segment
LARGE_BUFFER = 20 * MIB  # kLargeBuffer
ROUND_LARGE = 2 * MIB  # kRoundLarge: larger segments are rounded up to a multiple of this


class Block:
    __slots__ = ("addr", "size", "free", "prev", "next", "small")

    def __init__(self, addr: int, size: int, small: bool):
        self.addr, self.size, self.small = addr, size, small
        self.free = True
        self.prev: Block | None = None
        self.next: Block | None = None


class CachingAllocator:
    """The allocator's block policy, one stream, with byte counters (no real memory)."""

    def __init__(self, capacity: int):
        self.capacity = capacity
        self.reserved = self.allocated = 0
        self.peak_reserved = self.peak_allocated = 0
        self._pools: dict[bool, list[tuple[int, int, Block]]] = {True: [], False: []}
        self._next_addr = 0

    @staticmethod
    def segment_size(size: int) -> int:
        if size <= SMALL_SIZE:
            return SMALL_BUFFER
        if size < MIN_LARGE_ALLOC:
            return LARGE_BUFFER
        return -(-size // ROUND_LARGE) * ROUND_LARGE

    def malloc(self, nbytes: int) -> Block:
        # The replay makes millions of calls: rounding and the pool lookup are written inline.
        size = -(-nbytes // MIN_BLOCK) * MIN_BLOCK if nbytes > MIN_BLOCK else MIN_BLOCK
        small = size <= SMALL_SIZE
        pool = self._pools[small]
        i = bisect.bisect_left(pool, (size, -1))
        block = pool.pop(i)[2] if i < len(pool) else self._new_segment(size, small)
        remaining = block.size - size
        if remaining >= MIN_BLOCK if small else remaining > SMALL_SIZE:
            rest = Block(block.addr + size, remaining, small)
            following = block.next
            rest.prev, rest.next = block, following
            if following is not None:
                following.prev = rest
            block.next = rest
            block.size = size
            bisect.insort(pool, (remaining, rest.addr, rest))
        block.free = False
        allocated = self.allocated = self.allocated + block.size
        if allocated > self.peak_allocated:
            self.peak_allocated = allocated
        return block

    def free(self, block: Block) -> None:
        block.free = True
        self.allocated -= block.size
        pool = self._pools[block.small]
        left = block.prev
        if left is not None and left.free:
            _uncache(pool, left)
            left.size += block.size
            left.next = following = block.next
            if following is not None:
                following.prev = left
            block = left
        right = block.next
        if right is not None and right.free:
            _uncache(pool, right)
            block.size += right.size
            block.next = following = right.next
            if following is not None:
                following.prev = block
        bisect.insort(pool, (block.size, block.addr, block))

    def _new_segment(self, size: int, small: bool) -> Block:
        segment = self.segment_size(size)
        if self.reserved + segment > self.capacity:
            self._release_unused_segments()
            if self.reserved + segment > self.capacity:
                raise MemoryError(f"{segment} bytes with {self.allocated} allocated")
        block = Block(self._next_addr, segment, small)
        self._next_addr += segment
        self.reserved += segment
        self.peak_reserved = max(self.peak_reserved, self.reserved)
        return block

    def empty_cache(self) -> None:
        """torch.cuda.empty_cache(): every cached segment with nothing live in it goes back."""
        self._release_unused_segments()

    def _release_unused_segments(self) -> None:
        for pool in self._pools.values():
            kept = []
            for entry in pool:
                block = entry[2]
                if block.prev is None and block.next is None:
                    self.reserved -= block.size
                else:
                    kept.append(entry)
            pool[:] = kept  # in place: malloc holds the list


def _uncache(pool: list[tuple[int, int, Block]], block: Block) -> None:
    """Take a free block out of its pool (entries are unique by size and address)."""
    i = bisect.bisect_left(pool, (block.size, block.addr))
    assert pool[i][2] is block
    del pool[i]


@dataclass(frozen=True)
class Shape:
    """A decoder-only model fine-tuned with LoRA on q, k and v (fp32 adapters, 16-bit base)."""

    name: str
    hidden: int
    intermediate: int
    vocab: int
    layers: int
    adapted: int = 3

    @property
    def weight_bytes(self) -> int:
        per_layer = 4 * self.hidden**2 + 3 * self.hidden * self.intermediate
        return 2 * (self.layers * per_layer + 2 * self.vocab * self.hidden)


SHAPES = (
    Shape("7B, 32k vocabulary", 4096, 11008, 32000, 32),
    Shape("8B, 128k vocabulary", 4096, 14336, 128256, 32),
    Shape("14B, 152k vocabulary", 5120, 13696, 152064, 40),
)


def block_forward(alloc: CachingAllocator, s: Shape, n: int, keep: bool) -> list[Block]:
    """One block's forward for ``n`` tokens; returns what autograd keeps when ``keep``."""
    h, i = s.hidden, s.intermediate
    kept: list[Block] = []

    def saved(nbytes: int) -> Block:
        """A tensor autograd keeps for the backward pass when ``keep``."""
        block = alloc.malloc(nbytes)
        if keep:
            kept.append(block)
        return block

    def used(*blocks: Block) -> None:
        """Without autograd (a checkpointed forward) what it would keep is freed once used."""
        if not keep:
            for block in blocks:
                alloc.free(block)

    norm32 = saved(h * n * 4)  # RMSNorm's fp32 upcast
    normed = saved(h * n * 2)
    qkv = [saved(h * n * 2) for _ in range(3)]
    lora = [saved(h * n * 5) for _ in range(s.adapted)]  # fp32 dropout copy and mask
    attn = saved(h * n * 2)  # fused attention output
    used(norm32, normed, *qkv, *lora)
    projected = alloc.malloc(h * n * 2)
    used(attn)
    residual = saved(h * n * 2)
    alloc.free(projected)
    norm2 = saved(h * n * 4)
    gate, up = saved(i * n * 2), saved(i * n * 2)
    act = saved(i * n * 2)
    product = alloc.malloc(i * n * 2)
    used(gate, up, act, norm2, residual)
    down = alloc.malloc(h * n * 2)
    alloc.free(product)
    alloc.free(down)
    return kept


def block_backward(alloc: CachingAllocator, kept: list[Block]) -> None:
    """Walk back through a block: each saved tensor meets a gradient of its size, then goes."""
    grad = None
    for block in reversed(kept):
        new = alloc.malloc(block.size)
        if grad is not None:
            alloc.free(grad)
        alloc.free(block)
        grad = new
    if grad is not None:
        alloc.free(grad)


def loss_forward_backward(
    alloc: CachingAllocator, s: Shape, n: int, empty_cache: bool = False
) -> None:
    """Logits, their fp32 upcast, the shifted copy, log-softmax and the way back.

    ``empty_cache``: the cache is emptied between the loss and the backward pass, where the
    Hugging Face Trainer calls torch.cuda.empty_cache() when ``torch_empty_cache_steps`` is set
    (Trainer.training_step: after compute_loss and ``del inputs``, before the backward).
    """
    v = s.vocab
    logits16 = alloc.malloc(v * n * 2)
    logits32 = alloc.malloc(v * n * 4)
    alloc.free(logits16)
    shifted = alloc.malloc(v * n * 4)
    log_probs = alloc.malloc(v * n * 4)
    alloc.free(shifted)
    alloc.free(logits32)
    if empty_cache:
        alloc.empty_cache()
    grad_log_probs = alloc.malloc(v * n * 4)
    grad_shifted = alloc.malloc(v * n * 4)
    alloc.free(grad_log_probs)
    alloc.free(log_probs)
    grad_logits32 = alloc.malloc(v * n * 4)
    alloc.free(grad_shifted)
    grad_logits16 = alloc.malloc(v * n * 2)
    alloc.free(grad_logits32)
    alloc.free(grad_logits16)


def train_step(
    alloc: CachingAllocator, s: Shape, n: int, checkpointing: bool, empty_cache: bool = False
) -> None:
    hidden = alloc.malloc(s.hidden * n * 2)  # embedding output
    saved: list[list[Block]] = []
    checkpoints = [hidden]
    for _ in range(s.layers):
        if checkpointing:
            block_forward(alloc, s, n, keep=False)
            checkpoints.append(alloc.malloc(s.hidden * n * 2))  # the next block's input
        else:
            saved.append(block_forward(alloc, s, n, keep=True))
    loss_forward_backward(alloc, s, n, empty_cache)
    grad = alloc.malloc(s.hidden * n * 2)
    for _ in range(s.layers):
        if checkpointing:
            block_backward(alloc, block_forward(alloc, s, n, keep=True))
            alloc.free(checkpoints.pop())
        else:
            block_backward(alloc, saved.pop())
        new = alloc.malloc(s.hidden * n * 2)
        alloc.free(grad)
        grad = new
    alloc.free(grad)
    for block in checkpoints:
        alloc.free(block)


@dataclass(frozen=True)
class Run:
    weights: int
    peak_allocated: int
    peak_reserved: int

    @property
    def drift(self) -> float:
        dynamic = self.peak_allocated - self.weights
        return (self.peak_reserved - self.peak_allocated) / dynamic


def run(
    s: Shape,
    lengths: list[int],
    checkpointing: bool,
    capacity_gib: float = 1e6,
    empty_cache: bool = False,
) -> Run:
    """One run, a sample per step; ``empty_cache``: the cache emptied at every step."""
    alloc = CachingAllocator(int(capacity_gib * GIB))
    alloc.malloc(s.weight_bytes)
    weights = alloc.allocated
    for n in lengths:
        train_step(alloc, s, n, checkpointing, empty_cache)
    return Run(weights, alloc.peak_allocated, alloc.peak_reserved)


# Length grouping (Transformers' group_by_length: trainer_pt_utils.get_length_grouped_indices):
# the shuffled samples are cut into megabatches of mega_batch_mult x batch size (at most 50
# batches), each sorted longest first, and the megabatch holding the longest sample swaps that
# sample to the very front: "The rest is to get the biggest batch first".
GROUPED_MEGABATCHES = 50


def grouped_order(lengths: list[int], batch_size: int = 1) -> list[int]:
    """The lengths in the order LengthGroupedSampler draws them (``lengths`` already shuffled)."""
    mult = max(1, min(len(lengths) // (batch_size * 4), GROUPED_MEGABATCHES))
    size = mult * batch_size
    megabatches = [
        sorted(lengths[i : i + size], reverse=True) for i in range(0, len(lengths), size)
    ]
    longest = max(range(len(megabatches)), key=lambda k: megabatches[k][0])
    first = megabatches[0]
    first[0], megabatches[longest][0] = megabatches[longest][0], first[0]
    return [n for megabatch in megabatches for n in megabatch]


@dataclass(frozen=True)
class Lengths:
    """Log-normal sample lengths (median as a share of the maximum), truncated at the maximum."""

    median_share: float
    spread: float

    def draw(self, steps: int, max_len: int, seed: int) -> list[int]:
        rnd = random.Random(seed)
        mu = math.log(self.median_share * max_len)
        return [
            max(16, min(max_len, int(math.exp(rnd.gauss(mu, self.spread))))) for _ in range(steps)
        ]


DEFAULT_STEPS = 500  # samples per run: the drift has settled (1,000 gives the same figures)
DEFAULT_SEEDS = 5  # sample orders per distribution and model

DISTRIBUTIONS = (
    Lengths(0.1, 1.0),
    Lengths(0.25, 0.3),
    Lengths(0.25, 0.7),
    Lengths(0.5, 0.4),
    Lengths(0.5, 0.8),
)


def drift_by_distribution(
    shapes,
    distributions,
    checkpointing: bool,
    steps: int,
    seeds: int,
    max_len: int = 2048,
    *,
    grouped: bool = False,
    empty_cache: bool = False,
) -> dict[Lengths, list[float]]:
    """Drift per distribution over shapes and orders: shuffled, or ``grouped`` by length, with
    the cache emptied every step when ``empty_cache``."""
    out: dict[Lengths, list[float]] = {}
    for dist in distributions:
        runs = []
        for s in shapes:
            for seed in range(seeds):
                lengths = dist.draw(steps, max_len, seed)
                if grouped:
                    lengths = grouped_order(lengths)
                runs.append(run(s, lengths, checkpointing, empty_cache=empty_cache).drift)
        out[dist] = runs
    return out


def fixed_drift(shapes, checkpointing: bool, steps: int, max_len: int = 2048) -> list[float]:
    return [run(s, [max_len] * min(steps, 5), checkpointing).drift for s in shapes]


def planning_drift(by_distribution: dict[Lengths, list[float]], checkpointing: bool) -> float:
    """Checkpointed: the heaviest distribution's median over orders (the range's upper end,
    decision 0052); without checkpointing the lowest of those medians (module docstring)."""
    medians = [statistics.median(values) for values in by_distribution.values()]
    return max(medians) if checkpointing else min(medians)


def heaviest_drift(by_distribution: dict[Lengths, list[float]]) -> float:
    """The heaviest distribution's median over sample orders: the upper end of the range."""
    return max(statistics.median(values) for values in by_distribution.values())


def smallest_device_gib(s: Shape, lengths: list[int], checkpointing: bool, free: Run) -> float:
    """The smallest device (to 0.05 GiB) on which the run completes; ``free``: the unbounded run."""
    low, high = free.peak_allocated / GIB, free.peak_reserved / GIB + 0.05
    while high - low > 0.05:
        middle = (low + high) / 2
        try:
            run(s, lengths, checkpointing, capacity_gib=middle)
            high = middle
        except MemoryError:
            low = middle
    return high


CONTROLS = {
    "grouped by length": {"grouped": True},
    "cache emptied every step": {"empty_cache": True},
    "both": {"grouped": True, "empty_cache": True},
}


def print_controls(steps: int, seeds: int) -> None:
    """The heaviest distribution's median drift under each control (decision 0059)."""
    print("Drift with the controls a scenario may state: heaviest distribution's median")
    for checkpointing in (False, True):
        label = "checkpointed" if checkpointing else "no checkpointing"
        for name, options in CONTROLS.items():
            varying = drift_by_distribution(
                SHAPES, DISTRIBUTIONS, checkpointing, steps, seeds, **options
            )
            medians = ", ".join(f"{statistics.median(v):.2f}" for v in varying.values())
            print(f"  {name + ', ' + label:46s} {heaviest_drift(varying):.2f}  ({medians})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=DEFAULT_STEPS, help="samples per run")
    parser.add_argument("--seeds", type=int, default=DEFAULT_SEEDS, help="orders per distribution")
    parser.add_argument(
        "--controls", action="store_true", help="replay length grouping and cache emptying"
    )
    args = parser.parse_args()
    started = time.perf_counter()
    if args.controls:
        print_controls(args.steps, args.seeds)
        print(f"\n{time.perf_counter() - started:.0f} s")
        return
    print("Drift = (peak reserved - peak allocated) / dynamic peak, per run")
    print(f"{'condition':44s} {'p10':>6s} {'p50':>6s} {'p90':>6s}")
    for checkpointing in (False, True):
        label = "checkpointed" if checkpointing else "no checkpointing"
        fixed = fixed_drift(SHAPES, checkpointing, args.steps)
        print(f"{'packed, ' + label:44s} {'':6s} {statistics.median(fixed):6.2f}")
        varying = drift_by_distribution(
            SHAPES, DISTRIBUTIONS, checkpointing, args.steps, args.seeds
        )
        for dist, values in varying.items():
            name = f"varying (median {dist.median_share:.2f}, spread {dist.spread}), {label}"
            q = statistics.quantiles(values, n=10)
            print(f"{name:44s} {q[0]:6.2f} {statistics.median(values):6.2f} {q[-1]:6.2f}")
        print(
            f"  {label}: planning drift {planning_drift(varying, checkpointing):.2f}, up to "
            f"{heaviest_drift(varying):.2f} x the dynamic peak"
        )
    print("\nWhat a run needs (smallest device that completes it) against what it reserves")
    for s in SHAPES:
        lengths = DISTRIBUTIONS[2].draw(args.steps, 2048, 0)
        free = run(s, lengths, True)
        need = smallest_device_gib(s, lengths, True, free)
        print(
            f"  {s.name:22s} allocated {free.peak_allocated / GIB:6.2f} GiB, reserved "
            f"{free.peak_reserved / GIB:6.2f} GiB, completes on {need:6.2f} GiB"
        )
    print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
