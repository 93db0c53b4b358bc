"""View models for the results, option and comparison pages (no queries, no writes)."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.safestring import mark_safe
from django.utils.translation import gettext

from advisor.brief.charts import Series, line_chart, stacked_bar
from advisor.brief.render import MODE_LABELS, memory_segments
from advisor.domain.recommend import RANKING_LABELS, Option, Recommendation
from advisor.templatetags.domain_text import local_name

RANKINGS = tuple(RANKING_LABELS)
ALL_OPTIONS = "all"
SORTS = ("rank", "cost", "time", "memory", "compliance")
MAX_COMPARED = 3


@dataclass(frozen=True)
class Row:
    option: Option
    rank: int | None  # position in the recommended order among qualifying options

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
    economics = option.economics
    if economics is None:
        return ""
    series = [
        Series(gettext(MODE_LABELS.get(mode, mode)), tuple(float(v) for v in values))
        for mode, values in economics.monthly.cumulative_cny.items()
    ]
    return mark_safe(  # noqa: S308 - our own escaped SVG
        line_chart(
            series,
            title=gettext("Cumulative cost by month"),
            x_label=gettext("month"),
            y_label="CNY",
        )
    )


def findings_by_area(option: Option) -> list[tuple[str, list]]:
    return [(str(area), list(findings)) for area, findings in option.compliance.by_area().items()]
