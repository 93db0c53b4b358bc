"""The same server bought and hosted at every site considered, and why the costs differ.

Pure Python. For the option a buyer looks at, every other option with the same server model
(and so the same sizing, servers and energy) that can be bought is set side by side: its
horizon cost of buying and hosting, the site figures it used (electricity price, PUE, rack
fee, each with the level it was found at and its confidence flag) and the difference against
the option, split exactly into tariff, PUE, demand charge, rack fee and rack count
(:func:`advisor.domain.economics.compare.site_difference`).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from advisor.domain.economics.compare import SiteDifference, site_difference
from advisor.domain.economics.confidence import (
    BASIS_FLAG_LABELS,
    FIGURE_LABELS,
    FLAG_LABELS,
    Confidence,
    weakest,
)
from advisor.domain.economics.costs import BUY, effective_pue, effective_tariff_cny_per_kwh
from advisor.domain.economics.inputs import BASIS_OVERRIDE, Provenance
from advisor.domain.i18n import N_

YOUR_FIGURE = N_("your figure")


@dataclass(frozen=True)
class FigureUsed:
    """A site figure as used: value, where it was found, how far it can be trusted."""

    value: Decimal
    level_label: str  # N_ text, e.g. "province tariff"
    flag_label: str  # N_ text, e.g. "press report"; "" when none


@dataclass(frozen=True)
class SiteRow:
    option_key: str
    site_key: str
    site_name: str
    site_name_zh: str | None  # shown on Chinese pages (``local_name``)
    province: str | None
    buy_total_cny: Decimal
    tariff: FigureUsed
    pue: FigureUsed
    rack_fee: FigureUsed
    racks: int
    confidence: Confidence | None
    difference: SiteDifference | None  # this site against the option's; None for the option


def _used(key: str, value: Decimal, provenance: Provenance | None) -> FigureUsed:
    if provenance is None:
        return FigureUsed(value, FIGURE_LABELS[key]["site"], "")
    if provenance.basis == BASIS_OVERRIDE:
        return FigureUsed(value, YOUR_FIGURE, "")
    labels = FIGURE_LABELS[key]
    level = labels.get(provenance.level) or labels["site"]
    flag = FLAG_LABELS.get(provenance.flag) or BASIS_FLAG_LABELS.get(provenance.basis, "")
    return FigureUsed(value, level, flag)


def _buyable(option) -> bool:
    """A bought option (buy and host) with a purchase price: the rows compare buying."""
    return option.mode == BUY and option.economics is not None and BUY in option.economics.costs


def same_server_by_site(options, base) -> list[SiteRow]:
    """Rows for ``base`` and every option in ``options`` with its server model, bought,
    cheapest first. Empty when ``base`` cannot be bought."""
    if not _buyable(base):
        return []
    rows = []
    for option in options:
        if option.hardware.server.key != base.hardware.server.key or not _buyable(option):
            continue
        if option.sizing.servers != base.sizing.servers:
            continue
        result = option.economics
        inputs = result.inputs
        provenance = inputs.provenance
        try:
            difference = None if option is base else site_difference(base.economics, result)
        except ValueError:  # different energy (e.g. the buyer's own power figures): no split
            continue
        rows.append(
            SiteRow(
                option_key=option.key,
                site_key=option.site.data_center.key,
                site_name=option.site.data_center.name or option.site.data_center.key,
                site_name_zh=getattr(option.site.data_center, "name_zh", None),
                province=option.site.data_center.province,
                buy_total_cny=result.costs[BUY].net_of_resale_cny,
                tariff=_used(
                    "tariff_cny_per_kwh",
                    effective_tariff_cny_per_kwh(inputs),
                    provenance.get("tariff_cny_per_kwh"),
                ),
                pue=_used("pue", effective_pue(inputs), provenance.get("pue")),
                rack_fee=_used(
                    "rack_fee_cny_per_month",
                    inputs.site.rack_fee_cny_per_month,
                    provenance.get("rack_fee_cny_per_month"),
                ),
                racks=result.racks,
                confidence=weakest(provenance, BUY),
                difference=difference,
            )
        )
    return sorted(rows, key=lambda row: (row.buy_total_cny, row.site_key))
