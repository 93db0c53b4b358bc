import functools
from dataclasses import replace
from pathlib import Path

import polib
import pytest

from advisor.domain.delivery.checklist import (
    DeliveryInputs,
    acceptance_checklist,
    contract_terms,
    expected_bus_bandwidth_gbs,
    operating_risks,
)
from advisor.domain.hardware import load_fixture_specs

ACCELERATORS, SERVERS = load_fixture_specs(Path(__file__).resolve().parents[2] / "fixtures/catalog")


def inputs(accelerator="h100-sxm-80gb", server=None, **changes):
    base = DeliveryInputs(
        accelerator=ACCELERATORS[accelerator],
        server=SERVERS.get(server) if server else None,
        gpus_per_server=8,
        servers=1,
    )
    return replace(base, **changes)


def by_item(items):
    return {i.item: i.check.render() for i in items}


@pytest.mark.parametrize(
    ("accelerator", "expected_gbs"),
    [
        ("h100-sxm-80gb", 450.0),  # NVLink 4: 900 GB/s bidirectional per GPU
        ("a100-sxm-80gb", 300.0),  # NVLink 3: 600
        ("a800-sxm-80gb", 200.0),  # export-limited NVLink: 400
    ],
)
def test_bus_bandwidth_is_half_the_bidirectional_link(accelerator, expected_gbs):
    assert expected_bus_bandwidth_gbs(inputs(accelerator)) == pytest.approx(expected_gbs)


def test_collective_check_states_expected_and_acceptance_threshold():
    text = by_item(acceptance_checklist(inputs()))["A2"]
    assert "450 GB/s" in text and "360 GB/s" in text
    assert "nccl-tests all_reduce_perf" in text and "-g 8" in text


def test_unknown_link_asks_the_vendor():
    accelerator = replace(ACCELERATORS["h100-sxm-80gb"], interconnect_bandwidth_gbs=None)
    items = acceptance_checklist(DeliveryInputs(accelerator, None, gpus_per_server=8, servers=1))
    assert "ask the vendor" in by_item(items)["A2"]


@pytest.mark.parametrize(
    ("stack", "tool", "framework"),
    [
        ("cuda", "nccl-tests", "CUDA 12.x"),
        ("rocm", "rccl-tests", "ROCm"),
        ("cann", "hccl_test", "CANN"),
    ],
)
def test_tools_and_frameworks_follow_the_software_stack(stack, tool, framework):
    accelerator = replace(ACCELERATORS["h100-sxm-80gb"], software_stack=stack)
    items = by_item(
        acceptance_checklist(DeliveryInputs(accelerator, None, gpus_per_server=8, servers=2))
    )
    assert tool in items["A2"]
    assert framework in items["A3"]


@pytest.mark.parametrize(
    ("need_gbs", "need_tb", "read", "capacity"),
    [(None, None, "6.0", "8"), (2.5, 3.0, "6.0", "8"), (9.25, 12.0, "9.2", "12")],
)
def test_data_cache_asks_for_the_larger_of_source_minimum_and_sizing(
    need_gbs, need_tb, read, capacity
):
    text = by_item(acceptance_checklist(inputs(read_needed_gbs=need_gbs, nvme_needed_tb=need_tb)))[
        "A4"
    ]
    assert f"at least {read} GB/s" in text and f"at least {capacity} TB" in text


def test_backup_size_in_risks():
    # 500 GiB x 3 kept = 1,500 GiB = 1,610.6 GB -> 1.7 TB (rounded up to a tenth)
    risks = by_item(operating_risks(inputs(checkpoint_gib=500.0, checkpoints_kept=3, servers=2)))
    assert "500.0 GiB each, 3 kept, about 1.7 TB" in risks["O1"]
    assert "20–30%" in risks["O2"]
    assert "all 2 servers" in risks["O3"]
    one = by_item(operating_risks(inputs(checkpoint_gib=500.0, checkpoints_kept=3, servers=1)))
    assert "O3" not in one  # versions across servers: only for two or more


def test_contract_terms_cover_s6():
    text = " ".join(i.check.render() for i in contract_terms())
    assert "7×24" in text and "within 2 hours" in text and "MTTR" in text


DELIVERY_PO = (
    Path(__file__).resolve().parents[2]
    / "advisor/domain/delivery/locale/zh_Hans/LC_MESSAGES/django.po"
)


@functools.cache
def _catalogue() -> dict[str, str]:
    return {e.msgid: e.msgstr for e in polib.pofile(str(DELIVERY_PO)) if e.msgstr}


def _zh(text):
    return _catalogue().get(text, text)


@pytest.mark.parametrize(
    ("stack", "monitor", "tool", "never"),
    [
        ("cuda", "nvidia-smi", "DCGM", ("npu-smi", "amd-smi")),
        ("rocm", "amd-smi", "ROCm Validation Suite", ("nvidia-smi", "Xid", "DCGM")),
        ("cann", "npu-smi", "ascend-dmi", ("nvidia-smi", "Xid", "DCGM", "gpu-burn")),
        ("other", None, None, ("nvidia-smi", "npu-smi", "Xid")),
    ],
)
def test_burn_in_names_the_stacks_own_tools_in_both_languages(stack, monitor, tool, never):
    # An Ascend option reads npu-smi, never nvidia-smi (issue 27).
    accelerator = replace(ACCELERATORS["h100-sxm-80gb"], software_stack=stack)
    (burn_in,) = [
        i
        for i in acceptance_checklist(
            DeliveryInputs(accelerator, None, gpus_per_server=8, servers=1)
        )
        if i.item == "A1"
    ]
    for text in (burn_in.check.render(), burn_in.check.render(_zh), _zh(burn_in.citation)):
        for word in never:
            assert word not in text, text
    if monitor:
        assert monitor in burn_in.check.render() and monitor in burn_in.check.render(_zh)
        assert tool in burn_in.check.render()
    assert "30" in burn_in.check.render(_zh) and "采购方要求（来源文章）" in _zh(burn_in.citation)
