"""What the throughput model assumed about a job, as translatable messages."""

from __future__ import annotations

from advisor.domain.hardware import AcceleratorSpec
from advisor.domain.i18n import N_, Code, Message
from advisor.domain.scenario import (
    Scenario,
    active_params,
)
from advisor.domain.sizing.calibration import Calibration
from advisor.domain.sizing.compute.job import (
    JobFigures,
    _at_sample_length,
    dequant_bytes_per_micro_batch,
    dora_bytes_per_micro_batch,
    expert_gemm_intensity,
    sample_length,
    weight_gemm_intensity,
)
from advisor.domain.sizing.compute.results import CommunicationCost, FlopsPerToken
from advisor.domain.sizing.network import (
    HOST_STAGED_SHARE,
    PCIE_TOPOLOGIES,
    Links,
)

# --- Assumption messages ---------------------------------------------------------------------------


def _fmt(value: float, digits: int = 1) -> str:
    return f"{value:,.{digits}f}"


def _percent(share: float) -> str:
    """A share as a percentage with its sign (kept out of templates: "%" confuses gettext)."""
    return f"{share * 100:.0f}%"


def _method_assumptions(scenario: Scenario, flops: FlopsPerToken) -> list[Message]:
    out = []
    params_b = scenario.model.params_b
    per_param = (flops.total - _attention_total(scenario, flops)) / max(flops.matmul_params, 1.0)
    out.append(
        Message(
            N_(
                "Compute per trained token: {gflops} GFLOP (about {per_param} x the {params} B "
                "parameters a token passes through, plus attention at {seq_len} tokens)."
            ),
            {
                "gflops": _fmt(flops.total / 1e9),
                "per_param": _fmt(per_param),
                "params": _fmt(flops.matmul_params / 1e9, 2),
                "seq_len": f"{sample_length(scenario):,}",
            },
        )
    )
    if scenario.model.is_moe:
        out.append(
            Message(
                N_(
                    "Mixture of experts: compute follows the {active} B parameters active per "
                    "token, not the {total} B in memory."
                ),
                {
                    "active": _fmt(active_params(scenario.model) / 1e9, 2),
                    "total": _fmt(params_b, 2),
                },
            )
        )
    if scenario.gradient_checkpointing is None:
        out.append(
            Message(
                N_(
                    "Gradient checkpointing is not stated: taken as off (the frameworks' default), "
                    "so no recomputation is counted."
                )
            )
        )
    if sample_length(scenario) != scenario.seq_len:
        out.append(
            Message(
                N_(
                    "Samples average {avg} tokens and are not packed: time is computed at that "
                    "length (each batch is padded only to its longest sample; with several "
                    "samples per micro-batch somewhat longer), not at {seq_len}; memory is sized "
                    "for the longest batch, {seq_len} tokens."
                ),
                {"avg": f"{sample_length(scenario):,}", "seq_len": f"{scenario.seq_len:,}"},
            )
        )
    elif scenario.packed is not True:
        out.append(
            Message(
                N_(
                    "Tokens are counted as the frameworks count them, padding included; with "
                    "unpacked samples shorter than {seq_len} tokens fewer real tokens are trained "
                    "per second."
                ),
                {"seq_len": f"{scenario.seq_len:,}"},
            )
        )
    return out


def _attention_total(scenario: Scenario, flops: FlopsPerToken) -> float:
    return flops.attention


def _hardware_assumptions(
    scenario: Scenario,
    accelerator: AcceleratorSpec,
    links: Links,
    peak: float,
    utilisation: float,
    mfu: float,
    calibrated: bool,
    family: str,
    cal: Calibration,
    comm: CommunicationCost,
    spans: bool,
) -> list[Message]:
    out = [
        Message(
            N_(
                "{accelerator}: {peak} TFLOP/s dense 16-bit peak; matrix work runs at {util} of "
                "it (one utilisation for every accelerator, calibrated on the published runs), "
                "the whole job at {mfu} after memory-bound work, launch overhead and "
                "communication."
            ),
            {
                "accelerator": accelerator.name,
                "accelerator_zh": accelerator.name_zh,
                "peak": _fmt(peak, 0),
                "util": _percent(utilisation),
                "mfu": _percent(mfu),
            },
        )
    ]
    if not calibrated:
        out.append(
            Message(
                N_(
                    "No published measured run of the {family} family is in the calibration set: "
                    "the shared utilisation ({util}) is assumed for it."
                ),
                {
                    "family": accelerator.architecture or family,
                    "util": _percent(utilisation),
                },
            )
        )
    if not accelerator.memory_bandwidth_tbps:
        out.append(
            Message(
                N_(
                    "The memory bandwidth of {accelerator} is not in the catalog: element-wise "
                    "(memory-bound) work is not counted separately for it."
                ),
                {"accelerator": accelerator.name, "accelerator_zh": accelerator.name_zh},
            )
        )
    if scenario.method == "qlora" and scenario.quant_format == "gptq":
        out.append(
            Message(
                N_(
                    "The GPTQ base is unpacked to 16 bits by PyTorch operators in every forward "
                    "pass (AutoGPTQ's training path, exllama kernels off): {gb} GB of memory "
                    "traffic per micro-batch, whatever its length."
                ),
                {"gb": _fmt(dequant_bytes_per_micro_batch(scenario) / 1e9, 1)},
            )
        )
    elif scenario.method == "qlora":
        out.append(
            Message(
                N_(
                    "QLoRA dequantises the frozen base in every pass: {gb} GB of memory traffic "
                    "per micro-batch, whatever its length (larger micro-batches amortise it)."
                ),
                {"gb": _fmt(dequant_bytes_per_micro_batch(scenario) / 1e9, 1)},
            )
        )
    if scenario.method == "dora":
        out.append(
            Message(
                N_(
                    "DoRA re-normalises every adapted matrix in every forward pass: {gb} GB of "
                    "memory traffic per micro-batch, whatever its length."
                ),
                {"gb": _fmt(dora_bytes_per_micro_batch(scenario) / 1e9, 1)},
            )
        )
    if comm.data_parallel_s > 0 or comm.tensor_parallel_s > 0:
        params = {
            "topology": Code("topology", links.topology),
            "link": _fmt(comm.data_parallel_gbs or comm.tensor_parallel_gbs, 0),
            "exposed": _fmt(comm.data_parallel_exposed_s, 2),
            "total": _fmt(comm.data_parallel_s, 2),
            "tp": _fmt(comm.tensor_parallel_s, 2),
        }
        if spans:
            template = N_(
                "Communication within each server over {topology} and between servers over "
                "the network: {link} GB/s per GPU each way for the slowest hop; {exposed} s per "
                "step of data-parallel traffic ({total} s in all) and {tp} s of tensor-parallel "
                "traffic are not hidden behind compute."
            )
        else:
            template = N_(
                "Communication over {topology}: {link} GB/s per GPU each way; {exposed} s per "
                "step of data-parallel traffic ({total} s in all) and {tp} s of tensor-parallel "
                "traffic are not hidden behind compute."
            )
        out.append(Message(template, params))
        peer = _peer_to_peer_message(accelerator, links)
        if peer is not None:
            out.append(peer)
    if comm.offload_s > 0:
        out.append(
            Message(
                N_(
                    "CPU offload adds {seconds} s per step for PCIe transfers and the optimizer "
                    "step on the host."
                ),
                {"seconds": _fmt(comm.offload_s, 2)},
            )
        )
    return out


def _peer_to_peer_message(accelerator: AcceleratorSpec, links: Links) -> Message | None:
    """What the collectives inside a server assume about peer-to-peer between the cards:
    stated when the cards cannot (traffic through host memory), an assumption when the catalog
    does not say and the traffic runs over PCIe; nothing for NVLink, HCCS and xGMI."""
    if accelerator.peer_to_peer is False:
        return Message(
            N_(
                "{accelerator} cards cannot reach each other's memory directly (no "
                "peer-to-peer): collectives inside a server go through host memory, at "
                "{gbs} GB/s per GPU each way, half of what PCIe gives with peer-to-peer."
            ),
            {
                "accelerator": accelerator.name,
                "accelerator_zh": accelerator.name_zh,
                "gbs": _fmt(links.pcie_gbs * HOST_STAGED_SHARE, 1),
            },
        )
    if accelerator.peer_to_peer is None and links.topology in PCIE_TOPOLOGIES:
        return Message(
            N_(
                "The catalog does not say whether {accelerator} cards can reach each other's "
                "memory directly (peer-to-peer over PCIe): assumed they can. Without it, "
                "collectives inside a server would take about twice as long."
            ),
            {"accelerator": accelerator.name, "accelerator_zh": accelerator.name_zh},
        )
    return None


def _memory_bound_message(
    scenario: Scenario,
    job: JobFigures,
    accelerator: AcceleratorSpec,
    peak: float,
    utilisation: float,
) -> Message | None:
    """Said when the weight products are memory-bound: their intensity is below the FLOP per
    byte the accelerator needs to run them at the calibrated share of its peak."""
    if not accelerator.memory_bandwidth_tbps:
        return None
    timed = _at_sample_length(scenario)
    intensity = weight_gemm_intensity(timed)
    expert = expert_gemm_intensity(timed)
    if 0 < expert < intensity:
        intensity = expert  # the routed experts' products are the first to be memory-bound
    # TFLOP/s over TB/s: FLOP per byte at the share of peak the matrix work reaches.
    ratio = peak * utilisation / accelerator.memory_bandwidth_tbps
    if intensity <= 0 or intensity >= ratio:
        return None
    return Message(
        N_(
            "Matrix work is memory-bound here: a micro-batch of {tokens} tokens does about "
            "{intensity} FLOP per byte it moves, fewer than the {ratio} FLOP per byte "
            "{accelerator} needs to keep its matrix units busy, so it runs at the memory "
            "bandwidth; more tokens per micro-batch would use the card better."
        ),
        {
            "tokens": f"{job.tokens_per_micro_batch:,}",
            "intensity": _fmt(intensity, 0),
            "ratio": _fmt(ratio, 0),
            "accelerator": accelerator.name,
            "accelerator_zh": accelerator.name_zh,
        },
    )


def _band_message(cal: Calibration, low_hours: float, high_hours: float) -> Message:
    return Message(
        N_(
            "Training time between {low} and {high} hours: the 10th to 90th percentile of the "
            "throughput error measured on {cases} published runs."
        ),
        {"low": _fmt(low_hours), "high": _fmt(high_hours), "cases": cal.error_cases},
    )
