from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from advisor.brief.models import AuditEvent, Brief


class ReadOnlyAdmin(admin.ModelAdmin):
    """Issued briefs and audit events are records: viewable, never edited in admin."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Brief)
class BriefAdmin(ReadOnlyAdmin):
    list_display = [
        "number",
        "status",
        "language",
        "origin",
        "prepared_by",
        "approved_by",
        "created_at",
    ]
    list_filter = ["status", "language", "origin"]
    search_fields = ["number", "sha256", "prepared_by__username"]
    date_hierarchy = "created_at"


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ["at", "actor_username", "action", "brief_number"]
    list_filter = ["action"]
    search_fields = ["actor_username", "brief_number"]
    date_hierarchy = "at"
    readonly_fields = ["at", "action", "actor", "actor_username", "brief", "brief_number", "detail"]
    fieldsets = [(_("Event"), {"fields": readonly_fields})]
