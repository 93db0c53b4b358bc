"""Stored answers as rows for the check-answers page, formatted for the reader's language."""

from __future__ import annotations

import datetime
from decimal import Decimal

from django import forms
from django.utils import formats
from django.utils.dateparse import parse_date
from django.utils.translation import gettext as _

from advisor.domain.economics.money import format_cny
from advisor.wizard.steps import Step


def _choice_labels(field: forms.ChoiceField) -> dict:
    labels = {}
    for value, label in field.choices:
        if isinstance(label, list | tuple):  # an optgroup
            labels.update({str(v): str(lbl) for v, lbl in label})
        else:
            labels[str(value)] = str(label)
    return labels


def display_value(field: forms.Field, value, empty: str = "") -> str:
    if isinstance(field, forms.ChoiceField) and value in (None, ""):
        label = _choice_labels(field).get("")
        if label:
            return label
    if value in (None, "", []):
        return str(empty) if empty else _("Not given")
    if isinstance(field, forms.MultipleChoiceField):
        labels = _choice_labels(field)
        return "; ".join(labels.get(str(v), str(v)) for v in value)
    if isinstance(field, forms.ChoiceField):
        return _choice_labels(field).get(str(value), str(value))
    if isinstance(field, forms.BooleanField):
        return _("Yes") if value else _("No")
    if isinstance(field, forms.DateField):
        day = parse_date(value) if isinstance(value, str) else value
        if isinstance(day, datetime.date):
            return formats.date_format(day, "DATE_FORMAT")
        return str(value)
    if isinstance(value, bool):
        return _("Yes") if value else _("No")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int | float):
        # Thousands separated by commas in both languages, as Chinese procurement documents and
        # the economics pages write them (Django's zh_Hans format has no separator).
        return f"{value:,}"
    return str(value)


def _money(value) -> str:
    return format_cny(Decimal(str(value)), 0, translate=_)


def step_rows(step: Step, answers: dict) -> list[dict]:
    form = step.form(answers)
    stored = step.form_class.current(answers.get(step.slug) or {}, step.context(answers))
    rows = []
    for name in form.shown_fields(stored):
        field = form.fields[name]
        grouped = isinstance(field.widget, forms.RadioSelect | forms.CheckboxSelectMultiple)
        rows.append(
            {
                "name": name,
                "label": str(field.label),
                "value": _money(stored.get(name))
                if name in form.money_fields and stored.get(name) is not None
                else display_value(field, stored.get(name), form.empty_display.get(name, "")),
                "anchor": f"id_{name}_0" if grouped else f"id_{name}",
            }
        )
    if step.slug == "model" and stored.get("config_filename") and stored.get("source") == "upload":
        rows.insert(
            1,
            {
                "name": "config_file",
                "label": _("Uploaded file"),
                "value": stored["config_filename"],
                "anchor": "id_config_file",
            },
        )
    return rows
