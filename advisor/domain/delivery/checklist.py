"""Acceptance checklist (A1–A4), operating risks (O1–O3) and contract terms (S6).

The item ids name the source article's items the buyer supplied; what a reader sees cites
public documents where they exist and otherwise says that the figure is the buyer's
requirement (docs/decisions/0026-public-citations.md, amendment 2026-12).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from advisor.domain.hardware import AcceleratorSpec, ServerSpec
from advisor.domain.i18n import N_, Message

# A1: the buyer (source article) asks for a 30-minute full-load burn-in with a smooth
# temperature curve.
BURN_IN_MIN = 30
# A2: nccl-tests reports "bus bandwidth", normalised so that it is comparable with the
# hardware's per-GPU unidirectional link bandwidth (NVIDIA/nccl-tests doc/PERFORMANCE.md,
# "Bus bandwidth"). Our catalog stores per-GPU *bidirectional* aggregate bandwidth
# (NVIDIA's convention, e.g. NVLink 4 = 900 GB/s), so the theoretical bus bandwidth is half.
BIDIRECTIONAL_TO_BUS = 0.5
# Tuned 8-GPU NVSwitch systems reach roughly 80-90 % of the link rate in all_reduce_perf at
# large message sizes; below 80 % points at a cabling, topology or driver problem.
ACCEPTABLE_BUS_FRACTION = 0.8
# A4 / H4: the buyer asks for at least 8 TB usable local NVMe and 6 GB/s sequential read.
SOURCE_MIN_NVME_TB = 8.0
SOURCE_MIN_READ_GBS = 6.0
# O2: the source article puts the throughput lost to thermal throttling at 20-30 %.
THROTTLE_LOSS_PCT = (20, 30)
# S6: the buyer's operations terms.
SPARE_PARTS_H = 2
FAULT_RESPONSE_H = 24

COLLECTIVE_TOOLS = {
    "cuda": "nccl-tests all_reduce_perf -b 8 -e 8G -f 2 -g {gpus}",
    "rocm": "rccl-tests all_reduce_perf -b 8 -e 8G -f 2 -g {gpus}",
    "cann": "hccl_test (mpirun -n {gpus} all_reduce_test -b 8 -e 8G -f 2 -p {gpus})",
}
FRAMEWORKS = {
    "cuda": "CUDA 12.x, PyTorch 2.x (CUDA), NCCL 2.x",
    "rocm": "ROCm 6.x, PyTorch 2.x (ROCm), RCCL",
    "cann": "CANN 8.x, torch_npu + PyTorch 2.x, HCCL",
}
# A1 per software stack: the stress tool, the monitor that shows clocks and temperatures, and
# the errors that must not appear (NVIDIA's Xid errors exist only on NVIDIA GPUs; an Ascend
# NPU is read with npu-smi, not nvidia-smi).
BURN_IN_CHECKS = {
    "cuda": N_(
        "Run all {gpus} accelerators of every server at full load for {minutes} minutes "
        "(e.g. DCGM diagnostics level 3 or gpu-burn) and watch them with nvidia-smi. The "
        "temperature curve must level off smoothly, clocks must not drop, and no ECC or Xid "
        "errors may appear."
    ),
    "rocm": N_(
        "Run all {gpus} accelerators of every server at full load for {minutes} minutes "
        "(e.g. the ROCm Validation Suite's GPU stress test) and watch them with amd-smi. The "
        "temperature curve must level off smoothly, clocks must not drop, and no ECC errors "
        "may appear."
    ),
    "cann": N_(
        "Run all {gpus} NPUs of every server at full load for {minutes} minutes (e.g. the "
        "Ascend DMI stress test, ascend-dmi --dg --scene stressTest) and watch them with "
        "npu-smi. The temperature curve must level off smoothly, clocks must not drop, and no "
        "ECC errors or device alarms may appear."
    ),
}
BURN_IN_FALLBACK = N_(
    "Run all {gpus} accelerators of every server at full load for {minutes} minutes with the "
    "maker's stress test and monitoring tool. The temperature curve must level off smoothly, "
    "clocks must not drop, and no memory (ECC) errors may appear."
)

# What each item cites: a public document where one exists, otherwise the buyer's requirement.
CITE_BURN_IN = {
    "cuda": N_(
        "Buyer's requirement (source article): a 30-minute full-load burn-in; no public "
        "standard sets the duration. Tool: NVIDIA Data Center GPU Manager (DCGM) "
        "diagnostics, https://docs.nvidia.com/datacenter/dcgm/latest/user-guide/dcgm-diagnostics.html"
    ),
    "rocm": N_(
        "Buyer's requirement (source article): a 30-minute full-load burn-in; no public "
        "standard sets the duration. Tool: AMD ROCm Validation Suite (RVS), "
        "https://github.com/ROCm/ROCmValidationSuite"
    ),
    "cann": N_(
        "Buyer's requirement (source article): a 30-minute full-load burn-in; no public "
        "standard sets the duration. Tool: Huawei Ascend DMI, MindCluster toolbox user guide, "
        "https://www.hiascend.com/document/detail/zh/mindcluster/latest/toolbox/toolboxug/toolboxug_0010.html"
    ),
}
CITE_BURN_IN_FALLBACK = N_(
    "Buyer's requirement (source article): a 30-minute full-load burn-in; no public standard "
    "sets the duration."
)
CITE_COLLECTIVES = {
    "cuda": N_(
        "NVIDIA nccl-tests, Performance reported by NCCL tests (bus bandwidth), "
        "https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md; accepting 0.8 times "
        "the theoretical bus bandwidth is a rule of thumb of this tool."
    ),
    "rocm": N_(
        "AMD rccl-tests, https://github.com/ROCm/rccl-tests (the bus bandwidth as nccl-tests "
        "defines it); accepting 0.8 times the theoretical bus bandwidth is a rule of thumb of this "
        "tool."
    ),
    "cann": N_(
        "Huawei CANN documentation, HCCL performance test tool (hccl_test), "
        "https://www.hiascend.com/document; accepting 0.8 times the theoretical bus bandwidth is "
        "a rule of thumb of this tool."
    ),
}
CITE_SOFTWARE = {
    "cuda": N_(
        "PyTorch Release Compatibility Matrix, "
        "https://github.com/pytorch/pytorch/blob/main/RELEASE.md#release-compatibility-matrix. "
        "Buyer's requirement (source article): one version set on every node."
    ),
    "rocm": N_(
        "AMD ROCm compatibility matrix, "
        "https://rocm.docs.amd.com/en/latest/compatibility/compatibility-matrix.html. Buyer's "
        "requirement (source article): one version set on every node."
    ),
    "cann": N_(
        "Huawei Ascend Extension for PyTorch (torch_npu), version compatibility table, "
        "https://gitee.com/ascend/pytorch. Buyer's requirement (source article): one version "
        "set on every node."
    ),
}
CITE_SOFTWARE_FALLBACK = N_(
    "Buyer's requirement (source article): driver and framework versions agreed in writing and "
    "identical on every node."
)
CITE_DATA_CACHE = N_(
    "Buyer's requirement (source article): at least 8 TB of usable local NVMe and 6 GB/s "
    "sequential read per server; no public standard sets these figures. Measure with fio, "
    "https://fio.readthedocs.io/"
)
CITE_BACKUP = N_(
    "Buyer's requirement (source article): a checkpoint backed up at least every epoch to "
    "separate storage."
)
CITE_THROTTLING = N_(
    "Buyer's requirement (source article): watch clocks and temperatures; the loss of 20 to 30 percent is "
    "the article's estimate, not a measured figure."
)
CITE_VERSIONS = N_(
    "Buyer's requirement (source article): the same firmware, drivers and software on every node."
)
CITE_CLOUD_INSTANCE = N_(
    "Buyer's requirement: the instance type, count and region as ordered; checked on delivery."
)
CITE_CLOUD_RESIDENCY = N_(
    "《中华人民共和国个人信息保护法》(Personal Information Protection Law of the PRC), Articles "
    "38-40; 《中华人民共和国数据安全法》(Data Security Law of the PRC), Article 31 (data processed "
    "in China, and what may leave it)."
)
# The monitor that lists a stack's accelerators.
SMI = {"cuda": "nvidia-smi", "rocm": "amd-smi", "cann": "npu-smi info"}
CITE_CONTRACT = N_(
    "Buyer's requirement (source article): a service-level term to agree in the contract; no "
    "public standard sets it."
)


# How the capacity is obtained decides what there is to accept and to agree: a cloud instance
# has no server room of yours, a rented server no purchase, the buyer's own room no colocation.
MODE_BUY = "buy"
MODE_OWN = "own"
MODE_RENT = "rent"
MODE_CLOUD = "cloud"


@dataclass(frozen=True)
class DeliveryInputs:
    accelerator: AcceleratorSpec
    server: ServerSpec | None
    gpus_per_server: int
    servers: int
    checkpoint_gib: float | None = None
    checkpoints_kept: int | None = None
    read_needed_gbs: float | None = None
    nvme_needed_tb: float | None = None
    mode: str = MODE_BUY


@dataclass(frozen=True)
class ChecklistItem:
    item: str  # the source article's item id, e.g. "A2"
    title: str  # N_-marked
    check: Message
    citation: str  # N_-marked: a public document, or the buyer's requirement


def expected_bus_bandwidth_gbs(inputs: DeliveryInputs) -> float | None:
    """The theoretical all-reduce bus bandwidth inside one server, in GB/s."""
    link = inputs.server.intra_node_bandwidth_gbs if inputs.server else None
    if link is None:
        link = inputs.accelerator.interconnect_bandwidth_gbs
    return None if link is None else link * BIDIRECTIONAL_TO_BUS


def _burn_in(inputs: DeliveryInputs) -> ChecklistItem:
    stack = inputs.accelerator.software_stack
    return ChecklistItem(
        item="A1",
        title=N_("Full-load burn-in"),
        check=Message(
            BURN_IN_CHECKS.get(stack, BURN_IN_FALLBACK),
            {"gpus": inputs.gpus_per_server, "minutes": BURN_IN_MIN},
        ),
        citation=CITE_BURN_IN.get(stack, CITE_BURN_IN_FALLBACK),
    )


def _collectives(inputs: DeliveryInputs) -> ChecklistItem:
    stack = inputs.accelerator.software_stack
    if stack not in COLLECTIVE_TOOLS:
        stack = "cuda"
    tool = COLLECTIVE_TOOLS[stack]
    expected = expected_bus_bandwidth_gbs(inputs)
    if expected is None:
        check = Message(
            N_(
                "Run {tool} on each server and record the bus bandwidth; the catalog has no "
                "link bandwidth for this hardware, so ask the vendor for the expected figure "
                "in writing before delivery."
            ),
            {"tool": tool.format(gpus=inputs.gpus_per_server)},
        )
    else:
        check = Message(
            N_(
                "Run {tool} on each server. The theoretical bus bandwidth of this interconnect "
                "is {expected} GB/s; accept at least {accept} GB/s at large message sizes."
            ),
            {
                "tool": tool.format(gpus=inputs.gpus_per_server),
                "expected": f"{expected:,.0f}",
                "accept": f"{expected * ACCEPTABLE_BUS_FRACTION:,.0f}",
            },
        )
    return ChecklistItem(
        "A2", N_("Collective communication bandwidth"), check, CITE_COLLECTIVES[stack]
    )


def _software(inputs: DeliveryInputs) -> ChecklistItem:
    stack = FRAMEWORKS.get(inputs.accelerator.software_stack)
    citation = CITE_SOFTWARE.get(inputs.accelerator.software_stack, CITE_SOFTWARE_FALLBACK)
    if stack is None:
        check = Message(
            N_(
                "Agree the driver and framework versions with the vendor in writing; this "
                "accelerator's software stack is not one the advisor knows."
            )
        )
    else:
        check = Message(
            N_(
                "Install and verify: {stack}. Versions must be identical on every node; run one "
                "training step of your own job before signing the delivery note."
            ),
            {"stack": stack},
        )
    return ChecklistItem("A3", N_("Driver and framework compatibility"), check, citation)


def _data_cache(inputs: DeliveryInputs) -> ChecklistItem:
    read = max(inputs.read_needed_gbs or 0.0, SOURCE_MIN_READ_GBS)
    capacity = max(inputs.nvme_needed_tb or 0.0, SOURCE_MIN_NVME_TB)
    return ChecklistItem(
        item="A4",
        title=N_("Training data cache on fast local disk"),
        check=Message(
            N_(
                "Put the training data cache on local NVMe. Measure sequential read with fio: at "
                "least {read} GB/s per server, and at least {capacity} TB usable."
            ),
            {"read": f"{read:,.1f}", "capacity": f"{capacity:,.0f}"},
        ),
        citation=CITE_DATA_CACHE,
    )


def _instance(inputs: DeliveryInputs) -> ChecklistItem:
    monitor = SMI.get(inputs.accelerator.software_stack, "nvidia-smi")
    return ChecklistItem(
        item="A1",
        title=N_("The instance delivered is the one ordered"),
        check=Message(
            N_(
                "On the running instance, list the accelerators with {monitor}: {gpus} × "
                "{accelerator}, each with its full memory, in the region the contract names; "
                "then run one training step of your own job."
            ),
            {
                "monitor": monitor,
                "gpus": inputs.gpus_per_server,
                "accelerator": inputs.accelerator.name,
                "accelerator_zh": inputs.accelerator.name_zh or inputs.accelerator.name,
            },
        ),
        citation=CITE_CLOUD_INSTANCE,
    )


def acceptance_checklist(inputs: DeliveryInputs) -> list[ChecklistItem]:
    """What to check before signing the delivery note, for how the capacity is obtained."""
    several = inputs.gpus_per_server > 1
    if inputs.mode == MODE_CLOUD:
        items = [_instance(inputs), _software(inputs)]
        return [*items, _collectives(inputs)] if several else items
    items = [_burn_in(inputs)]
    if several:
        items.append(_collectives(inputs))
    return [*items, _software(inputs), _data_cache(inputs)]


def operating_risks(inputs: DeliveryInputs) -> list[ChecklistItem]:
    kept = inputs.checkpoints_kept or 1
    if inputs.checkpoint_gib:
        backup_tb = math.ceil(inputs.checkpoint_gib * kept * 1.073741824 / 1000 * 10) / 10
        backup = Message(
            N_(
                "Back up a checkpoint at least every epoch to storage independent of the "
                "training servers: {size} GiB each, {kept} kept, about {tb} TB. A power cut "
                "otherwise loses hours of work."
            ),
            {"size": f"{inputs.checkpoint_gib:,.1f}", "kept": kept, "tb": f"{backup_tb:,.1f}"},
        )
    else:
        backup = Message(
            N_(
                "Back up a checkpoint at least every epoch to storage independent of the "
                "training servers. A power cut otherwise loses hours of work."
            )
        )
    throttling = Message(
        N_(
            "Monitor GPU clocks and temperatures: thermal throttling can cost {loss} of "
            "throughput (the source article's estimate) and stretches the training time "
            "accordingly."
        ),
        {"loss": f"{THROTTLE_LOSS_PCT[0]}–{THROTTLE_LOSS_PCT[1]}%"},
    )
    consistency = Message(  # listed only for two servers or more
        N_(
            "Keep firmware, drivers and software identical on all {servers} servers; prefer a "
            "vendor that inspects versions automatically."
        ),
        {"servers": inputs.servers},
    )
    risks = [ChecklistItem("O1", N_("Checkpoint backup"), backup, CITE_BACKUP)]
    if inputs.mode != MODE_CLOUD:  # a cloud's cooling is the provider's
        risks.append(ChecklistItem("O2", N_("Thermal throttling"), throttling, CITE_THROTTLING))
    if inputs.servers > 1:
        risks.append(
            ChecklistItem("O3", N_("Version consistency across nodes"), consistency, CITE_VERSIONS)
        )
    return risks


def contract_terms(mode: str = MODE_BUY) -> list[ChecklistItem]:
    """The service terms to agree, for how the capacity is obtained."""
    if mode == MODE_CLOUD:
        return _cloud_terms()
    terms = _site_terms()
    if mode == MODE_OWN:  # no colocation: the server vendor's warranty, not a data center's
        return [_warranty()]
    return terms


def _warranty() -> ChecklistItem:
    return ChecklistItem(
        "S6",
        N_("Warranty and replacement parts"),
        Message(
            N_(
                "The server vendor's on-site warranty for the whole horizon: replacement parts "
                "within {hours} hours, fault response within {response} hours."
            ),
            {"hours": SPARE_PARTS_H, "response": FAULT_RESPONSE_H},
        ),
        CITE_CONTRACT,
    )


def _cloud_terms() -> list[ChecklistItem]:
    return [
        ChecklistItem(
            "S6",
            N_("Region and data residency"),
            Message(
                N_(
                    "The region the instances run in, named in the contract; training data and "
                    "checkpoints stay in mainland China unless you agree otherwise."
                )
            ),
            CITE_CLOUD_RESIDENCY,
        ),
        ChecklistItem(
            "S6",
            N_("Billing as quoted"),
            Message(
                N_(
                    "The price per card-hour as quoted, billed for the cards of the instance "
                    "only while it runs; no minimum term unless agreed."
                )
            ),
            CITE_CONTRACT,
        ),
        ChecklistItem(
            "S6",
            N_("Data deleted when the instance is released"),
            Message(
                N_(
                    "Disks and snapshots of a released instance are erased, with a written "
                    "confirmation on request."
                )
            ),
            CITE_CLOUD_RESIDENCY,
        ),
    ]


def _site_terms() -> list[ChecklistItem]:
    return [
        ChecklistItem(
            "S6",
            N_("On-site staff around the clock"),
            Message(N_("7×24 on-site engineers, named in the contract.")),
            CITE_CONTRACT,
        ),
        ChecklistItem(
            "S6",
            N_("Spare parts"),
            Message(
                N_("Spare PSUs, fans and disks stocked on site; replacement within {hours} hours."),
                {"hours": SPARE_PARTS_H},
            ),
            CITE_CONTRACT,
        ),
        ChecklistItem(
            "S6",
            N_("Fault response and repair time"),
            Message(
                N_(
                    "Fault response within {hours} hours; a contractual MTTR with compensation "
                    "(service credits or fee reduction) when it is missed."
                ),
                {"hours": FAULT_RESPONSE_H},
            ),
            CITE_CONTRACT,
        ),
    ]
