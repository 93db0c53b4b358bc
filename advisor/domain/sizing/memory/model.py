"""The memory model: :class:`MemoryModel` puts the parts together for one scenario (model states,
activations, the loss, work buffers: each in its module) and gives the per-GPU total for any
layout; :func:`estimate_memory` and the search for the largest micro-batch or sequence that fits.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from advisor.domain.hardware import AcceleratorSpec
from advisor.domain.i18n import Message
from advisor.domain.scenario import (
    LIMITS,
    ArchLayout,
    ModelArch,
    Scenario,
    arch_layout,
)
from advisor.domain.sizing.memory.activations import Activations
from advisor.domain.sizing.memory.assumptions import memory_assumptions
from advisor.domain.sizing.memory.breakdown import MemoryBreakdown
from advisor.domain.sizing.memory.buffers import WorkBuffers
from advisor.domain.sizing.memory.capacity import (
    CONTEXT_GIB,
    FRAGMENTATION_SHARE,
    context_gib,
    plannable_capacity_gib,
    usable_capacity_gib,
)
from advisor.domain.sizing.memory.frameworks import FrameworkTraits, heavier_traits_of, traits_of
from advisor.domain.sizing.memory.layout import Layout, layout_of
from advisor.domain.sizing.memory.lengths import batch_length
from advisor.domain.sizing.memory.sizes import COMPUTE_BYTES, GIB
from advisor.domain.sizing.memory.states import ModelStates

# --- The model ---------------------------------------------------------------------------------


def effective_arch(model: ModelArch) -> tuple[ModelArch, ArchLayout]:
    """The model's shape, or for rule-of-thumb rows that name only a size a Llama-like shape.

    Generic sizes: hidden from P ~ 12 x layers x hidden^2 with layers ~ hidden / 128 (the
    Llama 2 aspect ratio: 4096/32, 8192/80), rounded to 128; MLP 8/3 x hidden (SwiGLU);
    128-wide heads, full multi-head attention; a 32,000-row vocabulary (Llama 2).
    """
    if model.layout is not None:
        return model, model.layout
    hidden = max(128, round((model.params * 128 / 12) ** (1 / 3) / 128) * 128)
    layers = max(1, round(model.params / (12 * hidden * hidden)))
    heads = hidden // 128
    generic = ModelArch(
        name=model.name,
        params_b=model.params_b,
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=heads,
        intermediate=round(hidden * 8 / 3 / 128) * 128,
        vocab=32_000,
        tied_embeddings=False,
        experts=None,
        experts_per_token=None,
    )
    return generic, arch_layout(generic)


class MemoryModel(ModelStates, Activations, WorkBuffers):
    """Everything about a scenario's memory that does not depend on the GPU layout.

    Built once per scenario (and micro-batch/sequence length); :meth:`per_gpu` then costs a few
    dozen float operations, so the parallelism search can try thousands of layouts.
    """

    def __init__(
        self,
        scenario: Scenario,
        *,
        micro_batch: int | None = None,
        seq_len: int | None = None,
        traits: FrameworkTraits | None = None,
    ):
        self.scenario = scenario
        # The framework's traits (traits_of), or the heavier reading's for the band's edge.
        self.traits = traits or traits_of(scenario)
        self._heavier_traits = None if traits is not None else heavier_traits_of(scenario)
        self._heavier: MemoryModel | None = None
        self.micro_batch = micro_batch or scenario.micro_batch
        # The longest batch expected: seq_len, or for unpacked data what the lengths say.
        self.seq_len = seq_len or batch_length(scenario).tokens
        arch, layout = effective_arch(scenario.model)
        self.arch = arch
        self.layout = layout
        self.compute_bytes = COMPUTE_BYTES[scenario.precision]
        self._state_cache: dict = {}
        self._activation_cache: dict = {}
        self._dequant_extra: dict = {}  # (tp, pp, micro-batch, length) → dequant_at_peak
        self._largest_cache: dict = {}  # (what, layout, capacity, context) → largest that fits
        self._stated: tuple[Message, ...] | None = None  # memory_assumptions of the scenario
        self._model_states(scenario, arch, layout)
        self._activation_rates(scenario, arch, layout)

    # -- one layout ---------------------------------------------------------------------

    def _dynamic_bytes(
        self, layout: Layout, micro_batch: int, seq_len: int
    ) -> tuple[float, float, float]:
        """(activations, logits, the dequantised copies they meet) for one micro-batch."""
        key = (layout.tensor_parallel, layout.pipeline_parallel, micro_batch, seq_len)
        cached = self._activation_cache.get(key)
        if cached is None:
            activations, logits = self.activation_bytes(layout, micro_batch, seq_len)
            cached = (activations, logits, self._dequant_extra[key])
            self._activation_cache[key] = cached
        return cached

    def _phase_bytes(self, layout: Layout, micro_batch: int, seq_len: int):
        """(backward-phase allocated, step-phase allocated, states, activations, logits, the
        dequantised copies at the backward peak)."""
        states = self._state_bytes(layout)
        (
            frozen,
            trainable,
            master,
            gradients,
            optimizer,
            buffers,
            _paged,
            _host,
            step,
            transient,
            at_start,
        ) = states
        activations, logits, dequant = self._dynamic_bytes(layout, micro_batch, seq_len)
        resident = frozen + trainable + master + optimizer + buffers
        backward = resident + at_start + activations + logits + dequant
        step_bytes = resident + gradients + step + transient
        return backward, step_bytes, states, activations, logits, dequant

    def reserved_gib(
        self, layout: Layout, *, micro_batch: int | None = None, seq_len: int | None = None
    ) -> float:
        """The per-GPU peak without the runtime context, in GiB (fast path for searches)."""
        phases = self._phase_bytes(layout, micro_batch or self.micro_batch, seq_len or self.seq_len)
        return _reserved_gib(max(phases[0], phases[1]))  # (backward, step, ...)

    def reserved_gibs(self, layouts: Iterable[Layout]) -> list[float]:
        """:meth:`reserved_gib` of each layout at the model's micro-batch and sequence length
        (a search's batch: the arguments are resolved once, not per layout)."""
        micro_batch, seq_len = self.micro_batch, self.seq_len
        phase_bytes = self._phase_bytes
        out = []
        for layout in layouts:
            backward, step = phase_bytes(layout, micro_batch, seq_len)[:2]
            out.append(_reserved_gib(step if step > backward else backward))  # max(), no call
        return out

    def total_gib(
        self,
        layout: Layout,
        context: float,
        *,
        micro_batch: int | None = None,
        seq_len: int | None = None,
    ) -> float:
        """The per-GPU total in GiB (fast path of :meth:`per_gpu` for searches)."""
        return self.reserved_gib(layout, micro_batch=micro_batch, seq_len=seq_len) + context

    def whole_load_bytes(self, layout: Layout) -> float:
        """The whole model on one GPU, when it is loaded there before ZeRO-3 partitions it.

        0 when the framework builds the model partitioned, under any other strategy, and when
        the parameters are offloaded (created on the CPU).
        """
        loads_whole = (
            self.traits.whole_load_under_zero3
            and layout.strategy == "zero3"
            and layout.offload != "optimizer+params"
            and layout.data_parallel > 1
        )
        if not loads_whole:
            return 0.0
        return (self.frozen_bytes + self.trainable_bytes) / layout.model_parallel

    def per_gpu(
        self,
        layout: Layout,
        *,
        context: float = CONTEXT_GIB["cuda"],
        micro_batch: int | None = None,
        seq_len: int | None = None,
        capacity: float | None = None,
        card: float | None = None,
    ) -> MemoryBreakdown:
        """Peak memory per GPU for this layout (``context`` in GiB: runtime and NCCL), with,
        when the scenario does not state its framework, the same layout under the heavier
        reading (``MemoryBreakdown.heavier``, the band's upper edge: decision 0139)."""
        kwargs = dict(
            context=context, micro_batch=micro_batch, seq_len=seq_len, capacity=capacity, card=card
        )
        breakdown = self._per_gpu(layout, **kwargs)
        if self._heavier_traits is None:
            return breakdown
        if self._heavier is None:
            self._heavier = MemoryModel(
                self.scenario,
                micro_batch=self.micro_batch,
                seq_len=self.seq_len,
                traits=self._heavier_traits,
            )
        return replace(breakdown, heavier=self._heavier._per_gpu(layout, **kwargs))

    def _per_gpu(
        self,
        layout: Layout,
        *,
        context: float,
        micro_batch: int | None,
        seq_len: int | None,
        capacity: float | None,
        card: float | None,
    ) -> MemoryBreakdown:
        """Peak memory per GPU for this layout under the model's traits.

        The peak is the largest of three moments: the start of the backward pass (activations
        and the loss's buffers alive), the optimizer step (activations freed, the step's extra
        fp32 gradients alive), and, where the framework loads the whole model onto each GPU
        before ZeRO-3 partitions it and ``capacity`` (GiB) holds it, the model load: the
        caching allocator keeps that memory. A load that would not fit means the framework
        must build the model partitioned, so it never decides whether a job fits. The
        components are those of the largest moment. ``card`` (GiB, the card's usable memory)
        caps the length drift: a device reading cannot exceed the card.
        """
        backward, step, states, activations, logits, dequant = self._phase_bytes(
            layout, micro_batch or self.micro_batch, seq_len or self.seq_len
        )
        frozen, trainable, master, gradients, optimizer, buffers, paged, host, step_extra = states[
            :9
        ]
        transient, at_start = states[9:]
        allocated = max(backward, step)
        training_total = _reserved_gib(allocated) + context
        dynamic = (activations + logits) / GIB
        drift = self.length_drift_share * dynamic
        high = self.length_drift_high_share * dynamic
        whole = self.whole_load_bytes(layout)
        load_total = _reserved_gib(whole) + context
        if whole > allocated and capacity is not None and load_total <= capacity:
            # The later training steps may still read higher than the load did.
            drift = max(0.0, training_total + drift - load_total)
            high = max(0.0, training_total + high - load_total)
            share = self.frozen_bytes / (self.frozen_bytes + self.trainable_bytes)
            return MemoryBreakdown(
                frozen_weights=whole * share / GIB,
                trainable_weights=whole * (1 - share) / GIB,
                master_weights=0.0,
                gradients=0.0,
                optimizer_states=0.0,
                activations=0.0,
                logits=0.0,
                work_buffers=0.0,
                fragmentation=FRAGMENTATION_SHARE * whole / GIB,
                framework_overhead=context,
                paged_optimizer_gib=paged / GIB,
                host_ram_per_gpu_gib=host / GIB,
                peak_at_model_load=True,
                length_drift=_capped(drift, load_total, card),
                length_drift_high=_capped(high, load_total, card),
            )
        at_step = step > backward
        if at_step:
            gradients += step_extra
            buffers += transient
            activations = logits = 0.0
        else:
            gradients = at_start
            buffers += dequant
        return MemoryBreakdown(
            frozen_weights=frozen / GIB,
            trainable_weights=trainable / GIB,
            master_weights=master / GIB,
            gradients=gradients / GIB,
            optimizer_states=optimizer / GIB,
            activations=activations / GIB,
            logits=logits / GIB,
            work_buffers=buffers / GIB,
            fragmentation=FRAGMENTATION_SHARE * allocated / GIB,
            framework_overhead=context,
            paged_optimizer_gib=paged / GIB,
            host_ram_per_gpu_gib=host / GIB,
            peak_at_optimizer_step=at_step,
            length_drift=_capped(drift, training_total, card),
            length_drift_high=_capped(high, training_total, card),
        )

    def stated(self, scenario: Scenario) -> list[Message]:
        """:func:`memory_assumptions` of ``scenario``: for this model's own scenario the same
        messages each time (worked out once; every sizing of a recommendation states them, and
        the stored result holds them once), in a list of the caller's own."""
        if scenario is not self.scenario:
            return memory_assumptions(scenario)
        if self._stated is None:
            self._stated = tuple(memory_assumptions(scenario))
        return list(self._stated)

    def max_micro_batch(self, layout: Layout, capacity_gib: float, context: float) -> int:
        """The largest micro-batch that fits (0 when not even one sequence does)."""
        return self._largest("micro_batch", layout, capacity_gib, context)

    def max_seq_len(self, layout: Layout, capacity_gib: float, context: float) -> int:
        """The longest sequence (at the scenario's micro-batch) that fits (0 when none)."""
        return self._largest("seq_len", layout, capacity_gib, context)

    def _largest(self, what: str, layout: Layout, capacity_gib: float, context: float) -> int:
        """The largest ``what`` (micro_batch or seq_len) that fits, searched once per layout,
        capacity and context: servers with the same accelerator and GPU count ask again."""
        key = (what, layout, capacity_gib, context)
        found = self._largest_cache.get(key)
        if found is None:
            limit = int(LIMITS[what][1])
            found = self._largest_cache[key] = _largest_fitting(
                lambda n: self.total_gib(layout, context, **{what: n}), capacity_gib, limit
            )
        return found


def _reserved_gib(allocated: float) -> float:
    """What the caching allocator holds for ``allocated`` live bytes, in GiB."""
    return allocated * (1 + FRAGMENTATION_SHARE) / GIB


def _capped(drift: float, total: float, card: float | None) -> float:
    """The drift a reading can show on top of ``total`` on a card of ``card`` GiB."""
    if card is None:
        return drift
    return max(0.0, min(drift, card - total))


def _largest_fitting(total, capacity: float, limit: int) -> int:
    """Largest n in 1..limit with ``total(n) <= capacity`` (0 when not even 1), for a ``total``
    that never decreases as n grows (memory per GPU against micro-batch or sequence length).

    A bracketed interpolation search: memory grows nearly linearly with either, so the point
    where the line through the bracket's ends meets ``capacity`` is the answer or next to it,
    and its neighbour settles which side it is on; a step that leaves more than half of the
    bracket is followed by a bisection, so a bent curve costs no more than a binary search.
    About 5 evaluations instead of about 40 (seq_len's limit is 2**20); the same n as a
    binary search (tests/unit/test_memory_search.py)."""
    low, low_value = 1, total(1)
    if low_value > capacity:
        return 0
    high, high_value = limit, total(limit)
    if high_value <= capacity:
        return limit
    while high - low > 1:  # total(low) fits, total(high) does not
        width = high - low
        span = high_value - low_value
        guess = low + int((capacity - low_value) / span * width) if span > 0 else low + 1
        guess = min(max(guess, low + 1), high - 1)
        value = total(guess)
        if value <= capacity:
            low, low_value = guess, value
            neighbour = guess + 1
        else:
            high, high_value = guess, value
            neighbour = guess - 1
        if low < neighbour < high:
            value = total(neighbour)
            if value <= capacity:
                low, low_value = neighbour, value
            else:
                high, high_value = neighbour, value
        if high - low > 1 and (high - low) * 2 > width:
            middle = (low + high) // 2
            value = total(middle)
            if value <= capacity:
                low, low_value = middle, value
            else:
                high, high_value = middle, value
    return low


def estimate_memory(
    scenario: Scenario, layout: Layout | None = None, *, accelerator: AcceleratorSpec | None = None
) -> MemoryBreakdown:
    """Peak per-GPU memory of the scenario (in its own layout unless one is given)."""
    layout = layout or layout_of(scenario)
    model = MemoryModel(scenario)
    capacity = plannable_capacity_gib(accelerator) if accelerator is not None else None
    card = usable_capacity_gib(accelerator) if accelerator is not None else None
    context = context_gib(accelerator, layout.gpus)
    return model.per_gpu(layout, context=context, capacity=capacity, card=card)
