"""``{% load domain_text %}``: thin template wrappers over :mod:`advisor.presentation`."""

from django import template
from django.utils.html import format_html
from django.utils.translation import get_language, gettext

from advisor.domain import sources as domain_sources
from advisor.presentation import labels
from advisor.presentation.catalog_text import catalog_text
from advisor.presentation.text import (
    evidence_text,
    local_name,
    other_language,
    render_text,
    rule_text,
)

register = template.Library()


@register.filter(name="local_name")
def local_name_filter(record, field="name") -> str:
    """``{{ site|local_name }}``, ``{{ site|local_name:"city" }}``."""
    return local_name(record, field)


@register.filter(name="names")
def names(records, field="name") -> str:
    """``{{ servers|names }}``: the records' names in the active language, as a list is written
    in it ("A, B, C"; "甲、乙、丙")."""
    separator = "、" if (get_language() or "").lower().startswith("zh") else ", "
    return separator.join(local_name(record, field) for record in records)


@register.filter(name="servers")
def servers(options) -> list:
    """``{{ options|servers|names }}``: the server model of each option (record or summary)."""
    return [o["server"] if isinstance(o, dict) else o.hardware.server for o in options]


@register.filter(name="tr")
def tr(value) -> str:
    return render_text(value)


@register.filter(name="cite")
def cite(value) -> str:
    """``{{ source|cite }}``: a citation as ``<cite>``, with ``lang`` where it is written in the
    other language (a Chinese standard's title on an English page)."""
    text = render_text(value)
    kind, text, original = catalog_text(text)  # a catalog note or source line (docs/catalog.md)
    lang = other_language(text)
    if lang:
        quoted = format_html('<cite lang="{}">{}</cite>', lang, text)
    else:
        quoted = format_html("<cite>{}</cite>", text)
    if original:  # English, as the original is written: said so on a Chinese page
        quoted = format_html(
            '<span class="original-language">{}</span>{}', gettext("English original: "), quoted
        )
    if kind:
        quoted = format_html("{}{}", gettext("[%(kind)s] ") % {"kind": kind}, quoted)
    return quoted


@register.filter(name="evidence")
def evidence_filter(item) -> str:
    """``{{ e|evidence }}``: a finding's evidence as a sentence in the reader's language."""
    return evidence_text(item)


@register.filter(name="rule_name")
def rule_name_filter(rule_id) -> str:
    """``{{ "VENDOR-ICP-FILING"|rule_name }}``: a rule named in words ("ICP 备案")."""
    return rule_text(rule_id)


@register.filter
def get_item(mapping, key):
    """``{{ mapping|get_item:key }}`` for dict keys that are not valid template attributes."""
    if isinstance(mapping, dict):
        return mapping.get(key)
    return None


@register.filter
def verdict_label(value) -> str:
    return labels.word("verdict", value)


@register.filter
def status_label(value) -> str:
    return labels.word("status", value)


@register.filter
def severity_label(value) -> str:
    return labels.word("severity", value)


@register.filter
def area_label(value) -> str:
    return labels.word("area", value)


@register.filter
def band_label(value) -> str:
    """A time-of-use band's name (``peak``, ``deep-valley`` …) in the reader's language."""
    return labels.word("band", value)


@register.filter
def flag_label(value) -> str:
    """A confidence flag (OFF, OFF-T, PRESS …) in words; empty for an unknown flag."""
    return labels.word("flag", value, missing="")


@register.filter
def level_label(value) -> str:
    """Where a figure was found (site, zone, national …) in words; empty when unknown."""
    return labels.word("level", value, missing="")


@register.filter
def source_kind_label(value) -> str:
    """The kind of a figure's strongest source in words; empty when it has none."""
    return labels.word("source_kind", value, missing="")


@register.filter
def low_quality_source(value) -> str:
    """The "low-quality source" mark for a figure resting only on aggregators or blogs."""
    return str(labels.LOW_QUALITY_SOURCE) if domain_sources.is_low_quality(value or "") else ""


@register.filter(name="province")
def province(value) -> str:
    """``{{ site.province|province }}``: "Guizhou" on an English page, "贵州省" on a Chinese one."""
    return labels.province_label(value)
