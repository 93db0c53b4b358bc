"""A JSON-ready record of an economics result, for drafts and the signed brief.

Amounts are strings rounded half up to the fen (``"2700000.00"``), hours and months to one
decimal; messages and assumptions keep their English template and parameters so that a
stored result re-renders in either language (docs/decisions/0002).
"""

from __future__ import annotations

from decimal import Decimal

from advisor.domain.economics.compare import EconomicsResult
from advisor.domain.economics.money import round_cny
from advisor.domain.i18n import Message


def _amount(value: Decimal | None) -> str | None:
    return None if value is None else str(round_cny(value))


def _tenths(value: Decimal | None) -> str | None:
    return None if value is None else str(round_cny(value, 1))


def _message(message: Message) -> dict:
    return {"template": message.template, "params": dict(message.params)}


def _plain(value):
    return str(value) if isinstance(value, Decimal) else value


def _costs(result: EconomicsResult) -> dict:
    costs = {}
    for mode, cost in result.costs.items():
        summary = {name: _amount(v) for name, v in result.summary_cny(mode).items()}
        running = {name: _amount(v) for name, v in cost.running_cny_per_year.items()}
        costs[mode] = {**summary, "running_per_year": running}
    return costs


def snapshot(result: EconomicsResult) -> dict:
    a = result.inputs.assumptions
    return {
        "site": {"key": result.inputs.site.key, "name": result.inputs.site.name},
        "training_hours_per_year": str(a.training_hours_per_year),
        "horizon_years": a.horizon_years,
        "racks": result.racks,
        "costs": _costs(result),
        "cheapest_mode": result.cheapest_mode,
        "break_even_hours": {k: _tenths(b.hours_per_year) for k, b in result.break_even.items()},
        "payback_months": {k: _tenths(p.months) for k, p in result.payback.items()},
        "payback_in_horizon_from_hours": {
            k: _tenths(h) for k, h in result.payback_in_horizon_from_hours.items()
        },
        "monthly": {
            "months": result.monthly.months,
            "cumulative_cny": {
                mode: [str(v) for v in values]
                for mode, values in result.monthly.cumulative_cny.items()
            },
            "residual_value_cny": {
                mode: str(v) for mode, v in result.monthly.residual_value_cny.items()
            },
        },
        "by_hours": {
            "hours_per_year": [str(h) for h in result.by_hours.hours_per_year],
            "cny_per_year": {
                mode: [str(v) for v in values]
                for mode, values in result.by_hours.cny_per_year.items()
            },
        },
        "assumptions": [
            {
                "key": record.key,
                "value": _plain(record.value),
                **_message(record.message),
                "basis": record.basis,
                "source": record.source,
                "as_of": record.as_of.isoformat() if record.as_of else None,
            }
            for record in result.assumptions
        ],
        "messages": [_message(m) for m in result.messages],
    }
