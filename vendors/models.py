"""Catalog models: accelerators, servers, hosting vendors, data centers, policy zones, offers,
model presets.

Conventions (see docs/catalog.md):
- units are in field names (``_gb`` marketed decimal GB, ``_gib`` binary, ``_tbps`` TB/s,
  ``_gbs`` GB/s, ``_gbps`` Gb/s, ``_w`` watts, ``_kg``, ``_c`` °C, ``_pct`` percent,
  ``_cny`` yuan) and in verbose names;
- every row carries ``source`` (URLs or document names) and ``as_of`` (date of the figures);
  a figure nobody could source stays empty, never guessed;
- every model has a unique ``key`` (its natural key), so fixtures load without primary keys
  and reload idempotently;
- accelerator and server field names equal the field names of the dataclasses in
  ``advisor/domain/hardware.py``.
"""

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from advisor.domain.economics.tariff import (
    TariffError,
    effective_price,
    parse_months,
    table_bands,
)
from vendors import choices, constants

# --------------------------------------------------------------------------- helpers

AUDIT_FIELDS = {"created_at", "updated_at"}
EXAMPLE_LABEL = _("example")
FIXTURE_CHANGE_REASON = "Loaded from catalog fixture"


def positive(**kwargs):
    return [MinValueValidator(0, **kwargs)]


def percent():
    return [MinValueValidator(constants.PERCENT_MIN), MaxValueValidator(constants.PERCENT_MAX)]


def inlet_temp():
    return [
        MinValueValidator(constants.INLET_TEMP_C_MIN),
        MaxValueValidator(constants.INLET_TEMP_C_MAX),
    ]


def pue():
    return [MinValueValidator(constants.PUE_MIN), MaxValueValidator(constants.PUE_MAX)]


def null_or(condition: Q, *fields: str) -> Q:
    """``condition`` holds, or one of ``fields`` is empty (for optional figures)."""
    result = condition
    for name in fields:
        result |= Q(**{f"{name}__isnull": True})
    return result


class KeyedManager(models.Manager):
    """Looks rows up by their natural key, the ``key`` slug."""

    def get_by_natural_key(self, key):
        return self.get(key=key)


class CatalogEntry(models.Model):
    """Fields every catalog row has: natural key, provenance and audit timestamps."""

    key = models.SlugField(
        verbose_name=_("key"),
        max_length=constants.KEY_MAX_LENGTH,
        unique=True,
        help_text=_("Stable identifier used by fixtures, imports and the domain."),
    )
    source = models.TextField(
        verbose_name=_("source"),
        blank=True,
        max_length=constants.SOURCE_MAX_LENGTH,
        help_text=_("Where the figures come from: URLs or document names, one per line."),
    )
    as_of = models.DateField(
        verbose_name=_("figures as of"),
        null=True,
        blank=True,
        help_text=_("Date the sourced figures were valid or retrieved."),
    )
    notes = models.TextField(verbose_name=_("notes"), blank=True)
    # Not auto_now/auto_now_add: fixtures are saved raw, which skips those; see save() and
    # keep_created_at() below.
    created_at = models.DateTimeField(
        verbose_name=_("created at"), default=timezone.now, editable=False
    )
    updated_at = models.DateTimeField(
        verbose_name=_("updated at"), default=timezone.now, editable=False
    )

    history = HistoricalRecords(inherit=True)
    objects = KeyedManager()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        self.updated_at = timezone.now()
        # Browsers post text areas with CRLF line ends; store one form so edits diff cleanly.
        for field in self._meta.concrete_fields:
            value = getattr(self, field.attname)
            if isinstance(field, models.TextField) and isinstance(value, str) and "\r" in value:
                setattr(self, field.attname, value.replace("\r\n", "\n").replace("\r", "\n"))
        update_fields = kwargs.get("update_fields")
        if update_fields is not None:
            kwargs["update_fields"] = {*update_fields, "updated_at"}
        super().save(*args, **kwargs)

    def natural_key(self):
        return (self.key,)


@receiver(post_save)
def record_fixture_history(sender, instance, raw=False, created=False, **kwargs):
    """Fixture loads (raw saves) get a history entry too, so later edits show a diff.

    django-simple-history skips raw saves; without a baseline the first admin edit would have
    nothing to compare with. A reload that changes nothing adds no entry.
    """
    if not raw or not isinstance(instance, CatalogEntry):
        return
    history_model = sender.history.model
    fields = [f for f in history_model.tracked_fields if f.attname not in AUDIT_FIELDS]
    latest = history_model.objects.filter(id=instance.pk).order_by("-history_date").first()
    if latest and all(getattr(latest, f.attname) == getattr(instance, f.attname) for f in fields):
        return
    history_model.objects.create(
        history_date=timezone.now(),
        history_type="+" if latest is None else "~",
        history_change_reason=FIXTURE_CHANGE_REASON,
        history_user=None,
        **{f.attname: getattr(instance, f.attname) for f in history_model.tracked_fields},
    )


@receiver(pre_save)
def keep_created_at(sender, instance, raw=False, **kwargs):
    """A fixture reload (a raw save of an existing row) keeps the row's creation time."""
    if raw and isinstance(instance, CatalogEntry) and instance.pk:
        created = sender._base_manager.filter(pk=instance.pk).values_list("created_at", flat=True)
        instance.created_at = created.first() or instance.created_at


# --------------------------------------------------------------------------- hardware


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
        errors = {}
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
        verbose_name=_("cooling"), max_length=10, choices=choices.ServerCooling.choices
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
        errors = {}
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


# --------------------------------------------------------------------------- hosting vendors


class HostingVendor(CatalogEntry):
    """An IDC provider that hosts or rents out GPU servers."""

    name = models.CharField(
        verbose_name=_("name"),
        max_length=constants.NAME_MAX_LENGTH,
        help_text=_("Brand or trade name as the vendor uses it, e.g. 酷番云."),
    )
    name_zh = models.CharField(
        verbose_name=_("Chinese name"),
        max_length=constants.NAME_MAX_LENGTH,
        blank=True,
        help_text=_("Shown on Chinese pages; empty shows the name."),
    )
    legal_name = models.CharField(
        verbose_name=_("registered legal name"),
        max_length=constants.NAME_MAX_LENGTH,
        blank=True,
        help_text=_("As on the business licence; empty until checked."),
    )
    founded_year = models.PositiveSmallIntegerField(
        verbose_name=_("year founded"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1949), MaxValueValidator(2100)],
    )
    registered_capital_cny = models.DecimalField(
        verbose_name=_("registered capital (CNY)"),
        max_digits=16,
        decimal_places=2,
        null=True,
        blank=True,
        validators=positive(),
    )
    licence_number = models.CharField(
        verbose_name=_("value-added telecom licence number"),
        max_length=100,
        blank=True,
        help_text=_("增值电信业务经营许可证 number, e.g. B1-20180000 or 豫B2-20261089."),
    )
    licence_categories = models.CharField(
        verbose_name=_("licensed service categories"),
        max_length=100,
        blank=True,
        help_text=_("Comma-separated codes from the 2015 catalogue, e.g. B11,B14 (B11 = IDC)."),
    )
    licence_valid_until = models.DateField(
        verbose_name=_("licence valid until"), null=True, blank=True
    )
    icp_filing_number = models.CharField(
        verbose_name=_("ICP filing number"),
        max_length=100,
        blank=True,
        help_text=_("ICP 备案 number, e.g. 滇ICP备2020007656号."),
    )
    carriers = models.CharField(
        verbose_name=_("carriers connected"),
        max_length=constants.NAME_MAX_LENGTH,
        blank=True,
        help_text=_("e.g. China Telecom, China Mobile, China Unicom"),
    )
    has_own_bgp = models.BooleanField(
        verbose_name=_("own multi-carrier BGP"), null=True, blank=True
    )
    backbone = models.CharField(
        verbose_name=_("backbone / private lines"),
        max_length=constants.NAME_MAX_LENGTH,
        blank=True,
    )
    cnnic_member = models.BooleanField(
        verbose_name=_("CNNIC IP alliance member"), null=True, blank=True
    )
    multi_cloud_failover = models.BooleanField(
        verbose_name=_("multi-cloud active-active failover"), null=True, blank=True
    )
    node_coverage = models.CharField(
        verbose_name=_("regional node coverage"),
        max_length=constants.NAME_MAX_LENGTH,
        blank=True,
    )
    supports_model_filing = models.BooleanField(
        verbose_name=_("supports the customer's model filing (模型备案)"), null=True, blank=True
    )
    onsite_24x7 = models.BooleanField(verbose_name=_("7×24 on-site staff"), null=True, blank=True)
    spare_parts_stock = models.BooleanField(
        verbose_name=_("spare-parts stock on site (PSUs, fans, disks)"), null=True, blank=True
    )
    spare_part_replacement_hours = models.FloatField(
        verbose_name=_("spare-part replacement time (hours)"),
        null=True,
        blank=True,
        validators=positive(),
    )
    fault_response_hours = models.FloatField(
        verbose_name=_("fault response time (hours)"), null=True, blank=True, validators=positive()
    )
    mttr_hours = models.FloatField(
        verbose_name=_("contractual MTTR (hours)"), null=True, blank=True, validators=positive()
    )
    compensation_terms = models.TextField(verbose_name=_("compensation terms"), blank=True)
    automatic_inspection = models.BooleanField(
        verbose_name=_("automatic firmware/software consistency inspection"),
        null=True,
        blank=True,
    )
    self_operated_dcs = models.BooleanField(
        verbose_name=_("licensed, self-operated data centers"), null=True, blank=True
    )
    claim_status = models.CharField(
        verbose_name=_("verification status"),
        max_length=20,
        choices=choices.ClaimStatus.choices,
        default=choices.ClaimStatus.VENDOR_CLAIM,
    )

    class Meta:
        verbose_name = _("hosting vendor")
        verbose_name_plural = _("hosting vendors")
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["name"], name="%(app_label)s_%(class)s_unique_name"),
            models.CheckConstraint(
                condition=null_or(Q(registered_capital_cny__gte=0), "registered_capital_cny"),
                name="%(app_label)s_%(class)s_capital_not_negative",
            ),
        ]

    def __str__(self):
        return self.name

    @property
    def years_in_business(self) -> int | None:
        if not self.founded_year:
            return None
        return max(0, timezone.localdate().year - self.founded_year)

    @property
    def licence_category_list(self) -> list[str]:
        return [c.strip().upper() for c in self.licence_categories.split(",") if c.strip()]

    def clean(self):
        super().clean()
        errors = {}
        unknown = [c for c in self.licence_category_list if c not in choices.TELECOM_CATEGORIES]
        if unknown:
            errors["licence_categories"] = _(
                "Unknown licence category: %(codes)s. Use codes such as B11, B12, B14, B25."
            ) % {"codes": ", ".join(unknown)}
        else:
            self.licence_categories = ",".join(self.licence_category_list)
        if self.founded_year and self.founded_year > timezone.localdate().year:
            errors["founded_year"] = _("The founding year cannot be in the future.")
        if errors:
            raise ValidationError(errors)


class Certificate(CatalogEntry):
    """A management-system certificate or MLPS assessment held by a hosting vendor."""

    key = models.SlugField(
        verbose_name=_("key"),
        max_length=constants.KEY_MAX_LENGTH,
        unique=True,
        blank=True,
        help_text=_("Left empty, it is made from the vendor and the kind."),
    )
    vendor = models.ForeignKey(
        HostingVendor,
        verbose_name=_("hosting vendor"),
        on_delete=models.CASCADE,
        related_name="certificates",
    )
    kind = models.CharField(
        verbose_name=_("kind"), max_length=20, choices=choices.CertificateKind.choices
    )
    iso27001_edition = models.CharField(
        verbose_name=_("ISO/IEC 27001 edition"),
        max_length=4,
        choices=choices.Iso27001Edition.choices,
        blank=True,
    )
    mlps_level = models.PositiveSmallIntegerField(
        verbose_name=_("MLPS level"), choices=choices.MlpsLevel.choices, null=True, blank=True
    )
    number = models.CharField(verbose_name=_("certificate number"), max_length=100, blank=True)
    issuer = models.CharField(
        verbose_name=_("issuer / assessment body"),
        max_length=constants.NAME_MAX_LENGTH,
        blank=True,
    )
    scope = models.CharField(
        verbose_name=_("scope"), max_length=constants.NAME_MAX_LENGTH, blank=True
    )
    issued_on = models.DateField(verbose_name=_("issued on"), null=True, blank=True)
    valid_until = models.DateField(verbose_name=_("valid until"), null=True, blank=True)
    last_surveillance_audit = models.DateField(
        verbose_name=_("last surveillance audit"), null=True, blank=True
    )
    last_assessment_date = models.DateField(
        verbose_name=_("last MLPS assessment"), null=True, blank=True
    )
    claim_status = models.CharField(
        verbose_name=_("verification status"),
        max_length=20,
        choices=choices.ClaimStatus.choices,
        default=choices.ClaimStatus.VENDOR_CLAIM,
    )

    class Meta:
        verbose_name = _("certificate")
        verbose_name_plural = _("certificates")
        ordering = ["vendor__name", "kind"]
        constraints = [
            models.CheckConstraint(
                condition=null_or(
                    Q(valid_until__gt=models.F("issued_on")), "valid_until", "issued_on"
                ),
                name="%(app_label)s_%(class)s_valid_after_issue",
            ),
            models.CheckConstraint(
                condition=Q(mlps_level__isnull=True) | Q(kind=choices.CertificateKind.MLPS),
                name="%(app_label)s_%(class)s_mlps_level_only_for_mlps",
            ),
        ]

    def __str__(self):
        label = self.get_kind_display()
        if self.iso27001_edition:
            label = f"ISO/IEC 27001:{self.iso27001_edition}"
        elif self.mlps_level:
            label = f"{label} ({self.get_mlps_level_display()})"
        return f"{self.vendor} – {label}"

    def save(self, *args, **kwargs):
        if not self.key and self.vendor_id:
            self.key = self.make_key()
        super().save(*args, **kwargs)

    def natural_key(self):
        return (self.key,)

    natural_key.dependencies = ["vendors.hostingvendor"]

    def make_key(self) -> str:
        base = f"{self.vendor.key}-{self.kind}"[: constants.KEY_MAX_LENGTH - 4]
        key, n = base, 2
        while Certificate.objects.filter(key=key).exclude(pk=self.pk).exists():
            key, n = f"{base}-{n}", n + 1
        return key

    def clean(self):
        super().clean()
        errors = {}
        iso27001 = self.kind == choices.CertificateKind.ISO_27001
        mlps = self.kind == choices.CertificateKind.MLPS
        if not iso27001 and self.iso27001_edition:
            errors["iso27001_edition"] = _("Only ISO/IEC 27001 certificates have this edition.")
        if mlps and not self.mlps_level:
            errors["mlps_level"] = _("Give the MLPS level assessed.")
        if not mlps and self.mlps_level:
            errors["mlps_level"] = _("Only MLPS assessments have a level.")
        if not mlps and self.last_assessment_date:
            errors["last_assessment_date"] = _(
                "Only MLPS assessments have an assessment date; use the surveillance audit."
            )
        if self.issued_on and self.valid_until and self.valid_until <= self.issued_on:
            errors["valid_until"] = _("The valid-until date must be after the issue date.")
        if (
            self.issued_on
            and self.last_surveillance_audit
            and self.last_surveillance_audit < self.issued_on
        ):
            errors["last_surveillance_audit"] = _(
                "A surveillance audit cannot come before the certificate was issued."
            )
        if (
            self.valid_until
            and self.last_surveillance_audit
            and self.last_surveillance_audit > self.valid_until
        ):
            errors["last_surveillance_audit"] = _(
                "A surveillance audit cannot come after the certificate expired."
            )
        if errors:
            raise ValidationError(errors)


# --------------------------------------------------------------------------- sites


class PolicyZone(CatalogEntry):
    """A province or national hub cluster with its PUE limit and electricity tariff."""

    name = models.CharField(verbose_name=_("name"), max_length=constants.NAME_MAX_LENGTH)
    name_zh = models.CharField(
        verbose_name=_("Chinese name"), max_length=constants.NAME_MAX_LENGTH, blank=True
    )
    kind = models.CharField(
        verbose_name=_("kind"), max_length=10, choices=choices.PolicyZoneKind.choices
    )
    province = models.CharField(
        verbose_name=_("province"), max_length=50, help_text=_("e.g. Guizhou, Shanghai")
    )
    pue_limit = models.FloatField(
        verbose_name=_("PUE limit for new data centers"),
        null=True,
        blank=True,
        validators=pue(),
    )
    pue_limit_basis = models.CharField(
        verbose_name=_("PUE limit: instrument"),
        max_length=500,
        blank=True,
        help_text=_("Which policy sets the limit, and for which projects."),
    )
    pue_limit_source = models.TextField(verbose_name=_("PUE limit: source"), blank=True)
    pue_limit_flag = models.CharField(
        verbose_name=_("PUE limit: reliability"),
        max_length=10,
        choices=choices.SourceFlag.choices,
        blank=True,
    )
    pue_limit_as_of = models.DateField(verbose_name=_("PUE limit as of"), null=True, blank=True)
    tariff_cny_per_kwh = models.FloatField(
        verbose_name=_("electricity tariff (CNY/kWh)"),
        null=True,
        blank=True,
        validators=positive(),
        help_text=_("Energy price for a flat 24×7 load (TOU-weighted), excluding demand charges."),
    )
    tariff_basis = models.CharField(
        verbose_name=_("tariff: class and basis"), max_length=500, blank=True
    )
    tariff_source = models.TextField(verbose_name=_("tariff: source"), blank=True)
    tariff_flag = models.CharField(
        verbose_name=_("tariff: reliability"),
        max_length=10,
        choices=choices.SourceFlag.choices,
        blank=True,
    )
    tariff_as_of = models.DateField(verbose_name=_("tariff as of"), null=True, blank=True)
    demand_charge_cny_per_kw_month = models.FloatField(
        verbose_name=_("demand (basic) charge (CNY per kW per month)"),
        null=True,
        blank=True,
        validators=positive(),
    )
    preferential_tariff_cny_per_kwh = models.FloatField(
        verbose_name=_("claimed preferential data-center tariff (CNY/kWh)"),
        null=True,
        blank=True,
        validators=positive(),
        help_text=_("A negotiated-tariff scenario, never a default."),
    )
    preferential_tariff_note = models.TextField(
        verbose_name=_("preferential tariff: claim and source"), blank=True
    )
    parent = models.ForeignKey(
        "self",
        verbose_name=_("falls back to"),
        on_delete=models.PROTECT,
        related_name="children",
        null=True,
        blank=True,
        help_text=_(
            "The wider zone whose electricity price and rack fees apply when this zone has "
            "none (e.g. a hub cluster → its province)."
        ),
    )

    class Meta:
        verbose_name = _("policy zone")
        verbose_name_plural = _("policy zones")
        ordering = ["province", "name"]
        constraints = [
            models.CheckConstraint(
                condition=null_or(Q(pue_limit__gte=1), "pue_limit"),
                name="%(app_label)s_%(class)s_pue_at_least_one",
            ),
            models.CheckConstraint(
                condition=null_or(Q(tariff_cny_per_kwh__gt=0), "tariff_cny_per_kwh"),
                name="%(app_label)s_%(class)s_tariff_positive",
            ),
        ]

    def __str__(self):
        return self.name

    def chain(self) -> list["PolicyZone"]:
        """This zone, then the zones it falls back to (nearest first, no loops)."""
        zones, zone = [], self
        while zone is not None and zone not in zones:
            zones.append(zone)
            zone = zone.parent
        return zones

    def clean(self):
        super().clean()
        errors = {}
        if self.parent_id and self.pk and self in self.parent.chain():
            errors["parent"] = _("A zone cannot fall back to itself.")
        if self.pue_limit is not None and not self.pue_limit_source:
            errors["pue_limit_source"] = _("Cite the policy that sets this PUE limit.")
        if self.tariff_cny_per_kwh is not None:
            if not self.tariff_source:
                errors["tariff_source"] = _("Cite the tariff table the price comes from.")
            if not self.tariff_as_of:
                errors["tariff_as_of"] = _("Give the month the tariff applies to.")
            if self.tariff_flag in (choices.SourceFlag.LOW, choices.SourceFlag.VENDOR):
                errors["tariff_flag"] = _(
                    "Low-confidence figures and vendor claims never become the default tariff; "
                    "record a vendor claim as the preferential tariff instead."
                )
        if self.preferential_tariff_cny_per_kwh is not None and not self.preferential_tariff_note:
            errors["preferential_tariff_note"] = _("Say who claims this tariff, when and where.")
        if errors:
            raise ValidationError(errors)


class DataCenter(CatalogEntry):
    """A hosting site: one data center (or park) of a vendor."""

    name = models.CharField(verbose_name=_("name"), max_length=constants.NAME_MAX_LENGTH)
    name_zh = models.CharField(
        verbose_name=_("Chinese name"),
        max_length=constants.NAME_MAX_LENGTH,
        blank=True,
        help_text=_("Shown on Chinese pages; empty shows the name."),
    )
    vendor = models.ForeignKey(
        HostingVendor,
        verbose_name=_("hosting vendor"),
        on_delete=models.PROTECT,
        related_name="data_centers",
        null=True,
        blank=True,
    )
    city = models.CharField(verbose_name=_("city"), max_length=50)
    city_zh = models.CharField(
        verbose_name=_("city (Chinese)"),
        max_length=50,
        blank=True,
        help_text=_("Shown on Chinese pages; empty shows the city."),
    )
    province = models.CharField(verbose_name=_("province"), max_length=50)
    policy_zone = models.ForeignKey(
        PolicyZone,
        verbose_name=_("policy zone"),
        on_delete=models.PROTECT,
        related_name="data_centers",
        null=True,
        blank=True,
    )
    is_example = models.BooleanField(
        verbose_name=_("example figures (not a vendor's data)"),
        default=False,
        help_text=_("Planning examples to compare sites with; shown as examples everywhere."),
    )
    claim_status = models.CharField(
        verbose_name=_("verification status"),
        max_length=20,
        choices=choices.ClaimStatus.choices,
        default=choices.ClaimStatus.VENDOR_CLAIM,
    )
    gb50174_class = models.CharField(
        verbose_name=_("GB 50174 class"),
        max_length=1,
        choices=choices.Gb50174Class.choices,
        blank=True,
    )
    uptime_tier = models.CharField(
        verbose_name=_("Uptime Institute tier"),
        max_length=10,
        choices=choices.UptimeTier.choices,
        blank=True,
    )
    pue_design = models.FloatField(
        verbose_name=_("design PUE"), null=True, blank=True, validators=pue()
    )
    pue_measured = models.FloatField(
        verbose_name=_("measured annual PUE"), null=True, blank=True, validators=pue()
    )
    cooling_available = models.JSONField(
        verbose_name=_("cooling available"),
        default=list,
        blank=True,
        help_text=_("Any of: air, rear-door, direct-liquid, immersion."),
    )
    max_kw_per_rack = models.FloatField(
        verbose_name=_("maximum power per rack (kW)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(0), MaxValueValidator(constants.RACK_KW_MAX)],
    )
    floor_load_kg_per_m2 = models.FloatField(
        verbose_name=_("floor load (kg/m²)"), null=True, blank=True, validators=positive()
    )
    power_feeds = models.PositiveSmallIntegerField(
        verbose_name=_("independent utility feeds"),
        null=True,
        blank=True,
        validators=[MaxValueValidator(constants.POWER_FEEDS_MAX)],
    )
    ups_minutes = models.FloatField(
        verbose_name=_("UPS autonomy (minutes)"), null=True, blank=True, validators=positive()
    )
    generator_start_s = models.FloatField(
        verbose_name=_("generator start time (seconds)"),
        null=True,
        blank=True,
        validators=positive(),
    )
    hvdc = models.BooleanField(verbose_name=_("HVDC power supply"), null=True, blank=True)
    hvdc_efficiency_pct = models.FloatField(
        verbose_name=_("HVDC conversion efficiency (%)"),
        null=True,
        blank=True,
        validators=percent(),
    )
    inlet_temp_min_c = models.FloatField(
        verbose_name=_("inlet temperature held, minimum (°C)"),
        null=True,
        blank=True,
        validators=inlet_temp(),
    )
    inlet_temp_max_c = models.FloatField(
        verbose_name=_("inlet temperature held, maximum (°C)"),
        null=True,
        blank=True,
        validators=inlet_temp(),
    )
    humidity_min_pct = models.FloatField(
        verbose_name=_("relative humidity held, minimum (%)"),
        null=True,
        blank=True,
        validators=percent(),
    )
    humidity_max_pct = models.FloatField(
        verbose_name=_("relative humidity held, maximum (%)"),
        null=True,
        blank=True,
        validators=percent(),
    )
    humidity_control = models.BooleanField(
        verbose_name=_("precision humidity control"), null=True, blank=True
    )
    dust_filtration = models.BooleanField(verbose_name=_("dust filtration"), null=True, blank=True)
    # Asked of the vendor by the questionnaire (docs/decisions/0023-questionnaire-vendor-answers.md).
    dew_point_min_c = models.FloatField(
        verbose_name=_("inlet dew point held, minimum (°C)"), null=True, blank=True
    )
    dew_point_max_c = models.FloatField(
        verbose_name=_("inlet dew point held, maximum (°C)"), null=True, blank=True
    )
    climate_mean_rh_pct = models.FloatField(
        verbose_name=_("outdoor mean relative humidity (%)"),
        null=True,
        blank=True,
        validators=percent(),
    )
    latency_east_china_ms = models.FloatField(
        verbose_name=_("latency to East China (ms)"), null=True, blank=True, validators=positive()
    )
    latency_south_china_ms = models.FloatField(
        verbose_name=_("latency to South China (ms)"), null=True, blank=True, validators=positive()
    )
    latency_other_region = models.CharField(
        verbose_name=_("other region measured"), max_length=100, blank=True
    )
    latency_other_ms = models.FloatField(
        verbose_name=_("latency to the other region (ms)"),
        null=True,
        blank=True,
        validators=positive(),
    )
    packet_loss_pct = models.FloatField(
        verbose_name=_("packet loss (%)"), null=True, blank=True, validators=percent()
    )
    rack_fee_cny_per_month = models.DecimalField(
        verbose_name=_("rack fee (CNY per rack per month)"),
        max_digits=12,
        decimal_places=2,
        null=True,
        blank=True,
        validators=positive(),
    )
    rack_fee_kw = models.FloatField(
        verbose_name=_("power included in the rack fee (kW)"),
        null=True,
        blank=True,
        validators=positive(),
    )
    power_pricing = models.CharField(
        verbose_name=_("how power is charged"),
        max_length=20,
        choices=choices.PowerPricing.choices,
        blank=True,
    )
    power_price_cny_per_kwh = models.FloatField(
        verbose_name=_("power price (CNY/kWh)"), null=True, blank=True, validators=positive()
    )

    class Meta:
        verbose_name = _("data center")
        verbose_name_plural = _("data centers")
        ordering = ["province", "city", "name"]
        constraints = [
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
                condition=null_or(Q(pue_design__gte=1), "pue_design"),
                name="%(app_label)s_%(class)s_design_pue_at_least_one",
            ),
            models.CheckConstraint(
                condition=null_or(Q(pue_measured__gte=1), "pue_measured"),
                name="%(app_label)s_%(class)s_measured_pue_at_least_one",
            ),
            models.UniqueConstraint(
                fields=["vendor", "name"], name="%(app_label)s_%(class)s_unique_name_per_vendor"
            ),
        ]

    def __str__(self):
        return f"{self.name} ({self.city})"

    def natural_key(self):
        return (self.key,)

    natural_key.dependencies = ["vendors.hostingvendor", "vendors.policyzone"]

    @property
    def cooling_labels(self) -> list[str]:
        labels = dict(choices.SiteCooling.choices)
        return [str(labels.get(value, value)) for value in self.cooling_available or []]

    def clean(self):
        super().clean()
        errors = {}
        cooling = self.cooling_available
        if not isinstance(cooling, list) or any(
            value not in choices.SiteCooling.values for value in cooling
        ):
            errors["cooling_available"] = _("Choose from: %(values)s.") % {
                "values": ", ".join(choices.SiteCooling.values)
            }
        if (
            self.inlet_temp_min_c is not None
            and self.inlet_temp_max_c is not None
            and self.inlet_temp_min_c >= self.inlet_temp_max_c
        ):
            errors["inlet_temp_max_c"] = _("The maximum temperature must be above the minimum.")
        if (
            self.humidity_min_pct is not None
            and self.humidity_max_pct is not None
            and self.humidity_min_pct >= self.humidity_max_pct
        ):
            errors["humidity_max_pct"] = _("The maximum humidity must be above the minimum.")
        if self.hvdc_efficiency_pct is not None and self.hvdc is not True:
            errors["hvdc_efficiency_pct"] = _("An HVDC efficiency needs an HVDC supply.")
        if (
            self.power_pricing == choices.PowerPricing.FIXED
            and self.power_price_cny_per_kwh is None
        ):
            errors["power_price_cny_per_kwh"] = _("A fixed power price needs the price.")
        if (
            self.power_pricing == choices.PowerPricing.PASS_THROUGH
            and self.power_price_cny_per_kwh is not None
        ):
            errors["power_price_cny_per_kwh"] = _(
                "Pass-through power is charged at the zone's tariff; leave the price empty."
            )
        zone = self.policy_zone if self.policy_zone_id else None
        if (
            zone
            and zone.kind == choices.PolicyZoneKind.PROVINCE
            and self.province
            and zone.province.lower() != self.province.lower()
        ):
            errors["policy_zone"] = _(
                "The policy zone is in %(zone)s but the site is in %(site)s."
            ) % {"zone": zone.province, "site": self.province}
        if errors:
            raise ValidationError(errors)


# --------------------------------------------------------------------------- tariffs


class PublishedFigure(CatalogEntry):
    """Who published a figure, in which document, when, and how far it can be trusted."""

    issuer = models.CharField(verbose_name=_("issuing body"), max_length=200)
    document_title = models.CharField(verbose_name=_("document title"), max_length=500)
    url = models.URLField(verbose_name=_("URL"), max_length=500, blank=True)
    published_on = models.DateField(verbose_name=_("published on"), null=True, blank=True)
    flag = models.CharField(
        verbose_name=_("confidence"), max_length=10, choices=choices.SourceFlag.choices
    )

    class Meta:
        abstract = True


_BAND_HOURS_HELP = _("Hours of the day, e.g. 10-12,14-19 (ranges may wrap midnight: 22-6).")
_BAND_MONTHS_HELP = _(
    "Months it applies in, e.g. 7-9; its hours belong to the other bands in the other months. "
    "Empty: all year."
)


def _band_fields(name, price_label, hours_label, months_label=None):
    """Price and hours (and months, for a seasonal band) of one time-of-use band."""
    result = {
        f"{name}_cny_per_kwh": models.DecimalField(
            verbose_name=price_label,
            max_digits=12,
            decimal_places=8,
            null=True,
            blank=True,
            validators=positive(),
        ),
        f"{name}_hours": models.CharField(
            verbose_name=hours_label, max_length=100, blank=True, help_text=_BAND_HOURS_HELP
        ),
    }
    if months_label is not None:
        result[f"{name}_months"] = models.CharField(
            verbose_name=months_label, max_length=40, blank=True, help_text=_BAND_MONTHS_HELP
        )
    return result


class Tariff(PublishedFigure):
    """A province's (policy zone's) electricity tariff for one month and tariff class."""

    policy_zone = models.ForeignKey(
        PolicyZone,
        verbose_name=_("policy zone"),
        on_delete=models.PROTECT,
        related_name="tariffs",
    )
    month = models.DateField(
        verbose_name=_("month it applies to"), help_text=_("Any day of the month, e.g. 2025-02-01.")
    )
    tariff_class = models.CharField(
        verbose_name=_("tariff class"), max_length=30, choices=choices.TariffClass.choices
    )
    # One price and its hours per time-of-use band (class-body locals: five alike blocks).
    locals().update(
        _band_fields(
            "sharp",
            _("sharp peak price (CNY/kWh)"),
            _("sharp peak hours"),
            _("sharp peak months"),
        )
    )
    locals().update(_band_fields("peak", _("peak price (CNY/kWh)"), _("peak hours")))
    locals().update(_band_fields("flat", _("flat price (CNY/kWh)"), _("flat hours")))
    locals().update(_band_fields("valley", _("valley price (CNY/kWh)"), _("valley hours")))
    locals().update(
        _band_fields(
            "deep_valley",
            _("deep valley price (CNY/kWh)"),
            _("deep valley hours"),
            _("deep valley months"),
        )
    )
    hours_source = models.TextField(
        verbose_name=_("time-of-use hours: source"),
        blank=True,
        help_text=_("The notice that sets the hours of each band (title, issuer, date, URL)."),
    )
    flat_figure_cny_per_kwh = models.DecimalField(
        verbose_name=_("single reported figure (CNY/kWh)"),
        max_digits=12,
        decimal_places=8,
        null=True,
        blank=True,
        validators=positive(),
        help_text=_("Only where no time-of-use table was found: a press or other single figure."),
    )
    demand_charge_cny_per_kw_month = models.DecimalField(
        verbose_name=_("demand (basic) charge (CNY per kW per month)"),
        max_digits=10,
        decimal_places=4,
        null=True,
        blank=True,
        validators=positive(),
    )
    capacity_charge_cny_per_kva_month = models.DecimalField(
        verbose_name=_("capacity charge (CNY per kVA per month)"),
        max_digits=10,
        decimal_places=4,
        null=True,
        blank=True,
        validators=positive(),
    )

    BANDS = ("sharp", "peak", "flat", "valley", "deep_valley")

    class Meta:
        verbose_name = _("electricity tariff")
        verbose_name_plural = _("electricity tariffs")
        ordering = ["policy_zone__province", "policy_zone__name", "-month"]

    def __str__(self):
        return f"{self.policy_zone} {self.month:%Y-%m} {self.get_tariff_class_display()}"

    def natural_key(self):
        return (self.key,)

    natural_key.dependencies = ["vendors.policyzone"]

    def incomplete_bands(self) -> list[str]:
        """Bands whose hours are given without a price (the table could not be read fully)."""
        return [
            name
            for name in self.BANDS
            if getattr(self, f"{name}_hours") and getattr(self, f"{name}_cny_per_kwh") is None
        ]

    def clean(self):
        super().clean()

        errors = {}
        for name in self.BANDS:
            price = getattr(self, f"{name}_cny_per_kwh")
            hours = getattr(self, f"{name}_hours")
            if price is not None and not hours:
                errors[f"{name}_hours"] = _("Give the hours of the day this price applies to.")
            months = getattr(self, f"{name}_months", "")
            try:
                parse_months(months)
            except TariffError:
                errors[f"{name}_months"] = _("Write months as 1-12, e.g. 7-9 or 1,12.")
        bands = table_bands(self)
        if bands and not self.incomplete_bands() and not errors:
            try:
                effective_price(bands)
            except TariffError as error:
                errors["peak_hours"] = _("The time-of-use hours do not work: %(error)s.") % {
                    "error": error
                }
        if bands and not self.hours_source:
            errors["hours_source"] = _("Cite the notice that sets the hours of each band.")
        if self.flat_figure_cny_per_kwh is None and not bands and not self.incomplete_bands():
            errors["flat_figure_cny_per_kwh"] = _(
                "Give the band prices and hours, or the single reported figure."
            )
        if (self.tariff_class == choices.TariffClass.FLAT_FIGURE) != (
            self.flat_figure_cny_per_kwh is not None
        ):
            errors["tariff_class"] = _(
                "A single reported figure has the class “A single reported figure”, and only it."
            )
        if errors:
            raise ValidationError(errors)


class RackFee(PublishedFigure):
    """A published rack fee for a power tier (kW per rack), for a zone or the whole country."""

    policy_zone = models.ForeignKey(
        PolicyZone,
        verbose_name=_("policy zone"),
        on_delete=models.PROTECT,
        related_name="rack_fees",
        null=True,
        blank=True,
        help_text=_("Empty: a national figure."),
    )
    kw_min = models.FloatField(
        verbose_name=_("from kW per rack"), null=True, blank=True, validators=positive()
    )
    kw_max = models.FloatField(
        verbose_name=_("up to kW per rack"), null=True, blank=True, validators=positive()
    )
    price_cny_per_month = models.DecimalField(
        verbose_name=_("rack fee (CNY per rack per month)"),
        max_digits=12,
        decimal_places=2,
        validators=positive(),
    )
    power_included = models.BooleanField(
        verbose_name=_("power included"),
        null=True,
        blank=True,
        help_text=_("Empty: the source does not say."),
    )

    class Meta:
        verbose_name = _("rack fee")
        verbose_name_plural = _("rack fees")
        ordering = ["policy_zone__province", "kw_min", "key"]
        constraints = [
            models.CheckConstraint(
                condition=null_or(Q(kw_min__lt=models.F("kw_max")), "kw_min", "kw_max"),
                name="%(app_label)s_%(class)s_kw_range",
            ),
        ]

    def __str__(self):
        zone = self.policy_zone or _("national")
        return f"{zone}: {self.price_cny_per_month} CNY ({self.key})"

    def natural_key(self):
        return (self.key,)

    natural_key.dependencies = ["vendors.policyzone"]

    def clean(self):
        super().clean()
        if self.kw_min is not None and self.kw_max is not None and self.kw_min >= self.kw_max:
            raise ValidationError({"kw_max": _("The upper bound must be above the lower bound.")})


# --------------------------------------------------------------------------- offers


def parse_instance_gpus(text: str) -> tuple[int, ...]:
    """``"1, 2,4,8"`` → ``(1, 2, 4, 8)``; raises ValueError on anything but positive counts."""
    sizes = []
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        if not part.isdigit() or not 1 <= int(part) <= constants.SERVER_GPU_COUNT_MAX:
            raise ValueError(part)
        sizes.append(int(part))
    return tuple(sorted(set(sizes)))


def validate_instance_gpus(value: str) -> None:
    try:
        parse_instance_gpus(value)
    except ValueError as error:
        raise ValidationError(
            _(
                "“%(part)s” is not a GPU count: list whole numbers from 1 to %(max)d, "
                "separated by commas, e.g. 1,2,4,8."
            ),
            params={"part": str(error), "max": constants.SERVER_GPU_COUNT_MAX},
        ) from error


class Offer(CatalogEntry):
    """A price for a server model: to buy, to rent monthly, or by the hour in a cloud."""

    server_model = models.ForeignKey(
        ServerModel,
        verbose_name=_("server model"),
        on_delete=models.PROTECT,
        related_name="offers",
    )
    vendor = models.ForeignKey(
        HostingVendor,
        verbose_name=_("hosting vendor"),
        on_delete=models.PROTECT,
        related_name="offers",
        null=True,
        blank=True,
    )
    data_center = models.ForeignKey(
        DataCenter,
        verbose_name=_("data center"),
        on_delete=models.PROTECT,
        related_name="offers",
        null=True,
        blank=True,
    )
    seller_name = models.CharField(
        verbose_name=_("seller (when not a catalog vendor)"),
        max_length=constants.NAME_MAX_LENGTH,
        blank=True,
        help_text=_("e.g. a dealer or cloud named in a market report"),
    )
    kind = models.CharField(
        verbose_name=_("kind"), max_length=10, choices=choices.OfferKind.choices
    )
    currency = models.CharField(
        verbose_name=_("currency"),
        max_length=3,
        choices=choices.Currency.choices,
        default=choices.Currency.CNY,
    )
    purchase_price = models.DecimalField(
        verbose_name=_("purchase price per server (offer currency)"),
        max_digits=14,
        decimal_places=2,
        null=True,
        blank=True,
        validators=positive(),
    )
    monthly_rent = models.DecimalField(
        verbose_name=_("rent per server per month (offer currency)"),
        max_digits=14,
        decimal_places=2,
        null=True,
        blank=True,
        validators=positive(),
    )
    hourly_price_per_gpu = models.DecimalField(
        verbose_name=_("cloud price per GPU-hour (offer currency)"),
        max_digits=10,
        decimal_places=4,
        null=True,
        blank=True,
        validators=positive(),
    )
    lead_time_weeks = models.PositiveSmallIntegerField(
        verbose_name=_("lead time (weeks)"), null=True, blank=True
    )
    quoted_on = models.DateField(verbose_name=_("price date"), null=True, blank=True)
    valid_until = models.DateField(verbose_name=_("valid until"), null=True, blank=True)
    is_example = models.BooleanField(
        verbose_name=_("example price (not a quote)"),
        default=True,
        help_text=_("Market reports and planning figures are examples; only a quote is not."),
    )
    price_flag = models.CharField(
        verbose_name=_("price reliability"),
        max_length=10,
        choices=choices.SourceFlag.choices,
        blank=True,
    )
    # Right-sized capacity (docs/decisions/0024-capacity-cloud-labels.md): the sizes a
    # cloud or rental offer is sold in; empty means whole servers (and a purchase always is).
    instance_gpus = models.CharField(
        verbose_name=_("GPUs per instance sold"),
        max_length=60,
        blank=True,
        validators=[validate_instance_gpus],
        help_text=_(
            "Comma-separated GPU counts of the instances offered, e.g. 1,2,4,8. Empty: whole "
            "servers only. Not used for purchases."
        ),
    )
    # Cloud offers: who sells the GPU-hours and where they run (not a data center).
    provider = models.CharField(
        verbose_name=_("cloud provider"), max_length=constants.NAME_MAX_LENGTH, blank=True
    )
    region = models.CharField(verbose_name=_("cloud region"), max_length=100, blank=True)
    region_in_mainland_china = models.BooleanField(
        verbose_name=_("region in mainland China"), null=True, blank=True
    )

    class Meta:
        verbose_name = _("offer")
        verbose_name_plural = _("offers")
        ordering = ["server_model__name", "kind"]
        constraints = [
            models.CheckConstraint(
                condition=null_or(
                    Q(valid_until__gte=models.F("quoted_on")), "valid_until", "quoted_on"
                ),
                name="%(app_label)s_%(class)s_valid_after_price_date",
            ),
            models.CheckConstraint(
                condition=(
                    (Q(kind=choices.OfferKind.BUY) & Q(purchase_price__isnull=False))
                    | (Q(kind=choices.OfferKind.RENT) & Q(monthly_rent__isnull=False))
                    | (Q(kind=choices.OfferKind.CLOUD) & Q(hourly_price_per_gpu__isnull=False))
                ),
                name="%(app_label)s_%(class)s_price_matches_kind",
            ),
        ]

    def __str__(self):
        seller = self.data_center or self.vendor or self.seller_name
        label = f"{self.server_model} – {self.get_kind_display()} – {seller}"
        return f"{label} [{EXAMPLE_LABEL}]" if self.is_example else label

    def natural_key(self):
        return (self.key,)

    natural_key.dependencies = [
        "vendors.servermodel",
        "vendors.hostingvendor",
        "vendors.datacenter",
    ]

    PRICE_FIELD = {
        choices.OfferKind.BUY: "purchase_price",
        choices.OfferKind.RENT: "monthly_rent",
        choices.OfferKind.CLOUD: "hourly_price_per_gpu",
    }

    @property
    def price(self):
        field = self.PRICE_FIELD.get(self.kind)
        return getattr(self, field) if field else None

    def clean(self):
        super().clean()
        errors = {}
        field = self.PRICE_FIELD.get(self.kind)
        if field and getattr(self, field) is None:
            errors[field] = _("A %(kind)s offer needs this price.") % {
                "kind": self.get_kind_display()
            }
        for other in set(self.PRICE_FIELD.values()) - {field}:
            if getattr(self, other) is not None:
                errors[other] = _("Only the price that matches the offer kind may be filled in.")
        if not (self.vendor_id or self.data_center_id or self.seller_name):
            errors["seller_name"] = _("Say who offers this: a vendor, a data center or a seller.")
        if (
            self.vendor_id
            and self.data_center_id
            and self.data_center.vendor_id
            and self.data_center.vendor_id != self.vendor_id
        ):
            errors["data_center"] = _("The data center belongs to another vendor.")
        if self.quoted_on and self.valid_until and self.valid_until < self.quoted_on:
            errors["valid_until"] = _("The offer cannot expire before its price date.")
        if not self.is_example and not self.source:
            errors["is_example"] = _("A price that is not an example needs its quote as source.")
        if self.instance_gpus and self.kind == choices.OfferKind.BUY:
            errors["instance_gpus"] = _("A purchase is of whole servers: leave this empty.")
        if errors:
            raise ValidationError(errors)


# --------------------------------------------------------------------------- model presets


class ModelPreset(CatalogEntry):
    """An LLM's architecture as the sizing engine needs it (scenario v1 ``model`` fields)."""

    name = models.CharField(verbose_name=_("name"), max_length=constants.NAME_MAX_LENGTH)
    family = models.CharField(
        verbose_name=_("family"), max_length=20, choices=choices.ModelFamily.choices
    )
    hf_repo = models.CharField(
        verbose_name=_("Hugging Face repository"),
        max_length=constants.NAME_MAX_LENGTH,
        blank=True,
        help_text=_("e.g. Qwen/Qwen2.5-7B-Instruct"),
    )
    params_b = models.FloatField(
        verbose_name=_("total parameters (billions)"),
        validators=[MinValueValidator(0.001), MaxValueValidator(constants.MODEL_PARAMS_B_MAX)],
        help_text=_("Every expert included; tied embedding and output counted once."),
    )
    active_params_b = models.FloatField(
        verbose_name=_("active parameters per token (billions)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(0.001), MaxValueValidator(constants.MODEL_PARAMS_B_MAX)],
    )
    layers = models.PositiveIntegerField(verbose_name=_("layers"), null=True, blank=True)
    hidden = models.PositiveIntegerField(verbose_name=_("hidden size"), null=True, blank=True)
    heads = models.PositiveIntegerField(verbose_name=_("attention heads"), null=True, blank=True)
    kv_heads = models.PositiveIntegerField(verbose_name=_("key/value heads"), null=True, blank=True)
    head_dim = models.PositiveIntegerField(
        verbose_name=_("head size"),
        null=True,
        blank=True,
        help_text=_("Only when it differs from hidden size / heads."),
    )
    intermediate = models.PositiveIntegerField(
        verbose_name=_("intermediate size (one MLP / one routed expert)"), null=True, blank=True
    )
    vocab = models.PositiveIntegerField(
        verbose_name=_("vocabulary (embedding rows)"), null=True, blank=True
    )
    tied_embeddings = models.BooleanField(
        verbose_name=_("tied input/output embeddings"), null=True, blank=True
    )
    experts = models.PositiveIntegerField(
        verbose_name=_("routed experts per MoE layer"), null=True, blank=True
    )
    experts_per_token = models.PositiveIntegerField(
        verbose_name=_("experts per token (top-k)"), null=True, blank=True
    )
    context_length = models.PositiveIntegerField(
        verbose_name=_("context length (tokens)"), null=True, blank=True
    )

    class Meta:
        verbose_name = _("model preset")
        verbose_name_plural = _("model presets")
        ordering = ["family", "params_b"]
        constraints = [
            models.CheckConstraint(
                condition=Q(params_b__gt=0), name="%(app_label)s_%(class)s_params_positive"
            ),
            models.CheckConstraint(
                condition=null_or(Q(active_params_b__lte=models.F("params_b")), "active_params_b"),
                name="%(app_label)s_%(class)s_active_within_total",
            ),
            models.CheckConstraint(
                condition=null_or(Q(kv_heads__lte=models.F("heads")), "kv_heads", "heads"),
                name="%(app_label)s_%(class)s_kv_heads_within_heads",
            ),
            models.CheckConstraint(
                condition=null_or(
                    Q(experts_per_token__lte=models.F("experts")), "experts_per_token", "experts"
                ),
                name="%(app_label)s_%(class)s_top_k_within_experts",
            ),
        ]

    def __str__(self):
        return self.name

    @property
    def is_moe(self) -> bool:
        return bool(self.experts and self.experts > 1)

    def clean(self):
        super().clean()
        errors = {}
        if self.active_params_b is not None and self.active_params_b > self.params_b:
            errors["active_params_b"] = _("Active parameters cannot exceed the total.")
        if self.heads and self.kv_heads:
            if self.kv_heads > self.heads:
                errors["kv_heads"] = _("There cannot be more key/value heads than heads.")
            elif self.heads % self.kv_heads:
                errors["kv_heads"] = _("The heads must divide evenly into key/value groups.")
        if bool(self.experts) != bool(self.experts_per_token):
            field = "experts_per_token" if self.experts else "experts"
            errors[field] = _("A mixture-of-experts model needs both experts and top-k.")
        elif self.experts and self.experts_per_token > self.experts:
            errors["experts_per_token"] = _("Top-k cannot exceed the number of experts.")
        if errors:
            raise ValidationError(errors)
