from django.contrib import admin, messages
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from advisor.questionnaire.models import AnswerSheet
from advisor.questionnaire.promote import MODELS, promotable, promote


@admin.register(AnswerSheet)
class AnswerSheetAdmin(admin.ModelAdmin):
    list_display = ["original_name", "assessment", "uploaded_by", "received_on", "applied_at"]
    list_filter = ["applied_at"]
    readonly_fields = [
        "assessment", "uploaded_by", "option_key", "file", "original_name", "sha256",
        "uploaded_at", "received_on", "declared", "applied_at",
    ]  # fmt: skip
    actions = ["promote_declared"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.action(description=gettext_lazy("Promote declared facts into the catalog"))
    def promote_declared(self, request, queryset):
        sheets = [sheet for sheet in queryset if sheet.applied_at]
        facts = {
            f"{sheet.pk}:{item.subject}:{item.fact.name}": (sheet, item)
            for sheet in sheets
            for item in promotable(sheet.declared)
        }
        allowed = {
            kind for kind, model in MODELS.items()
            if request.user.has_perm(f"vendors.change_{model._meta.model_name}")
        }  # fmt: skip
        facts = {key: value for key, value in facts.items() if value[1].fact.kind in allowed}
        if "apply" in request.POST:
            chosen = [facts[key] for key in request.POST.getlist("fact") if key in facts]
            for sheet, item in chosen:
                for result in promote([item], sheet.received_on.isoformat()):
                    label = f"{item.subject} · {item.fact.name}"
                    if result.error:
                        messages.error(request, f"{label}: {result.error}")
                    else:
                        messages.success(
                            request, _("%(fact)s is now in the catalog.") % {"fact": label}
                        )
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": _("Promote declared facts into the catalog"),
            "facts": sorted(facts.items()),
            "queryset": queryset,
            "opts": self.model._meta,
            "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/questionnaire/promote.html", context)
