"""The base of every catalog admin (import/export, history, provenance) and its list filters."""

from datetime import timedelta

from django.contrib import admin
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from import_export.admin import ImportExportModelAdmin
from simple_history.admin import SimpleHistoryAdmin

from advisor.domain import sources as domain_sources
from advisor.spreadsheets import catalog_formats
from vendors import choices, freshness

AUDIT_FIELDS = ("created_at", "updated_at")
PROVENANCE = (_("Provenance"), {"fields": ("source", "as_of", "notes", *AUDIT_FIELDS)})
# Hardware rows also name the figures whose only sources are aggregators or blogs.
HARDWARE_PROVENANCE = (
    _("Provenance"),
    {"fields": ("source", "low_confidence_figures", "as_of", "notes", *AUDIT_FIELDS)},
)


class CatalogAdmin(ImportExportModelAdmin, SimpleHistoryAdmin):
    import_template_name = "admin/vendors/import.html"
    readonly_fields = AUDIT_FIELDS
    list_per_page = 50
    save_on_top = True

    # CSV and XLSX only, and no exported cell is ever a formula (advisor/spreadsheets.py).
    def get_import_formats(self):
        return catalog_formats()[0]

    def get_export_formats(self):
        return catalog_formats()[1]

    # Importing writes rows, so it needs the add and change permissions; exporting needs view.
    def has_import_permission(self, request):
        return self.has_add_permission(request) and self.has_change_permission(request)

    def has_export_permission(self, request):
        return self.has_view_permission(request)

    @admin.display(description=_("source kinds"))
    def source_kinds(self, obj):
        """The kinds of the row's source lines, strongest first, e.g. "Press report, Blog"."""
        kinds = sorted(domain_sources.kinds_of(obj.source), key=domain_sources.SOURCE_KINDS.index)
        return ", ".join(str(choices.SourceKind(kind).label) for kind in kinds) or "—"


class MemoryFilter(admin.SimpleListFilter):
    title = _("memory capacity")
    parameter_name = "memory"
    BANDS = {
        "le24": (None, 24),
        "le48": (24, 48),
        "le96": (48, 96),
        "le192": (96, 192),
        "gt192": (192, None),
    }

    def lookups(self, request, model_admin):
        return [
            ("le24", _("up to 24 GB")),
            ("le48", _("25–48 GB")),
            ("le96", _("49–96 GB")),
            ("le192", _("97–192 GB")),
            ("gt192", _("more than 192 GB")),
        ]

    def queryset(self, request, queryset):
        band = self.BANDS.get(self.value())
        if not band:
            return queryset
        low, high = band
        if low is not None:
            queryset = queryset.filter(memory_gb__gt=low)
        if high is not None:
            queryset = queryset.filter(memory_gb__lte=high)
        return queryset


class ExpiryFilter(admin.SimpleListFilter):
    """Expired / expiring within 90 days / valid / unknown, on a date field."""

    title = _("licence expiry")
    parameter_name = "licence_expiry"
    field = "licence_valid_until"
    SOON_DAYS = 90

    def lookups(self, request, model_admin):
        return [
            ("expired", _("expired")),
            ("soon", _("expires within 90 days")),
            ("valid", _("valid for more than 90 days")),
            ("unknown", _("expiry not recorded")),
        ]

    def queryset(self, request, queryset):
        today = timezone.localdate()
        soon = today + timedelta(days=self.SOON_DAYS)
        f = self.field
        match self.value():
            case "expired":
                return queryset.filter(**{f"{f}__lt": today})
            case "soon":
                return queryset.filter(**{f"{f}__gte": today, f"{f}__lte": soon})
            case "valid":
                return queryset.filter(**{f"{f}__gt": soon})
            case "unknown":
                return queryset.filter(**{f"{f}__isnull": True})
        return queryset


class CertificateExpiryFilter(ExpiryFilter):
    title = _("certificate expiry")
    parameter_name = "expiry"
    field = "valid_until"


class FreshnessFilter(admin.SimpleListFilter):
    """Past its kind's freshness limit / current / without a date (vendors/freshness.py)."""

    title = _("freshness")
    parameter_name = "freshness"

    def lookups(self, request, model_admin):
        return [
            (freshness.STALE, _("stale: past its freshness limit")),
            ("current", _("current")),
            (freshness.UNDATED, _("no date to judge by")),
        ]

    def queryset(self, request, queryset):
        today = timezone.localdate()
        model = queryset.model
        match self.value():
            case freshness.STALE:
                return queryset.filter(freshness.stale_q(model, today))
            case freshness.UNDATED:
                return queryset.filter(freshness.stale_q(model, today, freshness.UNDATED))
            case "current":
                return queryset.exclude(freshness.stale_q(model, today)).exclude(
                    freshness.stale_q(model, today, freshness.UNDATED)
                )
        return queryset


class MoeFilter(admin.SimpleListFilter):
    title = _("architecture")
    parameter_name = "moe"

    def lookups(self, request, model_admin):
        return [("dense", _("dense")), ("moe", _("mixture of experts"))]

    def queryset(self, request, queryset):
        if self.value() == "moe":
            return queryset.filter(experts__gt=1)
        if self.value() == "dense":
            return queryset.filter(Q(experts__isnull=True) | Q(experts__lte=1))
        return queryset
