"""The technical specification (技术规格书 / 采购需求) of a brief's chosen option.

Built from the brief's snapshot only (the chosen option is ``options[0]``), in the active
language, as the content a tender or enquiry carries: a preface table (前附表), the scope and
quantity, performance-based requirements derived from the sizing, site and service requirements
and vendor qualifications from the compliance rules, and acceptance tests from the delivery
checklist. Each requirement line is marked mandatory (★, a pass/fail item: the rule is a
blocker, or the job does not run without it) or important (▲), as 通用服务器政府采购需求标准
(财库〔2023〕33号) asks, and names no brand or model: figures and classes only.

Written as DOCX (python-docx) and as PDF (the same content through an HTML template and
WeasyPrint, as the brief).
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass, field
from datetime import date, timedelta

from django.template.loader import render_to_string
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from advisor.brief.office import document_moment, stable_zip
from advisor.domain.compliance.base import shown
from advisor.presentation.labels import MODE_LABELS, label, method_label
from advisor.presentation.numbers import cny, plain_number
from advisor.presentation.pdf import write_pdf_checked
from advisor.presentation.text import render_text

MANDATORY = "★"
IMPORTANT = "▲"
# The inside-the-server link classes a requirement names (GB/s per accelerator, one direction
# summed as the catalog records it): the highest class the chosen option reaches, so that any
# product of that class qualifies.
LINK_CLASSES_GBS = (400, 200, 100, 64)
SYMBOLS = {">=": "≥", "<=": "≤", ">": ">", "<": "<", "==": "="}
# Rules whose figure the performance section states itself (from the sizing).
SIZED_RULES = {"HW-INTRANODE-LINK", "HW-INTERNODE-NIC", "HW-NVME-CAPACITY", "HW-NVME-READ"}
# What the catalog records about itself, not a requirement on what is bought.
NOT_REQUIREMENTS = {"HW-AVAILABILITY"}
FONT_EAST_ASIA = "Noto Sans CJK SC"


@dataclass(frozen=True)
class Line:
    mark: str  # MANDATORY, IMPORTANT or "" (information)
    text: str


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
class Specification:
    title: str
    number: str
    day: date
    language: str
    preface: list[PrefaceRow]
    sections: list[Section]
    acceptance: list[Line]
    acceptance_title: str
    notes: list[str] = field(default_factory=list)

    def requirement_lines(self) -> list[Line]:
        return [line for section in self.sections for line in section.lines]


def mark_for(severity: str | None) -> str:
    return MANDATORY if severity == "blocker" else IMPORTANT


def _findings(option: dict) -> dict[str, dict]:
    return {f["rule_id"]: f for f in option["compliance"]["findings"]}


def blank() -> str:
    return _("[to be filled in]")


# --- Preface and scope ---------------------------------------------------------------------------


def _deadline(snapshot: dict) -> date | None:
    hours = (snapshot.get("procurement") or {}).get("deadline_hours")
    if not hours:
        return None
    # Hours from the start of the snapshot's day to the end of the deadline day
    # (advisor/domain/recommend/procurement.deadline_hours).
    days = math.floor(float(hours) / 24) - 1
    return date.fromisoformat(snapshot["today"]) + timedelta(days=days)


def preface(snapshot: dict, option: dict) -> list[PrefaceRow]:
    scenario = snapshot["scenario"]
    project = _("Computing capacity to fine-tune %(model)s (%(method)s)") % {
        "model": scenario["model"]["name"],
        "method": method_label(scenario.get("method"), scenario.get("lora")),
    }
    budget = (snapshot.get("procurement") or {}).get("budget_cny")
    deadline = _deadline(snapshot)
    rows = [
        (_("Project"), project),
        (_("Procurement mode"), label(MODE_LABELS, option.get("mode"))),
        (_("Quantity"), quantity_text(option)),
        (_("Budget"), cny(budget) if budget else None),
        (_("Requesting department"), None),
        (_("Accepting department"), None),
        (
            _("Delivery"),
            _("in time to finish training by %(day)s") % {"day": deadline.isoformat()}
            if deadline
            else None,
        ),
        (_("Place of delivery"), None),
        (_("Warranty and service period"), None),
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


def _cost_quantity(option: dict, item: str) -> str | None:
    cost = (option.get("economics") or {}).get("cost") or {}
    line = next((x for x in cost.get("lines") or () if x["item"] == item), None)
    return plain_number(line["quantity"]) if line else None


def scope(option: dict) -> Section:
    mode = option.get("mode")
    sizing = option["sizing"]
    lines = [Line(MANDATORY, _("Quantity: %(quantity)s.") % {"quantity": quantity_text(option)})]
    if mode == "cloud":
        hours = _cost_quantity(option, "cloud_compute")
        lines.append(
            Line(
                IMPORTANT,
                _(
                    "Billed by the card-hour; the job needs about %(hours)s card-hours "
                    "(%(run)s h of training on every accelerator)."
                )
                % {"hours": hours or blank(), "run": plain_number(sizing["time_to_train_hours"])},
            )
        )
    elif mode == "rent":
        months = _cost_quantity(option, "rent")
        lines.append(
            Line(
                IMPORTANT,
                _(
                    "Dedicated servers rented for %(months)s server-months, hosting, power and "
                    "network included."
                )
                % {"months": months or blank()},
            )
        )
    elif mode == "own":
        lines.append(
            Line(IMPORTANT, _("Delivered, installed and commissioned in the buyer's own room."))
        )
    else:
        lines.append(
            Line(
                IMPORTANT,
                _(
                    "Delivered, installed and commissioned, and hosted in a data center that "
                    "meets the site and service requirements below."
                ),
            )
        )
    return Section(_("Scope and quantity"), lines)


# --- Performance requirements ---------------------------------------------------------------------


def link_class(gbs) -> int | None:
    if not gbs:
        return None
    return next((c for c in LINK_CLASSES_GBS if float(gbs) >= c), None)


def performance(option: dict) -> Section:
    sizing = option["sizing"]
    capacity = option["capacity"]
    findings = _findings(option)
    lines = [
        Line(
            MANDATORY,
            _(
                "Memory per accelerator: at least %(needed)s GiB usable to the training job "
                "(the job needs %(needed)s GiB per accelerator in the layout sized)."
            )
            % {"needed": plain_number(math.ceil(sizing["memory_total_gib"] * 10) / 10)},
        ),
        Line(
            MANDATORY,
            _("Accelerators: at least %(gpus)s in all, %(per)s in each server or instance.")
            % {"gpus": capacity["gpus"], "per": capacity["gpus_per_instance"]},
        ),
    ]
    within = (capacity.get("interconnect") or {}).get("within_gbs")
    floor = link_class(within)
    if floor and capacity["gpus_per_instance"] > 1:
        lines.append(
            Line(
                mark_for((findings.get("HW-INTRANODE-LINK") or {}).get("severity")),
                _(
                    "Interconnect inside a server or instance: every accelerator reaches every "
                    "other directly (all-to-all), at least %(gbs)s GB/s per accelerator."
                )
                % {"gbs": floor},
            )
        )
    if sizing.get("host_ram_per_server_gib"):
        lines.append(
            Line(
                IMPORTANT,
                _("Host memory: at least %(gib)s GiB per server or instance.")
                % {"gib": plain_number(math.ceil(sizing["host_ram_per_server_gib"]))},
            )
        )
    lines += storage_lines(option, findings)
    lines += network_lines(option, findings)
    lines += power_lines(option, findings)
    lines += [
        line
        for rule_id, finding in findings.items()
        if finding["area"] == "hardware"
        and rule_id not in SIZED_RULES | NOT_REQUIREMENTS
        and (line := rule_line(finding)) is not None
    ]
    return Section(_("Performance requirements"), lines)


def storage_lines(option: dict, findings: dict) -> list[Line]:
    delivery = option.get("delivery") or {}
    nvme = next((a for a in delivery.get("acceptance") or () if a["item"] == "A4"), None)
    params = (nvme or {}).get("check", {}).get("params") or {}
    capacity_tb = params.get("capacity") or option["sizing"].get("local_nvme_recommended_tb")
    read_gbs = params.get("read")
    if not capacity_tb:
        return []
    lines = [
        Line(
            mark_for((findings.get("HW-NVME-CAPACITY") or {}).get("severity")),
            _("Local NVMe storage: at least %(tb)s TB usable per server or instance.")
            % {"tb": plain_number(capacity_tb)},
        )
    ]
    if read_gbs:
        lines.append(
            Line(
                mark_for((findings.get("HW-NVME-READ") or {}).get("severity")),
                _("Local NVMe sequential read: at least %(gbs)s GB/s per server or instance.")
                % {"gbs": plain_number(read_gbs)},
            )
        )
    return lines


def network_lines(option: dict, findings: dict) -> list[Line]:
    sizing = option["sizing"]
    if (option["capacity"].get("instances") or 1) <= 1:
        return [Line("", _("One server or instance: no network between servers is required."))]
    gbps = sizing.get("network_gbps_per_server")
    return [
        Line(
            mark_for((findings.get("HW-INTERNODE-NIC") or {}).get("severity")),
            _(
                "Network between servers: RDMA (RoCE or InfiniBand), at least %(gbps)s Gb/s "
                "per server, non-blocking between the servers of the job."
            )
            % {"gbps": plain_number(gbps) if gbps else blank()},
        )
    ]


def power_lines(option: dict, findings: dict) -> list[Line]:
    if option.get("mode") == "cloud":
        return []
    sizing = option["sizing"]
    servers = option["capacity"].get("instances") or 1
    racks = (option.get("economics") or {}).get("racks") or 1
    per_rack = math.ceil(servers / racks)
    kw = float(sizing.get("power_kw_per_server") or 0) * per_rack
    btu = float(sizing.get("btu_per_hour_per_server") or 0) * per_rack
    if not kw:
        return []
    return [
        Line(
            mark_for((findings.get("SITE-RACK-POWER") or {}).get("severity")),
            _(
                "Power and cooling per rack (%(servers)s server(s) a rack): at least %(kw)s kW "
                "of power and %(btu)s BTU/h of heat removal at full load."
            )
            % {
                "servers": per_rack,
                "kw": plain_number(round(kw, 1)),
                "btu": plain_number(round(btu)),
            },
        )
    ]


# --- Requirements from the compliance rules ---------------------------------------------------------


def _strictest(evidence: list[dict]) -> list[dict]:
    """One requirement per (label, comparison): the strictest threshold of each."""
    kept: dict[tuple, dict] = {}
    for item in evidence:
        threshold = item.get("threshold")
        if threshold is None or not item.get("comparison"):
            continue
        key = (item["label"], item["comparison"])
        earlier = kept.get(key)
        if earlier is None or _stricter(item, earlier):
            kept[key] = item
    return list(kept.values())


def _stricter(item: dict, than: dict) -> bool:
    a, b = item["threshold"], than["threshold"]
    if not all(isinstance(x, int | float) and not isinstance(x, bool) for x in (a, b)):
        return False
    return a > b if item["comparison"] in (">=", ">") else a < b


def requirement_text(item: dict) -> str:
    words = render_text(item["label"])
    threshold = item["threshold"]
    if threshold is True:
        return _("%(label)s: required") % {"label": words}
    value = render_text(shown(threshold, item.get("unit") or "", item.get("words") or ""))
    if item["comparison"] == "in":
        return _("%(label)s: must include %(value)s") % {"label": words, "value": value}
    symbol = SYMBOLS.get(item["comparison"], "=")
    return f"{words} {symbol} {value}"


def rule_line(finding: dict) -> Line | None:
    """A compliance rule as a requirement: its title and its thresholds (the strictest of
    each), or its explanation when it has none; None for advice."""
    if finding.get("severity") == "advice":
        return None
    parts = [requirement_text(item) for item in _strictest(finding.get("evidence") or [])]
    body = _("; ").join(parts) if parts else render_text(finding.get("explanation") or "")
    return Line(mark_for(finding.get("severity")), titled(finding["title"], body))


def titled(title, body: str) -> str:
    """``Title: body`` in the reader's language (a full-width colon in Chinese)."""
    if not body:
        return render_text(title)
    return _("%(title)s: %(body)s") % {"title": render_text(title), "body": body}


def rule_section(option: dict, title: str, areas: set[str] | None, exclude: set[str]) -> Section:
    lines = [
        line
        for finding in option["compliance"]["findings"]
        if (finding["area"] in areas if areas else finding["area"] not in exclude)
        and finding["rule_id"] not in NOT_REQUIREMENTS
        and (line := rule_line(finding)) is not None
    ]
    return Section(title, lines)


def acceptance(option: dict) -> list[Line]:
    """The delivery checklist's acceptance tests, the chosen product's names replaced by what
    the specification requires."""
    items = (option.get("delivery") or {}).get("acceptance") or ()
    return [
        Line("", titled(item["title"], render_text(without_names(item["check"], option))))
        for item in items
    ]


def product_names(option: dict) -> set[str]:
    names = set()
    for part in ("accelerator", "server"):
        record = option.get(part) or {}
        names |= {record.get(k) for k in ("name", "name_zh", "key") if record.get(k)}
    return names


def without_names(check: dict, option: dict) -> dict:
    """A check whose parameters that name the chosen accelerator or server name the
    accelerators of the specification instead."""
    names = product_names(option)
    generic = _("the accelerators specified above")
    params = {
        key: generic if isinstance(value, str) and value in names else value
        for key, value in (check.get("params") or {}).items()
    }
    return {**check, "params": params}


def specification(snapshot: dict, number: str = "") -> Specification:
    """The specification of the snapshot's chosen option, in the active language."""
    option = snapshot["options"][0]
    sections = [
        scope(option),
        performance(option),
        rule_section(option, _("Site and service requirements"), None, {"hardware", "vendor"}),
        rule_section(option, _("Vendor qualifications"), {"vendor"}, set()),
    ]
    sections = [s for s in sections if s.lines]
    numbered = [
        Section(_("%(n)d. %(title)s") % {"n": n, "title": s.title}, s.lines)
        for n, s in enumerate(sections, start=1)
    ]
    return Specification(
        title=_("Technical specification: computing capacity for fine-tuning"),
        number=number,
        day=date.fromisoformat(snapshot["today"]),
        language=get_language() or "en",
        preface=preface(snapshot, option),
        sections=numbered,
        acceptance_title=_("%(n)d. %(title)s")
        % {"n": len(sections) + 1, "title": _("Acceptance tests")},
        acceptance=acceptance(option),
        notes=[
            _(
                "★ marks a mandatory item: an offer that does not meet it is rejected. ▲ marks "
                "an important item, weighed in the evaluation."
            ),
            _(
                "The requirements state performance, not products: any product that meets "
                "them qualifies (通用服务器政府采购需求标准, 财库〔2023〕33号)."
            ),
            _("Blanks marked %(blank)s are for the buyer to fill in.") % {"blank": blank()},
        ],
    )


# --- DOCX ----------------------------------------------------------------------------------------------


def _east_asian_font(style) -> None:
    from docx.oxml.ns import qn  # on first use, as the PDF libraries (decision 0046)

    fonts = style.element.get_or_add_rPr().get_or_add_rFonts()
    fonts.set(qn("w:eastAsia"), FONT_EAST_ASIA)


def docx_bytes(spec: Specification) -> bytes:
    """The specification as a Word document; the same content gives the same bytes."""
    # python-docx on first use (~80 ms of imports every command would pay; decision 0046).
    from docx import Document
    from docx.enum.table import WD_TABLE_ALIGNMENT
    from docx.shared import Pt

    document = Document()
    for name in ("Normal", "Title", "Heading 1", "Heading 2"):
        _east_asian_font(document.styles[name])
    document.styles["Normal"].font.size = Pt(10.5)
    document.core_properties.title = spec.title
    document.core_properties.identifier = spec.number
    document.core_properties.language = spec.language
    document.core_properties.author = ""
    document.core_properties.created = document_moment(spec.day)
    document.core_properties.modified = document_moment(spec.day)
    document.core_properties.last_modified_by = ""
    document.core_properties.revision = 1
    document.add_heading(spec.title, level=0)
    if spec.number:
        document.add_paragraph(spec.number)
    document.add_heading(_("Preface table"), level=1)
    table = document.add_table(rows=0, cols=2)
    table.style = "Table Grid"
    table.alignment = WD_TABLE_ALIGNMENT.CENTER
    for row in spec.preface:
        cells = table.add_row().cells
        cells[0].text = row.label
        cells[1].text = row.value
    for section in spec.sections:
        document.add_heading(section.title, level=1)
        for line in section.lines:
            document.add_paragraph(f"{line.mark} {line.text}".strip())
    document.add_heading(spec.acceptance_title, level=1)
    for index, line in enumerate(spec.acceptance, start=1):
        document.add_paragraph(f"{index}. {line.text}")
    document.add_heading(_("Notes"), level=1)
    for note in spec.notes:
        document.add_paragraph(note)
    buffer = io.BytesIO()
    document.save(buffer)
    return stable_zip(buffer.getvalue(), spec.day)


# --- PDF -------------------------------------------------------------------------------------------------


def pdf_bytes(spec: Specification) -> bytes:
    """The specification as PDF (WeasyPrint, the brief's fonts; nothing fetched)."""
    html = render_to_string("brief/specification.html", {"spec": spec})
    return write_pdf_checked(html)
