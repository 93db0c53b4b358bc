"""The roofline ceiling of the weight products (issue 29 item 8, decision 0056), against
hand-worked numbers.

Llama 2 7B (the scenario of test_compute): per token 41,254,674,432 FLOPs in all, of which
attention 3 passes x 536,870,912 = 1,610,612,736 and the weight products 39,644,061,696.
"""

from dataclasses import replace

import pytest

from advisor.domain.sizing.calibration import STORED, Calibration
from advisor.domain.sizing.compute import (
    estimate_time,
    expert_gemm_intensity,
    gemm_intensity,
    job_figures,
    matmul_utilisation,
    micro_batch_seconds,
    weight_gemm_intensity,
)
from tests.unit.test_compute import ACCELERATORS, LORA, scenario, synthetic_accelerator
from tests.unit.test_sizing_mechanisms import ROUTED, moe

TOTAL_FLOPS = 41_254_674_432
ATTENTION_FLOPS = 3 * 536_870_912
WEIGHT_FLOPS = TOTAL_FLOPS - ATTENTION_FLOPS  # 39,644,061,696
HALF = Calibration(utilisation=0.5, cases_by_family={"hopper": 1})


@pytest.mark.parametrize(
    ("tokens", "d_in", "d_out", "value_bytes", "expected"),
    [
        # 2 T K N / (2 (T K + K N + T N)): square 4,096: 4,096^3 / (3 x 4,096^2) = 1,365.33
        (4096, 4096, 4096, 2, 4096 / 3),
        # 256 tokens: 256 x 4,096^2 / (4,096 x (256 + 4,096 + 256)) = 256 x 4,096 / 4,608
        (256, 4096, 4096, 2, 256 * 4096 / 4608),
        # Qwen3-14B under tensor parallelism 4 (5,120 -> 1,280), 8,192 tokens:
        # 8,192 x 5,120 x 1,280 / (41,943,040 + 6,553,600 + 10,485,760) = 910.22
        (8192, 5120, 1280, 2, 8192 * 5120 * 1280 / 58_982_400),
        # fp32 values move twice the bytes: half the intensity
        (4096, 4096, 4096, 4, 4096 / 6),
        # one token: each weight read for two FLOPs, about 1 FLOP per byte
        (1, 4096, 4096, 2, 4096 * 4096 / (4096 + 4096 * 4096 + 4096)),
    ],
    ids=["square", "short", "tp4", "fp32", "one-token"],
)
def test_gemm_intensity_hand_computed(tokens, d_in, d_out, value_bytes, expected):
    assert gemm_intensity(tokens, d_in, d_out, value_bytes) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        # 2,048 tokens through 4,096 x 4,096: 2,048 x 4,096 / (2 x 2,048 + 4,096) = 1,024
        ({}, 1024),
        # micro-batch 4 x 512 tokens: the same 2,048 tokens per product
        ({"seq_len": 512, "micro_batch": 4}, 1024),
        # 256 tokens: 227.6 FLOP/B
        ({"seq_len": 256}, 256 * 4096 / 4608),
        # pure fp32: half
        ({"precision": "fp32"}, 512),
    ],
    ids=["2048", "4x512", "256", "fp32"],
)
def test_weight_gemm_intensity_of_a_scenario(changes, expected):
    assert weight_gemm_intensity(scenario(**changes)) == pytest.approx(expected)


def test_gemm_bytes_per_token_are_the_weight_flops_over_the_intensity():
    # 39,644,061,696 FLOP / 1,024 FLOP/B = 38,714,904 B per token (attention excluded)
    job = job_figures(scenario())
    assert job.flops.attention == pytest.approx(ATTENTION_FLOPS)
    assert job.flops.weights == pytest.approx(WEIGHT_FLOPS)
    assert job.gemm_bytes_per_token == pytest.approx(WEIGHT_FLOPS / 1024)
    assert job.gemm_bytes_per_token == pytest.approx(38_714_904)


@pytest.mark.parametrize(
    ("bandwidth_tbps", "weights_s"),
    [
        # 1 TB/s: compute ceiling 2,048 x 39,644,061,696 / 50e12 = 1.62382 s; memory ceiling
        # 2,048 x 38,714,904 / 1e12 = 0.07929 s: compute-bound, the calibrated share applies
        (1.0, 2048 * WEIGHT_FLOPS / 50e12),
        # 0.02 TB/s (100 TFLOP/s over 0.02 TB/s = 5,000 FLOP/B, x 0.5 = 2,500 > 1,024): memory
        # ceiling 2,048 x 38,714,904 / 2e10 = 3.96441 s binds
        (0.02, 2048 * 38_714_904 / 2e10),
    ],
    ids=["compute-bound", "memory-bound"],
)
def test_weight_products_take_the_longer_ceiling(bandwidth_tbps, weights_s):
    # micro-batch = weight products + attention (2,048 x 1,610,612,736 / 50e12 = 0.06597 s,
    # never memory-bound here) + element-wise traffic (2,048 x 20,300,800 B at the bandwidth)
    job = job_figures(scenario())
    accelerator = synthetic_accelerator(memory_bandwidth_tbps=bandwidth_tbps)
    seconds = micro_batch_seconds(job, accelerator, 100.0, 0.5, HALF)
    attention_s = 2048 * ATTENTION_FLOPS / 50e12
    elementwise_s = 2048 * 20_300_800 / (bandwidth_tbps * 1e12)
    assert seconds == pytest.approx(weights_s + attention_s + elementwise_s)


def test_without_a_bandwidth_there_is_no_memory_ceiling():
    job = job_figures(scenario())
    seconds = micro_batch_seconds(job, synthetic_accelerator(), 100.0, 0.5, HALF)
    assert seconds == pytest.approx(2048 * TOTAL_FLOPS / 50e12)


@pytest.mark.parametrize(
    ("accelerator", "bound"),
    [
        # 256 tokens: 227.6 FLOP/B. L40S: 362.05 TFLOP/s / 0.864 TB/s = 419 FLOP/B, x 0.63 =
        # 264 > 227.6: memory-bound. H20: 148 / 4.0 = 37 FLOP/B: compute-bound. H100 SXM:
        # 989 / 3.35 = 295, x 0.63 = 186 < 227.6: compute-bound.
        ("l40s-48gb", True),
        ("h20-96gb", False),
        ("h100-sxm-80gb", False),
    ],
)
def test_a_memory_bound_micro_batch_is_said(accelerator, bound):
    s = scenario(**LORA, seq_len=256)
    e = estimate_time(s, ACCELERATORS[accelerator])
    said = [m for m in e.assumptions if m.template.startswith("Matrix work is memory-bound")]
    assert bool(said) is bound
    if bound:
        assert said[0].params["intensity"] == "228"
        assert said[0].render()


def test_the_ceiling_only_slows_and_long_sequences_never_reach_it():
    # On every catalog accelerator, 2,048-token micro-batches are compute-bound (1,024 FLOP/B
    # is above every chip's ratio x the calibrated share), so the time is the compute form.
    job = job_figures(scenario())
    for accelerator in ACCELERATORS.values():
        if not accelerator.memory_bandwidth_tbps or not accelerator.bf16_dense_tflops:
            continue
        peak = accelerator.bf16_dense_tflops
        with_bw = micro_batch_seconds(job, accelerator, peak, 0.63, HALF)
        no_gemm = micro_batch_seconds(
            replace(job, gemm_bytes_per_token=0.0), accelerator, peak, 0.63, HALF
        )
        assert with_bw == pytest.approx(no_gemm)
    short = job_figures(scenario(seq_len=128))
    l40s = ACCELERATORS["l40s-48gb"]
    bound = micro_batch_seconds(short, l40s, l40s.bf16_dense_tflops, 0.63, HALF)
    unbound = micro_batch_seconds(
        replace(short, gemm_bytes_per_token=0.0), l40s, l40s.bf16_dense_tflops, 0.63, HALF
    )
    assert bound > unbound


# --- Routed experts: each sees only its share of the tokens -------------------------------------


def test_expert_products_have_their_own_intensity_hand_computed():
    # The small MoE of test_sizing_mechanisms: 4,096 tokens, 8 experts of width 512, top 2,
    # hidden 1,024. Dense products: 4,096 x 1,024 / (2 x 4,096 + 1,024) = 455.1 FLOP/B.
    # An expert sees 4,096 x 2 / 8 = 1,024 tokens: 1,024 x 1,024 x 512 / (1,024 x 1,024 +
    # 1,024 x 512 + 1,024 x 512) = 256 FLOP/B.
    s = moe()
    assert weight_gemm_intensity(s) == pytest.approx(4096 * 1024 / (2 * 4096 + 1024))
    assert expert_gemm_intensity(s) == pytest.approx(256)
    # Expert parallelism 4: each GPU's experts receive tokens from 4 GPUs: 4,096 per expert,
    # 4,096 x 1,024 x 512 / (4,194,304 + 524,288 + 2,097,152) = 315.08 FLOP/B.
    assert expert_gemm_intensity(moe(ep=4)) == pytest.approx(4096 * 1024 * 512 / 6_815_744)
    # Bytes per token: the routed experts' active share (ROUTED x 2 / 8 = 6,291,456 of the
    # 15,704,064 parameters a token passes through: 35,602,432 - 6/8 x 25,165,824 less the
    # 1,024,000-entry input embedding) of the 6 x 15,704,064 weight FLOPs at 256 FLOP/B, the
    # rest at 455.1: 56,475,648 / 455.11 + 37,748,736 / 256 = 124,092 + 147,456 B.
    job = job_figures(s)
    assert job.flops.matmul_params == pytest.approx(15_704_064)
    routed = 6 * ROUTED * 2 / 8
    assert routed == pytest.approx(37_748_736)
    dense = 6 * 15_704_064 - routed
    expected = dense / (4096 * 1024 / (2 * 4096 + 1024)) + routed / 256
    assert job.gemm_bytes_per_token == pytest.approx(expected)
    assert job.gemm_bytes_per_token == pytest.approx(124_092 + 147_456, rel=1e-5)


def test_dense_models_have_no_expert_intensity():
    assert expert_gemm_intensity(scenario()) == 0


# --- No MoE factor (decision 0056) --------------------------------------------------------------


def test_mixture_of_experts_takes_the_shared_utilisation():
    # The same calibrated share of peak for the small MoE and for Llama 2 7B, on every card.
    for key in ("h100-sxm-80gb", "a800-sxm-80gb", "ascend-910b-64gb"):
        accelerator = ACCELERATORS[key]
        dense = matmul_utilisation(job_figures(scenario()), accelerator, STORED)[0]
        sparse = matmul_utilisation(job_figures(moe()), accelerator, STORED)[0]
        assert sparse == dense == pytest.approx(STORED.utilisation)
