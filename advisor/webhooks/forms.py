"""The webhooks page's forms: an endpoint's name, URL, events and state (the address checked
at save by ``WebhookEndpoint.clean``), and, when it is added, its format."""

from django import forms
from django.utils.translation import gettext_lazy as _

from advisor.text import UserTextField
from advisor.webhooks.models import BRIEF_EVENTS, Format, WebhookEndpoint, new_secret

EVENT_CHOICES = [(str(event), event.label) for event in BRIEF_EVENTS]


def no_control_characters(secret: str) -> str:
    if any(ord(c) < 32 or ord(c) == 127 for c in secret):
        raise forms.ValidationError(_("A secret has no control characters."))
    return secret


class EndpointForm(forms.ModelForm):
    """Changes to an endpoint (its format stays): a Standard Webhooks endpoint may get a new
    signing secret (shown once), a robot its own secret anew (empty keeps the saved one)."""

    name = UserTextField(
        label=_("Name"),
        max_length=80,
        help_text=_("What the receiving system is, e.g. “purchase requests”."),
    )
    url = forms.URLField(
        label=_("URL"),
        max_length=500,
        assume_scheme="https",
        help_text=_(
            "Where each event is sent (POST). Only public addresses, unless an operator "
            "allows a network."
        ),
    )
    events = forms.MultipleChoiceField(
        label=_("Events"),
        choices=EVENT_CHOICES,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("The events this endpoint is told of."),
        error_messages={"required": _("Choose at least one event.")},
    )
    active = forms.BooleanField(
        label=_("Active (send events to this endpoint)"),
        required=False,
        help_text=_("An inactive endpoint is sent nothing; its messages still to be sent stop."),
    )

    class Meta:
        model = WebhookEndpoint
        fields = ["name", "url", "events", "active"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.made_secret = ""
        if self.instance.pk is None:
            return
        if self.instance.format == Format.STANDARD:
            self.fields["renew_secret"] = forms.BooleanField(
                label=_("Make a new signing secret"),
                required=False,
                help_text=_(
                    "It is shown once after saving; the old one stops working at once, so "
                    "give the new one to the receiver straight away."
                ),
            )
        else:
            self.fields["robot_secret"] = forms.CharField(
                label=_("Robot's signing secret"),
                max_length=100,
                required=False,
                help_text=_("Leave it empty to keep the saved one."),
            )

    def clean_robot_secret(self):
        return no_control_characters(self.cleaned_data["robot_secret"])

    def save(self, commit=True):
        endpoint = super().save(commit=False)
        if self.cleaned_data.get("renew_secret"):
            endpoint.secret = self.made_secret = new_secret()
        elif endpoint.format != Format.STANDARD and self.cleaned_data.get("robot_secret"):
            endpoint.secret = self.cleaned_data["robot_secret"]
        if commit:
            endpoint.save()
        return endpoint


class NewEndpointForm(EndpointForm):
    """A new endpoint: Standard Webhooks (a signing secret is made and shown once) or a chat
    robot (its own secret is entered)."""

    format = forms.ChoiceField(
        label=_("Format"),
        choices=Format.choices,
        initial=Format.STANDARD,
        widget=forms.RadioSelect,
        help_text=_(
            "Standard Webhooks: a signed JSON event for a program. A chat robot: a message "
            "people read in a DingTalk, Feishu or WeCom group."
        ),
    )
    robot_secret = forms.CharField(
        label=_("Robot's signing secret"),
        max_length=100,
        required=False,
        strip=True,
        help_text=_(
            "Only for a DingTalk or Feishu robot with signing on (WeCom's key is in its URL). "
            "A Standard Webhooks endpoint gets a secret made for it."
        ),
    )

    class Meta(EndpointForm.Meta):
        fields = ["name", "format", "url", "events", "active"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["active"].initial = True

    def save(self, commit=True):
        endpoint = super().save(commit=False)
        if endpoint.format == Format.STANDARD:
            self.made_secret = endpoint.secret  # made with the row: shown once
        else:
            endpoint.secret = self.cleaned_data["robot_secret"]
        if commit:
            endpoint.save()
        return endpoint
