"""``manage.py size``: JSON and table output from catalog rows; bad input exits 2 in one line."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.support.catalog import load_catalog

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]

SCENARIO = {
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
    "lora": {"rank": 16, "alpha": 32, "targets": "all-linear"},
    "precision": "bf16",
    "quant_bits": None,
    "optimizer": "adamw",
    "optimizer_in_backward": False,
    "seq_len": 4096,
    "micro_batch": 2,
    "grad_accum": 8,
    "gradient_checkpointing": True,
    "flash_attention": True,
    "packed": True,
    "hardware": {"accelerator": "h100-sxm-80gb", "count": 8, "nodes": 1},
    "parallelism": {
        "strategy": "ddp",
        "offload": "none",
        "tensor_parallel": 1,
        "pipeline_parallel": 1,
    },
    "training": {"dataset_tokens": 200_000_000, "epochs": 2},
}

REQUIRED_KEYS = {
    "memory_per_gpu_gib",
    "fits",
    "max_micro_batch",
    "tokens_per_s",
    "time_to_train_hours",
    "gpu_hours",
    "power_kw_per_server",
    "checkpoint_gib",
    "assumptions",
}


@pytest.fixture
def catalog():
    load_catalog()


def write(tmp_path, data, name="scenario.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def run_json(path, *extra):
    out = io.StringIO()
    call_command("size", "--input", str(path), "--format", "json", *extra, stdout=out)
    return json.loads(out.getvalue())


def test_json_output_has_every_documented_key(catalog, tmp_path):
    result = run_json(write(tmp_path, SCENARIO))
    assert set(result) >= REQUIRED_KEYS
    memory = result["memory_per_gpu_gib"]
    assert memory["total"] == pytest.approx(
        sum(v for k, v in memory.items() if k != "total"), abs=0.05
    )
    assert {"frozen_weights", "activations", "logits", "optimizer_states"} <= set(memory)
    assert result["fits"] is True
    assert result["max_micro_batch"] >= 2
    assert result["tokens_per_s"] > 0
    # 400 M tokens at the predicted rate, and GPU-hours = hours x 8 GPUs.
    assert result["time_to_train_hours"] == pytest.approx(
        400e6 / result["tokens_per_s"] / 3600, rel=0.01
    )
    assert result["gpu_hours"] == pytest.approx(result["time_to_train_hours"] * 8, rel=0.01)
    assert result["power_kw_per_server"] > 0
    assert result["checkpoint_gib"] > 0
    assert result["server"] is not None  # a catalog server holding the H100 was picked
    assert all(isinstance(s, str) and s for s in result["assumptions"])


def test_accelerator_and_gpu_options_override_the_file(catalog, tmp_path):
    path = write(tmp_path, SCENARIO)
    small = run_json(path, "--accelerator", "rtx-4090-24gb", "--gpus", "1")
    assert small["accelerator"] == "rtx-4090-24gb"
    assert small["gpus"] == 1
    assert small["fits"] is False
    assert small["fewest_gpus"]["gpus"] > 1


def test_chinese_assumptions(catalog, tmp_path):
    result = run_json(write(tmp_path, SCENARIO), "--language", "zh-hans")
    assert any(
        "GiB" in s and any("\u4e00" <= ch <= "\u9fff" for ch in s) for s in result["assumptions"]
    )


def test_table_is_aligned_with_units(catalog, tmp_path):
    out = io.StringIO()
    call_command("size", "--input", str(write(tmp_path, SCENARIO)), stdout=out)
    lines = out.getvalue().splitlines()
    table = lines[: lines.index("Assumptions")]
    valued = [line for line in table if line.endswith(("GiB", "tokens/s", "kW", "h", "GPU-h"))]
    assert len(valued) >= 10
    assert len({len(line) for line in valued}) == 1  # right-aligned values
    assert any(line.strip().startswith("Total") for line in table)


def bad(tmp_path, data, *extra):
    with pytest.raises(CommandError) as caught:
        call_command("size", "--input", str(write(tmp_path, data)), *extra, stdout=io.StringIO())
    assert caught.value.returncode == 2
    message = str(caught.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d["model"].update(layers=0), "model.layers"),
        (lambda d: d.update(seq_len=-5), "seq_len"),
        (lambda d: d.update(method="prompt"), "method"),
        (lambda d: d["parallelism"].update(strategy="mesh"), "parallelism.strategy"),
        (lambda d: d["hardware"].update(accelerator="no-such-gpu"), "hardware.accelerator"),
    ],
)
def test_bad_scenario_names_the_field(catalog, tmp_path, change, field):
    data = json.loads(json.dumps(SCENARIO))
    change(data)
    assert bad(tmp_path, data).startswith(field)


def test_a_null_accelerator_gives_memory_per_gpu_only(catalog, tmp_path):
    data = json.loads(json.dumps(SCENARIO))
    data["hardware"]["accelerator"] = None
    result = run_json(write(tmp_path, data))
    named = run_json(write(tmp_path, SCENARIO, name="named.json"))
    assert result["accelerator"] is None and result["fits"] is None
    assert result["capacity_gib"] is None and result["max_micro_batch"] is None
    assert result["tokens_per_s"] is None and result["time_to_train_hours"] is None
    assert result["power_kw_per_server"] is None and result["fewest_gpus"] is None
    assert (result["gpus"], result["strategy"]) == (named["gpus"], named["strategy"])
    # The same layout on a named card: the same memory (no card-specific figure involved).
    assert result["memory_per_gpu_gib"]["total"] == pytest.approx(
        named["memory_per_gpu_gib"]["total"], abs=0.01
    )
    out = io.StringIO()
    call_command("size", "--input", str(write(tmp_path, data)), stdout=out)
    assert "Total" in out.getvalue()
    assert bad(tmp_path, data, "--server", "any").startswith("server:")


def test_bad_json_and_bad_options(catalog, tmp_path):
    assert bad(tmp_path, "{not json").startswith("input:")
    assert bad(tmp_path, SCENARIO, "--gpus", "0").startswith("gpus:")
    assert bad(tmp_path, SCENARIO, "--server", "nope").startswith("server:")


def test_process_exit_code_and_single_line_on_stderr(tmp_path):
    data = json.loads(json.dumps(SCENARIO))
    data["micro_batch"] = 0
    path = write(tmp_path, data)
    process = subprocess.run(
        [sys.executable, "manage.py", "size", "--input", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert process.returncode == 2
    lines = process.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "micro_batch" in lines[0]


@pytest.mark.parametrize("packed", [True, False])
def test_the_device_reading_is_shown_only_when_lengths_vary(catalog, tmp_path, packed):
    path = write(tmp_path, {**SCENARIO, "packed": packed})
    result = run_json(path)
    total = result["memory_per_gpu_gib"]["total"]
    out = io.StringIO()
    call_command("size", "--input", str(path), stdout=out)
    rows = [line for line in out.getvalue().splitlines() if "Device reading up to" in line]
    if packed:
        assert result["memory_reading_gib"] == pytest.approx(total, abs=0.01)
        assert not rows
    else:
        assert result["memory_reading_gib"] > total
        low, high = result["memory_reading_range_gib"]
        # With checkpointing the planning figure is the range's upper end (decision 0052).
        assert low == pytest.approx(total, abs=0.01)
        assert high >= result["memory_reading_gib"] > total + 1
        assert len(rows) == 1 and rows[0].endswith(f"{high:,.2f} GiB")
