"""The result: per-GPU memory by named component (:class:`MemoryBreakdown`)."""

from __future__ import annotations

from dataclasses import dataclass, fields

from advisor.domain.sizing.memory.capacity import LENGTH_DRIFT_SHOWN_GIB

# --- Result ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class MemoryBreakdown:
    """Peak memory per GPU in GiB, by component, with the host RAM the job needs."""

    frozen_weights: float
    trainable_weights: float
    master_weights: float
    gradients: float
    optimizer_states: float
    activations: float
    logits: float
    work_buffers: float
    fragmentation: float
    framework_overhead: float
    paged_optimizer_gib: float  # states in unified memory, paged to host RAM (not in total)
    host_ram_per_gpu_gib: float
    peak_at_optimizer_step: bool = False  # the peak is the optimizer step, not the backward
    peak_at_model_load: bool = False  # the whole model loaded before ZeRO-3 partitioned it
    # Cached by the allocator beyond the job's need when batch lengths vary (released before
    # an out-of-memory error, so not in ``total``): see LENGTH_DRIFT_OF_DYNAMIC. The planning
    # figure, and the upper end of the range a reading may reach.
    length_drift: float = 0.0
    length_drift_high: float = 0.0
    # When the scenario does not state its framework: the same layout under the heavier reading
    # of every framework behaviour (frameworks.HEAVIER_TRAITS). The breakdown above is the most
    # used stack's (decision 0139); this one only sets the upper edge of the band and of the
    # range a reading may reach. ``None`` when the framework is stated.
    heavier: MemoryBreakdown | None = None

    @property
    def heavier_total(self) -> float:
        """The total under the heavier reading (the total itself when there is none)."""
        return max(self.total, self.heavier.total) if self.heavier is not None else self.total

    @property
    def allocated(self) -> float:
        """Live tensors at the peak (what ``torch.cuda.max_memory_allocated`` reports)."""
        return (
            self.frozen_weights
            + self.trainable_weights
            + self.master_weights
            + self.gradients
            + self.optimizer_states
            + self.activations
            + self.logits
            + self.work_buffers
        )

    @property
    def reserved(self) -> float:
        """What the caching allocator holds (``max_memory_reserved``)."""
        return self.allocated + self.fragmentation

    @property
    def total(self) -> float:
        """Everything the card must hold: reserved memory plus the runtime context."""
        return self.reserved + self.framework_overhead

    @property
    def device_reading(self) -> float:
        """What nvidia-smi or npu-smi may show at the peak: the total plus the length drift."""
        return self.total + self.length_drift

    @property
    def device_reading_high(self) -> float:
        """The upper end of what a device reading may show: the total plus the heaviest drift."""
        return self.total + max(self.length_drift, self.length_drift_high)

    @property
    def reading_exceeds_total(self) -> bool:
        """Whether the device reading is worth stating beside the total."""
        return max(self.length_drift, self.length_drift_high) >= LENGTH_DRIFT_SHOWN_GIB

    def components(self) -> dict[str, float]:
        """The device components and the total, in GiB (the JSON ``memory_per_gpu_gib``)."""
        names = [
            f.name
            for f in fields(self)
            if f.name
            not in (
                "paged_optimizer_gib",
                "host_ram_per_gpu_gib",
                "peak_at_optimizer_step",
                "peak_at_model_load",
                "length_drift",
                "length_drift_high",
                "heavier",
            )
        ]
        out = {name: getattr(self, name) for name in names}
        out["total"] = self.total
        return out

    def at_metric(self, metric: str, *, high: bool = False) -> float:
        """The prediction comparable with a reported figure of the given kind: the planning
        figure, or with ``high`` the upper end of the range a reading may reach."""
        drift = max(self.length_drift, self.length_drift_high) if high else self.length_drift
        if metric == "allocated":
            value = self.allocated
        elif metric == "reserved":
            value = self.reserved + drift
        else:
            value = self.total + drift
        if high and self.heavier is not None:
            return max(value, self.heavier.at_metric(metric, high=True))
        return value
