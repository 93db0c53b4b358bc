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

    pin = forms.CharField(
        label=_("PIN of your signing token"),
        required=False,
        strip=False,
        max_length=256,
        widget=forms.PasswordInput(attrs={"autocomplete": "off"}, render_value=False),
        help_text=_(
            "When approving, the key on your signing token signs the approved PDF; the PIN "
            "unlocks the token for this signature only and is not kept."
        ),
    )

    otp = forms.CharField(
        label=_("One-time code (if the signing service asks for one)"),
        required=False,
        strip=True,
        max_length=64,
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "inputmode": "numeric"}),
    )

    def __init__(
        self,
        *args,
        open_vetoes: int = 0,
        signs: bool = False,
        key_source: str | None = None,
        **kwargs,
    ):
        """``key_source``: where the approver's own key is ("pkcs12": a passphrase opens it,
        "pkcs11": a PIN unlocks their token, "csc": a PIN and perhaps a one-time code
        authorise the signing service; None: they have none); ``signs`` means "pkcs12"."""
        super().__init__(*args, **kwargs)
        self.open_vetoes = open_vetoes
        if key_source is None and signs:
            key_source = "pkcs12"
        if not open_vetoes:
            del self.fields["acknowledge_vetoes"]
        if key_source != "pkcs12":
            del self.fields["passphrase"]
        if key_source not in ("pkcs11", "csc"):
            del self.fields["pin"]
        if key_source != "csc":
            del self.fields["otp"]
        else:
            self.fields["pin"].label = _("PIN for your key at the signing service")
            self.fields["pin"].help_text = _(
                "When approving, the signing service signs the approved PDF with your key; the "
                "PIN authorises this one signature and is not kept."
            )

    def code(self) -> str:
        """The signing service's one-time code the approver typed, if any."""
        return self.cleaned_data.get("otp") or ""

    def secret(self) -> str:
        """What the approver typed to open their key (passphrase or PIN)."""
        return self.cleaned_data.get("passphrase") or self.cleaned_data.get("pin") or ""

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


class SigningTokenForm(forms.Form):
    """An approver's key on their PKCS#11 token: the token's label, the key's label and/or ID,
    and the PIN that unlocks the token to read its certificate now (not kept)."""

    token_label = forms.CharField(
        label=_("Token label"),
        max_length=32,
        help_text=_("The name your token shows, as its own tools list it."),
        error_messages={"required": _("Enter your token's label.")},
    )
    key_label = forms.CharField(
        label=_("Key label"),
        max_length=100,
        required=False,
        help_text=_("The label of your signing key on the token (or give its ID below)."),
    )
    key_id = forms.CharField(
        label=_("Key ID (hexadecimal)"),
        max_length=128,
        required=False,
        help_text=_("For example a1b2 or a1:b2. Leave it empty when you gave the key label."),
    )
    pin = forms.CharField(
        label=_("Token PIN"),
        strip=False,
        max_length=256,
        widget=forms.PasswordInput(attrs={"autocomplete": "off"}, render_value=False),
        help_text=_(
            "Unlocks the token to read the certificate stored with the key. It is never "
            "stored: you type it again at each approval."
        ),
        error_messages={"required": _("Enter your token's PIN.")},
    )

    def clean_key_id(self):
        value = self.cleaned_data["key_id"].strip().replace(":", "").replace(" ", "").lower()
        try:
            bytes.fromhex(value)
        except ValueError:
            raise forms.ValidationError(
                _("A key ID is hexadecimal digits (0-9, a-f), for example a1b2.")
            ) from None
        return value

    def clean(self):
        cleaned = super().clean()
        if not cleaned.get("key_label") and not cleaned.get("key_id") and not self.errors:
            self.add_error("key_label", _("Name the key: give its label or its ID."))
        return cleaned


class RemoteCredentialForm(forms.Form):
    """An approver's credential at the remote signing service: its ID there."""

    credential_id = forms.CharField(
        label=_("Credential ID at the signing service"),
        max_length=200,
        help_text=_(
            "The identifier the signing service gave your key (its credential ID). The "
            "certificate is read from the service and checked as an uploaded one is."
        ),
        error_messages={"required": _("Enter your credential ID at the signing service.")},
    )
