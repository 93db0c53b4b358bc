"""Throughput mechanisms of the sizing's fourth pass (issue 49 item 5, docs/decisions/0141).

Each is counted from a framework's code and tested on a published run of the reference set:

* DeepSpeed ZeRO-3's host loop over the partitioned tensors (fetch and release), exposed where
  a model's experts run one by one and wait for the device: ms-swift's Qwen1.5-MoE-A2.7B
  full fine-tune under ZeRO-3 on eight A800s (24.30 s per step);
* AutoGPTQ's PyTorch unpacking of a GPTQ base in every forward pass: Qwen's QLoRA rows on one
  A100 (Qwen-14B and Qwen-72B Chat-Int4).
"""

from dataclasses import replace
from pathlib import Path

import pytest

from advisor.domain.hardware import load_fixture_specs
from advisor.domain.sizing.compute import estimate_time, job_figures
from advisor.domain.sizing.compute.flops import peak_tflops
from advisor.domain.sizing.compute.job import dequant_bytes_per_micro_batch
from advisor.domain.sizing.compute.step import zero3_fetch_seconds
from advisor.domain.sizing.host_step import (
    ZERO3_CALLS_PER_TENSOR,
    ZERO3_CALLS_PER_TENSOR_AND_RANK,
    call_seconds,
    zero3_calls_per_tensor,
    zero3_routed_tensors,
)
from advisor.domain.sizing.reference import load_cases

ROOT = Path(__file__).resolve().parents[2]

Z3_MOE = "swift-qwen15moe-full-z3-8xa800"
Z3_DENSE = "qwen1-72b-lora-z3-4gpu-2048"
GPTQ_14B = "qwen1-14b-qlora-2048"
GPTQ_72B = "qwen1-72b-qlora-2048"


@pytest.fixture(scope="module")
def cases():
    return {case.id: case for case in load_cases()}


@pytest.fixture(scope="module")
def specs():
    return load_fixture_specs(ROOT / "fixtures" / "catalog")[0]


def _error(case, specs, scenario=None) -> float:
    scenario = scenario or case.scenario
    estimate = estimate_time(scenario, specs[scenario.hardware.accelerator])
    return estimate.tokens_per_s / case.measured["tokens_per_s"] - 1


# --- ZeRO-3's fetch and release ---------------------------------------------------------------


def test_zero3_calls_per_tensor_are_counted_from_deepspeeds_code():
    # Two per rank (narrow, record_stream), eleven per tensor; one rank takes no gather path.
    assert (ZERO3_CALLS_PER_TENSOR_AND_RANK, ZERO3_CALLS_PER_TENSOR) == (2, 11)
    assert zero3_calls_per_tensor(1) == 0
    assert zero3_calls_per_tensor(8) == 27


def test_qwen15_moe_routed_tensors_by_hand(cases):
    # 24 layers of 60 gated experts (3 matrices each) and a router: 4,344 routed tensors.
    assert zero3_routed_tensors(cases[Z3_MOE].scenario) == 24 * (3 * 60 + 1)


def test_a_dense_model_has_no_routed_tensors(cases):
    assert zero3_routed_tensors(cases[Z3_DENSE].scenario) == 0


def test_the_expert_loop_exposes_zero3s_fetch_by_hand(cases):
    job = job_figures(cases[Z3_MOE].scenario)
    call_s = call_seconds(1.2e-3)
    # Forward, recomputed forward and backward each fetch every tensor: 3 passes, 2 micro-batches.
    assert zero3_fetch_seconds(job, 8, call_s) == pytest.approx(4344 * 3 * 27 * call_s * 2)
    assert zero3_fetch_seconds(job, 1, call_s) == 0  # one rank: no gather


def test_expert_parallelism_fetches_only_the_experts_a_gpu_holds(cases):
    scenario = cases[Z3_MOE].scenario
    ep4 = replace(scenario, parallelism=replace(scenario.parallelism, expert_parallel=4))
    call_s = call_seconds(1.2e-3)
    whole = zero3_fetch_seconds(job_figures(scenario), 8, call_s)
    assert zero3_fetch_seconds(job_figures(ep4), 8, call_s) == pytest.approx(whole / 4)


def test_grouped_gemm_lets_the_host_run_ahead(cases):
    grouped = replace(cases[Z3_MOE].scenario, moe_grouped_gemm=True)
    assert zero3_fetch_seconds(job_figures(grouped), 8, call_seconds(1.2e-3)) == 0


def test_the_published_zero3_moe_run_is_predicted_within_a_third(cases, specs):
    """The run is 8 times slower than the same model under Megatron (2.95 s a step): without
    the fetch loop the prediction was 3.6 times the measured tokens/s."""
    case = cases[Z3_MOE]
    estimate = estimate_time(case.scenario, specs[case.scenario.hardware.accelerator])
    assert abs(_error(case, specs)) < 1 / 3
    assert estimate.step_time_s > 3 * estimate.compute_s_per_step
    megatron = cases["swift-qwen15moe-full-megatron-8xa800"]
    assert abs(_error(megatron, specs)) < 0.1  # grouped GEMM, no ZeRO-3: untouched


def test_a_dense_zero3_run_pays_no_fetch_loop(cases, specs):
    case = cases[Z3_DENSE]
    accelerator = specs[case.scenario.hardware.accelerator]
    estimate = estimate_time(case.scenario, accelerator)
    zero2 = estimate_time(case.scenario, accelerator, strategy="zero2")
    assert estimate.compute_s_per_step == pytest.approx(zero2.compute_s_per_step)
    assert not any("ZeRO-3 gathers" in m.template for m in estimate.assumptions)


def test_the_fetch_loop_is_said_when_it_is_a_large_share(cases, specs):
    case = cases[Z3_MOE]
    estimate = estimate_time(case.scenario, specs[case.scenario.hardware.accelerator])
    said = [m for m in estimate.assumptions if "ZeRO-3 gathers" in m.template]
    assert len(said) == 1 and said[0].params["calls"] == "27"


def test_other_strategies_pay_no_fetch_loop(cases, specs):
    case = cases[Z3_MOE]
    accelerator = specs[case.scenario.hardware.accelerator]
    for strategy in ("zero2", "fsdp", "ddp"):
        estimate = estimate_time(case.scenario, accelerator, strategy=strategy)
        assert not any("ZeRO-3 gathers" in m.template for m in estimate.assumptions)


# --- GPTQ's unpacking ---------------------------------------------------------------------------


def test_gptq_unpacking_traffic_by_hand(cases):
    scenario = cases[GPTQ_14B].scenario
    m = scenario.model
    quantised = m.params - 2 * m.vocab * m.hidden  # the untied embedding and head stay 16-bit
    # 4-bit: 0.5 read, the int32 shift result written and read (8), the int8 cast, mask, subtract
    # and scale (6), the 16-bit weight written and read by the matmul (4): 18.5 bytes, in the
    # forward and the recomputed forward.
    assert dequant_bytes_per_micro_batch(scenario) == pytest.approx(quantised * 18.5 * 2)
    bnb = replace(scenario, quant_format="nf4")
    assert dequant_bytes_per_micro_batch(bnb) == pytest.approx(quantised * (0.5 + 0.5 / 8 + 4) * 3)


@pytest.mark.parametrize(("case_id", "bound"), [(GPTQ_14B, 0.15), (GPTQ_72B, 0.25)])
def test_the_published_gptq_qlora_runs_are_closer_than_with_bitsandbytes_dequantisation(
    cases, specs, case_id, bound
):
    case = cases[case_id]
    with_gptq = _error(case, specs)
    as_bnb = _error(case, specs, replace(case.scenario, quant_format="nf4"))
    assert abs(with_gptq) < bound
    assert abs(with_gptq) < abs(as_bnb)


# --- Consumer cards' tensor rate --------------------------------------------------------------


def test_a_geforce_card_is_timed_at_its_fp32_accumulate_tensor_rate(cases, specs):
    """NVIDIA's Ada whitepaper: the RTX 4090's BF16 tensor rate with FP32 accumulation is 165.2
    TFLOPS dense (330.3 only for FP16 with FP16 accumulation, which PyTorch does not use)."""
    case = cases["tt-l31-8b-lora-4090"]
    accelerator = specs[case.scenario.hardware.accelerator]
    assert peak_tflops(case.scenario, accelerator) == pytest.approx(165.2)
    estimate = estimate_time(case.scenario, accelerator)
    assert estimate.peak_tflops_per_gpu == pytest.approx(165.2)
