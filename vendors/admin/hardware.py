"""Admin of accelerators and server models."""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from vendors import models, resources
from vendors.admin.base import HARDWARE_PROVENANCE, CatalogAdmin, MemoryFilter


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
        "source_kinds",
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
                    "peer_to_peer",
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
        HARDWARE_PROVENANCE,
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
        "source_kinds",
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
        HARDWARE_PROVENANCE,
    )
