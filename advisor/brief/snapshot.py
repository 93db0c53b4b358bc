"""The frozen content of a brief: every figure, finding and sentence, as JSON.

A brief is rendered from this snapshot only, never from live catalog rows, so it reads the
same after the catalog changes. Sentences are kept as English templates plus parameters
(docs/decisions/0002) so the same snapshot renders in Chinese or English. Money is kept as
decimal strings, dates as ISO strings. Pure Python (no Django).
"""

from __future__ import annotations

from datetime import date

from advisor.domain.compliance.comparison import compare_vendors
from advisor.domain.delivery.checklist import (
    ChecklistItem,
    DeliveryInputs,
    acceptance_checklist,
    contract_terms,
    expected_bus_bandwidth_gbs,
    operating_risks,
)
from advisor.domain.plain import jsonable, message
from advisor.domain.recommend import Option, Procurement, Recommendation
from advisor.domain.recommend.decision import unpriced_examples
from advisor.domain.recommend.options import cost_figures
from advisor.domain.recommend.records import capacity_record, plain_cost
from advisor.domain.recommend.risks import figure_risks
from advisor.domain.recommend.sites import same_server_by_site
from advisor.domain.scenario import Scenario, dump_scenario

SCHEMA_VERSION = 1


def _items(items: list[ChecklistItem]) -> list[dict]:
    return [
        {"item": i.item, "title": i.title, "check": message(i.check), "citation": i.citation}
        for i in items
    ]


def delivery_snapshot(option: Option) -> dict:
    sizing = option.sizing
    inputs = DeliveryInputs(
        mode=option.mode or "buy",
        accelerator=sizing.accelerator,
        server=sizing.server,
        gpus_per_server=min(sizing.layout.gpus, sizing.gpus_per_server),
        servers=sizing.servers,
        checkpoint_gib=sizing.storage.checkpoint_gib,
        checkpoints_kept=sizing.storage.checkpoints_kept,
        read_needed_gbs=sizing.storage.feed_read_gbs,
        nvme_needed_tb=sizing.storage.local_nvme_needed_tb,
    )
    return {
        "expected_bus_bandwidth_gbs": expected_bus_bandwidth_gbs(inputs),
        "acceptance": _items(acceptance_checklist(inputs)),
        "risks": _items(operating_risks(inputs)),
        "contract_terms": _items(contract_terms(option.mode or "buy")),
    }


def _economics(option: Option) -> dict | None:
    result = option.economics
    if result is None or option.cost is None:
        return None
    months = list(result.monthly.months)
    return {
        "cost": plain_cost(option),
        "racks": result.racks,
        "monthly": {
            "months": months,
            "cumulative_cny": jsonable(result.monthly.cumulative_cny),
            "net_of_resale_cny": jsonable(result.monthly.net_of_resale_cny),
        },
        "assumptions": [
            {
                "key": a.key,
                "value": jsonable(a.value),
                "message": message(a.message),
                "basis": a.basis,
                "basis_label": a.basis_label,
                "source": jsonable(a.source),
                "as_of": jsonable(a.as_of),
                "flag": a.flag,
                "level": a.level,
                "kind": a.kind,
            }
            for a in cost_figures(option)
        ],
        "messages": [message(m) for m in result.messages],
    }


def _sizing(option: Option) -> dict:
    sizing = option.sizing
    figures = sizing.to_json()
    figures["assumptions"] = [message(m) for m in sizing.assumptions]
    figures["memory_total_gib"] = round(sizing.memory.total, 2)
    return figures


def capacity_snapshot(option: Option) -> dict:
    """How the option obtains its GPUs: buy / rent whole servers, or one cloud instance."""
    return jsonable(capacity_record(option))


def option_snapshot(option: Option) -> dict:
    return {
        "key": option.key,
        "qualifies": option.qualifies,
        "reasons": [message(m) for m in option.reasons],
        "mode": option.mode,
        "cost_cny": jsonable(option.cost_cny),
        "cash_out_cny": jsonable(option.cash_out_cny),
        "accelerator": jsonable(option.hardware.accelerator),
        "server": jsonable(option.hardware.server),
        "family": option.hardware.family,
        "domestic": option.hardware.domestic,
        "availability": jsonable(option.hardware.availability),
        "prices": jsonable(option.hardware.prices),
        "price_provenance": jsonable(option.hardware.price_provenance),
        "data_center": jsonable(option.site.data_center),
        "vendor": jsonable(option.site.vendor),
        "zone": jsonable(option.site.zone),
        "site_costs": jsonable(option.site.costs),
        "sizing": _sizing(option),
        "capacity": capacity_snapshot(option),
        "place": jsonable(option.place),
        "cloud": jsonable(option.cloud) if option.cloud is not None else None,
        "compliance": option.compliance.as_dict(),
        "economics": _economics(option),
        "confidence": jsonable(option.confidence),
        "tariff_breakdown": jsonable(option.site.tariff_breakdown),
        "tariff_source": _tariff_source(option),
        "delivery": delivery_snapshot(option),
    }


def _tariff_source(option: Option) -> str:
    if option.economics is None:
        return ""
    provenance = option.economics.inputs.provenance.get("tariff_cny_per_kwh")
    return jsonable(provenance.source) if provenance else ""


def vendor_comparison_snapshot(options: list[Option], today: date) -> dict:
    """The V4 side-by-side table for the hosting vendors of the options, each cell with status."""
    vendors = {}
    for option in options:
        vendors.setdefault(option.site.vendor.key or option.site.vendor.name, option.site.vendor)
    # The thresholds the options were checked with (admin overrides included).
    table = compare_vendors(list(vendors.values()), today, options[0].compliance.parameters)
    return {
        # Each column's vendor as {"name", "name_zh"}, shown in the reader's language.
        "vendors": [
            {"name": name, "name_zh": vendor.name_zh}
            for name, vendor in zip(table.vendor_names, vendors.values(), strict=True)
        ],
        "rows": [
            {
                "key": row.key,
                "label": row.label,
                "cells": [
                    {
                        "lines": [message(line) for line in cell.lines],
                        "status": str(cell.status) if cell.status is not None else None,
                    }
                    for cell in row.cells
                ],
            }
            for row in table.rows
        ],
    }


def summary(option: Option) -> dict:
    """An option in one line: what, where, how, what it costs, and why it does not qualify."""
    cost = option.cost
    return {
        "key": option.key,
        "server": jsonable(option.hardware.server),
        "accelerator": jsonable(option.hardware.accelerator),
        "gpus": option.obtained.gpus,
        "mode": option.mode,
        "place": jsonable(option.place),
        "data_center": jsonable(option.site.data_center) if not option.is_cloud else None,
        "cash_out_cny": jsonable(cost.cash_out_cny) if cost else None,
        "net_of_resale_cny": jsonable(cost.net_of_resale_cny) if cost else None,
        "verdict": str(option.compliance.verdict),
        "reasons": [message(m) for m in option.reasons],
    }


# At most this many cheaper options are named in the memo; beyond it, the cheapest of each
# procurement mode and site, and how many more there are.
CHEAPER_LISTED = 4


def _place_of(option: Option) -> str:
    return f"cloud:{option.cloud.key}" if option.cloud else (option.site.data_center.key or "")


def cheaper_options(qualifying: list[Option], chosen: Option) -> tuple[list[Option], int, int]:
    """The qualifying options cheaper than ``chosen`` (net of resale), cheapest first: all of
    them when they are few, else the cheapest of each procurement mode and site, the
    cheapest few of those and the same server at every other site (the one an auditor asks
    about first; three identical rentals are one line). Also how many more are not named: at
    a mode and site already named (only its cheapest is), and elsewhere."""
    if chosen.cost_cny is None:
        return [], 0, 0
    cheaper = [o for o in qualifying if o.cost_cny < chosen.cost_cny and o.key != chosen.key]
    if len(cheaper) <= CHEAPER_LISTED:
        return cheaper, 0, 0
    named: dict[tuple, Option] = {}
    for option in cheaper:  # cheapest first: the first of each mode and site is its cheapest
        named.setdefault((option.mode, _place_of(option)), option)
    listed = sorted(named.values(), key=lambda o: (o.cost_cny, o.key))[:CHEAPER_LISTED]
    same: dict[tuple, Option] = {}  # the chosen server's cheapest at each other mode and site
    for option in cheaper:
        if option.hardware.server.key == chosen.hardware.server.key:
            same.setdefault((option.mode, _place_of(option)), option)
    listed += [o for o in same.values() if o not in listed]
    listed.sort(key=lambda o: (o.cost_cny, o.key))
    places = {(o.mode, _place_of(o)) for o in listed}
    rest = [o for o in cheaper if o not in listed]
    at_named = sum((o.mode, _place_of(o)) in places for o in rest)
    return listed, at_named, len(rest) - at_named


def memo(
    recommendation: Recommendation, procurement: Procurement, chosen: Option, reason: str = ""
) -> dict:
    """What pages 1-2 of the brief need beyond the chosen option: its rank, rank 1 when it is
    not, the cheaper options, how many options were compared and how many could not be (no
    price), the buyer's reason for another option than rank 1, the open veto checks, the
    internal checks of an own room, the budget."""
    qualifying = list(recommendation.rankings["recommended"])
    rank = next((i for i, o in enumerate(qualifying, start=1) if o.key == chosen.key), None)
    cheaper, more, elsewhere = cheaper_options(qualifying, chosen)
    unpriced = recommendation.unpriced
    report = chosen.compliance
    return {
        "rank": rank,
        "rank_one": summary(qualifying[0]) if qualifying and rank != 1 else None,
        "cheaper": [summary(o) for o in cheaper],
        "cheaper_more": more,  # at a mode and site named above (only its cheapest is)
        "cheaper_elsewhere": elsewhere,  # at other modes and sites, not named
        "compared": len(qualifying),
        "unpriced": len(unpriced),
        "unpriced_examples": [summary(o) for o in unpriced_examples(unpriced)],
        "reason": reason.strip(),
        "vendor_rules_skipped": bool(procurement.required_rules) and chosen.is_own_room,
        "unknown_vetoes": [
            {"rule_id": f.rule_id, "title": f.title, "message": message(f.message)}
            for f in report.unknown_blockers
        ],
        "internal_checks": [
            {"rule_id": f.rule_id, "title": f.title, "message": message(f.message)}
            for f in report.internal_checks
        ],
        "warnings": [
            {"rule_id": f.rule_id, "title": f.title, "message": message(f.message)}
            for f in report.findings
            if str(f.status) in ("warn", "fail") and str(f.severity) not in ("advice", "internal")
        ][:3],
        "risks": [message(m) for m in figure_risks(chosen, recommendation)],
        "budget_cny": jsonable(procurement.budget_cny),
        "cost": plain_cost(chosen),
    }


def needs_reason(recommendation: Recommendation, chosen_key: str | None) -> bool:
    """Whether a brief for ``chosen_key`` must say why it was chosen: it is not rank 1 (or
    nothing qualifies, so there is no rank 1 to follow)."""
    qualifying = recommendation.rankings["recommended"]
    if chosen_key is None:
        return not qualifying
    return not qualifying or qualifying[0].key != chosen_key


def choose(recommendation: Recommendation, chosen_key: str | None = None) -> list[Option]:
    """The chosen option (default: the top recommendation) and up to two alternatives."""
    pool = list(recommendation.rankings["recommended"]) or list(recommendation.options)
    if chosen_key is not None:
        chosen = next((o for o in recommendation.options if o.key == chosen_key), None)
        if chosen is None:
            raise KeyError(chosen_key)
    else:
        chosen = pool[0]
    alternatives = [o for o in pool if o.key != chosen.key][:2]
    return [chosen, *alternatives]


def brief_snapshot(
    *,
    scenario: Scenario,
    procurement: Procurement,
    recommendation: Recommendation,
    chosen_key: str | None,
    today: date,
    inputs: dict | None = None,
    catalog: list[dict] | None = None,
    reason: str = "",
) -> dict:
    """Everything a brief shows, frozen.

    ``inputs`` is the wizard's answers as entered; ``catalog`` the catalog records the options
    were built from, each with its ``source`` and ``as_of`` (for the appendix); ``reason``
    the buyer's reason for choosing another option than rank 1 (printed in the memo).
    """
    chosen = choose(recommendation, chosen_key)
    return {
        "schema": SCHEMA_VERSION,
        "today": today.isoformat(),
        "ruleset_version": chosen[0].compliance.ruleset_version,
        "scenario": dump_scenario(scenario),
        "procurement": jsonable(procurement),
        "inputs": jsonable(inputs or {}),
        "options": [option_snapshot(o) for o in chosen],
        "site_comparison": jsonable(same_server_by_site(recommendation.options, chosen[0])),
        "vendor_comparison": vendor_comparison_snapshot(chosen, today),
        "catalog": jsonable(catalog or []),
        "considered": len(recommendation.options),
        "qualifying": len(recommendation.rankings["recommended"]),
        "memo": memo(recommendation, procurement, chosen[0], reason),
    }
