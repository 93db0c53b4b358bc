"""Offers (buy, rent, cloud) of a server model at a site, their prices and the server load.

Prices come with their provenance; a server model without its own offer at a site may take an
equivalent model's price there, said as such.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from advisor.catalog.cache import memoized

# PUE when a data center states neither a measured nor a design value: the national
# average target for end-2025 in the 2024 action plan (《数据中心绿色低碳发展专项行动计划》,
# "national average PUE below 1.5"); a policy cap is never used as the operating PUE.
from advisor.catalog.economics.sites import (
    _OFFER_FIELDS,
    MissingFigures,
    _decimal,
    plain_source,
    said,
    site_figures,
    source_kind,
)
from advisor.domain import sources as domain_sources
from advisor.domain.economics.inputs import (
    BASIS_ASSUMPTION,
    BASIS_CATALOG,
    BASIS_EXAMPLE,
    BASIS_QUOTE,
    IDLE_SHARE_OF_MAX,
    LEVEL_EQUIVALENT,
    Assumptions,
    EconomicsInputs,
    Overrides,
    Prices,
    Provenance,
    ServerLoad,
    apply_overrides,
    to_decimal,
)
from advisor.domain.i18n import N_, Message
from vendors import choices
from vendors.models import DataCenter, Offer, ServerModel
from vendors.models.hardware import parse_figure_names

# --- Offers ------------------------------------------------------------------------------


def _offer_place(offer: Offer, dc: DataCenter | None) -> int:
    """0 at this data center, 1 from its vendor, 2 anyone's, 3 another data center's (``dc``
    None, the buyer's own room: 2 or 3)."""
    if dc is not None and offer.data_center_id == dc.pk:
        return 0
    if dc is not None and dc.vendor_id and offer.vendor_id == dc.vendor_id:
        return 1
    return 2 if offer.data_center_id is None else 3


def _offer_rank(offer: Offer, dc: DataCenter | None):
    """Sort key: nearest place, CNY before converted, quotes before examples, newest, key.

    A purchase has no place: the server is the same wherever it is hosted, so every site (and
    the buyer's own room) takes the same purchase offer (CNY first, quotes, newest)."""
    dated = offer.quoted_on or offer.as_of
    newest = -dated.toordinal() if dated else 0
    converted = offer.currency != choices.Currency.CNY
    place = 0 if offer.kind == choices.OfferKind.BUY else _offer_place(offer, dc)
    return (place, converted, offer.is_example, newest, offer.key)


def offers_of(server_model: ServerModel, currencies=(choices.Currency.CNY,)) -> list[Offer]:
    """Every offer of ``server_model`` in ``currencies``, with its seller (read once per
    computation, see advisor/catalog/cache.py)."""
    return memoized(
        ("offers", server_model.pk, tuple(currencies)),
        lambda: list(
            Offer.objects.filter(
                server_model=server_model, currency__in=list(currencies)
            ).select_related("data_center", "vendor")
        ),
    )


def offers_for(
    server_model: ServerModel, dc: DataCenter | None, currencies=(choices.Currency.CNY,)
) -> dict[str, Offer]:
    """The offer used for each kind (buy, rent, cloud) of ``server_model`` at ``dc`` (None: the
    buyer's own room, where only the purchase applies).

    Only offers in ``currencies`` count (CNY unless the buyer gives an exchange rate). Rent
    and cloud offered at another data center are not this site's prices; a purchase is, and
    it is the same at every site.
    """
    chosen: dict[str, Offer] = {}
    for offer in sorted(offers_of(server_model, currencies), key=lambda o: _offer_rank(o, dc)):
        if _offer_place(offer, dc) == 3 and offer.kind != choices.OfferKind.BUY:
            continue
        chosen.setdefault(offer.kind, offer)
    return chosen


def offer_provenance(offer: Offer, rate: Decimal | None = None) -> Provenance:
    """Where an offer's price comes from: the kind of its strongest source, and the LOW flag
    when its sources are all aggregators or blogs or the catalog flags the price LOW."""
    seller = offer.data_center or offer.vendor or offer.seller_name
    documents = plain_source(offer.source)
    if rate is not None:
        source = said(
            N_("{place}. {documents} Converted from {price} {currency} at {rate} CNY (your rate)."),
            seller,
            documents=documents,
            price=f"{offer.price}",
            currency=str(offer.currency),
            rate=f"{rate}",
        )
    else:
        source = said(N_("{place}. {documents}"), seller, documents=documents)
    kind = source_kind(offer.source)
    low = offer.price_flag == choices.SourceFlag.LOW
    return Provenance(
        BASIS_EXAMPLE if offer.is_example else BASIS_QUOTE,
        source,
        offer.quoted_on or offer.as_of,
        flag=domain_sources.figure_flag(kind, choices.SourceFlag.LOW if low else ""),
        kind=kind,
    )


def prices_for(
    server_model: ServerModel, dc: DataCenter | None, cny_per_unit: dict[str, Decimal] | None = None
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
            provenance[name] = offer_provenance(offer, rate if converted else None)
    return Prices(**values), provenance


EQUIVALENT_SOURCE = N_(
    "No {kind} price for {server}: the price of {other}, the same accelerator count "
    "({gpus} × {accelerator}); a different chassis may cost more or less. {source}"
)
# The offer kinds in the sentence above, as a reader reads them.
OFFER_KIND_WORDS = {"buy": N_("purchase"), "rent": N_("rent"), "cloud": N_("cloud")}


def with_equivalent_prices(
    server_model: ServerModel,
    dc: DataCenter | None,
    prices: Prices,
    provenance: dict[str, Provenance],
    cny_per_unit: dict[str, Decimal] | None = None,
) -> tuple[Prices, dict[str, Provenance]]:
    """Fill the kinds ``server_model`` has no offer for from a server with the same accelerator
    and count (e.g. a DGX H100 from an HGX H100 board's offers), each marked as such."""
    missing = [name for name in _OFFER_FIELDS.values() if getattr(prices, name) is None]
    if not missing:
        return prices, provenance
    same_board = memoized(
        ("same board", server_model.accelerator_id, server_model.gpu_count),
        lambda: list(
            ServerModel.objects.filter(
                accelerator_id=server_model.accelerator_id, gpu_count=server_model.gpu_count
            )
            .select_related("accelerator")
            .order_by("key")
        ),
    )
    values, provenance = {}, dict(provenance)
    for other in (m for m in same_board if m.pk != server_model.pk):
        other_prices, other_provenance = prices_for(other, dc, cny_per_unit)
        for name in missing:
            value = getattr(other_prices, name)
            if name in values or value is None:
                continue
            found = other_provenance[name]
            kind = {v: k for k, v in _OFFER_FIELDS.items()}[name]
            source = Message(
                EQUIVALENT_SOURCE,
                {
                    "kind": Message(OFFER_KIND_WORDS.get(str(kind), str(kind))),
                    "server": server_model.name,
                    "server_zh": server_model.name_zh or None,
                    "other": other.name,
                    "other_zh": other.name_zh or None,
                    "gpus": other.gpu_count,
                    "accelerator": other.accelerator.name,
                    "accelerator_zh": other.accelerator.name_zh or None,
                    "source": found.source,
                },
            )
            values[name] = value
            provenance[name] = replace(found, source=source, level=LEVEL_EQUIVALENT)
    return replace(prices, **values), provenance


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
        field = "power_max_w" if server_model.power_max_w else "power_typical_w"
        watts = getattr(server_model, field)
        if watts is None:
            raise MissingFigures(["power_full_kw"], server_model.name)
        power_full_kw = to_decimal(watts) / 1000
        kind = source_kind(server_model.source)
        low = field in parse_figure_names(server_model.low_confidence_figures)
        provenance["power_full_kw"] = Provenance(
            BASIS_CATALOG,
            f"{server_model.name}. {plain_source(server_model.source)}".strip(),
            server_model.as_of,
            flag=domain_sources.figure_flag(kind, choices.SourceFlag.LOW if low else ""),
            kind=kind,
        )
    if power_idle_kw is None:
        power_idle_kw = to_decimal(power_full_kw) * IDLE_SHARE_OF_MAX
        provenance["power_idle_kw"] = Provenance(
            BASIS_ASSUMPTION, N_("30 per cent of the full-load power; no published idle figure.")
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
    fill = {name: getattr(overrides, name) for name in figures.missing()}
    if fill.get("rack_power_limit_kw") is None and "rack_power_limit_kw" in fill:
        fill["rack_power_limit_kw"] = load.power_full_kw  # one server per rack (assumed)
    site = figures.as_site(fill)
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
