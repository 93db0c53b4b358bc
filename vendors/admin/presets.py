"""Admin of model presets, with a config.json upload."""

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from vendors import forms, models, resources
from vendors.admin.base import PROVENANCE, CatalogAdmin, MoeFilter


@admin.register(models.ModelPreset)
class ModelPresetAdmin(CatalogAdmin):
    resource_classes = [resources.ModelPresetResource]
    change_list_template = "admin/vendors/modelpreset/change_list.html"
    list_display = (
        "name",
        "family",
        "params_b",
        "active_params_b",
        "layers",
        "hidden",
        "heads",
        "kv_heads",
        "experts",
        "context_length",
    )
    list_filter = ("family", MoeFilter, "tied_embeddings")
    search_fields = ("key", "name", "hf_repo")
    fieldsets = (
        (None, {"fields": ("key", "name", "family", "hf_repo")}),
        (_("Size"), {"fields": ("params_b", "active_params_b", "context_length")}),
        (
            _("Architecture"),
            {
                "fields": (
                    "layers",
                    "hidden",
                    ("heads", "kv_heads", "head_dim"),
                    ("sliding_window", "sliding_window_layers"),
                    "intermediate",
                    "vocab",
                    "tied_embeddings",
                    ("experts", "experts_per_token"),
                )
            },
        ),
        PROVENANCE,
    )

    def get_urls(self):
        info = self.opts.app_label, self.opts.model_name
        return [
            path(
                "upload-config/",
                self.admin_site.admin_view(self.upload_config_view),
                name=f"{info[0]}_{info[1]}_upload_config",
            ),
            *super().get_urls(),
        ]

    def upload_config_view(self, request):
        """Create a preset from an uploaded Hugging Face config.json (no network access)."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = forms.ModelConfigUploadForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            fields = dict(form.preset_fields)
            if form.cleaned_data["name"]:
                fields["name"] = form.cleaned_data["name"]
            repo = form.cleaned_data["hf_repo"]
            preset = models.ModelPreset(
                **fields,
                key=self.unique_key(forms.slug_for(fields["name"])),
                hf_repo=repo,
                source="\n".join(
                    filter(
                        None,
                        [
                            # The model publisher's own file (docs/decisions/0042).
                            f"[vendor] Uploaded config.json "
                            f"({form.cleaned_data['config_file'].name})",
                            f"[vendor] https://huggingface.co/{repo}/blob/main/config.json"
                            if repo
                            else "",
                        ],
                    )
                ),
                as_of=timezone.localdate(),
                notes=gettext(
                    "Created from an uploaded config.json; parameter counts are estimated from "
                    "the shape. Check them against the model card."
                ),
            )
            preset.full_clean()
            preset.save()
            self.log_addition(request, preset, [{"added": {}}])
            messages.success(
                request,
                gettext(
                    "Model preset “%(name)s” created from config.json: %(params)s B parameters."
                )
                % {"name": preset.name, "params": preset.params_b},
            )
            return redirect(reverse("admin:vendors_modelpreset_change", args=[preset.pk]))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "form": form,
            "title": gettext("Create a model preset from config.json"),
        }
        return TemplateResponse(request, "admin/vendors/modelpreset/upload_config.html", context)

    @staticmethod
    def unique_key(base):
        key, n = base, 2
        while models.ModelPreset.objects.filter(key=key).exists():
            suffix = f"-{n}"
            key, n = base[: 64 - len(suffix)] + suffix, n + 1
        return key
