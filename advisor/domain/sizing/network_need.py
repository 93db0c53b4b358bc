"""The network a job needs between servers, from its time estimate (:mod:`.compute`), against
the server's NICs. The links themselves: :mod:`.network`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from advisor.domain.hardware import ServerSpec
from advisor.domain.i18n import N_, Message
from advisor.domain.sizing.compute.results import TimeEstimate
from advisor.domain.sizing.network import COLLECTIVE_EFFICIENCY, DEFAULT_GPUS_PER_SERVER

# NIC kinds that carry GPU collectives between servers with RDMA (REQUIREMENTS H4: multi-node
# jobs need RoCE or InfiniBand); plain Ethernet goes through the kernel's TCP stack.
RDMA_NIC_KINDS = ("infiniband", "roce")


@dataclass(frozen=True)
class NetworkEstimate:
    servers: int
    multi_node: bool
    bytes_per_step_per_gpu: float  # data-parallel traffic one GPU sends each step
    needed_gbps_per_gpu: float | None  # to hide that traffic behind the compute it overlaps
    needed_gbps_per_server: float | None
    offered_gbps_per_server: float | None  # the server's NICs (None: no server named)
    nic_kind: str | None
    rdma: bool | None
    sufficient: bool | None
    assumptions: list[Message] = field(default_factory=list)


def estimate_network(time: TimeEstimate, server: ServerSpec | None = None) -> NetworkEstimate:
    """Inter-node bandwidth a job needs, from its :class:`compute.TimeEstimate`.

    Single-server jobs need none for training. Across servers, each GPU's data-parallel bytes of
    a step must cross the network within the compute they overlap with (the backward pass for a
    gradient all-reduce, all compute for FSDP/ZeRO-3 gathers); the need is that rate at the
    achieved share of link speed, per GPU and per server, compared with the server's NICs.
    """
    comm = time.communication
    servers = time.servers
    per_server = min(time.gpus, DEFAULT_GPUS_PER_SERVER if server is None else server.gpu_count)
    offered = None
    kind = None
    if server is not None and server.nic_count and server.nic_gbps:
        offered = server.nic_count * server.nic_gbps
        kind = server.nic_kind
    elif server is not None:
        kind = server.nic_kind
    rdma = None if kind is None else kind in RDMA_NIC_KINDS
    if comm is None and servers > 1:
        # No throughput (unknown peak): the servers are known, the bandwidth need is not.
        return NetworkEstimate(
            servers=servers,
            multi_node=True,
            bytes_per_step_per_gpu=0.0,
            needed_gbps_per_gpu=None,
            needed_gbps_per_server=None,
            offered_gbps_per_server=offered,
            nic_kind=kind,
            rdma=rdma,
            sufficient=False if rdma is False else None,  # Ethernet fails whatever the need
            assumptions=[
                Message(
                    N_(
                        "{servers} servers: the bandwidth between them cannot be sized without "
                        "a throughput estimate; multi-server jobs need RoCE or InfiniBand."
                    ),
                    {"servers": servers},
                )
            ],
        )
    if servers <= 1 or comm is None:
        return NetworkEstimate(
            servers=servers,
            multi_node=False,
            bytes_per_step_per_gpu=comm.bytes_per_step if comm else 0.0,
            needed_gbps_per_gpu=None,
            needed_gbps_per_server=None,
            offered_gbps_per_server=offered,
            nic_kind=kind,
            rdma=rdma,
            sufficient=None,
            assumptions=[
                Message(
                    N_(
                        "The job fits in one server: training needs no network between "
                        "servers (only the links to storage and backup)."
                    )
                )
            ],
        )
    window = comm.overlap_window_s or time.step_time_s
    # bytes per second -> gigabits per second of NIC line rate at the achieved share of it
    needed_gpu = comm.bytes_per_step * 8 / 1e9 / window / COLLECTIVE_EFFICIENCY if window else 0.0
    needed_server = needed_gpu * per_server
    sufficient = None
    if offered is not None:
        sufficient = offered >= needed_server and bool(rdma)
    message = Message(
        N_(
            "{servers} servers: each GPU sends {gb} GB of gradients and weights per step, "
            "which needs {gpu} Gb/s per GPU ({server} Gb/s per server) to stay hidden behind "
            "{window} s of compute; multi-server jobs need RoCE or InfiniBand."
        ),
        {
            "servers": servers,
            "gb": f"{comm.bytes_per_step / 1e9:,.2f}",
            "gpu": f"{needed_gpu:,.0f}",
            "server": f"{needed_server:,.0f}",
            "window": f"{window:,.2f}",
        },
    )
    return NetworkEstimate(
        servers=servers,
        multi_node=True,
        bytes_per_step_per_gpu=comm.bytes_per_step,
        needed_gbps_per_gpu=needed_gpu,
        needed_gbps_per_server=needed_server,
        offered_gbps_per_server=offered,
        nic_kind=kind,
        rdma=rdma,
        sufficient=sufficient,
        assumptions=[message],
    )
