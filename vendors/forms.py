"""Admin forms for the catalog."""

from django import forms
from django.utils.translation import gettext_lazy as _

from advisor.domain import model_config
from advisor.presentation.text import render_text
from advisor.text import clean_text
from vendors import choices, constants
from vendors.models import DataCenter


class DataCenterAdminForm(forms.ModelForm):
    cooling_available = forms.MultipleChoiceField(
        label=_("cooling available"),
        choices=choices.SiteCooling.choices,
        widget=forms.CheckboxSelectMultiple,
        required=False,
    )

    class Meta:
        model = DataCenter
        fields = ("cooling_available",)  # the admin adds the fields of its fieldsets


class ModelConfigUploadForm(forms.Form):
    config_file = forms.FileField(
        label=_("Hugging Face config.json"),
        help_text=_("The model's config.json (at most %(kib)s KiB). Nothing is downloaded.")
        % {"kib": model_config.MAX_BYTES // 1024},
    )
    name = forms.CharField(
        label=_("preset name"),
        max_length=constants.NAME_MAX_LENGTH,
        required=False,
        help_text=_("e.g. Qwen2.5-7B-Instruct; defaults to the name in the file."),
    )
    hf_repo = forms.CharField(
        label=_("Hugging Face repository"),
        max_length=constants.NAME_MAX_LENGTH,
        required=False,
        help_text=_("e.g. Qwen/Qwen2.5-7B-Instruct (recorded as the source)."),
    )

    def clean_config_file(self):
        upload = self.cleaned_data["config_file"]
        try:
            fields = model_config.read(upload.read(model_config.MAX_BYTES + 1))
        except model_config.ConfigProblem as problem:
            raise forms.ValidationError(
                _("This file cannot be read as a model configuration: %(reason)s")
                % {"reason": render_text(problem.message)}
            ) from problem
        self.preset_fields = preset_fields(fields)
        return upload


PRESET_FIELDS = (
    "family",
    "params_b",
    "active_params_b",
    "layers",
    "hidden",
    "heads",
    "kv_heads",
    "head_dim",
    "sliding_window",
    "sliding_window_layers",
    "intermediate",
    "vocab",
    "tied_embeddings",
    "experts",
    "experts_per_token",
    "context_length",
)


def preset_fields(fields: dict) -> dict:
    """A model preset's fields from what :func:`advisor.domain.model_config.read` gives."""
    name = clean_text(fields["name"])[: constants.NAME_MAX_LENGTH] or "Uploaded model"
    return {"name": name, **{key: fields[key] for key in PRESET_FIELDS}}


def slug_for(name: str) -> str:
    """A catalog key for an uploaded model's name."""
    out = []
    for ch in name.lower():
        out.append(ch if ch.isalnum() and ch.isascii() else "-")
    slug = "-".join(part for part in "".join(out).split("-") if part)
    return slug[: constants.KEY_MAX_LENGTH] or "model"
