"""The optimizer step on the GPU (issue 29 item 6, decision 0056), against hand-worked numbers.

An AdamW step is element-wise: per trained parameter it reads and writes the weight (the fp32
master under amp-*), reads the gradient, reads and writes both moments, and under amp-* writes
the 16-bit copy; it runs at the memory bandwidth.
"""

import pytest

from advisor.domain.sizing.calibration import Calibration
from advisor.domain.sizing.compute import (
    estimate_time,
    job_figures,
    optimizer_bytes_per_param,
    optimizer_seconds,
    step_time,
)
from advisor.domain.sizing.network import links_for
from tests.unit.test_compute import ADAPTERS_QV_R8, LORA, scenario, synthetic_accelerator

LLAMA2_7B_PARAMS = 6_738_415_616
HALF = Calibration(utilisation=0.5, cases_by_family={"hopper": 1})


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        # amp-bf16 AdamW: master 4 read + 4 written, gradient 2, two fp32 moments 2 x (4 + 4),
        # 16-bit copy 2: 28 bytes
        ({"precision": "amp-bf16"}, 4 + 4 + 2 + 2 * (4 + 4) + 2),
        # pure bf16: 2 + 2 + 2 + 2 x (2 + 2) = 14
        ({}, 14),
        # 8-bit moments: amp 4 + 4 + 2 + 2 x (1 + 1) + 2 = 16; pure bf16 2 + 2 + 2 + 4 = 10
        ({"precision": "amp-bf16", "optimizer": "adamw-8bit"}, 16),
        ({"optimizer": "paged-adamw-8bit"}, 10),
        # SGD with a momentum buffer: 4 + 4 + 2 + (4 + 4) + 2 = 20
        ({"precision": "amp-bf16", "optimizer": "sgd"}, 20),
        # Adafactor's factored second moment is nothing per parameter: 4 + 4 + 2 + 2 = 12
        ({"precision": "amp-bf16", "optimizer": "adafactor"}, 12),
        # pure fp32: 4 + 4 + 4 (fp32 gradient) + 2 x (4 + 4), no 16-bit copy = 28
        ({"precision": "fp32"}, 28),
    ],
    ids=["amp-adamw", "bf16-adamw", "amp-8bit", "bf16-8bit", "amp-sgd", "amp-adafactor", "fp32"],
)
def test_bytes_per_trained_parameter(changes, expected):
    assert optimizer_bytes_per_param(scenario(**changes)) == expected


def test_an_offloaded_optimizer_is_not_on_the_gpu():
    s = scenario(
        parallelism={"strategy": "zero3", "offload": "optimizer"},
        hardware={"accelerator": "h100-sxm-80gb", "count": 2, "nodes": 1},
    )
    assert optimizer_bytes_per_param(s) == 0
    assert job_figures(s).optimizer_bytes_per_param == 0


@pytest.mark.parametrize(
    ("strategy", "data_parallel", "expected_s"),
    [
        # one GPU: 6,738,415,616 x 14 B / 1e12 B/s = 0.094338 s
        ("single", 1, LLAMA2_7B_PARAMS * 14 / 1e12),
        # DDP updates every replica: the same on each of 8 GPUs
        ("ddp", 8, LLAMA2_7B_PARAMS * 14 / 1e12),
        # ZeRO-1/2/3 and FSDP: each GPU updates its 1/8 shard: 0.011792 s
        ("zero1", 8, LLAMA2_7B_PARAMS * 14 / 8 / 1e12),
        ("fsdp", 8, LLAMA2_7B_PARAMS * 14 / 8 / 1e12),
    ],
)
def test_optimizer_seconds_by_strategy(strategy, data_parallel, expected_s):
    job = job_figures(scenario())
    assert optimizer_seconds(job, strategy, data_parallel, 1.0) == pytest.approx(expected_s)
    assert optimizer_seconds(job, strategy, data_parallel, None) == 0


def test_lora_steps_only_its_adapters():
    # 4,194,304 adapter parameters x 14 B / 1e12 B/s = 58.7 microseconds
    job = job_figures(scenario(**LORA))
    assert optimizer_seconds(job, "single", 1, 1.0) == pytest.approx(ADAPTERS_QV_R8 * 14 / 1e12)


def test_the_step_adds_the_optimizer_to_compute():
    job = job_figures(scenario())
    accelerator = synthetic_accelerator(memory_bandwidth_tbps=1.0)
    links = links_for(accelerator, None)
    step = step_time(job, accelerator, 1, "single", links, 100.0, 0.5, HALF)
    assert step.optimizer_s == pytest.approx(LLAMA2_7B_PARAMS * 14 / 1e12)
    assert step.step_s == pytest.approx(step.compute_s + step.optimizer_s)


def test_few_tokens_per_step_say_the_optimizer_share():
    # Llama 2 7B full fine-tuning, 256 tokens a step on one H100: the step is mostly optimizer.
    short = scenario(seq_len=256, precision="amp-bf16")
    e = estimate_time(
        short, synthetic_accelerator(memory_bandwidth_tbps=3.35, bf16_dense_tflops=989.0)
    )
    said = [m for m in e.assumptions if m.template.startswith("The optimizer step reads")]
    assert said and said[0].params["bytes"] == "28"
    long = scenario(seq_len=4096, grad_accum=16, precision="amp-bf16")
    e = estimate_time(
        long, synthetic_accelerator(memory_bandwidth_tbps=3.35, bf16_dense_tflops=989.0)
    )
    assert not [m for m in e.assumptions if m.template.startswith("The optimizer step reads")]
