"""Admin of hosting vendors and their certificates."""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from vendors import models, resources
from vendors.admin.base import (
    PROVENANCE,
    CatalogAdmin,
    CertificateExpiryFilter,
    ExpiryFilter,
    FreshnessFilter,
)


class CertificateInline(admin.TabularInline):
    model = models.Certificate
    extra = 0
    fields = (
        "kind",
        "iso27001_edition",
        "mlps_level",
        "number",
        "issuer",
        "valid_until",
        "last_surveillance_audit",
        "last_assessment_date",
        "claim_status",
    )
    show_change_link = True


class DataCenterInline(admin.TabularInline):
    model = models.DataCenter
    extra = 0
    fields = (
        "name",
        "name_zh",
        "key",
        "city",
        "province",
        "policy_zone",
        "is_example",
        "claim_status",
    )
    show_change_link = True


@admin.register(models.HostingVendor)
class HostingVendorAdmin(CatalogAdmin):
    resource_classes = [resources.HostingVendorResource]
    inlines = (CertificateInline, DataCenterInline)
    list_display = (
        "name",
        "key",
        "founded_year",
        "years_in_business",
        "licence_number",
        "licence_categories",
        "licence_valid_until",
        "icp_filing_number",
        "claim_status",
    )
    list_filter = (ExpiryFilter, "claim_status", "self_operated_dcs", "cnnic_member")
    search_fields = (
        "key",
        "name",
        "name_zh",
        "legal_name",
        "licence_number",
        "icp_filing_number",
    )
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "key",
                    "name",
                    "name_zh",
                    "legal_name",
                    "founded_year",
                    "registered_capital_cny",
                    "claim_status",
                )
            },
        ),
        (
            _("Licence and filing"),
            {
                "fields": (
                    "licence_number",
                    "licence_categories",
                    "licence_valid_until",
                    "icp_filing_number",
                    "supports_model_filing",
                )
            },
        ),
        (
            _("Network"),
            {
                "fields": (
                    "carriers",
                    "has_own_bgp",
                    "backbone",
                    "cnnic_member",
                    "multi_cloud_failover",
                    "node_coverage",
                )
            },
        ),
        (
            _("Service terms"),
            {
                "fields": (
                    "self_operated_dcs",
                    "onsite_24x7",
                    "spare_parts_stock",
                    "spare_part_replacement_hours",
                    "fault_response_hours",
                    "mttr_hours",
                    "compensation_terms",
                    "automatic_inspection",
                )
            },
        ),
        PROVENANCE,
    )

    @admin.display(description=_("years in business"))
    def years_in_business(self, obj):
        return obj.years_in_business


@admin.register(models.Certificate)
class CertificateAdmin(CatalogAdmin):
    resource_classes = [resources.CertificateResource]
    list_display = (
        "vendor",
        "kind",
        "iso27001_edition",
        "mlps_level",
        "number",
        "issuer",
        "valid_until",
        "last_surveillance_audit",
        "claim_status",
    )
    list_filter = (
        "kind",
        "iso27001_edition",
        CertificateExpiryFilter,
        FreshnessFilter,
        "claim_status",
    )
    list_select_related = ("vendor",)
    search_fields = ("key", "number", "issuer", "vendor__name")
    autocomplete_fields = ("vendor",)
