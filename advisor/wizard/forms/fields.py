"""What every step form shares: number, decimal and choice fields that explain their limits in the
validator's words, and the step form that knows the answers given on the other steps."""

from __future__ import annotations

import datetime

from django import forms
from django.utils.functional import lazy
from django.utils.translation import gettext_lazy as _

from advisor.domain import document as rules_of_the_document
from advisor.domain.i18n import Message
from advisor.domain.scenario import (
    LIMITS,
)
from advisor.presentation.text import render_text

# The validator's words for a number out of range or not a number (advisor.domain.document).
RANGE = rules_of_the_document.RANGE
NOT_A_NUMBER = rules_of_the_document.NOT_A_NUMBER
NOT_A_WHOLE_NUMBER = rules_of_the_document.NOT_A_WHOLE_NUMBER


def _fmt(value) -> str:
    """As the validator writes a limit: 1 and 300, not 1.0 and 300.0; 0.5 stays 0.5."""
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


NAME_MAX_LENGTH = 100
SAMPLES_MAX = 10**12
BUDGET_MAX_CNY = 10**11
YEARS_MAX = 15
HOURS_PER_YEAR_MAX = 8760
DEADLINE_MAX_YEARS = rules_of_the_document.DEADLINE_MAX_YEARS


def _limits(path: str) -> dict:
    low, high = LIMITS[path]
    return {"min_value": low, "max_value": high}


def _field_problem(label, template: str, params: dict) -> str:
    """``<label> <the validator's words>.``: the same words the command line prints after the
    field path (``site.room.pue: must be between 1 and 3``). Escaped for Django, which formats
    a field's error message with the validator's parameters."""
    problem = render_text(Message(template, params))
    return (_("%(field)s %(problem)s.") % {"field": label, "problem": problem}).replace("%", "%%")


field_problem = lazy(_field_problem, str)


def _number_messages(label, low, high, *, whole_number: bool) -> dict:
    between = field_problem(label, RANGE, {"low": _fmt(low), "high": _fmt(high)})
    invalid = NOT_A_WHOLE_NUMBER if whole_number else NOT_A_NUMBER
    return {
        "min_value": between,
        "max_value": between,
        "invalid": field_problem(label, invalid, {}),
    }


def whole(label, path=None, *, low=None, high=None, required=False, help_text="", initial=None):
    """A whole-number field on a text input (limits from the scenario unless given)."""
    if path is not None:
        low, high = LIMITS[path]
    return forms.IntegerField(
        label=label,
        required=required,
        min_value=int(low),
        max_value=int(high),
        help_text=help_text,
        initial=initial,
        error_messages=_number_messages(label, low, high, whole_number=True),
        widget=forms.TextInput(attrs={"inputmode": "numeric", "spellcheck": "false"}),
    )


def decimal(label, *, low, high, required=False, help_text="", initial=None):
    return forms.FloatField(
        label=label,
        required=required,
        min_value=low,
        max_value=high,
        help_text=help_text,
        initial=initial,
        error_messages=_number_messages(label, low, high, whole_number=False),
        widget=forms.TextInput(attrs={"inputmode": "decimal", "spellcheck": "false"}),
    )


def radios(label, choices, *, initial=None, required=True, help_text=""):
    return forms.ChoiceField(
        label=label,
        choices=choices,
        initial=initial,
        required=required,
        help_text=help_text,
        widget=forms.RadioSelect,
    )


YES_NO = [("yes", _("Yes")), ("no", _("No"))]


class StepForm(forms.Form):
    """Base: knows the other steps' answers and turns its cleaned data into JSON."""

    # Choice hints shown under each radio option: {field: {value: sentence}}.
    choice_hints: dict[str, dict[str, str]] = {}
    # What the check-answers page says for an empty optional answer: {field: sentence}.
    empty_display: dict = {}
    # Answers shown as CNY amounts on the check-answers page.
    money_fields: frozenset = frozenset()

    @classmethod
    def current(cls, stored: dict, context: dict | None = None) -> dict:
        """Stored answers as the present fields read them (a step whose fields changed
        reads the answers saved before the change); ``context``: the other steps' answers."""
        return stored

    def __init__(self, *args, context: dict | None = None, stored: dict | None = None, **kw):
        self.context = context or {}
        self.stored = stored or {}
        if "initial" not in kw and stored:
            kw["initial"] = stored
        super().__init__(*args, **kw)

    def to_answers(self) -> dict:
        out = {}
        for name, value in self.cleaned_data.items():
            if isinstance(value, datetime.date):
                value = value.isoformat()
            elif hasattr(value, "read"):  # uploaded files are parsed, never stored
                continue
            out[name] = value
        return out

    def require(self, *names):
        for name in names:
            if name in self.errors:  # already explained (e.g. "Enter a whole number")
                continue
            if self.cleaned_data.get(name) in (None, "", []):
                self.add_error(name, forms.ValidationError(_("Enter this value.")))
