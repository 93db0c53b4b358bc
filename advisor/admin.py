"""Django admin for the compliance rule parameters (overrides of the domain's defaults)."""

from django.contrib import admin
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from simple_history.admin import SimpleHistoryAdmin

from advisor.models import RuleParameter


@admin.register(RuleParameter)
class RuleParameterAdmin(SimpleHistoryAdmin):
    list_display = ["key", "title", "value", "default", "unit", "updated_at"]
    search_fields = ["key", "reason"]
    readonly_fields = ["title", "default", "unit", "citation", "updated_at"]
    fields = ["key", "title", "value", "default", "unit", "citation", "reason", "updated_at"]

    @admin.display(description=_("meaning"))
    def title(self, obj):
        return gettext(obj.definition.title) if obj.definition else "—"

    @admin.display(description=_("default"))
    def default(self, obj):
        return obj.definition.default if obj.definition else "—"

    @admin.display(description=_("unit"))
    def unit(self, obj):
        return gettext(obj.definition.unit) if obj.definition and obj.definition.unit else "—"

    @admin.display(description=_("citation"))
    def citation(self, obj):
        return gettext(obj.definition.citation) if obj.definition else "—"
