"""The fewest GPUs of an accelerator that hold a job, and the strategy that makes it fit.

Candidates are laid out by GPU count, tensor-parallel degree and data-parallel strategy
(single GPU, DDP, ZeRO-1/2/3, FSDP, optionally with CPU offload). For each GPU count, from one
up, the first candidate whose peak memory fits the card's usable capacity wins, in the order of
:data:`STRATEGY_PREFERENCE`: the simplest and fastest way first (no sharding, then sharding of
optimizer states, gradients, weights, then tensor parallelism, then offload, which trades GPU
memory for PCIe traffic and host RAM).

The memory model is built once per scenario; each candidate then costs a few float operations,
so sweeping a whole catalog stays within milliseconds (``bench/sizing_speed.py``).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache

from advisor.domain.hardware import AcceleratorSpec, ServerSpec
from advisor.domain.scenario import LIMITS, Scenario
from advisor.domain.sizing.memory import (
    Layout,
    MemoryBreakdown,
    MemoryModel,
    context_gib,
    plannable_capacity_gib,
    usable_capacity_gib,
)

# Data-parallel strategies in order of preference when several fit on the same GPU count:
# each step down shards more state and communicates more per step (ZeRO paper, Rajbhandari et
# al. 2020, section 5: ZeRO-1/2 keep DDP's traffic, ZeRO-3 adds 50 %).
STRATEGY_PREFERENCE = ("ddp", "zero1", "zero2", "fsdp", "zero3")
# Offload options in order of preference: none, then optimizer on the CPU (DeepSpeed
# ZeRO-Offload), then parameters too (ZeRO-Infinity/FSDP CPU offload).
OFFLOAD_PREFERENCE = ("none", "optimizer", "optimizer+params")
# Tensor-parallel degrees tried: powers of two within one 8-GPU server (tensor parallelism
# across servers is far slower than data parallelism; Narayanan et al. 2021, Megatron-LM).
TENSOR_PARALLEL_DEGREES = (1, 2, 4, 8)
# Servers hold this many GPUs when no server model is given (HGX/DGX, Atlas 800T A2, MI300X
# platforms all hold eight).
DEFAULT_GPUS_PER_SERVER = 8
# How many GPUs the search tries at most (the scenario format's own limit).
MAX_GPUS = int(LIMITS["hardware.count"][1])


@dataclass(frozen=True)
class Placement:
    """A job laid out on ``layout.gpus`` GPUs, with its memory and whether it fits."""

    layout: Layout
    memory: MemoryBreakdown
    capacity_gib: float
    gpus_per_server: int

    @property
    def fits(self) -> bool:
        return self.memory.total <= self.capacity_gib

    @property
    def headroom_gib(self) -> float:
        return self.capacity_gib - self.memory.total

    @property
    def servers(self) -> int:
        return math.ceil(self.layout.gpus / self.gpus_per_server)


# Made once per argument set (the arguments are all it reads; layouts are frozen): a catalog
# sweep asks for the same GPU counts for every scenario.
@lru_cache(maxsize=1024)
def candidate_layouts(
    gpus: int, heads: int | None, *, allow_offload: bool = True, gpus_per_server: int = 8
) -> tuple[Layout, ...]:
    """Every layout tried on ``gpus`` GPUs, most preferred first."""
    out: list[Layout] = []
    offloads = OFFLOAD_PREFERENCE if allow_offload else ("none",)
    for offload in offloads:
        for tp in TENSOR_PARALLEL_DEGREES:
            if gpus % tp or tp > gpus_per_server or (heads and heads % tp):
                continue
            dp = gpus // tp
            if dp == 1 and offload == "none":
                out.append(Layout(gpus, "single", "none", tp, 1))
            for strategy in STRATEGY_PREFERENCE:
                if strategy == "ddp" and (dp == 1 or offload != "none"):
                    continue
                if offload == "optimizer+params" and strategy not in ("zero3", "fsdp"):
                    continue
                if offload == "optimizer" and strategy in ("fsdp",):
                    continue  # FSDP offloads parameters and optimizer together
                out.append(Layout(gpus, strategy, offload, tp, 1))
    return tuple(out)


@dataclass(frozen=True)
class FitTable:
    """Which of one GPU count's layouts fit in a given room, answered by one bisection.

    A layout's peak does not depend on the accelerator, only the room it must fit in does
    (capacity less the runtime context): the peaks are sorted once per GPU count, and the
    layouts that fit in ``room`` are the first ``cut(room)`` of that order. For each such
    prefix the table holds the first layout in preference order (:meth:`first`), the distinct
    strategies (:meth:`strategies`) and whether a layout without offload is among them.
    """

    layouts: tuple[Layout, ...]  # in preference order
    peaks: tuple[float, ...]  # ascending
    firsts: tuple[int, ...]  # per prefix length: index into layouts of the preferred one
    strategies_by_cut: tuple[tuple[str, ...], ...]  # per prefix length: distinct strategies
    resident_peak: float  # the lowest peak of a layout without offload (inf: none)

    @classmethod
    def of(cls, layouts: tuple[Layout, ...], reserved: list[float]) -> FitTable:
        order = sorted(range(len(layouts)), key=reserved.__getitem__)
        firsts, strategies_by_cut = [-1], [()]
        for index in order:
            firsts.append(index if firsts[-1] < 0 else min(firsts[-1], index))
            seen = strategies_by_cut[-1]
            strategy = layouts[index].strategy
            strategies_by_cut.append(seen if strategy in seen else (*seen, strategy))
        resident = [
            peak for layout, peak in zip(layouts, reserved, strict=True) if layout.offload == "none"
        ]
        return cls(
            layouts,
            tuple(reserved[i] for i in order),
            tuple(firsts),
            tuple(strategies_by_cut),
            min(resident, default=math.inf),
        )

    def cut(self, room: float) -> int:
        """How many layouts have a peak of at most ``room`` GiB."""
        return bisect_right(self.peaks, room)

    def first(self, room: float) -> Layout | None:
        """The preferred layout that fits in ``room`` (``None``: none fits)."""
        index = self.firsts[self.cut(room)]
        return None if index < 0 else self.layouts[index]

    def strategies(self, room: float) -> tuple[str, ...]:
        """The strategies of the layouts that fit in ``room``."""
        return self.strategies_by_cut[self.cut(room)]

    def fits_resident(self, room: float) -> bool:
        """Whether a layout without offload fits in ``room``."""
        return self.resident_peak <= room


class PlacementSearch:
    """Finds placements of one scenario on one or many accelerators (memory model built once)."""

    def __init__(self, scenario: Scenario, *, allow_offload: bool = False):
        self.scenario = scenario
        self.model = MemoryModel(scenario)
        self.allow_offload = allow_offload
        self._layouts: dict[tuple[int, int], tuple[tuple[Layout, ...], list[float]]] = {}
        self._fit_tables: dict[tuple[int, int], FitTable] = {}
        self._memory: dict[tuple, MemoryBreakdown] = {}

    def layouts(self, gpus: int, gpus_per_server: int) -> tuple[Layout, ...]:
        return self._candidates(gpus, gpus_per_server)[0]

    def reserved_gib(self, gpus: int, gpus_per_server: int) -> list[float]:
        """Per-GPU peak without the runtime context for each of :meth:`layouts`, in GiB.

        Independent of the accelerator, so a catalog sweep computes it once per GPU count.
        """
        return self._candidates(gpus, gpus_per_server)[1]

    def _candidates(
        self, gpus: int, gpus_per_server: int
    ) -> tuple[tuple[Layout, ...], list[float]]:
        key = (gpus, gpus_per_server)
        cached = self._layouts.get(key)
        if cached is None:
            layouts = candidate_layouts(
                gpus,
                self.scenario.model.heads,
                allow_offload=self.allow_offload,
                gpus_per_server=gpus_per_server,
            )
            cached = (layouts, self.model.reserved_gibs(layouts))
            self._layouts[key] = cached
        return cached

    def fit_table(self, gpus: int, gpus_per_server: int) -> FitTable:
        """The :class:`FitTable` of :meth:`layouts` (independent of the accelerator, so a
        catalog sweep makes it once per GPU count)."""
        key = (gpus, gpus_per_server)
        table = self._fit_tables.get(key)
        if table is None:
            table = self._fit_tables[key] = FitTable.of(*self._candidates(gpus, gpus_per_server))
        return table

    def place(
        self, layout: Layout, accelerator: AcceleratorSpec, gpus_per_server: int
    ) -> Placement:
        """``layout`` on ``accelerator``: its memory per GPU is worked out once per layout and
        card figures (the sizings of one recommendation place the same layouts on the same
        cards many times: a server's every site, the deadline's search, the fewest GPUs)."""
        capacity = plannable_capacity_gib(accelerator)
        context = context_gib(accelerator, layout.gpus)
        card = usable_capacity_gib(accelerator)
        key = (layout, context, capacity, card)
        memory = self._memory.get(key)
        if memory is None:
            memory = self._memory[key] = self.model.per_gpu(
                layout, context=context, capacity=capacity, card=card
            )
        return Placement(layout, memory, capacity, gpus_per_server)

    def fewest_gpus(
        self,
        accelerator: AcceleratorSpec,
        *,
        server: ServerSpec | None = None,
        max_gpus: int = MAX_GPUS,
    ) -> Placement | None:
        """The first fitting placement by GPU count, then preference; ``None`` if none fits."""
        per_server = server.gpu_count if server is not None else DEFAULT_GPUS_PER_SERVER
        capacity = plannable_capacity_gib(accelerator)
        for gpus in _gpu_counts(max_gpus, per_server):
            layout = self.fit_table(gpus, per_server).first(
                capacity - context_gib(accelerator, gpus)
            )
            if layout is not None:
                return self.place(layout, accelerator, per_server)
        return None


def _gpu_counts(max_gpus: int, per_server: int):
    """1, 2, ... up to one server, then whole servers (jobs do not buy part of a server)."""
    for gpus in range(1, min(per_server, max_gpus) + 1):
        yield gpus
    gpus = per_server * 2
    while gpus <= max_gpus:
        yield gpus
        gpus += per_server


def fewest_gpus(
    scenario: Scenario,
    accelerator: AcceleratorSpec,
    *,
    server: ServerSpec | None = None,
    allow_offload: bool = False,
    max_gpus: int = MAX_GPUS,
) -> Placement | None:
    """The fewest GPUs of ``accelerator`` that hold ``scenario``, and how (``None``: none)."""
    search = PlacementSearch(scenario, allow_offload=allow_offload)
    return search.fewest_gpus(accelerator, server=server, max_gpus=max_gpus)
