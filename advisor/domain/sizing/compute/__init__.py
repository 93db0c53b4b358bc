"""Training time: FLOPs per token, achieved utilisation, communication, tokens/s, wall-clock.

The model (docs/sizing-time.md, docs/decisions/0005-throughput-model.md), one module per part:

* :mod:`.flops`: **FLOPs per token** from the architecture: 2 FLOPs per multiply-accumulate
  through every matrix a token passes (the *active* parameters for mixture-of-experts, without
  the input embedding lookup), plus causal attention's score and value products; the backward
  pass costs two forwards for full fine-tuning and one for frozen-base methods (LoRA/QLoRA/DoRA
  compute the activation gradients but not the frozen weights' gradients); recomputation adds a
  forward. :mod:`.job` holds a scenario's figures, computed once per scenario.
* :mod:`.micro_batch`: **time per micro-batch** on each GPU, the sum of physical terms: matrix
  work at the accelerator's dense 16-bit peak times one utilisation calibrated on the published
  runs (:mod:`~advisor.domain.sizing.calibration`), element-wise memory traffic at the HBM/GDDR
  bandwidth, QLoRA's dequantisation of the frozen base, and a fixed host/kernel-launch time per
  layer and pass.
* :mod:`.communication`: **communication** per step from the strategy's collective volumes over
  the links (:mod:`~advisor.domain.sizing.network`): tensor-parallel all-reduces on the critical
  path, data-parallel gradient reductions and FSDP/ZeRO-3 gathers hidden behind the compute they
  can overlap with; :mod:`.optimizer`: the optimizer step and CPU offload (PCIe transfers and a
  CPU optimizer step); the host's calls are :mod:`~advisor.domain.sizing.host_step`.
* :mod:`.step`: one optimizer step put together; :mod:`.estimate`: tokens/s for the whole job,
  step time, time to train ``dataset_tokens x epochs`` and GPU-hours, with a band from the
  errors measured on the reference cases; :mod:`.assumptions`: what it assumed, as messages.
* :mod:`.results`: what it returns (plain frozen dataclasses).

:mod:`.sweep` is bench-only (``bench/sizing_speed.py``), not imported here. The names other
modules use are importable from this package.
"""

from advisor.domain.sizing.compute.communication import (
    context_parallel_seconds,
    data_parallel_bytes,
    expert_loop_seconds,
    expert_parallel_seconds,
)
from advisor.domain.sizing.compute.estimate import estimate_time, tokens_per_second
from advisor.domain.sizing.compute.flops import (
    attended_keys,
    flops_per_token,
    optimizer_bytes_per_param,
)
from advisor.domain.sizing.compute.job import (
    dora_bytes_per_micro_batch,
    expert_gemm_intensity,
    gemm_intensity,
    job_figures,
    weight_gemm_intensity,
)
from advisor.domain.sizing.compute.micro_batch import (
    matmul_utilisation,
    micro_batch_parts,
    micro_batch_seconds,
)
from advisor.domain.sizing.compute.optimizer import optimizer_seconds
from advisor.domain.sizing.compute.results import CommunicationCost, FlopsPerToken, TimeEstimate
from advisor.domain.sizing.compute.step import (
    ALL_COMPUTE,
    EVERY_BACKWARD,
    LAST_BACKWARD,
    step_time,
    step_traffic,
)

__all__ = [
    "ALL_COMPUTE",
    "EVERY_BACKWARD",
    "LAST_BACKWARD",
    "CommunicationCost",
    "FlopsPerToken",
    "TimeEstimate",
    "attended_keys",
    "context_parallel_seconds",
    "data_parallel_bytes",
    "dora_bytes_per_micro_batch",
    "estimate_time",
    "expert_gemm_intensity",
    "expert_loop_seconds",
    "expert_parallel_seconds",
    "flops_per_token",
    "gemm_intensity",
    "job_figures",
    "matmul_utilisation",
    "micro_batch_parts",
    "micro_batch_seconds",
    "optimizer_bytes_per_param",
    "optimizer_seconds",
    "step_time",
    "step_traffic",
    "tokens_per_second",
    "weight_gemm_intensity",
]
