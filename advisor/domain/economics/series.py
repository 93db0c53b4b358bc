"""Chart-ready series: cumulative cost by month per mode, and yearly cost by training hours.

Values are CNY rounded half up to the fen. The monthly series is cash paid: month 0 is the
upfront payment (the purchase for buying, nothing for renting or cloud), then each month
adds a twelfth of the year's running cost. The residual value of owned servers is not in
the series; it is given separately so a chart can mark it at the last month.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from advisor.domain.economics.costs import MODES, ModeCost, annual_cost_cny, mode_is_priced
from advisor.domain.economics.inputs import HOURS_PER_MONTH, MONTHS_PER_YEAR, EconomicsInputs
from advisor.domain.economics.money import round_cny


@dataclass(frozen=True)
class MonthlySeries:
    months: list[int]
    cumulative_cny: dict[str, list[Decimal]]
    residual_value_cny: dict[str, Decimal]


@dataclass(frozen=True)
class HoursSeries:
    hours_per_year: list[Decimal]
    cny_per_year: dict[str, list[Decimal]]


def cumulative_by_month(cost: ModeCost) -> list[Decimal]:
    """Cash paid by the end of each month 0..horizon months; length horizon × 12 + 1."""
    months = cost.horizon_years * MONTHS_PER_YEAR
    per_month = cost.running_cny_per_month
    return [round_cny(cost.upfront_cny + per_month * month) for month in range(months + 1)]


def monthly_series(costs: dict[str, ModeCost], horizon_years: int) -> MonthlySeries:
    return MonthlySeries(
        months=list(range(horizon_years * MONTHS_PER_YEAR + 1)),
        cumulative_cny={mode: cumulative_by_month(cost) for mode, cost in costs.items()},
        residual_value_cny={mode: round_cny(c.residual_value_cny) for mode, c in costs.items()},
    )


def hours_series(inputs: EconomicsInputs, step_h: Decimal = HOURS_PER_MONTH) -> HoursSeries:
    """Average yearly cost per mode for 0, step, 2 × step … 8760 training hours per year."""
    steps = int(Decimal(8760) / step_h)
    hours = [step_h * i for i in range(steps + 1)]
    if hours[-1] != 8760:
        hours.append(Decimal(8760))
    return HoursSeries(
        hours_per_year=hours,
        cny_per_year={
            mode: [round_cny(annual_cost_cny(inputs, mode, h)) for h in hours]
            for mode in MODES
            if mode_is_priced(inputs, mode)
        },
    )
