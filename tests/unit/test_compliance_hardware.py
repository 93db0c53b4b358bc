"""Hardware rules (H2-H4, A3, availability) at pass, warn, fail and unknown."""

import pytest

from advisor.domain.compliance.rules.hardware import major_version
from advisor.domain.i18n import Message
from tests.unit.test_compliance_support import TODAY, days, evaluate_one, facts

P, W, F, U = "pass", "warn", "fail", "unknown"


def link(gpus, topology, sharded=True, penalty=None):
    return {
        "option": {
            "gpus_per_server": gpus,
            "sharded_across_gpus": sharded,
            "pcie_communication_penalty_pct": penalty,
        },
        "server": {"topology": topology},
    }


def nic(multi_node, kind):
    return {"option": {"multi_node": multi_node}, "server": {"nic_kind": kind}}


def nvme(have_tb=None, need_tb=None, have_gbs=None, need_gbs=None):
    return {
        "option": {"nvme_needed_tb": need_tb, "nvme_read_needed_gbs": need_gbs},
        "server": {"nvme_usable_tb": have_tb, "nvme_read_gbs": have_gbs},
    }


def stack(accelerator_stack="cuda", wanted="cuda", stack_version="12.4", framework_version="2.3"):
    return {
        "accelerator": {"software_stack": accelerator_stack},
        "buyer": {
            "stack": wanted,
            "stack_version": stack_version,
            "framework_version": framework_version,
        },
    }


def available(status, as_of):
    return {"availability": {"status": status, "as_of": as_of}}


CASES = [
    # Intra-node link for a job sharded across a 4- or 8-GPU server.
    ("HW-INTRANODE-LINK", link(8, "nvswitch"), P),
    ("HW-INTRANODE-LINK", link(8, "hccs-mesh"), P),
    ("HW-INTRANODE-LINK", link(4, "pcie-switch", penalty=30), W),
    ("HW-INTRANODE-LINK", link(8, "nvlink-pairs"), W),
    ("HW-INTRANODE-LINK", link(3, "pcie-switch"), P),
    ("HW-INTRANODE-LINK", link(8, "pcie-switch", sharded=False), P),
    ("HW-INTRANODE-LINK", link(8, None), U),
    ("HW-INTRANODE-LINK", link(8, "pcie-switch", sharded=None), U),
    # Multi-node needs RoCE or InfiniBand.
    ("HW-INTERNODE-NIC", nic(True, "roce"), P),
    ("HW-INTERNODE-NIC", nic(True, "infiniband"), P),
    ("HW-INTERNODE-NIC", nic(False, "ethernet"), P),
    ("HW-INTERNODE-NIC", nic(True, "ethernet"), F),
    ("HW-INTERNODE-NIC", nic(True, None), U),
    ("HW-INTERNODE-NIC", nic(None, "roce"), U),
    # NVMe capacity: the job's need, then the source's 8 TB floor.
    ("HW-NVME-CAPACITY", nvme(have_tb=8, need_tb=8), P),
    ("HW-NVME-CAPACITY", nvme(have_tb=7.9, need_tb=5), W),
    ("HW-NVME-CAPACITY", nvme(have_tb=4.9, need_tb=5), F),
    ("HW-NVME-CAPACITY", nvme(have_tb=None, need_tb=5), U),
    ("HW-NVME-CAPACITY", nvme(have_tb=30, need_tb=None), U),
    # NVMe read: the job's need, then the source's 6 GB/s floor.
    ("HW-NVME-READ", nvme(have_gbs=6, need_gbs=6), P),
    ("HW-NVME-READ", nvme(have_gbs=5.9, need_gbs=3), W),
    ("HW-NVME-READ", nvme(have_gbs=2.9, need_gbs=3), F),
    ("HW-NVME-READ", nvme(have_gbs=None, need_gbs=3), U),
    # Software stack: CUDA 12.x + PyTorch 2.x; CANN on Ascend; ROCm on AMD.
    ("HW-SOFTWARE-STACK", stack(), P),
    ("HW-SOFTWARE-STACK", stack(stack_version="12"), P),
    ("HW-SOFTWARE-STACK", stack(stack_version="11.8"), W),
    ("HW-SOFTWARE-STACK", stack(framework_version="1.13"), W),
    ("HW-SOFTWARE-STACK", stack(framework_version="2.x"), P),
    ("HW-SOFTWARE-STACK", stack("cann", "cann", stack_version=None), P),
    ("HW-SOFTWARE-STACK", stack("rocm", "rocm", stack_version="6.2"), P),
    ("HW-SOFTWARE-STACK", stack("cann", "cuda"), F),
    ("HW-SOFTWARE-STACK", stack("cuda", "rocm"), F),
    ("HW-SOFTWARE-STACK", stack(stack_version=None), U),
    ("HW-SOFTWARE-STACK", stack(framework_version=None), U),
    ("HW-SOFTWARE-STACK", stack(wanted=None), U),
    # Availability / export-control status as recorded, stale after 90 days.
    ("HW-AVAILABILITY", available("available", days(-90)), P),
    ("HW-AVAILABILITY", available("available", days(-91)), W),
    ("HW-AVAILABILITY", available("licence-required", days(-10)), W),
    ("HW-AVAILABILITY", available("not-available", days(-10)), W),
    ("HW-AVAILABILITY", available("domestic", days(-10)), P),
    ("HW-AVAILABILITY", available("domestic", days(-91)), W),
    ("HW-AVAILABILITY", available("unknown", days(-10)), U),
    ("HW-AVAILABILITY", available("available", None), U),
    ("HW-AVAILABILITY", available(None, days(-10)), U),
    ("HW-AVAILABILITY", {"availability": None}, U),
]


@pytest.mark.parametrize(("rule_id", "overrides", "expected"), CASES)
def test_hardware_rule(rule_id, overrides, expected):
    finding = evaluate_one(rule_id, facts(**overrides))
    assert finding.status == expected, finding.message.render()


def test_pcie_warning_carries_the_sizing_penalty():
    finding = evaluate_one("HW-INTRANODE-LINK", facts(**link(8, "pcie-switch", penalty=35)))
    assert finding.message.params == {
        "gpus": 8,
        "topology": Message("a PCIe switch"),
        "penalty": 35,
    }
    assert finding.message.render() == (
        "8 GPUs joined by a PCIe switch, not all-to-all: the sizing expects a communication "
        "penalty of 35%."
    )


def test_intranode_falls_back_to_server_gpu_count():
    overrides = link(None, "pcie-switch")
    finding = evaluate_one("HW-INTRANODE-LINK", facts(**overrides))
    assert finding.status == "warn"
    assert finding.message.params["gpus"] == 8


def test_availability_never_fails_even_when_not_available():
    finding = evaluate_one("HW-AVAILABILITY", facts(**available("not-available", TODAY)))
    assert finding.status == "warn"
    assert finding.message.params["date"] == TODAY.isoformat()


@pytest.mark.parametrize(
    ("text", "major"), [("12.4", 12), ("v2.3.1", 2), ("2.x", 2), ("", None), ("latest", None)]
)
def test_major_version(text, major):
    assert major_version(text) == major
