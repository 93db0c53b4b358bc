from django import forms
from django.utils.translation import gettext_lazy as _

from advisor.brief.verification import MAX_PDF_BYTES, NotAPdf, check_pdf_bytes

UPLOAD_ERRORS = {
    "empty": _("The selected file is empty."),
    "too-large": _("The file is larger than %(limit)d MB. A brief is far smaller than that."),
    "not-pdf": _("The selected file is not a PDF."),
}


class VerifyUploadForm(forms.Form):
    pdf = forms.FileField(
        label=_("Brief PDF"),
        help_text=_("The signed procurement brief as you received it (PDF, at most 20 MB)."),
        error_messages={"required": _("Select the PDF you want to check.")},
    )

    def clean_pdf(self):
        upload = self.cleaned_data["pdf"]
        if upload.size > MAX_PDF_BYTES:
            raise forms.ValidationError(
                UPLOAD_ERRORS["too-large"], params={"limit": MAX_PDF_BYTES // (1024 * 1024)}
            )
        data = upload.read()
        try:
            check_pdf_bytes(data)
        except NotAPdf as error:
            raise forms.ValidationError(
                UPLOAD_ERRORS[str(error)], params={"limit": MAX_PDF_BYTES // (1024 * 1024)}
            ) from error
        return data
