"""The options table's rows as HTML, one Python function per row (docs/decisions/0068).

The table was a template loop of ~75 nodes a row, about 1.2 ms a row; these functions write
the same bytes with the same gettext calls and the same escaping (every value through
``conditional_escape`` after Django's ``localize``, as ``{{ }}`` and ``{% blocktranslate %}``
do). tests/integration/test_results_rows.py renders rows of every kind (cloud, unpriced,
resale, programme, idle GPUs, reasons, equivalents, names that need escaping) both ways: with
these functions and with the loop the template had, kept there as the reference. The pieces other
pages show too (an option's title, capacity, cost figures and cost confidence) come from
advisor/presentation/fragments.py, their one source (docs/decisions/0085).
"""

from __future__ import annotations

from urllib.parse import quote

from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, ngettext

from advisor.presentation import labels
from advisor.presentation.fragments import (
    capacity,
    cost_confidence,
    cost_figures,
    esc,
    option_title,
)
from advisor.presentation.numbers import gib, hours, num
from advisor.presentation.text import local_name, render_text


def table_words() -> dict[str, str]:
    """The words every row repeats, translated and escaped once per table."""
    words = {
        "compare": gettext("Compare"),
        "rank": gettext("Rank"),
        "choice": gettext("Choice"),
        "where": gettext("Where"),
        "memory": gettext("Memory per GPU"),
        "time": gettext("Time to train"),
        "cash": gettext("Cash out"),
        "compliance": gettext("Compliance"),
        "not_qualifying": gettext("does not qualify"),
        "unpriced": gettext("unpriced: cannot be compared"),
        "cloud": gettext("cloud: no data center of yours"),
        "not_estimated": gettext("not estimated"),
        "reasons": gettext("Does not qualify"),
    }
    return {name: esc(text) for name, text in words.items()}


def table_rows(rows, assessment_pk) -> SafeString:
    """The ``<tbody>`` content for ``rows`` (presenters.Row), as the template's loop wrote it."""
    words = table_words()
    links = OptionLinks(assessment_pk)
    parts = [_row(row, counter, words, links) for counter, row in enumerate(rows, 1)]
    return mark_safe("".join(parts))  # every value escaped in _row


class OptionLinks:
    """The escaped link of each option's page, as ``reverse("results:option")`` writes it: the
    URL is reversed once per table and each key quoted into it as ``reverse`` quotes it (the
    path's ``str`` converter passes the key as it is); a key that ``reverse`` would refuse (a
    slash, an empty key) goes through ``reverse`` and is refused there."""

    # django.urls.resolvers: what reverse leaves unquoted (RFC 3986's sub-delimiters, /~:@).
    SAFE = "!$&'()*+,;=" + "/~:@"
    _MARK = "option-key"

    def __init__(self, assessment_pk):
        self.assessment_pk = assessment_pk
        url = reverse("results:option", args=[assessment_pk, self._MARK])
        self.prefix, _, self.suffix = url.rpartition(self._MARK)

    def __call__(self, key: str) -> str:
        if not key or "/" in key:
            return esc(reverse("results:option", args=[self.assessment_pk, key]))
        return esc(f"{self.prefix}{quote(key, safe=self.SAFE)}{self.suffix}")


def _row(row, counter: int, words: dict, links: OptionLinks) -> str:
    o = row.option
    not_qualifying = "" if o.qualifies else "not-qualifying"
    reasons = _reasons(o, words) if o.reasons else ""
    return (
        f'\n    <tr class="{not_qualifying}" id="row-{counter}" '
        f'data-mode="{esc(o.mode or "unpriced")}">'
        f"\n      {_compare_cell(o, counter, words)}"
        f"\n      {_rank_cell(row, words)}"
        f"\n      {_choice_cell(row, words, links)}"
        f"\n      {_where_cell(row, words)}"
        f"\n      {_memory_cell(row, words)}"
        f"\n      {_time_cell(o, words)}"
        f"\n      {_cost_cell(o, words)}"
        f"\n      {_compliance_cell(o, words)}"
        f"\n    </tr>\n    {reasons}\n  "
    )


def _compare_cell(o, counter: int, words: dict) -> str:
    place = local_name(o.place) or gettext("your room")
    label = gettext("Compare %(name)s at %(place)s") % {
        "name": esc(local_name(o.hardware.server)),
        "place": esc(place),
    }
    return (
        f'<td data-label="{words["compare"]}"><input type="checkbox" name="option" '
        f'value="{esc(o.key)}" id="cmp-{counter}"><label for="cmp-{counter}" '
        f'class="visually-hidden">{label}</label></td>'
    )


def _rank_cell(row, words: dict) -> str:
    standing = words["unpriced"] if row.option.unpriced else words["not_qualifying"]
    rank = esc(row.rank) if row.rank else f'<span class="hint">{standing}</span>'
    return f'<td data-label="{words["rank"]}">{rank}</td>'


def _choice_cell(row, words: dict, links: OptionLinks) -> str:
    o = row.option
    mode = f"{esc(labels.label(labels.MODE_LABELS, o.mode))} · " if o.mode else ""
    return (
        f'<td data-label="{words["choice"]}"><a href="{links(o.key)}">'
        f'{option_title(o)}</a><br><span class="hint">{mode}'
        f"{capacity(o.obtained, o.hardware.server)}</span>"
        f"\n        {_equivalents(row, links)}</td>"
    )


def _equivalents(row, links: OptionLinks) -> str:
    choice = row.choice
    if choice is None or not choice.equivalents:
        return ""
    n = choice.equivalents
    summary = ngettext("%(n)s equivalent option", "%(n)s equivalent options", n) % {"n": esc(n)}
    items = "".join(
        f'<li><a href="{links(e.key)}">'
        f"{esc(local_name(e.hardware.server))} · {esc(local_name(e.place))}</a></li>"
        for e in choice.options[1:]
    )
    return f'<details class="equivalents"><summary>{summary}</summary><ul>{items}</ul></details>'


def _where_cell(row, words: dict) -> str:
    o = row.option
    if o.is_cloud:
        where = f'{esc(local_name(o.place))}<br><span class="hint">{words["cloud"]}</span>'
    else:
        vendor = local_name(o.site.vendor) or gettext("operator not in the catalog")
        where = f'{esc(local_name(o.site.data_center))}<br><span class="hint">{esc(vendor)}</span>'
    choice = row.choice
    if choice and len(choice.places) > 1:
        n = len(choice.places)
        same = ngettext("the same at %(n)s site", "the same at %(n)s sites", n) % {"n": esc(n)}
        where += f'<br><span class="hint">{same}</span>'
    return f'<td data-label="{words["where"]}">{where}</td>'


def _memory_cell(row, words: dict) -> str:
    sizing = row.option.sizing
    need = num(sizing.memory.total, 1)
    label = gettext("%(need)s GiB of %(have)s GiB") % {
        "need": esc(need),
        "have": esc(num(sizing.capacity_gib, 1)),
    }
    over = "" if sizing.fits else " over"
    return (
        f'<td data-label="{words["memory"]}">'
        f'\n        <svg class="memory-bar{over}" viewBox="0 0 100 8" preserveAspectRatio="none" '
        f'role="img" aria-label="{label}"><rect class="track" x="0" y="0" width="100" '
        f'height="8"/><rect class="fill" x="0" y="0" width="{esc(row.memory_bar_pct)}" '
        f'height="8"/></svg>'
        f'\n        <span class="hint">{esc(need)} / {esc(gib(sizing.capacity_gib))}</span>'
        f"\n      </td>"
    )


def _time_cell(o, words: dict) -> str:
    value = o.time_to_train_hours
    text = esc(hours(value)) if value is not None else words["not_estimated"]
    return f'<td data-label="{words["time"]}" class="num time-cell">{text}</td>'


def _cost_cell(o, words: dict) -> str:
    confidence = f"<br>{cost_confidence(o.confidence)}" if o.cost else ""
    return (
        f'<td data-label="{words["cash"]}" class="num cost-cell">{cost_figures(o)}{confidence}</td>'
    )


def _compliance_cell(o, words: dict) -> str:
    report = o.compliance
    counts = report.counts
    tally = gettext("%(p)s pass · %(w)s warn · %(f)s fail · %(u)s unknown") % {
        "p": esc(counts["pass"]),
        "w": esc(counts["warn"]),
        "f": esc(counts["fail"]),
        "u": esc(counts["unknown"]),
    }
    vetoes = ""
    if report.unknown_blockers:
        n = len(report.unknown_blockers)
        vetoes = ngettext(
            "%(n)s veto check awaits the vendor", "%(n)s veto checks await the vendor", n
        ) % {"n": esc(n)}
        vetoes = f'<br><span class="hint">{vetoes}</span>'
    verdict = labels.word("verdict", report.verdict)
    return (
        f'<td data-label="{words["compliance"]}"><span class="tag verdict-{esc(report.verdict)}">'
        f"{esc(verdict)}</span>"
        f'\n        <br><span class="hint">{tally}</span>{vetoes}</td>'
    )


def _reasons(o, words: dict) -> str:
    reasons = "; ".join(esc(render_text(reason)) for reason in o.reasons)
    return (
        f'<tr class="reasons-row"><td></td><td colspan="7"><strong>{words["reasons"]}:</strong> '
        f"{reasons}</td></tr>"
    )
