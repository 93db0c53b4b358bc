"""The form renderer: Django's standard widget templates written as Python functions.

Every form field on the pages is an ``<input>``, ``<select>``, ``<textarea>`` or a list of
radios or checkboxes, and Django writes each through its template engine
(``django/forms/widgets/*.html`` and ``attrs.html``): about a third of the CPU of the own
figures page and of a wizard step (docs/decisions/0077-widgets-rendered-in-python.md). The
functions here give the same bytes as those templates: the same attribute order, ``{{ }}``
through Django's own ``render_value_in_context`` (localized, escaped unless safe),
``stringformat:'s'`` through Django's filter, and the whitespace the includes leave, which the
renderer strips as Django's does. Any other template (the clearable file input, multi-widgets,
the admin's, an option template of our own) still goes through the engine.
tests/integration/test_widgets_in_python.py checks every form of the app, bound and unbound, with
errors, in both languages, against Django's renderer.
"""

from __future__ import annotations

from django.forms.renderers import DjangoTemplates
from django.template.base import render_value_in_context
from django.template.context import Context
from django.template.defaultfilters import stringformat
from django.utils.safestring import SafeData, mark_safe

# What {{ }} reads from a template's context: autoescape on, localization and time zone from
# the settings (as Django's form renderer makes it). Only read, so one serves every thread.
_CONTEXT = Context()

WIDGETS = "django/forms/widgets/"


class Unwritten(Exception):
    """An option's template is not one of those written here: the engine renders the widget."""


def _text(value) -> str:
    """``{{ value }}``."""
    return render_value_in_context(value, _CONTEXT)


def _string(value) -> str:
    """``{{ value|stringformat:'s' }}`` (the filter keeps a safe value safe)."""
    text = stringformat(value, "s")
    return _text(mark_safe(text) if isinstance(value, SafeData) else text)


def _attrs(attrs: dict) -> str:
    """attrs.html: `` name="value"``, a bare `` name`` for True, nothing for False."""
    return "".join(
        f" {_text(name)}" if value is True else f' {_text(name)}="{_string(value)}"'
        for name, value in attrs.items()
        if value is not False
    )


def _input(widget: dict) -> str:
    """input.html."""
    value = widget["value"]
    shown = "" if value is None else f' value="{_string(value)}"'
    name = _text(widget["name"])
    return f'<input type="{_text(widget["type"])}" name="{name}"{shown}{_attrs(widget["attrs"])}>\n'


def _input_alias(widget: dict) -> str:
    """text.html, number.html, checkbox.html…: ``{% include "…/input.html" %}`` and a newline."""
    return _input(widget) + "\n"


def _input_option(widget: dict) -> str:
    """input_option.html: a radio or checkbox, in its label unless told not to wrap it."""
    if not widget["wrap_label"]:
        return _input(widget) + "\n"
    id_ = widget["attrs"].get("id")
    label_for = f' for="{_text(id_)}"' if id_ else ""
    return f"<label{label_for}>{_input(widget)} {_text(widget['label'])}</label>\n"


def _option_alias(widget: dict) -> str:
    """radio_option.html, checkbox_option.html: input_option.html and a newline."""
    return _input_option(widget) + "\n"


def _select_option(widget: dict) -> str:
    """select_option.html."""
    value, attrs, label = _string(widget["value"]), _attrs(widget["attrs"]), _text(widget["label"])
    return f'<option value="{value}"{attrs}>{label}</option>\n'


def _option(option: dict) -> str:
    """``{% include option.template_name with widget=option %}``."""
    write = _OPTIONS.get(option["template_name"])
    if write is None:
        raise Unwritten(option["template_name"])
    return write(option)


def _select(widget: dict) -> str:
    """select.html."""
    out = [f'<select name="{_text(widget["name"])}"{_attrs(widget["attrs"])}>']
    out += _grouped(widget, '\n  <optgroup label="{}">', "\n  {}", "\n  </optgroup>")
    out.append("\n</select>\n")
    return "".join(out)


def _grouped(widget: dict, opened: str, each: str, closed: str) -> list[str]:
    """The widget's options in their groups: ``opened`` with a named group's label before its
    options, ``each`` around every option, ``closed`` after a named group."""
    out = []
    for group, options, _index in widget["optgroups"]:
        if group:
            out.append(opened.format(_text(group)))
        out.extend(each.format(_option(option)) for option in options)
        if group:
            out.append(closed)
    return out


def _multiple_input(widget: dict) -> str:
    """multiple_input.html: radios or checkboxes, each in a ``<div>``."""
    id_, class_ = widget["attrs"].get("id"), widget["attrs"].get("class")
    out = [
        "<div",
        f' id="{_text(id_)}"' if id_ else "",
        f' class="{_text(class_)}"' if class_ else "",
    ]
    out.append(">")
    out += _grouped(widget, "\n  <div><label>{}</label>", "<div>\n    {}</div>", "\n  </div>")
    out.append("\n</div>\n")
    return "".join(out)


def _multiple_alias(widget: dict) -> str:
    """radio.html, checkbox_select.html: multiple_input.html and a newline."""
    return _multiple_input(widget) + "\n"


def _textarea(widget: dict) -> str:
    """textarea.html."""
    value = _text(widget["value"]) if widget["value"] else ""
    return (
        f'<textarea name="{_text(widget["name"])}"{_attrs(widget["attrs"])}>\n{value}</textarea>\n'
    )


_INPUTS = [
    "checkbox",
    "color",
    "date",
    "datetime",
    "email",
    "file",
    "hidden",
    "number",
    "password",
    "search",
    "tel",
    "text",
    "time",
    "url",
]
_OPTIONS = {
    WIDGETS + "radio_option.html": _option_alias,
    WIDGETS + "checkbox_option.html": _option_alias,
    WIDGETS + "select_option.html": _select_option,
}
WRITERS = {
    **{f"{WIDGETS}{name}.html": _input_alias for name in _INPUTS},
    WIDGETS + "input.html": _input,
    WIDGETS + "input_option.html": _input_option,
    **_OPTIONS,
    WIDGETS + "select.html": _select,
    WIDGETS + "multiple_input.html": _multiple_input,
    WIDGETS + "radio.html": _multiple_alias,
    WIDGETS + "checkbox_select.html": _multiple_alias,
    WIDGETS + "textarea.html": _textarea,
}


class FormRenderer(DjangoTemplates):
    """Django's form renderer (settings.FORM_RENDERER), with the standard widgets in Python.

    Django's renderer finds ``django/forms/…`` in Django's own folder before any app's, so
    these names always mean Django's templates; the output is stripped as Django strips it."""

    def render(self, template_name, context, request=None):
        write = WRITERS.get(template_name)
        if write is not None:
            try:
                return write(context["widget"]).strip()
            except Unwritten:
                pass
        return super().render(template_name, context, request)
