"""Hardware the domain reasons about: accelerators and server models, as plain dataclasses.

The catalog (``vendors.Accelerator`` and ``vendors.ServerModel``) is the source of truth;
selectors turn its rows into these dataclasses. The field names here are the catalog's
field names, so the catalog fixtures (``fixtures/catalog/*.json``, Django's serialisation
format) can also be read without a database: :func:`specs_from_fixture_records` does that
for unit tests and for tools that run without Django.

Units are in the names: ``_gb`` marketed decimal gigabytes, ``_gib`` binary, ``_tbps``
terabytes per second, ``_gbs`` gigabytes per second (per GPU, bidirectional aggregate for
scale-up links), ``_gbps`` gigabits per second (NICs), ``_w`` watts, ``_kg``, ``_c`` °C.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, fields
from pathlib import Path

# Closed sets shared with the catalog's choices (vendors/choices.py mirrors these values).
INTERCONNECT_KINDS = ("nvlink", "nvlink-bridge", "pcie", "hccs", "xgmi", "other")
SOFTWARE_STACKS = ("cuda", "rocm", "cann", "other")
SERVER_TOPOLOGIES = ("nvswitch", "nvlink-pairs", "pcie-switch", "hccs-mesh", "xgmi-mesh")
NIC_KINDS = ("infiniband", "roce", "ethernet")
COOLING_KINDS = ("air", "liquid")


@dataclass(frozen=True)
class AcceleratorSpec:
    key: str
    maker: str
    name: str
    architecture: str
    memory_gb: float
    memory_bandwidth_tbps: float | None
    bf16_dense_tflops: float | None
    fp8_dense_tflops: float | None
    tdp_w: float | None
    interconnect_kind: str
    interconnect_bandwidth_gbs: float | None
    software_stack: str
    # Some accelerators publish only an FP16 peak (e.g. Ascend 910B); compute falls back to it.
    fp16_dense_tflops: float | None = None
    # Chinese maker and name, shown on Chinese pages (i18n.local_name); empty: as in English.
    maker_zh: str | None = None
    name_zh: str | None = None
    # Whether two cards of this model in one server can reach each other's memory over PCIe
    # (CUDA peer access, NCCL's P2P transport): False for the GeForce RTX 4090, whose driver
    # refuses it; None when the catalog does not say (sizing then assumes it can).
    peer_to_peer: bool | None = None


@dataclass(frozen=True)
class ServerSpec:
    key: str
    maker: str
    name: str
    accelerator_key: str
    gpu_count: int
    topology: str
    intra_node_bandwidth_gbs: float | None
    host_memory_gib: float | None
    nvme_usable_tb: float | None
    nvme_read_gbs: float | None
    nic_kind: str | None
    nic_count: int | None
    nic_gbps: float | None
    power_max_w: float | None
    power_typical_w: float | None
    weight_kg: float | None
    rack_units: int | None
    cooling: str
    # Chinese maker and name, shown on Chinese pages (i18n.local_name); empty: as in English.
    maker_zh: str | None = None
    name_zh: str | None = None


def _build(cls, record_fields: dict, **overrides):
    names = {f.name for f in fields(cls)}
    values = {name: record_fields.get(name) for name in names}
    values.update(overrides)
    return cls(**values)


def _natural_key(value) -> str | None:
    """A foreign key in a natural-key fixture is a one-element list, e.g. ["h100-sxm-80gb"]."""
    if isinstance(value, list | tuple):
        return value[0] if value else None
    return value


def specs_from_fixture_records(
    records: Iterable[dict],
) -> tuple[dict[str, AcceleratorSpec], dict[str, ServerSpec]]:
    """Accelerator and server specs keyed by ``key`` from Django fixture records."""
    accelerators: dict[str, AcceleratorSpec] = {}
    servers: dict[str, ServerSpec] = {}
    for record in records:
        model, data = record.get("model"), record.get("fields", {})
        if model == "vendors.accelerator":
            accelerators[data["key"]] = _build(AcceleratorSpec, data)
        elif model == "vendors.servermodel":
            servers[data["key"]] = _build(
                ServerSpec, data, accelerator_key=_natural_key(data.get("accelerator"))
            )
    return accelerators, servers


def load_fixture_specs(
    directory: Path,
) -> tuple[dict[str, AcceleratorSpec], dict[str, ServerSpec]]:
    """Read every ``*.json`` fixture in ``directory`` and return the hardware specs in it."""
    records: list[dict] = []
    for path in sorted(Path(directory).glob("*.json")):
        records.extend(json.loads(path.read_text(encoding="utf-8")))
    return specs_from_fixture_records(records)
