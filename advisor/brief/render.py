"""Render a brief snapshot to HTML and to a PDF/A-3b with WeasyPrint.

The PDF embeds the snapshot as ``brief.json`` (PDF/A-3 allows associated files), carries the
brief number in its title and keywords (so a stripped or altered copy can still be traced),
and shows "Draft — not approved" on every page until an approver has approved it.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from datetime import datetime

import qrcode
import qrcode.image.svg
import weasyprint
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.safestring import mark_safe
from django.utils.translation import gettext

from advisor.brief.charts import Segment, Series, bar_chart, line_chart, stacked_bar
from advisor.domain.i18n import N_
from advisor.templatetags.domain_text import local_name
from advisor.wizard.labels import FRAMEWORK_LABELS, PACKING_LABELS

MEMORY_COMPONENT_LABELS = {
    "frozen_weights": N_("Frozen weights"),
    "trainable_weights": N_("Trainable weights"),
    "master_weights": N_("FP32 master weights"),
    "gradients": N_("Gradients"),
    "optimizer_states": N_("Optimizer states"),
    "activations": N_("Activations"),
    "logits": N_("Logits and loss"),
    "work_buffers": N_("Communication and work buffers"),
    "fragmentation": N_("Allocator fragmentation"),
    "framework_overhead": N_("CUDA context and framework"),
}
MODE_LABELS = {
    "buy": N_("Buy and host"),
    "rent": N_("Rent dedicated servers"),
    "cloud": N_("Cloud GPU-hours"),
}


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


def snapshot_fingerprint(snapshot: dict) -> str:
    """SHA-256 of the snapshot in canonical JSON: the content the signature vouches for."""
    canonical = json.dumps(snapshot, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def qr_svg(url: str) -> str:
    image = qrcode.make(url, image_factory=qrcode.image.svg.SvgPathImage, box_size=6, border=2)
    return image.to_string(encoding="unicode")


def memory_segments(components: dict[str, float]) -> list[Segment]:
    """Chart segments for a memory breakdown; a component without a label shows its name."""
    return [
        Segment(gettext(MEMORY_COMPONENT_LABELS.get(key, key)), value)
        for key, value in components.items()
        if key != "total"
    ]


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
    return f"{local_name(option['server'])} · {local_name(option['data_center'])}"


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
    economics = option.get("economics")
    if not economics:
        return None
    series = [
        Series(gettext(MODE_LABELS.get(mode, mode)), tuple(float(v) for v in values))
        for mode, values in economics["monthly"]["cumulative_cny"].items()
    ]
    return line_chart(
        series,
        title=gettext("Cumulative cost by month"),
        x_label=gettext("month"),
        y_label="CNY",
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


def page_label_css(label: str) -> str:
    """``"Page {page} of {pages}"`` as a CSS ``content`` value with page counters."""
    parts = []
    rest = label
    for name, counter in (("{page}", "counter(page)"), ("{pages}", "counter(pages)")):
        before, _, rest = rest.partition(name)
        parts += [json.dumps(before, ensure_ascii=False), counter]
    parts.append(json.dumps(rest, ensure_ascii=False))
    return " ".join(p for p in parts if p != '""')


def render_html(snapshot: dict, meta: BriefMeta) -> str:
    with translation.override(meta.language):
        context = {
            "page_label_css": page_label_css(gettext("Page {page} of {pages}")),
            "snapshot": snapshot,
            "meta": meta,
            "chosen": snapshot["options"][0],
            "alternatives": snapshot["options"][1:],
            "charts": charts(snapshot),
            "qr": mark_safe(qr_svg(meta.verify_url)),  # noqa: S308 - generated by qrcode
            "fingerprint": snapshot_fingerprint(snapshot),
            "memory_rows": [
                (key, MEMORY_COMPONENT_LABELS.get(key, key))
                for key in snapshot["options"][0]["sizing"]["memory_per_gpu_gib"]
                if key != "total"
            ],
            "mode_labels": MODE_LABELS,
            # None (not stated, or a snapshot from before the question): the template says so.
            "framework_label": FRAMEWORK_LABELS.get(snapshot["scenario"].get("framework")),
            "packing_label": PACKING_LABELS.get(snapshot["scenario"].get("packed")),
        }
        return render_to_string("brief/pdf.html", context)


class MissingGlyphs(RuntimeError):
    """WeasyPrint had to draw a character no embedded font has (it would print as a box)."""


class _GlyphWatch(logging.Handler):
    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.problems: list[str] = []

    def emit(self, record):
        text = record.getMessage()
        if "notdef" in text.lower() or "glyph" in text.lower():
            self.problems.append(text)


def write_pdf_checked(html: str, **options) -> bytes:
    """WeasyPrint's PDF for ``html``; raises :class:`MissingGlyphs` when any character had
    no glyph in the available fonts (it would print as an empty box)."""
    watch = _GlyphWatch()
    logger = logging.getLogger("weasyprint")
    logger.addHandler(watch)
    try:
        pdf = weasyprint.HTML(string=html, base_url=None).write_pdf(**options)
    finally:
        logger.removeHandler(watch)
    if watch.problems:
        raise MissingGlyphs("; ".join(watch.problems))
    return pdf


def render_pdf(snapshot: dict, meta: BriefMeta) -> bytes:
    """The brief as PDF/A-3b bytes (unsigned). Raises :class:`MissingGlyphs` on .notdef."""
    attachment = weasyprint.Attachment(
        string=json.dumps(snapshot, ensure_ascii=False, indent=1),
        name="brief.json",
        description="Brief data (snapshot) for audit",
        relationship="Data",
    )
    return write_pdf_checked(
        render_html(snapshot, meta),
        pdf_variant="pdf/a-3b",
        attachments=[attachment],
        pdf_identifier=meta.number.encode(),
    )
