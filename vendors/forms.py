"""Admin forms for the catalog."""

from django import forms
from django.utils.translation import gettext_lazy as _

from vendors import choices, constants
from vendors.hf_config import ConfigError, preset_from_config
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
        % {"kib": constants.MODEL_CONFIG_UPLOAD_MAX_BYTES // 1024},
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
        if upload.size > constants.MODEL_CONFIG_UPLOAD_MAX_BYTES:
            raise forms.ValidationError(
                _("The file is %(size)s bytes; a config.json is at most %(max)s bytes.")
                % {"size": upload.size, "max": constants.MODEL_CONFIG_UPLOAD_MAX_BYTES}
            )
        raw = upload.read(constants.MODEL_CONFIG_UPLOAD_MAX_BYTES + 1)
        try:
            self.preset_fields = preset_from_config(raw)
        except ConfigError as exc:
            raise forms.ValidationError(
                _("This file cannot be read as a model configuration: %(reason)s") % {"reason": exc}
            ) from exc
        return upload
