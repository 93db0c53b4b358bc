"""Catalog rows → recommendation candidates, and one call that runs the recommendation.

The input is the wizard's document: a scenario v1 object with optional ``site`` and
``procurement`` sections (docs/wizard.md). Without a ``site`` section every catalog data
center is considered; without ``procurement`` every mode, no budget and no deadline.
Read-only.
"""

from __future__ import annotations

import copy
import re
from dataclasses import replace
from datetime import date
from decimal import Decimal, InvalidOperation

from django.utils import timezone

from advisor.catalog import compliance as compliance_selectors
from advisor.catalog import declared as declared_selectors
from advisor.catalog import economics as economics_selectors
from advisor.catalog.cache import inputs_key, memoized, memoized_for_inputs
from advisor.catalog.sizing import accelerator_spec_from_row, server_spec_from_row
from advisor.domain.compliance.facts import (
    DataCenterFacts,
    PolicyZoneFacts,
    VendorFacts,
)
from advisor.domain.document import EntryContext
from advisor.domain.economics.inputs import (
    BASIS_OVERRIDE,
    Prices,
    Provenance,
    Site,
)
from advisor.domain.i18n import N_
from advisor.domain.recommend import (
    OWN_ROOM_KEY,
    CloudCandidate,
    HardwareCandidate,
    SiteCandidate,
)
from vendors import choices
from vendors.models import (
    Accelerator,
    DataCenter,
    Offer,
    PolicyZone,
    ServerModel,
    parse_instance_gpus,
)

# --- Hardware -------------------------------------------------------------------------------


def hardware_candidates(
    declared: dict | None = None,
    price_overrides: dict | None = None,
    *,
    with_cloud: bool = True,
) -> list[HardwareCandidate]:
    """Every server model in the catalog with its accelerator and its cloud offers (buy and
    rent prices are per site). ``with_cloud=False``: no cloud options (the buyer's own room).

    ``declared`` (``{subject key: {fact: DeclaredFact}}``) lays the vendor's declared server
    and accelerator facts over the catalog's, for this run only.
    """
    declared = declared or {}
    rows = ServerModel.objects.select_related("accelerator").order_by("key")
    candidates = []
    for catalog_row in rows:
        row = declared_selectors.overlaid(catalog_row, declared.get(catalog_row.key))
        accelerator = declared_selectors.overlaid(
            catalog_row.accelerator, declared.get(catalog_row.accelerator.key)
        )
        candidates.append(
            HardwareCandidate(
                accelerator=accelerator_spec_from_row(accelerator),
                server=server_spec_from_row(row),
                family=f"{accelerator.maker} {accelerator.architecture}".strip(),
                domestic=accelerator.china_availability == choices.ChinaAvailability.DOMESTIC,
                availability=compliance_selectors.availability_facts(accelerator),
                buyer=declared_selectors.buyer_requirement(
                    accelerator.software_stack, declared.get(catalog_row.key)
                ),
                clouds=cloud_candidates(
                    catalog_row, (price_overrides or {}).get(catalog_row.key), declared
                )
                if with_cloud
                else (),
            )
        )
    return candidates


def _instance_sizes(offer: Offer) -> tuple[int, ...]:
    try:
        return parse_instance_gpus(offer.instance_gpus)
    except ValueError:  # validated on save; a bad import row counts as whole servers
        return ()


def cloud_provider_key(offer: Offer) -> str:
    """Whose certificates a cloud offer's provider declares: its vendor record's key, else a
    key made from the provider's name (offers of one provider share it), else the offer's."""
    if offer.vendor_id is not None:
        return offer.vendor.key
    words = re.sub(r"[^a-z0-9]+", "-", (offer.provider or offer.seller_name or "").lower())
    return f"cloud-{words.strip('-')}"[:100] if words.strip("-") else offer.key


def cloud_candidates(
    model: ServerModel, overrides: dict | None = None, declared: dict | None = None
) -> tuple:
    """The CNY cloud offers of ``model``, each a candidate of its own (provider, region,
    instance sizes); the buyer's own GPU-hour price replaces the catalog's. ``declared``
    (``{subject key: {fact: DeclaredFact}}``) lays what the provider declared over the
    catalog: its certificates (by :func:`cloud_provider_key`), and the offer's region, its
    being in mainland China and its image's software (by the offer's key)."""
    declared = declared or {}
    given = _given(overrides, ("cloud_cny_per_gpu_hour",)).get("cloud_cny_per_gpu_hour")
    offers = [o for o in economics_selectors.offers_of(model) if o.kind == choices.OfferKind.CLOUD]
    candidates = []
    for offer in sorted(offers, key=lambda o: o.key):
        vendor = offer.vendor
        provider = offer.provider or offer.seller_name or (vendor.name if vendor else "")
        provider_key = cloud_provider_key(offer)
        if vendor is not None:
            vendor_facts = declared_selectors.vendor_facts(vendor, declared.get(provider_key))
        else:
            vendor_facts = declared_selectors.provider_facts(
                provider_key, provider, offer.provider_zh or None, declared.get(provider_key)
            )
        said = declared.get(offer.key) or {}
        region = said["region"].python_value if "region" in said else offer.region
        inside = said.get("region_in_mainland_china")
        candidates.append(
            CloudCandidate(
                key=offer.key,
                provider=provider,
                price_cny_per_gpu_hour=given if given is not None else offer.price,
                provenance=Provenance(BASIS_OVERRIDE)
                if given is not None
                else economics_selectors.offer_provenance(offer),
                region=region or None,
                mainland_china=inside.python_value
                if inside is not None
                else offer.region_in_mainland_china,
                provider_zh=offer.provider_zh or None,
                region_zh=None if "region" in said else offer.region_zh or None,
                vendor=vendor_facts,
                instance_gpus=_instance_sizes(offer),
                buyer=declared_selectors.image_requirement(model.accelerator.software_stack, said),
            )
        )
    return tuple(candidates)


# --- Sites ----------------------------------------------------------------------------------


# Stand-ins for cost figures the catalog lacks; an option is priced only once the buyer
# supplies the real figure (the option lists what is missing), so these never reach a result.
PLACEHOLDERS = {
    "tariff_cny_per_kwh": Decimal(0),
    "rack_fee_cny_per_month": Decimal(0),
    "rack_power_limit_kw": Decimal(1),
}
# The figures a buyer may give per data center (Overrides field names).
SITE_FIGURES = ("tariff_cny_per_kwh", "pue", "rack_fee_cny_per_month", "rack_power_limit_kw")
PRICE_FIGURES = ("purchase_cny_per_server", "rent_cny_per_server_month", "cloud_cny_per_gpu_hour")
SITE_PRICE_FIGURES = PRICE_FIGURES[:2]


def _given(values: dict | None, names: tuple[str, ...]) -> dict[str, Decimal]:
    """The buyer's figures among ``names`` (blanks and non-numbers dropped)."""
    given = {}
    for name in names:
        number = _decimal((values or {}).get(name))
        if number is not None:
            given[name] = number
    return given


def _site_costs(
    dc: DataCenter, preferential_tariff: bool, overrides: dict | None
) -> tuple[Site, dict, tuple[str, ...]]:
    figures = economics_selectors.site_figures(dc, preferential_tariff=preferential_tariff)
    given = _given(overrides, SITE_FIGURES)
    missing = tuple(name for name in figures.missing() if name not in given)
    site = figures.as_site({**{name: PLACEHOLDERS[name] for name in missing}, **given})
    site = replace(site, **given)
    provenance = {**figures.provenance, **{name: Provenance(BASIS_OVERRIDE) for name in given}}
    return site, provenance, missing


def _prices(model: ServerModel, dc: DataCenter, overrides: dict | None):
    """Buy and rent prices at ``dc``; cloud GPU-hours are options of their own (no site)."""
    prices, provenance = economics_selectors.prices_for(model, dc)
    prices, provenance = economics_selectors.with_equivalent_prices(model, dc, prices, provenance)
    given = _given(overrides, SITE_PRICE_FIGURES)
    provenance = {k: v for k, v in provenance.items() if k != "cloud_cny_per_gpu_hour"}
    return replace(prices, cloud_cny_per_gpu_hour=None, **given), {
        **provenance,
        **{name: Provenance(BASIS_OVERRIDE) for name in given},
    }


def catalog_site(
    dc: DataCenter,
    server_models: list[ServerModel],
    preferential_tariff: bool = False,
    site_overrides: dict | None = None,
    price_overrides: dict | None = None,
    declared: dict | None = None,
) -> SiteCandidate:
    """One data center with its cost figures and offers, the buyer's own figures applied.

    ``site_overrides`` holds this site's figures (SITE_FIGURES); ``price_overrides`` maps a
    server model key to its prices (PRICE_FIGURES) at every site. ``declared`` holds the
    vendor's declared facts by subject key (data center, operator, offer), laid over the
    catalog's for this run; the buyer's own figures still win.
    """
    declared = declared or {}
    vendor = dc.vendor
    vendor_facts = VendorFacts()
    if vendor is not None:
        vendor_declared = declared.get(vendor.key)
        vendor_facts = declared_selectors.vendor_facts(vendor, vendor_declared, dc)
        vendor = declared_selectors.overlaid(vendor, vendor_declared)
    dc = declared_selectors.overlaid(dc, declared.get(dc.key))
    if vendor is not dc.vendor:
        dc = copy.copy(dc)  # Django copies the instance's state and related-object cache
        dc.vendor = vendor
    price_overrides = _declared_prices(dc.key, server_models, declared, price_overrides)
    costs, provenance, missing = _site_costs(dc, preferential_tariff, site_overrides)
    figure = economics_selectors.tariff_figure(dc)
    used_table = figure is not None and provenance.get("tariff_cny_per_kwh") == figure.provenance
    prices, price_provenance = {}, {}
    for model in server_models:
        prices[model.key], price_provenance[model.key] = _prices(
            model, dc, (price_overrides or {}).get(model.key)
        )
    return SiteCandidate(
        data_center=compliance_selectors.data_center_facts(dc, vendor),
        vendor=vendor_facts,
        zone=compliance_selectors.policy_zone_facts(dc.policy_zone),
        costs=costs,
        cost_provenance=provenance,
        missing_costs=missing,
        prices_by_server=prices,
        price_provenance_by_server=price_provenance,
        tariff_breakdown=figure.breakdown if used_table else None,
    )


def _declared_prices(dc_key, server_models, declared, price_overrides):
    """The buyer's price overrides plus the rent each offer's vendor declared at this site."""
    merged = {key: dict(values) for key, values in (price_overrides or {}).items()}
    for model in server_models:
        rent = (declared.get(f"{model.key}@{dc_key}") or {}).get("monthly_rent")
        if rent is not None:
            merged.setdefault(model.key, {}).setdefault("rent_cny_per_server_month", rent.value)
    return merged


def _number(value) -> float | None:
    try:
        return None if value in (None, "") else float(value)
    except (TypeError, ValueError):
        return None


def _decimal(value) -> Decimal | None:
    try:
        return None if value in (None, "") else Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None


def _own_room_costs(room: dict, zone, name: str, overrides: dict | None):
    """No rack fee; the zone's tariff unless the buyer gives theirs; the room's PUE and kW."""
    tariff = economics_selectors.zones_tariff(zone.chain() if zone else [])
    stated = {
        "tariff_cny_per_kwh": tariff.energy_cny_per_kwh if tariff else None,
        "pue": _decimal(room.get("pue")),
        "rack_power_limit_kw": _decimal(room.get("max_kw_per_rack")),
    }
    provenance = {
        "pue": Provenance(BASIS_OVERRIDE),
        "rack_power_limit_kw": Provenance(BASIS_OVERRIDE),
        "rack_fee_cny_per_month": Provenance(BASIS_OVERRIDE, N_("Own room: no colocation fee.")),
    }
    if tariff is not None:
        provenance["tariff_cny_per_kwh"] = tariff.provenance
    given = _given(overrides, SITE_FIGURES)
    values = {**stated, **given}
    missing = tuple(n for n in stated if values.get(n) is None)
    fallback = {**PLACEHOLDERS, "pue": Decimal(1)}
    costs = Site(
        key=OWN_ROOM_KEY,
        name=name,
        tariff_cny_per_kwh=values["tariff_cny_per_kwh"] or fallback["tariff_cny_per_kwh"],
        pue=values["pue"] or fallback["pue"],
        rack_fee_cny_per_month=given.get("rack_fee_cny_per_month", Decimal(0)),
        rack_power_limit_kw=values["rack_power_limit_kw"] or fallback["rack_power_limit_kw"],
    )
    provenance.update({n: Provenance(BASIS_OVERRIDE) for n in given})
    return costs, provenance, missing


def own_room_site(
    room: dict,
    server_models: list[ServerModel],
    overrides: dict | None = None,
    price_overrides: dict | None = None,
) -> SiteCandidate:
    """The buyer's own room: no rack fee, the zone's tariff, the PUE they stated."""
    zone = PolicyZone.objects.filter(key=room.get("policy_zone")).first()
    feeds = room.get("power_feeds")
    facts = DataCenterFacts(
        key=OWN_ROOM_KEY,
        name=room.get("name") or OWN_ROOM_KEY,
        province=zone.province if zone else None,
        self_operated=True,
        inlet_temp_min_c=_number(room.get("inlet_temp_min_c")),
        inlet_temp_max_c=_number(room.get("inlet_temp_max_c")),
        inlet_rh_min_pct=_number(room.get("humidity_min_pct")),
        inlet_rh_max_pct=_number(room.get("humidity_max_pct")),
        pue=_number(room.get("pue")),
        max_rack_kw=_number(room.get("max_kw_per_rack")),
        cooling_kinds=tuple(room.get("cooling_available") or ()) or None,
        dual_utility_feeds=None if feeds in (None, "") else int(feeds) >= 2,
        ups_backup_min=_number(room.get("ups_minutes")),
        generator_start_s=_number(room.get("generator_start_s")),
        floor_load_kg_per_m2=_number(room.get("floor_load_kg_per_m2")),
    )
    costs, provenance, missing = _own_room_costs(room, zone, facts.name, overrides)
    prices, price_provenance = {}, {}
    for model in server_models:
        prices[model.key], price_provenance[model.key] = _purchase_price(
            model, (price_overrides or {}).get(model.key)
        )
    return SiteCandidate(
        data_center=facts,
        vendor=VendorFacts(key=OWN_ROOM_KEY, name=facts.name),
        zone=compliance_selectors.policy_zone_facts(zone) if zone else PolicyZoneFacts(),
        costs=costs,
        cost_provenance=provenance,
        missing_costs=missing,
        prices_by_server=prices,
        price_provenance_by_server=price_provenance,
    )


def _purchase_price(model: ServerModel, overrides: dict | None = None):
    """In the buyer's own room only buying applies, at the price every site takes (the same
    purchase offer, or an equivalent board's, as at a data center)."""
    given = _given(overrides, ("purchase_cny_per_server",))
    if given:
        return Prices(**given), {"purchase_cny_per_server": Provenance(BASIS_OVERRIDE)}
    prices, provenance = economics_selectors.prices_for(model, None)
    prices, provenance = economics_selectors.with_equivalent_prices(model, None, prices, provenance)
    name = "purchase_cny_per_server"
    if prices.purchase_cny_per_server is None:
        return Prices(), {}
    return Prices(purchase_cny_per_server=prices.purchase_cny_per_server), {name: provenance[name]}


def site_candidates(
    section: dict | None, procurement: dict | None = None, declared: dict | None = None
) -> list:
    """The sites to consider, with the buyer's own figures from the procurement section.

    Inside ``catalog_reads`` each site's candidate is kept for the same catalog and the same
    inputs of that site (docs/decisions/0050).
    """
    server_models = memoized("server models", lambda: list(ServerModel.objects.order_by("key")))
    section, procurement = section or {}, procurement or {}
    site_overrides = procurement.get("site_overrides") or {}
    price_overrides = procurement.get("price_overrides")
    if section.get("room"):
        room_overrides = site_overrides.get(OWN_ROOM_KEY)
        return [
            memoized_for_inputs(
                ("own room", inputs_key(section["room"], room_overrides, price_overrides)),
                lambda: own_room_site(
                    section["room"], server_models, room_overrides, price_overrides
                ),
            )
        ]
    rows = memoized(
        "data centers",
        lambda: list(DataCenter.objects.select_related("vendor", "policy_zone").order_by("key")),
    )
    keys = section.get("data_centers")
    if keys:
        rows = [dc for dc in rows if dc.key in keys]
    preferential = bool(procurement.get("preferential_tariff"))
    return [
        memoized_for_inputs(
            (
                "site",
                dc.pk,
                inputs_key(preferential, site_overrides.get(dc.key), price_overrides, declared),
            ),
            lambda dc=dc: catalog_site(
                dc,
                server_models,
                preferential_tariff=preferential,
                site_overrides=site_overrides.get(dc.key),
                price_overrides=price_overrides,
                declared=declared,
            ),
        )
        for dc in rows
    ]


# --- What an entry point checks a document against -------------------------------------------


def entry_context(document: dict, today: date | None = None) -> EntryContext:
    """What an entry point checks ``document`` against (advisor.domain.document): today, and
    the keys the wizard offers that the document names: provinces for an own room, data
    centers, accelerators (only those queried: a document without sections reads nothing)."""
    site = document.get("site") if isinstance(document.get("site"), dict) else {}
    procurement = document.get("procurement")
    procurement = procurement if isinstance(procurement, dict) else {}
    zones = centers = keys = servers = None
    domestic = frozenset()
    if site.get("room"):
        zones = frozenset(
            PolicyZone.objects.filter(kind=choices.PolicyZoneKind.PROVINCE).values_list(
                "key", flat=True
            )
        )
    if site.get("data_centers") or procurement.get("site_overrides"):
        centers = frozenset(DataCenter.objects.values_list("key", flat=True))
    if procurement.get("price_overrides"):
        servers = frozenset(ServerModel.objects.values_list("key", flat=True))
    if procurement.get("preferred_accelerators") or procurement.get("excluded_accelerators"):
        rows = list(Accelerator.objects.values_list("key", "china_availability"))
        keys = frozenset(key for key, _availability in rows)
        domestic = frozenset(key for key, availability in rows if availability == "domestic")
    return EntryContext(
        today=today or timezone.localdate(),
        policy_zones=zones,
        data_centers=centers,
        accelerators=keys,
        domestic_accelerators=domestic,
        servers=servers,
    )
