"""Catalog rows → economics inputs: a data center's cost figures, a server model's offers.

Read-only. Every figure taken from the catalog carries its provenance (source, date, and
whether it is a quote, an example, an official tariff or a claim) into the result's list
of assumptions. Figures the catalog lacks are either filled from a stated assumption below
or reported as missing, so that the wizard asks the buyer for them; none is silently zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from advisor.domain.economics.inputs import (
    BASIS_ASSUMPTION,
    BASIS_CATALOG,
    BASIS_CLAIM,
    BASIS_EXAMPLE,
    BASIS_MARKET,
    BASIS_OFFICIAL,
    BASIS_QUOTE,
    IDLE_SHARE_OF_MAX,
    Assumptions,
    EconomicsInputs,
    Overrides,
    Prices,
    Provenance,
    ServerLoad,
    Site,
    apply_overrides,
    to_decimal,
)
from vendors import choices
from vendors.models import DataCenter, Offer, ServerModel

# PUE when a data center states neither a measured nor a design value: the national
# average target for end-2025 in the 2024 action plan (《数据中心绿色低碳发展专项行动计划》,
# "national average PUE below 1.5"); a policy cap is never used as the operating PUE.
FALLBACK_PUE = Decimal("1.5")
FALLBACK_PUE_SOURCE = (
    "No PUE stated for this data center: national average target below 1.5 by end-2025, "
    "NDRC/MIIT/NEA/NDA 2024-07 action plan "
    "(https://www.gov.cn/zhengce/zhengceku/202407/P020240724272072479001.pdf)."
)

_FLAG_BASIS = {
    choices.SourceFlag.OFFICIAL: BASIS_OFFICIAL,
    choices.SourceFlag.OFFICIAL_TRANSCRIBED: BASIS_OFFICIAL,
    choices.SourceFlag.PRESS: BASIS_MARKET,
    choices.SourceFlag.MARKET: BASIS_MARKET,
    choices.SourceFlag.VENDOR: BASIS_CLAIM,
    choices.SourceFlag.DERIVED: BASIS_CATALOG,
    choices.SourceFlag.LOW: BASIS_MARKET,
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


def _basis(flag: str, is_example: bool = False) -> str:
    if is_example:
        return BASIS_EXAMPLE
    return _FLAG_BASIS.get(flag, BASIS_CATALOG)


def _decimal(value) -> Decimal | None:
    return None if value is None else to_decimal(value)


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
            pue=self.pue,
            price_includes_pue=self.price_includes_pue,
            power_in_rack_fee=self.power_in_rack_fee,
            demand_charge_cny_per_kw_month=self.demand_charge_cny_per_kw_month or Decimal(0),
            **value,
        )


def _preferential_tariff(dc: DataCenter) -> tuple[Decimal | None, Provenance | None]:
    zone = dc.policy_zone
    if zone is None or zone.preferential_tariff_cny_per_kwh is None:
        return None, None
    source = f"{zone.name}: negotiated-tariff scenario. {zone.preferential_tariff_note}".strip()
    return _decimal(zone.preferential_tariff_cny_per_kwh), Provenance(BASIS_CLAIM, source)


def _tariff(dc: DataCenter, preferential: bool = False) -> tuple[Decimal | None, Provenance | None]:
    site_basis = BASIS_EXAMPLE if dc.is_example else BASIS_CATALOG
    if dc.power_pricing == choices.PowerPricing.FIXED:
        source = (
            f"{dc.name}: fixed power price, metered at the rack (cooling included). {dc.source}"
        )
        return _decimal(dc.power_price_cny_per_kwh), Provenance(
            site_basis, source.strip(), dc.as_of
        )
    if dc.power_pricing == choices.PowerPricing.INCLUDED:
        return Decimal(0), Provenance(site_basis, f"{dc.name}: power included in the rack fee.")
    if preferential:
        tariff, provenance = _preferential_tariff(dc)
        if tariff is not None:
            return tariff, provenance
    zone = dc.policy_zone
    if zone is None or zone.tariff_cny_per_kwh is None:
        return None, None
    source = " ".join(filter(None, [zone.name, zone.tariff_basis, zone.tariff_source]))
    provenance = Provenance(_basis(zone.tariff_flag), source, zone.tariff_as_of)
    return _decimal(zone.tariff_cny_per_kwh), provenance


def _pue(dc: DataCenter) -> tuple[Decimal, Provenance]:
    basis = BASIS_EXAMPLE if dc.is_example else BASIS_CLAIM
    if dc.pue_measured is not None:
        return _decimal(dc.pue_measured), Provenance(
            basis, f"{dc.name}: measured annual PUE. {dc.source}".strip(), dc.as_of
        )
    if dc.pue_design is not None:
        return _decimal(dc.pue_design), Provenance(
            basis, f"{dc.name}: design PUE. {dc.source}".strip(), dc.as_of
        )
    return FALLBACK_PUE, Provenance(BASIS_ASSUMPTION, FALLBACK_PUE_SOURCE)


def _rack_power_limit_kw(dc: DataCenter) -> Decimal | None:
    limits = [_decimal(dc.max_kw_per_rack)]
    if dc.power_pricing == choices.PowerPricing.INCLUDED:
        limits.append(_decimal(dc.rack_fee_kw))
    known = [limit for limit in limits if limit]
    return min(known) if known else None


def site_figures(dc: DataCenter, *, preferential_tariff: bool = False) -> SiteFigures:
    """``preferential_tariff``: the zone's claimed data-center tariff, a scenario, never a default."""
    site_basis = BASIS_EXAMPLE if dc.is_example else BASIS_CLAIM
    site_provenance = Provenance(site_basis, f"{dc.name}. {dc.source}".strip(), dc.as_of)
    tariff, tariff_provenance = _tariff(dc, preferential_tariff)
    pue, pue_provenance = _pue(dc)
    provenance = {
        "pue": pue_provenance,
        "rack_fee_cny_per_month": site_provenance,
        "rack_power_limit_kw": site_provenance,
    }
    if tariff_provenance is not None:
        provenance["tariff_cny_per_kwh"] = tariff_provenance
    demand_charge = None
    zone = dc.policy_zone
    passed_through = dc.power_pricing == choices.PowerPricing.PASS_THROUGH
    if passed_through and zone is not None and zone.demand_charge_cny_per_kw_month is not None:
        demand_charge = _decimal(zone.demand_charge_cny_per_kw_month)
        source = " ".join(filter(None, [zone.name, zone.tariff_basis, zone.tariff_source]))
        provenance["demand_charge_cny_per_kw_month"] = Provenance(
            _basis(zone.tariff_flag), source, zone.tariff_as_of
        )
    return SiteFigures(
        key=dc.key,
        name=dc.name,
        tariff_cny_per_kwh=tariff,
        pue=pue,
        rack_fee_cny_per_month=_decimal(dc.rack_fee_cny_per_month),
        rack_power_limit_kw=_rack_power_limit_kw(dc),
        price_includes_pue=dc.power_pricing == choices.PowerPricing.FIXED,
        power_in_rack_fee=dc.power_pricing == choices.PowerPricing.INCLUDED,
        demand_charge_cny_per_kw_month=demand_charge,
        provenance=provenance,
    )


# --- Offers ------------------------------------------------------------------------------


def _offer_place(offer: Offer, dc: DataCenter) -> int:
    """0 at this data center, 1 from its vendor, 2 anyone's, 3 another data center's."""
    if offer.data_center_id == dc.pk:
        return 0
    if dc.vendor_id and offer.vendor_id == dc.vendor_id:
        return 1
    return 2 if offer.data_center_id is None else 3


def _offer_rank(offer: Offer, dc: DataCenter):
    """Sort key: nearest place, CNY before converted, quotes before examples, newest, key."""
    dated = offer.quoted_on or offer.as_of
    newest = -dated.toordinal() if dated else 0
    converted = offer.currency != choices.Currency.CNY
    return (_offer_place(offer, dc), converted, offer.is_example, newest, offer.key)


def offers_for(
    server_model: ServerModel, dc: DataCenter, currencies=(choices.Currency.CNY,)
) -> dict[str, Offer]:
    """The offer used for each kind (buy, rent, cloud) of ``server_model`` at ``dc``.

    Only offers in ``currencies`` count (CNY unless the buyer gives an exchange rate). Rent
    and cloud offered at another data center are not this site's prices; a purchase is.
    """
    chosen: dict[str, Offer] = {}
    offers = Offer.objects.filter(server_model=server_model, currency__in=list(currencies))
    for offer in sorted(offers, key=lambda o: _offer_rank(o, dc)):
        if _offer_place(offer, dc) == 3 and offer.kind != choices.OfferKind.BUY:
            continue
        chosen.setdefault(offer.kind, offer)
    return chosen


def _offer_provenance(offer: Offer, rate: Decimal | None = None) -> Provenance:
    seller = offer.data_center or offer.vendor or offer.seller_name
    source = f"{seller}. {offer.source}".strip()
    if rate is not None:
        source = (
            f"{source} Converted from {offer.price} {offer.currency} at {rate} CNY (your rate)."
        )
    return Provenance(
        BASIS_EXAMPLE if offer.is_example else BASIS_QUOTE, source, offer.quoted_on or offer.as_of
    )


def prices_for(
    server_model: ServerModel, dc: DataCenter, cny_per_unit: dict[str, Decimal] | None = None
) -> tuple[Prices, dict[str, Provenance]]:
    """Prices in CNY; ``cny_per_unit`` (e.g. ``{"USD": Decimal("7.1")}``) admits other currencies."""
    rates = {choices.Currency.CNY: Decimal(1), **(cny_per_unit or {})}
    offers = offers_for(server_model, dc, currencies=tuple(rates))
    values, provenance = {}, {}
    for kind, name in _OFFER_FIELDS.items():
        offer = offers.get(kind)
        if offer is not None:
            rate = to_decimal(rates[offer.currency])
            values[name] = _decimal(offer.price) * rate
            converted = offer.currency != choices.Currency.CNY
            provenance[name] = _offer_provenance(offer, rate if converted else None)
    return Prices(**values), provenance


# --- Server load -------------------------------------------------------------------------


def server_load(
    server_model: ServerModel,
    *,
    server_count: int,
    gpu_hours_per_run,
    hours_per_run,
    power_full_kw=None,
    power_idle_kw=None,
    rack_units: int | None = None,
) -> tuple[ServerLoad, dict[str, Provenance]]:
    """A :class:`ServerLoad` from the sizing's figures, completed from the catalog.

    The sizing's figures win when given; otherwise the server's maximum power (or its
    typical power when the maximum is unknown), an idle share of it, and its rack units.
    """
    provenance: dict[str, Provenance] = {}
    if power_full_kw is None:
        watts = server_model.power_max_w or server_model.power_typical_w
        if watts is None:
            raise MissingFigures(["power_full_kw"], server_model.name)
        power_full_kw = to_decimal(watts) / 1000
        provenance["power_full_kw"] = Provenance(
            BASIS_CATALOG, f"{server_model.name}. {server_model.source}".strip(), server_model.as_of
        )
    if power_idle_kw is None:
        power_idle_kw = to_decimal(power_full_kw) * IDLE_SHARE_OF_MAX
        provenance["power_idle_kw"] = Provenance(
            BASIS_ASSUMPTION, "30 % of the full-load power; no published idle figure."
        )
    rack_units = rack_units or server_model.rack_units
    if rack_units is None:
        raise MissingFigures(["rack_units"], server_model.name)
    load = ServerLoad(
        server_count=server_count,
        gpus_per_server=server_model.gpu_count,
        power_full_kw=to_decimal(power_full_kw),
        power_idle_kw=to_decimal(power_idle_kw),
        rack_units=rack_units,
        gpu_hours_per_run=to_decimal(gpu_hours_per_run),
        hours_per_run=to_decimal(hours_per_run),
    )
    return load, provenance


# --- Everything together -----------------------------------------------------------------


def economics_inputs(
    load: ServerLoad,
    server_model: ServerModel,
    dc: DataCenter,
    *,
    assumptions: Assumptions | None = None,
    overrides: Overrides | None = None,
    load_provenance: dict[str, Provenance] | None = None,
    preferential_tariff: bool = False,
    cny_per_unit: dict[str, Decimal] | None = None,
) -> EconomicsInputs:
    """The option ``load`` × ``server_model`` offers × ``dc``, with the buyer's overrides.

    Raises :class:`MissingFigures` naming what neither the catalog nor the overrides give.
    """
    overrides = overrides or Overrides()
    figures = site_figures(dc, preferential_tariff=preferential_tariff)
    # The buyer's figures for what the catalog lacks; apply_overrides marks them as theirs.
    site = figures.as_site({name: getattr(overrides, name) for name in figures.missing()})
    prices, price_provenance = prices_for(server_model, dc, cny_per_unit)
    inputs = EconomicsInputs(
        load=load,
        site=site,
        prices=prices,
        assumptions=assumptions or Assumptions(),
        provenance={**figures.provenance, **price_provenance, **(load_provenance or {})},
    )
    return apply_overrides(inputs, overrides)


def option_inputs(
    server_model_key: str,
    data_center_key: str,
    *,
    server_count: int,
    gpu_hours_per_run,
    hours_per_run,
    power_full_kw=None,
    power_idle_kw=None,
    rack_units: int | None = None,
    assumptions: Assumptions | None = None,
    overrides: Overrides | None = None,
    preferential_tariff: bool = False,
    cny_per_unit: dict[str, Decimal] | None = None,
) -> EconomicsInputs:
    """:func:`economics_inputs` by catalog keys (what the wizard stores in a draft)."""
    server_model = ServerModel.objects.get(key=server_model_key)
    dc = DataCenter.objects.select_related("policy_zone", "vendor").get(key=data_center_key)
    load, load_provenance = server_load(
        server_model,
        server_count=server_count,
        gpu_hours_per_run=gpu_hours_per_run,
        hours_per_run=hours_per_run,
        power_full_kw=power_full_kw,
        power_idle_kw=power_idle_kw,
        rack_units=rack_units,
    )
    return economics_inputs(
        load,
        server_model,
        dc,
        assumptions=assumptions,
        overrides=overrides,
        load_provenance=load_provenance,
        preferential_tariff=preferential_tariff,
        cny_per_unit=cny_per_unit,
    )
