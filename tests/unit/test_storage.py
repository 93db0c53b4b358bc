"""Checkpoint sizes, retention, local NVMe and read rate."""

import copy
import math
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.domain.hardware import load_fixture_specs
from advisor.domain.scenario import load_scenario
from advisor.domain.sizing.storage import (
    SOURCE_MIN_NVME_TB,
    RetentionPolicy,
    checkpoint_bytes,
    estimate_storage,
)
from tests.support.scenarios import llama2_7b_full

ROOT = Path(__file__).resolve().parents[2]
_, SERVERS = load_fixture_specs(ROOT / "fixtures" / "catalog")
GIB = 2**30
P = 6_738_415_616  # Llama 2 7B parameters

# Llama 2 7B, full fine-tuning under ZeRO-3 on eight H100s, 2,048-token sequences, one
# micro-batch per step, 1 B tokens for three epochs.
BASE = {
    **llama2_7b_full("h100-sxm-80gb", "zero3"),
    "seq_len": 2048,
    "grad_accum": 1,
    "training": {"dataset_tokens": 1_000_000_000, "epochs": 3},
}


def scenario(**changes):
    data = copy.deepcopy(BASE)
    data.update(changes)
    return load_scenario(data)


@pytest.mark.parametrize(
    ("changes", "bytes_per_param"),
    [
        # amp-bf16 AdamW: 2 (bf16 weights) + 4 (fp32 master) + 2 x 4 (moments) = 14
        ({}, 14),
        # pure bf16 AdamW: 2 + 2 x 2 = 6
        ({"precision": "bf16"}, 6),
        # pure bf16 8-bit AdamW: 2 + 2 x 1 = 4
        ({"precision": "bf16", "optimizer": "adamw-8bit"}, 4),
        # fp32: 4 + 2 x 4 = 12
        ({"precision": "fp32"}, 12),
    ],
)
def test_full_checkpoint_bytes_per_parameter(changes, bytes_per_param):
    checkpoint, weights = checkpoint_bytes(scenario(**changes))
    assert checkpoint == pytest.approx(P * bytes_per_param)
    assert weights == pytest.approx(P * (4 if changes.get("precision") == "fp32" else 2))


def test_lora_checkpoint_holds_only_the_adapters():
    s = scenario(method="lora", lora={"rank": 8, "alpha": 16, "targets": ["q_proj", "v_proj"]})
    adapters = 32 * 2 * 8 * (4096 + 4096)  # 4,194,304
    checkpoint, weights = checkpoint_bytes(s)
    assert checkpoint == pytest.approx(adapters * 14)
    assert weights == pytest.approx(adapters * 2)


def test_retention_default_keeps_one_checkpoint_per_epoch():
    e = estimate_storage(scenario())
    assert e.checkpoints_written == 3 and e.checkpoints_kept == 3
    assert e.backup_gib == pytest.approx(3 * P * 14 / GIB)


def test_retention_keep_last():
    policy = RetentionPolicy(checkpoints_per_epoch=4, keep_last=2)
    e = estimate_storage(scenario(), policy=policy)
    assert e.checkpoints_written == 12 and e.checkpoints_kept == 2
    assert e.backup_gib == pytest.approx(2 * P * 14 / GIB)


def test_local_nvme_need_and_the_source_floor():
    e = estimate_storage(scenario())
    # two checkpoints (2 x 94.3 GB) + 1e9 tokens x 20 bytes, with 20 % left free
    needed = (2 * P * 14 + 20e9) / 0.8 / 1e12
    assert e.local_nvme_needed_tb == pytest.approx(needed)
    assert e.local_nvme_recommended_tb == SOURCE_MIN_NVME_TB  # 0.29 TB < 8 TB floor


def test_a_large_full_fine_tune_needs_more_than_the_floor():
    big = {
        **BASE["model"],
        "name": "Llama 2 70B",
        "params_b": 68.976648192,
        "layers": 80,
        "hidden": 8192,
        "heads": 64,
        "kv_heads": 8,
        "intermediate": 28672,
    }
    e = estimate_storage(scenario(model=big, training={"dataset_tokens": 5e10, "epochs": 1}))
    # 2 x 68.98e9 x 14 B + 5e10 x 20 B = 2.93 TB -> / 0.8 = 3.66 TB: still under 8 TB
    assert e.local_nvme_needed_tb == pytest.approx((2 * 68.976648192e9 * 14 + 1e12) / 0.8 / 1e12)


def test_read_rate_needed_versus_the_source_floor():
    server = replace(SERVERS["dgx-h100"], nvme_read_gbs=25.0)
    e = estimate_storage(scenario(), tokens_per_s=100_000, server=server, servers=2)
    # 100,000 tokens/s over 2 servers x 16 bytes = 0.0008 GB/s per server
    assert e.feed_read_gbs == pytest.approx(0.0008)
    assert e.source_min_read_gbs == 6.0
    assert e.read_sufficient is True
    assert e.nvme_sufficient is True  # 30.72 TB >= 8 TB
    # one 94.3 GB checkpoint reloads in 94.3 / 25 = 3.77 s
    assert e.checkpoint_load_s == pytest.approx(P * 14 / 25e9)


def test_server_below_the_floor_is_flagged():
    server = replace(SERVERS["dgx-h100"], nvme_usable_tb=3.84, nvme_read_gbs=3.0)
    e = estimate_storage(scenario(), server=server)
    assert e.nvme_sufficient is False and e.read_sufficient is False
    assert all(m.render() for m in e.assumptions)


@settings(max_examples=100, deadline=None)
@given(
    method=st.sampled_from(["full", "lora", "qlora", "dora", "freeze"]),
    precision=st.sampled_from(["bf16", "fp16", "fp32", "amp-bf16", "amp-fp16"]),
    optimizer=st.sampled_from(
        ["adamw", "adamw-8bit", "paged-adamw-8bit", "paged-adamw", "sgd", "adafactor"]
    ),
    tokens=st.one_of(st.none(), st.integers(1, 10**13)),
    epochs=st.one_of(st.none(), st.floats(0.001, 100)),
    tokens_per_s=st.one_of(st.none(), st.floats(1, 1e7)),
    keep_last=st.one_of(st.none(), st.integers(1, 50)),
)
def test_no_negative_or_nan_storage_figure(
    method, precision, optimizer, tokens, epochs, tokens_per_s, keep_last
):
    changes = {
        "method": method,
        "precision": precision,
        "optimizer": optimizer,
        "training": {"dataset_tokens": tokens, "epochs": epochs},
    }
    if method in ("lora", "qlora", "dora"):
        changes["lora"] = {"rank": 16, "alpha": 32, "targets": "all-linear"}
    if method == "qlora":
        changes["quant_bits"] = 4
        if precision == "fp32":  # refused for QLoRA (it computes in 16 bits)
            changes["precision"] = "bf16"
    e = estimate_storage(
        scenario(**changes), tokens_per_s, SERVERS["dgx-h100"], RetentionPolicy(keep_last=keep_last)
    )
    for value in (
        e.checkpoint_gib,
        e.weights_gib,
        e.backup_gib,
        e.local_nvme_needed_tb,
        e.local_nvme_recommended_tb,
        e.checkpoint_load_s,
        e.feed_read_gbs,
        e.dataset_gib,
    ):
        if value is not None:
            assert math.isfinite(value) and value >= 0
    assert 1 <= e.checkpoints_kept <= e.checkpoints_written
    assert e.local_nvme_recommended_tb >= SOURCE_MIN_NVME_TB
