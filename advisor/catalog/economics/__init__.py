"""Catalog rows → economics inputs: a data center's cost figures, a server model's offers.

Read-only. Every figure taken from the catalog carries its provenance (source, date, and
whether it is a quote, an example, an official tariff or a claim) into the result's list
of assumptions. Figures the catalog lacks are either filled from a stated assumption below
or reported as missing, so that the wizard asks the buyer for them; none is silently zero.
"""

from advisor.catalog.economics.offers import (
    EQUIVALENT_SOURCE,
    economics_inputs,
    offer_provenance,
    offers_for,
    offers_of,
    option_inputs,
    prices_for,
    server_load,
    with_equivalent_prices,
)
from advisor.catalog.economics.sites import (
    FALLBACK_PUE,
    FALLBACK_PUE_SOURCE,
    NATIONAL_DEMAND_NOTE,
    NATIONAL_TARIFF_NOTE,
    PRICE_QUANTUM,
    RACK_FEE_POWER_NOTE,
    UNKNOWN_RACK_POWER_SOURCE,
    MissingFigures,
    SiteFigures,
    TariffFigure,
    national_tariff,
    priced_tariff,
    rack_fee_figure,
    site_figures,
    table_price,
    tariff_figure,
    zone_tariff,
    zones_tariff,
)

__all__ = [
    "EQUIVALENT_SOURCE",
    "FALLBACK_PUE",
    "FALLBACK_PUE_SOURCE",
    "MissingFigures",
    "NATIONAL_DEMAND_NOTE",
    "NATIONAL_TARIFF_NOTE",
    "PRICE_QUANTUM",
    "RACK_FEE_POWER_NOTE",
    "SiteFigures",
    "TariffFigure",
    "UNKNOWN_RACK_POWER_SOURCE",
    "economics_inputs",
    "national_tariff",
    "offer_provenance",
    "offers_for",
    "offers_of",
    "option_inputs",
    "priced_tariff",
    "prices_for",
    "rack_fee_figure",
    "server_load",
    "site_figures",
    "table_price",
    "tariff_figure",
    "with_equivalent_prices",
    "zone_tariff",
    "zones_tariff",
]
