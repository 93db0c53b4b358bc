"""Mechanisms added for issue 15, each against hand-worked numbers (docs/decisions/0031).

A small mixture-of-experts model keeps the arithmetic checkable by hand: 2 layers, hidden 1024,
8 heads (full attention), 8 gated experts of width 512 (top 2), vocabulary 1,000, untied.
Attention per layer 4 x 1024^2 = 4,194,304; one expert 3 x 1024 x 512 = 1,572,864, eight of
them 12,582,912 per layer; embeddings 2 x 1,000 x 1024 = 2,048,000. Total 35,602,432 parameters,
of which 25,165,824 are routed experts and 10,436,608 are not.
"""

import copy

import pytest

from advisor.domain.scenario import (
    ScenarioError,
    dump_scenario,
    load_scenario,
    routed_expert_params,
    routed_trainable_params,
)
from advisor.domain.sizing.compute import (
    attended_keys,
    data_parallel_bytes,
    dora_bytes_per_micro_batch,
    expert_loop_seconds,
    expert_parallel_seconds,
    job_figures,
)
from advisor.domain.sizing.memory import GIB, MemoryModel, layout_of
from advisor.domain.sizing.network import Links
from advisor.domain.sizing.parallelism import candidate_layouts

TOTAL = 35_602_432
ROUTED = 25_165_824
DENSE = TOTAL - ROUTED

SMALL_MOE = {
    "model": {
        "name": "small MoE",
        "params_b": TOTAL / 1e9,
        "layers": 2,
        "hidden": 1024,
        "heads": 8,
        "kv_heads": 8,
        "intermediate": 512,
        "vocab": 1000,
        "tied_embeddings": False,
        "experts": 8,
        "experts_per_token": 2,
    },
    "method": "full",
    "lora": None,
    "precision": "amp-bf16",
    "quant_bits": None,
    "optimizer": "adamw",
    "optimizer_in_backward": False,
    "seq_len": 4096,
    "micro_batch": 1,
    "grad_accum": 1,
    "gradient_checkpointing": False,
    "flash_attention": True,
    "packed": True,
    "hardware": {"accelerator": None, "count": 4, "nodes": 1},
    "parallelism": {"strategy": "ddp", "offload": "none"},
    "training": None,
}


def moe(strategy="ddp", ep=None, **changes):
    data = copy.deepcopy(SMALL_MOE)
    data["parallelism"]["strategy"] = strategy
    if ep is not None:
        data["parallelism"]["expert_parallel"] = ep
    for key, value in changes.items():
        if key.startswith("hardware."):
            data["hardware"][key.split(".")[1]] = value
        elif key.startswith("parallelism."):
            data["parallelism"][key.split(".")[1]] = value
        else:
            data[key] = value
    return load_scenario(data)


# --- Expert parallelism: the scenario field ---------------------------------------------------


def test_the_routed_experts_are_counted_by_hand():
    s = moe()
    assert routed_expert_params(s.model) == ROUTED
    assert routed_trainable_params(s) == ROUTED


def test_expert_parallel_is_optional_and_written_back_only_when_stated():
    assert moe().parallelism.expert_parallel == 1
    assert "expert_parallel" not in dump_scenario(moe())["parallelism"]
    stated = moe(ep=4)
    assert stated.parallelism.expert_parallel == 4
    assert dump_scenario(stated)["parallelism"]["expert_parallel"] == 4
    assert load_scenario(dump_scenario(stated)) == stated


@pytest.mark.parametrize(
    ("changes", "ep"),
    [
        ({"model": {**SMALL_MOE["model"], "experts": None, "experts_per_token": None}}, 2),
        ({}, 3),  # 8 experts are not split over 3 GPUs
        ({"parallelism.pipeline_parallel": 2}, 4),  # 4 GPUs / 2 stages: data-parallel 2
        ({}, 0),
    ],
)
def test_expert_parallel_that_cannot_be_laid_out_is_refused(changes, ep):
    with pytest.raises(ScenarioError) as error:
        moe(ep=ep, **changes)
    assert error.value.field == "parallelism.expert_parallel"


# --- Expert parallelism: memory -----------------------------------------------------------------


def _breakdown(scenario):
    return MemoryModel(scenario).per_gpu(layout_of(scenario), context=0.0)


def test_a_replicating_strategy_keeps_a_quarter_of_the_experts_under_ep_4():
    # Two micro-batches per step: the gradients are alive at the backward-start peak.
    plain = _breakdown(moe("ddp", grad_accum=2))
    split = _breakdown(moe("ddp", ep=4, grad_accum=2))
    not_held = ROUTED * 3 / 4
    # 16-bit weights, fp32 master copy, fp32 gradients (DDP under autocast), two fp32 moments.
    assert (plain.trainable_weights - split.trainable_weights) * GIB == pytest.approx(2 * not_held)
    assert (plain.master_weights - split.master_weights) * GIB == pytest.approx(4 * not_held)
    assert (plain.optimizer_states - split.optimizer_states) * GIB == pytest.approx(8 * not_held)
    assert (plain.gradients - split.gradients) * GIB == pytest.approx(4 * not_held)
    assert split.trainable_weights * GIB == pytest.approx(2 * (DENSE + ROUTED / 4))


def test_a_fully_sharded_strategy_holds_the_same_share_with_or_without_ep():
    plain, split = _breakdown(moe("zero3")), _breakdown(moe("zero3", ep=4))
    assert split.trainable_weights == pytest.approx(plain.trainable_weights)
    assert split.optimizer_states == pytest.approx(plain.optimizer_states)
    assert split.trainable_weights * GIB == pytest.approx(2 * TOTAL / 4)


# --- Expert parallelism: time ----------------------------------------------------------------


def test_experts_are_not_reduced_across_their_expert_parallel_group():
    # ZeRO-1 reduces the gradients once per step: ring all-reduce sends 2 x 3/4 of the buffer.
    # Under EP 4 over 4 data-parallel GPUs the expert-data-parallel group is one GPU: only the
    # 10,436,608 parameters outside the routed experts are reduced (16-bit gradients).
    plain, timing = data_parallel_bytes(job_figures(moe("zero1")), "zero1", 4)
    split, _ = data_parallel_bytes(job_figures(moe("zero1", ep=4)), "zero1", 4)
    assert timing == "step"
    assert plain == pytest.approx(2 * 0.75 * TOTAL * 2)
    assert split == pytest.approx(2 * 0.75 * DENSE * 2)


def test_experts_are_not_gathered_under_fsdp_with_ep_equal_to_the_data_parallel_degree():
    # Per micro-batch: weights gathered twice (forward, backward), gradients reduce-scattered.
    split, timing = data_parallel_bytes(job_figures(moe("fsdp", ep=4)), "fsdp", 4)
    assert timing == "micro-batch"
    assert split == pytest.approx(3 * 0.75 * DENSE * 2)


def test_all_to_all_volume_and_time_by_hand():
    # 4,096 tokens x top-2 x 1024 x 2 bytes, 3/4 of it leaving the GPU, dispatch and combine in
    # the forward and again in the backward (no recomputation), 2 layers: 100,663,296 bytes at
    # 100 GB/s.
    links = Links("nvswitch", 8, intra_node_gbs=100.0, inter_node_gbs=20.0, pcie_gbs=25.0)
    job = job_figures(moe("zero1", ep=4))
    assert expert_parallel_seconds(job, links, 4) == pytest.approx(100_663_296 / 100e9)
    assert expert_parallel_seconds(job_figures(moe("zero1")), links, 4) == 0.0
    # A layout whose data-parallel degree EP does not divide runs without it.
    assert expert_parallel_seconds(job, links, 2) == 0.0


# --- Experts in a loop or grouped ------------------------------------------------------------


def test_moe_grouped_gemm_is_optional_and_written_back_only_when_given():
    assert moe().moe_grouped_gemm is None
    assert "moe_grouped_gemm" not in dump_scenario(moe())
    grouped = moe(moe_grouped_gemm=True)
    assert dump_scenario(grouped)["moe_grouped_gemm"] is True
    assert load_scenario(dump_scenario(grouped)) == grouped
    with pytest.raises(ScenarioError) as error:
        moe(moe_grouped_gemm="yes")
    assert error.value.field == "moe_grouped_gemm"


@pytest.mark.parametrize(
    ("strategy", "ep", "grouped", "calls"),
    [
        # 8 experts x 2 layers x 3 passes (forward, backward counted twice; no recomputation)
        ("zero1", None, None, 48),
        ("zero1", None, False, 48),
        # EP 4: each GPU loops over its 2 experts
        ("zero1", 4, None, 12),
        # grouped GEMM: one launch for all experts, no per-expert term
        ("zero1", None, True, 0),
    ],
)
def test_expert_loop_host_time_by_hand(strategy, ep, grouped, calls):
    changes = {} if grouped is None else {"moe_grouped_gemm": grouped}
    job = job_figures(moe(strategy, ep=ep, **changes))
    # 1 ms launch overhead per layer and pass; an expert call is 12/37 of it.
    assert expert_loop_seconds(job, 4, 1e-3) == pytest.approx(calls * 12 / 37 * 1e-3)


def test_a_dense_model_has_no_expert_loop():
    dense = {**SMALL_MOE["model"], "experts": None, "experts_per_token": None}
    assert expert_loop_seconds(job_figures(moe(model=dense)), 4, 1e-3) == 0.0


# --- DoRA's re-normalisation per micro-batch -----------------------------------------------------


@pytest.mark.parametrize(
    ("targets", "checkpointing", "expected"),
    [
        # q and v: 2 layers x 2 x 1024 x 1024 = 4,194,304 weights, 10 bytes each, one forward
        (["q_proj", "v_proj"], False, 41_943_040),
        # a recomputed forward repeats it
        (["q_proj", "v_proj"], True, 83_886_080),
        # up_proj in each of the 8 experts: 2 layers x 8 x 1024 x 512 = 8,388,608 weights
        (["up_proj"], False, 83_886_080),
    ],
)
def test_dora_renormalisation_traffic_by_hand(targets, checkpointing, expected):
    s = moe(
        method="dora",
        lora={"rank": 8, "alpha": 16, "targets": targets},
        gradient_checkpointing=checkpointing,
    )
    assert dora_bytes_per_micro_batch(s) == pytest.approx(expected)
    assert job_figures(s).dequant_bytes_per_micro_batch == pytest.approx(expected)
    lora = moe(method="lora", lora={"rank": 8, "alpha": 16, "targets": targets})
    assert dora_bytes_per_micro_batch(lora) == 0.0


# --- Sliding-window attention ------------------------------------------------------------------


def _mistral(seq_len, window):
    model = {
        "name": "Mistral 7B",
        "params_b": 7.241732,
        "layers": 32,
        "hidden": 4096,
        "heads": 32,
        "kv_heads": 8,
        "intermediate": 14336,
        "vocab": 32000,
        "tied_embeddings": False,
        "experts": None,
        "experts_per_token": None,
    }
    if window is not None:
        model["sliding_window"] = window
    return moe(
        model=model, seq_len=seq_len, **{"hardware.count": 1, "parallelism.strategy": "single"}
    )


@pytest.mark.parametrize(
    ("seq_len", "window", "keys"),
    [
        (32768, None, 16384),  # full causal: seq / 2
        (32768, 4096, 3840),  # 4096 - 4096^2 / (2 x 32768)
        (4096, 4096, 2048),  # a window as long as the sequence changes nothing
        (2048, 4096, 1024),
    ],
)
def test_attended_keys_by_hand(seq_len, window, keys):
    s = _mistral(seq_len, window)
    assert attended_keys(s) == pytest.approx(keys)
    # 32 layers x 4 FLOPs x keys x 4096 (q width) per token in the forward pass
    assert job_figures(s).flops.attention_forward == pytest.approx(32 * 4 * keys * 4096)


def test_sliding_window_is_written_back_only_when_given():
    assert "sliding_window" not in dump_scenario(_mistral(4096, None))["model"]
    windowed = _mistral(4096, 4096)
    assert dump_scenario(windowed)["model"]["sliding_window"] == 4096
    assert load_scenario(dump_scenario(windowed)) == windowed


# --- A causal mask kept as a model buffer ------------------------------------------------------


@pytest.mark.parametrize(
    ("positions", "gib"),
    [(32768, 1.0), (8192, 0.0625), (None, 0.0)],  # 32,768^2 bytes = 1 GiB exactly
)
@pytest.mark.parametrize("strategy", ["ddp", "zero3"])  # a buffer: never sharded
def test_causal_mask_buffer_by_hand(positions, gib, strategy):
    model = dict(SMALL_MOE["model"])
    if positions is not None:
        model["causal_mask_positions"] = positions
    with_mask = _breakdown(moe(strategy, model=model))
    without = _breakdown(moe(strategy))
    assert with_mask.work_buffers - without.work_buffers == pytest.approx(gib)
    if positions is not None:
        assert dump_scenario(moe(model=model))["model"]["causal_mask_positions"] == positions
    else:
        assert "causal_mask_positions" not in dump_scenario(moe())["model"]


@pytest.mark.parametrize("seq_len", [4096, 64])  # 64: the optimizer step is the peak
@pytest.mark.parametrize("ep", [None, 2, 4])
def test_a_searchs_batch_of_peaks_equals_each_layouts_peak_with_expert_parallelism(ep, seq_len):
    """MemoryModel.reserved_gibs (the placement search's batch) gives each layout's
    reserved_gib, with and without expert parallelism, on GPU counts it does and does not
    divide, at the backward-pass and at the optimizer-step peak; the routed experts' share
    changes the peak only under expert parallelism."""
    model = MemoryModel(moe("zero1", ep=ep, seq_len=seq_len))
    for gpus in (1, 2, 3, 4, 8):
        layouts = candidate_layouts(gpus, 8, allow_offload=True)
        assert model.reserved_gibs(layouts) == [model.reserved_gib(x) for x in layouts]
    ddp = [x for x in candidate_layouts(4, 8) if x.strategy == "ddp" and x.tensor_parallel == 1]
    dense = MemoryModel(moe("zero1", seq_len=seq_len)).reserved_gibs(ddp)
    assert (model.reserved_gibs(ddp) < dense) == (ep is not None)
