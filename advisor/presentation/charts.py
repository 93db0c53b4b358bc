"""Server-side SVG charts shared by the results pages and the PDF brief.

Pure functions: plain numbers and already-translated labels in, an SVG string out (no
JavaScript, so the same markup renders in the browser and in WeasyPrint). Every text node
is escaped. Colours come from a fixed palette that stays distinguishable in greyscale print.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

from advisor.presentation.labels import MEMORY_COMPONENT_LABELS
from advisor.presentation.labels import label as words_for

PALETTE = (
    "#1d4f91",
    "#f47738",
    "#00703c",
    "#912b88",
    "#b58840",
    "#5694ca",
    "#d4351c",
    "#6f777b",
    "#28a197",
    "#85994b",
)
# Brief Sans first: the brief's own font (advisor/brief/fonts, decision 0066); a page in the
# browser, which has no such font, goes on to Noto Sans CJK SC.
FONT = "font-family=\"'Brief Sans','Noto Sans CJK SC','Noto Sans SC',sans-serif\""


@dataclass(frozen=True)
class Segment:
    label: str
    value: float


@dataclass(frozen=True)
class Series:
    label: str
    values: tuple[float, ...]


def _fmt(value: float) -> str:
    if value == 0:
        return "0"
    return f"{value:,.1f}" if abs(value) < 100 else f"{value:,.0f}"


def _text(x: float, y: float, content: str, *, size: int = 11, anchor: str = "start", **attrs):
    extra = "".join(f' {k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" {FONT}{extra}>'
        f"{escape(content)}</text>"
    )


def stacked_bar(
    segments: list[Segment],
    capacity: float,
    *,
    title: str,
    unit: str,
    capacity_label: str,
    width: int = 640,
) -> str:
    """One horizontal bar split into ``segments``, with a marker at ``capacity``.

    Used for memory per GPU (components against the card's usable memory).
    """
    total = sum(max(s.value, 0.0) for s in segments)
    scale_max = max(total, capacity, 1e-9) * 1.08
    left, bar_width, bar_y, bar_h = 10, width - 20, 28, 26
    parts = [_text(left, 16, title, size=13, font_weight="bold")]
    x = float(left)
    for index, segment in enumerate(s for s in segments if s.value > 0):
        w = bar_width * segment.value / scale_max
        colour = PALETTE[index % len(PALETTE)]
        parts.append(
            f'<rect x="{x:.1f}" y="{bar_y}" width="{w:.1f}" height="{bar_h}" fill="{colour}">'
            f"<title>{escape(segment.label)}: {_fmt(segment.value)} {escape(unit)}</title></rect>"
        )
        x += w
    cap_x = left + bar_width * capacity / scale_max
    parts.append(
        f'<line x1="{cap_x:.1f}" y1="{bar_y - 6}" x2="{cap_x:.1f}" y2="{bar_y + bar_h + 6}" '
        'stroke="#0b0c0c" stroke-width="2" stroke-dasharray="4 2"/>'
    )
    parts.append(
        _text(
            cap_x, bar_y + bar_h + 18, f"{capacity_label} {_fmt(capacity)} {unit}", anchor="middle"
        )
    )
    legend_y = bar_y + bar_h + 40
    parts.extend(_legend(segments, unit, left, legend_y, width))
    rows = (len([s for s in segments if s.value > 0]) + 2) // 3
    height = legend_y + rows * 18 + 6
    return _svg(width, height, title, parts)


def _legend(segments: list[Segment], unit: str, left: float, top: float, width: int) -> list[str]:
    visible = [s for s in segments if s.value > 0]
    column = (width - 20) / 3
    items = []
    for index, segment in enumerate(visible):
        x = left + (index % 3) * column
        y = top + (index // 3) * 18
        colour = PALETTE[index % len(PALETTE)]
        items.append(f'<rect x="{x:.1f}" y="{y - 9:.1f}" width="10" height="10" fill="{colour}"/>')
        items.append(_text(x + 14, y, f"{segment.label} {_fmt(segment.value)} {unit}", size=10))
    return items


def nice_step(span: float, ticks: int = 4) -> float:
    """A round tick step (1, 2, 2.5 or 5 × a power of ten) that covers ``span`` in about
    ``ticks`` steps: 1,329,397 → 500,000, so the axis reads 0 / 500,000 / 1,000,000 …"""
    if span <= 0:
        return 1.0
    raw = span / ticks
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 2.5, 5, 10):
        if raw <= factor * power:
            return factor * power
    return 10 * power


def nice_max(value: float, ticks: int = 4) -> tuple[float, float]:
    """The axis maximum (a multiple of the round step at or above ``value``) and the step."""
    step = nice_step(value, ticks)
    return max(step, math.ceil(value / step) * step), step


def line_chart(
    series: list[Series],
    *,
    title: str,
    x_label: str,
    y_label: str,
    width: int = 640,
    height: int = 300,
) -> str:
    """Lines over a shared x axis 0..n-1 (e.g. cumulative cost by month per mode)."""
    points = max((len(s.values) for s in series), default=0)
    y_max, y_step = nice_max(max((max(s.values) for s in series if s.values), default=0.0) or 1.0)
    left, right, top, bottom = 70, 20, 46, 60
    plot_w, plot_h = width - left - right, height - top - bottom
    parts = [_text(left, 18, title, size=13, font_weight="bold")]
    parts.extend(_axes(left, top, plot_w, plot_h, y_max, y_step, points, x_label, y_label))
    for index, line in enumerate(series):
        colour = PALETTE[index % len(PALETTE)]
        coords = " ".join(
            f"{left + plot_w * i / max(points - 1, 1):.1f},{top + plot_h * (1 - v / y_max):.1f}"
            for i, v in enumerate(line.values)
        )
        parts.append(
            f'<polyline points="{coords}" fill="none" stroke="{colour}" stroke-width="2.5">'
            f"<title>{escape(line.label)}</title></polyline>"
        )
        legend_x = left + index * (plot_w / max(len(series), 1))
        parts.append(
            f'<rect x="{legend_x:.1f}" y="{height - 16}" width="12" height="4" fill="{colour}"/>'
        )
        parts.append(_text(legend_x + 16, height - 11, line.label, size=10))
    return _svg(width, height, title, parts)


def _axes(left, top, plot_w, plot_h, y_max, y_step, points, x_label, y_label) -> list[str]:
    parts = [
        f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="#0b0c0c"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#0b0c0c"/>',
    ]
    steps = round(y_max / y_step)
    for step in range(steps + 1):
        value = y_step * step
        y = top + plot_h * (1 - value / y_max)
        parts.append(
            f'<line x1="{left - 4}" y1="{y:.1f}" x2="{left}" y2="{y:.1f}" stroke="#0b0c0c"/>'
        )
        parts.append(_text(left - 6, y + 4, _fmt(value), size=9, anchor="end"))
    last = max(points - 1, 1)
    x_step = max(1, int(nice_step(last, 6)))
    for tick in range(0, last + 1, x_step):
        x = left + plot_w * tick / last
        parts.append(_text(x, top + plot_h + 14, str(tick), size=9, anchor="middle"))
    parts.append(_text(left + plot_w / 2, top + plot_h + 30, x_label, size=10, anchor="middle"))
    parts.append(_text(left - 6, top - 10, y_label, size=10, anchor="end"))
    return parts


def _svg(width: int, height: float, title: str, parts: list[str]) -> str:
    body = "".join(parts)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" height="{height:.0f}" '
        f'viewBox="0 0 {width} {height:.0f}"><title>{escape(title)}</title>{body}</svg>'
    )


MAX_LABEL = 90  # characters of a bar's label (its full text stays in the bar's tooltip)


def _short(label: str) -> str:
    return label if len(label) <= MAX_LABEL else label[: MAX_LABEL - 1] + "…"


def bar_chart(bars: list[Segment], *, title: str, unit: str, width: int = 640) -> str:
    """Horizontal bars, one per option (e.g. time to train, power per rack). Each label sits
    above its bar, from the left edge, so no label runs off the page."""
    left, right, row_h, top = 10, 90, 38, 28
    scale_max = max((b.value for b in bars), default=0.0) or 1.0
    plot_w = width - left - right
    parts = [_text(10, 16, title, size=13, font_weight="bold")]
    for index, bar in enumerate(bars):
        y = top + index * row_h
        w = plot_w * max(bar.value, 0.0) / scale_max
        colour = PALETTE[index % len(PALETTE)]
        parts.append(_text(left, y + 11, _short(bar.label), size=10))
        parts.append(
            f'<rect x="{left}" y="{y + 16}" width="{w:.1f}" height="{row_h - 22}" '
            f'fill="{colour}"><title>{escape(bar.label)}</title></rect>'
        )
        parts.append(_text(left + w + 6, y + 27, f"{_fmt(bar.value)} {unit}", size=10))
    return _svg(width, top + len(bars) * row_h + 4, title, parts)


def memory_segments(components: dict[str, float]) -> list[Segment]:
    """Chart segments for a memory breakdown; a component without a label shows its name."""
    return [
        Segment(words_for(MEMORY_COMPONENT_LABELS, key), value)
        for key, value in components.items()
        if key != "total"
    ]
