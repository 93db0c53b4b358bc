"""The base of every catalog row (key, source, as-of date, history) and field helpers.

See :mod:`vendors.models` for the conventions every catalog model follows.
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

from advisor.domain import sources as source_kinds
from vendors import constants

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


SOURCE_HELP = _(
    "One public document per line, each starting with its kind: [official] (a government "
    "document or official price list), [vendor] (the maker's, operator's or seller's own "
    "publication), [dealer] (a dealer's quote or listing), [press], [aggregator] (spec "
    "databases, reposts, datasets, tables in someone's code) or [blog]; then title, "
    "publisher, date and URL."
)


def source_errors(instance, field_names) -> dict:
    """Field-keyed errors for source lines without a kind (docs/decisions/0042)."""
    errors = {}
    for name in field_names:
        missing = source_kinds.untagged_lines(getattr(instance, name, ""))
        if missing:
            errors[name] = _(
                "Start every line with the kind of its source: %(kinds)s. Without one: “%(line)s”."
            ) % {
                "kinds": ", ".join(f"[{kind}]" for kind in source_kinds.SOURCE_KINDS),
                "line": missing[0][:80],
            }
    return errors


def flag_errors(instance, flag_field: str, source_field: str) -> dict:
    """A figure whose sources are all aggregators or blogs carries the LOW flag, nothing more."""
    kind = source_kinds.source_kind(getattr(instance, source_field))
    flag = getattr(instance, flag_field)
    if source_kinds.is_low_quality(kind) and flag != source_kinds.LOW_FLAG:
        return {
            flag_field: _(
                "Every source of this figure is an aggregator or a blog: its confidence is "
                "“Low confidence”."
            )
        }
    return {}


def null_or(condition: Q, *fields: str) -> Q:
    """``condition`` holds, or one of ``fields`` is empty (for optional figures)."""
    result = condition
    for name in fields:
        result |= Q(**{f"{name}__isnull": True})
    return result


class StampedQuerySet(models.QuerySet):
    """A bulk update stamps ``updated_at`` as a save does, so that the catalog stamp
    (``advisor.catalog.stamp``) moves and no reader keeps rows read before it (decision 0050)."""

    def update(self, **kwargs):
        if "updated_at" not in kwargs:
            kwargs["updated_at"] = timezone.now()
        return super().update(**kwargs)

    update.alters_data = True


class KeyedManager(models.Manager.from_queryset(StampedQuerySet)):
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
        help_text=SOURCE_HELP,
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

    # The text fields that list sources, one document per line, each with its kind.
    SOURCE_FIELDS = ("source",)

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

    def clean(self):
        super().clean()
        errors = source_errors(self, self.SOURCE_FIELDS)
        if errors:
            raise ValidationError(errors)

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
