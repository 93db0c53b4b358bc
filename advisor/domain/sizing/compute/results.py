"""What the throughput model returns: FLOPs per token, communication per step, the time
estimate. Plain frozen dataclasses (no imports of the model's parts, so anything may read them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from advisor.domain.i18n import Message

# --- Results ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class FlopsPerToken:
    """Training FLOPs per token (whole model; divided over GPUs later)."""

    matmul_params: float  # parameters a token is multiplied through (active, no embedding lookup)
    forward: float  # one forward pass: matrices + attention + adapters
    backward: float
    recompute: float  # the extra forward of gradient checkpointing (0 when off)
    attention_forward: float  # the attention share of ``forward``

    @property
    def total(self) -> float:
        return self.forward + self.backward + self.recompute

    @property
    def attention(self) -> float:
        """Attention's FLOPs in every pass: forward, backward (twice), recomputation."""
        return self.attention_forward * (3 + (1 if self.recompute else 0))

    @property
    def weights(self) -> float:
        """The weight (and adapter) products' FLOPs in every pass: all but attention."""
        return self.total - self.attention


@dataclass(frozen=True)
class CommunicationCost:
    """Communication of one optimizer step on one GPU, in seconds."""

    tensor_parallel_s: float  # on the critical path, already inside the micro-batch time
    data_parallel_s: float  # gradient reductions and weight gathers, before overlap
    data_parallel_exposed_s: float  # the part compute cannot hide
    offload_s: float  # PCIe host transfers and the CPU optimizer step (not overlapped)
    data_parallel_gbs: float  # one-way GB/s per GPU the data-parallel collectives run at
    tensor_parallel_gbs: float
    bytes_per_step: float  # data-parallel bytes one GPU sends per step (for network sizing)
    overlap_window_s: float  # compute time the data-parallel traffic can hide behind


@dataclass(frozen=True)
class TimeEstimate:
    """Throughput and time of a training job; figures are ``None`` when they cannot be known."""

    accelerator_key: str
    gpus: int
    servers: int
    strategy: str
    family: str
    calibrated_family: bool
    flops_per_token: float
    peak_tflops_per_gpu: float | None
    matmul_utilisation: float | None  # calibrated share of peak reached by the matrix work
    model_flops_utilisation: float | None  # what the whole job achieves (MFU)
    tokens_per_step: float
    micro_batch_s: float | None
    compute_s_per_step: float | None
    communication: CommunicationCost | None
    step_time_s: float | None
    tokens_per_s: float | None
    tokens_per_s_low: float | None
    tokens_per_s_high: float | None
    total_tokens: float | None
    time_to_train_hours: float | None
    time_to_train_hours_low: float | None
    time_to_train_hours_high: float | None
    gpu_hours: float | None
    assumptions: list[Message] = field(default_factory=list)
