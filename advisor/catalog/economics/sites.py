"""A site's cost figures from the catalog, with the fallback chain of decision 0029.

The site's own figure, else its policy zone's (then the wider zones'), else a national one;
each with its provenance, so that an option says how far its cost can be trusted.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal

from django.utils import translation

from advisor.catalog.cache import memoized
from advisor.domain import sources as domain_sources
from advisor.domain.economics.inputs import (
    BASIS_ASSUMPTION,
    BASIS_CATALOG,
    BASIS_CLAIM,
    BASIS_EXAMPLE,
    BASIS_MARKET,
    BASIS_OFFICIAL,
    LEVEL_ASSUMED,
    LEVEL_NATIONAL,
    LEVEL_SITE,
    LEVEL_ZONE,
    Provenance,
    Site,
    to_decimal,
)
from advisor.domain.economics.tariff import (
    EffectivePrice,
    TariffError,
    effective_price,
    table_bands,
)
from advisor.domain.i18n import N_, Message
from vendors import choices
from vendors.models import DataCenter, PolicyZone, RackFee, Tariff

# PUE when a data center states neither a measured nor a design value: the national
# average target for end-2025 in the 2024 action plan (《数据中心绿色低碳发展专项行动计划》,
# "national average PUE below 1.5"); a policy cap is never used as the operating PUE.
FALLBACK_PUE = Decimal("1.5")
FALLBACK_PUE_SOURCE = N_(
    "No PUE stated for this data center: national average target below 1.5 by end-2025, "
    "NDRC/MIIT/NEA/NDA 2024-07 action plan "
    "(https://www.gov.cn/zhengce/zhengceku/202407/P020240724272072479001.pdf)."
)

# What kind of figure a published row is, by its flag. A LOW row is whatever its document is
# (an official table read on a repost, a derived table, a press figure): a catalog figure, its
# low confidence said by the flag and the source kind beside it, not a "market report".
_FLAG_BASIS = {
    choices.SourceFlag.OFFICIAL: BASIS_OFFICIAL,
    choices.SourceFlag.OFFICIAL_TRANSCRIBED: BASIS_OFFICIAL,
    choices.SourceFlag.PRESS: BASIS_MARKET,
    choices.SourceFlag.MARKET: BASIS_MARKET,
    choices.SourceFlag.VENDOR: BASIS_CLAIM,
    choices.SourceFlag.FILING: BASIS_CATALOG,
    choices.SourceFlag.DERIVED: BASIS_CATALOG,
    choices.SourceFlag.LOW: BASIS_CATALOG,
}

_OFFER_FIELDS = {
    choices.OfferKind.BUY: "purchase_cny_per_server",
    choices.OfferKind.RENT: "rent_cny_per_server_month",
    choices.OfferKind.CLOUD: "cloud_cny_per_gpu_hour",
}


class MissingFigures(LookupError):
    """The catalog lacks figures the model needs; ``keys`` are Overrides field names."""

    def __init__(self, keys: list[str], where: str):
        self.keys = keys
        self.where = where
        super().__init__(f"{where}: missing {', '.join(keys)} (enter them as overrides)")


def table_price(tariff, load_factor=None):
    """The domain's :class:`EffectivePrice` of a catalog tariff row for a 24-hour load, or
    ``None`` when its table is incomplete or has only a single figure."""
    if tariff.incomplete_bands() or not table_bands(tariff):
        return None
    try:
        return effective_price(
            table_bands(tariff),
            tariff.demand_charge_cny_per_kw_month,
            Decimal(1) if load_factor is None else load_factor,
        )
    except TariffError:
        return None


def _basis(flag: str, is_example: bool = False) -> str:
    if is_example:
        return BASIS_EXAMPLE
    return _FLAG_BASIS.get(flag, BASIS_CATALOG)


def _decimal(value) -> Decimal | None:
    return None if value is None else to_decimal(value)


# --- Source kinds (docs/decisions/0043-source-kinds.md) ------------------------------------


def source_kind(*texts: str) -> str:
    """The strongest kind among the lines of the source fields ``texts``."""
    return domain_sources.strongest(
        kind for text in texts for kind in domain_sources.kinds_of(text)
    )


def plain_source(text: str) -> str:
    """A source field as the reader sees it: its documents, without the kind tags."""
    return domain_sources.plain_text(text)


def said(template: str, place=None, **params) -> Message:
    """A source line in the reader's language: our words (``template``, an ``N_`` string), the
    place named in both languages (``place``: a record with ``name`` and ``name_zh``, or a
    message), the documents as written (parameters)."""
    if place is not None and not isinstance(place, Message):
        params["place_zh"] = getattr(place, "name_zh", None) or None
        place = getattr(place, "name", place)
    if place is not None:
        params["place"] = place
    return Message(template, params)


def _row_provenance(
    basis_flag: str, source: str | Message, as_of, level: str, kind: str
) -> Provenance:
    """A published figure's provenance: its flag is LOW when its sources are all low quality."""
    flag = domain_sources.figure_flag(kind, basis_flag)
    return Provenance(_basis(flag), source, as_of, flag=flag, level=level, kind=kind)


# --- Site --------------------------------------------------------------------------------


@dataclass(frozen=True)
class SiteFigures:
    """A data center's figures; ``None`` where the catalog has none."""

    key: str
    name: str
    tariff_cny_per_kwh: Decimal | None
    pue: Decimal
    rack_fee_cny_per_month: Decimal | None
    rack_power_limit_kw: Decimal | None
    price_includes_pue: bool
    power_in_rack_fee: bool
    demand_charge_cny_per_kw_month: Decimal | None
    provenance: dict[str, Provenance]
    name_zh: str | None = None

    REQUIRED = ("tariff_cny_per_kwh", "rack_fee_cny_per_month", "rack_power_limit_kw")

    def missing(self) -> list[str]:
        """The figures the model needs that the catalog lacks (Overrides field names)."""
        return [name for name in self.REQUIRED if getattr(self, name) is None]

    def as_site(self, fill: dict | None = None) -> Site:
        """A domain :class:`Site`; ``fill`` gives values for the missing figures."""
        fill = fill or {}
        gaps = [name for name in self.missing() if fill.get(name) is None]
        if gaps:
            raise MissingFigures(gaps, self.name)
        value = {name: getattr(self, name) for name in self.REQUIRED}
        value.update({name: to_decimal(fill[name]) for name in self.missing()})
        return Site(
            key=self.key,
            name=self.name,
            name_zh=self.name_zh,
            pue=self.pue,
            price_includes_pue=self.price_includes_pue,
            power_in_rack_fee=self.power_in_rack_fee,
            demand_charge_cny_per_kw_month=self.demand_charge_cny_per_kw_month or Decimal(0),
            **value,
        )


def _preferential_tariff(dc: DataCenter) -> tuple[Decimal | None, Provenance | None]:
    for zone in _zone_chain(dc):
        if zone.preferential_tariff_cny_per_kwh is not None:
            source = said(
                N_("{place}: negotiated-tariff scenario. {documents}"),
                zone,
                documents=zone.preferential_tariff_note,
            )
            return _decimal(zone.preferential_tariff_cny_per_kwh), Provenance(
                BASIS_CLAIM, source, flag=choices.SourceFlag.VENDOR, level=LEVEL_ZONE
            )
    return None, None


# --- Fallback chain: the site's own figure → its zone's (then the wider zones') → national ----


def _zone_chain(dc: DataCenter) -> list[PolicyZone]:
    """The site's policy zone and the zones it falls back to, then its province's zone."""
    key = ("zone chain", dc.policy_zone_id, (dc.province or "").casefold())
    return list(memoized(key, lambda: _read_zone_chain(dc)))


def _read_zone_chain(dc: DataCenter) -> list[PolicyZone]:
    zones = dc.policy_zone.chain() if dc.policy_zone_id else []
    province = dc.province or (dc.policy_zone.province if dc.policy_zone_id else "")
    if province:
        extra = PolicyZone.objects.filter(
            kind=choices.PolicyZoneKind.PROVINCE, province__iexact=province
        ).exclude(pk__in=[z.pk for z in zones])
        for zone in extra:
            zones.extend(z for z in zone.chain() if z not in zones)
    return zones


@dataclass(frozen=True)
class TariffFigure:
    """The electricity price used for a site: energy per kWh, demand charge, and why."""

    energy_cny_per_kwh: Decimal
    demand_charge_cny_per_kw_month: Decimal | None
    provenance: Provenance
    demand_provenance: Provenance | None
    tariff: Tariff | None = None
    breakdown: EffectivePrice | None = None  # the bands, for display
    note: str = ""


def _in_both(label) -> dict:
    """A choice label as English and Chinese readers read it (a message parameter pair).

    ``label`` must be the lazy label (``Choices(value).label``): ``get_FOO_display()`` has
    already put it in the language active when it was called."""
    with translation.override("en"):
        english = str(label)
    with translation.override("zh-hans"):
        chinese = str(label)
    return {"en": english, "zh": chinese}


def _tariff_source(tariff: Tariff) -> Message:
    tariff_class = _in_both(choices.TariffClass(tariff.tariff_class).label)
    documents = " ".join(str(p) for p in (tariff.document_title, tariff.issuer, tariff.url) if p)
    params = {
        "tariff_class": tariff_class["en"],
        "tariff_class_zh": tariff_class["zh"],
        "month": f"{tariff.month:%Y-%m}",
        "documents": documents,
    }
    if tariff.published_on:
        template = N_("{place}: {tariff_class}, {month}. {documents} Published {published}.")
        params["published"] = tariff.published_on.isoformat()
    else:
        template = N_("{place}: {tariff_class}, {month}. {documents}")
    return said(template, tariff.policy_zone, **params)


def _level(zone: PolicyZone, dc: DataCenter) -> str:
    return LEVEL_ZONE if zone is not None else LEVEL_NATIONAL


def _tariff_provenance(tariff: Tariff) -> Provenance:
    """A zone's tariff table (energy or demand charge): its flag, capped by its sources' kinds."""
    kind = source_kind(tariff.source)
    return _row_provenance(tariff.flag, _tariff_source(tariff), tariff.month, LEVEL_ZONE, kind)


def _zone_tariff_provenance(zone: PolicyZone, flag: str) -> Provenance:
    """A zone's own single tariff figure (older records) and its demand charge."""
    source = said(
        N_("{place}: {documents}"),
        zone,
        documents=" ".join(filter(None, [zone.tariff_basis, plain_source(zone.tariff_source)])),
    )
    kind = source_kind(zone.tariff_source)
    return _row_provenance(flag, source, zone.tariff_as_of, LEVEL_ZONE, kind)


# Prices computed from bands are kept to 1/1,000,000 CNY per kWh (the tables' own precision is
# at most 8 decimals; the hour-weighted mean would otherwise repeat without end).
PRICE_QUANTUM = Decimal("0.000001")


def priced_tariff(tariff: Tariff) -> tuple[Decimal, EffectivePrice | None] | None:
    """The tariff's 24-hour energy price and breakdown; ``None`` when it cannot be priced."""
    breakdown = table_price(tariff)
    if breakdown is not None:
        return breakdown.energy_cny_per_kwh.quantize(PRICE_QUANTUM), breakdown
    if tariff.flat_figure_cny_per_kwh is not None:
        return _decimal(tariff.flat_figure_cny_per_kwh), None
    return None


def _zone_tariffs(zone: PolicyZone) -> list[Tariff]:
    """The zone's tariffs, newest first (each one's zone is ``zone``, not read again)."""

    def read():
        tariffs = list(zone.tariffs.order_by("-month", "key"))
        for tariff in tariffs:
            tariff.policy_zone = zone
        return tariffs

    return memoized(("zone tariffs", zone.pk), read)


def zone_tariff(zone: PolicyZone) -> Tariff | None:
    """The zone's newest tariff that can be priced (a full table or a single figure)."""
    for tariff in _zone_tariffs(zone):
        if priced_tariff(tariff) is not None:
            return tariff
    return None


def _two_part(tariff: Tariff) -> bool:
    return tariff.tariff_class in (
        choices.TariffClass.TWO_PART_1_10KV,
        choices.TariffClass.LARGE_INDUSTRY_10KV,
    )


def _latest_tables() -> list[Tariff]:
    """The newest complete time-of-use table of every zone (single figures left out)."""
    return memoized("latest tables", _read_latest_tables)


def _read_latest_tables() -> list[Tariff]:
    tables = []
    for zone in PolicyZone.objects.prefetch_related("tariffs").order_by("key"):
        for tariff in sorted(zone.tariffs.all(), key=lambda t: t.month, reverse=True):
            if table_price(tariff) is not None:
                tables.append(tariff)
                break
    return tables


NATIONAL_TARIFF_NOTE = (
    "National figure: mean 24-hour energy price of the newest complete time-of-use table of "
    "each zone in the catalog ({zones}); derived, so indicative only."
)
NATIONAL_DEMAND_NOTE = (
    "National figure: mean 1-10 kV two-part demand charge of the grids in the catalog "
    "({zones}); derived, so indicative only."
)


def _grid_demands() -> list[tuple[str, Decimal, Provenance]]:
    """One demand charge per grid (a top-level zone), the first its zones give, province first:
    ``(zone name, charge, provenance)``."""
    return memoized("grid demands", _read_grid_demands)


def _read_grid_demands() -> list[tuple[str, Decimal, Provenance]]:
    zones = PolicyZone.objects.select_related("parent__parent").order_by("key")
    by_grid = {}
    for zone in sorted(zones, key=lambda z: len(z.chain())):  # the province before its parts
        root = zone.chain()[-1].pk
        if root not in by_grid and (own := _zone_demand(zone)) is not None:
            by_grid[root] = (zone.name, *own)
    return sorted(by_grid.values(), key=lambda grid: grid[0])


def national_tariff() -> TariffFigure | None:
    """The mean of the zones' newest complete tables (energy) and of their demand charges."""
    tables = _latest_tables()
    if not tables:
        return None
    energy = sum((table_price(t).energy_cny_per_kwh for t in tables), Decimal(0))
    energy = (energy / len(tables)).quantize(PRICE_QUANTUM)
    demands = _grid_demands()
    demand = sum((c for _, c, _ in demands), Decimal(0)) / len(demands) if demands else None
    newest = max(t.month for t in tables)
    names = ", ".join(f"{t.policy_zone.name} {t.month:%Y-%m}" for t in tables)
    # A mean is as good as its weakest table: the weakest of the tables' kinds.
    kind = domain_sources.weakest(source_kind(t.source) for t in tables)
    provenance = Provenance(
        BASIS_CATALOG,
        NATIONAL_TARIFF_NOTE.format(zones=names),
        newest,
        flag=domain_sources.figure_flag(kind, choices.SourceFlag.DERIVED),
        level=LEVEL_NATIONAL,
        kind=kind,
    )
    demand_names = ", ".join(
        f"{name} {p.as_of:%Y-%m}" if p.as_of else name for name, _, p in demands
    )
    demand_kind = domain_sources.weakest(p.kind for _, _, p in demands)
    demand_newest = max((p.as_of for _, _, p in demands if p.as_of), default=newest)
    demand_provenance = (
        Provenance(
            BASIS_CATALOG,
            NATIONAL_DEMAND_NOTE.format(zones=demand_names),
            demand_newest,
            flag=domain_sources.figure_flag(demand_kind, choices.SourceFlag.DERIVED),
            level=LEVEL_NATIONAL,
            kind=demand_kind,
        )
        if demands
        else None
    )
    return TariffFigure(energy, demand, provenance, demand_provenance)


def _demand_for(tariff: Tariff, zones: list[PolicyZone]):
    """A two-part table's demand charge; when it lacks one, the nearest zone's, else national."""
    if not _two_part(tariff):
        return None, None
    if tariff.demand_charge_cny_per_kw_month is not None:
        return _decimal(tariff.demand_charge_cny_per_kw_month), _tariff_provenance(tariff)
    return _zones_demand(zones)


def _zone_demand(zone: PolicyZone) -> tuple[Decimal, Provenance] | None:
    """A zone's own demand charge: its newest two-part table's that has one, else the zone's."""
    for table in _zone_tariffs(zone):
        if _two_part(table) and table.demand_charge_cny_per_kw_month is not None:
            return _decimal(table.demand_charge_cny_per_kw_month), _tariff_provenance(table)
    if zone.demand_charge_cny_per_kw_month is not None:
        flag = zone.tariff_flag or choices.SourceFlag.LOW
        return _decimal(zone.demand_charge_cny_per_kw_month), _zone_tariff_provenance(zone, flag)
    return None


def _zones_demand(zones: list[PolicyZone]):
    """The nearest zone's demand charge (a two-part table's, or the zone's own), else national."""
    for zone in zones:
        if (own := _zone_demand(zone)) is not None:
            return own
    national = national_tariff()
    if national is None or national.demand_charge_cny_per_kw_month is None:
        return None, None
    return national.demand_charge_cny_per_kw_month, national.demand_provenance


def tariff_figure(dc: DataCenter) -> TariffFigure | None:
    """The grid price for a site: its zone's table, a wider zone's, or the national figure."""
    return zones_tariff(_zone_chain(dc))


def zones_tariff(zones: list[PolicyZone]) -> TariffFigure | None:
    """The first of ``zones`` with a price (nearest first), else the national figure."""
    for zone in zones:
        tariff = zone_tariff(zone)
        if tariff is not None:
            energy, breakdown = priced_tariff(tariff)
            provenance = _tariff_provenance(tariff)
            demand, demand_provenance = _demand_for(tariff, zones)
            return TariffFigure(
                energy, demand, provenance, demand_provenance, tariff, breakdown, tariff.notes
            )
        if zone.tariff_cny_per_kwh is not None:  # a zone's single figure (older records)
            provenance = _zone_tariff_provenance(zone, zone.tariff_flag)
            demand = _decimal(zone.demand_charge_cny_per_kw_month)
            return TariffFigure(
                _decimal(zone.tariff_cny_per_kwh),
                demand,
                provenance,
                provenance if demand is not None else None,
            )
    national = national_tariff()
    if national is None:
        return None
    demand, demand_provenance = _zones_demand(zones)
    return replace(
        national, demand_charge_cny_per_kw_month=demand, demand_provenance=demand_provenance
    )


def _tariff(dc: DataCenter, preferential: bool = False) -> tuple[Decimal | None, Provenance | None]:
    site_basis = BASIS_EXAMPLE if dc.is_example else BASIS_CATALOG
    kind = source_kind(dc.source)
    flag = domain_sources.figure_flag(kind)
    if dc.power_pricing == choices.PowerPricing.FIXED:
        source = said(
            N_("{place}: fixed power price, metered at the rack (cooling included). {documents}"),
            dc,
            documents=plain_source(dc.source),
        )
        return _decimal(dc.power_price_cny_per_kwh), Provenance(
            site_basis, source, dc.as_of, flag=flag, level=LEVEL_SITE, kind=kind
        )
    if dc.power_pricing == choices.PowerPricing.INCLUDED:
        return Decimal(0), Provenance(
            site_basis,
            said(N_("{place}: power included in the rack fee."), dc),
            flag=flag,
            level=LEVEL_SITE,
            kind=kind,
        )
    if preferential:
        tariff, provenance = _preferential_tariff(dc)
        if tariff is not None:
            return tariff, provenance
    figure = tariff_figure(dc)
    if figure is None:
        return None, None
    return figure.energy_cny_per_kwh, figure.provenance


def _pue(dc: DataCenter) -> tuple[Decimal, Provenance]:
    basis = BASIS_EXAMPLE if dc.is_example else BASIS_CLAIM
    kind = source_kind(dc.source)
    flag = domain_sources.figure_flag(kind, "" if dc.is_example else choices.SourceFlag.VENDOR)
    if dc.pue_measured is not None:
        return _decimal(dc.pue_measured), Provenance(
            basis,
            said(
                N_("{place}: measured annual PUE. {documents}"),
                dc,
                documents=plain_source(dc.source),
            ),
            dc.as_of,
            flag=flag,
            level=LEVEL_SITE,
            kind=kind,
        )
    if dc.pue_design is not None:
        return _decimal(dc.pue_design), Provenance(
            basis,
            said(N_("{place}: design PUE. {documents}"), dc, documents=plain_source(dc.source)),
            dc.as_of,
            flag=flag,
            level=LEVEL_SITE,
            kind=kind,
        )
    return FALLBACK_PUE, Provenance(
        BASIS_ASSUMPTION,
        FALLBACK_PUE_SOURCE,
        flag=choices.SourceFlag.OFFICIAL,
        level=LEVEL_NATIONAL,
        kind=domain_sources.OFFICIAL,  # the national action plan on gov.cn
    )


# Power per rack when a site states none: one server per rack (the sizing's server decides).
UNKNOWN_RACK_POWER_SOURCE = N_(
    "No power per rack stated for this data center: one server per rack assumed "
    "(the most racks any server can need); enter the site's figure."
)


def _rack_power_limit_kw(dc: DataCenter) -> Decimal | None:
    limits = [_decimal(dc.max_kw_per_rack)]
    if dc.power_pricing == choices.PowerPricing.INCLUDED:
        limits.append(_decimal(dc.rack_fee_kw))
    known = [limit for limit in limits if limit]
    return min(known) if known else None


def _tier(fee: RackFee) -> Message:
    if fee.kw_max is not None:
        return Message(
            N_("{low}–{high} kW"), {"low": f"{fee.kw_min or 0:g}", "high": f"{fee.kw_max:g}"}
        )
    if fee.kw_min is not None:
        return Message(N_("over {low} kW"), {"low": f"{fee.kw_min:g}"})
    return Message(N_("all racks"))


RACK_FEE_POWER = {
    True: N_("power included"),
    False: N_("power not included"),
    None: N_("power not stated"),
}
RACK_FEE_POWER_NOTE = N_(
    "The model charges the power drawn at the electricity tariff on top of this fee, "
    "so a fee that includes power is counted twice for that power (leans against the site)."
)


def _rack_fee_source(fee: RackFee) -> Message:
    where = fee.policy_zone if fee.policy_zone_id else Message(N_("National"))
    documents = " ".join(p for p in (fee.document_title, fee.issuer, fee.url) if p)
    if fee.power_included:
        template = N_("{place}: rack fee, {tier}, {power}. {documents} {note}")
    else:
        template = N_("{place}: rack fee, {tier}, {power}. {documents}")
    return said(
        template,
        where,
        tier=_tier(fee),
        power=Message(RACK_FEE_POWER[fee.power_included]),
        documents=documents,
        note=Message(RACK_FEE_POWER_NOTE),
    )


def rack_fee_figure(dc: DataCenter) -> tuple[Decimal, Provenance, RackFee] | None:
    """The rack fee for a site without its own: its zones' highest-power tier, else national.

    GPU servers need the densest racks, so the top tier is taken.
    """
    for zone in _zone_chain(dc):
        fees = memoized(("rack fees", zone.pk), lambda zone=zone: list(zone.rack_fees.all()))
        if fees:
            fee = max(fees, key=lambda f: (f.kw_min or 0, f.kw_max or 1e9, f.key))
            return _fee_provenance(fee, LEVEL_ZONE)
    fees = memoized(
        "national rack fees", lambda: list(RackFee.objects.filter(policy_zone__isnull=True))
    )
    if fees:
        fee = max(fees, key=lambda f: (f.as_of or date.min, f.key))
        return _fee_provenance(fee, LEVEL_NATIONAL)
    return None


def _fee_provenance(fee: RackFee, level: str):
    source = _rack_fee_source(fee)
    provenance = _row_provenance(
        fee.flag, source, fee.published_on or fee.as_of, level, source_kind(fee.source)
    )
    return _decimal(fee.price_cny_per_month), provenance, fee


def site_figures(dc: DataCenter, *, preferential_tariff: bool = False) -> SiteFigures:
    """``preferential_tariff``: the zone's claimed data-center tariff, a scenario, never a default.

    Every figure the site lacks falls back to its zone's (then the wider zones'), then to a
    national figure, each marked with its level and confidence flag.
    """
    site_basis = BASIS_EXAMPLE if dc.is_example else BASIS_CLAIM
    site_kind = source_kind(dc.source)
    site_flag = domain_sources.figure_flag(
        site_kind, "" if dc.is_example else choices.SourceFlag.VENDOR
    )
    site_provenance = Provenance(
        site_basis,
        said(N_("{place}. {documents}"), dc, documents=plain_source(dc.source)),
        dc.as_of,
        flag=site_flag,
        level=LEVEL_SITE,
        kind=site_kind,
    )
    tariff, tariff_provenance = _tariff(dc, preferential_tariff)
    pue, pue_provenance = _pue(dc)
    provenance = {"pue": pue_provenance}
    if tariff_provenance is not None:
        provenance["tariff_cny_per_kwh"] = tariff_provenance
    rack_fee = _decimal(dc.rack_fee_cny_per_month)
    if rack_fee is not None:
        provenance["rack_fee_cny_per_month"] = site_provenance
    else:
        fallback = rack_fee_figure(dc)
        if fallback is not None:
            rack_fee, provenance["rack_fee_cny_per_month"], _ = fallback
    rack_limit = _rack_power_limit_kw(dc)
    if rack_limit is not None:
        provenance["rack_power_limit_kw"] = site_provenance
    else:
        provenance["rack_power_limit_kw"] = Provenance(
            BASIS_ASSUMPTION, UNKNOWN_RACK_POWER_SOURCE, level=LEVEL_ASSUMED
        )
    demand_charge = None
    own_power = dc.power_pricing in (choices.PowerPricing.FIXED, choices.PowerPricing.INCLUDED)
    # The claimed preferential price says nothing of a demand charge: it stays (leans against
    # the claim under test).
    if not own_power:
        figure = tariff_figure(dc)
        if figure is not None and figure.demand_charge_cny_per_kw_month is not None:
            demand_charge = figure.demand_charge_cny_per_kw_month
            provenance["demand_charge_cny_per_kw_month"] = figure.demand_provenance
    return SiteFigures(
        key=dc.key,
        name=dc.name,
        name_zh=dc.name_zh or None,
        tariff_cny_per_kwh=tariff,
        pue=pue,
        rack_fee_cny_per_month=rack_fee,
        rack_power_limit_kw=rack_limit,
        price_includes_pue=dc.power_pricing == choices.PowerPricing.FIXED,
        power_in_rack_fee=dc.power_pricing == choices.PowerPricing.INCLUDED,
        demand_charge_cny_per_kw_month=demand_charge,
        provenance=provenance,
    )
