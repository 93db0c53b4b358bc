"""Link bandwidths a training job's collectives run over: inside a server and between servers.

(The bandwidth a job needs between servers, from its time estimate: :mod:`.network_need`.)

Bandwidths in the hardware dataclasses are marketed figures: ``interconnect_bandwidth_gbs`` and
``intra_node_bandwidth_gbs`` are per-GPU *bidirectional aggregates* (NVIDIA's convention: NVLink 4
= 900 GB/s = 450 GB/s each way), NIC speeds are gigabits per second each way. Collective time
depends on the bytes each GPU sends one way, so every figure here is converted to achieved
gigabytes per second *each way per GPU*.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from advisor.domain.hardware import AcceleratorSpec, ServerSpec

# Share of a link's one-way peak that NCCL/HCCL collectives reach on large messages. nccl-tests
# all_reduce_perf on DGX H100 reports ~360-480 GB/s "busbw" of 450 GB/s each way, and on
# InfiniBand NDR ~40-45 of 50 GB/s per NIC: about 80 % in both cases.
COLLECTIVE_EFFICIENCY = 0.8

# PCIe 4.0 x16: 16 GT/s x 16 lanes x 128/130 encoding = 31.5 GB/s each way (64 GB/s the two
# ways together, the figure GPU datasheets print). Used for PCIe-only cards whose record has no
# interconnect figure (e.g. the RTX 4090) and for traffic between the host and a GPU.
PCIE_GEN4_X16_BIDIRECTIONAL_GBS = 64.0

# Share of the PCIe figure a collective inside a server reaches when the cards cannot do
# peer-to-peer (the GeForce RTX 4090: its driver refuses CUDA peer access). NCCL then uses its
# shared-memory transport: "SHM is used between devices when peer-to-peer cannot happen,
# therefore, host memory is used" (NCCL documentation, NCCL_SHM_DISABLE). Each byte of a ring
# step is written by the sending GPU into a host buffer and read from it by the receiving one:
# it crosses PCIe twice (device to host, host to device) instead of once, through the same host
# memory and root complex for every GPU of the server. A ring sends and receives at once, and
# without P2P the two directions no longer add up: a published p2pBandwidthLatencyTest on two
# RTX 5090s (PCIe 5.0 x8, reported 2025-12) gives 30 GB/s both ways without P2P against 56 GB/s
# with it. So the bus bandwidth (nccl-tests' busBw) of a ring all-reduce, all-gather or
# reduce-scatter is taken as half the peer-to-peer one: an engineering estimate from the data
# path and that one measurement (docs/decisions/0070), not a fitted constant.
HOST_STAGED_SHARE = 0.5

# GPUs per server when the caller names no server model: every 8-GPU HGX/OAM baseboard
# (DGX H100, XE9680, MI300X platforms) and Huawei's Atlas 800T A2 hold eight accelerators.
DEFAULT_GPUS_PER_SERVER = 8

# Network per GPU between servers when no server model is named: one 200 Gb/s NIC per
# accelerator, as in the Atlas 800T A2 (8 x 200G RoCE, hardware-site-facts §2); DGX H100 has
# 400 Gb/s per GPU, so this is the conservative end of current GPU servers.
DEFAULT_NIC_GBPS_PER_GPU = 200.0

# Topology implied by the accelerator's own link when no server model is named.
_TOPOLOGY_BY_INTERCONNECT = {
    "nvlink": "nvswitch",  # SXM parts sit on 8-GPU HGX boards with NVSwitch
    "nvlink-bridge": "nvlink-pairs",
    "pcie": "pcie-switch",
    "hccs": "hccs-mesh",
    "xgmi": "xgmi-mesh",
    "other": "pcie-switch",
}

MESH_TOPOLOGIES = ("hccs-mesh", "xgmi-mesh")
# Layouts whose GPUs reach each other over PCIe (NVLink-bridge pairs for groups beyond two).
PCIE_TOPOLOGIES = ("pcie-switch", "nvlink-pairs")


@dataclass(frozen=True)
class Links:
    """Achieved one-way bandwidth per GPU (GB/s) and the layout the job runs on."""

    topology: str
    gpus_per_server: int
    intra_node_gbs: float  # between GPUs of one server, all GPUs of the server in the collective
    inter_node_gbs: float  # to other servers, per GPU
    pcie_gbs: float  # GPU to host (offload traffic) and GPU to GPU through PCIe
    peer_to_peer: bool = True  # False: collectives inside a server go through host memory

    def collective_gbs(self, group: int, spans_servers: bool) -> float:
        """One-way bandwidth a ring/mesh collective over ``group`` GPUs reaches per GPU.

        A switched fabric (NVSwitch, PCIe switch) gives each GPU its full link whatever the
        group size. A full mesh (HCCS, xGMI) has one direct link to each peer, so a group of
        ``g`` GPUs in a server of ``n`` uses only ``g - 1`` of the ``n - 1`` links. NVLink
        bridges join pairs only: larger groups fall back to PCIe. Cards without peer-to-peer
        stage every byte through host memory: HOST_STAGED_SHARE of the PCIe figure at most.
        Across servers the slower of the server fabric and the NICs sets the pace.
        """
        if group <= 1:
            return self.intra_node_gbs
        intra = self.intra_node_gbs
        if not self.peer_to_peer:
            intra = min(intra, self.pcie_gbs * HOST_STAGED_SHARE)
        if self.topology in MESH_TOPOLOGIES and self.gpus_per_server > 1:
            peers_used = min(group, self.gpus_per_server) - 1
            intra *= peers_used / (self.gpus_per_server - 1)
        elif self.topology == "nvlink-pairs" and group > 2:
            intra = min(intra, self.pcie_gbs)
        if spans_servers:
            return min(intra, self.inter_node_gbs)
        return intra


def one_way_gbs(bidirectional_gbs: float) -> float:
    """Achieved one-way GB/s of a link marketed as a two-way aggregate."""
    return bidirectional_gbs / 2 * COLLECTIVE_EFFICIENCY


@lru_cache(maxsize=1024)  # specs are frozen; a catalog sweep asks for the same pairs
def links_for(accelerator: AcceleratorSpec, server: ServerSpec | None = None) -> Links:
    """The links a job on ``accelerator`` (in ``server`` when given) communicates over."""
    pcie = one_way_gbs(PCIE_GEN4_X16_BIDIRECTIONAL_GBS)
    if server is not None:
        topology = server.topology
        per_server = max(1, server.gpu_count)
        nic_total_gbps = (server.nic_count or 0) * (server.nic_gbps or 0)
        nic_per_gpu_gbps = nic_total_gbps / per_server if nic_total_gbps else None
        server_intra = server.intra_node_bandwidth_gbs
    else:
        topology = _TOPOLOGY_BY_INTERCONNECT.get(accelerator.interconnect_kind, "pcie-switch")
        per_server = DEFAULT_GPUS_PER_SERVER
        nic_per_gpu_gbps = None
        server_intra = None
    intra = one_way_gbs(server_intra) if server_intra else _card_link_gbs(accelerator, topology)
    nic_gbps = nic_per_gpu_gbps or DEFAULT_NIC_GBPS_PER_GPU
    inter = nic_gbps / 8 * COLLECTIVE_EFFICIENCY  # Gb/s each way -> GB/s each way, achieved
    return Links(
        topology=topology,
        gpus_per_server=per_server,
        intra_node_gbs=intra,
        inter_node_gbs=inter,
        pcie_gbs=pcie,
        peer_to_peer=accelerator.peer_to_peer is not False,
    )


def _card_link_gbs(accelerator: AcceleratorSpec, topology: str) -> float:
    """One-way GB/s between GPUs from the card's own link, for a server without a figure.

    In a PCIe-switch server only a PCIe figure of the card counts (an NVLink-bridge figure
    joins two cards, not the switch); PCIe-only cards without a figure get PCIe 4.0 x16.
    """
    bidirectional = accelerator.interconnect_bandwidth_gbs
    if topology == "pcie-switch" and accelerator.interconnect_kind != "pcie":
        bidirectional = None
    if not bidirectional:
        return one_way_gbs(PCIE_GEN4_X16_BIDIRECTIONAL_GBS)
    return one_way_gbs(bidirectional)


# --- Network between servers -----------------------------------------------------------------------
