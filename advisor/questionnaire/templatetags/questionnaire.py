from django import template
from django.utils.translation import gettext as _

from advisor.domain.compliance.base import figure

register = template.Library()


@register.filter
def declared_value(declared) -> str:
    """A declared fact's value as a reader sees it: yes/no, lists joined, numbers plain."""
    if isinstance(declared, dict):  # a brief snapshot's entry
        value, unit = declared.get("value"), declared.get("unit") or ""
    else:
        value, unit = declared.value, declared.fact.unit
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, list):
        return ", ".join(value)
    text = str(figure(value)) if isinstance(value, int | float) else str(value)
    return f"{text} {_(unit)}" if unit else text
