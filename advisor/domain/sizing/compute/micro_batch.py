"""Time per micro-batch on each GPU: matrix work at the calibrated utilisation of the
accelerator's peak (a roofline ceiling), element-wise memory traffic, dequantisation and the
fixed host/kernel-launch time per layer and pass.
"""

from __future__ import annotations

from advisor.domain.hardware import AcceleratorSpec
from advisor.domain.sizing import calibration
from advisor.domain.sizing.calibration import Calibration
from advisor.domain.sizing.compute.communication import (
    context_parallel_seconds,
    tensor_parallel_seconds,
)
from advisor.domain.sizing.compute.job import JobFigures
from advisor.domain.sizing.network import (
    Links,
)

# --- Time per micro-batch ------------------------------------------------------------------------


def matmul_utilisation(
    job: JobFigures, accelerator: AcceleratorSpec, cal: Calibration
) -> tuple[float, bool, str]:
    """Calibrated share of peak reached by matrix work: (value, family measured?, family).

    The same for dense and mixture-of-experts models: the shared MoE factor fitted until
    2026-12-03 did not hold out of fold (decision 0056); what it stood for is modelled.
    """
    family = calibration.family_of(accelerator)
    value, calibrated = cal.family_utilisation(family)
    return min(value, 1.0), calibrated, family


def micro_batch_seconds(
    job: JobFigures,
    accelerator: AcceleratorSpec,
    peak_tflops_per_gpu: float,
    utilisation: float,
    cal: Calibration,
) -> float:
    """Seconds one GPU spends computing one micro-batch (forward, backward, recomputation).

    Matrix work at the calibrated share of peak, element-wise traffic at the memory bandwidth,
    and the launch overhead of every layer this GPU holds in every pass.
    """
    return sum(micro_batch_parts(job, accelerator, peak_tflops_per_gpu, utilisation, cal))


def micro_batch_parts(
    job: JobFigures,
    accelerator: AcceleratorSpec,
    peak_tflops_per_gpu: float,
    utilisation: float,
    cal: Calibration,
) -> tuple[float, float, float, float]:
    """(weight products, attention, element-wise traffic, launches) of one micro-batch, s."""
    tokens = job.tokens_per_micro_batch / job.model_parallel
    rate = peak_tflops_per_gpu * 1e12 * utilisation
    weights_s = job.flops.weights * tokens / rate
    attention_s = job.flops.attention * tokens / rate
    memory_s = 0.0
    if accelerator.memory_bandwidth_tbps:
        dequant = job.dequant_bytes_per_micro_batch / job.model_parallel
        bandwidth = accelerator.memory_bandwidth_tbps * 1e12
        memory_s = (job.elementwise_bytes_per_token * tokens + dequant) / bandwidth
        # Roofline: the weight products take the longer of their two ceilings.
        weights_s = max(weights_s, job.gemm_bytes_per_token * tokens / bandwidth)
    layers_here = job.layers / job.pipeline_parallel
    launch_s = cal.layer_pass_overhead_s * layers_here * job.activation_passes
    launch_s *= job.layer_call_share
    return weights_s, attention_s, memory_s, launch_s


def micro_batch_with_traffic(
    job: JobFigures,
    accelerator: AcceleratorSpec,
    links: Links,
    peak_tflops_per_gpu: float,
    utilisation: float,
    cal: Calibration,
) -> tuple[float, float, float]:
    """One micro-batch with the traffic inside it: (seconds, tensor-parallel seconds,
    tensor-parallel GB/s). Tensor-parallel collectives wait for the products (fusing them with
    the products, Ascend MC2, was scored and not kept: docs/decisions/0060); context
    parallelism's exchanges, partly hidden behind attention, are added here too."""
    weights_s, attention_s, memory_s, launch_s = micro_batch_parts(
        job, accelerator, peak_tflops_per_gpu, utilisation, cal
    )
    tp_s, tp_gbs = tensor_parallel_seconds(job, links)
    cp_s = context_parallel_seconds(job, links, attention_s)
    return weights_s + attention_s + memory_s + launch_s + tp_s + cp_s, tp_s, tp_gbs
