"""Scenario v1: loading, dumping, validation errors and derived parameter counts."""

import copy
import json

import pytest

from advisor.domain.scenario import (
    FRAMEWORKS,
    LIMITS,
    ScenarioError,
    active_params,
    adapter_count,
    dump_scenario,
    load_scenario,
    trainable_params,
)
from advisor.domain.sizing.reference import case_records  # noqa: E402

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
    "method": "lora",
    "lora": {"rank": 8, "alpha": 16, "targets": ["q_proj", "v_proj"]},
    "precision": "bf16",
    "quant_bits": None,
    "optimizer": "adamw",
    "optimizer_in_backward": False,
    "seq_len": 2048,
    "micro_batch": 2,
    "grad_accum": 1,
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
    "training": {"dataset_tokens": 1000000, "epochs": 1},
}


def scenario_with(path: str, value):
    data = copy.deepcopy(LLAMA_8B)
    target = data
    *parents, last = path.split(".")
    for key in parents:
        target = target[key]
    if value is _DELETE:
        del target[last]
    else:
        target[last] = value
    return data


_DELETE = object()


def load_cases():
    return case_records()  # the project's own data: a missing file fails, never skips


def test_every_reference_case_round_trips_exactly():
    for case in load_cases():
        scenario = load_scenario(case["scenario"])
        assert json.dumps(dump_scenario(scenario)) == json.dumps(case["scenario"]), case["id"]


def test_unknown_top_level_section_is_kept_and_written_back():
    data = copy.deepcopy(LLAMA_8B)
    data["site"] = {"rack_kw": 12}
    scenario = load_scenario(data)
    assert scenario.extensions == {"site": {"rack_kw": 12}}
    assert dump_scenario(scenario) == data


def test_optional_fields_take_documented_defaults():
    data = copy.deepcopy(LLAMA_8B)
    for key in ("grad_accum", "optimizer", "optimizer_in_backward", "training", "packed"):
        del data[key]
    scenario = load_scenario(data)
    assert scenario.grad_accum == 1
    assert scenario.optimizer == "adamw"
    assert scenario.optimizer_in_backward is False
    assert scenario.training.total_tokens is None
    assert scenario.packed is None


@pytest.mark.parametrize("value", [*FRAMEWORKS, None])
def test_framework_is_an_optional_compatible_field(value):
    plain = load_scenario(copy.deepcopy(LLAMA_8B))
    assert plain.framework is None
    assert "framework" not in dump_scenario(plain)
    data = copy.deepcopy(LLAMA_8B)
    data["framework"] = value
    scenario = load_scenario(data)
    assert scenario.framework == value
    assert dump_scenario(scenario) == data
    assert list(dump_scenario(scenario)) == list(data)


@pytest.mark.parametrize("bad", ["pytorch", "HF", "", 1, True, ["hf"]])
def test_an_unknown_framework_names_the_field_and_the_choices(bad):
    with pytest.raises(ScenarioError) as error:
        load_scenario(scenario_with("framework", bad))
    assert error.value.field == "framework"
    assert "hf, torchtune, litgpt, megatron" in str(error.value)


def test_loss_chunking_is_an_optional_compatible_field():
    # Absent: not stated, and a document without it is written back without it.
    plain = load_scenario(copy.deepcopy(LLAMA_8B))
    assert plain.loss_chunking is None
    assert "loss_chunking" not in dump_scenario(plain)
    for value in (True, False, None):
        data = copy.deepcopy(LLAMA_8B)
        data["loss_chunking"] = value
        scenario = load_scenario(data)
        assert scenario.loss_chunking is value
        assert dump_scenario(scenario) == data
        assert list(dump_scenario(scenario)) == list(data)
    with pytest.raises(ScenarioError) as error:
        load_scenario(scenario_with("loss_chunking", "yes"))
    assert error.value.field == "loss_chunking"
    assert "true, false or null" in str(error.value)


@pytest.mark.parametrize(
    ("path", "value", "named_field", "says"),
    [
        ("model.params_b", 0, "model.params_b", "between 0.01 and 2,000"),
        ("model.params_b", 2500, "model.params_b", "between"),
        ("model.params_b", "8", "model.params_b", "a number"),
        ("model.params_b", float("nan"), "model.params_b", "a number"),
        ("model.layers", 0, "model.layers", "between 1 and 1,024"),
        ("model.layers", 3.5, "model.layers", "whole number"),
        ("model.layers", True, "model.layers", "whole number"),
        ("model.kv_heads", 64, "model.kv_heads", "at most model.heads"),
        ("model.experts", 8, "model.experts_per_token", "together"),
        ("model.layer", 32, "model.layer", "not a field"),
        ("model", [], "model", "an object"),
        ("model", _DELETE, "model", "required"),
        ("method", "prefix", "method", "one of: full, lora"),
        ("lora.targets", ["q_proj", "wq"], "lora.targets[1]", "one of"),
        ("lora.targets", "everything", "lora.targets", "one of"),
        ("lora.rank", -4, "lora.rank", "between 1"),
        ("precision", "int8", "precision", "one of"),
        ("quant_bits", 4, "quant_bits", "Quantised base weights apply only to QLoRA"),
        ("optimizer", "lion", "optimizer", "one of"),
        ("seq_len", 0, "seq_len", "between 1 and 1,048,576"),
        ("seq_len", 2_000_000, "seq_len", "between 1 and 1,048,576"),
        ("seq_len", _DELETE, "seq_len", "required"),
        ("micro_batch", 5000, "micro_batch", "between 1 and 4,096"),
        ("gradient_checkpointing", "yes", "gradient_checkpointing", "true, false or null"),
        ("hardware.count", 0, "hardware.count", "between 1 and 4,096"),
        ("hardware.count", 8, "parallelism.strategy", "single"),
        ("hardware.nodes", 2, "hardware.nodes", "at most hardware.count"),
        ("hardware.accelerator", 7, "hardware.accelerator", "accelerator key"),
        ("parallelism.strategy", "megatron", "parallelism.strategy", "one of"),
        ("parallelism.offload", "disk", "parallelism.offload", "one of"),
        ("parallelism.tensor_parallel", 64, "parallelism.tensor_parallel", "at most model.heads"),
        ("training.epochs", -1, "training.epochs", "between"),
        ("seq_length", 2048, "seq_length", "not a field"),
    ],
)
def test_invalid_input_names_the_field_and_the_allowed_values(path, value, named_field, says):
    with pytest.raises(ScenarioError) as caught:
        load_scenario(scenario_with(path, value))
    assert caught.value.field == named_field
    assert says in str(caught.value)
    assert str(caught.value).startswith(named_field + ": ")
    assert "\n" not in str(caught.value)


def test_count_must_be_a_multiple_of_model_parallel_degree():
    data = scenario_with("parallelism.strategy", "fsdp")
    data["parallelism"]["tensor_parallel"] = 4
    data["hardware"]["count"] = 6
    with pytest.raises(ScenarioError) as caught:
        load_scenario(data)
    assert caught.value.field == "hardware.count"


def test_non_object_input_is_a_scenario_error():
    with pytest.raises(ScenarioError):
        load_scenario([1, 2])


def test_limits_are_ordered():
    for path, (low, high) in LIMITS.items():
        assert low < high, path


@pytest.mark.parametrize(
    ("targets", "rank", "expected_millions"),
    [
        # q_proj 4096->4096, v_proj 4096->1024 (8 KV heads x 128): r x (in + out) x 32 layers.
        (["q_proj", "v_proj"], 8, 8 * (8192 + 5120) * 32 / 1e6),
        # attention: q, k, v, o.
        ("attention", 16, 16 * (8192 + 5120 + 5120 + 8192) * 32 / 1e6),
        # all-linear adds gate/up (4096->14336) and down (14336->4096).
        ("all-linear", 16, 16 * (26624 + 3 * 18432) * 32 / 1e6),
        # lm_head: r x (hidden + vocab), once.
        (["lm_head"], 8, 8 * (4096 + 128256) / 1e6),
        # Null rank/targets: PEFT defaults r=8 on q_proj, v_proj.
        (None, None, 8 * (8192 + 5120) * 32 / 1e6),
    ],
)
def test_lora_adapter_count_from_arch(targets, rank, expected_millions):
    data = copy.deepcopy(LLAMA_8B)
    data["lora"] = {"rank": rank, "alpha": None, "targets": targets}
    scenario = load_scenario(data)
    assert trainable_params(scenario) / 1e6 == pytest.approx(expected_millions, rel=1e-9)


def test_dora_adds_one_magnitude_per_output_row():
    data = copy.deepcopy(LLAMA_8B)
    data["method"] = "dora"
    scenario = load_scenario(data)
    counts = adapter_count(scenario)
    assert counts.magnitude_params == 32 * (4096 + 1024)
    assert trainable_params(scenario) == counts.lora_params + counts.magnitude_params


def test_full_fine_tuning_trains_every_parameter():
    scenario = load_scenario(scenario_with("method", "full") | {"lora": None})
    assert trainable_params(scenario) == pytest.approx(8.030261e9)


@pytest.mark.parametrize(
    ("model", "expected_active_b"),
    [
        # Mixtral 8x7B: 46.7 B total, 12.9 B active (Mistral AI's announcement).
        (
            {
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
            12.9,
        ),
        # DeepSeek-V3: 671 B total, 37 B active (its technical report); v1 cannot express MLA or
        # the three dense blocks, so the estimate is within 10 %.
        (
            {
                "params_b": 671.026,
                "layers": 61,
                "hidden": 7168,
                "heads": 128,
                "kv_heads": 128,
                "intermediate": 2048,
                "vocab": 129280,
                "tied_embeddings": False,
                "experts": 256,
                "experts_per_token": 8,
            },
            37.0,
        ),
        # Dense: every parameter is active.
        (
            {
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
            8.030261,
        ),
    ],
)
def test_active_parameters(model, expected_active_b):
    data = copy.deepcopy(LLAMA_8B)
    data["model"] = {"name": "m", **model}
    scenario = load_scenario(data)
    assert active_params(scenario.model) / 1e9 == pytest.approx(expected_active_b, rel=0.10)


@pytest.mark.parametrize(
    ("value", "loaded"),
    [(None, None), (512, 512), (4096, 4096), (512.0, 512)],
)
def test_average_tokens_per_sample_is_optional_and_written_back_only_when_given(value, loaded):
    data = copy.deepcopy(LLAMA_8B)
    data["avg_tokens_per_sample"] = value
    scenario = load_scenario(data)
    assert scenario.avg_tokens_per_sample == loaded
    assert dump_scenario(scenario)["avg_tokens_per_sample"] == loaded
    assert "avg_tokens_per_sample" not in dump_scenario(load_scenario(LLAMA_8B))


@pytest.mark.parametrize("value", [0, -3, "long", True, 2_000_000])
def test_average_tokens_per_sample_out_of_range_names_the_field(value):
    data = copy.deepcopy(LLAMA_8B)
    data["avg_tokens_per_sample"] = value
    with pytest.raises(ScenarioError) as caught:
        load_scenario(data)
    assert caught.value.field == "avg_tokens_per_sample"
