"""One option in each priced mode (cost lines, cash out and net of resale), payback of buying
against renting, and the same option at several sites.

``evaluate`` prices every offered mode over the buyer's period (one job, or a programme of runs
over a horizon) and returns :class:`EconomicsResult`: each mode's :class:`ModeCost` (its lines
and totals), one payback statement for buying against renting the same servers (a programme
only), the cumulative cash by month per mode, every figure the costs rest on with its
provenance, and messages. ``compare_sites`` explains the difference between sites by tariff,
PUE, demand charge and rack fees (docs/economics.md).

Payback (cash basis, a programme): buying's purchase ÷ the money it saves each month against
renting the same servers (rent minus owning's running costs). Break-even: the training hours a
year from which buying's cash out over the horizon is no more than renting's; rent is paid in
whole months, so renting's cost is a step function of the hours and the crossing is solved step
by step.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from decimal import Decimal
from functools import cached_property

from advisor.domain.economics.costs import (
    BUY,
    CLOUD,
    MODES,
    RENT,
    ModeCost,
    ModeCostCache,
    effective_pue,
    effective_tariff_cny_per_kwh,
    fits_in_a_year,
    hosted_months,
    hours_needed_per_year,
    it_energy_kwh,
    mode_cost,
    months_per_run,
    racks_needed,
    resale_pct,
    server_exceeds_rack,
)
from advisor.domain.economics.inputs import (
    BASIS_EXAMPLE,
    BASIS_MARKET,
    BASIS_OVERRIDE,
    HOURS_PER_YEAR,
    LEVEL_ASSUMED,
    LEVEL_NATIONAL,
    MONTHS_PER_YEAR,
    Assumption,
    EconomicsInputs,
    Overrides,
    apply_overrides,
    assumption_record,
    assumption_records,
)
from advisor.domain.economics.money import round_cny
from advisor.domain.economics.series import MonthlySeries, monthly_series
from advisor.domain.i18n import N_, Message, Nn_

_NOT_PRICED = {
    BUY: N_("No purchase price for this server: buying is not priced."),
    RENT: N_("No monthly rent for this server: renting is not priced."),
    CLOUD: N_("No cloud price per GPU-hour for this offer: cloud is not priced."),
}
PAYBACK_WITHIN = Nn_(
    "Against renting the same servers, buying pays back in month {month} of {horizon_months}; "
    "over {years} year it costs less than renting from {hours} training hours a year.",
    "Against renting the same servers, buying pays back in month {month} of {horizon_months}; "
    "over {years} years it costs less than renting from {hours} training hours a year.",
)
PAYBACK_NOT = Nn_(
    "Against renting the same servers, buying does not pay back within {years} year at this usage.",
    "Against renting the same servers, buying does not pay back within {years} years at this usage.",
)
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
TOO_MANY_RUNS = Nn_(
    "{runs} run a year needs {hours} hours of training a year on this capacity, more than a "
    "year has.",
    "{runs} runs a year need {hours} hours of training a year on this capacity, more than a "
    "year has.",
)


# --- Payback against renting ---------------------------------------------------------------


@dataclass(frozen=True)
class Payback:
    """Buying against renting the same servers (a programme): the month buying's cumulative
    cash falls to renting's (``None``: not within the horizon) and the training hours a year
    from which buying costs no more over the horizon (``None``: at no hours)."""

    month: int | None
    break_even_hours_per_year: Decimal | None
    message: Message


def _monthly_saving(buy: ModeCost, rent: ModeCost) -> Decimal:
    """What owning saves each month against renting, before the purchase."""
    return rent.cash_out_cny / rent_months_in_horizon(rent) - buy.recurring_cny / buy.months


def rent_months_in_horizon(rent: ModeCost) -> int:
    return rent.horizon_years * MONTHS_PER_YEAR


def payback_month(buy: ModeCost, rent: ModeCost) -> int | None:
    """The month buying's cumulative cash is no more than renting's; None: not in the horizon."""
    saving = _monthly_saving(buy, rent)
    if saving <= 0:
        return None
    month = max(1, math.ceil(buy.one_off_cny / saving))
    return month if month <= rent_months_in_horizon(rent) else None


def _at_hours(inputs: EconomicsInputs, hours: Decimal) -> EconomicsInputs:
    usage = replace(inputs.assumptions, runs_per_year=None, training_hours_per_year=hours)
    return replace(inputs, assumptions=usage)


def break_even_hours(inputs: EconomicsInputs) -> Decimal | None:
    """The fewest training hours a year from which buying's cash out over the horizon is no
    more than renting's; None when it is more at every number of hours up to 8,760.

    Renting holds whole months: between two month steps its cost is fixed while buying's grows
    with the electricity, so each step is solved on its own, first step first.
    """
    run_hours = inputs.load.hours_per_run
    per_run = Decimal(months_per_run(inputs))
    for months in range(1, MONTHS_PER_YEAR + 1):
        # Renting holds ``months`` a year for hours just above ``low`` up to ``high``.
        low = (months - 1) * run_hours / per_run + Decimal("0.01")
        high = HOURS_PER_YEAR if months == MONTHS_PER_YEAR else months * run_hours / per_run
        high = min(high, HOURS_PER_YEAR)
        if low > high:
            continue
        start, end = _buy_minus_rent(inputs, low), _buy_minus_rent(inputs, high)
        if start <= 0:
            return round_cny(low, 0)
        if end <= 0:  # linear in between: interpolate the crossing
            return round_cny(low + start * (high - low) / (start - end), 0)
    return None


def _buy_minus_rent(inputs: EconomicsInputs, hours: Decimal) -> Decimal:
    at = _at_hours(inputs, hours)
    return mode_cost(at, BUY).cash_out_cny - mode_cost(at, RENT).cash_out_cny


def payback(inputs: EconomicsInputs, buy: ModeCost, rent: ModeCost) -> Payback:
    years = inputs.assumptions.horizon_years
    month = payback_month(buy, rent)
    if month is None:
        return Payback(None, None, Message.counted(PAYBACK_NOT, "years", {"years": years}))
    hours = break_even_hours(inputs)
    params = {
        "month": month,
        "horizon_months": years * MONTHS_PER_YEAR,
        "years": years,
        "hours": int(hours) if hours is not None else 0,
    }
    return Payback(month, hours, Message.counted(PAYBACK_WITHIN, "years", params))


# --- The result --------------------------------------------------------------------------


@dataclass(frozen=True)
class EconomicsResult:
    """The priced modes of one option. ``monthly`` and ``assumptions`` follow from ``costs``
    and ``inputs`` and are made when first read: a recommendation prices hundreds of options,
    and only the page, chart or brief of a few reads them (they are not stored either; a stored
    result makes them again from the same values)."""

    inputs: EconomicsInputs
    racks: int
    costs: dict[str, ModeCost]
    payback: Payback | None  # buying against renting the same servers (a programme)
    messages: list[Message] = field(default_factory=list)
    fits_in_a_year: bool = True  # a programme's runs fit in a year's hours on this capacity

    @cached_property
    def monthly(self) -> MonthlySeries:
        """The cumulative cash by month per mode (the chart)."""
        return monthly_series(self.costs)

    @cached_property
    def assumptions(self) -> list[Assumption]:
        """Every figure the costs rest on, with its provenance."""
        return _records(self.inputs)

    @property
    def cheapest_mode(self) -> str | None:
        if not self.costs:
            return None
        return min(self.costs, key=lambda m: (self.costs[m].net_of_resale_cny, MODES.index(m)))


def _price_messages(inputs: EconomicsInputs) -> list[Message]:
    messages = []
    price_keys = ("purchase_cny_per_server", "rent_cny_per_server_month", "cloud_cny_per_gpu_hour")
    if any(inputs.provenance_of(k).basis in (BASIS_EXAMPLE, BASIS_MARKET) for k in price_keys):
        messages.append(Message(EXAMPLE_PRICES))
    return messages


def _site_messages(inputs: EconomicsInputs) -> list[Message]:
    messages = []
    if server_exceeds_rack(inputs):
        params = {
            "server_kw": inputs.load.power_full_kw,
            "server_u": inputs.load.rack_units,
            "site": inputs.site.name,
            "site_zh": inputs.site.name_zh or inputs.site.name,
            "rack_kw": inputs.site.rack_power_limit_kw,
            "rack_u": inputs.site.rack_units_per_rack,
        }
        messages.append(Message(RACK_TOO_SMALL, params))
    if inputs.site.power_in_rack_fee:
        messages.append(
            Message(
                POWER_IN_FEE,
                {"site": inputs.site.name, "site_zh": inputs.site.name_zh or inputs.site.name},
            )
        )
    elif inputs.site.price_includes_pue:
        messages.append(Message(PUE_IN_PRICE))
    return messages


def _capacity_messages(inputs: EconomicsInputs) -> list[Message]:
    if fits_in_a_year(inputs):
        return []
    a = inputs.assumptions
    runs = a.runs_per_year if a.runs_per_year is not None else None
    params = {
        "runs": runs if runs is not None else "",
        "hours": round_cny(hours_needed_per_year(inputs), 0),
    }
    return [Message.counted(TOO_MANY_RUNS, "runs", params)]


def _records(inputs: EconomicsInputs) -> list[Assumption]:
    """The figures behind the result; the resale value as applied (the rule of thumb when the
    buyer gave none)."""
    records = assumption_records(inputs)
    if inputs.prices.purchase_cny_per_server is None or inputs.assumptions.resale_pct is not None:
        return records
    applied = assumption_record(
        replace(inputs, assumptions=replace(inputs.assumptions, resale_pct=resale_pct(inputs))),
        "resale_pct",
    )
    return [*records, applied] if applied is not None else records


def evaluate(
    inputs: EconomicsInputs,
    overrides: Overrides | None = None,
    *,
    cache: ModeCostCache | None = None,
) -> EconomicsResult:
    """Price the option in every offered mode over the buyer's period. ``cache``: the
    recommendation's mode costs (``ModeCostCache``), else each is made."""
    if overrides is not None:
        inputs = apply_overrides(inputs, overrides)
    cost = cache.mode_cost if cache is not None else mode_cost
    costs = {m: c for m in MODES if (c := cost(inputs, m)) is not None}
    owned = None
    if inputs.assumptions.is_programme and BUY in costs and RENT in costs:
        owned = payback(inputs, costs[BUY], costs[RENT])
    messages = _capacity_messages(inputs) + _price_messages(inputs) + _site_messages(inputs)
    if owned is not None:
        messages.append(owned.message)
    return EconomicsResult(
        inputs=inputs,
        racks=racks_needed(inputs),
        costs=costs,
        payback=owned,
        messages=messages,
        fits_in_a_year=fits_in_a_year(inputs),
    )


def not_priced_message(mode: str) -> Message:
    return Message(_NOT_PRICED[mode])


# --- Sites -------------------------------------------------------------------------------

SITE_MORE = N_("Buying and hosting at {other} costs {difference} CNY more than at {base}.")
SITE_LESS = N_("Buying and hosting at {other} costs {difference} CNY less than at {base}.")
SITE_MORE_PARTIAL = N_(
    "Buying and hosting at {other} costs {difference} CNY more than at {base}, leaving out what "
    "only one of them has a figure for (below)."
)
SITE_LESS_PARTIAL = N_(
    "Buying and hosting at {other} costs {difference} CNY less than at {base}, leaving out what "
    "only one of them has a figure for (below)."
)
SITE_SAME_PARTIAL = N_(
    "Buying and hosting at {other} and at {base} cost the same on what both have figures for; "
    "what only one of them has a figure for is left out (below)."
)
SITE_PART = {
    "tariff": N_("Electricity price: {amount} CNY"),
    "pue": N_("PUE: {amount} CNY"),
    "rack_fee": N_("Rack fee: {amount} CNY"),
    "rack_count": N_("Number of racks: {amount} CNY"),
    "demand_charge": N_("Demand (basic) charge: {amount} CNY"),
    "other": N_("Purchase, maintenance, resale and data transfer: {amount} CNY"),
}


# A component one site has no figure of its own for (none on record, or a national placeholder
# standing in) is left out of the difference and said so: a difference built from one side's
# figure against the other's gap would explain nothing (docs/decisions/0105).
SITE_LEFT_OUT = {
    "tariff": N_(
        "Electricity price: left out of the difference, because {missing} has no tariff of its "
        "own (a national figure stands in); it would count {amount} CNY"
    ),
    "pue": N_(
        "PUE: left out of the difference, because {missing} has no PUE of its own (a national "
        "figure stands in); it would count {amount} CNY"
    ),
    "rack_fee": N_(
        "Rack fee: left out of the difference, because {missing} has no rack fee of its own (a "
        "national figure stands in); it would count {amount} CNY"
    ),
    "demand_charge": N_(
        "Demand (basic) charge: left out of the difference, because no demand charge goes with "
        "{missing}'s electricity price in the catalog; {known} pays {amount} CNY"
    ),
}
# A demand charge the national mean stands in for is a placeholder like the others.
SITE_LEFT_OUT_NATIONAL_DEMAND = N_(
    "Demand (basic) charge: left out of the difference, because {missing} has no demand charge "
    "of its own (a national figure stands in); it would count {amount} CNY"
)
SITE_LEFT_OUT_BOTH = N_(
    "{component}: left out of the difference, because neither site has a figure of its own; it "
    "would count {amount} CNY"
)
SITE_COMPONENT = {
    "tariff": N_("Electricity price"),
    "pue": N_("PUE"),
    "rack_fee": N_("Rack fee"),
    "demand_charge": N_("Demand (basic) charge"),
}
# The site figure each component of the split rests on (EconomicsInputs.provenance keys).
_COMPONENT_FIGURE = {
    "tariff": "tariff_cny_per_kwh",
    "pue": "pue",
    "rack_fee": "rack_fee_cny_per_month",
    "demand_charge": "demand_charge_cny_per_kw_month",
}
_PLACEHOLDER_LEVELS = frozenset({LEVEL_NATIONAL, LEVEL_ASSUMED})


@dataclass(frozen=True)
class SiteDifference:
    """Buying at ``other`` minus buying at ``base`` over the horizon, and what explains it.

    ``total_cny`` is the difference the comparison states: the cost difference less the
    components ``left_out_cny`` (those one site has no figure of its own for). The parts add up
    exactly to ``total_cny``, and ``total_cny`` plus the left-out parts to the cost difference.
    Electricity = energy × PUE × price is split symmetrically (each factor's change valued at
    the mean of the other), rack fees the same way between the fee and the number of racks.
    """

    base_key: str
    other_key: str
    total_cny: Decimal
    parts_cny: dict[str, Decimal]
    messages: list[Message]
    left_out_cny: dict[str, Decimal] = field(default_factory=dict)

    @property
    def cost_difference_cny(self) -> Decimal:
        """Buying at ``other`` minus buying at ``base``, left-out components included."""
        return self.total_cny + sum(self.left_out_cny.values(), Decimal(0))


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
        return it_energy_kwh(inputs), effective_pue(inputs), effective_tariff_cny_per_kwh(inputs)

    kwh_a, pue_a, tariff_a = energy_price(base)
    kwh_b, pue_b, tariff_b = energy_price(other)
    # Same servers and usage at both sites, so the IT energy is the same; the factors differ.
    if kwh_a != kwh_b:
        raise ValueError("site comparison needs the same servers and usage at every site")
    tariff_part, pue_part = _midpoint_split(tariff_a, tariff_b, pue_a, pue_b)
    return kwh_a * tariff_part, kwh_a * pue_part


def _rack_split(base: EconomicsResult, other: EconomicsResult) -> tuple[Decimal, Decimal]:
    months = hosted_months(base.inputs)
    fee_a, fee_b = base.inputs.site.rack_fee_cny_per_month, other.inputs.site.rack_fee_cny_per_month
    fee_part, count_part = _midpoint_split(fee_a, fee_b, Decimal(base.racks), Decimal(other.racks))
    return fee_part * months, count_part * months


def _line_amount(cost: ModeCost, item: str) -> Decimal:
    return sum((i.amount_cny for i in cost.lines if i.item == item), Decimal(0))


def _site_name(result: EconomicsResult, language_key: str) -> str:
    site = result.inputs.site
    return (site.name_zh or site.name) if language_key == "zh" else site.name


def has_own_figure(result: EconomicsResult, component: str) -> bool:
    """Whether the site of ``result`` has a figure of its own for ``component`` of the split:
    its own, its zone's or the buyer's, not a national placeholder nor a missing one.

    A figure given without provenance is the caller's own, except a demand charge of zero (the
    default when none is known). Where power comes in the rack fee or at a fixed price, no
    demand charge applies: that is known too.
    """
    inputs = result.inputs
    key = _COMPONENT_FIGURE[component]
    provenance = inputs.provenance.get(key)
    if provenance is not None:
        return provenance.basis == BASIS_OVERRIDE or provenance.level not in _PLACEHOLDER_LEVELS
    if component == "demand_charge":
        site = inputs.site
        return (
            site.demand_charge_cny_per_kw_month > 0
            or site.price_includes_pue
            or site.power_in_rack_fee
        )
    return True


def _left_out_message(component, amount, base, other, base_demand, other_demand) -> Message:
    base_own, other_own = has_own_figure(base, component), has_own_figure(other, component)
    if not base_own and not other_own:
        return Message(
            SITE_LEFT_OUT_BOTH,
            {"component": Message(SITE_COMPONENT[component]), "amount": round_cny(amount, 0)},
        )
    missing, known = (other, base) if base_own else (base, other)
    params = {
        "missing": _site_name(missing, "en"),
        "missing_zh": _site_name(missing, "zh"),
        "known": _site_name(known, "en"),
        "known_zh": _site_name(known, "zh"),
        "amount": round_cny(amount, 0),
    }
    if component == "demand_charge":
        if _placeholder(missing, component):
            return Message(SITE_LEFT_OUT_NATIONAL_DEMAND, params)
        params["amount"] = round_cny(base_demand if base_own else other_demand, 0)
    return Message(SITE_LEFT_OUT[component], params)


def _placeholder(result: EconomicsResult, component: str) -> bool:
    """Whether a national or assumed figure stands in for the site's ``component``."""
    provenance = result.inputs.provenance.get(_COMPONENT_FIGURE[component])
    return provenance is not None and provenance.level in _PLACEHOLDER_LEVELS


def site_difference(base: EconomicsResult, other: EconomicsResult) -> SiteDifference:
    cost_difference = other.costs[BUY].net_of_resale_cny - base.costs[BUY].net_of_resale_cny
    tariff_part, pue_part = _electricity_split(base, other)
    fee_part, count_part = _rack_split(base, other)
    demand = [_line_amount(r.costs[BUY], "demand_charge") for r in (base, other)]
    split = {
        "tariff": tariff_part,
        "pue": pue_part,
        "demand_charge": demand[1] - demand[0],
        "rack_fee": fee_part,
        "rack_count": count_part,
    }
    split["other"] = cost_difference - sum(split.values(), Decimal(0))
    left_out = {
        name: amount
        for name, amount in split.items()
        if name in _COMPONENT_FIGURE
        and round_cny(amount, 0) != 0
        and not (has_own_figure(base, name) and has_own_figure(other, name))
    }
    parts = {name: amount for name, amount in split.items() if name not in left_out}
    total = cost_difference - sum(left_out.values(), Decimal(0))
    if left_out and round_cny(total, 0) == 0:
        template = SITE_SAME_PARTIAL
    elif left_out:
        template = SITE_MORE_PARTIAL if total >= 0 else SITE_LESS_PARTIAL
    else:
        template = SITE_MORE if total >= 0 else SITE_LESS
    headline = Message(
        template,
        {
            "other": _site_name(other, "en"),
            "base": _site_name(base, "en"),
            # Chinese readers read the sites' Chinese names (see advisor.domain.i18n.localised).
            "other_zh": _site_name(other, "zh"),
            "base_zh": _site_name(base, "zh"),
            "difference": round_cny(abs(total), 0),
        },
    )
    lines = [
        Message(SITE_PART[name], {"amount": round_cny(amount, 0)})
        for name, amount in parts.items()
        if round_cny(amount, 0) != 0
    ]
    lines += [
        _left_out_message(name, amount, base, other, *demand) for name, amount in left_out.items()
    ]
    return SiteDifference(
        base.inputs.site.key,
        other.inputs.site.key,
        total,
        parts,
        [headline, *lines],
        left_out,
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
