"""The procurement documents' requirements (采购需求 / 技术规格书) of a brief's chosen option.

Built from the brief's snapshot only (the chosen option is ``options[0]``), in the active
language. The capacity is split into lots (采购包) by who supplies what, as 通用服务器政府采购需求
标准 (财库〔2023〕33号) splits server goods from services: buying and hosting gives a goods lot
(the servers) and a hosting lot (racks, power, cooling at a data center); buying into the
buyer's own room gives the goods lot and an internal readiness checklist instead of a vendor
lot; renting gives one lot of rented servers; the cloud gives one cloud-service lot.

Each lot has its own budget line (the brief's cost lines of that lot, never the whole budget),
its delivery term, its requirements, commercial terms and acceptance tests, the evidence a
bidder supplies per clause (提供相关技术证明文件) and the policy clauses of government
procurement, each marked applicable or not with why. A line is ★ (substantive: an offer that
fails it is rejected) only where the brief treats it as a veto, and never so that the option the
brief chose would fail it; ▲ for the brief's warnings. Requirements state performance as
numbers, not products: the tools of one maker are named only in the closing note of examples
per accelerator family.

Written as DOCX (python-docx, A4, header and page numbers) and as PDF (the same content through
an HTML template and WeasyPrint, as the brief).
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal

from django.template.loader import render_to_string
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from advisor.brief.office import document_moment, stable_zip
from advisor.domain.compliance.base import shown
from advisor.domain.delivery.checklist import (
    ACCEPTABLE_BUS_FRACTION,
    BURN_IN_MIN,
    FAULT_RESPONSE_H,
    SOURCE_MIN_NVME_TB,
    SOURCE_MIN_READ_GBS,
    SPARE_PARTS_H,
)
from advisor.presentation.labels import MODE_LABELS, label, method_label
from advisor.presentation.numbers import cny, plain_number
from advisor.presentation.pdf import write_pdf_checked
from advisor.presentation.text import local_name, render_text

MANDATORY = "★"
IMPORTANT = "▲"
# The convention every interconnect figure is stated in: GB/s per accelerator in one direction,
# summed over its links (what an all-reduce's bus bandwidth is compared with). The catalog keeps
# the bidirectional sum, twice that (docs/decisions/0115-procurement-lots.md).
CATALOG_TO_ONE_DIRECTION = 0.5
# The classes a link requirement names (GB/s per accelerator, one direction): the highest class
# the brief's layout reaches, so that any product of that class qualifies.
LINK_CLASSES_GBS = (400, 300, 200, 150, 100, 50, 25)
SYMBOLS = {">=": "≥", "<=": "≤", ">": ">", "<": "<", "==": "="}
# Rules the lots state in their own words (from the sizing, or measurable instead of a label).
STATED_RULES = {
    "HW-INTRANODE-LINK",
    "HW-INTERNODE-NIC",
    "HW-NVME-CAPACITY",
    "HW-NVME-READ",
    "HW-SOFTWARE-STACK",
    "SITE-RACK-POWER",
    "SITE-RACK-COOLING",
    "SITE-PUE",
    "SITE-FLOOR-LOAD",
}
# What the catalog records about itself, not a requirement on what is bought.
NOT_REQUIREMENTS = {"HW-AVAILABILITY"}
# Evidence labels that describe the place or the load, not what a bidder offers.
NOT_OFFERED = {
    "The outdoor mean relative humidity",
    "The licence number",
    "The data center's province",
}
FONT_EAST_ASIA = "Noto Sans CJK SC"

# Lot kinds.
GOODS = "goods"
HOSTING = "hosting"
RENT = "rent"
CLOUD = "cloud"
READINESS = "readiness"
# The cost lines (docs/decisions/0044-cost-lines.md) each lot's budget line sums.
LOT_COST_ITEMS = {
    GOODS: {"purchase", "maintenance"},
    HOSTING: {"colocation", "electricity", "demand_charge"},
    RENT: {"rent", "data_transfer"},
    CLOUD: {"cloud_compute", "data_transfer"},
    READINESS: {"electricity", "demand_charge"},
}
# Days between delivery and the start of training (installation, commissioning, acceptance),
# used only to date the delivery term from the deadline.
COMMISSIONING_DAYS = 7

# The yes/no condition of a requirement line (its text says "required").
NUMBER = "number"
YES_NO = "yes-no"


@dataclass(frozen=True)
class Line:
    mark: str  # MANDATORY, IMPORTANT or "" (information)
    text: str
    evidence: str = ""  # what the bidder supplies for this clause
    condition: str = ""  # NUMBER or YES_NO for a measurable line


@dataclass(frozen=True)
class Section:
    title: str
    lines: list[Line]


@dataclass(frozen=True)
class PrefaceRow:
    label: str
    value: str
    known: bool


@dataclass(frozen=True)
class Policy:
    title: str
    applicable: bool
    why: str

    @property
    def verdict(self) -> str:
        return _("Applicable") if self.applicable else _("Not applicable")


@dataclass(frozen=True)
class Lot:
    kind: str
    title: str
    vendor: bool  # False: an internal checklist, not tendered
    preface: list[PrefaceRow]
    sections: list[Section]
    acceptance: list[Line]
    policies: list[Policy]

    def requirement_lines(self) -> list[Line]:
        return [line for section in self.sections for line in section.lines]


@dataclass(frozen=True)
class Specification:
    title: str
    number: str
    day: date
    language: str
    preface: list[PrefaceRow]
    lots: list[Lot]
    notes: list[str] = field(default_factory=list)
    examples_title: str = ""
    examples: list[str] = field(default_factory=list)

    def requirement_lines(self) -> list[Line]:
        return [line for lot in self.lots for line in lot.requirement_lines()]


def blank() -> str:
    return _("[to be filled in]")


def _findings(option: dict) -> dict[str, dict]:
    return {f["rule_id"]: f for f in option["compliance"]["findings"]}


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def meets(measured, comparison: str, threshold) -> bool | None:
    """Whether a measured value meets a threshold; None when it cannot be told."""
    if measured is None or threshold is None:
        return None
    if _is_number(measured) and _is_number(threshold):
        return {
            ">=": measured >= threshold,
            "<=": measured <= threshold,
            ">": measured > threshold,
            "<": measured < threshold,
            "==": measured == threshold,
        }.get(comparison)
    if comparison == "==":
        return measured == threshold
    return None


# --- Evidence a bidder supplies ------------------------------------------------------------------


def technical_proof() -> str:
    return _("technical documents proving it (datasheet, test report or the maker's statement)")


def certificate_copy() -> str:
    return _("a copy of the licence or certificate, valid on the closing date")


def site_record() -> str:
    return _("the data center's measured records or a third-party test report")


def commitment() -> str:
    return _("a written commitment signed by the bidder")


# --- Preface ------------------------------------------------------------------------------------


def deadline_day(snapshot: dict) -> date | None:
    hours = (snapshot.get("procurement") or {}).get("deadline_hours")
    if not hours:
        return None
    # Hours from the start of the snapshot's day to the end of the deadline day
    # (advisor/domain/recommend/procurement.deadline_hours).
    days = math.floor(float(hours) / 24) - 1
    return date.fromisoformat(snapshot["today"]) + timedelta(days=days)


def project_name(snapshot: dict) -> str:
    scenario = snapshot["scenario"]
    return _("Computing capacity to fine-tune %(model)s (%(method)s)") % {
        "model": scenario["model"]["name"],
        "method": method_label(scenario.get("method"), scenario.get("lora")),
    }


def preface(snapshot: dict, option: dict, lots: list[Lot]) -> list[PrefaceRow]:
    deadline = deadline_day(snapshot)
    rows = [
        (_("Project"), project_name(snapshot)),
        (_("Procurement mode"), label(MODE_LABELS, option.get("mode"))),
        (_("Quantity"), quantity_text(option)),
        (_("Lots"), _("; ").join(lot.title for lot in lots)),
        (_("Training to finish by"), deadline.isoformat() if deadline else None),
        (_("Requesting department"), None),
        (_("Accepting department"), None),
        (_("Buyer's procurement rules"), None),
    ]
    return [PrefaceRow(name, value or blank(), value is not None) for name, value in rows]


def quantity_text(option: dict) -> str:
    capacity = option["capacity"]
    if option.get("mode") == "cloud":
        return _(
            "%(instances)s cloud instance(s) of %(per)s accelerators (%(gpus)s accelerators)"
        ) % {
            "instances": capacity["instances"],
            "per": capacity["gpus_per_instance"],
            "gpus": capacity["gpus"],
        }
    return _("%(servers)s server(s) of %(per)s accelerators (%(gpus)s accelerators)") % {
        "servers": capacity["instances"],
        "per": capacity["gpus_per_instance"],
        "gpus": capacity["gpus"],
    }


def cost_lines(option: dict) -> list[dict]:
    cost = (option.get("economics") or {}).get("cost") or {}
    return list(cost.get("lines") or ())


def _cost_quantity(option: dict, item: str) -> str | None:
    line = next((x for x in cost_lines(option) if x["item"] == item), None)
    return plain_number(line["quantity"]) if line else None


def lot_budget(option: dict, kind: str) -> Decimal | None:
    """The lot's budget line: the sum of the brief's cost lines that the lot buys."""
    amounts = [
        Decimal(str(line["amount_cny"]))
        for line in cost_lines(option)
        if line["item"] in LOT_COST_ITEMS[kind]
    ]
    return sum(amounts, Decimal(0)) if amounts else None


def horizon_years(snapshot: dict) -> int:
    assumptions = (snapshot.get("procurement") or {}).get("assumptions") or {}
    return int(assumptions.get("horizon_years") or 3)


def delivery_term(snapshot: dict, option: dict) -> tuple[str | None, bool]:
    """When the lot must be delivered and ready: dated back from the deadline by the training
    time and the commissioning days, or a blank."""
    deadline = deadline_day(snapshot)
    if deadline is None:
        return None, False
    hours = float(option["sizing"].get("time_to_train_hours") or 0)
    ready = deadline - timedelta(days=math.ceil(hours / 24) + COMMISSIONING_DAYS)
    today = date.fromisoformat(snapshot["today"])
    if ready <= today:
        return _("as soon as possible: training must finish by %(deadline)s") % {
            "deadline": deadline.isoformat()
        }, True
    return _(
        "ready for use by %(ready)s (training of about %(hours)s h must finish by %(deadline)s)"
    ) % {
        "ready": ready.isoformat(),
        "hours": plain_number(round(hours, 1)),
        "deadline": deadline.isoformat(),
    }, True


def region_text(option: dict) -> str | None:
    """Where the chosen site is, as a region (never a data center's or provider's name)."""
    center = option.get("data_center") or {}
    zone = option.get("zone") or {}
    city = local_name(center, "city") if center.get("city") else ""
    province = local_name(zone) if zone else ""
    if city and province:
        return _("%(city)s, %(province)s") % {"city": city, "province": province}
    return city or province or None


def lot_preface(snapshot: dict, option: dict, kind: str, place: str | None) -> list[PrefaceRow]:
    budget = lot_budget(option, kind)
    term, known = delivery_term(snapshot, option)
    rows = [
        (
            _("Budget of this lot") if kind != READINESS else _("Internal running cost"),
            _("%(amount)s (the approved brief's cost lines of this lot)")
            % {"amount": cny(budget, 2)}
            if budget is not None
            else None,
        ),
        (_("Delivery term"), term if known else None),
        (_("Place"), place),
    ]
    if kind in (GOODS, HOSTING, RENT, CLOUD):
        rows.append((_("Contract period"), contract_period(snapshot, option, kind)))
    return [PrefaceRow(name, value or blank(), value is not None) for name, value in rows]


def contract_period(snapshot: dict, option: dict, kind: str) -> str | None:
    if kind == GOODS:
        return _("delivery, then a warranty of %(years)s years from acceptance") % {
            "years": horizon_years(snapshot)
        }
    if kind == HOSTING:
        months = _cost_quantity(option, "colocation")
        return _("%(months)s rack-month(s)") % {"months": months} if months else None
    if kind == RENT:
        months = _cost_quantity(option, "rent")
        return _("%(months)s server-month(s)") % {"months": months} if months else None
    hours = _cost_quantity(option, "cloud_compute")
    return _("about %(hours)s card-hours") % {"hours": hours} if hours else None


# --- Performance requirements ---------------------------------------------------------------------


def link_class(gbs) -> int | None:
    """The requirement class (GB/s per accelerator, one direction) of a catalog link figure."""
    if not gbs:
        return None
    one_direction = float(gbs) * CATALOG_TO_ONE_DIRECTION
    return next((c for c in LINK_CLASSES_GBS if one_direction >= c), None)


def job_tokens(snapshot: dict) -> float | None:
    training = snapshot["scenario"].get("training") or {}
    tokens, epochs = training.get("dataset_tokens"), training.get("epochs")
    if not tokens or not epochs:
        return None
    return float(tokens) * float(epochs)


def job_words(snapshot: dict) -> str:
    scenario = snapshot["scenario"]
    return _("%(model)s, %(method)s, %(tokens)s tokens in all, sequences of %(seq)s tokens") % {
        "model": scenario["model"]["name"],
        "method": method_label(scenario.get("method"), scenario.get("lora")),
        "tokens": plain_number(job_tokens(snapshot) or 0),
        "seq": plain_number(scenario.get("seq_len")),
    }


def throughput_needed(snapshot: dict, hours) -> int | None:
    tokens = job_tokens(snapshot)
    if not tokens or not hours:
        return None
    return math.ceil(tokens / (float(hours) * 3600))


def compute_lines(snapshot: dict, option: dict) -> list[Line]:
    """The compute the job needs, as training throughput on the stated job: ★ the pace the
    deadline needs (the brief's veto), ▲ the pace the approved plan reckons with."""
    planned = option["sizing"].get("time_to_train_hours")
    lines = []
    deadline_hours = (snapshot.get("procurement") or {}).get("deadline_hours")
    floor = throughput_needed(snapshot, deadline_hours)
    if floor:
        lines.append(
            Line(
                MANDATORY,
                _(
                    "Compute: training throughput on the stated job (%(job)s) of at least "
                    "%(rate)s tokens/s across all accelerators, so that it finishes within "
                    "%(hours)s h, by the deadline."
                )
                % {
                    "job": job_words(snapshot),
                    "rate": plain_number(floor),
                    "hours": plain_number(round(float(deadline_hours))),
                },
                technical_proof(),
                NUMBER,
            )
        )
    target = throughput_needed(snapshot, planned)
    if target:
        lines.append(
            Line(
                IMPORTANT,
                _(
                    "Compute: training throughput on the stated job (%(job)s) of at least "
                    "%(rate)s tokens/s across all accelerators, the job in at most %(hours)s h "
                    "as the approved plan reckons; 16-bit (BF16 or FP16) dense arithmetic."
                )
                % {
                    "job": job_words(snapshot),
                    "rate": plain_number(target),
                    "hours": plain_number(round(float(planned), 1)),
                },
                _(
                    "a measured run of the stated job, or of a published benchmark of the same "
                    "model size and method, with the 16-bit dense peak per accelerator"
                ),
                NUMBER,
            )
        )
    return lines


def hardware_lines(snapshot: dict, option: dict) -> list[Line]:
    sizing = option["sizing"]
    capacity = option["capacity"]
    findings = _findings(option)
    lines = compute_lines(snapshot, option)
    lines += [
        Line(
            MANDATORY,
            _(
                "Memory per accelerator: at least %(needed)s GiB usable to the training job "
                "(the job needs %(needed)s GiB per accelerator in the layout sized)."
            )
            % {"needed": plain_number(math.ceil(sizing["memory_total_gib"] * 10) / 10)},
            technical_proof(),
            NUMBER,
        ),
        Line(
            MANDATORY,
            _("Accelerators: at least %(gpus)s in all, %(per)s in each server or instance.")
            % {"gpus": capacity["gpus"], "per": capacity["gpus_per_instance"]},
            technical_proof(),
            NUMBER,
        ),
    ]
    floor = link_class((capacity.get("interconnect") or {}).get("within_gbs"))
    if floor and capacity["gpus_per_instance"] > 1:
        lines.append(
            Line(
                mark_for(findings.get("HW-INTRANODE-LINK")),
                _(
                    "Interconnect inside a server or instance: every accelerator reaches every "
                    "other directly (all-to-all), at least %(gbs)s GB/s per accelerator in one "
                    "direction, summed over its links (half the bidirectional figure some makers "
                    "publish)."
                )
                % {"gbs": floor},
                technical_proof(),
                NUMBER,
            )
        )
    if sizing.get("host_ram_per_server_gib"):
        lines.append(
            Line(
                IMPORTANT,
                _("Host memory: at least %(gib)s GiB per server or instance.")
                % {"gib": plain_number(math.ceil(sizing["host_ram_per_server_gib"]))},
                technical_proof(),
                NUMBER,
            )
        )
    lines += storage_lines(option, findings)
    lines += network_lines(option, findings)
    lines.append(software_line(snapshot, findings))
    return lines


def mark_for(finding: dict | None) -> str:
    """★ for a veto rule the chosen option does not fail, ▲ otherwise."""
    if not finding:
        return IMPORTANT
    blocker = finding.get("severity") == "blocker" and finding.get("status") != "fail"
    return MANDATORY if blocker else IMPORTANT


def storage_figures(option: dict) -> tuple[float | None, float | None]:
    """Local NVMe capacity (TB) and sequential read (GB/s) per server: the sizing's need, at
    least the buyer's minimum (advisor/domain/delivery/checklist.py)."""
    sizing = option["sizing"]
    needed = sizing.get("local_nvme_recommended_tb")
    if not needed:
        return None, None
    return max(float(needed), SOURCE_MIN_NVME_TB), SOURCE_MIN_READ_GBS


def storage_lines(option: dict, findings: dict) -> list[Line]:
    capacity_tb, read_gbs = storage_figures(option)
    if option.get("mode") == "cloud" or not capacity_tb:
        return []
    return [
        Line(
            mark_for(findings.get("HW-NVME-CAPACITY")),
            _("Local NVMe storage: at least %(tb)s TB usable per server.")
            % {"tb": plain_number(capacity_tb)},
            technical_proof(),
            NUMBER,
        ),
        Line(
            mark_for(findings.get("HW-NVME-READ")),
            _("Local NVMe sequential read: at least %(gbs)s GB/s per server.")
            % {"gbs": plain_number(read_gbs)},
            technical_proof(),
            NUMBER,
        ),
    ]


def network_lines(option: dict, findings: dict) -> list[Line]:
    if (option["capacity"].get("instances") or 1) <= 1:
        return [Line("", _("One server or instance: no network between servers is required."))]
    gbps = option["sizing"].get("network_gbps_per_server")
    if not gbps:
        between = (option["capacity"].get("interconnect") or {}).get("between") or {}
        gbps = (between.get("gbps") or 0) * (between.get("count") or 0) or None
    return [
        Line(
            mark_for(findings.get("HW-INTERNODE-NIC")) if gbps else IMPORTANT,
            _(
                "Network between servers: RDMA (RoCE or InfiniBand), at least %(gbps)s Gb/s "
                "per server, non-blocking between the servers of the job."
            )
            % {"gbps": plain_number(gbps) if gbps else blank()},
            technical_proof(),
            NUMBER if gbps else "",
        )
    ]


def software_line(snapshot: dict, findings: dict) -> Line:
    buyer = (snapshot.get("procurement") or {}).get("buyer") or {}
    framework = " ".join(
        str(x) for x in (buyer.get("framework"), buyer.get("framework_version")) if x
    )
    return Line(
        mark_for(findings.get("HW-SOFTWARE-STACK")),
        _(
            "Software (required): the buyer's training framework (%(framework)s) runs on the "
            "accelerators offered, with the maker's driver and collective-communication "
            "library in versions the maker supports for it; the versions are named in the "
            "offer and installed identically on every server."
        )
        % {"framework": framework or _("PyTorch 2.x, unless the buyer states another")},
        _("the maker's published compatibility table for those versions"),
        YES_NO,
    )


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
            _(
                "Power and cooling per rack (%(servers)s server(s) a rack): at least %(kw)s kW "
                "of power and %(btu)s BTU/h of heat removal at full load."
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


# --- Commercial terms -----------------------------------------------------------------------------


def goods_terms(snapshot: dict, option: dict) -> list[Line]:
    return [
        Line(
            IMPORTANT,
            _(
                "Delivery and installation: delivered to the place of delivery, racked, cabled, "
                "installed and commissioned by the supplier: required."
            ),
            commitment(),
            YES_NO,
        ),
        Line(
            IMPORTANT,
            _("Warranty: at least %(years)s years on site from acceptance, parts and labour.")
            % {"years": horizon_years(snapshot)},
            commitment(),
            NUMBER,
        ),
        Line(
            IMPORTANT,
            _(
                "After-sales service: a service line open 7×24; response to a fault within "
                "%(hours)s h; an engineer on site when a remote repair fails."
            )
            % {"hours": FAULT_RESPONSE_H},
            commitment(),
            NUMBER,
        ),
        Line(
            IMPORTANT,
            _(
                "Spare parts: failed accelerators, power supplies, fans and disks replaced "
                "within %(hours)s h during the warranty; failed disks stay with the buyer."
            )
            % {"hours": SPARE_PARTS_H},
            commitment(),
            NUMBER,
        ),
        Line(
            "",
            _(
                "Payment: after the acceptance tests pass; the split between advance, payment "
                "on acceptance and retention until the warranty ends: %(blank)s."
            )
            % {"blank": blank()},
        ),
        Line(
            "",
            _(
                "Training: the supplier trains the buyer's operators in installation, "
                "monitoring, fault diagnosis and replacing parts (persons and days: %(blank)s)."
            )
            % {"blank": blank()},
        ),
    ]


def hosting_terms() -> list[Line]:
    return [
        Line(
            IMPORTANT,
            _(
                "Billing: racks per rack-month and electricity metered per kWh, at prices "
                "stated in the offer and fixed for the contract period."
            ),
            commitment(),
            YES_NO,
        ),
        Line(
            IMPORTANT,
            _(
                "Access and remote hands: the buyer's staff and the goods supplier may enter and "
                "work at the racks; remote hands on request 7×24: required."
            ),
            commitment(),
            YES_NO,
        ),
        Line(
            IMPORTANT,
            _(
                "Exit: at the end of the term the buyer removes its servers; the data center "
                "keeps no data of the buyer: required."
            ),
            commitment(),
            YES_NO,
        ),
        Line(
            "",
            _("Payment: monthly or quarterly in arrears: %(blank)s.") % {"blank": blank()},
        ),
    ]


def rent_terms(snapshot: dict) -> list[Line]:
    assumptions = (snapshot.get("procurement") or {}).get("assumptions") or {}
    return [
        Line(
            IMPORTANT,
            _(
                "Billing: per server-month, hosting, power and network included; a minimum term "
                "of no more than %(months)s month(s)."
            )
            % {"months": plain_number(assumptions.get("rent_min_months") or 1)},
            commitment(),
            NUMBER,
        ),
        Line(
            IMPORTANT,
            _(
                "Repairs: response to a fault within %(response)s h; failed parts replaced "
                "within %(hours)s h, or the server replaced."
            )
            % {"response": FAULT_RESPONSE_H, "hours": SPARE_PARTS_H},
            commitment(),
            NUMBER,
        ),
        Line(
            IMPORTANT,
            _(
                "Exit: at the end of the term the disks are erased and the erasure confirmed in "
                "writing: required."
            ),
            commitment(),
            YES_NO,
        ),
        Line(
            "",
            _("Payment: monthly in advance or in arrears: %(blank)s.") % {"blank": blank()},
        ),
    ]


def cloud_terms(option: dict) -> list[Line]:
    hours = _cost_quantity(option, "cloud_compute")
    return [
        Line(
            IMPORTANT,
            _(
                "Billing: per card-hour or finer, at a price fixed for the contract period; the "
                "job needs about %(hours)s card-hours; no commitment beyond the buyer's order."
            )
            % {"hours": hours or blank()},
            commitment(),
            NUMBER if hours else "",
        ),
        Line(
            IMPORTANT,
            _(
                "Exit: the buyer can export its data and checkpoints at any time; on termination "
                "every copy is deleted and the deletion confirmed in writing: required."
            ),
            commitment(),
            YES_NO,
        ),
        Line(
            "",
            _("Payment: prepaid or monthly in arrears: %(blank)s.") % {"blank": blank()},
        ),
    ]


# --- Acceptance -----------------------------------------------------------------------------------


def bus_floor(option: dict) -> int | None:
    """All-reduce bus bandwidth to accept inside a server: a share of the interconnect
    requirement (never one product's own figure)."""
    floor = link_class((option["capacity"].get("interconnect") or {}).get("within_gbs"))
    return round(floor * ACCEPTABLE_BUS_FRACTION) if floor else None


def throughput_acceptance(snapshot: dict, option: dict) -> Line:
    target = throughput_needed(snapshot, option["sizing"].get("time_to_train_hours"))
    return Line(
        "",
        titled(
            _("The training job"),
            _(
                "the stated job runs for at least one hour (or to its end) with the offered "
                "software; its throughput across all accelerators is at least what the offer "
                "states and at least %(rate)s tokens/s."
            )
            % {"rate": plain_number(target) if target else blank()},
        ),
    )


def server_acceptance(snapshot: dict, option: dict) -> list[Line]:
    capacity = option["capacity"]
    sizing = option["sizing"]
    lines = [
        Line(
            "",
            titled(
                _("Configuration"),
                _(
                    "the accelerators, memory per accelerator (at least %(gib)s GiB usable, as "
                    "the maker's monitoring tool reports it), host memory and disks of every "
                    "server are those of the offer."
                )
                % {"gib": plain_number(math.ceil(sizing["memory_total_gib"] * 10) / 10)},
            ),
        ),
        Line(
            "",
            titled(
                _("Burn-in"),
                _(
                    "every accelerator of every server at full load for at least %(minutes)s "
                    "minutes without a memory (ECC) error or device error; clocks stay at or "
                    "above the maker's base clock and temperatures level off."
                )
                % {"minutes": BURN_IN_MIN},
            ),
        ),
    ]
    accept = bus_floor(option)
    if accept and capacity["gpus_per_instance"] > 1:
        lines.append(
            Line(
                "",
                titled(
                    _("Communication inside a server"),
                    _(
                        "all-reduce across all %(per)s accelerators of each server reaches a "
                        "bus bandwidth of at least %(accept)s GB/s at large messages (%(share)s "
                        "of the interconnect requirement)."
                    )
                    % {
                        "per": capacity["gpus_per_instance"],
                        "accept": plain_number(accept),
                        "share": f"{ACCEPTABLE_BUS_FRACTION:.0%}",
                    },
                ),
            )
        )
    gbps = sizing.get("network_gbps_per_server")
    if (capacity.get("instances") or 1) > 1 and gbps:
        lines.append(
            Line(
                "",
                titled(
                    _("Communication between servers"),
                    _(
                        "all-reduce across all %(gpus)s accelerators of the job reaches a bus "
                        "bandwidth of at least %(accept)s GB/s (%(share)s of the network "
                        "requirement per server)."
                    )
                    % {
                        "gpus": capacity["gpus"],
                        "accept": plain_number(round(float(gbps) / 8 * ACCEPTABLE_BUS_FRACTION)),
                        "share": f"{ACCEPTABLE_BUS_FRACTION:.0%}",
                    },
                ),
            )
        )
    capacity_tb, read_gbs = storage_figures(option)
    if capacity_tb:
        lines.append(
            Line(
                "",
                titled(
                    _("Local storage"),
                    _(
                        "sequential read of at least %(read)s GB/s per server measured with a "
                        "file-system benchmark, and at least %(tb)s TB usable."
                    )
                    % {"read": plain_number(read_gbs), "tb": plain_number(capacity_tb)},
                ),
            )
        )
    lines.append(throughput_acceptance(snapshot, option))
    return lines


def cloud_acceptance(snapshot: dict, option: dict) -> list[Line]:
    capacity = option["capacity"]
    lines = [
        Line(
            "",
            titled(
                _("The instance ordered"),
                _(
                    "%(per)s accelerators in one instance, each with at least %(gib)s GiB "
                    "usable as the provider's monitoring reports it, in the region named in the "
                    "contract."
                )
                % {
                    "per": capacity["gpus_per_instance"],
                    "gib": plain_number(math.ceil(option["sizing"]["memory_total_gib"] * 10) / 10),
                },
            ),
        )
    ]
    accept = bus_floor(option)
    if accept and capacity["gpus_per_instance"] > 1:
        lines.append(
            Line(
                "",
                titled(
                    _("Communication inside the instance"),
                    _(
                        "all-reduce across all %(per)s accelerators reaches a bus bandwidth of "
                        "at least %(accept)s GB/s at large messages."
                    )
                    % {"per": capacity["gpus_per_instance"], "accept": plain_number(accept)},
                ),
            )
        )
    lines.append(throughput_acceptance(snapshot, option))
    return lines


def hosting_acceptance(option: dict) -> list[Line]:
    lines = power_lines(option, _findings(option))
    load = lines[0].text if lines else ""
    return [
        Line(
            "",
            titled(
                _("Power and cooling under load"),
                _(
                    "during the goods lot's burn-in each rack carries its full load without a "
                    "breaker trip, and the inlet temperature stays within the range required "
                    "above."
                ),
            )
            + (f" ({load})" if load else ""),
        ),
        Line(
            "",
            titled(
                _("Network"),
                _("the contracted bandwidth and addresses are delivered and measured."),
            ),
        ),
    ]


# --- Policy clauses ---------------------------------------------------------------------------------


def policies(kind: str, snapshot: dict, option: dict) -> list[Policy]:
    goods = kind == GOODS
    stores_data = kind in (RENT, CLOUD)
    return [
        Policy(
            _("Supplier conditions (政府采购法 第二十二条)"),
            True,
            _(
                "Every supplier of a lot: able to perform the contract, no major violation of "
                "law in its business in the last three years, not listed as dishonest on "
                "信用中国 or 中国政府采购网 (evidence: its statement and the search records)."
            ),
        ),
        Policy(
            _("Small and medium-sized enterprises (财库〔2020〕46号)"),
            True,
            _(
                "The lot is not reserved; offers of small and micro enterprises get the price "
                "deduction the buyer states (%(blank)s, within the 10–20 percent of 财库〔2022〕19号)."
            )
            % {"blank": blank()},
        ),
        Policy(
            _("Imported products (财库〔2007〕119号)"),
            goods,
            imported_why(snapshot, option) if goods else _("A service, not goods bought."),
        ),
        Policy(
            _("Energy-saving products (财库〔2019〕19号)"),
            False,
            _("Servers are not on the list of energy-saving products.")
            if goods
            else _("A service, not goods bought."),
        ),
        Policy(
            _("Environmental label products (财库〔2019〕18号)"),
            goods,
            _(
                "Servers are on the list (A02010103): offers certified with the environmental "
                "label are preferred."
            )
            if goods
            else _("A service, not goods bought."),
        ),
        Policy(
            _("General-purpose server requirement standard (财库〔2023〕33号)"),
            goods,
            _(
                "The servers are bought as goods in a lot of their own; the standard's "
                "substantive items apply to a government buyer."
            )
            if goods
            else _("Services are tendered apart from the servers, as the standard asks."),
        ),
        Policy(
            _("Data security and personal information (数据安全法, 个人信息保护法)"),
            stores_data,
            _("The supplier stores the training data and checkpoints.")
            if stores_data
            else _("The servers are the buyer's own; the supplier keeps no data of the buyer."),
        ),
    ]


def imported_why(snapshot: dict, option: dict) -> str:
    if (snapshot.get("procurement") or {}).get("domestic_only"):
        return _("The brief weighed domestic accelerators only: imported products are refused.")
    if option.get("domestic"):
        return _(
            "The approved brief chose a domestic accelerator; imported products are accepted "
            "only with the approval the rules require."
        )
    return _(
        "The approved brief chose an imported accelerator: a government buyer obtains the "
        "approval for imported products before tendering; domestic products qualify alike."
    )


# --- Lots ------------------------------------------------------------------------------------------


def lot_kinds(mode: str | None) -> list[str]:
    """The lots a procurement mode needs (财库〔2023〕33号: server goods apart from services)."""
    return {
        "buy": [GOODS, HOSTING],
        "own": [GOODS, READINESS],
        "rent": [RENT],
        "cloud": [CLOUD],
    }.get(mode or "buy", [GOODS, HOSTING])


def lot_title(kind: str, number: int) -> str:
    titles = {
        GOODS: _("Lot %(n)d: servers (goods)"),
        HOSTING: _("Lot %(n)d: hosting of the servers (colocation service)"),
        RENT: _("Lot %(n)d: rented dedicated servers (service)"),
        CLOUD: _("Lot %(n)d: cloud computing service"),
    }
    if kind == READINESS:
        return _("Internal readiness checklist: the buyer's own room (not tendered)")
    return titles[kind] % {"n": number}


def lot_place(kind: str, option: dict) -> str | None:
    region = region_text(option)
    if kind == CLOUD:
        return _("a region in mainland China, named in the offer")
    if kind == GOODS and option.get("mode") == "own":
        return _("the buyer's own room (%(name)s)") % {"name": local_name(option.get("place"))}
    if kind == GOODS:
        return (
            _("the data center of the hosting lot, in %(region)s") % {"region": region}
            if region
            else _("the data center of the hosting lot")
        )
    return region


def readiness_lines(option: dict) -> list[Line]:
    """The own room's checks before the servers arrive: what the room must give them, each with
    what the brief found."""
    findings = _findings(option)
    lines = [Line("", line.text) for line in power_lines(option, findings)]
    for finding in option["compliance"]["findings"]:
        if finding["area"] != "site" or finding.get("severity") == "advice":
            continue
        needs = [requirement_text(group[-1]) for group in threshold_groups(finding)]
        body = _("; ").join(needs) or render_text(finding.get("explanation") or "")
        lines.append(
            Line(
                "",
                _("%(requirement)s. The brief found: %(found)s")
                % {
                    "requirement": titled(finding["title"], body),
                    "found": render_text(finding.get("message") or ""),
                },
            )
        )
    return lines


def lot_sections(kind: str, snapshot: dict, option: dict) -> list[Section]:
    requirements = _("Requirements")
    site = _("Site and service requirements")
    qualifications = _("Supplier qualifications")
    terms = _("Commercial terms")
    if kind == GOODS:
        sections = [
            (requirements, hardware_lines(snapshot, option) + goods_power_lines(option)),
            (terms, goods_terms(snapshot, option)),
        ]
    elif kind == HOSTING:
        sections = [
            (site, site_lines(option)),
            (qualifications, vendor_lines(option)),
            (terms, hosting_terms()),
        ]
    elif kind == RENT:
        sections = [
            (requirements, hardware_lines(snapshot, option)),
            (site, site_lines(option)),
            (qualifications, vendor_lines(option)),
            (terms, rent_terms(snapshot)),
        ]
    elif kind == CLOUD:
        sections = [
            (requirements, hardware_lines(snapshot, option)),
            (qualifications, vendor_lines(option)),
            (terms, cloud_terms(option)),
        ]
    else:
        sections = [(_("Checks of the room before delivery"), readiness_lines(option))]
    return [Section(title, lines) for title, lines in sections if lines]


def lot_acceptance(kind: str, snapshot: dict, option: dict) -> list[Line]:
    if kind in (GOODS, RENT):
        return server_acceptance(snapshot, option)
    if kind == CLOUD:
        return cloud_acceptance(snapshot, option)
    if kind == HOSTING:
        return hosting_acceptance(option)
    return []


def build_lots(snapshot: dict, option: dict) -> list[Lot]:
    lots, number = [], 0
    for kind in lot_kinds(option.get("mode")):
        vendor = kind != READINESS
        number += vendor
        lots.append(
            Lot(
                kind=kind,
                title=lot_title(kind, number),
                vendor=vendor,
                preface=lot_preface(snapshot, option, kind, lot_place(kind, option)),
                sections=lot_sections(kind, snapshot, option),
                acceptance=lot_acceptance(kind, snapshot, option),
                policies=policies(kind, snapshot, option) if vendor else [],
            )
        )
    return lots


def notes() -> list[str]:
    return [
        _(
            "★ marks a substantive item: an offer that does not meet it is rejected; it is used "
            "only where the approved brief treats the requirement as a veto. ▲ marks an "
            "important item, weighed in the evaluation."
        ),
        _(
            "The requirements state performance, not products: any product that meets them "
            "qualifies (通用服务器政府采购需求标准, 财库〔2023〕33号)."
        ),
        _(
            "Each requirement names the evidence the bidder supplies (提供相关技术证明文件); a "
            "requirement without its evidence counts as not met."
        ),
        _(
            "Interconnect figures are GB/s per accelerator in one direction, summed over its "
            "links; an all-reduce's bus bandwidth is compared with them."
        ),
        _(
            "The policy clauses bind a buyer under the Government Procurement Law; an "
            "enterprise buyer may keep them as its own terms or strike them."
        ),
        _("Blanks marked %(blank)s are for the buyer to fill in.") % {"blank": blank()},
    ]


def examples() -> list[str]:
    return [
        _("Any tool that measures the same quantity is accepted; for example:"),
        _(
            "NVIDIA (CUDA): nvidia-smi for the configuration and temperatures, DCGM diagnostics "
            "or gpu-burn for the burn-in, nccl-tests all_reduce_perf for the bus bandwidth."
        ),
        _(
            "AMD (ROCm): amd-smi, the ROCm Validation Suite for the burn-in, rccl-tests "
            "all_reduce_perf for the bus bandwidth."
        ),
        _(
            "Huawei Ascend (CANN): npu-smi, the Ascend DMI stress test for the burn-in, "
            "hccl_test for the bus bandwidth."
        ),
        _("Any family: fio for local storage; the buyer's own training script for the job."),
    ]


def specification(snapshot: dict, number: str = "") -> Specification:
    """The procurement requirements of the snapshot's chosen option, lot by lot, in the active
    language."""
    option = snapshot["options"][0]
    lots = build_lots(snapshot, option)
    return Specification(
        title=_("Technical specification: computing capacity for fine-tuning"),
        number=number,
        day=date.fromisoformat(snapshot["today"]),
        language=get_language() or "en",
        preface=preface(snapshot, option, lots),
        lots=lots,
        notes=notes(),
        examples_title=_("Examples per accelerator family"),
        examples=examples(),
    )


# --- DOCX ----------------------------------------------------------------------------------------------


def _east_asian_font(style) -> None:
    from docx.oxml.ns import qn  # on first use, as the PDF libraries (decision 0046)

    fonts = style.element.get_or_add_rPr().get_or_add_rFonts()
    fonts.set(qn("w:eastAsia"), FONT_EAST_ASIA)


def _field(paragraph, instruction: str) -> None:
    """A Word field (PAGE, NUMPAGES) in ``paragraph``."""
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    simple = OxmlElement("w:fldSimple")
    simple.set(qn("w:instr"), instruction)
    run = OxmlElement("w:r")
    text = OxmlElement("w:t")
    text.text = "1"
    run.append(text)
    simple.append(run)
    paragraph._p.append(simple)


def _page_setup(document, spec: Specification) -> None:
    """A4 portrait, the brief's margins; the title and number in the header, page X / Y in the
    footer."""
    from docx.enum.text import WD_ALIGN_PARAGRAPH
    from docx.shared import Mm, Pt

    section = document.sections[0]
    section.page_width, section.page_height = Mm(210), Mm(297)
    section.top_margin = section.bottom_margin = Mm(20)
    section.left_margin = section.right_margin = Mm(18)
    header = section.header.paragraphs[0]
    header.text = f"{spec.title} {spec.number}".strip()
    header.alignment = WD_ALIGN_PARAGRAPH.RIGHT
    for run in header.runs:
        run.font.size = Pt(8)
    footer = section.footer.paragraphs[0]
    footer.alignment = WD_ALIGN_PARAGRAPH.CENTER
    _field(footer, "PAGE")
    footer.add_run(" / ")
    _field(footer, "NUMPAGES")


def _table(document, rows: list[tuple], header: tuple | None = None):
    from docx.enum.table import WD_TABLE_ALIGNMENT

    table = document.add_table(rows=0, cols=len(rows[0] if rows else header))
    table.style = "Table Grid"
    table.alignment = WD_TABLE_ALIGNMENT.CENTER
    for index, values in enumerate(([header] if header else []) + rows):
        cells = table.add_row().cells
        for cell, value in zip(cells, values, strict=True):
            cell.text = str(value)
            if header and index == 0:
                for run in cell.paragraphs[0].runs:
                    run.font.bold = True
    return table


def requirement_rows(lines: list[Line]) -> list[tuple]:
    return [(str(n), line.mark, line.text, line.evidence) for n, line in enumerate(lines, 1)]


def requirement_header() -> tuple:
    return (_("No."), _("Mark"), _("Requirement"), _("Evidence to supply"))


def policy_header() -> tuple:
    return (_("Policy clause"), _("Applies to this lot"), _("Why"))


def docx_bytes(spec: Specification) -> bytes:
    """The specification as an A4 Word document; the same content gives the same bytes."""
    # python-docx on first use (~80 ms of imports every command would pay; decision 0046).
    from docx import Document
    from docx.shared import Pt

    document = Document()
    for name in ("Normal", "Title", "Heading 1", "Heading 2", "Heading 3"):
        _east_asian_font(document.styles[name])
    document.styles["Normal"].font.size = Pt(10.5)
    properties = document.core_properties
    properties.title = spec.title
    properties.identifier = spec.number
    properties.language = spec.language
    properties.author = properties.last_modified_by = ""
    properties.created = properties.modified = document_moment(spec.day)
    properties.revision = 1
    _page_setup(document, spec)
    document.add_heading(spec.title, level=0)
    if spec.number:
        document.add_paragraph(spec.number)
    document.add_heading(_("Preface table"), level=1)
    _table(document, [(row.label, row.value) for row in spec.preface])
    for lot in spec.lots:
        document.add_heading(lot.title, level=1)
        _table(document, [(row.label, row.value) for row in lot.preface])
        for section in lot.sections:
            document.add_heading(section.title, level=2)
            _table(document, requirement_rows(section.lines), requirement_header())
        if lot.acceptance:
            document.add_heading(_("Acceptance tests"), level=2)
            for index, line in enumerate(lot.acceptance, start=1):
                document.add_paragraph(f"{index}. {line.text}")
        if lot.policies:
            document.add_heading(_("Policy clauses"), level=2)
            rows = [(p.title, p.verdict, p.why) for p in lot.policies]
            _table(document, rows, policy_header())
    document.add_heading(_("Notes"), level=1)
    for note in spec.notes:
        document.add_paragraph(note)
    document.add_heading(spec.examples_title, level=1)
    for example in spec.examples:
        document.add_paragraph(example)
    buffer = io.BytesIO()
    document.save(buffer)
    return stable_zip(buffer.getvalue(), spec.day)


# --- PDF -------------------------------------------------------------------------------------------------


def pdf_bytes(spec: Specification) -> bytes:
    """The specification as PDF (WeasyPrint, the brief's fonts; nothing fetched)."""
    html = render_to_string(
        "brief/specification.html",
        {
            "spec": spec,
            "requirement_header": requirement_header(),
            "policy_header": policy_header(),
        },
    )
    return write_pdf_checked(html)
