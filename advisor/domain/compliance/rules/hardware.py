"""Hardware rules (source items H2-H4, A3): links, NICs, local NVMe, software stack, availability."""

from __future__ import annotations

import re

from advisor.domain.compliance import citations as cite
from advisor.domain.compliance.base import Area, Evidence, Rule, Severity, Status, figure, outcome
from advisor.domain.compliance.facts import (
    AVAILABILITY_DOMESTIC,
    AVAILABILITY_LICENCE_REQUIRED,
    AVAILABILITY_NOT_AVAILABLE,
    AVAILABILITY_STATUSES,
    ComplianceInput,
)
from advisor.domain.compliance.parameters import Parameters
from advisor.domain.i18n import N_, Message

# Topologies in which every accelerator reaches every other one over the scale-up fabric.
ALL_TO_ALL_TOPOLOGIES = ("nvswitch", "hccs-mesh", "xgmi-mesh")
MULTI_NODE_NICS = ("roce", "infiniband")
# Technical names, the same in both languages (they fill message placeholders untranslated).
STACK_NAMES = {"cuda": "CUDA", "rocm": "ROCm", "cann": "CANN"}
FRAMEWORK_NAMES = {"pytorch": "PyTorch"}
# How the GPUs of a server are linked, in words (filled into messages as nested messages, so
# they read in the reader's language).
TOPOLOGY_WORDS = {
    "nvswitch": N_("NVSwitch"),
    "nvlink-pairs": N_("NVLink bridges between pairs"),
    "pcie-switch": N_("a PCIe switch"),
    "hccs-mesh": N_("an HCCS full mesh"),
    "xgmi-mesh": N_("an xGMI full mesh"),
}


def _topology(code: str):
    return Message(TOPOLOGY_WORDS[code]) if code in TOPOLOGY_WORDS else code


def _gpus_per_server(facts: ComplianceInput):
    if facts.option.gpus_per_server is not None:
        return facts.option.gpus_per_server
    return None if facts.server is None else facts.server.gpu_count


# --- H2: scale-up link inside the server ------------------------------------------------------


def intranode_link(facts: ComplianceInput, params: Parameters):
    option, server = facts.option, facts.server
    minimum = params["hw.sharded_min_gpus_per_server"]
    gpus = _gpus_per_server(facts)
    topology = None if server is None else server.topology
    bandwidth = None if server is None else figure(server.intra_node_bandwidth_gbs)
    penalty = figure(option.pcie_communication_penalty_pct)
    evidence = (
        Evidence(
            N_("The link between the GPUs inside the server"),
            topology,
            "all-to-all",
            "",
            "==",
            "topology",
        ),
        Evidence(N_("The GPU-to-GPU bandwidth per GPU"), bandwidth, None, "GB/s", ""),
        Evidence(N_("The expected communication penalty"), penalty, None, "%", ""),
    )
    if option.sharded_across_gpus is False:
        return outcome(
            Status.PASS,
            N_(
                "The job is not sharded across GPUs, so the link between them is not on the critical path."
            ),
            evidence,
        )
    if gpus is not None and gpus < minimum:
        return outcome(
            Status.PASS,
            N_("{gpus} GPUs per server: the all-to-all requirement applies from {minimum} GPUs."),
            evidence,
            gpus=gpus,
            minimum=minimum,
        )
    if option.sharded_across_gpus is None or gpus is None or topology is None:
        return outcome(
            Status.UNKNOWN,
            N_("Whether the job is sharded, or the server's GPU topology, is not known."),
            evidence,
        )
    name = _topology(topology)
    if topology in ALL_TO_ALL_TOPOLOGIES and bandwidth is None:
        return outcome(
            Status.PASS,
            N_("{gpus} GPUs joined by {topology} suit a sharded job."),
            evidence,
            gpus=gpus,
            topology=name,
        )
    if topology in ALL_TO_ALL_TOPOLOGIES:
        return outcome(
            Status.PASS,
            N_("{gpus} GPUs joined by {topology} ({bandwidth} GB/s per GPU) suit a sharded job."),
            evidence,
            gpus=gpus,
            topology=name,
            bandwidth=bandwidth,
        )
    if penalty is None:
        return outcome(
            Status.WARN,
            N_(
                "{gpus} GPUs joined by {topology}, not all-to-all: sharded training loses time to communication (penalty not estimated)."
            ),
            evidence,
            gpus=gpus,
            topology=name,
        )
    return outcome(
        Status.WARN,
        N_(
            "{gpus} GPUs joined by {topology}, not all-to-all: the sizing expects a communication penalty of {penalty}%."
        ),
        evidence,
        gpus=gpus,
        topology=name,
        penalty=penalty,
    )


# --- H4: NICs between servers ------------------------------------------------------------------


def internode_nic(facts: ComplianceInput, params: Parameters):
    option, server = facts.option, facts.server
    nic = None if server is None else server.nic_kind
    evidence = (
        Evidence(
            N_("The kind of network card between servers"), nic, MULTI_NODE_NICS, "", "in", "nic"
        ),
        Evidence(
            N_("The network card speed"),
            None if server is None else figure(server.nic_gbps),
            None,
            "Gb/s",
            "",
        ),
    )
    if option.multi_node is False:
        return outcome(
            Status.PASS, N_("The job runs on one server; no cluster network is needed."), evidence
        )
    if option.multi_node is None or nic is None:
        return outcome(
            Status.UNKNOWN,
            N_("Whether the job spans servers, or the server's NIC kind, is not known."),
            evidence,
        )
    if nic in MULTI_NODE_NICS:
        return outcome(
            Status.PASS,
            N_("The multi-server job has {nic} NICs for parameter synchronisation."),
            evidence,
            nic="RoCE" if nic == "roce" else "InfiniBand",
        )
    return outcome(
        Status.FAIL,
        N_(
            "The job spans servers but the server has plain Ethernet NICs; RoCE or InfiniBand is needed."
        ),
        evidence,
    )


# --- H4: local NVMe ------------------------------------------------------------------------


def _against_need(have, need, floor, unit, label, templates):
    evidence = (
        Evidence(
            label, have, need, unit, ">=", requirement=N_("the job needs at least {threshold}")
        ),
        Evidence(
            label,
            have,
            floor,
            unit,
            ">=",
            requirement=N_("the buyer asks for at least {threshold}"),
        ),
    )
    if have is None or need is None:
        return outcome(Status.UNKNOWN, templates["unknown"], evidence)
    if have < need:
        return outcome(Status.FAIL, templates["fail"], evidence, have=have, need=need, unit=unit)
    if have < floor:
        return outcome(Status.WARN, templates["warn"], evidence, have=have, floor=floor, unit=unit)
    return outcome(
        Status.PASS, templates["pass"], evidence, have=have, need=need, floor=floor, unit=unit
    )


def nvme_capacity(facts: ComplianceInput, params: Parameters):
    have = None if facts.server is None else figure(facts.server.nvme_usable_tb)
    return _against_need(
        have,
        figure(facts.option.nvme_needed_tb),
        params["hw.nvme_min_usable_tb"],
        "TB",
        N_("The usable local NVMe per server"),
        {
            "unknown": N_("The server's usable NVMe or the job's need is not known."),
            "fail": N_("{have} TB of usable NVMe is less than the {need} TB the job needs."),
            "warn": N_(
                "{have} TB of usable NVMe covers the job but is below the buyer's {floor} TB."
            ),
            "pass": N_(
                "{have} TB of usable NVMe covers the job's {need} TB and the {floor} TB floor."
            ),
        },
    )


def nvme_read(facts: ComplianceInput, params: Parameters):
    have = None if facts.server is None else figure(facts.server.nvme_read_gbs)
    return _against_need(
        have,
        figure(facts.option.nvme_read_needed_gbs),
        params["hw.nvme_min_read_gbs"],
        "GB/s",
        N_("The local NVMe sequential read per server"),
        {
            "unknown": N_("The server's NVMe read speed or the job's need is not known."),
            "fail": N_(
                "NVMe reads at {have} GB/s, less than the {need} GB/s the data loader needs."
            ),
            "warn": N_(
                "NVMe reads at {have} GB/s: enough for the job but below the buyer's {floor} GB/s."
            ),
            "pass": N_(
                "NVMe reads at {have} GB/s, covering the job's {need} GB/s and the {floor} GB/s floor."
            ),
        },
    )


# --- A3: software stack ------------------------------------------------------------------------


def major_version(version: str | None) -> int | None:
    match = re.match(r"\s*v?(\d+)", version or "")
    return int(match.group(1)) if match else None


def software_stack(facts: ComplianceInput, params: Parameters):
    accelerator, buyer = facts.accelerator, facts.buyer
    stack = None if accelerator is None else accelerator.software_stack
    cuda_min, torch_min = params["hw.cuda_min_major"], params["hw.pytorch_min_major"]
    evidence = (
        Evidence(
            N_("The accelerator's software stack"),
            stack,
            buyer.stack,
            "",
            "==",
            "stack",
            requirement=N_("the buyer's code targets {threshold}"),
        ),
        Evidence(
            N_("The software stack version the buyer uses"),
            buyer.stack_version,
            f"{cuda_min}.x" if stack == "cuda" else None,
            "",
            ">=" if stack == "cuda" else "",
            requirement=N_("the buyer asks for at least {threshold}"),
        ),
        Evidence(
            N_("The framework version the buyer uses"),
            buyer.framework_version,
            f"{torch_min}.x" if _is_pytorch(buyer) else None,
            "",
            ">=" if _is_pytorch(buyer) else "",
            requirement=N_("the buyer asks for at least {threshold}"),
        ),
    )
    if stack is None or buyer.stack is None:
        return outcome(
            Status.UNKNOWN,
            N_(
                "The accelerator's software stack or the buyer's framework requirement is not known."
            ),
            evidence,
        )
    if stack != buyer.stack:
        return outcome(
            Status.FAIL,
            N_(
                "The accelerator runs {stack}; the buyer's code targets {wanted}, so it must be ported first."
            ),
            evidence,
            stack=STACK_NAMES.get(stack, stack),
            wanted=STACK_NAMES.get(buyer.stack, buyer.stack),
        )
    stack_major = major_version(buyer.stack_version)
    torch_major = major_version(buyer.framework_version) if _is_pytorch(buyer) else None
    needs_stack_version = stack == "cuda"
    if (needs_stack_version and stack_major is None) or (
        _is_pytorch(buyer) and torch_major is None
    ):
        return outcome(
            Status.UNKNOWN,
            N_("The stack matches ({stack}), but the framework or stack version is not known."),
            evidence,
            stack=STACK_NAMES.get(stack, stack),
        )
    if needs_stack_version and stack_major < cuda_min:
        return outcome(
            Status.WARN,
            N_("CUDA {version} is older than the {minimum}.x the buyer asks for with PyTorch 2.x."),
            evidence,
            version=buyer.stack_version,
            minimum=cuda_min,
        )
    if torch_major is not None and torch_major < torch_min:
        return outcome(
            Status.WARN,
            N_("PyTorch {version} is older than the {minimum}.x the buyer asks for."),
            evidence,
            version=buyer.framework_version,
            minimum=torch_min,
        )
    return outcome(
        Status.PASS,
        N_("{framework} {framework_version} on {stack} {stack_version} matches the accelerator."),
        evidence,
        framework=FRAMEWORK_NAMES.get(
            (buyer.framework or "").strip().lower(), buyer.framework or "—"
        ),
        framework_version=buyer.framework_version or "",
        stack=STACK_NAMES.get(stack, stack),
        stack_version=buyer.stack_version or "",
    )


def _is_pytorch(buyer) -> bool:
    return (buyer.framework or "").strip().lower() == "pytorch"


# --- Availability / export-control status (reported, not judged) --------------------------------


def availability(facts: ComplianceInput, params: Parameters):
    record, today = facts.availability, facts.today
    max_age = params["hw.availability_max_age_days"]
    status = None if record is None else record.status
    as_of = None if record is None else record.as_of
    age = None if as_of is None else (today - as_of).days
    evidence = (
        Evidence(
            N_("The supply status the catalog records"),
            status if status in AVAILABILITY_STATUSES else None,
            None,
            "",
            "",
            "availability",
        ),
        Evidence(
            N_("The age of that record"),
            age,
            max_age,
            N_("days"),
            "<=",
            requirement=N_("it is checked again after {threshold}"),
        ),
    )
    if status not in AVAILABILITY_STATUSES or as_of is None:
        return outcome(
            Status.UNKNOWN,
            N_(
                "The catalog has no dated availability or export-control status for this accelerator."
            ),
            evidence,
        )
    if status == AVAILABILITY_LICENCE_REQUIRED:
        return outcome(
            Status.WARN,
            N_(
                "As of {date} the catalog records that exporting this accelerator to China needs a "
                "US export licence (BIS rules on advanced computing items); the accelerator's "
                "catalog entry gives the details and their sources. Confirm supply with the "
                "seller in writing; this tool does not judge the law."
            ),
            evidence,
            date=as_of.isoformat(),
        )
    if status == AVAILABILITY_NOT_AVAILABLE:
        return outcome(
            Status.WARN,
            N_(
                "As of {date} the catalog records this accelerator as not available in China; the "
                "accelerator's catalog entry gives the details and their sources. Confirm supply "
                "with the seller in writing."
            ),
            evidence,
            date=as_of.isoformat(),
        )
    if age > max_age:
        return outcome(
            Status.WARN,
            N_(
                "Status recorded on {date}, {age} days ago (more than {max_age}); check that it still holds."
            ),
            evidence,
            date=as_of.isoformat(),
            age=age,
            max_age=max_age,
        )
    if status == AVAILABILITY_DOMESTIC:
        return outcome(
            Status.PASS,
            N_("Recorded on {date} as a domestic product, not subject to US export licensing."),
            evidence,
            date=as_of.isoformat(),
        )
    return outcome(
        Status.PASS,
        N_("Recorded as available on {date} ({age} days ago)."),
        evidence,
        date=as_of.isoformat(),
        age=age,
    )


RULES = (
    Rule(
        "HW-INTRANODE-LINK",
        Area.HARDWARE,
        N_("All-to-all link inside the server"),
        N_(
            "A job sharded across a 4- or 8-GPU server needs NVLink/NVSwitch-class all-to-all links; over PCIe the GPUs wait on communication (NVSwitch 600 GB/s vs about 50 GB/s through a PCIe switch)."
        ),
        cite.INTRANODE_LINK,
        Severity.WARNING,
        intranode_link,
        ("hw.sharded_min_gpus_per_server",),
        reads=("option", "server"),
    ),
    Rule(
        "HW-INTERNODE-NIC",
        Area.HARDWARE,
        N_("RoCE or InfiniBand between servers"),
        N_(
            "A job spread over several servers needs RoCE or InfiniBand NICs so parameter synchronisation does not become the bottleneck."
        ),
        cite.INTERNODE_NIC,
        Severity.BLOCKER,
        internode_nic,
        reads=("option", "server"),
    ),
    Rule(
        "HW-NVME-CAPACITY",
        Area.HARDWARE,
        N_("Local NVMe capacity"),
        N_(
            "Each server needs enough usable local NVMe for checkpoints and logs; the buyer asks for at least 8 TB."
        ),
        cite.NVME,
        Severity.WARNING,
        nvme_capacity,
        ("hw.nvme_min_usable_tb",),
        reads=("option", "server"),
    ),
    Rule(
        "HW-NVME-READ",
        Area.HARDWARE,
        N_("Local NVMe read speed"),
        N_(
            "Data loading must keep up with the GPUs; the buyer asks for at least 6 GB/s sequential read."
        ),
        cite.NVME,
        Severity.WARNING,
        nvme_read,
        ("hw.nvme_min_read_gbs",),
        reads=("option", "server"),
    ),
    Rule(
        "HW-SOFTWARE-STACK",
        Area.HARDWARE,
        N_("Software stack and framework"),
        N_(
            "The accelerator's stack must match the buyer's code: CUDA 12.x with PyTorch 2.x on NVIDIA, CANN on Ascend, ROCm on AMD."
        ),
        cite.SOFTWARE_STACK,
        Severity.BLOCKER,
        software_stack,
        ("hw.cuda_min_major", "hw.pytorch_min_major"),
        reads=("accelerator", "buyer"),
    ),
    Rule(
        "HW-AVAILABILITY",
        Area.HARDWARE,
        N_("Availability and export-control status"),
        N_(
            "Reports the availability / export-control status the catalog records, with its date; it does not decide legal questions."
        ),
        cite.AVAILABILITY,
        Severity.WARNING,
        availability,
        ("hw.availability_max_age_days",),
        reads=("availability", "today"),
    ),
)
