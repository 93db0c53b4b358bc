"""Power and heat of the servers a job needs: per server at full load and typical, per rack.

When the catalog has the server's own figures (``power_max_w``, ``power_typical_w``) they are
used; otherwise the server is built up from the accelerators' TDP.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from advisor.domain.hardware import AcceleratorSpec, ServerSpec
from advisor.domain.i18n import N_, Message
from advisor.domain.sizing.network import DEFAULT_GPUS_PER_SERVER

# 1 W of electrical load becomes 1 W of heat: 3.412 BTU/h (1 BTU = 1055.06 J; 3600 / 1055.06).
BTU_PER_HOUR_PER_W = 3.412

# Server maximum as a multiple of its GPUs' TDP: NVIDIA DGX H100 is rated 10.2 kW maximum with
# 8 x 700 W H100 (5.6 kW): 10.2 / 5.6 = 1.82. The rest is CPUs, memory, NVSwitches, NICs, NVMe,
# fans and PSU losses. An 8 x L40S PCIe server (8 x 350 W = 2.8 kW) is quoted at up to ~5 kW:
# 1.79, the same ratio (hardware-site-facts §2, sources C1 and C7).
SERVER_MAX_PER_GPU_TDP = 10.2 / 5.6

# Typical draw during training as a share of the server's rated maximum: measurements on an
# 8 x H100 HGX node training transformers found even compute-intensive runs at about 76 % of the
# 10.2 kW rating (Latif et al. 2025, "Empirically-calibrated H100 node power models",
# arXiv 2506.14551; the same group measured a maximum of 8.4 kW, 82 %, IEEE Access 13, 2025).
TYPICAL_SHARE_OF_MAX = 0.76


@dataclass(frozen=True)
class PowerEstimate:
    servers: int
    gpus_per_server: int
    max_w_per_server: float
    typical_w_per_server: float
    btu_per_hour_per_server: float  # at full load (what the cooling must remove)
    total_max_kw: float
    total_typical_kw: float
    servers_per_rack: int | None
    racks: int | None
    max_kw_per_rack: float | None
    btu_per_hour_per_rack: float | None
    energy_kwh: float | None  # typical draw x training hours, when the hours are known
    from_catalog: bool  # the server's own rated figures were used
    assumptions: list[Message] = field(default_factory=list)

    @property
    def max_kw_per_server(self) -> float:
        return self.max_w_per_server / 1000

    @property
    def typical_kw_per_server(self) -> float:
        return self.typical_w_per_server / 1000


def btu_per_hour(watts: float) -> float:
    return watts * BTU_PER_HOUR_PER_W


def server_power_w(
    accelerator: AcceleratorSpec, gpus_in_server: int, server: ServerSpec | None = None
) -> tuple[float | None, float | None, bool]:
    """(maximum W, typical W, from catalog?) of one server holding ``gpus_in_server`` GPUs."""
    if server is not None and server.power_max_w:
        typical = server.power_typical_w or server.power_max_w * TYPICAL_SHARE_OF_MAX
        return server.power_max_w, typical, True
    if not accelerator.tdp_w:
        return None, None, False
    maximum = accelerator.tdp_w * gpus_in_server * SERVER_MAX_PER_GPU_TDP
    typical = (server.power_typical_w if server else None) or maximum * TYPICAL_SHARE_OF_MAX
    return maximum, typical, False


def estimate_power(
    accelerator: AcceleratorSpec,
    gpus: int,
    server: ServerSpec | None = None,
    servers_per_rack: int | None = None,
    training_hours: float | None = None,
) -> PowerEstimate | None:
    """Power and heat for ``gpus`` accelerators in as many servers as they need.

    Returns ``None`` when neither the server's rating nor the accelerator's TDP is known.
    """
    per_server = server.gpu_count if server is not None else DEFAULT_GPUS_PER_SERVER
    per_server = max(1, per_server)
    servers = max(1, math.ceil(gpus / per_server))
    in_server = min(gpus, per_server)
    maximum, typical, from_catalog = server_power_w(accelerator, in_server, server)
    if maximum is None:
        return None
    assumptions = [_source_message(accelerator, server, in_server, maximum, from_catalog)]
    racks = max_rack = btu_rack = None
    if servers_per_rack:
        racks = math.ceil(servers / servers_per_rack)
        in_rack = min(servers, servers_per_rack)
        max_rack = maximum * in_rack / 1000
        btu_rack = btu_per_hour(maximum * in_rack)
    energy = typical * servers / 1000 * training_hours if training_hours else None
    assumptions.append(
        Message(
            N_(
                "Typical draw while training is {typical} kW per server ({share} of the "
                "{maximum} kW maximum), as measured on 8-GPU H100 servers; plan circuits and "
                "cooling for the maximum ({btu} BTU/h per server)."
            ),
            {
                "typical": f"{typical / 1000:,.1f}",
                "share": f"{typical / maximum:.0%}",
                "maximum": f"{maximum / 1000:,.1f}",
                "btu": f"{btu_per_hour(maximum):,.0f}",
            },
        )
    )
    return PowerEstimate(
        servers=servers,
        gpus_per_server=in_server,
        max_w_per_server=maximum,
        typical_w_per_server=typical,
        btu_per_hour_per_server=btu_per_hour(maximum),
        total_max_kw=maximum * servers / 1000,
        total_typical_kw=typical * servers / 1000,
        servers_per_rack=servers_per_rack,
        racks=racks,
        max_kw_per_rack=max_rack,
        btu_per_hour_per_rack=btu_rack,
        energy_kwh=energy,
        from_catalog=from_catalog,
        assumptions=assumptions,
    )


def servers_per_rack_within(rack_budget_kw: float, max_w_per_server: float) -> int:
    """How many servers a rack power budget carries at their full load (0 when none fits)."""
    if max_w_per_server <= 0:
        return 0
    return int(rack_budget_kw * 1000 // max_w_per_server)


def _source_message(
    accelerator: AcceleratorSpec,
    server: ServerSpec | None,
    in_server: int,
    maximum: float,
    from_catalog: bool,
) -> Message:
    if from_catalog:
        return Message(
            N_("Server power from the catalog rating of {server}: {maximum} kW at full load."),
            {"server": server.name, "maximum": f"{maximum / 1000:,.1f}"},
        )
    return Message(
        N_(
            "Server power built up from the GPUs: {count} x {tdp} W TDP x {factor} for CPUs, "
            "memory, switches, NICs, fans and power-supply losses (the ratio of the DGX H100's "
            "10.2 kW rating to its 5.6 kW of GPUs) = {maximum} kW at full load."
        ),
        {
            "count": in_server,
            "tdp": f"{accelerator.tdp_w:,.0f}",
            "factor": f"{SERVER_MAX_PER_GPU_TDP:.2f}",
            "maximum": f"{maximum / 1000:,.1f}",
        },
    )
