"""An option's cost and capacity as plain records: what the pages, the brief and the CLI show.

One record, read everywhere: the option page and the brief print its lines and totals, the
``recommend`` command writes it as ``cost`` and ``capacity`` (docs/economics.md), so the same
figures with the same rounding reach every reader. Amounts are Decimals to the fen; the
presentation words them.
"""

from __future__ import annotations

from decimal import Decimal

from advisor.domain.economics.costs import CostLine
from advisor.domain.plain import jsonable
from advisor.domain.recommend.options import Option


def _line(item: CostLine) -> dict:
    return {
        "item": item.item,
        "unit_price_cny": item.unit_price_cny,
        "quantity": item.quantity,
        "unit": item.unit,
        "amount_cny": item.amount_cny,
    }


def cost_record(option: Option) -> dict | None:
    """The option's cost lines and totals; None when the option is not priced."""
    cost = option.cost
    if cost is None:
        return None
    payback = option.economics.payback if option.mode in ("buy", "own") else None
    return {
        "mode": option.mode,
        "usage": cost.usage,
        "horizon_years": cost.horizon_years,
        "runs": cost.runs,
        "months": cost.months,
        "hours_per_run": option.economics.inputs.load.hours_per_run,
        "lines": [_line(item) for item in cost.lines],
        "resale": _line(cost.resale) if cost.resale else None,
        "cash_out_cny": cost.cash_out_cny,
        "net_of_resale_cny": cost.net_of_resale_cny,
        "per_run_cny": cost.per_run_cny,
        "per_year_cny": cost.per_year_cny,
        "payback": None
        if payback is None
        else {
            "month": payback.month,
            "break_even_hours_per_year": payback.break_even_hours_per_year,
            "message": payback.message,
        },
    }


def interconnect(option: Option) -> dict:
    """The links the option's GPUs share: the server's (NVLink, HCCS, PCIe) inside one server or
    instance; the servers' network between servers (none between cloud instances)."""
    server = option.hardware.server
    accelerator = option.hardware.accelerator
    return {
        "within": server.topology or accelerator.interconnect_kind,
        "within_gbs": server.intra_node_bandwidth_gbs or accelerator.interconnect_bandwidth_gbs,
        # Between servers: the servers' NICs (none between cloud instances).
        "between": None
        if option.is_cloud or not server.nic_kind
        else {"kind": server.nic_kind, "count": server.nic_count, "gbps": server.nic_gbps},
    }


def capacity_record(option: Option) -> dict:
    capacity = option.obtained
    return {
        "how": option.mode or ("cloud" if option.is_cloud else None),
        "instances": capacity.instances,
        "gpus_per_instance": capacity.gpus_per_instance,
        "gpus": capacity.gpus,
        "gpus_used": capacity.gpus_used,
        "idle_gpus": capacity.idle_gpus,
        "provider": capacity.provider,
        "region": capacity.region,
        "interconnect": interconnect(option),
    }


def plain_cost(option: Option) -> dict | None:
    """:func:`cost_record` in JSON types (Decimals as exact strings)."""
    record = cost_record(option)
    return jsonable(record) if record is not None else None


def money(value) -> Decimal | None:
    return None if value is None else Decimal(str(value))
