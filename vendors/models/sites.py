"""Sites: policy zones (provinces, hubs, the nation) and data centers.

See :mod:`vendors.models` for the conventions every catalog model follows.
"""

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from vendors import choices, constants
from vendors.models.base import (
    SOURCE_HELP,
    CatalogEntry,
    flag_errors,
    inlet_temp,
    null_or,
    percent,
    positive,
    pue,
)
from vendors.models.hosting import HostingVendor


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
    pue_limit_source = models.TextField(
        verbose_name=_("PUE limit: source"), blank=True, help_text=SOURCE_HELP
    )
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
    tariff_source = models.TextField(
        verbose_name=_("tariff: source"), blank=True, help_text=SOURCE_HELP
    )
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

    SOURCE_FIELDS = ("source", "pue_limit_source", "tariff_source")

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
        if self.pue_limit is not None:
            errors.update(flag_errors(self, "pue_limit_flag", "pue_limit_source"))
        if self.tariff_cny_per_kwh is not None:
            if not self.tariff_source:
                errors["tariff_source"] = _("Cite the tariff table the price comes from.")
            if not self.tariff_as_of:
                errors["tariff_as_of"] = _("Give the month the tariff applies to.")
            errors.update(flag_errors(self, "tariff_flag", "tariff_source"))
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
