"""Step 4: how the servers are obtained, used, paid for and qualified."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from advisor.assessments.answers import current_procurement
from advisor.domain import document as rules_of_the_document
from advisor.presentation.text import render_text
from advisor.wizard import choices as catalog
from advisor.wizard.forms.fields import (
    BUDGET_MAX_CNY,
    HOURS_PER_YEAR_MAX,
    YEARS_MAX,
    StepForm,
    decimal,
    radios,
    whole,
)

MODE_CHOICES = [
    ("buy", _("Buy servers and host them in a data center")),
    ("rent", _("Rent servers by the month")),
    ("cloud", _("Rent cloud GPUs by the hour")),
]
# When the site step names the buyer's own room, buying means buying for it, and renting a
# vendor's servers (which stay in the vendor's data center) is not a choice.
OWN_ROOM_MODE_CHOICES = [
    ("buy", _("Buy servers for our own machine room")),
    ("cloud", _("Rent cloud GPUs by the hour")),
]
DOMESTIC_CHOICES = [
    ("", _("No preference")),
    ("preferred", _("Preferred: among equal options, domestic ones rank first")),
    ("required", _("Required: domestic accelerators only")),
]
USAGE_CHOICES = [
    ("once", _("One job: price this run")),
    ("programme", _("A programme: runs a year over several years")),
]
QUALIFICATION_CHOICES = [
    ("idc-licence", _("Value-added telecom licence for IDC services (增值电信业务经营许可证)")),
    ("icp-filing", _("ICP filing number")),
    ("iso-27001", _("ISO/IEC 27001")),
    ("iso-9001", _("ISO 9001")),
    ("mlps-3", _("MLPS 2.0 level 3 assessment (等保三级)")),
]


class ProcurementStepForm(StepForm):
    money_fields = frozenset({"budget_cny"})
    empty_display = {
        "budget_cny": _("No ceiling"),
        "qualifications": _("No requirement"),
        "preferred_families": _("Every family"),
        "excluded_families": _("None excluded"),
        "excluded_products": _("None excluded"),
    }
    modes = forms.MultipleChoiceField(
        label=_("Which ways of getting the servers may we consider?"),
        choices=MODE_CHOICES,
        initial=[value for value, _label in MODE_CHOICES],
        help_text=_("Tick every way your company's policy allows."),
        widget=forms.CheckboxSelectMultiple,
        error_messages={"required": _("Tick at least one way of getting the servers.")},
    )
    budget_cny = decimal(
        _("Budget ceiling (CNY)"),
        low=0,
        high=BUDGET_MAX_CNY,
        help_text=_("Over the whole period of use, tax included."),
    )
    qualifications = forms.MultipleChoiceField(
        label=_("The hosting vendor must hold"),
        choices=QUALIFICATION_CHOICES,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    preferred_families = forms.MultipleChoiceField(
        label=_("Consider only these accelerator families"),
        required=False,
        help_text=_("Leave all unticked to consider every family."),
        widget=forms.CheckboxSelectMultiple,
    )
    excluded_families = forms.MultipleChoiceField(
        label=_("Excluded accelerator families"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    excluded_products = forms.MultipleChoiceField(
        label=_("Excluded accelerators"),
        required=False,
        help_text=_(
            "One product rather than its whole family: for example H100 excluded while H20, "
            "of the same family, stays."
        ),
        widget=forms.CheckboxSelectMultiple,
    )
    domestic = radios(
        _("Domestic accelerators"),
        DOMESTIC_CHOICES,
        initial="",
        required=False,
        help_text=_("Accelerators made in China (for example Huawei Ascend)."),
    )
    usage = radios(
        _("Is this one job, or a programme of runs?"),
        USAGE_CHOICES,
        initial="once",
        help_text=_(
            "One job is priced for this run. A programme is priced for its runs over the years, "
            "so that every option does the same work."
        ),
    )
    runs_per_year = whole(
        _("Runs a year (programme)"),
        low=1,
        high=HOURS_PER_YEAR_MAX,
        initial=12,
        help_text=_("How many times a year you fine-tune a job like this one."),
    )
    years = whole(
        _("Years (programme)"),
        low=1,
        high=YEARS_MAX,
        initial=3,
        help_text=_("The programme's costs are compared over this period."),
    )
    rent_min_months = whole(
        _("Shortest rental term (months)"),
        low=1,
        high=120,
        initial=1,
        help_text=_(
            "Dedicated servers are rented in whole months; enter the shortest term the vendor "
            "offers (often 1, 3, 6 or 12). Empty: one month."
        ),
    )
    resale_pct = decimal(
        _("Resale value at the end (per cent of the purchase price)"),
        low=0,
        high=100,
        help_text=_(
            "Leave empty for the rule of thumb: 30 % after three years, less the longer they "
            "are used, at most 65 %."
        ),
    )

    @classmethod
    def shown_fields(cls, stored: dict) -> list[str]:
        names = list(cls.base_fields)
        if stored.get("usage") != "programme":
            names = [n for n in names if n not in ("runs_per_year", "years")]
        return names

    @classmethod
    def current(cls, stored: dict, context: dict | None = None) -> dict:
        """Answers saved with one mode and "domestic only" read as the present fields; for the
        buyer's own room the one mode "any" reads as the modes the room allows."""
        own_room = ((context or {}).get("site") or {}).get("mode") == "own"
        return current_procurement(stored, own_room) if stored else stored

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if (self.context.get("site") or {}).get("mode") == "own":
            self.fields["modes"].choices = OWN_ROOM_MODE_CHOICES
            self.fields["modes"].initial = [value for value, _label in OWN_ROOM_MODE_CHOICES]
            if not self.is_bound and self.initial.get("modes"):
                own = [m for m in self.initial["modes"] if m != "rent"]
                self.initial = {**self.initial, "modes": own}
        families = catalog.family_choices()
        self.fields["preferred_families"].choices = families
        self.fields["excluded_families"].choices = families
        self.fields["excluded_products"].choices = catalog.accelerator_choices()

    def clean(self):
        data = super().clean()
        if data.get("usage") == "programme":
            self.require("runs_per_year", "years")
        else:  # one job: its runs and years are not asked for
            data["runs_per_year"] = data["years"] = None
        chosen = data.get("preferred_families") or []
        excluded = data.get("excluded_families") or []
        both = sorted(set(chosen) & set(excluded))
        problem = rules_of_the_document.overlap_problem(
            [catalog.family_label(key) for key in both], [catalog.family_label(k) for k in both]
        )
        if problem is not None:
            self.add_error("excluded_families", render_text(problem))
        foreign = [catalog.family_label(k) for k in chosen if not catalog.family_is_domestic(k)]
        required = data.get("domestic") == "required"
        problem = rules_of_the_document.domestic_problem(required, foreign)
        if problem is not None:
            self.add_error("preferred_families", render_text(problem))
        return data
