"""View models for the results, option and comparison pages (no queries, no writes)."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.safestring import mark_safe
from django.utils.translation import gettext

from advisor.domain.economics.confidence import FIGURE_LABELS, FLAG_LABELS
from advisor.domain.economics.costs import resale_pct
from advisor.domain.economics.inputs import (
    BASIS_LABELS,
    LEVEL_ASSUMED,
    LEVEL_NATIONAL,
    LEVEL_ZONE,
)
from advisor.domain.recommend import RANKING_LABELS, Option, Recommendation
from advisor.domain.recommend.decision import (
    Choice,
    blocking_requirements,
    combined_requirements,
    fold,
    shortlist,
)
from advisor.domain.recommend.options import price_notes
from advisor.domain.recommend.sites import same_server_by_site
from advisor.presentation.charts import Series, line_chart, memory_segments, stacked_bar
from advisor.presentation.labels import MODE_LABELS, label, requirement
from advisor.presentation.numbers import plain_number
from advisor.presentation.text import local_name, render_text
from advisor.results.forms import price_field

RANKINGS = tuple(RANKING_LABELS)
ALL_OPTIONS = "all"
SORTS = ("rank", "cost", "time", "memory", "compliance")
MAX_COMPARED = 3


@dataclass(frozen=True)
class Row:
    option: Option
    rank: int | None  # position in the recommended order among qualifying options
    choice: Choice | None = None  # the options folded into this row (same choice for a buyer)

    @property
    def key(self) -> str:
        return self.option.key

    @property
    def memory_share(self) -> float:
        sizing = self.option.sizing
        return sizing.memory.total / sizing.capacity_gib if sizing.capacity_gib else 0.0

    @property
    def memory_bar_pct(self) -> int:
        return max(1, min(100, round(100 * self.memory_share)))


def rows_for(recommendation: Recommendation, ranking: str) -> list[Row]:
    ranks = {o.key: i for i, o in enumerate(recommendation.rankings["recommended"], start=1)}
    if ranking == ALL_OPTIONS:
        options = recommendation.options
    else:
        options = recommendation.rankings.get(ranking, recommendation.rankings["recommended"])
    return [Row(option, ranks.get(option.key)) for option in options]


def _sort_key(sort: str):
    inf = float("inf")

    def key(row: Row):
        option = row.option
        cost = float(option.cost_cny) if option.cost_cny is not None else inf
        hours = option.time_to_train_hours if option.time_to_train_hours is not None else inf
        counts = option.compliance.counts
        return {
            "cost": (cost, hours),
            "time": (hours, cost),
            "memory": (row.memory_share, cost),
            "compliance": (counts["fail"], counts["warn"], counts["unknown"], cost),
        }.get(sort, (row.rank or inf, cost))

    return key


def sorted_rows(rows: list[Row], sort: str) -> list[Row]:
    if sort == "rank":
        return rows
    return sorted(rows, key=_sort_key(sort))


def folded(rows: list[Row], show_all: bool) -> tuple[list[Row], int]:
    """One row per distinct choice (in the order given); unless ``show_all``, at most one per
    accelerator × procurement mode. Returns the rows and how many choices are hidden."""
    ranks = {row.key: row.rank for row in rows if row.rank}
    choices = fold([row.option for row in rows], ranks)
    shown, hidden = (choices, 0) if show_all else shortlist(choices)
    return [Row(c.option, c.rank, c) for c in shown], hidden


# Site figures whose national or province stand-ins make a comparison of sites not yet
# meaningful (decision 0029): the buyer's own figures settle them.
SITE_FIGURES = ("tariff_cny_per_kwh", "pue", "rack_fee_cny_per_month")
PLACEHOLDER_LEVELS = (LEVEL_ZONE, LEVEL_NATIONAL, LEVEL_ASSUMED)


@dataclass(frozen=True)
class Placeholders:
    sites: int  # sites compared
    figures: tuple[str, ...]  # figure keys resting on a province or national stand-in somewhere


def placeholders(options) -> Placeholders | None:
    """When several sites are compared and any of them is priced from a province or national
    stand-in, which figures those are (the difference between sites is not yet meaningful)."""
    sites = {}
    for option in options:
        if not option.is_cloud and not option.is_own_room and option.site.data_center.key:
            sites.setdefault(option.site.data_center.key, option.site)
    if len(sites) < 2:
        return None
    figures = []
    for name in SITE_FIGURES:
        for site in sites.values():
            provenance = site.cost_provenance.get(name)
            if provenance is None or provenance.level in PLACEHOLDER_LEVELS:
                figures.append(name)
                break
    return Placeholders(len(sites), tuple(figures)) if figures else None


def blockers(recommendation: Recommendation, limit: int = 3) -> list:
    """When nothing qualifies: the requirements that remove the most options."""
    if recommendation.rankings["recommended"]:
        return []
    return blocking_requirements(recommendation.options)[:limit]


def combined(recommendation: Recommendation):
    """When nothing qualifies: the buyer's requirements that, lifted together, let the most
    options through (advisor.domain.recommend.decision.combined_requirements), or None."""
    if recommendation.rankings["recommended"]:
        return None
    return combined_requirements(recommendation.options)


def requirement_list(codes) -> str:
    """Requirements named in a list the reader's language punctuates ("A; B" or "A；B")."""
    return gettext("; ").join(requirement(code) for code in codes)


def vendors_to_ask(options, limit: int = 12) -> list:
    """The hosting vendors and cloud providers of ``options`` (a shortlist), each once."""
    seen = {}
    for option in options:
        vendor = option.site.vendor
        key = vendor.key or vendor.name
        if key and key not in seen and not option.is_own_room:
            seen[key] = option
    return list(seen.values())[:limit]


def memory_chart(option: Option) -> str:
    segments = memory_segments(option.sizing.memory.components())
    return mark_safe(  # noqa: S308 - our own escaped SVG
        stacked_bar(
            segments,
            option.sizing.capacity_gib,
            title=gettext("Memory per GPU: %(server)s")
            % {"server": local_name(option.hardware.server)},
            unit="GiB",
            capacity_label=gettext("usable"),
        )
    )


def cost_chart(option: Option) -> str:
    """Cash paid by month for the option's mode (and renting the same servers, for a purchase):
    the line ends at the cash out the page states beside it."""
    economics = option.economics
    if economics is None or option.cost is None:
        return ""
    mode = "buy" if option.mode == "own" else option.mode
    shown = [mode] + (["rent"] if mode == "buy" and "rent" in economics.costs else [])
    series = [
        Series(label(MODE_LABELS, m), tuple(float(v) for v in economics.monthly.cumulative_cny[m]))
        for m in shown
    ]
    return mark_safe(  # noqa: S308 - our own escaped SVG
        line_chart(
            series,
            title=gettext("Cash paid by month"),
            x_label=gettext("month"),
            y_label=gettext("CNY"),
        )
    )


def findings_by_area(option: Option) -> list[tuple[str, list]]:
    """Findings per area; an area without findings (a cloud option's site) is left out."""
    return [
        (str(area), list(findings))
        for area, findings in option.compliance.by_area().items()
        if findings
    ]


def site_rows(options: list[Option], base: Option | None) -> list:
    """The same servers bought at each of ``options``' sites, the difference explained."""
    return same_server_by_site(options, base) if base is not None else []


def tariff_source(option: Option) -> str:
    """Where the electricity price of ``option`` comes from (document, issuer, month)."""
    if option.economics is None:
        return ""
    provenance = option.economics.inputs.provenance.get("tariff_cny_per_kwh")
    return provenance.source if provenance else ""


def notes_for(option: Option, procurement) -> list:
    return list(price_notes(option, procurement))


def price_anchor(option: Option, procurement) -> str:
    """Where on the own-figures page the missing figure of an unpriced option is entered: the
    site's figures when the site lacks one, else the server's purchase price (its monthly
    rent for a rental)."""
    if option.is_cloud:
        return "prices-heading"
    missing = [n for n in procurement.uncovered(option.site) if n != "rack_power_limit_kw"]
    if missing:
        return "sites-heading"
    name = "rent_cny_per_server_month" if option.mode == "rent" else "purchase_cny_per_server"
    return f"id_{price_field(option.hardware.server.key, name)}"


def figure_in_use(site, name: str) -> str | None:
    """A site figure as the figures page shows it: value, where it was found, its flag."""
    provenance = site.cost_provenance.get(name)
    if name in site.missing_costs:
        if provenance is not None and provenance.level == LEVEL_ASSUMED:
            return gettext(FIGURE_LABELS[name][LEVEL_ASSUMED])
        return None
    value = getattr(site.costs, name)
    text = format(value.normalize(), "f") if hasattr(value, "normalize") else str(value)
    if provenance is None or provenance.basis == "override":
        return text
    labels = FIGURE_LABELS.get(name, {})
    where = labels.get(provenance.level) or labels.get("site")
    flag = FLAG_LABELS.get(provenance.flag)
    details = gettext(", ").join(gettext(t) for t in (where, flag) if t)
    return f"{text} ({details})" if details else text


# --- The figures page: what is in use now, and where it comes from -------------------------------


@dataclass(frozen=True)
class InUse:
    """A figure as it is used now: its value (a range when options differ), and its source."""

    value: str
    source: str = ""


def _span(values) -> str:
    distinct = sorted(set(values))
    if not distinct:
        return ""
    if len(distinct) == 1:
        return plain_number(distinct[0])
    return f"{plain_number(distinct[0])}–{plain_number(distinct[-1])}"


def _basis(provenance) -> str:
    if provenance is None:
        return ""
    words = gettext(BASIS_LABELS.get(provenance.basis, ""))
    source = render_text(provenance.source) if provenance.source else ""
    return " · ".join(t for t in (words, source) if t)


PRICE_NAMES = ("purchase_cny_per_server", "rent_cny_per_server_month", "cloud_cny_per_gpu_hour")


def prices_in_use(options, server_key: str) -> dict[str, InUse]:
    """The prices of ``server_key`` the options use (buy and rent at the sites, cloud per
    offer): one value, or the range when sites or offers differ."""
    values = {name: [] for name in PRICE_NAMES}
    sources = {}
    for option in options:
        if option.hardware.server.key != server_key or option.economics is None:
            continue
        inputs = option.economics.inputs
        for name in PRICE_NAMES:
            value = getattr(inputs.prices, name)
            if value is not None:
                values[name].append(value)
                sources.setdefault(name, set()).add(_basis(inputs.provenance.get(name)))
    return {
        name: InUse(_span(found), next(iter(sources[name])) if len(sources[name]) == 1 else "")
        for name, found in values.items()
        if found
    }


def assumptions_in_use(options, names) -> dict[str, InUse]:
    """The general assumptions in use (the same for every option), with their sources."""
    priced = next((o for o in options if o.economics is not None), None)
    if priced is None:
        return {}
    inputs = priced.economics.inputs
    found = {}
    for name in names:
        value = getattr(inputs.assumptions, name, None)
        if name == "resale_pct" and value is None:
            bought = next((o for o in options if o.mode in ("buy", "own")), None)
            value = resale_pct(bought.economics.inputs) if bought is not None else None
        if value is None:
            continue
        found[name] = InUse(plain_number(value), _basis(inputs.provenance_of(name)))
    return found
