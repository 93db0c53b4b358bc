from django import forms
from django.utils.translation import gettext_lazy as _

from advisor.brief.credentials import MAX_PKCS12_BYTES
from advisor.brief.verification import MAX_PDF_BYTES, NotAPdf, check_pdf_bytes
from advisor.text import UserTextField

UPLOAD_ERRORS = {
    "empty": _("The selected file is empty."),
    "too-large": _("The file is larger than %(limit)d MB. A brief is far smaller than that."),
    "not-pdf": _("The selected file is not a PDF."),
    "too-complex": _(
        "This PDF is too complex to check here: it holds far more objects, form fields or "
        "signatures than any brief we issue. It is not one of our briefs as issued."
    ),
    "stopped": _(
        "Checking this PDF needed far more time or memory than any brief we issue, so the "
        "check was stopped. It is not one of our briefs as issued."
    ),
    "failed": _(
        "This PDF could not be checked because of a fault on our side. Try again later; if it "
        "keeps failing, contact the procurement office."
    ),
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


class IssueForm(forms.Form):
    assessment = forms.IntegerField(min_value=1)
    option = forms.CharField(max_length=200)
    # The stored recommendation the page showed (its token); absent: the current one.
    computed = forms.UUIDField(required=False)
    language = forms.ChoiceField(choices=[("zh-hans", "简体中文"), ("en", "English")])
    # Why the buyer chose an option other than rank 1 (the service requires it then).
    reason = UserTextField(required=False)  # its length is the service's to refuse (kept)


class ReviewForm(forms.Form):
    APPROVE = "approve"
    SEND_BACK = "send_back"
    decision = forms.ChoiceField(
        label=_("Decision"),
        choices=[(APPROVE, _("Approve")), (SEND_BACK, _("Send back"))],
        widget=forms.RadioSelect,
        error_messages={"required": _("Choose whether to approve or send back.")},
    )
    comment = UserTextField(
        label=_("Comment"),
        required=False,
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_(
            "Required when sending back: say what needs to change. When approving, it is "
            "printed in the approved PDF's sign-off table; a long one is begun there and "
            "printed whole in an appendix. At most 2,000 characters."
        ),
        error_messages={
            "max_length": _(
                "Keep the comment within %(limit_value)d characters (it has %(show_value)d): "
                "shorten it, your text is kept below."
            )
        },
    )
    acknowledge_vetoes = forms.BooleanField(
        label=_(
            "I have read the veto checks that await the vendor and approve knowing they are "
            "not settled"
        ),
        required=False,
    )

    passphrase = forms.CharField(
        label=_("Passphrase of your signing certificate"),
        required=False,
        strip=False,
        max_length=1024,
        widget=forms.PasswordInput(attrs={"autocomplete": "off"}, render_value=False),
        help_text=_(
            "When approving, your own certificate signs the approved PDF; the passphrase opens "
            "it for this signature only and is not kept."
        ),
    )

    def __init__(self, *args, open_vetoes: int = 0, signs: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.open_vetoes = open_vetoes
        if not open_vetoes:
            del self.fields["acknowledge_vetoes"]
        if not signs:
            del self.fields["passphrase"]

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("decision") == self.SEND_BACK and not cleaned.get("comment", "").strip():
            self.add_error("comment", _("Say what needs to change before sending the brief back."))
        approving = cleaned.get("decision") == self.APPROVE
        if approving and self.open_vetoes and not cleaned.get("acknowledge_vetoes"):
            self.add_error(
                "acknowledge_vetoes",
                _("Acknowledge the open veto checks to approve, or send the brief back."),
            )
        return cleaned


class CertificateForm(forms.Form):
    """An approver's own signing certificate: the PKCS#12 file and the passphrase opening it."""

    certificate = forms.FileField(
        label=_("Signing certificate (PKCS#12: .p12 or .pfx)"),
        error_messages={"required": _("Choose your signing certificate file.")},
    )
    passphrase = forms.CharField(
        label=_("Its passphrase"),
        strip=False,
        max_length=1024,
        widget=forms.PasswordInput(attrs={"autocomplete": "off"}, render_value=False),
        help_text=_(
            "The file is kept encrypted under a key made from this passphrase; the passphrase "
            "itself is never stored. You type it again at each approval."
        ),
        error_messages={"required": _("Enter the passphrase that opens the file.")},
    )

    def clean_certificate(self):
        upload = self.cleaned_data["certificate"]
        if upload.size > MAX_PKCS12_BYTES:
            raise forms.ValidationError(
                _("This is not a signing certificate file (PKCS#12, .p12 or .pfx).")
            )
        return upload.read()
