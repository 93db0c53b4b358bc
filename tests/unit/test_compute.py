"""Time model: FLOPs per token, micro-batch time, communication, tokens/s and time to train.

Hand-computed examples carry their arithmetic in the test; properties cover the catalog.
"""

import copy
import math
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from advisor.domain.hardware import AcceleratorSpec, ServerSpec, load_fixture_specs
from advisor.domain.scenario import STRATEGIES, load_scenario
from advisor.domain.sizing.calibration import STORED, Calibration
from advisor.domain.sizing.compute import (
    ALL_COMPUTE,
    EVERY_BACKWARD,
    LAST_BACKWARD,
    data_parallel_bytes,
    estimate_time,
    flops_per_token,
    job_figures,
    micro_batch_seconds,
    step_traffic,
    tokens_per_second,
)
from advisor.domain.sizing.compute.sweep import ThroughputSweep
from tests.support.scenarios import LLAMA2_7B_MODEL

ROOT = Path(__file__).resolve().parents[2]
ACCELERATORS, SERVERS = load_fixture_specs(ROOT / "fixtures" / "catalog")

# Llama 2 7B: 32 layers, hidden 4096, 32 heads (MHA), SwiGLU 11008, vocab 32000, untied;
# 6,738,415,616 parameters.
LLAMA2_7B = {
    "model": LLAMA2_7B_MODEL,
    "method": "full",
    "lora": None,
    "precision": "bf16",
    "quant_bits": None,
    "optimizer": "adamw",
    "optimizer_in_backward": False,
    "seq_len": 2048,
    "micro_batch": 1,
    "grad_accum": 1,
    "gradient_checkpointing": False,
    "flash_attention": True,
    "packed": True,
    "hardware": {"accelerator": "h100-sxm-80gb", "count": 1, "nodes": 1},
    "parallelism": {
        "strategy": "single",
        "offload": "none",
        "tensor_parallel": 1,
        "pipeline_parallel": 1,
    },
    "training": {"dataset_tokens": None, "epochs": None},
}

# Hand arithmetic shared by the FLOPs table:
MATMUL = 6_738_415_616 - 32_000 * 4096  # input embedding is a lookup: 6,607,343,616
ATTENTION = 32 * 2 * 2048 * 4096  # layers x 2 x seq x q_out (causal): 536,870,912
ADAPTERS_QV_R8 = 32 * 2 * 8 * (4096 + 4096)  # 32 layers x (q, v) x r (d_in + d_out): 4,194,304


def scenario(**changes):
    data = copy.deepcopy(LLAMA2_7B)
    for key, value in changes.items():
        section, _, name = key.partition("__")
        if name:
            data[section][name] = value
        else:
            data[key] = value
    return load_scenario(data)


LORA = {"method": "lora", "lora": {"rank": 8, "alpha": 16, "targets": ["q_proj", "v_proj"]}}


@pytest.mark.parametrize(
    ("changes", "forward", "backward", "recompute"),
    [
        # full: forward 2P + A; backward 2 x (2P) + 2A (activation and weight gradients)
        ({}, 2 * MATMUL + ATTENTION, 4 * MATMUL + 2 * ATTENTION, 0),
        # full + checkpointing: one more forward
        (
            {"gradient_checkpointing": True},
            2 * MATMUL + ATTENTION,
            4 * MATMUL + 2 * ATTENTION,
            2 * MATMUL + ATTENTION,
        ),
        # LoRA: the adapters add 2 x 4,194,304 to the forward; the frozen base needs only the
        # activation gradients (2P); the adapters both halves (2 x their forward)
        (
            LORA,
            2 * MATMUL + ATTENTION + 2 * ADAPTERS_QV_R8,
            2 * MATMUL + 2 * ATTENTION + 4 * ADAPTERS_QV_R8,
            0,
        ),
        # QLoRA computes like LoRA (dequantisation is a utilisation factor, not FLOPs)
        (
            {**LORA, "method": "qlora", "quant_bits": 4},
            2 * MATMUL + ATTENTION + 2 * ADAPTERS_QV_R8,
            2 * MATMUL + 2 * ATTENTION + 4 * ADAPTERS_QV_R8,
            0,
        ),
    ],
    ids=["full", "full+recompute", "lora", "qlora"],
)
def test_flops_per_token_by_method(changes, forward, backward, recompute):
    flops = flops_per_token(scenario(**changes))
    assert flops.forward == pytest.approx(forward)
    assert flops.backward == pytest.approx(backward)
    assert flops.recompute == pytest.approx(recompute)
    assert flops.total == pytest.approx(forward + backward + recompute)


def test_full_fine_tuning_is_about_six_flops_per_parameter():
    # 41,254,674,432 / 6,738,415,616 = 6.12: 6 x P less the embedding lookup plus attention
    assert flops_per_token(scenario()).total / 6.738415616e9 == pytest.approx(6.122, abs=0.001)


def test_lora_is_about_four_flops_per_parameter():
    flops = flops_per_token(scenario(**LORA))
    assert 3.9 < (flops.total - 3 * ATTENTION) / MATMUL < 4.1


def test_attention_grows_with_sequence_length():
    short = flops_per_token(scenario(seq_len=1024)).total
    long = flops_per_token(scenario(seq_len=32768)).total
    # 32 x 2 x (32768 - 1024) x 4096 x 3 passes more attention per token
    assert long - short == pytest.approx(32 * 2 * (32768 - 1024) * 4096 * 3)


def test_mixture_of_experts_uses_active_parameters():
    # Qwen1.5-MoE-A2.7B: 14.3 B in memory, about 2.7 B active per token
    moe = {
        "name": "Qwen1.5-MoE-A2.7B",
        "params_b": 14.315784192,
        "layers": 24,
        "hidden": 2048,
        "heads": 16,
        "kv_heads": 16,
        "intermediate": 1408,
        "vocab": 151936,
        "tied_embeddings": False,
        "experts": 60,
        "experts_per_token": 4,
    }
    flops = flops_per_token(scenario(model=moe))
    # active 2.69 B less the 0.31 B embedding lookup: about 2.38 B multiplied through
    assert flops.matmul_params == pytest.approx(2.38e9, rel=0.02)
    assert flops.total < 6 * 3e9 + 3 * flops.attention_forward


def synthetic_accelerator(**changes) -> AcceleratorSpec:
    base = AcceleratorSpec(
        key="test-gpu",
        maker="Test",
        name="Test GPU",
        architecture="Hopper",
        memory_gb=80,
        memory_bandwidth_tbps=None,
        bf16_dense_tflops=100.0,
        fp8_dense_tflops=None,
        tdp_w=500,
        interconnect_kind="nvlink",
        interconnect_bandwidth_gbs=900,
        software_stack="cuda",
    )
    return replace(base, **changes)


HALF = Calibration(utilisation=0.5, cases_by_family={"hopper": 1})


def test_micro_batch_time_hand_computed():
    # 2048 tokens x 41,254,674,432 FLOP / (100e12 x 0.5) = 1.68979 s; no bandwidth, no overhead
    job = job_figures(scenario())
    seconds = micro_batch_seconds(job, synthetic_accelerator(), 100.0, 0.5, HALF)
    assert seconds == pytest.approx(2048 * 41_254_674_432 / 50e12)


def test_memory_bound_and_launch_terms_hand_computed():
    # elementwise: 50 B x 32 layers x 4096 x 3 passes + 20 B x 32000 vocab = 20,300,800 B/token
    # -> 2048 tokens x 20,300,800 / 1e12 B/s = 0.041576 s; launch: 1 ms x 32 layers x 3 = 0.096 s
    job = job_figures(scenario())
    assert job.elementwise_bytes_per_token == 50 * 32 * 4096 * 3 + 20 * 32000
    cal = replace(HALF, layer_pass_overhead_s=1e-3)
    accelerator = synthetic_accelerator(memory_bandwidth_tbps=1.0)
    seconds = micro_batch_seconds(job, accelerator, 100.0, 0.5, cal)
    expected = 2048 * 41_254_674_432 / 50e12 + 2048 * 20_300_800 / 1e12 + 0.096
    assert seconds == pytest.approx(expected)


@pytest.mark.parametrize(
    ("strategy", "expected_bytes", "timing"),
    [
        # DDP: ring all-reduce of the 16-bit gradients, 2 x 7/8 x P x 2 bytes, once per step
        ("ddp", 2 * 7 / 8 * 6_738_415_616 * 2, "step"),
        ("zero1", 2 * 7 / 8 * 6_738_415_616 * 2, "step"),
        # ZeRO-2: reduce-scatter per micro-batch (grad_accum 1) + all-gather the updated weights
        ("zero2", 7 / 8 * 6_738_415_616 * 2 * 2, "micro-batch"),
        # FSDP: gather the weights twice (forward, backward) + reduce-scatter the gradients
        ("fsdp", 3 * 7 / 8 * 6_738_415_616 * 2, "micro-batch"),
    ],
)
def test_data_parallel_bytes_by_strategy(strategy, expected_bytes, timing):
    sent, when = data_parallel_bytes(job_figures(scenario()), strategy, 8)
    assert sent == pytest.approx(expected_bytes)
    assert when == timing


def test_lora_syncs_only_adapter_gradients():
    sent, _ = data_parallel_bytes(job_figures(scenario(**LORA)), "ddp", 8)
    assert sent == pytest.approx(2 * 7 / 8 * ADAPTERS_QV_R8 * 2)


def test_time_to_train_and_gpu_hours():
    s = scenario(training={"dataset_tokens": 1_000_000_000, "epochs": 2})
    e = estimate_time(s, ACCELERATORS["h100-sxm-80gb"], gpus=8, strategy="ddp")
    assert e.total_tokens == 2e9
    assert e.time_to_train_hours == pytest.approx(2e9 / e.tokens_per_s / 3600)
    assert e.gpu_hours == pytest.approx(e.time_to_train_hours * 8)
    assert e.time_to_train_hours_low < e.time_to_train_hours < e.time_to_train_hours_high
    assert e.tokens_per_s_low < e.tokens_per_s < e.tokens_per_s_high
    # band = stored percentiles of measured / predicted
    assert e.tokens_per_s_low == pytest.approx(e.tokens_per_s * STORED.error_ratio_low)
    assert e.tokens_per_step == 2048 * 8
    assert e.assumptions and all(m.render() for m in e.assumptions)


def test_no_training_size_means_no_time():
    e = estimate_time(scenario(), ACCELERATORS["a100-sxm-80gb"])
    assert e.tokens_per_s > 0
    assert e.time_to_train_hours is None and e.gpu_hours is None


def test_unknown_peak_gives_no_figures_and_says_why():
    e = estimate_time(scenario(), synthetic_accelerator(bf16_dense_tflops=None))
    assert e.tokens_per_s is None and e.step_time_s is None
    assert any("peak" in m.template for m in e.assumptions)


def test_fast_path_agrees_with_the_full_estimate():
    s = scenario(**LORA)
    for key in ("h100-sxm-80gb", "l40s-48gb", "ascend-910b-64gb"):
        accelerator = ACCELERATORS[key]
        full = estimate_time(s, accelerator, gpus=4, strategy="zero2").tokens_per_s
        assert tokens_per_second(s, accelerator, gpus=4, strategy="zero2") == full


def test_catalog_sweep_rates_equal_the_full_estimate_for_every_strategy():
    """The sweep's per-(accelerator, GPU count) table, filled strategy by strategy in any
    order and on a GPU count where the scenario's tensor parallelism is dropped, gives the
    full estimate's tokens/s exactly."""
    s = scenario(
        grad_accum=4,
        parallelism__strategy="zero3",
        parallelism__tensor_parallel=2,
        hardware__count=2,
    )
    sweep = ThroughputSweep(s)
    for key in ("h100-sxm-80gb", "l40s-48gb", "ascend-910b-64gb"):
        accelerator = ACCELERATORS[key]
        for gpus in (1, 3, 8, 16):
            rates = sweep.rates(accelerator, gpus)
            assert sweep.rates(accelerator, gpus) is rates
            for strategy in reversed(STRATEGIES):
                full = estimate_time(s, accelerator, gpus=gpus, strategy=strategy).tokens_per_s
                assert rates[strategy] == full, (key, gpus, strategy)


def test_an_accelerators_tables_by_gpu_count_are_the_sweeps_tables():
    """rates_by_gpus gives the tables rates() gives, read from the largest GPU count down (the
    counts where tensor parallelism is dropped come first), each equal to the single call."""
    s = scenario(grad_accum=4, parallelism__tensor_parallel=2, hardware__count=2)
    sweep = ThroughputSweep(s)
    accelerator = ACCELERATORS["a100-sxm-80gb"]
    by_gpus = sweep.rates_by_gpus(accelerator)
    assert sweep.rates_by_gpus(accelerator) is by_gpus
    for gpus in (16, 9, 3, 2, 1):
        assert by_gpus[gpus] is sweep.rates(accelerator, gpus)
        for strategy in ("ddp", "zero2", "fsdp"):
            expected = tokens_per_second(s, accelerator, gpus, strategy=strategy)
            assert by_gpus[gpus][strategy] == expected, (gpus, strategy)


@pytest.mark.parametrize(
    ("strategy", "gpus", "overlap"),
    [
        ("ddp", 8, LAST_BACKWARD),
        ("zero1", 8, LAST_BACKWARD),
        ("zero2", 8, EVERY_BACKWARD),
        ("zero3", 8, ALL_COMPUTE),
        ("fsdp", 8, ALL_COMPUTE),
        ("fsdp", 1, LAST_BACKWARD),  # nothing to send: the step-end window, as before
    ],
)
def test_the_compute_that_hides_data_parallel_traffic_by_strategy(strategy, gpus, overlap):
    assert step_traffic(job_figures(scenario()), gpus, strategy).overlap == overlap


def test_catalog_sweep_rates_are_none_without_a_peak():
    rates = ThroughputSweep(scenario()).rates(synthetic_accelerator(bf16_dense_tflops=None), 8)
    assert rates["ddp"] is None and rates["zero3"] is None


def test_model_utilisation_is_below_the_calibrated_matrix_share():
    e = estimate_time(scenario(), ACCELERATORS["h100-sxm-80gb"])
    assert 0 < e.model_flops_utilisation < e.matmul_utilisation <= 1


def test_qlora_runs_slower_than_lora_on_the_same_gpu():
    lora = estimate_time(scenario(**LORA), ACCELERATORS["a100-sxm-80gb"]).tokens_per_s
    qlora_scenario = scenario(**{**LORA, "method": "qlora", "quant_bits": 4})
    qlora = estimate_time(qlora_scenario, ACCELERATORS["a100-sxm-80gb"]).tokens_per_s
    assert qlora < lora


def test_a_family_without_a_measured_run_takes_the_shared_utilisation_and_says_so():
    e = estimate_time(scenario(), ACCELERATORS["b200-sxm-180gb"])
    assert not e.calibrated_family
    assert e.matmul_utilisation == pytest.approx(STORED.utilisation)
    measured = estimate_time(scenario(), ACCELERATORS["h100-sxm-80gb"])
    assert measured.calibrated_family
    assert measured.matmul_utilisation == pytest.approx(STORED.utilisation)
    assert any("No published measured run" in m.template for m in e.assumptions)


# --- Interconnect properties ------------------------------------------------------------------

HGX = {key: s for key, s in SERVERS.items() if s.topology == "nvswitch"}


@pytest.mark.parametrize("server_key", sorted(HGX))
@pytest.mark.parametrize("strategy", ["ddp", "zero1", "zero2", "zero3", "fsdp"])
@pytest.mark.parametrize("method", ["full", "lora"])
def test_more_gpus_never_lower_job_tokens_per_s_in_one_nvswitch_server(
    server_key, strategy, method
):
    server = HGX[server_key]
    s = scenario(**(LORA if method == "lora" else {}))
    accelerator = ACCELERATORS[server.accelerator_key]
    rates = [
        tokens_per_second(s, accelerator, gpus=n, server=server, strategy=strategy)
        for n in range(1, server.gpu_count + 1)
    ]
    assert all(b >= a for a, b in zip(rates, rates[1:], strict=False)), rates


def pcie_twin(server: ServerSpec) -> ServerSpec:
    """The same server with its GPUs behind a PCIe 4.0 switch (64 GB/s both ways)."""
    return replace(server, key="pcie-twin", topology="pcie-switch", intra_node_bandwidth_gbs=64)


@pytest.mark.parametrize("strategy", ["ddp", "zero2", "fsdp"])
def test_pcie_costs_more_than_nvswitch_for_full_fine_tuning(strategy):
    server = SERVERS["dgx-h100"]
    accelerator = ACCELERATORS["h100-sxm-80gb"]
    s = scenario(micro_batch=2, grad_accum=4)
    nvswitch = estimate_time(s, accelerator, gpus=8, server=server, strategy=strategy)
    pcie = estimate_time(s, accelerator, gpus=8, server=pcie_twin(server), strategy=strategy)
    assert pcie.tokens_per_s < nvswitch.tokens_per_s
    penalty_pcie = 1 - pcie.tokens_per_s / nvswitch.tokens_per_s
    assert penalty_pcie > 0
    assert pcie.communication.data_parallel_s > 10 * nvswitch.communication.data_parallel_s


def test_lora_tolerates_pcie_far_better_than_full_fine_tuning():
    server = SERVERS["dgx-h100"]
    accelerator = ACCELERATORS["h100-sxm-80gb"]

    def penalty(s):
        fast = tokens_per_second(s, accelerator, gpus=8, server=server, strategy="ddp")
        slow = tokens_per_second(s, accelerator, gpus=8, server=pcie_twin(server), strategy="ddp")
        return 1 - slow / fast

    assert penalty(scenario(**LORA)) < penalty(scenario()) / 10


def test_crossing_servers_is_slower_than_staying_inside_one():
    server = SERVERS["dgx-h100"]
    accelerator = ACCELERATORS["h100-sxm-80gb"]
    s = scenario()
    inside = estimate_time(s, accelerator, gpus=8, server=server, strategy="fsdp")
    across = estimate_time(s, accelerator, gpus=16, server=server, strategy="fsdp")
    assert across.servers == 2
    assert across.communication.data_parallel_gbs < inside.communication.data_parallel_gbs
    assert across.tokens_per_s / 16 < inside.tokens_per_s / 8


def test_tensor_parallel_traffic_is_on_the_critical_path():
    s = scenario(
        parallelism={**LLAMA2_7B["parallelism"], "tensor_parallel": 8},
        hardware={"accelerator": "h100-sxm-80gb", "count": 8, "nodes": 1},
    )
    e = estimate_time(s, ACCELERATORS["h100-sxm-80gb"])
    # 2 x 7/8 x (2048 x 4096 x 2 bytes) x 4 all-reduces x 32 layers / 360 GB/s
    expected = 2 * 7 / 8 * 2048 * 4096 * 2 * 4 * 32 / 360e9
    assert e.communication.tensor_parallel_s == pytest.approx(expected)


def test_offload_adds_host_time():
    s = scenario(parallelism={**LLAMA2_7B["parallelism"], "offload": "optimizer"})
    without = estimate_time(scenario(), ACCELERATORS["a100-sxm-80gb"])
    with_offload = estimate_time(s, ACCELERATORS["a100-sxm-80gb"])
    # gradients out and weights in over PCIe (2 x 2 bytes x P at 25.6 GB/s) and a 14-byte
    # Adam step per parameter at 120 GB/s on the host
    expected = 4 * 6_738_415_616 / 25.6e9 + 14 * 6_738_415_616 / 120e9
    assert with_offload.communication.offload_s == pytest.approx(expected)
    assert with_offload.tokens_per_s < without.tokens_per_s


def test_pipeline_bubble():
    parallel = {**LLAMA2_7B["parallelism"], "pipeline_parallel": 4}
    hardware = {"accelerator": "h100-sxm-80gb", "count": 4, "nodes": 1}
    e = estimate_time(
        scenario(parallelism=parallel, hardware=hardware, grad_accum=8, framework="megatron"),
        ACCELERATORS["h100-sxm-80gb"],
    )
    # 8 micro-batches through 4 stages take 8 + 4 - 1 = 11 slots
    assert e.compute_s_per_step == pytest.approx(11 * e.micro_batch_s)
    # Framework unstated, stages without data parallelism: a device_map split, one micro-batch
    # through the stages at a time: 8 x 4 = 32 slots of one stage's time.
    split = estimate_time(
        scenario(parallelism=parallel, hardware=hardware, grad_accum=8),
        ACCELERATORS["h100-sxm-80gb"],
    )
    assert split.compute_s_per_step == pytest.approx(32 * split.micro_batch_s)


def test_unknown_strategy_is_refused():
    with pytest.raises(ValueError, match="strategy"):
        estimate_time(scenario(), ACCELERATORS["h100-sxm-80gb"], strategy="magic")


# --- No negative or NaN figure for any valid input ----------------------------------------------

ACCELERATOR_KEYS = sorted(ACCELERATORS)


@settings(max_examples=150, deadline=None)
@given(
    key=st.sampled_from(ACCELERATOR_KEYS),
    method=st.sampled_from(["full", "lora", "qlora", "dora", "freeze"]),
    precision=st.sampled_from(["bf16", "fp16", "fp32", "amp-bf16", "amp-fp16"]),
    seq_len=st.integers(1, 131_072),
    micro_batch=st.integers(1, 64),
    grad_accum=st.integers(1, 256),
    gpus=st.integers(1, 64),
    strategy=st.sampled_from(STRATEGIES),
    offload=st.sampled_from(["none", "optimizer", "optimizer+params"]),
    checkpointing=st.sampled_from([True, False, None]),
    tokens=st.one_of(st.none(), st.integers(1, 10**13)),
)
def test_no_negative_or_nan_figure(
    key,
    method,
    precision,
    seq_len,
    micro_batch,
    grad_accum,
    gpus,
    strategy,
    offload,
    checkpointing,
    tokens,
):
    assume(not (method == "qlora" and precision == "fp32"))  # refused, as the wizard refuses it
    changes = {
        "method": method,
        "precision": precision,
        "seq_len": seq_len,
        "micro_batch": micro_batch,
        "grad_accum": grad_accum,
        "gradient_checkpointing": checkpointing,
        "parallelism": {**LLAMA2_7B["parallelism"], "offload": offload},
        "training": {"dataset_tokens": tokens, "epochs": 1 if tokens else None},
    }
    if method in ("lora", "qlora", "dora"):
        changes["lora"] = {"rank": 16, "alpha": 32, "targets": "all-linear"}
    if method == "qlora":
        changes["quant_bits"] = 4
    e = estimate_time(scenario(**changes), ACCELERATORS[key], gpus=gpus, strategy=strategy)
    numbers = [
        e.flops_per_token,
        e.tokens_per_step,
        e.tokens_per_s,
        e.step_time_s,
        e.compute_s_per_step,
        e.micro_batch_s,
        e.model_flops_utilisation,
        e.time_to_train_hours,
        e.gpu_hours,
        e.tokens_per_s_low,
        e.tokens_per_s_high,
    ]
    if e.communication is not None:
        numbers += [
            e.communication.data_parallel_s,
            e.communication.data_parallel_exposed_s,
            e.communication.tensor_parallel_s,
            e.communication.offload_s,
        ]
    for value in numbers:
        if value is not None:
            assert math.isfinite(value) and value >= 0, numbers
    if e.tokens_per_s is not None:
        assert e.tokens_per_s > 0 and e.model_flops_utilisation <= 1


def test_a_device_map_layer_split_runs_micro_batches_one_after_another():
    parallel = {**LLAMA2_7B["parallelism"], "pipeline_parallel": 4}
    hardware = {"accelerator": "h100-sxm-80gb", "count": 4, "nodes": 1}
    split = scenario(parallelism=parallel, hardware=hardware, grad_accum=8, framework="hf")
    e = estimate_time(split, ACCELERATORS["h100-sxm-80gb"])
    # Each of the 8 micro-batches passes the 4 stages in turn: 32 stage slots, no overlap.
    assert e.compute_s_per_step == pytest.approx(32 * e.micro_batch_s)
    megatron = estimate_time(replace(split, framework="megatron"), ACCELERATORS["h100-sxm-80gb"])
    assert megatron.compute_s_per_step == pytest.approx(11 * megatron.micro_batch_s)


# --- QLoRA dequantisation per micro-batch (issue 15) -------------------------------------------

QLORA = {**LORA, "method": "qlora", "quant_bits": 4}


def test_qlora_dequantisation_is_memory_traffic_per_micro_batch_hand_computed():
    # Quantised: every block matrix = 6,738,415,616 - 2 x 32,000 x 4,096 (embedding and 16-bit
    # head) = 6,476,271,616 weights; per weight and pass 0.5 B (NF4) + 0.0625 B (block constant)
    # read, 2 B written, 2 B read by the matmul = 4.5625 B; forward + backward = 2 passes:
    # 59,095,978,496 B per micro-batch; at 1 TB/s 0.0590960 s, whatever the micro-batch size.
    job = job_figures(scenario(**QLORA))
    quantised = 6_738_415_616 - 2 * 32_000 * 4096
    assert job.dequant_bytes_per_micro_batch == pytest.approx(quantised * 4.5625 * 2)
    assert job.dequant_bytes_per_micro_batch == pytest.approx(59_095_978_496)
    accelerator = synthetic_accelerator(memory_bandwidth_tbps=1.0)
    lora = micro_batch_seconds(job_figures(scenario(**LORA)), accelerator, 100.0, 0.5, HALF)
    qlora = micro_batch_seconds(job, accelerator, 100.0, 0.5, HALF)
    # Same FLOPs as LoRA; the difference is the dequantisation alone.
    assert qlora - lora == pytest.approx(59_095_978_496 / 1e12)
    # With recomputation the frozen base is dequantised a third time.
    recomputed = job_figures(scenario(**QLORA, gradient_checkpointing=True))
    assert recomputed.dequant_bytes_per_micro_batch == pytest.approx(quantised * 4.5625 * 3)


def test_larger_micro_batches_amortise_the_dequantisation():
    accelerator = ACCELERATORS["a100-sxm-80gb"]
    small, large = (estimate_time(scenario(**QLORA, micro_batch=mb), accelerator) for mb in (1, 8))
    lora_small, lora_large = (
        estimate_time(scenario(**LORA, micro_batch=mb), accelerator) for mb in (1, 8)
    )
    gap_small = 1 - small.tokens_per_s / lora_small.tokens_per_s
    gap_large = 1 - large.tokens_per_s / lora_large.tokens_per_s
    assert 0 < gap_large < gap_small
    assert job_figures(scenario(**LORA)).dequant_bytes_per_micro_batch == 0


# --- Real tokens: unpacked samples at their stated average length (issue 15) -------------------


def test_unpacked_samples_are_timed_at_their_average_length_hand_computed():
    # Llama 2 7B, 2,048-token limit, samples of 512 tokens on average, not packed: a micro-batch
    # holds 512 real tokens and attention costs 2 x 512 x 4096 x 32 layers per token forward.
    short = scenario(packed=False, avg_tokens_per_sample=512)
    job = job_figures(short)
    assert job.tokens_per_micro_batch == 512
    assert job.flops.attention_forward == 32 * 2 * 512 * 4096
    assert job_figures(scenario(packed=False, avg_tokens_per_sample=512, seq_len=512)).flops == (
        job.flops
    )
    # Packed data fills seq_len whatever the average; an average above seq_len is truncated.
    assert (
        job_figures(scenario(packed=True, avg_tokens_per_sample=512)).tokens_per_micro_batch == 2048
    )
    assert (
        job_figures(scenario(packed=False, avg_tokens_per_sample=9000)).tokens_per_micro_batch
        == 2048
    )
    # Time to train the same real tokens: per micro-batch the launch overhead is the same
    # whatever its length, so 512-token samples train fewer real tokens per second than full
    # 2,048-token ones (the time at seq_len would be too short), and the assumptions say which
    # length was used.
    accelerator = ACCELERATORS["h100-sxm-80gb"]
    training = {"dataset_tokens": 10_000_000, "epochs": 1}
    at_limit = estimate_time(scenario(packed=False, training=training), accelerator)
    at_average = estimate_time(
        scenario(packed=False, avg_tokens_per_sample=512, training=training), accelerator
    )
    assert at_average.tokens_per_s < at_limit.tokens_per_s
    assert at_average.time_to_train_hours > at_limit.time_to_train_hours
    assert at_average.time_to_train_hours == pytest.approx(
        10_000_000 / at_average.tokens_per_s / 3600
    )
    assert any("Samples average" in m.template for m in at_average.assumptions)


def test_memory_keeps_the_longest_batch_when_an_average_is_stated():
    from advisor.domain.sizing.memory import estimate_memory

    plain = estimate_memory(scenario(packed=False))
    average = estimate_memory(scenario(packed=False, avg_tokens_per_sample=512))
    assert average.total == pytest.approx(plain.total)
