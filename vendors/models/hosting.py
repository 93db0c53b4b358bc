"""Hosting vendors (operators) and their certificates and licences.

See :mod:`vendors.models` for the conventions every catalog model follows.
"""

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from vendors import choices, constants
from vendors.models.base import CatalogEntry, null_or, positive


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
    # Which sites the scope covers (docs/decisions/0110): a group certificate is no proof for
    # one data center unless its source says so.
    data_center = models.ForeignKey(
        "vendors.DataCenter",
        verbose_name=_("data center its scope names"),
        on_delete=models.SET_NULL,
        related_name="certificates",
        null=True,
        blank=True,
        help_text=_("Empty when the scope names no single data center."),
    )
    covers_all_sites = models.BooleanField(
        verbose_name=_("scope covers all the operator's data centers"),
        null=True,
        blank=True,
        help_text=_(
            "Yes only where the source says so; No where the scope is something else (e.g. a "
            "cloud service); unknown where the source does not say. Only a certificate whose "
            "scope names the data center, or covers all of them, counts for a site."
        ),
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
        if self.data_center_id and self.vendor_id and self.data_center.vendor_id != self.vendor_id:
            errors["data_center"] = _("The data center must be one the certificate's holder runs.")
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
