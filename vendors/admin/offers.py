"""Admin of offers (buy, rent, cloud) with their prices."""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from vendors import models, resources
from vendors.admin.base import PROVENANCE, CatalogAdmin, FreshnessFilter


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
        "source_kinds",
    )
    list_filter = ("is_example", "kind", "currency", "price_flag", FreshnessFilter)
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
                    ("provider", "provider_zh"),
                    ("region", "region_zh", "region_in_mainland_china"),
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
