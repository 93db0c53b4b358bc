"""Head size, per-layer sliding windows and context parallelism (issue 29 items 5, 7, 9),
each against hand-worked numbers (docs/decisions/0060-attention-shape-and-context-parallel.md).

The model: 4 layers, hidden 1024, 8 query and 2 key/value heads of size 256 (not 1024 / 8 =
128), a gated MLP of width 2048, vocabulary 1,000, untied. Query width 8 x 256 = 2,048, key and
value width 2 x 256 = 512. Attention per layer 1024 x 2048 x 2 + 1024 x 512 x 2 = 5,242,880;
MLP 3 x 1024 x 2048 = 6,291,456; four layers 46,137,344; embeddings 2,048,000.
"""

import copy

import pytest

from advisor.domain.scenario import ScenarioError, dump_scenario, load_scenario
from advisor.domain.sizing.compute import (
    attended_keys,
    context_parallel_seconds,
    flops_per_token,
    job_figures,
)
from advisor.domain.sizing.memory import Layout, MemoryModel
from advisor.domain.sizing.network import Links

TOTAL = 46_137_344 + 2_048_000

MODEL = {
    "name": "wide heads",
    "params_b": TOTAL / 1e9,
    "layers": 4,
    "hidden": 1024,
    "heads": 8,
    "kv_heads": 2,
    "intermediate": 2048,
    "vocab": 1000,
    "tied_embeddings": False,
    "experts": None,
    "experts_per_token": None,
    "head_dim": 256,
}
JOB = {
    "model": MODEL,
    "method": "full",
    "lora": None,
    "precision": "bf16",
    "quant_bits": None,
    "optimizer": "adamw",
    "optimizer_in_backward": False,
    "seq_len": 8192,
    "micro_batch": 1,
    "grad_accum": 1,
    "gradient_checkpointing": False,
    "flash_attention": True,
    "packed": True,
    "hardware": {"accelerator": None, "count": 2, "nodes": 1},
    "parallelism": {
        "strategy": "zero1",
        "offload": "none",
        "tensor_parallel": 1,
        "pipeline_parallel": 1,
    },
    "training": {"dataset_tokens": None, "epochs": None},
}
# A slow link keeps the seconds readable: 10 GB/s one way per GPU.
SLOW = Links("pcie-switch", 8, 10.0, 10.0, 10.0)


def job(model=None, **changes):
    data = copy.deepcopy(JOB)
    data["model"].update(model or {})
    for key, value in changes.items():
        if key.startswith("parallelism."):
            data["parallelism"][key.split(".")[1]] = value
        else:
            data[key] = value
    return load_scenario(data)


def test_head_dim_sets_the_projection_widths():
    layout = job().model.layout
    assert (layout.head_dim, layout.q_out, layout.kv_out) == (256, 2048, 512)
    assert layout.attention_params_per_layer == 5_242_880
    assert layout.other_params == 0  # the stated total is exactly the counted shape


def test_head_dim_sets_the_attention_work():
    # Forward attention per token: layers x 4 x keys attended (8192 / 2) x query width.
    assert flops_per_token(job()).attention_forward == 4 * 4 * 4096 * 2048
    narrow = job({"head_dim": None})
    assert flops_per_token(narrow).attention_forward == 4 * 4 * 4096 * 1024


def test_a_window_on_some_layers_averages_over_the_layers():
    # A 128-key window: 128 - 128^2 / (2 x 8192) = 127 keys; full layers 4096.
    assert attended_keys(job({"sliding_window": 128})) == 127
    half = job({"sliding_window": 128, "sliding_window_layers": 2})
    assert attended_keys(half) == (127 + 4096) / 2
    # A window longer than the sequence changes nothing.
    assert attended_keys(job({"sliding_window": 16384, "sliding_window_layers": 2})) == 4096


def test_context_parallel_splits_each_sequence():
    whole = job_figures(job())
    split = job_figures(job(**{"parallelism.context_parallel": 2}))
    assert (whole.tokens_per_micro_batch, split.tokens_per_micro_batch) == (8192, 4096)
    # Two GPUs (a data-parallel group of 2): two sequences per step without it, one with it.
    data_parallel = 2
    assert whole.tokens_per_micro_batch * data_parallel == 2 * 8192
    assert split.tokens_per_micro_batch * data_parallel == 8192


def test_ring_attention_traffic_hides_behind_attention():
    figures = job_figures(job(**{"parallelism.context_parallel": 2}))
    # Per layer: (forward 1 + backward 2) x (cp - 1) x K and V x 4096 tokens x 512 x 2 bytes.
    per_layer = 3 * 1 * 2 * 4096 * 512 * 2
    ring_s = 4 * per_layer / 10e9
    assert context_parallel_seconds(figures, SLOW, 0.0) == pytest.approx(ring_s)
    assert context_parallel_seconds(figures, SLOW, 0.01) == pytest.approx(ring_s - 0.01)
    assert context_parallel_seconds(figures, SLOW, 1.0) == 0.0


def test_all_to_all_traffic_is_not_hidden():
    scenario = job(
        **{"parallelism.context_parallel": 2, "parallelism.context_parallel_comm": "all-to-all"}
    )
    figures = job_figures(scenario)
    # Per layer: forward and backward x (cp - 1) / cp x 4096 tokens x (q, k, v, out) x 2 bytes.
    per_layer = 2 * 0.5 * 4096 * (2048 + 512 + 512 + 2048) * 2
    assert context_parallel_seconds(figures, SLOW, 1.0) == pytest.approx(4 * per_layer / 10e9)


def test_context_parallel_divides_activations_not_states():
    layout = Layout(gpus=2, strategy="zero1", offload="none")
    whole = MemoryModel(job())
    split = MemoryModel(job(**{"parallelism.context_parallel": 2}))
    assert split.activation_bytes(layout)[0] == pytest.approx(whole.activation_bytes(layout)[0] / 2)
    assert split.activation_bytes(layout)[1] == pytest.approx(whole.activation_bytes(layout)[1] / 2)
    assert split._state_bytes(layout) == whole._state_bytes(layout)


@pytest.mark.parametrize(
    "model, parallelism, path",
    [
        ({"sliding_window_layers": 2}, {}, "model.sliding_window_layers"),
        ({"sliding_window": 128, "sliding_window_layers": 5}, {}, "model.sliding_window_layers"),
        ({}, {"context_parallel": 4}, "parallelism.context_parallel"),
        ({}, {"context_parallel_comm": "ring"}, "parallelism.context_parallel_comm"),
        ({}, {"context_parallel_comm": "ulysses"}, "parallelism.context_parallel_comm"),
        ({"head_dim": 0}, {}, "model.head_dim"),
    ],
)
def test_impossible_values_are_refused(model, parallelism, path):
    with pytest.raises(ScenarioError) as error:
        job(model, **{f"parallelism.{k}": v for k, v in parallelism.items()})
    assert error.value.field == path


@pytest.mark.parametrize(
    ("count", "context_parallel", "named", "gpus"),
    [(4, 1, "tensor_parallel x pipeline_parallel (", 1), (4, 2, "x context_parallel (", 2)],
)
def test_a_single_strategy_names_every_degree_its_gpu_count_multiplies(
    count, context_parallel, named, gpus
):
    data = copy.deepcopy(JOB)
    data["hardware"]["count"] = count
    data["parallelism"].update(strategy="single", context_parallel=context_parallel)
    with pytest.raises(ScenarioError) as error:
        load_scenario(data)
    assert error.value.field == "parallelism.strategy"
    words = error.value.message.render()
    assert named in words and f"({gpus})" in words
    assert ("context_parallel" in words) is (context_parallel > 1)


def test_the_fields_round_trip_and_stay_absent_when_not_given():
    data = copy.deepcopy(JOB)
    data["model"].update(sliding_window=128, sliding_window_layers=2)
    data["parallelism"].update(context_parallel=2, context_parallel_comm="all-to-all")
    assert dump_scenario(load_scenario(data)) == data
    plain = copy.deepcopy(JOB)
    del plain["model"]["head_dim"]
    dumped = dump_scenario(load_scenario(plain))
    assert "head_dim" not in dumped["model"] and "context_parallel" not in dumped["parallelism"]


def test_the_estimate_says_how_context_parallelism_is_counted():
    from advisor.domain.sizing.compute import estimate_time
    from tests.unit.test_compute import synthetic_accelerator

    scenario = job(
        **{"parallelism.context_parallel": 2, "parallelism.context_parallel_comm": "all-to-all"}
    )
    said = [m.template for m in estimate_time(scenario, synthetic_accelerator()).assumptions]
    assert any(t.startswith("Context parallelism over {cp}") and "all-to-all" in t for t in said)
    # Two GPUs, one 8,192-token sequence split over both: 8,192 tokens per step.
    assert estimate_time(scenario, synthetic_accelerator()).tokens_per_step == 8192
