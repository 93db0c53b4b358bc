"""Published figures of a policy zone: electricity tariffs and rack fees.

See :mod:`vendors.models` for the conventions every catalog model follows.
"""

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from advisor.domain.economics.tariff import (
    TariffError,
    effective_price,
    parse_months,
    table_bands,
)
from vendors import choices
from vendors.models.base import CatalogEntry, flag_errors, null_or, positive
from vendors.models.sites import PolicyZone


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

    def clean(self):
        super().clean()
        errors = flag_errors(self, "flag", "source")
        if errors:
            raise ValidationError(errors)


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
        help_text=_(
            "The notice that sets the hours of each band, each line starting with its kind, "
            "e.g. [official] title, issuer, date, URL."
        ),
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
    SOURCE_FIELDS = ("source", "hours_source")

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
