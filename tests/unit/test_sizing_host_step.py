"""Host time by loop type (issue 29 item 6, decision 0072), against hand-worked numbers.

The optimizer step's host calls by loop (foreach, fused, bitsandbytes' per-tensor loop that
waits for the device after every tensor, one optimizer per tensor in the backward pass), the
Trainer's gradient clipping, and the calls per layer and pass under torch.compile; one call
costs the calibrated launch overhead of a layer and pass over 37.
"""

import pytest

from advisor.domain.sizing.calibration import Calibration
from advisor.domain.sizing.compute import (
    estimate_time,
    job_figures,
    micro_batch_parts,
    step_time,
    tokens_per_second,
)
from advisor.domain.sizing.compute.sweep import ThroughputSweep
from advisor.domain.sizing.host_step import (
    host_seconds,
    layer_call_share,
    loop_type,
    optimizer_host_calls,
    trained_tensors,
)
from advisor.domain.sizing.network import links_for
from tests.support.scenarios import LLAMA2_7B_MODEL
from tests.unit.test_compute import ACCELERATORS, LORA, scenario, synthetic_accelerator

LLAMA2_7B_PARAMS = 6_738_415_616
# 0.0037 s per layer and pass over 37 calls: 0.1 ms per call, easy to work by hand.
CAL = Calibration(utilisation=0.5, cases_by_family={"hopper": 1}, layer_pass_overhead_s=0.0037)
CALL_S = 1e-4
TWO_GPUS = {"accelerator": "h100-sxm-80gb", "count": 2, "nodes": 1}


def test_one_call_costs_the_layer_overhead_over_its_37_calls():
    assert host_seconds(16, 0.0037) == pytest.approx(16 * CALL_S)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        # Llama 2 7B full: 32 blocks x (q, k, v, o + gate, up, down + 2 norms) + embedding,
        # final norm and the untied head: 32 x 9 + 3 = 291
        ({}, 291),
        # LoRA on q and v: 32 blocks x 2 matrices x (A, B) = 128
        (LORA, 128),
        # DoRA adds a magnitude vector per adapted matrix: 32 x 2 x 3 = 192
        ({**LORA, "method": "dora"}, 192),
    ],
    ids=["full", "lora-qv", "dora-qv"],
)
def test_trained_tensors(changes, expected):
    assert trained_tensors(scenario(**changes)) == expected


def test_a_mixture_of_experts_counts_every_expert_and_the_router():
    # Llama 2 7B's block with 8 gated experts: 32 x (4 x 4096^2 + 8 x 3 x 4096 x 11008) +
    # 2 x 32000 x 4096 = 37.05 B parameters.
    model = {**LLAMA2_7B_MODEL, "params_b": 37.05, "experts": 8, "experts_per_token": 2}
    moe = scenario(model=model)
    assert moe.model.layout.routed_expert_count == 8 and moe.model.layout.gated_mlp
    # Per block: 4 attention matrices, 8 experts x 3 matrices, the router, 2 norms = 31;
    # 32 x 31 + 3 = 995
    assert trained_tensors(moe) == 32 * 31 + 3


@pytest.mark.parametrize(
    ("changes", "strategy", "expected"),
    [
        ({}, "single", "foreach"),  # PyTorch's default on CUDA
        ({}, "zero2", "fused"),  # DeepSpeed builds FusedAdam
        ({"framework": "megatron"}, "single", "fused"),
        ({"optimizer_impl": "fused"}, "single", "fused"),
        ({"optimizer": "adamw-8bit"}, "single", "bnb"),
        ({"optimizer": "paged-adamw"}, "single", "bnb"),
        ({"optimizer": "sgd"}, "single", None),  # not modelled
        (
            {
                "parallelism": {
                    "strategy": "zero3",
                    "offload": "optimizer",
                    "tensor_parallel": 1,
                    "pipeline_parallel": 1,
                }
            },
            "zero3",
            None,
        ),
    ],
    ids=["foreach", "zero-fused", "megatron", "stated-fused", "8bit", "paged", "sgd", "offload"],
)
def test_loop_type(changes, strategy, expected):
    if "parallelism" in changes:
        changes = {**changes, "hardware": TWO_GPUS}
    assert loop_type(scenario(**changes), strategy) == expected


@pytest.mark.parametrize(
    ("changes", "strategy", "expected"),
    [
        # foreach, framework unstated: 9 calls + the Trainer's clipping 7 = 16
        (LORA, "single", 9 + 7),
        # the same loop under torchtune, which does not clip by default: 9
        ({**LORA, "framework": "torchtune"}, "single", 9),
        # fused under the Hugging Face Trainer: 2 + 7 = 9
        ({**LORA, "framework": "hf", "optimizer_impl": "fused"}, "single", 2 + 7),
        # bitsandbytes 8-bit: 291 tensors x (kernel + synchronize) = 582
        ({"framework": "torchtune", "optimizer": "adamw-8bit"}, "single", 291 * 2),
        # paged: two prefetches more per tensor: 291 x 4 = 1,164
        ({"framework": "torchtune", "optimizer": "paged-adamw"}, "single", 291 * 4),
        # one foreach optimizer per tensor in the backward pass: 291 x 9 = 2,619
        ({"framework": "torchtune", "optimizer_in_backward": True}, "single", 291 * 9),
        # ZeRO: DeepSpeed's flat buffers, 2 groups x fused 2 + clipping 7 = 11
        ({"framework": "hf"}, "zero2", 2 * 2 + 7),
    ],
    ids=["foreach-hf", "foreach-tt", "fused-hf", "8bit", "paged", "in-backward", "zero2"],
)
def test_optimizer_host_calls(changes, strategy, expected):
    assert optimizer_host_calls(scenario(**changes), strategy) == expected


def test_pipeline_stages_split_a_per_tensor_loop():
    s = scenario(framework="torchtune", optimizer="adamw-8bit")
    assert optimizer_host_calls(s, "single", pipeline_parallel=2) == 291 / 2 * 2


def test_the_host_bounds_a_step_over_few_parameters():
    # LoRA q/v, foreach, framework unstated: 16 calls x 0.1 ms = 1.6 ms on the host; its
    # device traffic, 4,194,304 adapter parameters x 14 B / 1 TB/s = 59 us, hides behind it.
    job = job_figures(scenario(**LORA))
    accelerator = synthetic_accelerator(memory_bandwidth_tbps=1.0)
    links = links_for(accelerator, None)
    step = step_time(job, accelerator, 1, "single", links, 100.0, 0.5, CAL)
    assert step.optimizer_s == pytest.approx(16 * CALL_S)


def test_the_device_bounds_a_full_step_when_the_host_issues_ahead():
    # Full fine-tuning, foreach, torchtune: 9 calls = 0.9 ms; device 6,738,415,616 x 14 B /
    # 1 TB/s = 94.3 ms: the longer one counts.
    job = job_figures(scenario(framework="torchtune"))
    accelerator = synthetic_accelerator(memory_bandwidth_tbps=1.0)
    links = links_for(accelerator, None)
    step = step_time(job, accelerator, 1, "single", links, 100.0, 0.5, CAL)
    assert step.optimizer_s == pytest.approx(LLAMA2_7B_PARAMS * 14 / 1e12)


def test_bitsandbytes_adds_host_and_device_time():
    # Paged 8-bit AdamW waits for the device after every tensor: device 6,738,415,616 x 10 B /
    # 1 TB/s = 67.4 ms plus host 291 x 4 calls x 0.1 ms = 116.4 ms: 183.8 ms.
    job = job_figures(scenario(framework="torchtune", optimizer="paged-adamw-8bit"))
    accelerator = synthetic_accelerator(memory_bandwidth_tbps=1.0)
    links = links_for(accelerator, None)
    step = step_time(job, accelerator, 1, "single", links, 100.0, 0.5, CAL)
    expected = LLAMA2_7B_PARAMS * 10 / 1e12 + 291 * 4 * CALL_S
    assert step.optimizer_s == pytest.approx(expected)


def test_torch_compile_makes_13_of_an_eager_layers_37_calls():
    assert layer_call_share(scenario()) == 1.0
    assert layer_call_share(scenario(torch_compile=True)) == pytest.approx(13 / 37)
    accelerator = synthetic_accelerator(memory_bandwidth_tbps=1.0)
    # Launches: 3.7 ms x 32 layers x 3 passes (forward 1, backward 2) = 355.2 ms eager;
    # x 13/37 = 124.8 ms compiled
    eager = micro_batch_parts(job_figures(scenario()), accelerator, 100.0, 0.5, CAL)[3]
    compiled = micro_batch_parts(
        job_figures(scenario(torch_compile=True)), accelerator, 100.0, 0.5, CAL
    )[3]
    assert eager == pytest.approx(0.0037 * 32 * 3)
    assert compiled == pytest.approx(0.0037 * 32 * 3 * 13 / 37)


@pytest.mark.parametrize(
    "changes",
    [
        {"framework": "torchtune", "optimizer": "paged-adamw-8bit"},
        {**LORA, "torch_compile": True},
        {"optimizer_in_backward": True},
    ],
    ids=["bnb", "compiled-lora", "in-backward"],
)
def test_the_sweep_gives_the_fast_paths_answer(changes):
    s = scenario(**changes)
    accelerator = ACCELERATORS["h100-sxm-80gb"]
    sweep = ThroughputSweep(s, cal=CAL)
    for gpus, strategy in ((1, "single"), (8, "ddp"), (8, "zero2"), (8, "fsdp")):
        expected = tokens_per_second(s, accelerator, gpus, strategy=strategy, cal=CAL)
        assert sweep.tokens_per_s(accelerator, gpus, strategy) == pytest.approx(expected)


def test_a_host_bound_optimizer_step_is_said_as_host_calls():
    # Llama 2 7B full, paged 8-bit AdamW under torchtune, 128 tokens a step on one H100: the
    # step's 1,164 host calls (291 tensors x 4) are most of its optimizer time.
    s = scenario(framework="torchtune", optimizer="paged-adamw-8bit", seq_len=128)
    cal = Calibration(utilisation=0.5, cases_by_family={"hopper": 1}, layer_pass_overhead_s=0.0037)
    e = estimate_time(
        s, synthetic_accelerator(memory_bandwidth_tbps=3.35, bf16_dense_tflops=989.0), cal=cal
    )
    said = [m for m in e.assumptions if m.template.startswith("The optimizer step makes")]
    assert said and said[0].params["calls"] == "1,164"
    assert not [m for m in e.assumptions if m.template.startswith("The optimizer step reads")]
