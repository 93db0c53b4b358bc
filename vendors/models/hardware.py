"""Hardware: accelerators and the server models that carry them.

See :mod:`vendors.models` for the conventions every catalog model follows.
"""

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from vendors import choices, constants
from vendors.models.base import CatalogEntry, inlet_temp, null_or, percent, positive

LOW_CONFIDENCE_HELP = _(
    "Field names of the figures whose only sources are aggregators or blogs (the LOW flag), "
    "separated by commas, e.g. tdp_w, memory_bandwidth_tbps."
)


def low_confidence_field():
    return models.CharField(
        verbose_name=_("low-confidence figures"),
        max_length=300,
        blank=True,
        help_text=LOW_CONFIDENCE_HELP,
    )


def parse_figure_names(text: str) -> tuple[str, ...]:
    """``"tdp_w, memory_bandwidth_tbps"`` → ``("tdp_w", "memory_bandwidth_tbps")``."""
    return tuple(dict.fromkeys(part.strip() for part in (text or "").split(",") if part.strip()))


def low_confidence_errors(row) -> dict:
    """Each name must be one of the row's figures, and the figure must be recorded."""
    problems = []
    for name in parse_figure_names(row.low_confidence_figures):
        if name not in row.FIGURE_FIELDS:
            problems.append(_("“%(name)s” is not a figure of this record.") % {"name": name})
        elif getattr(row, name) in (None, ""):
            problems.append(
                _("“%(name)s” is empty; an empty figure needs no flag.") % {"name": name}
            )
    if problems:
        return {"low_confidence_figures": " ".join(str(p) for p in problems)}
    return {}


class Accelerator(CatalogEntry):
    maker = models.CharField(verbose_name=_("maker"), max_length=constants.NAME_MAX_LENGTH)
    maker_zh = models.CharField(
        verbose_name=_("maker (Chinese)"),
        max_length=constants.NAME_MAX_LENGTH,
        blank=True,
        help_text=_("Shown on Chinese pages; empty shows the maker."),
    )
    name = models.CharField(verbose_name=_("name"), max_length=constants.NAME_MAX_LENGTH)
    name_zh = models.CharField(
        verbose_name=_("Chinese name"),
        max_length=constants.NAME_MAX_LENGTH,
        blank=True,
        help_text=_("Shown on Chinese pages; empty shows the name."),
    )
    architecture = models.CharField(
        verbose_name=_("architecture"), max_length=constants.NAME_MAX_LENGTH, blank=True
    )
    memory_gb = models.FloatField(
        verbose_name=_("memory capacity (GB, as marketed)"),
        validators=[
            MinValueValidator(0.1),
            MaxValueValidator(constants.ACCELERATOR_MEMORY_GB_MAX),
        ],
    )
    memory_type = models.CharField(
        verbose_name=_("memory type"), max_length=50, blank=True, help_text=_("e.g. HBM3, GDDR6")
    )
    memory_bandwidth_tbps = models.FloatField(
        verbose_name=_("memory bandwidth (TB/s)"), null=True, blank=True, validators=positive()
    )
    bf16_dense_tflops = models.FloatField(
        verbose_name=_("dense BF16 tensor TFLOPS"), null=True, blank=True, validators=positive()
    )
    fp16_dense_tflops = models.FloatField(
        verbose_name=_("dense FP16 tensor TFLOPS"), null=True, blank=True, validators=positive()
    )
    fp8_dense_tflops = models.FloatField(
        verbose_name=_("dense FP8 tensor TFLOPS"),
        null=True,
        blank=True,
        validators=positive(),
        help_text=_("Empty when the part has no FP8 support or no source gives it."),
    )
    tdp_w = models.FloatField(
        verbose_name=_("TDP (W)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(constants.ACCELERATOR_TDP_W_MAX)],
    )
    form_factor = models.CharField(
        verbose_name=_("form factor"), max_length=20, choices=choices.FormFactor.choices
    )
    form_factor_detail = models.CharField(
        verbose_name=_("form factor detail"), max_length=constants.NAME_MAX_LENGTH, blank=True
    )
    interconnect_kind = models.CharField(
        verbose_name=_("scale-up interconnect"),
        max_length=20,
        choices=choices.InterconnectKind.choices,
    )
    interconnect_bandwidth_gbs = models.FloatField(
        verbose_name=_("scale-up bandwidth per GPU (GB/s, bidirectional)"),
        null=True,
        blank=True,
        validators=positive(),
    )
    peer_to_peer = models.BooleanField(
        verbose_name=_("GPU peer-to-peer over PCIe"),
        null=True,
        blank=True,
        help_text=_(
            "Whether two cards of this model in one server can read each other's memory "
            "directly (CUDA peer access). Without it collectives go through host memory; "
            "empty when no source says."
        ),
    )
    software_stack = models.CharField(
        verbose_name=_("software stack"), max_length=10, choices=choices.SoftwareStack.choices
    )
    china_availability = models.CharField(
        verbose_name=_("availability in mainland China"),
        max_length=20,
        choices=choices.ChinaAvailability.choices,
        default=choices.ChinaAvailability.UNKNOWN,
        help_text=_("Reported as recorded by the catalog admin; the product does not decide law."),
    )
    china_availability_note = models.TextField(
        verbose_name=_("availability / export-control note"), blank=True
    )
    china_availability_as_of = models.DateField(
        verbose_name=_("availability status as of"), null=True, blank=True
    )
    low_confidence_figures = low_confidence_field()

    # The figures ``low_confidence_figures`` may name.
    FIGURE_FIELDS = (
        "memory_gb",
        "memory_type",
        "memory_bandwidth_tbps",
        "bf16_dense_tflops",
        "fp16_dense_tflops",
        "fp8_dense_tflops",
        "tdp_w",
        "interconnect_bandwidth_gbs",
        "peer_to_peer",
    )

    class Meta:
        verbose_name = _("accelerator")
        verbose_name_plural = _("accelerators")
        ordering = ["maker", "name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(memory_gb__gt=0), name="%(app_label)s_%(class)s_memory_positive"
            ),
            models.CheckConstraint(
                condition=null_or(Q(tdp_w__gt=0), "tdp_w"),
                name="%(app_label)s_%(class)s_tdp_positive",
            ),
            models.CheckConstraint(
                condition=null_or(Q(memory_bandwidth_tbps__gt=0), "memory_bandwidth_tbps"),
                name="%(app_label)s_%(class)s_bandwidth_positive",
            ),
            models.CheckConstraint(
                condition=Q(interconnect_kind__in=choices.InterconnectKind.values),
                name="%(app_label)s_%(class)s_interconnect_kind_valid",
            ),
            models.CheckConstraint(
                condition=Q(software_stack__in=choices.SoftwareStack.values),
                name="%(app_label)s_%(class)s_software_stack_valid",
            ),
        ]

    def __str__(self):
        return f"{self.maker} {self.name}"

    def clean(self):
        super().clean()
        errors = low_confidence_errors(self)
        status = self.china_availability
        if status and status != choices.ChinaAvailability.UNKNOWN:
            if not self.china_availability_as_of:
                errors["china_availability_as_of"] = _(
                    "Give the date of the availability status you recorded."
                )
            if not self.china_availability_note:
                errors["china_availability_note"] = _(
                    "Say what the availability status rests on (rule, notice, press report)."
                )
        if (
            self.interconnect_kind == choices.InterconnectKind.PCIE
            and self.interconnect_bandwidth_gbs
            and self.interconnect_bandwidth_gbs > constants.PCIE_MAX_GBS
        ):
            errors["interconnect_bandwidth_gbs"] = _(
                "A PCIe-only part cannot exceed %(max)s GB/s per GPU; choose the NVLink or "
                "other interconnect kind."
            ) % {"max": constants.PCIE_MAX_GBS}
        if errors:
            raise ValidationError(errors)


class ServerModel(CatalogEntry):
    maker = models.CharField(verbose_name=_("maker"), max_length=constants.NAME_MAX_LENGTH)
    maker_zh = models.CharField(
        verbose_name=_("maker (Chinese)"),
        max_length=constants.NAME_MAX_LENGTH,
        blank=True,
        help_text=_("Shown on Chinese pages; empty shows the maker."),
    )
    name = models.CharField(verbose_name=_("name"), max_length=constants.NAME_MAX_LENGTH)
    name_zh = models.CharField(
        verbose_name=_("Chinese name"),
        max_length=constants.NAME_MAX_LENGTH,
        blank=True,
        help_text=_("Shown on Chinese pages; empty shows the name."),
    )
    accelerator = models.ForeignKey(
        Accelerator,
        verbose_name=_("accelerator"),
        on_delete=models.PROTECT,
        related_name="servers",
    )
    gpu_count = models.PositiveSmallIntegerField(
        verbose_name=_("accelerators per server"),
        validators=[MinValueValidator(1), MaxValueValidator(constants.SERVER_GPU_COUNT_MAX)],
    )
    topology = models.CharField(
        verbose_name=_("intra-node topology"),
        max_length=20,
        choices=choices.ServerTopology.choices,
    )
    intra_node_bandwidth_gbs = models.FloatField(
        verbose_name=_("intra-node bandwidth per GPU (GB/s, bidirectional)"),
        null=True,
        blank=True,
        validators=positive(),
    )
    cpu = models.CharField(
        verbose_name=_("CPUs"),
        max_length=constants.NAME_MAX_LENGTH,
        blank=True,
        help_text=_("Count and model, e.g. 2× Intel Xeon Platinum 8480C."),
    )
    host_memory_gib = models.FloatField(
        verbose_name=_("host memory (GiB)"), null=True, blank=True, validators=positive()
    )
    nvme_usable_tb = models.FloatField(
        verbose_name=_("usable NVMe capacity (TB)"), null=True, blank=True, validators=positive()
    )
    nvme_read_gbs = models.FloatField(
        verbose_name=_("NVMe sequential read (GB/s)"), null=True, blank=True, validators=positive()
    )
    nic_kind = models.CharField(  # noqa: DJ001 - empty must read as None in the domain specs
        verbose_name=_("scale-out NIC kind"),
        max_length=20,
        choices=choices.NicKind.choices,
        null=True,
        blank=True,
    )
    nic_count = models.PositiveSmallIntegerField(
        verbose_name=_("scale-out NIC count"), null=True, blank=True
    )
    nic_gbps = models.FloatField(
        verbose_name=_("speed per NIC (Gb/s)"), null=True, blank=True, validators=positive()
    )
    nic_details = models.CharField(verbose_name=_("network details"), max_length=500, blank=True)
    power_max_w = models.FloatField(
        verbose_name=_("maximum power (W)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(constants.SERVER_POWER_W_MAX)],
    )
    power_typical_w = models.FloatField(
        verbose_name=_("typical power at full training load (W)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(constants.SERVER_POWER_W_MAX)],
    )
    weight_kg = models.FloatField(
        verbose_name=_("weight (kg)"), null=True, blank=True, validators=positive()
    )
    rack_units = models.PositiveSmallIntegerField(
        verbose_name=_("height (rack units)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(constants.SERVER_RACK_UNITS_MAX)],
    )
    cooling = models.CharField(
        verbose_name=_("cooling"),
        max_length=10,
        choices=choices.ServerCooling.choices,
        blank=True,
        help_text=_(
            "Empty when no source states how this model is cooled (a separate record per "
            "air- and liquid-cooled variant)."
        ),
    )
    inlet_temp_min_c = models.FloatField(
        verbose_name=_("supported inlet temperature, minimum (°C)"),
        null=True,
        blank=True,
        validators=inlet_temp(),
    )
    inlet_temp_max_c = models.FloatField(
        verbose_name=_("supported inlet temperature, maximum (°C)"),
        null=True,
        blank=True,
        validators=inlet_temp(),
    )
    humidity_min_pct = models.FloatField(
        verbose_name=_("supported relative humidity, minimum (%)"),
        null=True,
        blank=True,
        validators=percent(),
    )
    humidity_max_pct = models.FloatField(
        verbose_name=_("supported relative humidity, maximum (%)"),
        null=True,
        blank=True,
        validators=percent(),
    )
    low_confidence_figures = low_confidence_field()

    # The figures ``low_confidence_figures`` may name.
    FIGURE_FIELDS = (
        "intra_node_bandwidth_gbs",
        "cpu",
        "host_memory_gib",
        "nvme_usable_tb",
        "nvme_read_gbs",
        "nic_count",
        "nic_gbps",
        "power_max_w",
        "power_typical_w",
        "weight_kg",
        "rack_units",
        "cooling",
        "inlet_temp_min_c",
        "inlet_temp_max_c",
        "humidity_min_pct",
        "humidity_max_pct",
    )

    class Meta:
        verbose_name = _("server model")
        verbose_name_plural = _("server models")
        ordering = ["maker", "name"]
        constraints = [
            models.CheckConstraint(
                condition=null_or(
                    Q(power_typical_w__lte=models.F("power_max_w")),
                    "power_typical_w",
                    "power_max_w",
                ),
                name="%(app_label)s_%(class)s_typical_power_within_max",
            ),
            models.CheckConstraint(
                condition=null_or(
                    Q(inlet_temp_min_c__lt=models.F("inlet_temp_max_c")),
                    "inlet_temp_min_c",
                    "inlet_temp_max_c",
                ),
                name="%(app_label)s_%(class)s_inlet_temp_range",
            ),
            models.CheckConstraint(
                condition=null_or(
                    Q(humidity_min_pct__lt=models.F("humidity_max_pct")),
                    "humidity_min_pct",
                    "humidity_max_pct",
                ),
                name="%(app_label)s_%(class)s_humidity_range",
            ),
            models.CheckConstraint(
                condition=Q(gpu_count__gte=1), name="%(app_label)s_%(class)s_gpu_count_positive"
            ),
            models.CheckConstraint(
                condition=Q(topology__in=choices.ServerTopology.values),
                name="%(app_label)s_%(class)s_topology_valid",
            ),
        ]

    def __str__(self):
        return f"{self.maker} {self.name}"

    def natural_key(self):
        return (self.key,)

    natural_key.dependencies = ["vendors.accelerator"]

    # Which accelerator interconnects each topology needs.
    TOPOLOGY_INTERCONNECTS = {
        choices.ServerTopology.NVSWITCH: {choices.InterconnectKind.NVLINK},
        choices.ServerTopology.NVLINK_PAIRS: {
            choices.InterconnectKind.NVLINK,
            choices.InterconnectKind.NVLINK_BRIDGE,
        },
        choices.ServerTopology.HCCS_MESH: {choices.InterconnectKind.HCCS},
        choices.ServerTopology.XGMI_MESH: {choices.InterconnectKind.XGMI},
    }

    def clean(self):
        super().clean()
        errors = low_confidence_errors(self)
        if (
            self.power_typical_w is not None
            and self.power_max_w is not None
            and self.power_typical_w > self.power_max_w
        ):
            errors["power_typical_w"] = _("Typical power cannot exceed the maximum power.")
        if (
            self.inlet_temp_min_c is not None
            and self.inlet_temp_max_c is not None
            and self.inlet_temp_min_c >= self.inlet_temp_max_c
        ):
            errors["inlet_temp_max_c"] = _(
                "The maximum inlet temperature must be above the minimum."
            )
        if (
            self.humidity_min_pct is not None
            and self.humidity_max_pct is not None
            and self.humidity_min_pct >= self.humidity_max_pct
        ):
            errors["humidity_max_pct"] = _("The maximum humidity must be above the minimum.")
        if (self.nic_count or self.nic_gbps) and not self.nic_kind:
            errors["nic_kind"] = _("Say which kind of NIC the count and speed describe.")
        accelerator = self.accelerator if self.accelerator_id else None
        needed = self.TOPOLOGY_INTERCONNECTS.get(self.topology)
        if accelerator and needed and accelerator.interconnect_kind not in needed:
            errors["topology"] = _(
                "%(topology)s needs an accelerator with %(kinds)s links; %(accelerator)s has "
                "%(actual)s."
            ) % {
                "topology": self.get_topology_display(),
                "kinds": " / ".join(sorted(needed)),
                "accelerator": accelerator,
                "actual": accelerator.get_interconnect_kind_display(),
            }
        if errors:
            raise ValidationError(errors)
