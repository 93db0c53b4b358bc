"""Chart-ready series: cash paid by month, per mode, from the cost lines.

Month 0 holds the one-off lines (the purchase); every other line is spread evenly over the
months the mode holds the capacity (the hosted or rented months; a cloud job over its run's
months, a cloud programme over the horizon). The last value of each series is that mode's cash
out, to the fen: the chart ends at the figure it is labelled with. The resale is not cash paid;
the net figure is given beside the chart.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from advisor.domain.economics.costs import ModeCost, fen
from advisor.domain.economics.inputs import MONTHS_PER_YEAR


@dataclass(frozen=True)
class MonthlySeries:
    months: list[int]
    cumulative_cny: dict[str, list[Decimal]]
    net_of_resale_cny: dict[str, Decimal]  # each mode's net of resale, shown beside the last month


def _months(cost: ModeCost) -> int:
    """Months the cash is paid over: the horizon of a programme, else the months held."""
    if cost.usage == "programme":
        return cost.horizon_years * MONTHS_PER_YEAR
    return max(1, cost.months)


def cumulative(cost: ModeCost, months: int) -> list[Decimal]:
    """Cash paid by the end of each month 0..``months``; the last value is the cash out."""
    spread = cost.recurring_cny
    held = max(1, min(months, _months(cost)))
    values = []
    for month in range(months + 1):
        share = min(month, held)
        values.append(fen(cost.one_off_cny + spread * share / held))
    values[-1] = cost.cash_out_cny
    return values


def monthly_series(costs: dict[str, ModeCost]) -> MonthlySeries:
    months = max((_months(c) for c in costs.values()), default=1)
    return MonthlySeries(
        months=list(range(months + 1)),
        cumulative_cny={mode: cumulative(cost, months) for mode, cost in costs.items()},
        net_of_resale_cny={mode: cost.net_of_resale_cny for mode, cost in costs.items()},
    )
