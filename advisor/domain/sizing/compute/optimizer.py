"""The optimizer step's own time: its bytes per parameter, the sharded step, and CPU offload
(PCIe transfers and a CPU optimizer step).
"""

from __future__ import annotations

from advisor.domain.sizing.compute.flops import BYTES_16BIT
from advisor.domain.sizing.compute.job import JobFigures
from advisor.domain.sizing.network import (
    Links,
)

# Effective host memory bandwidth of a CPU optimizer step (Adam is element-wise, memory bound):
# a 2-socket server with 8 DDR5-4800 channels per socket peaks at ~600 GB/s, and vectorised
# CPU Adam implementations reach roughly a fifth of that. An engineering estimate: the one
# offload case in the reference set (torchtune 70B FSDP CPU offload) agrees within its error.
HOST_OPTIMIZER_GBS = 120.0


def optimizer_seconds(
    job: JobFigures, strategy: str, data_parallel: int, memory_bandwidth_tbps: float | None
) -> float:
    """Per optimizer step: the update of the trained parameters this GPU holds, at the memory
    bandwidth (see optimizer_bytes_per_param). Model parallelism splits them over its ranks;
    ZeRO-1/2/3 and FSDP also over the data-parallel ranks (each updates its shard); DDP
    updates every replica. 0 when the bandwidth is unknown."""
    if not memory_bandwidth_tbps or not job.optimizer_bytes_per_param:
        return 0.0
    return optimizer_step_bytes(job, strategy, data_parallel) / (memory_bandwidth_tbps * 1e12)


def optimizer_step_bytes(job: JobFigures, strategy: str, data_parallel: int) -> float:
    """Bytes one GPU's optimizer step reads and writes (see :func:`optimizer_seconds`)."""
    shards = job.model_parallel
    if strategy in SHARDED_OPTIMIZER_STRATEGIES:
        shards *= data_parallel
    held = job.trainable_params / shards
    return held * job.optimizer_bytes_per_param


# Strategies whose optimizer states (and step) are split over the data-parallel ranks.
SHARDED_OPTIMIZER_STRATEGIES = frozenset(("zero1", "zero2", "zero3", "fsdp"))

# The optimizer step's time is said when it is at least this share of a step.
OPTIMIZER_SHARE_SAID = 0.1


def offload_seconds(job: JobFigures, links: Links, gpus: int) -> float:
    """Per optimizer step: PCIe transfers and the CPU optimizer step of CPU offload.

    ``optimizer``: each GPU sends its gradient shard to the host and receives the updated
    16-bit weights. ``optimizer+params``: the weight shard also streams in for the forward and
    the backward of every micro-batch and the gradients stream out each micro-batch. The CPU
    updates the trainable parameters of the GPUs it hosts.
    """
    if job.offload == "none":
        return 0.0
    trainable_share = job.trainable_params / gpus
    grads = trainable_share * job.gradient_bytes_per_param
    pcie_bytes = grads + trainable_share * BYTES_16BIT
    if job.offload == "optimizer+params":
        weights_share = job.total_params * job.weight_bytes_per_param / gpus
        pcie_bytes += job.grad_accum * (2 * weights_share + grads)
    gpus_per_host = min(gpus, links.gpus_per_server)
    host_bytes = trainable_share * gpus_per_host * job.host_optimizer_bytes_per_param
    return pcie_bytes / (links.pcie_gbs * 1e9) + host_bytes / (HOST_OPTIMIZER_GBS * 1e9)
