from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from advisor.api.models import Scope
from advisor.api.tokens import MAX_DAYS
from advisor.text import UserTextField


class TokenForm(forms.Form):
    name = UserTextField(
        label=_("Name"),
        max_length=80,
        help_text=_("What the token is for, e.g. “CI sizing” (only you see it)."),
    )
    scope = forms.ChoiceField(
        label=pgettext_lazy("what an API token may do", "Scope"),
        choices=Scope.choices,
        initial=Scope.READ,
        widget=forms.RadioSelect,
        help_text=_(
            "Read: size, rank and read. Read and write: also create assessments and issue briefs."
        ),
    )
    days = forms.IntegerField(
        label=_("Valid for (days)"),
        min_value=1,
        max_value=MAX_DAYS,
        initial=90,
        help_text=_("At most a year; the token stops working after that."),
    )
