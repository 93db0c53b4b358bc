"""Accelerator, server and maker names as a reader of each language sees them.

The names come from the shipped fixtures (read without Django, as the domain reads them), so a
changed or lost Chinese name in ``fixtures/build_hardware.py`` fails here.
"""

import json
from pathlib import Path

import pytest

from advisor.domain.hardware import load_fixture_specs
from advisor.domain.i18n import local_name
from advisor.domain.plain import jsonable
from tests.unit.test_fixture_sources import dumped, load_builder

CATALOG = Path(__file__).resolve().parents[2] / "fixtures" / "catalog"
ACCELERATORS, SERVERS = load_fixture_specs(CATALOG)
RECORDS = {**ACCELERATORS, **SERVERS}


@pytest.mark.parametrize(
    ("key", "field", "chinese", "english"),
    [
        (
            "ascend-910b-64gb",
            "name",
            "昇腾 910B 64GB",
            "Ascend 910B 64GB (910B1-B3, Atlas 800T A2)",
        ),
        ("ascend-910b-64gb", "maker", "华为", "Huawei"),
        ("ascend-910c-128gb", "name", "昇腾 910C", "Ascend 910C"),
        ("mlu370-x8-48gb", "name", "思元370-X8 48GB", "MLU370-X8 48GB"),
        ("mlu370-x8-48gb", "maker", "寒武纪", "Cambricon"),
        (
            "gb200-186gb",
            "name",
            "GB200 186GB（按单颗 Blackwell GPU 计）",
            "GB200 186GB (per Blackwell GPU)",
        ),
        ("a10g-24gb", "name", "A10G 24GB（AWS EC2 G5 实例）", "A10G 24GB (AWS EC2 G5)"),
        ("atlas-800t-a2", "name", "Atlas 800T A2 训练服务器", "Atlas 800T A2 (8× Ascend 910B)"),
        ("atlas-800t-a2", "maker", "华为", "Huawei"),
        ("hgx-h100-8gpu", "name", "HGX H100 8卡服务器", "HGX H100 8-GPU server"),
        ("hgx-a800-8gpu", "name", "HGX A800 80GB 8卡服务器", "HGX A800 80GB 8-GPU server"),
        ("hgx-h20-8gpu", "maker", "多家 OEM", "Various OEMs"),
        (
            "amd-mi300x-8gpu-mlperf",
            "name",
            "8× Instinct MI300X 平台（MLPerf v4.1 参考系统）",
            "8× Instinct MI300X platform (MLPerf v4.1 reference system)",
        ),
        ("dell-xe9680-h100", "maker", "戴尔", "Dell"),
        ("supermicro-sys-821ge-tnhr", "maker", "超微", "Supermicro"),
        # No Chinese name of their own: the English one on both pages.
        ("h100-sxm-80gb", "name", "H100 SXM5 80GB", "H100 SXM5 80GB"),
        ("h100-sxm-80gb", "maker", "NVIDIA", "NVIDIA"),
        ("dgx-h100", "name", "DGX H100", "DGX H100"),
        ("mi300x-192gb", "maker", "AMD", "AMD"),
    ],
)
def test_hardware_names_in_each_language(key, field, chinese, english):
    record = RECORDS[key]
    stored = jsonable(record)  # a brief's snapshot holds the spec as a dict
    for value in (record, stored):
        assert local_name(value, "zh-hans", field) == chinese
        assert local_name(value, "zh", field) == chinese
        assert local_name(value, "en", field) == english
        assert local_name(value, None, field) == english


def test_a_brief_stored_before_the_chinese_names_shows_the_english_name():
    stored = {"key": "atlas-800t-a2", "maker": "Huawei", "name": "Atlas 800T A2 (8× Ascend 910B)"}
    assert local_name(stored, "zh-hans") == "Atlas 800T A2 (8× Ascend 910B)"
    assert local_name(stored, "zh-hans", "maker") == "Huawei"


def test_every_hardware_record_has_both_chinese_fields():
    for record in RECORDS.values():
        assert isinstance(record.name_zh, str) and isinstance(record.maker_zh, str), record.key


@pytest.mark.parametrize("function", ["accelerator_records", "server_records"])
def test_the_hardware_fixture_build_is_deterministic(function, monkeypatch):
    """Two builds write the same bytes, and the Chinese fields sit beside their English ones."""
    first = dumped(getattr(load_builder("build_hardware.py", monkeypatch), function)())
    second = dumped(getattr(load_builder("build_hardware.py", monkeypatch), function)())
    assert first == second
    for record in json.loads(first):
        names = list(record["fields"])
        assert names[names.index("maker") + 1] == "maker_zh"
        assert names[names.index("name") + 1] == "name_zh"
