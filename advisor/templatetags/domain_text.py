"""Render the domain's translatable messages in the reader's language.

The domain returns ``Message(template, params)`` objects, or their JSON form
``{"template": ..., "params": {...}}`` in stored snapshots, and bare ``N_()`` strings for
titles (docs/decisions/0002). ``{{ value|tr }}`` translates the template first and fills in
the figures after.
"""

from django import template
from django.utils.translation import get_language, gettext

from advisor.domain.compliance.base import AREA_LABELS, SEVERITY_LABELS, STATUS_LABELS
from advisor.domain.compliance.engine import VERDICT_LABELS
from advisor.domain.economics.confidence import FLAG_LABELS, LEVEL_LABELS
from advisor.domain.economics.tariff import BAND_LABELS
from advisor.domain.i18n import Message, localised
from advisor.domain.i18n import local_name as domain_local_name

register = template.Library()


def render_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, Message):
        template_text, params = value.template, dict(value.params)
    elif isinstance(value, dict) and "template" in value:
        template_text, params = value["template"], dict(value.get("params") or {})
    else:
        return gettext(str(value)) if value != "" else ""
    params = localised(params, get_language())
    try:
        return gettext(template_text).format(**params)
    except (KeyError, IndexError, ValueError):
        # A translation that lost a placeholder must not hide the figures: fall back.
        return template_text.format(**params)


def local_name(record, field: str = "name") -> str:
    """A catalog record's name (or ``field``, e.g. "city") in the active language."""
    return domain_local_name(record, get_language(), field)


@register.filter(name="local_name")
def local_name_filter(record, field="name") -> str:
    """``{{ site|local_name }}``, ``{{ site|local_name:"city" }}``: see ``local_name``."""
    return local_name(record, field)


@register.filter(name="tr")
def tr(value) -> str:
    return render_text(value)


@register.filter
def get_item(mapping, key):
    """``{{ mapping|get_item:key }}`` for dict keys that are not valid template attributes."""
    if isinstance(mapping, dict):
        return mapping.get(key)
    return None


@register.filter
def verdict_label(value) -> str:
    return gettext(VERDICT_LABELS.get(value, str(value)))


@register.filter
def status_label(value) -> str:
    return gettext(STATUS_LABELS.get(value, str(value)))


@register.filter
def severity_label(value) -> str:
    return gettext(SEVERITY_LABELS.get(value, str(value)))


@register.filter
def area_label(value) -> str:
    return gettext(AREA_LABELS.get(value, str(value)))


@register.filter
def band_label(value) -> str:
    """A time-of-use band's name (``peak``, ``deep-valley`` …) in the reader's language."""
    return gettext(BAND_LABELS.get(value, str(value)))


@register.filter
def flag_label(value) -> str:
    """A confidence flag (OFF, OFF-T, PRESS …) in words, in the reader's language."""
    return gettext(FLAG_LABELS[value]) if value in FLAG_LABELS else ""


@register.filter
def level_label(value) -> str:
    """Where a figure was found (site, zone, national …) in words, in the reader's language."""
    return gettext(LEVEL_LABELS[value]) if value in LEVEL_LABELS else ""
