"""Memory model: each component against hand-computed byte counts, regime by regime."""

import copy

import pytest

from advisor.domain.hardware import AcceleratorSpec
from advisor.domain.scenario import load_scenario
from advisor.domain.sizing import memory as memory_module
from advisor.domain.sizing.memory import (
    GIB,
    HOST_PROCESS_GIB,
    Layout,
    MemoryModel,
    context_gib,
    layout_of,
    memory_assumptions,
    plannable_capacity_gib,
    usable_capacity_gib,
)
from advisor.domain.sizing.memory.frameworks import HEAVIER_TRAITS

P = 8.030261e9  # Llama 3.1 8B
LLAMA_8B = {
    "model": {
        "name": "Llama 3.1 8B",
        "params_b": 8.030261,
        "layers": 32,
        "hidden": 4096,
        "heads": 32,
        "kv_heads": 8,
        "intermediate": 14336,
        "vocab": 128256,
        "tied_embeddings": False,
        "experts": None,
        "experts_per_token": None,
    },
    "method": "full",
    "lora": None,
    "precision": "bf16",
    "quant_bits": None,
    "optimizer": "adamw",
    "optimizer_in_backward": False,
    "seq_len": 2048,
    "micro_batch": 1,
    # Two micro-batches per step and a fused AdamW: every gradient is alive when the backward
    # pass starts and the step has no temporary, so the backward pass is the peak and the
    # breakdown shows the activations and logits these tests work out (issue 29's gradient
    # lifetime and foreach step are tested in test_sizing_third_pass.py).
    "grad_accum": 2,
    "gradient_checkpointing": True,
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
    "optimizer_impl": "fused",
}


def scenario(**changes):
    data = copy.deepcopy(LLAMA_8B)
    for path, value in changes.items():
        target = data
        *parents, last = path.split("__")
        for key in parents:
            target = target[key]
        target[last] = value
    if data["optimizer"] != "adamw":
        data.pop("optimizer_impl")  # an implementation only AdamW has
    return load_scenario(data)


def memory(s, layout=None):
    return MemoryModel(s).per_gpu(layout or layout_of(s), context=0.0)


def spec(key, memory_gb, stack="cuda"):
    return AcceleratorSpec(
        key=key,
        maker="x",
        name=key,
        architecture="x",
        memory_gb=memory_gb,
        memory_bandwidth_tbps=None,
        bf16_dense_tflops=None,
        fp8_dense_tflops=None,
        tdp_w=None,
        interconnect_kind="nvlink",
        interconnect_bandwidth_gbs=None,
        software_stack=stack,
    )


# --- model states by precision and optimizer (bytes per trained parameter) ---------------

STATE_CASES = [
    # precision, optimizer, weights, master, gradients, optimizer states (bytes/param)
    ("bf16", "adamw", 2, 0, 2, 4),  # pure bf16: 2 + 2 + 2x2
    ("fp32", "adamw", 4, 0, 4, 8),  # fp32 throughout: 4 + 4 + 2x4
    ("amp-bf16", "adamw", 2, 4, 4, 8),  # 16-bit copy, fp32 master and gradients, fp32 moments
    ("amp-fp16", "adamw", 2, 4, 4, 8),
    ("bf16", "adamw-8bit", 2, 0, 2, 2),  # bitsandbytes 8-bit: one byte per moment
    ("bf16", "sgd", 2, 0, 2, 2),  # one momentum buffer in the parameter dtype
]


@pytest.mark.parametrize(("precision", "optimizer", "w", "m", "g", "o"), STATE_CASES)
def test_full_fine_tuning_model_states(precision, optimizer, w, m, g, o):
    result = memory(scenario(precision=precision, optimizer=optimizer))
    assert result.frozen_weights == 0
    assert result.trainable_weights == pytest.approx(P * w / GIB)
    assert result.master_weights == pytest.approx(P * m / GIB)
    assert result.gradients == pytest.approx(P * g / GIB)
    assert result.optimizer_states == pytest.approx(P * o / GIB)


@pytest.mark.parametrize(
    ("strategy", "weights_div", "backward_grads", "step_grads", "optimizer_div"),
    [
        # bytes per parameter of gradients in the backward pass, and added at the step
        ("ddp", 1, 4, 0, 1),
        ("zero1", 1, 4, 4 / 8, 8),  # full fp32 gradients; fp32 partition copy at the step
        ("zero2", 1, 2 / 8, 4 / 8, 8),  # 16-bit partition; fp32 partition copy at the step
        ("zero3", 8, 2 / 8, 4 / 8, 8),
        ("fsdp", 8, 4 / 8, 0, 8),  # sharded fp32 gradients
    ],
)
def test_sharding_divides_the_right_states_by_the_data_parallel_degree(
    strategy, weights_div, backward_grads, step_grads, optimizer_div
):
    s = scenario(precision="amp-bf16", hardware__count=8, parallelism__strategy=strategy)
    result = memory(s)
    assert result.trainable_weights == pytest.approx(P * 2 / weights_div / GIB)
    assert result.master_weights == pytest.approx(P * 4 / optimizer_div / GIB)
    grads = backward_grads + (step_grads if result.peak_at_optimizer_step else 0)
    assert result.gradients == pytest.approx(P * grads / GIB)
    assert result.optimizer_states == pytest.approx(P * 8 / optimizer_div / GIB)


def test_the_peak_is_the_optimizer_step_when_its_fp32_gradients_outweigh_activations():
    short = memory(
        scenario(
            precision="amp-bf16", hardware__count=8, seq_len=256, parallelism__strategy="zero2"
        )
    )
    long = memory(
        scenario(
            precision="amp-bf16", hardware__count=8, seq_len=16384, parallelism__strategy="zero2"
        )
    )
    assert short.peak_at_optimizer_step and short.activations == short.logits == 0
    assert not long.peak_at_optimizer_step and long.logits > 0


def test_tensor_parallel_divides_weights_and_activations():
    single = scenario(hardware__count=1)
    tp4 = scenario(hardware__count=4, parallelism__tensor_parallel=4)
    a, b = memory(single), memory(tp4)
    assert b.trainable_weights == pytest.approx(a.trainable_weights / 4)
    assert b.logits == pytest.approx(a.logits / 4)
    assert b.activations == pytest.approx(a.activations / 4)


def test_lora_freezes_the_base_in_16_bits_and_trains_fp32_adapters():
    s = scenario(method="lora", lora={"rank": 8, "alpha": 16, "targets": ["q_proj", "v_proj"]})
    adapters = 8 * (8192 + 5120) * 32
    result = memory(s)
    assert result.frozen_weights == pytest.approx(P * 2 / GIB)
    assert result.trainable_weights == pytest.approx(adapters * 4 / GIB)
    assert result.gradients == pytest.approx(adapters * 4 / GIB)
    assert result.optimizer_states == pytest.approx(adapters * 8 / GIB)


def test_qlora_quantises_the_block_linears_only():
    # torchtune keeps the rest in 16 bits (no PEFT k-bit preparation, test_sizing_third_pass;
    # LitGPT quantises the output layer too).
    s = scenario(
        method="qlora",
        quant_bits=4,
        framework="torchtune",
        lora={"rank": 8, "alpha": 16, "targets": None},
    )
    blocks = 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336)
    embeddings = s.model.layout.embedding_params  # input embedding and output head, in bf16
    unplaced = P - blocks - embeddings  # norms: at the quantised neighbours' width (0139)
    expected = blocks * 4.5 / 8 + embeddings * 2 + unplaced * 4.5 / 8
    assert memory(s).frozen_weights == pytest.approx(expected / GIB)


def test_optimizer_in_backward_keeps_only_the_largest_gradient():
    result = memory(scenario(optimizer_in_backward=True))
    assert result.gradients == pytest.approx(128256 * 4096 * 2 / GIB)  # the embedding's


def test_paged_optimizer_states_leave_the_gpu_total_and_go_to_host_ram():
    plain = memory(scenario(optimizer="adamw-8bit"))
    paged = memory(scenario(optimizer="paged-adamw-8bit"))
    assert paged.optimizer_states == 0
    assert paged.paged_optimizer_gib == pytest.approx(plain.optimizer_states)
    assert paged.host_ram_per_gpu_gib > plain.host_ram_per_gpu_gib


def test_cpu_offload_moves_optimizer_and_master_to_host():
    s = scenario(precision="amp-bf16", hardware__count=8, parallelism__strategy="zero3")
    on_gpu = memory(s)
    offloaded = memory(s, Layout(8, "zero3", "optimizer"))
    both = memory(s, Layout(8, "zero3", "optimizer+params"))
    assert offloaded.optimizer_states == offloaded.master_weights == 0
    assert offloaded.total < on_gpu.total
    assert both.trainable_weights == both.gradients == 0
    assert both.total < offloaded.total
    host_states = P * (8 + 4 + 4) / 8 / GIB  # moments, master, fp32 gradient per GPU
    assert offloaded.host_ram_per_gpu_gib > host_states + HOST_PROCESS_GIB


def test_logits_are_tokens_times_vocabulary_times_twelve_bytes():
    s = scenario(micro_batch=2, seq_len=4096)
    assert memory(s).logits == pytest.approx(2 * 4096 * 128256 * 12 / GIB)


def test_chunked_loss_keeps_the_16_bit_logits_and_each_chunks_fp32_log_softmax():
    # Eager: the 16-bit chunks and every chunk's saved fp32 log-softmax; the gradient exists
    # one chunk at a time (each chunk has its own output projection).
    s = scenario(micro_batch=2, seq_len=4096, loss_chunking=True)
    assert memory(s).logits == pytest.approx(2 * 4096 * 128256 * (2 + 4) / GIB)
    # Not stated is the heavier reading, the same as false.
    unstated = memory(scenario(micro_batch=2, seq_len=4096, loss_chunking=None))
    whole = memory(scenario(micro_batch=2, seq_len=4096, loss_chunking=False))
    assert unstated.logits == whole.logits > memory(s).logits


def test_checkpointing_keeps_one_hidden_state_per_block():
    with_ckpt = memory(scenario(gradient_checkpointing=True, seq_len=8192))
    without = memory(scenario(gradient_checkpointing=False, seq_len=8192))
    assert with_ckpt.activations < without.activations / 5
    # 32 checkpoints of 4096 bf16 values per token, at least.
    assert with_ckpt.activations >= 8192 * 32 * 4096 * 2 / GIB


def test_eager_attention_adds_the_quadratic_score_matrix():
    flash = memory(scenario(flash_attention=True, gradient_checkpointing=False, seq_len=4096))
    eager = memory(scenario(flash_attention=False, gradient_checkpointing=False, seq_len=4096))
    # heads x s x s x (fp32 softmax output + its 16-bit cast) x layers
    scores = 32 * 4096 * 4096 * (4 + 2) * 32
    assert eager.activations - flash.activations == pytest.approx(scores / GIB, rel=0.1)


def test_unknown_switches_take_the_memory_heavier_side():
    unknown = memory(scenario(flash_attention=None, gradient_checkpointing=None))
    known = memory(scenario(flash_attention=True, gradient_checkpointing=True))
    assert unknown.activations > known.activations


def test_moe_keeps_every_expert_resident():
    moe = scenario(
        model={
            "name": "Mixtral 8x7B",
            "params_b": 46.702792,
            "layers": 32,
            "hidden": 4096,
            "heads": 32,
            "kv_heads": 8,
            "intermediate": 14336,
            "vocab": 32000,
            "tied_embeddings": False,
            "experts": 8,
            "experts_per_token": 2,
        },
        method="lora",
        lora={"rank": 8, "alpha": 16, "targets": "attention"},
    )
    assert memory(moe).frozen_weights == pytest.approx(46.702792e9 * 2 / GIB)


def test_total_is_the_sum_of_components():
    result = MemoryModel(scenario()).per_gpu(layout_of(scenario()), context=1.25)
    parts = result.components()
    total = parts.pop("total")
    assert total == pytest.approx(sum(parts.values()))
    assert result.allocated < result.reserved < result.total


@pytest.mark.parametrize(
    ("key", "memory_gb", "stack", "usable"),
    [
        ("h100-sxm-80gb", 80, "cuda", 79.2),  # PyTorch reports about 79.1-79.3 GiB
        ("a10g-24gb", 24, "cuda", 22.26),  # GDDR6 with ECC on: 1/16 less
        ("rtx-4090-24gb", 24, "cuda", 23.76),
        ("ascend-910b-64gb", 64, "cann", 63.36),
    ],
)
def test_usable_capacity(key, memory_gb, stack, usable):
    accelerator = spec(key, memory_gb, stack)
    assert usable_capacity_gib(accelerator) == pytest.approx(usable, abs=0.01)
    assert plannable_capacity_gib(accelerator) < usable_capacity_gib(accelerator)


def test_context_adds_collective_buffers_on_several_gpus():
    h100 = spec("h100-sxm-80gb", 80)
    assert context_gib(h100, 8) > context_gib(h100, 1) > 0
    assert context_gib(spec("ascend-910b-64gb", 64, "cann"), 1) > context_gib(h100, 1)


def test_largest_micro_batch_and_sequence_are_the_edge_of_fitting():
    s = scenario(method="lora", lora={"rank": 8, "alpha": 16, "targets": None})
    model = MemoryModel(s)
    layout = layout_of(s)
    capacity = 40.0
    best = model.max_micro_batch(layout, capacity, 1.0)
    assert best >= 1
    assert model.total_gib(layout, 1.0, micro_batch=best) <= capacity
    assert model.total_gib(layout, 1.0, micro_batch=best + 1) > capacity
    longest = model.max_seq_len(layout, capacity, 1.0)
    assert model.total_gib(layout, 1.0, seq_len=longest) <= capacity
    assert model.total_gib(layout, 1.0, seq_len=longest + 1) > capacity
    assert model.max_micro_batch(layout, 10.0, 1.0) == 0  # the weights alone exceed 10 GiB


def test_fast_total_matches_the_breakdown():
    s = scenario(precision="amp-bf16", hardware__count=8, parallelism__strategy="zero2")
    model = MemoryModel(s)
    for layout in (layout_of(s), Layout(8, "fsdp", "none"), Layout(8, "zero3", "optimizer")):
        assert model.total_gib(layout, 1.25) == pytest.approx(
            model.per_gpu(layout, context=1.25).total
        )


# --- The training framework (optional scenario field) ----------------------------------------

LORA_8B = {
    "method": "lora",
    "lora": {"rank": 16, "alpha": 32, "targets": "all-linear"},
}


def lora_scenario(**changes):
    return scenario(**LORA_8B, **changes)


def test_unstated_framework_counts_the_heavier_behaviour_of_each():
    unstated = memory(lora_scenario())
    for framework in ("hf", "torchtune", "litgpt", "megatron"):
        stated = memory(lora_scenario(framework=framework))
        assert stated.total <= unstated.total, framework


@pytest.mark.parametrize(
    ("framework", "adapter_bytes"),
    [(None, 4), ("hf", 4), ("torchtune", 2), ("litgpt", 2), ("megatron", 2)],
)
def test_adapters_follow_the_frameworks_dtype(framework, adapter_bytes):
    s = lora_scenario(framework=framework)
    model = MemoryModel(s)
    result = memory(s)
    # Weights, gradients and two AdamW moments, all in the adapters' dtype (pure bf16 run).
    assert result.trainable_weights * GIB == pytest.approx(model.trained_params * adapter_bytes)
    assert result.optimizer_states * GIB == pytest.approx(2 * model.trained_params * adapter_bytes)


@pytest.mark.parametrize(
    ("framework", "chunking", "bytes_per_logit"),
    [
        (None, None, 12),
        ("hf", None, 12),
        ("torchtune", None, 6),  # torchtune recipes: CEWithChunkedOutputLoss (eager)
        ("torchtune", False, 12),  # stated wins over the framework's default
        ("hf", True, 6),
    ],
)
def test_loss_chunking_defaults_to_the_frameworks_recipes(framework, chunking, bytes_per_logit):
    s = scenario(framework=framework, loss_chunking=chunking, seq_len=4096, micro_batch=2)
    assert memory(s).logits * GIB == pytest.approx(2 * 4096 * 128256 * bytes_per_logit)


@pytest.mark.parametrize(
    ("framework", "widest"),
    [
        (None, 14336 * 4096),  # the most used stack (hf); LitGPT's reading only in the band
        ("litgpt", 128256 * 4096),
        ("hf", 14336 * 4096),  # bitsandbytes through Transformers leaves lm_head in 16 bits
        ("torchtune", 14336 * 4096),
    ],
)
def test_qlora_work_buffer_is_sized_for_the_largest_quantised_matrix(framework, widest):
    s = scenario(
        method="qlora",
        lora={"rank": 8, "alpha": 16, "targets": "all-linear"},
        quant_bits=4,
        framework=framework,
    )
    # The widest copy; it counts at the peak beside what it meets (test_sizing_fourth_pass).
    assert MemoryModel(s).dequant_bytes == pytest.approx(2 * widest * 2)
    if framework is None:  # the heavier reading (the output layer quantised) is kept aside
        heavier = MemoryModel(s, traits=HEAVIER_TRAITS)
        assert heavier.dequant_bytes == pytest.approx(2 * 128256 * 4096 * 2)


def pipeline(framework):
    return scenario(
        **LORA_8B,
        framework=framework,
        gradient_checkpointing=False,
        grad_accum=8,
        hardware={"accelerator": "a100-sxm-80gb", "count": 4, "nodes": 1},
        parallelism={
            "strategy": "single",
            "offload": "none",
            "tensor_parallel": 1,
            "pipeline_parallel": 4,
        },
    )


def test_a_device_map_layer_split_keeps_one_micro_batch_in_flight():
    naive = memory(pipeline("hf")).activations
    one_f_one_b = memory(pipeline("megatron")).activations
    # 1F1B keeps up to one micro-batch per stage (4) on the first stage; a layer split one.
    assert one_f_one_b == pytest.approx(4 * naive, rel=0.02)
    # Unstated, stages without data parallelism ("single") are the format's device_map split.
    assert memory(pipeline(None)).activations == pytest.approx(naive)


def zero3(framework, gpus=8, offload="none", **changes):
    return lora_scenario(
        **changes,
        framework=framework,
        hardware={"accelerator": "a100-sxm-80gb", "count": gpus, "nodes": 1},
        parallelism={
            "strategy": "zero3",
            "offload": offload,
            "tensor_parallel": 1,
            "pipeline_parallel": 1,
        },
    )


def test_whole_model_loaded_before_zero3_sets_the_peak_when_it_fits():
    s = zero3("hf")
    model = MemoryModel(s)
    whole = model.whole_load_bytes(layout_of(s)) / GIB
    # The 16-bit base and the fp32 adapters (PEFT adds them before DeepSpeed partitions).
    assert whole == pytest.approx((P * 2 + model.trained_params * 4) / GIB)
    loaded = MemoryModel(s).per_gpu(layout_of(s), context=1.0, capacity=75.0)
    assert loaded.peak_at_model_load
    assert loaded.total == pytest.approx(whole * 1.05 + 1.0, rel=1e-6)
    assert loaded.frozen_weights + loaded.trainable_weights == pytest.approx(whole)
    # The sharded training peak is what is left when nothing says the load fits.
    trained = MemoryModel(s).per_gpu(layout_of(s), context=1.0)
    assert not trained.peak_at_model_load and trained.total < loaded.total


@pytest.mark.parametrize(
    ("case", "capacity"),
    [
        (zero3("torchtune"), 75.0),  # builds the model sharded
        (zero3("megatron"), 75.0),
        (zero3("hf", offload="optimizer+params"), 75.0),  # created on the CPU
        (zero3("hf", gpus=1), 75.0),  # one rank: nothing to partition
        (zero3("hf"), 10.0),  # the whole model would not fit: must be built partitioned
    ],
)
def test_no_whole_model_load_where_it_cannot_happen(case, capacity):
    result = MemoryModel(case).per_gpu(layout_of(case), context=1.0, capacity=capacity)
    assert not result.peak_at_model_load


def test_the_whole_model_load_never_changes_whether_a_job_fits():
    s = zero3("hf")
    model = MemoryModel(s)
    layout = layout_of(s)
    for capacity in (12.0, 16.0, 17.5, 20.0, 40.0):
        trained = model.total_gib(layout, 1.0)
        shown = model.per_gpu(layout, context=1.0, capacity=capacity).total
        assert (trained <= capacity) == (shown <= capacity), capacity


# --- device readings when batch lengths vary ------------------------------------------------

DRIFT = memory_module.LENGTH_DRIFT_OF_DYNAMIC


@pytest.mark.parametrize(
    ("packed", "checkpointing", "share"),
    [
        (True, True, 0.0),  # fixed shapes: the cache settles after the first step
        (True, False, 0.0),
        (False, True, DRIFT[True]),
        (None, True, DRIFT[True]),  # not stated: lengths assumed to vary
        (False, False, DRIFT[False]),
        (None, None, DRIFT[False]),
    ],
)
def test_length_drift_is_a_share_of_the_dynamic_peak(packed, checkpointing, share):
    s = scenario(packed=packed, gradient_checkpointing=checkpointing)
    result = memory(s)
    assert result.length_drift == pytest.approx(share * (result.activations + result.logits))
    assert result.device_reading == pytest.approx(result.total + result.length_drift)


def test_checkpointing_drifts_further_than_keeping_activations():
    assert DRIFT[True] > DRIFT[False] > 0


def test_length_drift_never_decides_whether_a_job_fits():
    packed = scenario(packed=True, method="lora", lora={"rank": 8, "alpha": 16, "targets": None})
    varying = scenario(packed=False, method="lora", lora={"rank": 8, "alpha": 16, "targets": None})
    layout = layout_of(packed)
    assert memory(varying).total == pytest.approx(memory(packed).total)
    assert MemoryModel(varying).total_gib(layout, 1.0) == MemoryModel(packed).total_gib(layout, 1.0)
    assert "length_drift" not in memory(varying).components()


def test_a_device_reading_never_exceeds_the_card():
    s = scenario(packed=False, seq_len=16384)
    free = MemoryModel(s).per_gpu(layout_of(s), context=1.0)
    capped = MemoryModel(s).per_gpu(layout_of(s), context=1.0, card=free.total + 1.0)
    assert free.length_drift > 1.0
    assert capped.length_drift == pytest.approx(1.0)
    assert capped.device_reading == pytest.approx(free.total + 1.0)
    full = MemoryModel(s).per_gpu(layout_of(s), context=1.0, card=free.total - 5.0)
    assert full.length_drift == 0.0


@pytest.mark.parametrize(
    ("metric", "expected"),
    [
        ("allocated", lambda m: m.allocated),
        ("reserved", lambda m: m.reserved + m.length_drift),
        ("unknown", lambda m: m.total + m.length_drift),
    ],
)
def test_each_reported_metric_is_compared_with_its_own_reading(metric, expected):
    result = memory(scenario(packed=False))
    assert result.length_drift > 0
    assert result.at_metric(metric) == pytest.approx(expected(result))


def test_training_after_a_whole_model_load_can_still_read_higher():
    s = zero3("hf", packed=False, seq_len=4096)
    model = MemoryModel(s)
    loaded = model.per_gpu(layout_of(s), context=1.0, capacity=75.0)
    trained = model.per_gpu(layout_of(s), context=1.0)
    assert loaded.peak_at_model_load and trained.total < loaded.total
    reading = trained.total + trained.length_drift
    assert reading > loaded.total
    assert loaded.device_reading == pytest.approx(reading)


# --- defaults when a switch is unstated (issue 15) ---------------------------------------------


def test_unstated_attention_is_the_frameworks_sdpa_default_not_eager():
    """null flash_attention = SDPA's flash/memory-efficient kernels: no seq x seq scores kept.

    Hand-worked: eager attention keeps, per layer and sequence, heads x seq x seq softmax values
    in fp32 (4 bytes) and their bf16 cast (2 bytes): 32 layers x 32 heads x 2048^2 x 6 bytes
    = 24 GiB for Llama 3.1 8B at 2,048 tokens, micro-batch 1, without checkpointing.
    """
    unstated, fused, eager = (
        memory(scenario(flash_attention=value, gradient_checkpointing=False))
        for value in (None, True, False)
    )
    assert unstated.activations == pytest.approx(fused.activations)
    assert eager.activations - unstated.activations == pytest.approx(32 * 32 * 2048**2 * 6 / GIB)
    assert eager.activations - unstated.activations == pytest.approx(24.0)


@pytest.mark.parametrize("what", ["max_seq_len", "max_micro_batch"])
def test_the_largest_that_fits_is_searched_once_per_layout_capacity_and_context(what, monkeypatch):
    s = scenario(method="lora", lora={"rank": 8, "alpha": 16, "targets": ["q_proj", "v_proj"]})
    model = MemoryModel(s)
    layout = layout_of(s)
    context = context_gib(None, layout.gpus)
    evaluations = []
    total_gib = MemoryModel.total_gib

    def counted(self, *args, **kwargs):
        evaluations.append(kwargs)
        return total_gib(self, *args, **kwargs)

    monkeypatch.setattr(MemoryModel, "total_gib", counted)
    largest = getattr(model, what)
    first = largest(layout, 80.0, context)
    searched = len(evaluations)
    assert first > 0 and searched >= 3  # a search: its ends, then the guesses between them
    assert largest(layout, 80.0, context) == first and len(evaluations) == searched
    assert largest(layout, 40.0, context) < first  # another capacity: searched again
    assert len(evaluations) > searched
    # The same answer as a model that never searched before.
    assert getattr(MemoryModel(s), what)(layout, 80.0, context) == first


def test_what_the_model_assumed_is_worked_out_once_per_model():
    """Every sizing of a recommendation states the same assumptions about the job: the same
    messages (the stored result holds them once), each caller with a list of its own."""
    s = scenario(packed=False, gradient_checkpointing=None)
    model = MemoryModel(s)
    first, second = model.stated(s), model.stated(s)
    assert first == memory_assumptions(s) and first is not second
    assert all(a is b for a, b in zip(first, second, strict=True))
    first.append("a caller's own line")
    assert model.stated(s) == second
    other = scenario(packed=True)  # another job: worked out for it
    assert model.stated(other) == memory_assumptions(other) != second
