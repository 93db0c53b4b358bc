from django import forms
from django.utils.translation import gettext_lazy as _

from advisor.questionnaire.xlsx import MAX_UPLOAD_BYTES


class UploadForm(forms.Form):
    option = forms.CharField(widget=forms.HiddenInput, max_length=300, required=False)
    file = forms.FileField(
        label=_("Filled questionnaire (XLSX)"),
        help_text=_("The spreadsheet the vendor returned, at most 2 MiB."),
    )

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > MAX_UPLOAD_BYTES:
            raise forms.ValidationError(
                _("The file is larger than %(size)d MiB.") % {"size": MAX_UPLOAD_BYTES // 2**20}
            )
        return upload
