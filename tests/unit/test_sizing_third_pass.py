"""Mechanisms of issue 29 (sizing, third pass), each against hand-worked numbers.

A small dense model keeps the arithmetic checkable by hand: 2 layers, hidden 1024, 8 heads
(full attention), a gated MLP of width 2048, vocabulary 1,000, untied. Attention per layer
4 x 1024^2 = 4,194,304; MLP 3 x 1024 x 2048 = 6,291,456; a layer 10,485,760, both 20,971,520;
embeddings 2 x 1,000 x 1024 = 2,048,000. Total 23,019,520 parameters (norms left out).
"""

import copy

import pytest

from advisor.domain.scenario import ScenarioError, dump_scenario, load_scenario
from advisor.domain.sizing.memory import GIB, MemoryModel, layout_of

TOTAL = 23_019_520
OUTPUT_LAYER = 1000 * 1024

SMALL = {
    "model": {
        "name": "small dense",
        "params_b": TOTAL / 1e9,
        "layers": 2,
        "hidden": 1024,
        "heads": 8,
        "kv_heads": 8,
        "intermediate": 2048,
        "vocab": 1000,
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
    "seq_len": 1024,
    "micro_batch": 1,
    "grad_accum": 1,
    "gradient_checkpointing": False,
    "flash_attention": True,
    "packed": True,
    "hardware": {"accelerator": None, "count": 1, "nodes": 1},
    "parallelism": {"strategy": "single", "offload": "none"},
    "training": None,
}


def small(**changes):
    data = copy.deepcopy(SMALL)
    for key, value in changes.items():
        if key.startswith("parallelism."):
            data["parallelism"][key.split(".")[1]] = value
        elif key.startswith("hardware."):
            data["hardware"][key.split(".")[1]] = value
        else:
            data[key] = value
    return load_scenario(data)


def phases(scenario):
    """(backward-start bytes without activations and logits, optimizer-step bytes)."""
    model = MemoryModel(scenario)
    backward, step, _states, activations, logits, _dequant = model._phase_bytes(
        layout_of(scenario), scenario.micro_batch, scenario.seq_len
    )
    return backward - activations - logits, step


# --- Item 1: gradient lifetime and the optimizer step ---------------------------------------


def test_the_small_model_is_counted_by_hand():
    model = MemoryModel(small())
    assert model.trained_params == TOTAL
    assert model.first_gradient_share == pytest.approx(OUTPUT_LAYER / TOTAL)


@pytest.mark.parametrize(
    ("impl", "step_bytes"),
    [
        # bf16 weights 2 + gradients 2 + two bf16 moments 4 = 8 B; foreach adds one moment, 2 B.
        ("foreach", TOTAL * 10),
        (None, TOTAL * 10),  # PyTorch's default on CUDA: foreach
        ("fused", TOTAL * 8),
    ],
)
def test_the_foreach_step_adds_one_moment(impl, step_bytes):
    _start, step = phases(small(optimizer_impl=impl))
    assert step == pytest.approx(step_bytes)


def test_without_accumulation_only_the_output_layers_gradient_is_alive_at_backward_start():
    # Weights 2 + moments 4 = 6 B per parameter, plus the output layer's 2-byte gradient.
    start, _step = phases(small())
    assert start == pytest.approx(TOTAL * 6 + OUTPUT_LAYER * 2)


def test_with_accumulation_every_gradient_is_alive_at_backward_start():
    start, _step = phases(small(grad_accum=2))
    assert start == pytest.approx(TOTAL * 8)


def test_megatron_keeps_its_gradient_buffer_and_steps_fused():
    # Megatron's main_grad buffer lives for the whole run; its Adam is fused.
    start, step = phases(small(framework="megatron"))
    assert start == pytest.approx(TOTAL * 8)
    assert step == pytest.approx(TOTAL * 8)


def test_deepspeed_zero_defaults_to_its_fused_adam_unless_foreach_is_stated():
    # ZeRO-2 on 2 GPUs: weights 2 B each; gradients 2 B and moments 4 B halved; two 2e8-element
    # 16-bit gradient buckets (8e8 bytes).
    scenario = dict(
        **{"hardware.count": 2, "parallelism.strategy": "zero2"},
    )
    buckets = 2 * 2e8 * 2
    _start, fused = phases(small(**scenario))
    assert fused == pytest.approx(TOTAL * (2 + 1 + 2) + buckets)
    _start, foreach = phases(small(optimizer_impl="foreach", **scenario))
    assert foreach == pytest.approx(TOTAL * (2 + 1 + 2 + 1) + buckets)


def test_an_offloaded_step_has_no_device_temporary():
    _start, step = phases(small(**{"parallelism.offload": "optimizer"}))
    assert step == pytest.approx(TOTAL * 4)  # weights and gradients only


def test_the_breakdown_shows_the_temporary_at_the_step():
    scenario = small(seq_len=16)  # tiny activations: the step is the peak
    breakdown = MemoryModel(scenario).per_gpu(layout_of(scenario), context=0.0)
    assert breakdown.peak_at_optimizer_step
    assert breakdown.work_buffers * 2**30 == pytest.approx(TOTAL * 2)
    assert breakdown.gradients * 2**30 == pytest.approx(TOTAL * 2)


def test_optimizer_impl_is_optional_and_written_back_only_when_given():
    plain = small()
    assert plain.optimizer_impl is None
    assert "optimizer_impl" not in dump_scenario(plain)
    for value in ("fused", "foreach"):
        assert dump_scenario(small(optimizer_impl=value))["optimizer_impl"] == value


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"optimizer_impl": "apex"}, "optimizer_impl"),
        ({"optimizer_impl": True}, "optimizer_impl"),
        ({"optimizer_impl": "fused", "optimizer": "adafactor"}, "optimizer_impl"),
    ],
)
def test_optimizer_impl_is_refused_when_it_cannot_apply(changes, field):
    with pytest.raises(ScenarioError) as error:
        small(**changes)
    assert error.value.field == field


# --- Item 2: the third loss regime, fused linear cross-entropy --------------------------------


@pytest.mark.parametrize(
    ("changes", "bytes_per_token"),
    [
        ({}, 1000 * 12),  # whole fp32 logits: 16-bit, fp32 upcast, fp32 log-softmax, 16-bit grad
        ({"loss_chunking": True}, 1000 * 6),  # chunked, eager: 16-bit logits, fp32 log-softmax
        ({"fused_loss": True}, 2 * 1024 * 2 + 4),  # fused: two hidden-wide bf16 copies, fp32 loss
        ({"fused_loss": True, "loss_chunking": True}, 2 * 1024 * 2 + 4),
        ({"fused_loss": False}, 1000 * 12),
    ],
)
def test_three_loss_regimes_by_hand(changes, bytes_per_token):
    assert MemoryModel(small(**changes)).logit_bytes_per_token == bytes_per_token


def test_the_fused_loss_keeps_no_logits_at_the_peak():
    # 4 x 4096 tokens: whole logits 16,384 x 1,000 x 12 = 196,608,000 bytes; fused
    # 16,384 x (2 x 1024 x 2 + 4) = 67,174,400 bytes.
    whole = small(micro_batch=4, seq_len=4096)
    fused = small(micro_batch=4, seq_len=4096, fused_loss=True)
    layout = layout_of(whole)
    assert MemoryModel(whole).activation_bytes(layout)[1] == 196_608_000
    assert MemoryModel(fused).activation_bytes(layout)[1] == 67_174_400


def test_fused_loss_is_optional_and_refused_with_unchunked_loss():
    assert "fused_loss" not in dump_scenario(small())
    assert dump_scenario(small(fused_loss=True))["fused_loss"] is True
    with pytest.raises(ScenarioError) as error:
        small(fused_loss=True, loss_chunking=False)
    assert error.value.field == "fused_loss"


# --- Item 4: quantisation formats, and quantised bases gathered at their stored width ---------

BLOCKS = 20_971_520  # the block linears, quantised under QLoRA
EMBEDDINGS = 2_048_000  # embedding and output layer, 16 bits


def qlora(**changes):
    return small(method="qlora", framework="hf", **changes)


@pytest.mark.parametrize(
    ("quant_format", "bits_per_weight"),
    [
        (None, 4 + 0.5),  # bitsandbytes NF4: one fp32 absmax per 64 weights
        ("nf4", 4 + 0.5),
        ("gptq", 4 + 20 / 128),  # an fp16 scale and a 4-bit zero per group of 128
        ("awq", 4 + 20 / 128),
        # torchao NF4: an int8 scaler per 64 weights and a 16-bit factor per 256 scalers,
        # 4 + 8/64 + 16/16,384 = 4.1259765625 bits: the blocks take 10,816,000 bytes.
        ("torchao-nf4", 4 + 8 / 64 + 16 / (64 * 256)),
        # bitsandbytes double quantisation: an 8-bit absmax per 64 weights and an fp32 constant
        # per 256 of them, 8/64 + 32/16,384 = 0.126953125 bit (QLoRA paper: 0.127).
        ("nf4-double-quant", 4 + 8 / 64 + 32 / (64 * 256)),
    ],
)
def test_frozen_base_by_format(quant_format, bits_per_weight):
    # torchtune keeps the embedding and output layer in bf16 (2 bytes each).
    model = MemoryModel(small(method="qlora", framework="torchtune", quant_format=quant_format))
    assert model.frozen_bytes == pytest.approx(BLOCKS * bits_per_weight / 8 + EMBEDDINGS * 2)


@pytest.mark.parametrize(
    ("framework", "quant_format", "precision", "rest_bytes"),
    [
        # prepare_model_for_kbit_training casts the 16-bit rest to fp32; TRL's trainer, the
        # most used stack's, casts the embeddings and output layer back in bf16 (0139).
        ("hf", None, "bf16", 2),
        ("hf", None, "amp-fp16", 4),  # kept in fp32 under fp16
        ("hf", "nf4", "amp-fp16", 4),
        ("hf", "nf4-double-quant", "amp-fp16", 4),  # still a bitsandbytes base
        # Not stated: the most used stack's reading (hf); the heavier one in .heavier.
        (None, None, "bf16", 2),
        (None, None, "amp-fp16", 4),
        ("hf", "gptq", "amp-fp16", 2),  # skipped for GPTQ models
        ("hf", "awq", "bf16", 2),
        ("torchtune", None, "bf16", 2),
        ("megatron", None, "amp-fp16", 2),
        # torchao's NF4 (torchtune's QLoRA): the model is built in bf16 and never prepared by
        # PEFT, so the rest stays 16-bit even when the framework is not stated.
        (None, "torchao-nf4", "bf16", 2),
        ("hf", "torchao-nf4", "amp-fp16", 2),
    ],
)
def test_kbit_preparation_upcasts_the_unquantised_weights(
    framework, quant_format, precision, rest_bytes
):
    scenario = small(
        method="qlora", framework=framework, quant_format=quant_format, precision=precision
    )
    bits = {None: 4.5, "nf4": 4.5, "torchao-nf4": 4.1259765625, "nf4-double-quant": 4.126953125}
    bits = bits.get(quant_format, 4 + 20 / 128)
    expected = BLOCKS * bits / 8 + EMBEDDINGS * rest_bytes
    assert MemoryModel(scenario).frozen_bytes == pytest.approx(expected)


def test_litgpt_stores_its_quantised_output_layer_quantised():
    # Lightning's bitsandbytes plugin replaces lm_head too: the 1,000 x 1,024 output layer at
    # 4.5 bits, the input embedding in bf16, no fp32 copies (no k-bit preparation).
    model = MemoryModel(small(method="qlora", framework="litgpt"))
    head = EMBEDDINGS // 2
    assert model.frozen_bytes == pytest.approx(BLOCKS * 4.5 / 8 + head * 2 + head * 4.5 / 8)


def test_the_heavier_reading_keeps_the_fp32_rest_and_the_output_layers_buffer():
    from advisor.domain.sizing.memory import estimate_memory

    breakdown = estimate_memory(small(method="qlora"))
    heavier = breakdown.heavier
    assert heavier is not None
    assert heavier.frozen_weights * GIB == pytest.approx(BLOCKS * 4.5 / 8 + EMBEDDINGS * 4)
    assert breakdown.frozen_weights * GIB == pytest.approx(BLOCKS * 4.5 / 8 + EMBEDDINGS * 2)
    assert breakdown.heavier_total > breakdown.total
    # A stated framework, or a base whose format no framework treats differently: no
    # heavier reading to keep.
    assert estimate_memory(small(method="qlora", framework="hf")).heavier is None
    assert estimate_memory(small(method="full")).heavier is None


def test_gptq_at_8_bits_spends_24_bits_per_group():
    model = MemoryModel(qlora(quant_format="gptq", quant_bits=8))
    assert model.frozen_bytes == pytest.approx(BLOCKS * (8 + 24 / 128) / 8 + EMBEDDINGS * 2)


@pytest.mark.parametrize(
    ("quant_format", "framework", "copies", "width"),
    [
        # bitsandbytes: two 16-bit copies (quantisation and compute dtype) of the widest matrix:
        # a 1024 x 2048 MLP projection, or the 1000 x 1024 output layer where it is quantised.
        (None, "hf", 2, 1024 * 2048),
        ("gptq", "hf", 1, 1024 * 2048),  # one temp_dq / dequantised copy
        ("awq", None, 1, 1024 * 2048),  # the output layer stays 16-bit whatever the framework
    ],
)
def test_dequantisation_buffer_by_format(quant_format, framework, copies, width):
    scenario = small(method="qlora", framework=framework, quant_format=quant_format)
    assert MemoryModel(scenario).dequant_bytes == copies * width * 2


def test_torchao_nf4_blocks_by_hand():
    # 20,971,520 x 4.1259765625 / 8 = 10,816,000 bytes of blocks, 2,048,000 x 2 of embeddings.
    model = MemoryModel(small(method="qlora", quant_format="torchao-nf4"))
    assert model.frozen_bytes == 10_816_000 + 4_096_000


@pytest.mark.parametrize(
    ("quant_format", "framework", "width"),
    [
        # A 4,096-entry vocabulary makes the output layer (4,096 x 1,024 = 4,194,304 weights)
        # wider than an MLP projection (1,024 x 2,048 = 2,097,152). LitGPT quantises it, so
        # its two 16-bit dequantised copies size the buffer; not stated, the most used stack
        # (hf) leaves it in 16 bits (the heavier reading in .heavier).
        (None, None, 1024 * 2048),
        ("nf4", "litgpt", 4096 * 1024),
        # torchtune never quantises its output layer (lora_llama3_1: "quantize_base is not
        # applied to final output_proj"): the widest quantised matrix is an MLP projection.
        ("torchao-nf4", None, 1024 * 2048),
        ("torchao-nf4", "litgpt", 1024 * 2048),
    ],
)
def test_torchao_nf4_never_dequantises_the_output_layer(quant_format, framework, width):
    model = dict(SMALL["model"], vocab=4096)
    scenario = small(method="qlora", framework=framework, quant_format=quant_format, model=model)
    assert MemoryModel(scenario).dequant_bytes == 2 * width * 2


def test_a_quantised_base_is_gathered_at_its_stored_width():
    # FSDP gathers two units and one unit of gradients (decision 0140): the largest unit is a
    # block, 10,485,760 weights at 4.5 bits (5,898,240 bytes), larger than the 16-bit
    # embedding (2,048,000 bytes); the gradients are one block's adapters (PEFT's wrap policy
    # under the Trainer keeps them out of the frozen block's unit).
    quantised = MemoryModel(qlora())
    adapters = quantised.trained_params / 2 * quantised.trained_elem_bytes
    assert quantised._gathered_bytes("fsdp", 1, 4, offloaded=True) == pytest.approx(
        2 * 10_485_760 * 4.5 / 8 + adapters
    )
    # ZeRO-3's live window holds the whole small model: its stored bytes (the embedding and
    # output layer in bf16: PEFT's k-bit preparation casts them to fp32, TRL back to bf16).
    assert quantised._gathered_bytes("zero3", 1, 4, offloaded=True) == pytest.approx(
        BLOCKS * 4.5 / 8 + EMBEDDINGS * 2
    )
    # A 16-bit base: the same units at 2 bytes.
    plain = MemoryModel(small(method="lora", framework="hf"))
    adapters = plain.trained_params / 2 * plain.trained_elem_bytes
    assert plain._gathered_bytes("fsdp", 1, 4, offloaded=True) == pytest.approx(
        2 * 10_485_760 * 2 + adapters
    )


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"method": "lora", "quant_format": "gptq"}, "quant_format"),
        ({"method": "qlora", "quant_format": "awq", "quant_bits": 8}, "quant_format"),
        ({"method": "qlora", "quant_format": "nf4", "quant_bits": 8}, "quant_format"),
        ({"method": "qlora", "quant_format": "int3"}, "quant_format"),
        ({"method": "qlora", "quant_format": "torchao-nf4", "quant_bits": 8}, "quant_format"),
        ({"method": "qlora", "quant_format": "nf4-double-quant", "quant_bits": 8}, "quant_format"),
        ({"method": "lora", "quant_format": "torchao-nf4"}, "quant_format"),
    ],
)
def test_quant_format_is_refused_where_it_cannot_apply(changes, field):
    with pytest.raises(ScenarioError) as error:
        small(**changes)
    assert error.value.field == field


def test_quant_format_is_optional_and_written_back_only_when_given():
    assert "quant_format" not in dump_scenario(qlora())
    assert dump_scenario(qlora(quant_format="gptq", quant_bits=8))["quant_format"] == "gptq"
    written = dump_scenario(qlora(quant_format="torchao-nf4"))
    assert written["quant_format"] == "torchao-nf4"
    assert load_scenario(written).quant_format == "torchao-nf4"


# --- Item 9: a config.json that states its quantisation fills quant_format and quant_bits ------

LLAMA = {
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
}


NF4_CONFIG = {"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "nf4"}


@pytest.mark.parametrize(
    ("quantization_config", "expected"),
    [
        (None, (None, None)),
        ({"quant_method": "gptq", "bits": 4, "group_size": 128}, ("gptq", 4)),
        ({"quant_method": "gptq", "bits": 8}, ("gptq", 8)),
        ({"quant_method": "gptq", "bits": 3}, (None, None)),  # the scenario has no 3 bits
        ({"quant_method": "awq", "bits": 4, "version": "gemm"}, ("awq", 4)),
        ({"quant_method": "awq", "bits": 8}, (None, None)),
        (
            {"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "nf4"},
            ("nf4", 4),
        ),
        # bnb_4bit_use_double_quant: true names the double-quantised NF4; false or absent not.
        ({**NF4_CONFIG, "bnb_4bit_use_double_quant": True}, ("nf4-double-quant", 4)),
        ({**NF4_CONFIG, "bnb_4bit_use_double_quant": False}, ("nf4", 4)),
        ({**NF4_CONFIG, "bnb_4bit_use_double_quant": "true"}, ("nf4", 4)),  # not a JSON true
        (
            {"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "fp4"},
            (None, None),
        ),
        ({"quant_method": "bitsandbytes", "load_in_8bit": True}, (None, 8)),
        ({"quant_method": "fp8"}, (None, None)),
        ({"quant_method": "gptq", "bits": True}, (None, None)),
        ("gptq", (None, None)),
    ],
)
def test_a_config_states_its_quantisation(quantization_config, expected):
    import json

    from advisor.domain import model_config

    data = dict(LLAMA)
    if quantization_config is not None:
        data["quantization_config"] = quantization_config
    fields = model_config.read(json.dumps(data).encode())
    assert (fields["quant_format"], fields["quant_bits"]) == expected


@pytest.mark.parametrize(
    ("changes", "foreach", "fused", "lifetime"),
    [
        ({}, True, False, True),
        ({"optimizer_impl": "fused"}, False, True, True),
        ({"grad_accum": 4}, True, False, False),
        ({"hardware.count": 2, "parallelism.strategy": "zero2"}, False, True, True),
        ({"parallelism.offload": "optimizer"}, False, False, True),
        ({"method": "lora"}, True, False, False),  # adapters' gradients: too small to say
    ],
)
def test_the_assumptions_say_how_the_step_and_the_gradients_were_counted(
    changes, foreach, fused, lifetime
):
    from advisor.domain.sizing.memory import memory_assumptions

    texts = [m.render() for m in memory_assumptions(small(**changes))]
    assert any("foreach implementation" in t for t in texts) is foreach
    assert any("fused implementation" in t for t in texts) is fused
    assert any("Without gradient accumulation" in t for t in texts) is lifetime


@pytest.mark.parametrize(
    ("framework", "quant_format", "precision", "upcast"),
    [
        (None, None, "amp-fp16", "kept"),
        (None, None, "bf16", "cast back"),
        ("hf", "gptq", "bf16", "16 bits"),
        ("litgpt", None, "bf16", "16 bits"),
    ],
)
def test_the_assumptions_say_whether_the_unquantised_weights_are_upcast(
    framework, quant_format, precision, upcast
):
    from advisor.domain.sizing.memory import memory_assumptions

    scenario = small(
        method="qlora", framework=framework, quant_format=quant_format, precision=precision
    )
    texts = [m.render() for m in memory_assumptions(scenario)]
    assert any("are cast to fp32, as PEFT" in t for t in texts) is (upcast == "kept")
    assert any("casts them back to bf16" in t for t in texts) is (upcast == "cast back")
    assert any("stay in 16 bits" in t for t in texts) is (upcast == "16 bits")


# --- Issue 29: LoRA dropout stated off (lora.dropout 0) ---------------------------------------


def adapter_block_bytes(method, targets, dropout):
    lora = {"rank": 8, "alpha": 16, "targets": targets, "dropout": dropout}
    return MemoryModel(small(method=method, lora=lora)).block_bytes_per_token


@pytest.mark.parametrize(
    ("method", "targets", "saved"),
    [
        # Dropout on: q and v each keep a dropped-out bf16 copy of the 1,024-wide norm output
        # and its 1-byte mask, 2 x 1,024 x 3 = 6,144 B per token. Off: both adapters keep the
        # one norm output itself, 1,024 x 2 = 2,048 B: 4,096 B fewer.
        ("lora", ["q_proj", "v_proj"], 4096),
        # All linears: on, (3 x 1,024 + 1,024 + 2 x 1,024 + 2,048) x 3 = 24,576 B; off, the
        # attention norm's output, o's input, the MLP norm's output and down's input once each,
        # (1,024 + 1,024 + 1,024 + 2,048) x 2 = 10,240 B: 14,336 B fewer.
        ("lora", "all-linear", 14336),
        # QLoRA's quantised linears keep every input already: off saves the whole 24,576 B.
        ("qlora", "all-linear", 24576),
    ],
)
def test_lora_dropout_off_keeps_each_adapted_input_once(method, targets, saved):
    on = adapter_block_bytes(method, targets, None)
    assert on - adapter_block_bytes(method, targets, 0) == saved
    assert adapter_block_bytes(method, targets, 0.05) == on  # a stated rate is counted as on


def test_lora_dropout_is_optional_and_written_back_only_when_given():
    lora = {"rank": 8, "alpha": 16, "targets": None}
    assert "dropout" not in dump_scenario(small(method="lora", lora=lora))["lora"]
    written = dump_scenario(small(method="lora", lora={**lora, "dropout": 0.0}))
    assert written["lora"]["dropout"] == 0.0
    assert load_scenario(written).lora.dropout_off


@pytest.mark.parametrize("dropout", [-0.1, 1, 1.5, "0.05", True])
def test_lora_dropout_is_refused_outside_zero_to_below_one(dropout):
    lora = {"rank": 8, "alpha": 16, "targets": None, "dropout": dropout}
    with pytest.raises(ScenarioError) as error:
        small(method="lora", lora=lora)
    assert error.value.field == "lora.dropout"


@pytest.mark.parametrize(
    ("framework", "dropout", "sentence"),
    [
        (None, None, "with LoRA dropout keeping a copy of each adapted input"),
        (None, 0, "LoRA dropout is off, so each adapter keeps its input without a copy"),
        ("torchtune", 0.05, "with LoRA dropout keeping a copy of each adapted input"),
        ("torchtune", 0, "LoRA dropout is off, so each adapter keeps its input without a copy"),
    ],
)
def test_the_assumptions_say_whether_lora_dropout_copies_the_inputs(framework, dropout, sentence):
    from advisor.domain.sizing.memory import memory_assumptions

    lora = {"rank": 8, "alpha": 16, "targets": None, "dropout": dropout}
    scenario = small(method="lora", framework=framework, lora=lora)
    texts = [m.render() for m in memory_assumptions(scenario)]
    assert sum(sentence in text for text in texts) == 1, texts
