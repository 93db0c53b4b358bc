"""The name of a draft."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from advisor.assessments.models import TITLE_MAX_LENGTH
from advisor.text import UserTextField


class TitleForm(forms.Form):
    title = UserTextField(label=_("Name"), max_length=TITLE_MAX_LENGTH)

    def clean_title(self):
        title = self.cleaned_data["title"].strip()
        if not title:
            raise forms.ValidationError(_("Enter a name."))
        return title
