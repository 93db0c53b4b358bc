"""Effective electricity price of a 24-hour training load from a time-of-use tariff table.

Pure Python. A provincial agency-purchase table (代理购电工商业用户电价表) gives a price per
time-of-use band (sharp, peak, flat, valley, sometimes deep valley) and, for two-part tariffs,
a demand (basic) charge per kW of maximum demand per month. The DRC's time-of-use notice gives
the hours of each band. For a load that runs around the clock, the energy price is the
hour-weighted mean of the band prices; the demand charge adds

    demand charge per kWh = charge per kW·month ÷ (730 h × load factor)

(730 h = 8,760 h ÷ 12; load factor = mean kW ÷ maximum kW over the month).

Seasonal bands: a sharp band (尖峰) that applies only in some months (``months``) is carved out
of the all-year bands that hold those hours in other months (Beijing's July sharp hours come
out of peak and flat). Over a year each of its hours counts for ``len(months) ÷ 12``, and the
rest stays with the band it is carved from. A band without ``months`` applies all year. The
all-year bands must cover the 24 hours exactly once.

Hours are written as ranges of the clock, ``"10-12,14-19"`` or ``"22:00-24:00"``; a range
may wrap midnight (``"22-6"``). Half hours are allowed (``"7:30-9"``).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from advisor.domain.i18n import N_

HOURS_PER_DAY = Decimal(24)
HOURS_PER_MONTH = Decimal(730)  # 8,760 h ÷ 12, as in the cost model
MONTHS_PER_YEAR = 12

SHARP = "sharp"
PEAK = "peak"
FLAT = "flat"
VALLEY = "valley"
DEEP_VALLEY = "deep-valley"
BANDS = (SHARP, PEAK, FLAT, VALLEY, DEEP_VALLEY)
BAND_LABELS = {
    SHARP: N_("sharp peak"),
    PEAK: N_("peak"),
    FLAT: N_("flat"),
    VALLEY: N_("valley"),
    DEEP_VALLEY: N_("deep valley"),
}
_SLOTS_PER_HOUR = 2  # half-hour resolution


class TariffError(ValueError):
    """A tariff table the effective price cannot be computed from (message names the problem)."""


def _clock(text: str) -> Decimal:
    text = text.strip()
    if ":" in text:
        hours, minutes = text.split(":", 1)
    else:
        hours, minutes = text, "0"
    try:
        value = Decimal(int(hours)) + Decimal(int(minutes)) / 60
    except ValueError as error:
        raise TariffError(f"not a time of day: {text!r}") from error
    if not 0 <= value <= 24 or (value * _SLOTS_PER_HOUR) % 1:
        raise TariffError(f"time of day must be 0..24 on the half hour: {text!r}")
    return value


def parse_hours(text: str) -> frozenset[int]:
    """The half-hour slots (0..47) of ``"10-12,14-19"``; wrapping ranges allowed."""
    slots: set[int] = set()
    for part in filter(None, (p.strip() for p in (text or "").replace("，", ",").split(","))):
        if "-" not in part:
            raise TariffError(f"an hour range needs a start and an end: {part!r}")
        start_text, end_text = part.split("-", 1)
        start, end = _clock(start_text), _clock(end_text)
        if start == end:
            raise TariffError(f"an hour range cannot be empty: {part!r}")
        first, last = int(start * _SLOTS_PER_HOUR), int(end * _SLOTS_PER_HOUR)
        if first < last:
            span = range(first, last)
        else:
            span = [*range(first, 24 * _SLOTS_PER_HOUR), *range(0, last)]
        overlap = slots.intersection(span)
        if overlap:
            raise TariffError(f"hour ranges overlap: {text!r}")
        slots.update(span)
    return frozenset(slots)


def parse_months(text: str) -> frozenset[int]:
    """``"7,8,9"`` or ``"7-9"`` → {7, 8, 9}; empty → empty (all year)."""
    months: set[int] = set()
    for part in filter(None, (p.strip() for p in (text or "").replace("，", ",").split(","))):
        try:
            if "-" in part:
                first, last = (int(x) for x in part.split("-", 1))
                values = range(first, last + 1)
            else:
                values = [int(part)]
        except ValueError as error:
            raise TariffError(f"not a month list: {text!r}") from error
        if not values or any(not 1 <= m <= 12 for m in values):
            raise TariffError(f"months must be 1..12: {text!r}")
        months.update(values)
    return frozenset(months)


@dataclass(frozen=True)
class Band:
    """One time-of-use band: its price and its hours of the day (and months, when seasonal)."""

    name: str
    price_cny_per_kwh: Decimal
    hours: str
    months: str = ""  # empty: all year


def table_bands(table) -> list[Band]:
    """The bands of a time-of-use table with a price and hours, as :class:`Band` objects.

    ``table`` is any object with ``<band>_cny_per_kwh``, ``<band>_hours`` and optionally
    ``<band>_months`` attributes, the band names with underscores (``deep_valley``); a catalog
    row or a plain object in a test.
    """
    bands = []
    for name in BANDS:
        attribute = name.replace("-", "_")
        price = getattr(table, f"{attribute}_cny_per_kwh", None)
        hours = getattr(table, f"{attribute}_hours", None)
        if price is not None and hours:
            bands.append(Band(name, price, hours, getattr(table, f"{attribute}_months", "") or ""))
    return bands


@dataclass(frozen=True)
class BandShare:
    """A band's part in the effective price: hours per day (annual mean), price and share."""

    name: str
    hours_per_day: Decimal
    price_cny_per_kwh: Decimal
    share: Decimal  # of the 24 hours
    contribution_cny_per_kwh: Decimal  # hours ÷ 24 × price

    @property
    def label(self) -> str:
        return BAND_LABELS[self.name]


@dataclass(frozen=True)
class EffectivePrice:
    """The effective price of a load running around the clock, with its breakdown."""

    bands: tuple[BandShare, ...]
    energy_cny_per_kwh: Decimal
    demand_charge_cny_per_kw_month: Decimal | None
    load_factor: Decimal
    demand_cny_per_kwh: Decimal
    total_cny_per_kwh: Decimal


def _check_bands(bands: list[Band]) -> tuple[dict[str, frozenset[int]], dict[int, str]]:
    names = [band.name for band in bands]
    unknown = [n for n in names if n not in BANDS]
    if unknown:
        raise TariffError(f"unknown band {unknown[0]!r}")
    if len(set(names)) != len(names):
        raise TariffError("a band is listed twice")
    slots = {band.name: parse_hours(band.hours) for band in bands}
    all_year = [band for band in bands if not parse_months(band.months)]
    owner: dict[int, str] = {}
    for band in all_year:
        if owner.keys() & slots[band.name]:
            raise TariffError(f"the hours of {band.name} overlap another band")
        owner.update(dict.fromkeys(slots[band.name], band.name))
    if len(owner) != 24 * _SLOTS_PER_HOUR:
        raise TariffError("the all-year bands must cover the 24 hours of the day")
    seasonal = [band for band in bands if parse_months(band.months)]
    taken: set[int] = set()
    for band in seasonal:
        if taken & slots[band.name]:
            raise TariffError(f"the hours of {band.name} overlap another seasonal band")
        taken |= slots[band.name]
    return slots, owner


def effective_price(
    bands: list[Band],
    demand_charge_cny_per_kw_month: Decimal | None = None,
    load_factor: Decimal = Decimal(1),
) -> EffectivePrice:
    """The mean price of a kWh drawn evenly around the clock over a year, plus the demand
    charge spread over the kWh of a month at ``load_factor`` (1: a 24-hour training load)."""
    if not bands:
        raise TariffError("no time-of-use bands")
    if not Decimal(0) < load_factor <= 1:
        raise TariffError("the load factor must be above 0 and at most 1")
    slots, owner = _check_bands(bands)
    hours = {band.name: Decimal(len(slots[band.name])) / _SLOTS_PER_HOUR for band in bands}
    for band in bands:
        months = parse_months(band.months)
        if months:
            per_year = MONTHS_PER_YEAR * _SLOTS_PER_HOUR
            for name in {owner[slot] for slot in slots[band.name]}:
                count = sum(1 for slot in slots[band.name] if owner[slot] == name)
                hours[name] -= Decimal(count * len(months)) / per_year
            hours[band.name] = Decimal(len(slots[band.name]) * len(months)) / per_year
    shares = tuple(
        BandShare(
            name=band.name,
            hours_per_day=hours[band.name],
            price_cny_per_kwh=band.price_cny_per_kwh,
            share=hours[band.name] / HOURS_PER_DAY,
            contribution_cny_per_kwh=hours[band.name] / HOURS_PER_DAY * band.price_cny_per_kwh,
        )
        for band in sorted(bands, key=lambda b: BANDS.index(b.name))
    )
    energy = sum((s.contribution_cny_per_kwh for s in shares), Decimal(0))
    demand = (
        Decimal(0)
        if demand_charge_cny_per_kw_month is None
        else demand_charge_cny_per_kw_month / (HOURS_PER_MONTH * load_factor)
    )
    return EffectivePrice(
        bands=shares,
        energy_cny_per_kwh=energy,
        demand_charge_cny_per_kw_month=demand_charge_cny_per_kw_month,
        load_factor=load_factor,
        demand_cny_per_kwh=demand,
        total_cny_per_kwh=energy + demand,
    )
