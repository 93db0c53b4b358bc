"""Render a brief snapshot to HTML and to a PDF/A-3b with WeasyPrint.

The PDF embeds the snapshot as ``brief.json`` (PDF/A-3 allows associated files), carries the
brief number in its title and keywords (so a stripped or altered copy can still be traced),
and shows "Draft — not approved" on every page until an approver has approved it.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import threading
import unicodedata
from dataclasses import dataclass, replace
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

import qrcode
import qrcode.image.svg
from django.core.exceptions import FieldDoesNotExist
from django.template.loader import render_to_string
from django.utils import formats, translation
from django.utils.safestring import mark_safe
from django.utils.translation import gettext, gettext_lazy

from advisor.domain.economics.money import format_cny
from advisor.domain.i18n import ZH_SUFFIX
from advisor.domain.recommend import OWN_ROOM_KEY
from advisor.presentation.charts import (
    Segment,
    Series,
    bar_chart,
    line_chart,
    memory_segments,
    stacked_bar,
)
from advisor.presentation.labels import (
    FRAMEWORK_LABELS,
    MEMORY_COMPONENT_LABELS,
    MODE_LABELS,
    PACKING_LABELS,
    USAGE_LABELS,
    label,
)
from advisor.presentation.labels import requirement as rule_words
from advisor.presentation.pdf import no_fetching, write_pdf_checked
from advisor.presentation.text import local_name
from advisor.text import isolate
from vendors import choices as catalog_choices
from vendors import models as catalog_models

# The catalog models behind Appendix B's records, by the kind their frozen record names.
CATALOG_MODELS = {
    "accelerator": catalog_models.Accelerator,
    "server": catalog_models.ServerModel,
    "data-center": catalog_models.DataCenter,
    "hosting-vendor": catalog_models.HostingVendor,
    "policy-zone": catalog_models.PolicyZone,
    "offer": catalog_models.Offer,
}


# Brief Sans: Noto Sans CJK SC cut down to the characters the product prints, built by
# scripts/build_brief_fonts.py. The full Noto Sans CJK SC follows it in the font list, so a
# character outside it (a name someone typed) still prints (docs/decisions/0066).
FONTS_DIR = Path(__file__).resolve().parent / "fonts"
BRIEF_FONTS = {400: FONTS_DIR / "BriefSans-Regular.otf", 700: FONTS_DIR / "BriefSans-Bold.otf"}


def font_faces_css() -> str:
    """The ``@font-face`` rules that load Brief Sans from its files."""
    return "\n".join(
        f'@font-face {{ font-family: "Brief Sans"; font-weight: {weight}; '
        f'src: url("{path.as_uri()}"); }}'
        for weight, path in BRIEF_FONTS.items()
    )


def brief_fetcher():
    """The brief's ``url_fetcher``: nothing is fetched but Brief Sans's files."""
    return no_fetching(BRIEF_FONTS.values())


_fonts = threading.local()


def brief_font_config():
    """WeasyPrint's font configuration for briefs, one per thread and kept: Brief Sans is
    registered with fontconfig once, and Pango keeps the fonts it opened for the next brief
    (a new one per brief opened and measured them again). Pango's font maps are not shared
    between threads."""
    config = getattr(_fonts, "config", None)
    if config is None:
        from weasyprint.text.fonts import FontConfiguration  # on first use (decision 0037)

        config = _fonts.config = FontConfiguration()
    return config


@dataclass(frozen=True)
class BriefMeta:
    number: str
    language: str
    status: str
    status_label: str
    approved: bool
    prepared_by: str
    prepared_at: datetime
    approved_by: str | None
    approved_at: datetime | None
    verify_url: str
    organisation: str
    approval_comment: str = ""
    vetoes_acknowledged: bool = False
    approver_signed: bool = False  # the approver's own signature is added after rendering
    signature_level: str = ""  # the PAdES level the signatures are made at (decision 0117)


def snapshot_fingerprint(snapshot: dict) -> str:
    """SHA-256 of the snapshot in canonical JSON: the content the signature vouches for."""
    canonical = json.dumps(snapshot, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def qr_svg(url: str) -> str:
    image = qrcode.make(url, image_factory=qrcode.image.svg.SvgPathImage, box_size=6, border=2)
    return image.to_string(encoding="unicode")


def _memory_chart(option: dict) -> str:
    sizing = option["sizing"]
    segments = memory_segments(sizing["memory_per_gpu_gib"])
    title = gettext("Memory per GPU: %(server)s") % {"server": local_name(option["server"])}
    return stacked_bar(
        segments,
        sizing["capacity_gib"],
        title=title,
        unit="GiB",
        capacity_label=gettext("usable"),
    )


def _option_label(option: dict) -> str:
    place = option.get("place") or option.get("data_center")
    return f"{local_name(option['server'])} · {local_name(place)}"


def _time_chart(options: list[dict]) -> str | None:
    bars = [
        Segment(_option_label(o), o["sizing"]["time_to_train_hours"])
        for o in options
        if o["sizing"].get("time_to_train_hours") is not None
    ]
    if not bars:
        return None
    return bar_chart(bars, title=gettext("Time to train"), unit=gettext("h"))


def _power_chart(options: list[dict]) -> str | None:
    bars = [
        Segment(_option_label(o), o["sizing"]["power_kw_per_server"] * o["sizing"]["servers"])
        for o in options
        if o["sizing"].get("power_kw_per_server") is not None
    ]
    if not bars:
        return None
    return bar_chart(bars, title=gettext("Full-load power of all servers"), unit="kW")


def _cost_chart(option: dict) -> str | None:
    """Cash paid by month in the option's mode (and renting the same servers, for a purchase)."""
    economics = option.get("economics")
    if not economics or not economics.get("cost"):
        return None
    cumulative = economics["monthly"]["cumulative_cny"]
    mode = "buy" if option.get("mode") == "own" else option.get("mode")
    shown = [m for m in (mode, "rent" if mode == "buy" else None) if m in cumulative]
    series = [Series(label(MODE_LABELS, m), tuple(float(v) for v in cumulative[m])) for m in shown]
    return line_chart(
        series,
        title=gettext("Cash paid by month"),
        x_label=gettext("month"),
        y_label=gettext("CNY"),
    )


def charts(snapshot: dict) -> dict:
    options = snapshot["options"]
    chosen = options[0]
    return {
        "memory": [mark_safe(_memory_chart(o)) for o in options],  # noqa: S308 - our own SVG
        "time": mark_safe(_time_chart(options) or ""),  # noqa: S308
        "power": mark_safe(_power_chart(options) or ""),  # noqa: S308
        "cost": mark_safe(_cost_chart(chosen) or ""),  # noqa: S308
    }


# How sure the horizon total is, from the weakest basis among the figures it rests on.
STRONG_BASES = frozenset({"quote", "official", "override", "catalog", "sizing"})
WEAK_BASES = frozenset({"example", "market"})


def cost_confidence(option: dict) -> str | None:
    """ "high" (quotes, official and your own figures), "medium" (a claim or an assumption
    among them) or "low" (an example price or a market report); None when not priced."""
    economics = option.get("economics")
    if not economics:
        return None
    bases = {a.get("basis") for a in economics.get("assumptions") or ()}
    if bases & WEAK_BASES:
        return "low"
    if bases - STRONG_BASES:
        return "medium"
    return "high"


CONFIDENCE_LABELS = {
    "high": gettext_lazy("high: quotes, official figures and your own figures"),
    "medium": gettext_lazy("medium: rests on assumptions or vendor claims you should confirm"),
    "low": gettext_lazy("low: rests on example prices or market reports, not quotes"),
}


def blocking_findings(option: dict) -> list[dict]:
    return [
        f
        for f in option["compliance"]["findings"]
        if f["status"] == "fail" and f["severity"] == "blocker"
    ]


def decision(snapshot: dict) -> dict:
    """Page 1: what to obtain, where, how many, at what total cost and how sure, how fast."""
    chosen = snapshot["options"][0]
    confidence = cost_confidence(chosen)
    years = (snapshot.get("procurement") or {}).get("assumptions", {}).get("horizon_years")
    return {
        "mode": chosen.get("mode"),
        "confidence": confidence,
        "confidence_label": CONFIDENCE_LABELS.get(confidence, ""),
        "years": years,
        "blocking": blocking_findings(chosen),
    }


def budget_check(snapshot: dict) -> dict | None:
    """The chosen option's cash out against the buyer's budget: within it (and what is left)
    or over it (and by how much); None without a budget or a price."""
    memo = snapshot.get("memo") or {}
    cost, budget = memo.get("cost"), memo.get("budget_cny")
    if not cost or budget in (None, ""):
        return None
    cash, limit = Decimal(str(cost["cash_out_cny"])), Decimal(str(budget))
    return {"within": cash <= limit, "margin": abs(limit - cash)}


def entered(snapshot: dict, key: str):
    """An answer as the buyer entered it (the wizard's steps, or the scenario document the
    assessment was created from), or None."""
    inputs = snapshot.get("inputs") or {}
    document = inputs.get("document") if isinstance(inputs.get("document"), dict) else {}
    for section in (
        inputs.get("procurement"),
        inputs.get("training"),
        document.get("procurement"),
    ):
        if isinstance(section, dict) and section.get(key) not in (None, ""):
            return section[key]
    return None


def _day(value) -> date | None:
    try:
        return date.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


def _amount(value) -> str:
    """A budget as entered: whole yuan without decimals, fen kept when given."""
    try:
        number = Decimal(str(value))
    except ArithmeticError:
        return str(value)
    places = 0 if number == number.to_integral_value() else 2
    return format_cny(number, places, translate=gettext)


def vendors_recorded(snapshot: dict) -> bool:
    """Whether the vendor comparison (section 5) holds anything the catalog records: a table
    of "not recorded" in every cell says nothing, so the brief says so in one sentence."""
    for row in (snapshot.get("vendor_comparison") or {}).get("rows") or ():
        for cell in row.get("cells") or ():
            if cell.get("status") not in (None, "unknown"):
                return True
            if any(
                (line or {}).get("template") != "Not recorded" for line in cell.get("lines") or ()
            ):
                return True
    return False


def procurement_rows(snapshot: dict) -> list[tuple[str, str]]:
    """What the buyer asked of the procurement, as labelled rows (Appendix A)."""
    section = snapshot.get("procurement") or {}
    assumptions = section.get("assumptions") or {}
    modes = gettext(", ").join(label(MODE_LABELS, m) for m in section.get("modes") or ())
    rows = [
        (gettext("Procurement modes considered"), modes),
        (gettext("Use"), label(USAGE_LABELS, assumptions.get("usage"))),
    ]
    if assumptions.get("runs_per_year"):
        rows.append((gettext("Training runs a year"), str(assumptions["runs_per_year"])))
    if assumptions.get("training_hours_per_year"):
        rows.append((gettext("Training hours a year"), str(assumptions["training_hours_per_year"])))
    if assumptions.get("usage") == "programme":
        rows.append((gettext("Horizon (years)"), str(assumptions.get("horizon_years"))))
    rows.append((gettext("Shortest rental term (months)"), str(assumptions.get("rent_min_months"))))
    budget = entered(snapshot, "budget_cny")
    if budget in (None, ""):
        budget = section.get("budget_cny")
    rows.append((gettext("Budget"), _amount(budget) if budget else gettext("none stated")))
    deadline = _day(entered(snapshot, "deadline"))
    rows.append(
        (
            gettext("Deadline: training finished by"),
            formats.date_format(deadline, "DATE_FORMAT") if deadline else gettext("none stated"),
        )
    )
    if section.get("domestic_only"):
        domestic = gettext("required (domestic accelerators only)")
    elif section.get("prefer_domestic"):
        domestic = gettext("preferred (breaks ties between equal options)")
    else:
        domestic = gettext("no preference")
    rows.append((gettext("Domestic accelerators"), domestic))
    required = section.get("required_rules") or []
    rows.append(
        (
            gettext("Qualifications required"),
            gettext(", ").join(rule_words(f"required:{r}") for r in required) or gettext("none"),
        )
    )
    return rows


# How Appendix B shows a catalog field: a figure as written, a coded value by its label, a key
# as code, recorded text (notes, claims) quoted as the catalog holds it.
FIGURE, CODE, QUOTE = "figure", "code", "quote"
NAME_FIELDS = ("name", "name_zh", "maker", "maker_zh", "city", "city_zh")
# Lists of coded values stored as JSON (no field choices to read the labels from).
LIST_CHOICES = {"cooling_available": catalog_choices.SiteCooling}


def catalog_rows(snapshot: dict) -> list[dict]:
    """The catalog records behind the options (Appendix B): each field under its name in the
    reader's language, coded values by their labels, one source per line."""
    rows = []
    for record in snapshot.get("catalog") or []:
        model = CATALOG_MODELS.get(record.get("kind"))
        fields = reader_fields(record.get("fields") or {})
        figures = [
            (field_name(model, name), *field_value(model, name, value))
            for name, value in fields.items()
            if name not in NAME_FIELDS and value not in (None, "", [])
        ]
        sources = [line for line in (record.get("source") or "").splitlines() if line.strip()]
        rows.append(
            {
                "label": local_name(
                    {
                        "name": record.get("label") or record.get("key"),
                        "name_zh": record.get("label_zh"),
                    }
                ),
                "figures": figures,
                "sources": sources,
                "as_of": record.get("as_of"),
            }
        )
    return rows


def reader_fields(fields: dict) -> dict:
    """A record's fields with each ``x`` / ``x_zh`` pair (a cloud's provider and region) shown
    once, in the reader's language: the Chinese value on a Chinese page where it is recorded."""
    chinese = (translation.get_language() or "").lower().startswith("zh")
    shown = {}
    for name, value in fields.items():
        if name.endswith(ZH_SUFFIX) and name[: -len(ZH_SUFFIX)] in fields:
            continue
        twin = fields.get(name + ZH_SUFFIX)
        shown[name] = twin if chinese and twin not in (None, "") else value
    return shown


def field_name(model, name: str) -> str:
    if model is None:
        return name
    try:
        return str(model._meta.get_field(name).verbose_name)
    except FieldDoesNotExist:
        return name


def field_value(model, name: str, value) -> tuple[str, str]:
    """``(text, kind)``: a coded value by its label, a key or foreign key as code, free text
    as the catalog records it (quoted), anything else as a figure."""
    field = _field(model, name)
    if name in LIST_CHOICES and isinstance(value, list):
        labels = {c.value: str(c.label) for c in LIST_CHOICES[name]}
        return gettext(", ").join(labels.get(v, str(v)) for v in value), FIGURE
    if field is not None and field.choices:
        labels = {str(k): str(v) for k, v in field.flatchoices}
        codes = value if isinstance(value, list) else str(value).split(",")
        return gettext(", ").join(labels.get(str(c).strip(), str(c).strip()) for c in codes), FIGURE
    if isinstance(value, dict) and "name" in value:  # a record it points to, by its names
        return local_name(value), FIGURE
    if name == "key" or (field is not None and (field.is_relation or name.endswith("_key"))):
        return plain_value(value), CODE
    if isinstance(value, str) and name.endswith("_figures"):  # a list of the record's fields
        names = [n.strip() for n in value.split(",") if n.strip()]
        return gettext(", ").join(field_name(model, n) for n in names), FIGURE
    if isinstance(value, str) and not re.fullmatch(r"[\d.,:+\-\s%]*", value):
        return value, QUOTE  # recorded text (a note, a region, a province), as the catalog has it
    return plain_value(value), FIGURE


def _field(model, name: str):
    if model is None:
        return None
    try:
        return model._meta.get_field(name)
    except FieldDoesNotExist:
        return None


def plain_value(value) -> str:
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    if isinstance(value, list):
        return ", ".join(plain_value(v) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{k} {plain_value(v)}" for k, v in value.items())
    return "" if value is None else str(value)


def page_label_css(label: str) -> str:
    """``"Page {page} of {pages}"`` as a CSS ``content`` value with page counters."""
    parts = []
    rest = label
    for name, counter in (("{page}", "counter(page)"), ("{pages}", "counter(pages)")):
        before, _, rest = rest.partition(name)
        parts += [json.dumps(before, ensure_ascii=False), counter]
    parts.append(json.dumps(rest, ensure_ascii=False))
    return " ".join(p for p in parts if p != '""')


def typed_names_isolated(snapshot: dict, meta: BriefMeta) -> tuple[dict, BriefMeta]:
    """A copy for display in which every name someone typed is cleaned and isolated.

    The model's name, the buyer's own room (and its "vendor", the room itself) and the people's
    names are wrapped in Unicode isolates (advisor.text.isolate), so that bidirectional text in
    them cannot reorder the system's text around them. The snapshot itself is not changed (the
    fingerprint and the attached data stay exactly what was frozen).
    """
    shown = copy.deepcopy(snapshot)
    model = shown.get("scenario", {}).get("model") or {}
    if model.get("name"):
        model["name"] = isolate(model["name"])
    for option in shown.get("options", []):
        for part in ("data_center", "vendor"):
            record = option.get(part) or {}
            if record.get("key") == OWN_ROOM_KEY and record.get("name"):
                record["name"] = isolate(record["name"])
    meta = replace(
        meta,
        prepared_by=isolate(meta.prepared_by),
        approved_by=isolate(meta.approved_by) if meta.approved_by else meta.approved_by,
    )
    return shown, meta


def _escaped(text: str) -> str:
    """JSON text with every character that prints as nothing (bidi controls such as U+202E,
    other format and control characters) written as its \\u escape: a typed name can never
    reorder the brief's text, and the auditor sees that it was there."""

    def escape(char: str) -> str:
        if char.isprintable():
            return char
        code = ord(char)
        if code <= 0xFFFF:
            return f"\\u{code:04x}"
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"

    return "".join(escape(char) for char in text)


def input_json(value, depth: int = 0, levels: int = 2) -> str:
    """A scenario section as JSON for Appendix A: objects broken into one key per line for
    ``levels`` levels (a declared fact per line), deeper values on their line. Whole-width
    lines of JSON, because one long string in a table cell made WeasyPrint's line breaking
    take over a minute for a brief with a vendor's declared facts."""
    if isinstance(value, dict) and value and depth < levels:
        indent = "  " * (depth + 1)
        members = ",\n".join(
            f"{indent}{_escaped(json.dumps(key, ensure_ascii=False))}: "
            f"{input_json(item, depth + 1, levels)}"
            for key, item in value.items()
        )
        return "{\n" + members + "\n" + "  " * depth + "}"
    return _escaped(json.dumps(value, ensure_ascii=False))


# The approver's comment in the sign-off table: up to this many terminal columns (a Chinese
# character takes two) it is printed there in full; a longer one is begun there and printed
# whole in Appendix D, so the sign-off table stays on page 2 (decision 0148).
SIGN_OFF_COMMENT_COLUMNS = 160


def sign_off_comment(comment: str) -> tuple[str, bool]:
    """``(what the sign-off cell prints, whether the whole comment is in Appendix D)``."""
    comment = " ".join((comment or "").split())
    if sum(_columns(char) for char in comment) <= SIGN_OFF_COMMENT_COLUMNS:
        return comment, False
    shown, width = [], 0
    for char in comment:
        width += _columns(char)
        if width > SIGN_OFF_COMMENT_COLUMNS - 20:
            break
        shown.append(char)
    text = "".join(shown)
    space = text.rfind(" ")
    if space > len(text) * 2 // 3:  # end at a word where one ends near the cut
        text = text[:space]
    return text.rstrip(" ,;:，、；：") + "…", True


def _columns(char: str) -> int:
    return 2 if unicodedata.east_asian_width(char) in "WF" else 1


def render_html(snapshot: dict, meta: BriefMeta) -> str:
    fingerprint = snapshot_fingerprint(snapshot)
    snapshot, meta = typed_names_isolated(snapshot, meta)
    with translation.override(meta.language):
        context = {
            "font_faces": mark_safe(font_faces_css()),  # noqa: S308 - our own file paths
            "page_label_css": page_label_css(gettext("Page {page} of {pages}")),
            "snapshot": snapshot,
            "meta": meta,
            "chosen": snapshot["options"][0],
            "alternatives": snapshot["options"][1:],
            "charts": charts(snapshot),
            "qr": mark_safe(qr_svg(meta.verify_url)),  # noqa: S308 - generated by qrcode
            "fingerprint": fingerprint,
            "procurement_rows": procurement_rows(snapshot),
            "catalog_rows": catalog_rows(snapshot),
            "vendors_recorded": vendors_recorded(snapshot),
            "vendor_names": gettext(", ").join(
                local_name(v)
                for v in (snapshot.get("vendor_comparison") or {}).get("vendors") or ()
                if local_name(v) not in ("", "—")
            )
            or "—",
            "budget": budget_check(snapshot),
            "memory_rows": [
                (key, label(MEMORY_COMPONENT_LABELS, key))
                for key in snapshot["options"][0]["sizing"]["memory_per_gpu_gib"]
                if key != "total"
            ],
            "decision": decision(snapshot),
            "sign_off_comment": sign_off_comment(meta.approval_comment),
            # None (not stated, or a snapshot from before the question): the template says so.
            "framework_label": FRAMEWORK_LABELS.get(snapshot["scenario"].get("framework")),
            "packing_label": PACKING_LABELS.get(snapshot["scenario"].get("packed")),
        }
        return render_to_string("brief/pdf.html", context)


def render_pdf(snapshot: dict, meta: BriefMeta) -> bytes:
    """The brief as PDF/A-3b bytes (unsigned). Raises :class:`MissingGlyphs` on .notdef."""
    return brief_pdf(render_html(snapshot, meta), snapshot, meta)


def brief_pdf(html: str, snapshot: dict, meta: BriefMeta) -> bytes:
    """``html`` as a brief's PDF/A-3b: the snapshot attached as ``brief.json`` for audit, the
    brief number as the document's identifier."""
    import weasyprint  # on first use (docs/decisions/0037-pdf-libraries-on-first-use.md)

    attachment = weasyprint.Attachment(
        string=json.dumps(snapshot, ensure_ascii=False, indent=1),
        name="brief.json",
        description="Brief data (snapshot) for audit",
        relationship="Data",
        url_fetcher=no_fetching(),
    )
    return write_pdf_checked(
        html,
        served_files=BRIEF_FONTS.values(),
        font_config=brief_font_config(),
        pdf_variant="pdf/a-3b",
        attachments=[attachment],
        pdf_identifier=meta.number.encode(),
    )
