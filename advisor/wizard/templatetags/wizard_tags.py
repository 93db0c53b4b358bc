from django import template

register = template.Library()

GROUP_WIDGETS = {"radioselect", "checkboxselectmultiple"}


@register.filter
def choice_hint(bound_field, value):
    """The hint sentence under one radio option (``form.choice_hints``), or ''."""
    hints = getattr(bound_field.form, "choice_hints", {}).get(bound_field.name, {})
    return hints.get(str(value), "")


@register.filter
def is_group(bound_field) -> bool:
    """Radios and checkbox lists render as a fieldset with a legend."""
    return bound_field.widget_type in GROUP_WIDGETS


@register.filter
def anchor(bound_field) -> str:
    """The id an error-summary link should jump to (the first input of a group)."""
    if bound_field.widget_type in GROUP_WIDGETS:
        return f"{bound_field.auto_id}_0"
    return bound_field.auto_id
