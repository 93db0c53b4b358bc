"""Buy, rent or cloud for one option; break-even hours, payback; the same option at several sites.

``evaluate`` prices every offered mode at the buyer's hours per year and returns
:class:`EconomicsResult`: costs per mode, per year and per run, the cheapest mode, the
break-even training hours per year of buying against renting and against cloud, the
payback period of buying, chart series, every assumption with its provenance, and
messages. ``compare_sites`` explains the difference between sites by tariff, PUE and fees.

Break-even (yearly basis, horizon average net of residual value): each mode's yearly cost
is piecewise linear in the hours per year (rent has kinks at the shortest term and at 12
months), so the crossing is found exactly, segment by segment.
Payback (cash basis): buying's extra upfront cash ÷ the monthly running cost it saves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from advisor.domain.economics.costs import (
    BUY,
    CLOUD,
    MODES,
    RENT,
    ModeCost,
    annual_cost_cny,
    effective_pue,
    effective_tariff_cny_per_kwh,
    it_energy_kwh_per_year,
    mode_cost,
    racks_needed,
    server_exceeds_rack,
    transfer_cny_per_year,
)
from advisor.domain.economics.inputs import (
    BASIS_EXAMPLE,
    BASIS_MARKET,
    HOURS_PER_MONTH,
    HOURS_PER_YEAR,
    MONTHS_PER_YEAR,
    Assumption,
    EconomicsInputs,
    Overrides,
    apply_overrides,
    assumption_records,
)
from advisor.domain.economics.money import group_thousands, round_cny
from advisor.domain.economics.series import HoursSeries, MonthlySeries, hours_series, monthly_series
from advisor.domain.i18n import N_, Message

_CHEAPEST = {
    BUY: N_(
        "At {hours} training hours a year, buying and hosting costs least: ¥{total} over a {years}-year horizon."
    ),
    RENT: N_(
        "At {hours} training hours a year, renting costs least: ¥{total} over a {years}-year horizon."
    ),
    CLOUD: N_(
        "At {hours} training hours a year, cloud GPU-hours cost least: ¥{total} over a {years}-year horizon."
    ),
}
_NOT_PRICED = {
    BUY: N_("No purchase price for this server: buying is not priced."),
    RENT: N_("No monthly rent for this server: renting is not priced."),
    CLOUD: N_("No cloud price per GPU-hour for this accelerator: cloud is not priced."),
}
_BREAK_EVEN = {
    (RENT, "at"): N_("Buying costs less than renting from {hours} training hours a year."),
    (RENT, "always"): N_("Buying costs less than renting at any number of training hours."),
    (RENT, "never"): N_("Buying never costs less than renting, even training all year round."),
    (CLOUD, "at"): N_("Buying costs less than cloud GPU-hours from {hours} training hours a year."),
    (CLOUD, "always"): N_(
        "Buying costs less than cloud GPU-hours at any number of training hours."
    ),
    (CLOUD, "never"): N_(
        "Buying never costs less than cloud GPU-hours, even training all year round."
    ),
}
_PAYBACK = {
    (RENT, "within"): N_("Against renting, buying pays back in {months} months ({years} years)."),
    (RENT, "after"): N_(
        "Against renting, buying pays back in {months} months ({years} years), after the {horizon}-year horizon."
    ),
    (RENT, "never"): N_(
        "Against renting, buying never pays back: it saves nothing month by month."
    ),
    (CLOUD, "within"): N_("Against cloud, buying pays back in {months} months ({years} years)."),
    (CLOUD, "after"): N_(
        "Against cloud, buying pays back in {months} months ({years} years), after the {horizon}-year horizon."
    ),
    (CLOUD, "never"): N_("Against cloud, buying never pays back: it saves nothing month by month."),
}
_PAYBACK_HOURS = {
    (RENT, "from"): N_(
        "Against renting, buying pays back within the {horizon}-year horizon from {hours} training hours a year."
    ),
    (RENT, "never"): N_(
        "Against renting, buying does not pay back within the {horizon}-year horizon at any number of training hours."
    ),
    (CLOUD, "from"): N_(
        "Against cloud, buying pays back within the {horizon}-year horizon from {hours} training hours a year."
    ),
    (CLOUD, "never"): N_(
        "Against cloud, buying does not pay back within the {horizon}-year horizon at any number of training hours."
    ),
}
EXAMPLE_PRICES = N_(
    "Some prices are examples or market reports, not quotes: ask the vendors for quotes before deciding."
)
RACK_TOO_SMALL = N_(
    "One server needs {server_kw} kW and {server_u} U, more than one rack at {site} takes "
    "({rack_kw} kW, {rack_u} U): one rack per server is counted; ask for a high-density rack."
)
PUE_IN_PRICE = N_(
    "The data center's power price already includes cooling, so the PUE is not applied again."
)
POWER_IN_FEE = N_(
    "At {site} power is included in the rack fee, up to the rack's power limit: no separate "
    "electricity cost is counted."
)
TRANSFER_COST = N_(
    "Moving data to and from the public cloud adds ¥{cny_per_year} a year when buying or renting."
)


def _hours_text(hours: Decimal) -> str:
    return group_thousands(hours, 0)


def _years_text(value: Decimal) -> str:
    return format(round_cny(value, 1), "f")


# --- Break-even and payback --------------------------------------------------------------


@dataclass(frozen=True)
class BreakEven:
    """Training hours per year from which buying costs less than ``against``.

    ``hours_per_year`` is 0 when buying is cheaper at any hours and ``None`` when it never
    is up to 8760 h.
    """

    against: str
    hours_per_year: Decimal | None
    message: Message


def _breakpoints(inputs: EconomicsInputs) -> list[Decimal]:
    points = {Decimal(0), HOURS_PER_YEAR}
    shortest = inputs.assumptions.rent_min_months * HOURS_PER_MONTH
    if 0 < shortest < HOURS_PER_YEAR:
        points.add(shortest)
    return sorted(points)


def _buy_minus(inputs: EconomicsInputs, against: str, hours: Decimal) -> Decimal:
    return annual_cost_cny(inputs, BUY, hours) - annual_cost_cny(inputs, against, hours)


def _last_crossing(points: list[Decimal], values: list[Decimal]) -> Decimal | None:
    """Where a piecewise-linear function (``values`` at ``points``) falls to 0 for the last time.

    0 when it is never above 0; ``None`` when it is still above 0 at the last point. Linear
    between the points, so the crossing is interpolated exactly.
    """
    if values[-1] > 0:
        return None
    above = [i for i, value in enumerate(values) if value > 0]
    if not above:
        return Decimal(0)
    i = above[-1]
    start, end, high, low = points[i], points[i + 1], values[i], values[i + 1]
    return start + high * (end - start) / (high - low)


def break_even_hours(inputs: EconomicsInputs, against: str) -> Decimal | None:
    """The training hours per year from which buying costs no more than ``against``, up to 8760.

    0 when buying costs no more at any hours; ``None`` when it costs more even at 8760 h.
    The last crossing is reported: above it buying stays the cheaper of the two.
    """
    points = _breakpoints(inputs)
    return _last_crossing(points, [_buy_minus(inputs, against, h) for h in points])


def break_even(inputs: EconomicsInputs, against: str) -> BreakEven:
    hours = break_even_hours(inputs, against)
    if hours is None:
        message = Message(_BREAK_EVEN[(against, "never")])
    elif hours == 0:
        message = Message(_BREAK_EVEN[(against, "always")])
    else:
        message = Message(_BREAK_EVEN[(against, "at")], {"hours": _hours_text(hours)})
    return BreakEven(against=against, hours_per_year=hours, message=message)


@dataclass(frozen=True)
class Payback:
    """Months until buying's cumulative cash falls to ``against``'s; ``None``: never."""

    against: str
    months: Decimal | None
    within_horizon: bool
    message: Message


def payback_months(buy: ModeCost, other: ModeCost) -> Decimal | None:
    extra_upfront = buy.upfront_cny - other.upfront_cny
    if extra_upfront <= 0:
        return Decimal(0)
    saving_per_month = other.running_cny_per_month - buy.running_cny_per_month
    if saving_per_month <= 0:
        return None
    return extra_upfront / saving_per_month


def payback(buy: ModeCost, other: ModeCost) -> Payback:
    months = payback_months(buy, other)
    horizon_months = buy.horizon_years * MONTHS_PER_YEAR
    if months is None:
        return Payback(other.mode, None, False, Message(_PAYBACK[(other.mode, "never")]))
    within = months <= horizon_months
    params = {
        "months": format(round_cny(months, 1), "f"),
        "years": _years_text(months / MONTHS_PER_YEAR),
        "horizon": buy.horizon_years,
    }
    key = (other.mode, "within" if within else "after")
    return Payback(other.mode, months, within, Message(_PAYBACK[key], params))


def _running_saving(inputs: EconomicsInputs, against: str, hours: Decimal) -> Decimal:
    """Running cost per year of ``against`` minus buying's (what owning saves, before capital)."""
    other = mode_cost(inputs, against, hours).running_total_cny_per_year
    return other - mode_cost(inputs, BUY, hours).running_total_cny_per_year


def hours_for_payback(inputs: EconomicsInputs, against: str, months: Decimal) -> Decimal | None:
    """The training hours per year from which buying pays back against ``against`` in ``months``.

    Payback = extra upfront ÷ monthly saving, so it is reached where the yearly saving is
    12 × extra upfront ÷ months; the saving is piecewise linear in the hours (last crossing,
    as for the break-even). ``None`` when even 8760 h do not pay back in time.
    """
    extra = (
        mode_cost(inputs, BUY, Decimal(0)).upfront_cny
        - mode_cost(inputs, against, Decimal(0)).upfront_cny
    )
    target = extra * MONTHS_PER_YEAR / Decimal(months)
    points = _breakpoints(inputs)
    return _last_crossing(points, [target - _running_saving(inputs, against, h) for h in points])


# --- The result --------------------------------------------------------------------------


@dataclass(frozen=True)
class EconomicsResult:
    inputs: EconomicsInputs
    racks: int
    costs: dict[str, ModeCost]
    cheapest_mode: str | None
    break_even: dict[str, BreakEven]
    payback: dict[str, Payback]
    payback_in_horizon_from_hours: dict[str, Decimal | None]
    monthly: MonthlySeries
    by_hours: HoursSeries
    assumptions: list[Assumption]
    messages: list[Message] = field(default_factory=list)

    def summary_cny(self, mode: str) -> dict[str, Decimal | None]:
        """The figures a page or brief shows for ``mode``, rounded half up to the fen."""
        cost = self.costs[mode]
        per_run = cost.cny_per_run
        return {
            "upfront": round_cny(cost.upfront_cny),
            "per_year": round_cny(cost.cny_per_year),
            "per_run": None if per_run is None else round_cny(per_run),
            "horizon_total": round_cny(cost.horizon_total_cny),
            "cash_total": round_cny(cost.cash_total_cny),
            "residual_value": round_cny(cost.residual_value_cny),
        }


def _payback_hours_message(against: str, hours: Decimal | None, years: int) -> Message:
    if hours is None:
        return Message(_PAYBACK_HOURS[(against, "never")], {"horizon": years})
    params = {"hours": _hours_text(hours), "horizon": years}
    return Message(_PAYBACK_HOURS[(against, "from")], params)


def _cheapest(costs: dict[str, ModeCost]) -> str | None:
    if not costs:
        return None
    return min(costs, key=lambda mode: (costs[mode].horizon_total_cny, MODES.index(mode)))


def _price_messages(inputs: EconomicsInputs) -> list[Message]:
    messages = [Message(_NOT_PRICED[m]) for m in MODES if mode_cost(inputs, m) is None]
    price_keys = ("purchase_cny_per_server", "rent_cny_per_server_month", "cloud_cny_per_gpu_hour")
    if any(inputs.provenance_of(k).basis in (BASIS_EXAMPLE, BASIS_MARKET) for k in price_keys):
        messages.append(Message(EXAMPLE_PRICES))
    return messages


def _site_messages(inputs: EconomicsInputs) -> list[Message]:
    messages = []
    if server_exceeds_rack(inputs):
        params = {
            "server_kw": format(inputs.load.power_full_kw.normalize(), "f"),
            "server_u": inputs.load.rack_units,
            "site": inputs.site.name,
            "rack_kw": format(inputs.site.rack_power_limit_kw.normalize(), "f"),
            "rack_u": inputs.site.rack_units_per_rack,
        }
        messages.append(Message(RACK_TOO_SMALL, params))
    if inputs.site.power_in_rack_fee:
        messages.append(Message(POWER_IN_FEE, {"site": inputs.site.name}))
    elif inputs.site.price_includes_pue:
        messages.append(Message(PUE_IN_PRICE))
    transfer = transfer_cny_per_year(inputs, inputs.assumptions.training_hours_per_year)
    if transfer > 0:
        messages.append(Message(TRANSFER_COST, {"cny_per_year": group_thousands(transfer)}))
    return messages


def evaluate(inputs: EconomicsInputs, overrides: Overrides | None = None) -> EconomicsResult:
    """Price the option in every offered mode at the buyer's hours per year."""
    if overrides is not None:
        inputs = apply_overrides(inputs, overrides)
    a = inputs.assumptions
    costs = {m: c for m in MODES if (c := mode_cost(inputs, m)) is not None}
    cheapest = _cheapest(costs)
    messages = _price_messages(inputs) + _site_messages(inputs)
    if cheapest is not None:
        params = {
            "hours": _hours_text(a.training_hours_per_year),
            "total": group_thousands(costs[cheapest].horizon_total_cny),
            "years": a.horizon_years,
        }
        messages.insert(0, Message(_CHEAPEST[cheapest], params))
    breaks, paybacks, payback_hours = {}, {}, {}
    if BUY in costs:
        for other in (RENT, CLOUD):
            if other in costs:
                breaks[other] = break_even(inputs, other)
                paybacks[other] = payback(costs[BUY], costs[other])
                horizon_months = Decimal(a.horizon_years * MONTHS_PER_YEAR)
                payback_hours[other] = hours_for_payback(inputs, other, horizon_months)
                messages.extend([breaks[other].message, paybacks[other].message])
                messages.append(
                    _payback_hours_message(other, payback_hours[other], a.horizon_years)
                )
    return EconomicsResult(
        inputs=inputs,
        racks=racks_needed(inputs),
        costs=costs,
        cheapest_mode=cheapest,
        break_even=breaks,
        payback=paybacks,
        payback_in_horizon_from_hours=payback_hours,
        monthly=monthly_series(costs, a.horizon_years),
        by_hours=hours_series(inputs),
        assumptions=assumption_records(inputs),
        messages=messages,
    )


# --- Sites -------------------------------------------------------------------------------

SITE_MORE = N_(
    "Buying and hosting at {other} costs ¥{difference} more over a {years}-year horizon than at {base}."
)
SITE_LESS = N_(
    "Buying and hosting at {other} costs ¥{difference} less over a {years}-year horizon than at {base}."
)
SITE_PART = {
    "tariff": N_("Electricity price: {amount} CNY"),
    "pue": N_("PUE: {amount} CNY"),
    "rack_fee": N_("Rack fee: {amount} CNY"),
    "rack_count": N_("Number of racks: {amount} CNY"),
    "demand_charge": N_("Demand (basic) charge: {amount} CNY"),
    "other": N_("Purchase, maintenance, residual value and data transfer: {amount} CNY"),
}


@dataclass(frozen=True)
class SiteDifference:
    """Buying at ``other`` minus buying at ``base`` over the horizon, and what explains it.

    The parts add up exactly to ``total_cny``. Electricity = energy × PUE × price is split
    symmetrically (each factor's change valued at the mean of the other), rack fees the same
    way between the fee and the number of racks.
    """

    base_key: str
    other_key: str
    total_cny: Decimal
    parts_cny: dict[str, Decimal]
    messages: list[Message]


@dataclass(frozen=True)
class SiteComparison:
    results: dict[str, EconomicsResult]
    differences: list[SiteDifference]


def _midpoint_split(x_a, x_b, y_a, y_b) -> tuple[Decimal, Decimal]:
    """x_b·y_b − x_a·y_a as (part due to x, part due to y), each at the mean of the other."""
    return (x_b - x_a) * (y_a + y_b) / 2, (y_b - y_a) * (x_a + x_b) / 2


def _electricity_split(base: EconomicsResult, other: EconomicsResult) -> tuple[Decimal, Decimal]:
    def energy_price(result: EconomicsResult) -> tuple[Decimal, Decimal, Decimal]:
        inputs = result.inputs
        hours = inputs.assumptions.training_hours_per_year
        kwh = it_energy_kwh_per_year(inputs, hours) * inputs.assumptions.horizon_years
        return kwh, effective_pue(inputs), effective_tariff_cny_per_kwh(inputs)

    kwh_a, pue_a, tariff_a = energy_price(base)
    kwh_b, pue_b, tariff_b = energy_price(other)
    # Same servers and hours at both sites, so the IT energy is the same; the factors differ.
    if kwh_a != kwh_b:
        raise ValueError("site comparison needs the same servers and hours at every site")
    tariff_part, pue_part = _midpoint_split(tariff_a, tariff_b, pue_a, pue_b)
    return kwh_a * tariff_part, kwh_a * pue_part


def _rack_split(base: EconomicsResult, other: EconomicsResult) -> tuple[Decimal, Decimal]:
    months = base.inputs.assumptions.horizon_years * MONTHS_PER_YEAR
    fee_a, fee_b = base.inputs.site.rack_fee_cny_per_month, other.inputs.site.rack_fee_cny_per_month
    fee_part, count_part = _midpoint_split(fee_a, fee_b, Decimal(base.racks), Decimal(other.racks))
    return fee_part * months, count_part * months


def site_difference(base: EconomicsResult, other: EconomicsResult) -> SiteDifference:
    years = base.inputs.assumptions.horizon_years
    total = other.costs[BUY].horizon_total_cny - base.costs[BUY].horizon_total_cny
    tariff_part, pue_part = _electricity_split(base, other)
    fee_part, count_part = _rack_split(base, other)
    demand = [r.costs[BUY].running_cny_per_year["demand_charge"] for r in (base, other)]
    parts = {
        "tariff": tariff_part,
        "pue": pue_part,
        "demand_charge": (demand[1] - demand[0]) * years,
        "rack_fee": fee_part,
        "rack_count": count_part,
    }
    parts["other"] = total - sum(parts.values(), Decimal(0))
    template = SITE_MORE if total >= 0 else SITE_LESS
    headline = Message(
        template,
        {
            "other": other.inputs.site.name,
            "base": base.inputs.site.name,
            # Chinese readers read the sites' Chinese names (see advisor.domain.i18n.localised).
            "other_zh": other.inputs.site.name_zh or other.inputs.site.name,
            "base_zh": base.inputs.site.name_zh or base.inputs.site.name,
            "difference": group_thousands(abs(total)),
            "years": years,
        },
    )
    lines = [
        Message(SITE_PART[name], {"amount": f"{round_cny(amount, 0):+,.0f}"})
        for name, amount in parts.items()
        if round_cny(amount, 0) != 0
    ]
    return SiteDifference(
        base.inputs.site.key, other.inputs.site.key, total, parts, [headline, *lines]
    )


def compare_sites(
    options: list[EconomicsInputs], overrides: Overrides | None = None
) -> SiteComparison:
    """The same option at each site; differences against the first site (the base)."""
    if len(options) < 2:
        raise ValueError("compare_sites needs at least two sites")
    results = [evaluate(inputs, overrides) for inputs in options]
    if any(BUY not in r.costs for r in results):
        raise ValueError("compare_sites needs a purchase price at every site")
    base = results[0]
    return SiteComparison(
        results={r.inputs.site.key: r for r in results},
        differences=[site_difference(base, other) for other in results[1:]],
    )
