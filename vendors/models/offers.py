"""Offers: a server model bought, rented or sold as cloud GPU-hours, with its price.

See :mod:`vendors.models` for the conventions every catalog model follows.
"""

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from vendors import choices, constants
from vendors.models.base import EXAMPLE_LABEL, CatalogEntry, flag_errors, null_or, positive
from vendors.models.hardware import ServerModel
from vendors.models.hosting import HostingVendor
from vendors.models.sites import DataCenter


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
    provider_zh = models.CharField(
        verbose_name=_("cloud provider (Chinese)"),
        max_length=constants.NAME_MAX_LENGTH,
        blank=True,
        help_text=_("Shown on Chinese pages and briefs; empty: the provider as written above."),
    )
    region = models.CharField(verbose_name=_("cloud region"), max_length=100, blank=True)
    region_zh = models.CharField(
        verbose_name=_("cloud region (Chinese)"),
        max_length=100,
        blank=True,
        help_text=_("Shown on Chinese pages and briefs; empty: the region as written above."),
    )
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
        errors.update(flag_errors(self, "price_flag", "source"))
        if errors:
            raise ValidationError(errors)
