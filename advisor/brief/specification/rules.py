"""Requirements from the compliance rules: thresholds as the findings state them, vendor and
site lines, power and PUE."""

from __future__ import annotations

import math

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from advisor.brief.specification.performance import (
    mark_for,
)
from advisor.brief.specification.values import (
    IMPORTANT,
    MANDATORY,
    NOT_OFFERED,
    NOT_REQUIREMENTS,
    NUMBER,
    STATED_RULES,
    SYMBOLS,
    YES_NO,
    Line,
    _findings,
    _is_number,
    certificate_copy,
    commitment,
    meets,
    site_record,
    technical_proof,
)
from advisor.domain.compliance.base import shown
from advisor.presentation.numbers import plain_number
from advisor.presentation.text import render_text

# --- Requirements from the compliance rules ---------------------------------------------------------


def requirement_text(item: dict) -> str:
    words = render_text(item["label"])
    threshold = item["threshold"]
    if threshold is True:
        return _("%(label)s: required") % {"label": words}
    value = render_text(shown(threshold, item.get("unit") or "", item.get("words") or ""))
    if item["comparison"] == "in":
        return _("%(label)s: required, including %(value)s") % {"label": words, "value": value}
    if not _is_number(threshold):
        return _("%(label)s: required, %(value)s") % {"label": words, "value": value}
    symbol = SYMBOLS.get(item["comparison"], "=")
    return f"{words} {symbol} {value}"


def condition_of(item: dict) -> str:
    return NUMBER if _is_number(item["threshold"]) else YES_NO


def _looser(item: dict, than: dict) -> bool:
    a, b = item["threshold"], than["threshold"]
    if not (_is_number(a) and _is_number(b)):
        return False
    return a < b if item["comparison"] in (">=", ">") else a > b


def threshold_groups(finding: dict) -> list[list[dict]]:
    """The rule's stated thresholds, grouped by what they compare, each group from the loosest
    (a veto rule's floor) to the strictest (its target)."""
    groups: dict[tuple, list[dict]] = {}
    for item in finding.get("evidence") or ():
        if item.get("threshold") is None or not item.get("comparison"):
            continue
        if item["label"] in NOT_OFFERED:
            continue
        groups.setdefault((item["label"], item["comparison"]), []).append(item)
    ordered = []
    for items in groups.values():
        loosest = min(items, key=_sort_key(items))
        strictest = max(items, key=_sort_key(items))
        ordered.append([loosest] if loosest is strictest else [loosest, strictest])
    return ordered


def _sort_key(items: list[dict]):
    numeric = all(_is_number(i["threshold"]) for i in items)
    if not numeric:
        return lambda i: items.index(i)
    growing = items[0]["comparison"] in (">=", ">")
    return lambda i: -i["threshold"] if not growing else i["threshold"]


def rule_lines(finding: dict, evidence: str) -> list[Line]:
    """A compliance rule as requirement lines: a veto rule's floor ★ (unless the chosen option
    does not meet it: ▲), its target ▲; a warning's target ▲; a rule without thresholds as one
    yes/no line. Nothing for advice."""
    if finding.get("severity") == "advice":
        return []
    veto = mark_for(finding) == MANDATORY
    lines = []
    for group in threshold_groups(finding):
        floor, target = group[0], group[-1]
        floor_holds = meets(floor.get("measured"), floor["comparison"], floor["threshold"])
        if veto and floor_holds is not False:
            lines.append(_rule_line(MANDATORY, finding, floor, evidence))
            if target is not floor:
                lines.append(_rule_line(IMPORTANT, finding, target, evidence))
        else:
            lines.append(_rule_line(IMPORTANT, finding, target, evidence))
    if not lines:
        body = _("required: %(what)s") % {"what": render_text(finding.get("explanation") or "")}
        lines.append(
            Line(
                MANDATORY if veto else IMPORTANT,
                titled(finding["title"], body),
                evidence,
                YES_NO,
            )
        )
    return lines


def _rule_line(mark: str, finding: dict, item: dict, evidence: str) -> Line:
    return Line(
        mark, titled(finding["title"], requirement_text(item)), evidence, condition_of(item)
    )


def titled(title, body: str) -> str:
    """``Title: body`` in the reader's language (a full-width colon in Chinese)."""
    if not body:
        return render_text(title)
    return _("%(title)s: %(body)s") % {"title": render_text(title), "body": body}


def rules_of(option: dict, area: str) -> list[dict]:
    return [
        f
        for f in option["compliance"]["findings"]
        if f["area"] == area and f["rule_id"] not in STATED_RULES | NOT_REQUIREMENTS
    ]


def vendor_evidence(finding: dict) -> str:
    if any(word in finding["rule_id"] for word in ("LICENCE", "ISO", "MLPS", "ICP")):
        return certificate_copy()
    return commitment()


def vendor_lines(option: dict) -> list[Line]:
    return [
        line
        for finding in rules_of(option, "vendor")
        for line in rule_lines(finding, vendor_evidence(finding))
    ]


def site_lines(option: dict) -> list[Line]:
    """The data center's requirements: power and cooling for the servers, the site rules."""
    findings = _findings(option)
    lines = power_lines(option, findings)
    lines += pue_lines(findings.get("SITE-PUE"))
    floor = findings.get("SITE-FLOOR-LOAD")
    if floor:
        lines.append(
            Line(
                mark_for(floor),
                titled(
                    floor["title"],
                    _(
                        "required: the rack positions and the floor under them are rated for "
                        "the weight of the servers in one rack, as the goods' offer states it"
                    ),
                ),
                site_record(),
                YES_NO,
            )
        )
    lines += [
        line for finding in rules_of(option, "site") for line in rule_lines(finding, site_record())
    ]
    return lines


def power_lines(option: dict, findings: dict) -> list[Line]:
    sizing = option["sizing"]
    servers = option["capacity"].get("instances") or 1
    racks = (option.get("economics") or {}).get("racks") or 1
    per_rack = math.ceil(servers / racks)
    kw = float(sizing.get("power_kw_per_server") or 0) * per_rack
    btu = float(sizing.get("btu_per_hour_per_server") or 0) * per_rack
    if not kw:
        return []
    mark = MANDATORY
    for rule in ("SITE-RACK-POWER", "SITE-RACK-COOLING"):
        if mark_for(findings.get(rule)) != MANDATORY:
            mark = IMPORTANT
    return [
        Line(
            mark,
            ngettext(
                "Power and cooling per rack (%(servers)s server a rack): at least %(kw)s kW "
                "of power and %(btu)s BTU/h of heat removal at full load.",
                "Power and cooling per rack (%(servers)s servers a rack): at least %(kw)s kW "
                "of power and %(btu)s BTU/h of heat removal at full load.",
                int(per_rack),
            )
            % {
                "servers": per_rack,
                "kw": plain_number(round(kw, 1)),
                "btu": plain_number(round(btu)),
            },
            site_record(),
            NUMBER,
        )
    ]


def goods_power_lines(option: dict) -> list[Line]:
    """What the servers may draw: within the buyer's own room's limit per rack (from the
    room's rack-power rule), or stated in the offer so the hosting lot can be sized."""
    finding = _findings(option).get("SITE-RACK-POWER")
    limit = next(
        (
            e
            for e in (finding or {}).get("evidence") or ()
            if e.get("label") == "The power per rack at full load"
            and _is_number(e.get("threshold"))
        ),
        None,
    )
    servers = option["capacity"].get("instances") or 1
    racks = (option.get("economics") or {}).get("racks") or 1
    if option.get("mode") == "own" and limit is not None:
        return [
            Line(
                mark_for(finding),
                _(
                    "Power at full load: at most %(kw)s kW for the servers of one rack "
                    "(%(servers)s a rack), the limit of the buyer's room."
                )
                % {"kw": plain_number(limit["threshold"]), "servers": math.ceil(servers / racks)},
                technical_proof(),
                NUMBER,
            )
        ]
    return [
        Line(
            "",
            _(
                "Power and heat: the offer states each server's maximum power at full load "
                "(kW) and heat output (BTU/h), for the racks that host it."
            ),
            technical_proof(),
        )
    ]


def pue_lines(finding: dict | None) -> list[Line]:
    if not finding:
        return []
    limit = next(
        (
            e
            for e in finding.get("evidence") or ()
            if _is_number(e.get("threshold")) and e.get("comparison") == "<="
        ),
        None,
    )
    if limit is None:
        return [
            Line(
                IMPORTANT,
                titled(
                    finding["title"],
                    _("state the data center's PUE measured over the last full year"),
                ),
                site_record(),
            )
        ]
    holds = meets(limit.get("measured"), "<=", limit["threshold"])
    mark = MANDATORY if mark_for(finding) == MANDATORY and holds is not False else IMPORTANT
    return [
        Line(
            mark,
            titled(
                finding["title"],
                _(
                    "PUE measured over the last full year ≤ %(limit)s (a design value does not count)"
                )
                % {"limit": plain_number(limit["threshold"])},
            ),
            site_record(),
            NUMBER,
        )
    ]
