"""The estimate: tokens/s for the whole job, step time, time to train ``dataset_tokens x epochs``
and GPU-hours, with a band from the errors measured on the reference cases.
"""

from __future__ import annotations

import math
from dataclasses import replace

from advisor.domain.hardware import AcceleratorSpec, ServerSpec
from advisor.domain.i18n import N_, Message
from advisor.domain.scenario import (
    STRATEGIES,
    Scenario,
)
from advisor.domain.sizing import calibration
from advisor.domain.sizing.calibration import Calibration
from advisor.domain.sizing.compute.assumptions import (
    _band_message,
    _fmt,
    _hardware_assumptions,
    _memory_bound_message,
    _method_assumptions,
)
from advisor.domain.sizing.compute.communication import (
    context_parallel_seconds,
    expert_parallel_degree,
    expert_parallel_seconds,
)
from advisor.domain.sizing.compute.flops import peak_tflops
from advisor.domain.sizing.compute.job import JobFigures, job_figures
from advisor.domain.sizing.compute.micro_batch import matmul_utilisation, micro_batch_parts
from advisor.domain.sizing.compute.optimizer import OPTIMIZER_SHARE_SAID
from advisor.domain.sizing.compute.results import TimeEstimate
from advisor.domain.sizing.compute.step import StepTime, step_time, strategy_host_calls
from advisor.domain.sizing.host_step import (
    host_seconds,
    zero3_calls_per_tensor,
)
from advisor.domain.sizing.network import (
    Links,
    links_for,
)

# --- The estimate -------------------------------------------------------------------------------------


def _servers_for(scenario: Scenario, gpus: int, links: Links, server: ServerSpec | None) -> int:
    if server is None and gpus == scenario.hardware.count:
        return scenario.hardware.nodes
    return max(1, math.ceil(gpus / links.gpus_per_server))


def _for_gpus(scenario: Scenario, gpus: int) -> Scenario:
    """The scenario with its tensor/pipeline parallelism, or without when it does not divide."""
    if gpus % (scenario.parallelism.model_parallel * scenario.parallelism.context_parallel) == 0:
        return scenario
    return _without_model_parallelism(scenario)


def tokens_per_second(
    scenario: Scenario,
    accelerator: AcceleratorSpec,
    gpus: int | None = None,
    server: ServerSpec | None = None,
    strategy: str | None = None,
    cal: Calibration | None = None,
) -> float | None:
    """Whole-job tokens/s only (no messages): the fast path for sweeping the catalog.

    Same model and arguments as :func:`estimate_time`; ``None`` when the peak is unknown.
    """
    cal = cal or calibration.STORED
    gpus = gpus or scenario.hardware.count
    peak = peak_tflops(scenario, accelerator)
    if peak is None:
        return None
    job = job_figures(scenario).for_gpus(gpus)
    utilisation = matmul_utilisation(job, accelerator, cal)[0]
    links = links_for(accelerator, server)
    strategy = strategy or scenario.parallelism.strategy
    return step_time(job, accelerator, gpus, strategy, links, peak, utilisation, cal).tokens_per_s


def _optimizer_step_message(
    job: JobFigures, step: StepTime, strategy: str, cal: Calibration
) -> Message:
    """What bounds an optimizer step that is a large share of the step: its host calls
    (host_step) when they take at least half of it, else its traffic at the memory bandwidth."""
    calls = strategy_host_calls(job, strategy)
    host_s = host_seconds(calls, cal.layer_pass_overhead_s)
    timing = {"seconds": _fmt(step.optimizer_s, 3), "step": _fmt(step.step_s, 3)}
    if host_s >= 0.5 * step.optimizer_s:
        return Message(
            N_(
                "The optimizer step makes {calls} operator calls on the host (its loop over "
                "the trained tensors): {seconds} s of each {step} s step, a large share because "
                "each step trains few tokens."
            ),
            {"calls": _fmt(calls, 0), **timing},
        )
    return Message(
        N_(
            "The optimizer step reads and writes {bytes} bytes per trained parameter at "
            "the memory bandwidth: {seconds} s of each {step} s step, a large share "
            "because each step trains few tokens."
        ),
        {"bytes": _fmt(job.optimizer_bytes_per_param, 0), **timing},
    )


def _fetch_message(job: JobFigures, step: StepTime, data_parallel: int) -> Message:
    """ZeRO-3's host loop over the partitioned tensors when it is a large share of the step
    (host_step, step.zero3_fetch_seconds)."""
    return Message(
        N_(
            "DeepSpeed ZeRO-3 gathers and frees each partitioned weight tensor in a loop on the "
            "host, {calls} operator calls per tensor in every pass that uses it; where the "
            "experts run one by one and wait for the device, the loop is not hidden: {seconds} "
            "s of each {step} s step."
        ),
        {
            "calls": _fmt(zero3_calls_per_tensor(data_parallel), 0),
            "seconds": _fmt(step.fetch_s, 2),
            "step": _fmt(step.step_s, 2),
        },
    )


def estimate_time(
    scenario: Scenario,
    accelerator: AcceleratorSpec,
    gpus: int | None = None,
    server: ServerSpec | None = None,
    strategy: str | None = None,
    cal: Calibration | None = None,
) -> TimeEstimate:
    """Throughput and time of ``scenario`` on ``gpus`` x ``accelerator`` (in ``server``).

    ``gpus`` and ``strategy`` default to the scenario's own; tensor and pipeline parallelism are
    kept from the scenario when they divide ``gpus`` (otherwise dropped). The per-GPU micro-batch
    and accumulation are the scenario's, so more data-parallel GPUs process a larger global batch.
    ``cal`` replaces the stored calibration (used by the calibration bench).
    """
    cal = cal or calibration.STORED
    gpus = gpus or scenario.hardware.count
    strategy = strategy or scenario.parallelism.strategy
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}")
    scenario = _for_gpus(scenario, gpus)
    job = job_figures(scenario)
    links = links_for(accelerator, server)
    servers = _servers_for(scenario, gpus, links, server)
    data_parallel = max(1, gpus // job.model_parallel)
    total_tokens = scenario.training.total_tokens
    assumptions = _method_assumptions(scenario, job.flops)
    utilisation, calibrated, family = matmul_utilisation(job, accelerator, cal)
    peak = peak_tflops(scenario, accelerator)
    base = dict(
        accelerator_key=accelerator.key,
        gpus=gpus,
        servers=servers,
        strategy=strategy,
        family=family,
        calibrated_family=calibrated,
        flops_per_token=job.flops.total,
        peak_tflops_per_gpu=peak,
        tokens_per_step=job.tokens_per_micro_batch * job.grad_accum * data_parallel,
        total_tokens=total_tokens,
    )
    if peak is None:
        assumptions.append(
            Message(
                N_(
                    "The dense 16-bit peak of {accelerator} is not in the catalog, so its "
                    "throughput and training time cannot be estimated."
                ),
                {"accelerator": accelerator.name, "accelerator_zh": accelerator.name_zh},
            )
        )
        return _unknown(base, assumptions)
    step = step_time(job, accelerator, gpus, strategy, links, peak, utilisation, cal)
    tokens_per_s = step.tokens_per_s
    mfu = tokens_per_s * job.flops.total / (gpus * peak * 1e12)
    low, high = tokens_per_s * cal.error_ratio_low, tokens_per_s * cal.error_ratio_high
    hours = hours_low = hours_high = gpu_hours = None
    if total_tokens is not None:
        hours = total_tokens / tokens_per_s / 3600
        hours_low, hours_high = total_tokens / high / 3600, total_tokens / low / 3600
        gpu_hours = hours * gpus
    spans = gpus > links.gpus_per_server
    assumptions += _hardware_assumptions(
        scenario,
        accelerator,
        links,
        peak,
        utilisation,
        mfu,
        calibrated,
        family,
        cal,
        step.communication,
        spans,
    )
    if step.optimizer_s >= OPTIMIZER_SHARE_SAID * step.step_s:
        assumptions.append(_optimizer_step_message(job, step, strategy, cal))
    if step.fetch_s >= OPTIMIZER_SHARE_SAID * step.step_s:
        assumptions.append(_fetch_message(job, step, data_parallel))
    bound = _memory_bound_message(scenario, job, accelerator, peak, utilisation)
    if bound is not None:
        assumptions.append(bound)
    ep = expert_parallel_degree(job, data_parallel)
    if ep > 1:
        assumptions.append(
            Message(
                N_(
                    "Expert parallelism over {ep} GPUs: each holds 1/{ep} of the routed experts, "
                    "which are never gathered across them; tokens reach their experts and come "
                    "back by all-to-all, {seconds} s per micro-batch not hidden behind compute."
                ),
                {"ep": ep, "seconds": _fmt(expert_parallel_seconds(job, links, data_parallel), 3)},
            )
        )
    if job.context_parallel > 1:
        assumptions.append(
            _context_parallel_message(job, accelerator, links, peak, utilisation, cal)
        )
    if hours is not None:
        assumptions.append(_band_message(cal, hours_low, hours_high))
    return TimeEstimate(
        **base,
        matmul_utilisation=utilisation,
        model_flops_utilisation=mfu,
        micro_batch_s=step.micro_batch_s,
        compute_s_per_step=step.compute_s,
        communication=step.communication,
        step_time_s=step.step_s,
        tokens_per_s=tokens_per_s,
        tokens_per_s_low=low,
        tokens_per_s_high=high,
        time_to_train_hours=hours,
        time_to_train_hours_low=hours_low,
        time_to_train_hours_high=hours_high,
        gpu_hours=gpu_hours,
        assumptions=assumptions,
    )


def _context_parallel_message(
    job: JobFigures,
    accelerator: AcceleratorSpec,
    links: Links,
    peak: float,
    utilisation: float,
    cal: Calibration,
) -> Message:
    attention_s = micro_batch_parts(job, accelerator, peak, utilisation, cal)[1]
    values = {
        "cp": job.context_parallel,
        "seconds": _fmt(context_parallel_seconds(job, links, attention_s), 3),
    }
    if job.context_parallel_comm == "all-to-all":
        template = N_(
            "Context parallelism over {cp} GPUs: each holds 1/{cp} of every sequence and its "
            "activations; q, k, v and the attention output are exchanged by all-to-all, {seconds} "
            "s per micro-batch not hidden behind compute."
        )
    else:
        template = N_(
            "Context parallelism over {cp} GPUs: each holds 1/{cp} of every sequence and its "
            "activations; keys and values go round the ring during attention, {seconds} s per "
            "micro-batch not hidden behind it."
        )
    return Message(template, values)


def _without_model_parallelism(scenario: Scenario) -> Scenario:
    parallelism = replace(
        scenario.parallelism,
        tensor_parallel=1,
        pipeline_parallel=1,
        context_parallel=1,
        context_parallel_comm=None,
    )
    return replace(scenario, parallelism=parallelism)


def _unknown(base: dict, assumptions: list[Message]) -> TimeEstimate:
    return TimeEstimate(
        **base,
        matmul_utilisation=None,
        model_flops_utilisation=None,
        micro_batch_s=None,
        compute_s_per_step=None,
        communication=None,
        step_time_s=None,
        tokens_per_s=None,
        tokens_per_s_low=None,
        tokens_per_s_high=None,
        time_to_train_hours=None,
        time_to_train_hours_low=None,
        time_to_train_hours_high=None,
        gpu_hours=None,
        assumptions=assumptions,
    )
