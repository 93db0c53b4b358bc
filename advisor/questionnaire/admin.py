from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.http import FileResponse, Http404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from advisor.questionnaire.models import AnswerSheet
from advisor.questionnaire.promote import MODELS, promotable, promote


@admin.register(AnswerSheet)
class AnswerSheetAdmin(admin.ModelAdmin):
    list_display = ["original_name", "assessment", "uploaded_by", "received_on", "applied_at"]
    list_filter = ["applied_at"]
    # The uploaded file is served by ``answer_file`` (below), which checks the permission, not
    # linked under /media/ (not served in production, and open to anyone who had the link).
    readonly_fields = [
        "assessment", "uploaded_by", "option_key", "uploaded_file", "original_name", "sha256",
        "uploaded_at", "received_on", "declared", "applied_at",
    ]  # fmt: skip
    exclude = ["file"]  # its /media/ link: shown as ``uploaded_file`` instead
    actions = ["promote_declared"]

    def get_urls(self):
        own = [
            path(
                "<path:object_id>/file/",
                self.admin_site.admin_view(self.answer_file),
                name=f"{self.opts.app_label}_{self.opts.model_name}_file",
            )
        ]
        return own + super().get_urls()

    def answer_file(self, request, object_id):
        """The uploaded workbook, to whoever may view this answer sheet (404 otherwise)."""
        sheet = self.get_object(request, unquote(object_id))
        if sheet is None or not sheet.file:
            raise Http404
        if not self.has_view_permission(request, sheet):
            raise PermissionDenied
        try:
            handle = sheet.file.open("rb")
        except (FileNotFoundError, OSError):
            raise Http404 from None
        return FileResponse(
            handle,
            as_attachment=True,
            filename=sheet.original_name or "answers.xlsx",
            content_type="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        )

    @admin.display(description=gettext_lazy("file"))
    def uploaded_file(self, obj):
        if not obj.file:
            return "—"
        url = reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_file", args=[obj.pk])
        return format_html('<a href="{}">{}</a>', url, obj.original_name or "answers.xlsx")

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
