"""One optimizer step: compute, the traffic it hides or exposes, the host's calls and the
optimizer, put together into seconds per step and tokens/s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from advisor.domain.hardware import AcceleratorSpec
from advisor.domain.sizing.calibration import Calibration
from advisor.domain.sizing.compute.communication import (
    data_parallel_bytes,
    expert_loop_seconds,
    expert_parallel_degree,
    expert_parallel_seconds,
)
from advisor.domain.sizing.compute.job import JobFigures
from advisor.domain.sizing.compute.micro_batch import micro_batch_with_traffic
from advisor.domain.sizing.compute.optimizer import offload_seconds, optimizer_step_bytes
from advisor.domain.sizing.compute.results import CommunicationCost
from advisor.domain.sizing.host_step import (
    ZERO_STRATEGIES,
    call_seconds,
    zero3_calls_per_tensor,
)
from advisor.domain.sizing.network import (
    Links,
)

# --- One optimizer step ---------------------------------------------------------------------------


@dataclass(frozen=True)
class StepTime:
    """One optimizer step of the whole job (every GPU works in parallel)."""

    micro_batch_s: float  # compute of one micro-batch on one GPU, tensor-parallel traffic included
    compute_s: float  # all micro-batches through the pipeline
    communication: CommunicationCost
    step_s: float
    tokens_per_step: float
    optimizer_s: float = 0.0  # the optimizer step on the GPU (memory-bound), in step_s
    fetch_s: float = 0.0  # ZeRO-3's fetch and release on the host not hidden, in step_s

    @property
    def tokens_per_s(self) -> float:
        return self.tokens_per_step / self.step_s


def step_time(
    job: JobFigures,
    accelerator: AcceleratorSpec,
    gpus: int,
    strategy: str,
    links: Links,
    peak_tflops_per_gpu: float,
    utilisation: float,
    cal: Calibration,
) -> StepTime:
    micro_s, tp_s, tp_gbs = micro_batch_with_traffic(
        job, accelerator, links, peak_tflops_per_gpu, utilisation, cal
    )
    data_parallel = max(1, gpus // job.model_parallel)
    ep_s = expert_parallel_seconds(job, links, data_parallel)
    ep_s += expert_loop_seconds(job, data_parallel, cal.layer_pass_overhead_s)
    parts = _step_parts(
        job,
        gpus,
        strategy,
        links,
        micro_s,
        cal.layer_pass_overhead_s,
        accelerator.memory_bandwidth_tbps,
    )
    slots, compute_s, dp_bytes, dp_gbs, dp_s, window, exposed_s, offload_s, tokens = parts[:9]
    optimizer_s, fetch_s = parts[9], parts[10]
    comm = CommunicationCost(
        tensor_parallel_s=tp_s * slots,
        data_parallel_s=dp_s,
        data_parallel_exposed_s=exposed_s,
        offload_s=offload_s,
        data_parallel_gbs=dp_gbs,
        tensor_parallel_gbs=tp_gbs,
        bytes_per_step=dp_bytes,
        overlap_window_s=window,
    )
    return StepTime(
        micro_batch_s=micro_s + ep_s,
        compute_s=compute_s,
        communication=comm,
        step_s=compute_s + exposed_s + offload_s + optimizer_s + fetch_s,
        tokens_per_step=tokens,
        optimizer_s=optimizer_s,
        fetch_s=fetch_s,
    )


# What compute hides a step's data-parallel traffic (an index into StepCompute.windows): a
# step-end all-reduce overlaps the last backward (bucketed all-reduce in DDP/ZeRO-1); ZeRO-2
# reduces buckets during every backward; FSDP/ZeRO-3 prefetch the next layer's weights during
# all compute.
LAST_BACKWARD, EVERY_BACKWARD, ALL_COMPUTE = 0, 1, 2


class StepTraffic(NamedTuple):
    """What one optimizer step sends and trains on ``gpus`` GPUs under one strategy: the same
    on every accelerator, so a catalog sweep computes it once per (GPU count, strategy)."""

    data_parallel: int
    dp_bytes: float  # bytes one GPU sends for data parallelism (data_parallel_bytes)
    overlap: int  # the compute that hides them: LAST_BACKWARD, EVERY_BACKWARD or ALL_COMPUTE
    tokens: float  # tokens per optimizer step, whole job
    optimizer_bytes: float  # bytes one GPU's optimizer step reads and writes (0: on the host)
    # The step's host calls (host_step) in seconds: what its device time can hide (the host
    # issues ahead), and what adds to it (bitsandbytes waits for the device after each tensor).
    optimizer_floor_s: float
    optimizer_added_s: float
    # ZeRO-3's fetch and release of the routed experts on the host, per step, where an expert
    # loop that waits for the device exposes it (zero3_fetch_seconds).
    fetch_s: float = 0.0


def strategy_host_calls(job: JobFigures, strategy: str) -> float:
    """The optimizer step's host calls under ``strategy`` (ZeRO steps its flat buffers)."""
    if strategy in ZERO_STRATEGIES:
        return job.optimizer_host_calls_zero
    return job.optimizer_host_calls


def step_traffic(job: JobFigures, gpus: int, strategy: str, call_s: float = 0.0) -> StepTraffic:
    """``call_s``: host seconds of one operator call (host_step.call_seconds)."""
    data_parallel = max(1, gpus // job.model_parallel)
    dp_bytes, timing = data_parallel_bytes(job, strategy, data_parallel)
    optimizer_bytes = 0.0
    if job.optimizer_bytes_per_param:
        optimizer_bytes = optimizer_step_bytes(job, strategy, data_parallel)
    tokens = job.tokens_per_micro_batch * job.grad_accum * data_parallel
    overlap = LAST_BACKWARD
    if timing == "micro-batch":
        overlap = ALL_COMPUTE if strategy in ("zero3", "fsdp") else EVERY_BACKWARD
    floor_s = strategy_host_calls(job, strategy) * call_s
    added_s = 0.0
    if job.optimizer_host_synced:
        floor_s, added_s = 0.0, floor_s
    fetch_s = zero3_fetch_seconds(job, data_parallel, call_s) if strategy == "zero3" else 0.0
    # Positional: a named tuple built from keywords costs about three times as much, and a
    # catalog sweep builds thousands of these and of StepCompute.
    return StepTraffic(
        data_parallel,
        dp_bytes,
        overlap,
        tokens,
        optimizer_bytes,
        floor_s,
        added_s,
        fetch_s,
    )


def zero3_fetch_seconds(job: JobFigures, data_parallel: int, call_s: float) -> float:
    """Per step: ZeRO-3's fetch and release of the routed experts' partitioned tensors on the
    host (host_step), where the experts run in a loop that waits for the device, so that the
    host cannot run ahead (0 for dense models and grouped GEMM). Each pass that uses the
    weights fetches them: the forward, a recomputed forward, the backward. Under expert
    parallelism a GPU holds, and fetches, 1/ep of them."""
    if not job.experts_in_loop or not job.zero3_routed_tensors:
        return 0.0
    passes = 2 + (1 if job.recompute else 0)
    held = job.model_parallel * expert_parallel_degree(job, data_parallel)
    tensors = job.zero3_routed_tensors / held
    calls = zero3_calls_per_tensor(data_parallel) * tensors * passes * job.grad_accum
    return calls * call_s


class StepCompute(NamedTuple):
    """One optimizer step's compute on ``gpus`` GPUs of one accelerator, whatever the
    data-parallel strategy: a catalog sweep computes it once per (accelerator, GPU count)."""

    slots: int  # micro-batch slots of the pipeline schedule
    micro_s: float  # one micro-batch with the expert all-to-all and loop
    compute_s: float  # all micro-batches through the pipeline
    dp_gbs: float  # the data-parallel collectives' bandwidth per GPU
    offload_s: float
    dp_bytes_per_s: float  # dp_gbs in bytes per second (every strategy's traffic divides by it)
    # The compute that can hide data-parallel traffic, by StepTraffic.overlap: the last
    # micro-batch's backward, every micro-batch's backward, all micro-batches.
    windows: tuple[float, float, float]


def step_compute(
    job: JobFigures, gpus: int, links: Links, micro_s: float, layer_pass_overhead_s: float
) -> StepCompute:
    """The step's compute from one micro-batch's seconds (tensor-parallel traffic included;
    the all-to-all of expert parallelism and the expert loop are added here, where the
    data-parallel degree is known)."""
    data_parallel = max(1, gpus // job.model_parallel)
    if job.expert_parallel > 1:
        micro_s += expert_parallel_seconds(job, links, data_parallel)
    if job.experts_in_loop:
        micro_s += expert_loop_seconds(job, data_parallel, layer_pass_overhead_s)
    slots = job.pipeline_slots
    compute_s = micro_s * slots
    dp_gbs = links.collective_gbs(data_parallel, spans_servers=gpus > links.gpus_per_server)
    offload_s = offload_seconds(job, links, gpus)
    last_backward = micro_s * job.backward_share
    windows = (last_backward, last_backward * job.grad_accum, compute_s)
    # Positional, as in step_traffic.
    return StepCompute(slots, micro_s, compute_s, dp_gbs, offload_s, dp_gbs * 1e9, windows)


def exposed_seconds(compute: StepCompute, traffic: StepTraffic) -> tuple[float, float, float]:
    """(data-parallel seconds, the compute that can hide them, the part not hidden); which
    compute hides them is the traffic's ``overlap`` (see LAST_BACKWARD)."""
    dp_s = traffic.dp_bytes / compute.dp_bytes_per_s if traffic.dp_bytes else 0.0
    window = compute.windows[traffic.overlap]
    exposed_s = dp_s - window
    return dp_s, window, exposed_s if exposed_s > 0.0 else 0.0  # max(0.0, ...) without a call


def memory_bytes_per_s(memory_bandwidth_tbps: float | None) -> float | None:
    """The card's memory bandwidth in bytes per second (``None``: unknown)."""
    return memory_bandwidth_tbps * 1e12 if memory_bandwidth_tbps else None


def _optimizer_s(traffic: StepTraffic, bytes_per_s: float | None) -> float:
    """The optimizer step: its traffic at ``bytes_per_s`` (:func:`memory_bytes_per_s`) and its
    host calls (host_step), the longer of the two when the host issues ahead, their sum when
    the loop waits for the device after each tensor (StepTraffic's floor and added seconds)."""
    device_s = 0.0
    if bytes_per_s and traffic.optimizer_bytes:
        device_s = traffic.optimizer_bytes / bytes_per_s
    floor_s = traffic.optimizer_floor_s
    return (device_s if device_s > floor_s else floor_s) + traffic.optimizer_added_s


def _step_parts(
    job: JobFigures,
    gpus: int,
    strategy: str,
    links: Links,
    micro_s: float,
    layer_pass_overhead_s: float,
    memory_bandwidth_tbps: float | None = None,
) -> tuple:
    """One optimizer step from one micro-batch's seconds (see :func:`step_compute`).

    Returns (slots, compute_s, dp_bytes, dp_gbs, dp_s, window, exposed_s, offload_s,
    tokens_per_step, optimizer_s, fetch_s).
    """
    compute = step_compute(job, gpus, links, micro_s, layer_pass_overhead_s)
    traffic = step_traffic(job, gpus, strategy, call_seconds(layer_pass_overhead_s))
    dp_s, window, exposed_s = exposed_seconds(compute, traffic)
    return (
        compute.slots,
        compute.compute_s,
        traffic.dp_bytes,
        compute.dp_gbs,
        dp_s,
        window,
        exposed_s,
        compute.offload_s,
        traffic.tokens,
        _optimizer_s(traffic, memory_bytes_per_s(memory_bandwidth_tbps)),
        traffic.fetch_s,
    )
