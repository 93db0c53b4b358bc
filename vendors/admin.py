"""Django admin for the catalog: lists, search, filters, inlines, history, import/export.

Every catalog model uses :class:`CatalogAdmin`: django-simple-history's history view (who,
when, what changed), django-import-export's CSV/XLSX import with a dry-run preview and export,
and read-only audit timestamps. Editing and importing need the model's Django permissions, which
the "catalog admin" group holds (advisor/roles.py).
"""

from datetime import timedelta

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from import_export.admin import ImportExportModelAdmin
from simple_history.admin import SimpleHistoryAdmin

from advisor.spreadsheets import catalog_formats
from vendors import forms, models, resources
from vendors.hf_config import slug_for

AUDIT_FIELDS = ("created_at", "updated_at")
PROVENANCE = (_("Provenance"), {"fields": ("source", "as_of", "notes", *AUDIT_FIELDS)})


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


# --------------------------------------------------------------------------- filters


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


# --------------------------------------------------------------------------- hardware


@admin.register(models.Accelerator)
class AcceleratorAdmin(CatalogAdmin):
    resource_classes = [resources.AcceleratorResource]
    list_display = (
        "name",
        "maker",
        "key",
        "memory_gb",
        "memory_bandwidth_tbps",
        "bf16_dense_tflops",
        "tdp_w",
        "interconnect_kind",
        "software_stack",
        "china_availability",
        "as_of",
    )
    list_filter = (
        MemoryFilter,
        "maker",
        "software_stack",
        "interconnect_kind",
        "form_factor",
        "china_availability",
    )
    search_fields = ("key", "name", "name_zh", "maker", "maker_zh", "architecture")
    fieldsets = (
        (
            None,
            {"fields": ("key", ("maker", "maker_zh"), ("name", "name_zh"), "architecture")},
        ),
        (_("Memory"), {"fields": ("memory_gb", "memory_type", "memory_bandwidth_tbps")}),
        (
            _("Compute and power"),
            {"fields": ("bf16_dense_tflops", "fp16_dense_tflops", "fp8_dense_tflops", "tdp_w")},
        ),
        (
            _("Form factor and interconnect"),
            {
                "fields": (
                    "form_factor",
                    "form_factor_detail",
                    "interconnect_kind",
                    "interconnect_bandwidth_gbs",
                    "software_stack",
                )
            },
        ),
        (
            _("Availability in mainland China"),
            {
                "fields": (
                    "china_availability",
                    "china_availability_note",
                    "china_availability_as_of",
                )
            },
        ),
        PROVENANCE,
    )


@admin.register(models.ServerModel)
class ServerModelAdmin(CatalogAdmin):
    resource_classes = [resources.ServerModelResource]
    list_display = (
        "name",
        "maker",
        "key",
        "accelerator",
        "gpu_count",
        "topology",
        "power_max_w",
        "weight_kg",
        "rack_units",
        "cooling",
    )
    list_filter = ("topology", "cooling", "nic_kind", "accelerator__maker", "maker")
    list_select_related = ("accelerator",)
    search_fields = (
        "key",
        "name",
        "name_zh",
        "maker",
        "maker_zh",
        "accelerator__name",
        "accelerator__key",
    )
    autocomplete_fields = ("accelerator",)
    fieldsets = (
        (None, {"fields": ("key", ("maker", "maker_zh"), ("name", "name_zh"))}),
        (
            _("Accelerators"),
            {"fields": ("accelerator", "gpu_count", "topology", "intra_node_bandwidth_gbs")},
        ),
        (
            _("Host"),
            {"fields": ("cpu", "host_memory_gib", "nvme_usable_tb", "nvme_read_gbs")},
        ),
        (_("Network"), {"fields": ("nic_kind", "nic_count", "nic_gbps", "nic_details")}),
        (
            _("Power, weight and environment"),
            {
                "fields": (
                    "power_max_w",
                    "power_typical_w",
                    "weight_kg",
                    "rack_units",
                    "cooling",
                    ("inlet_temp_min_c", "inlet_temp_max_c"),
                    ("humidity_min_pct", "humidity_max_pct"),
                )
            },
        ),
        PROVENANCE,
    )


# --------------------------------------------------------------------------- vendors


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
    list_filter = ("kind", "iso27001_edition", CertificateExpiryFilter, "claim_status")
    list_select_related = ("vendor",)
    search_fields = ("key", "number", "issuer", "vendor__name")
    autocomplete_fields = ("vendor",)


# --------------------------------------------------------------------------- sites


def newest_priced_tariff(zone):
    """The zone's newest tariff that gives a 24-hour price (a full table or a single figure)."""
    for tariff in sorted(zone.tariffs.all(), key=lambda t: (t.month, t.key), reverse=True):
        if tariff.effective_price() is not None or tariff.flat_figure_cny_per_kwh is not None:
            return tariff
    return None


def price_age_days(tariff, today=None) -> int:
    """Days from the month a tariff applies to (its first day) until ``today``."""
    today = today or timezone.localdate()
    return (today - tariff.month.replace(day=1)).days


# Electricity tables change monthly: a price older than this is shown as stale.
TARIFF_STALE_DAYS = 60


class TariffCoverageFilter(admin.SimpleListFilter):
    """Zones with their own electricity price, only a wider zone's, or none (national figure)."""

    title = _("electricity price")
    parameter_name = "price"

    def lookups(self, request, model_admin):
        return (
            ("own", _("has its own price")),
            ("wider", _("uses a wider zone's price")),
            ("none", _("no price: national figure")),
        )

    def queryset(self, request, queryset):
        if self.value() is None:
            return queryset
        keep = []
        for zone in queryset.prefetch_related("tariffs"):
            chain = zone.chain()
            own = newest_priced_tariff(zone) is not None or zone.tariff_cny_per_kwh is not None
            wider = any(
                newest_priced_tariff(z) is not None or z.tariff_cny_per_kwh is not None
                for z in chain[1:]
            )
            status = "own" if own else ("wider" if wider else "none")
            if status == self.value():
                keep.append(zone.pk)
        return queryset.filter(pk__in=keep)


@admin.register(models.PolicyZone)
class PolicyZoneAdmin(CatalogAdmin):
    resource_classes = [resources.PolicyZoneResource]
    list_display = (
        "name",
        "name_zh",
        "province",
        "parent",
        "electricity_price",
        "price_month",
        "price_age",
        "price_confidence",
    )
    list_filter = (TariffCoverageFilter, "kind", "province", "pue_limit_flag")
    search_fields = ("key", "name", "name_zh", "province")

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("parent").prefetch_related("tariffs")

    @admin.display(description=_("24-hour electricity price (CNY/kWh)"))
    def electricity_price(self, zone):
        tariff = newest_priced_tariff(zone)
        if tariff is not None:
            price = tariff.effective_price()
            value = price.energy_cny_per_kwh if price else tariff.flat_figure_cny_per_kwh
            return f"{value:.4f}"
        if zone.tariff_cny_per_kwh is not None:
            return f"{zone.tariff_cny_per_kwh:.4f}"
        for wider in zone.chain()[1:]:
            if newest_priced_tariff(wider) is not None or wider.tariff_cny_per_kwh is not None:
                return gettext("none: uses %(zone)s") % {"zone": wider.name}
        return gettext("none: national figure")

    @admin.display(description=_("price month"))
    def price_month(self, zone):
        tariff = newest_priced_tariff(zone)
        if tariff is not None:
            return f"{tariff.month:%Y-%m}"
        if zone.tariff_cny_per_kwh is not None and zone.tariff_as_of:
            return f"{zone.tariff_as_of:%Y-%m}"
        return "—"

    @admin.display(description=_("price age"))
    def price_age(self, zone):
        tariff = newest_priced_tariff(zone)
        if tariff is None:
            return "—"
        days = price_age_days(tariff)
        text = gettext("%(months)d months") % {"months": days // 30}
        if days > TARIFF_STALE_DAYS:
            text = gettext("%(age)s (stale)") % {"age": text}
        return text

    @admin.display(description=_("price confidence"))
    def price_confidence(self, zone):
        tariff = newest_priced_tariff(zone)
        if tariff is not None:
            return tariff.get_flag_display()
        return zone.get_tariff_flag_display() or "—"

    fieldsets = (
        (None, {"fields": ("key", "name", "name_zh", "kind", "province", "parent")}),
        (
            _("PUE limit"),
            {
                "fields": (
                    "pue_limit",
                    "pue_limit_basis",
                    "pue_limit_source",
                    "pue_limit_flag",
                    "pue_limit_as_of",
                )
            },
        ),
        (
            _("Electricity"),
            {
                "fields": (
                    "tariff_cny_per_kwh",
                    "tariff_basis",
                    "tariff_source",
                    "tariff_flag",
                    "tariff_as_of",
                    "demand_charge_cny_per_kw_month",
                    "preferential_tariff_cny_per_kwh",
                    "preferential_tariff_note",
                )
            },
        ),
        PROVENANCE,
    )


PUBLICATION = (
    _("Publication"),
    {"fields": ("issuer", "document_title", "url", "published_on", "flag")},
)


@admin.register(models.Tariff)
class TariffAdmin(CatalogAdmin):
    resource_classes = [resources.TariffResource]
    list_display = (
        "policy_zone",
        "month",
        "tariff_class",
        "energy_price",
        "demand_charge_cny_per_kw_month",
        "flag",
        "age",
    )
    list_filter = ("flag", "tariff_class", "policy_zone")
    search_fields = ("key", "document_title", "issuer", "policy_zone__name", "policy_zone__key")
    date_hierarchy = "month"
    list_select_related = ("policy_zone",)
    fieldsets = (
        (None, {"fields": ("key", "policy_zone", "month", "tariff_class")}),
        PUBLICATION,
        (
            _("Time-of-use bands"),
            {
                "fields": (
                    ("sharp_cny_per_kwh", "sharp_hours", "sharp_months"),
                    ("peak_cny_per_kwh", "peak_hours"),
                    ("flat_cny_per_kwh", "flat_hours"),
                    ("valley_cny_per_kwh", "valley_hours"),
                    ("deep_valley_cny_per_kwh", "deep_valley_hours", "deep_valley_months"),
                    "hours_source",
                )
            },
        ),
        (
            _("Single figure and basic charges"),
            {
                "fields": (
                    "flat_figure_cny_per_kwh",
                    "demand_charge_cny_per_kw_month",
                    "capacity_charge_cny_per_kva_month",
                )
            },
        ),
        PROVENANCE,
    )

    @admin.display(description=_("24-hour energy price (CNY/kWh)"))
    def energy_price(self, tariff):
        price = tariff.effective_price()
        if price is not None:
            return f"{price.energy_cny_per_kwh:.4f}"
        if tariff.flat_figure_cny_per_kwh is not None:
            return f"{tariff.flat_figure_cny_per_kwh:.4f}"
        return gettext("incomplete: %(bands)s without a price") % {
            "bands": ", ".join(tariff.incomplete_bands())
        }

    @admin.display(description=_("age"), ordering="month")
    def age(self, tariff):
        days = price_age_days(tariff)
        text = gettext("%(months)d months") % {"months": days // 30}
        if days > TARIFF_STALE_DAYS:
            text = gettext("%(age)s (stale)") % {"age": text}
        return text


@admin.register(models.RackFee)
class RackFeeAdmin(CatalogAdmin):
    resource_classes = [resources.RackFeeResource]
    list_display = (
        "key",
        "policy_zone",
        "kw_min",
        "kw_max",
        "price_cny_per_month",
        "power_included",
        "flag",
        "as_of",
    )
    list_filter = ("flag", "power_included", "policy_zone")
    search_fields = ("key", "document_title", "issuer", "policy_zone__name")
    list_select_related = ("policy_zone",)
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "key",
                    "policy_zone",
                    ("kw_min", "kw_max"),
                    "price_cny_per_month",
                    "power_included",
                )
            },
        ),
        PUBLICATION,
        PROVENANCE,
    )


@admin.register(models.DataCenter)
class DataCenterAdmin(CatalogAdmin):
    resource_classes = [resources.DataCenterResource]
    form = forms.DataCenterAdminForm
    list_display = (
        "name",
        "name_zh",
        "vendor",
        "city",
        "province",
        "policy_zone",
        "is_example",
        "pue_design",
        "max_kw_per_rack",
        "rack_fee_cny_per_month",
    )
    list_filter = ("province", "is_example", "claim_status", "gb50174_class", "vendor")
    list_select_related = ("vendor", "policy_zone")
    search_fields = ("key", "name", "name_zh", "city", "city_zh", "province", "vendor__name")
    autocomplete_fields = ("vendor", "policy_zone")
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "key",
                    ("name", "name_zh"),
                    "vendor",
                    ("city", "city_zh", "province"),
                    "policy_zone",
                    "is_example",
                    "claim_status",
                )
            },
        ),
        (
            _("Building, power and cooling"),
            {
                "fields": (
                    ("gb50174_class", "uptime_tier"),
                    ("pue_design", "pue_measured"),
                    "cooling_available",
                    "max_kw_per_rack",
                    "floor_load_kg_per_m2",
                    "power_feeds",
                    "ups_minutes",
                    "generator_start_s",
                    ("hvdc", "hvdc_efficiency_pct"),
                )
            },
        ),
        (
            _("Room climate"),
            {
                "fields": (
                    ("inlet_temp_min_c", "inlet_temp_max_c"),
                    ("humidity_min_pct", "humidity_max_pct"),
                    "humidity_control",
                    "dust_filtration",
                    "dew_point_min_c",
                    "dew_point_max_c",
                    "climate_mean_rh_pct",
                )
            },
        ),
        (
            _("Network"),
            {
                "fields": (
                    "latency_east_china_ms",
                    "latency_south_china_ms",
                    ("latency_other_region", "latency_other_ms"),
                    "packet_loss_pct",
                )
            },
        ),
        (
            _("Fees"),
            {
                "fields": (
                    "rack_fee_cny_per_month",
                    "rack_fee_kw",
                    "power_pricing",
                    "power_price_cny_per_kwh",
                )
            },
        ),
        PROVENANCE,
    )


# --------------------------------------------------------------------------- offers


@admin.register(models.Offer)
class OfferAdmin(CatalogAdmin):
    resource_classes = [resources.OfferResource]
    list_display = (
        "key",
        "server_model",
        "kind",
        "price_display",
        "currency",
        "seller",
        "quoted_on",
        "valid_until",
        "is_example",
        "price_flag",
    )
    list_filter = ("is_example", "kind", "currency", "price_flag")
    list_select_related = ("server_model", "vendor", "data_center")
    search_fields = ("key", "server_model__name", "seller_name", "vendor__name")
    autocomplete_fields = ("server_model", "vendor", "data_center")
    fieldsets = (
        (None, {"fields": ("key", "server_model", "kind", "is_example", "price_flag")}),
        (
            _("Seller"),
            {
                "fields": (
                    "vendor",
                    "data_center",
                    "seller_name",
                    ("provider", "region", "region_in_mainland_china"),
                    "instance_gpus",
                )
            },
        ),
        (
            _("Price"),
            {
                "fields": (
                    "currency",
                    "purchase_price",
                    "monthly_rent",
                    "hourly_price_per_gpu",
                    "lead_time_weeks",
                    ("quoted_on", "valid_until"),
                )
            },
        ),
        PROVENANCE,
    )

    @admin.display(description=_("price"))
    def price_display(self, obj):
        price = obj.price
        if price is None:
            return "—"
        return f"{price:,} ({models.EXAMPLE_LABEL})" if obj.is_example else f"{price:,}"

    @admin.display(description=_("seller"))
    def seller(self, obj):
        return obj.data_center or obj.vendor or obj.seller_name


# --------------------------------------------------------------------------- model presets


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
                key=self.unique_key(slug_for(fields["name"])),
                hf_repo=repo,
                source="\n".join(
                    filter(
                        None,
                        [
                            f"Uploaded config.json ({form.cleaned_data['config_file'].name})",
                            f"https://huggingface.co/{repo}/blob/main/config.json" if repo else "",
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
