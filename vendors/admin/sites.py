"""Admin of policy zones, their tariffs and rack fees, and data centers."""

from django.contrib import admin
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from advisor.catalog.economics import table_price
from vendors import forms, models, resources
from vendors.admin.base import PROVENANCE, CatalogAdmin, FreshnessFilter


def newest_priced_tariff(zone):
    """The zone's newest tariff that gives a 24-hour price (a full table or a single figure)."""
    for tariff in sorted(zone.tariffs.all(), key=lambda t: (t.month, t.key), reverse=True):
        if table_price(tariff) is not None or tariff.flat_figure_cny_per_kwh is not None:
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
            price = table_price(tariff)
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
        "source_kinds",
        "age",
    )
    list_filter = ("flag", "tariff_class", "policy_zone", FreshnessFilter)
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
        price = table_price(tariff)
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
        "source_kinds",
        "as_of",
    )
    list_filter = ("flag", "power_included", "policy_zone", FreshnessFilter)
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
        "source_kinds",
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
