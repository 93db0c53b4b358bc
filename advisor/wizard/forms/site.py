"""Step 3: the site: a data center of the catalog, the buyer's own room, or the cloud."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from advisor.domain import document as rules_of_the_document
from advisor.domain.document import ROOM_FIGURES
from advisor.domain.i18n import Message
from advisor.presentation.text import render_text
from advisor.text import UserTextField
from advisor.wizard import choices as catalog
from advisor.wizard.forms.fields import (
    NAME_MAX_LENGTH,
    StepForm,
    decimal,
    radios,
    whole,
)
from vendors.choices import SiteCooling

# How many data centers the buyer may compare at once.
COMPARE_MIN, COMPARE_MAX = 2, 6


SITE_MODE_CHOICES = [
    ("catalog", _("A data center from the catalog")),
    ("own", _("Our own machine room")),
    ("compare", _("Compare several data centers")),
]


class SiteStepForm(StepForm):
    mode = radios(_("Where will the servers run?"), SITE_MODE_CHOICES, initial="catalog")
    data_center = forms.ChoiceField(label=_("Data center"), required=False)
    compare = forms.MultipleChoiceField(
        label=_("Data centers to compare"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("Tick 2 to 6."),
    )
    room_name = UserTextField(label=_("Room name"), required=False, max_length=NAME_MAX_LENGTH)
    province = forms.ChoiceField(
        label=_("Province"),
        required=False,
        help_text=_("Sets the policy zone: its PUE limit and electricity tariff."),
    )
    max_kw_per_rack = decimal(
        _("Power per rack (kW)"),
        low=0.5,
        high=300,
        help_text=_("An 8-GPU server draws about 10 kW at full load."),
    )
    cooling_available = forms.MultipleChoiceField(
        label=_("Cooling available"),
        choices=SiteCooling.choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    floor_load_kg_per_m2 = decimal(
        _("Floor load (kg/m²)"),
        low=100,
        high=20_000,
        help_text=_("An 8-GPU server alone weighs 130 kg or more."),
    )
    inlet_temp_min_c = decimal(_("Lowest inlet temperature held (°C)"), low=-10, high=60)
    inlet_temp_max_c = decimal(_("Highest inlet temperature held (°C)"), low=-10, high=60)
    humidity_min_pct = decimal(_("Lowest relative humidity held (%)"), low=0, high=100)
    humidity_max_pct = decimal(_("Highest relative humidity held (%)"), low=0, high=100)
    pue = decimal(
        _("PUE"),
        low=1.0,
        high=3.0,
        help_text=_("Measured over a year if you have it; Guizhou's limit for new rooms is 1.2."),
    )
    power_feeds = whole(_("Independent utility power feeds"), low=1, high=8)
    ups_minutes = decimal(_("UPS backup (minutes)"), low=0, high=1440)
    generator_start_s = decimal(
        _("Diesel generator start time (seconds)"),
        low=0,
        high=3600,
        help_text=_("Empty if there is no generator."),
    )

    ROOM_FIELDS = ("room_name", "province", *ROOM_FIGURES)

    @classmethod
    def shown_fields(cls, stored: dict) -> list[str]:
        mode = stored.get("mode")
        if mode == "catalog":
            return ["mode", "data_center"]
        if mode == "compare":
            return ["mode", "compare"]
        return ["mode", *cls.ROOM_FIELDS]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        centers = catalog.data_center_choices()
        self.fields["data_center"].choices = [("", _("Choose a data center"))] + centers
        self.fields["compare"].choices = centers
        self.fields["province"].choices = [("", _("Choose a province"))] + (
            catalog.province_choices()
        )
        # An unknown key (a crafted post) gets the command line's words for it.
        for name, template in (
            ("province", rules_of_the_document.NOT_A_POLICY_ZONE),
            ("data_center", rules_of_the_document.NOT_A_DATA_CENTER),
            ("compare", rules_of_the_document.NOT_A_DATA_CENTER),
        ):
            self.fields[name].error_messages["invalid_choice"] = render_text(
                Message(template, {"value": "%(value)s"})
            )

    def clean(self):
        data = super().clean()
        mode = data.get("mode")
        if mode == "catalog":
            self.require("data_center")
        elif mode == "compare":
            chosen = data.get("compare") or []
            if not COMPARE_MIN <= len(chosen) <= COMPARE_MAX:
                self.add_error(
                    "compare",
                    _("Tick between %(low)s and %(high)s data centers (you ticked %(n)s).")
                    % {"low": COMPARE_MIN, "high": COMPARE_MAX, "n": len(chosen)},
                )
        elif mode == "own":
            self.require("room_name", "province", "max_kw_per_rack", "pue", "power_feeds")
            self._ordered("inlet_temp_min_c", "inlet_temp_max_c")
            self._ordered("humidity_min_pct", "humidity_max_pct")
        return data

    def _ordered(self, low_name, high_name):
        low, high = self.cleaned_data.get(low_name), self.cleaned_data.get(high_name)
        if low is not None and high is not None and low > high:
            self.add_error(
                high_name, render_text(Message(rules_of_the_document.HIGHEST_BELOW_LOWEST))
            )
