"""Models of the advisor app itself: the admin-editable compliance rule parameters.

The compliance domain keeps every threshold's default, unit and citation in
``advisor/domain/compliance/parameters.py``. A ``RuleParameter`` row overrides one
default; its history (django-simple-history) records who changed what and when, so a
brief can name the values it was checked against.
"""

from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from advisor.domain.compliance.parameters import DEFINITIONS, DEFINITIONS_BY_KEY, parse_value


def parameter_choices():
    return [(definition.key, definition.key) for definition in DEFINITIONS]


class RuleParameterQuerySet(models.QuerySet):
    def update(self, **kwargs):
        """Stamps ``updated_at`` as a save does (the catalog stamp moves, decision 0050)."""
        if "updated_at" not in kwargs:
            kwargs["updated_at"] = timezone.now()
        return super().update(**kwargs)

    update.alters_data = True

    def overrides(self) -> dict[str, str]:
        """``{key: value}`` for the rows whose key the domain still defines (plain mapping)."""
        return {
            key: value
            for key, value in self.values_list("key", "value")
            if key in DEFINITIONS_BY_KEY
        }


class RuleParameter(models.Model):
    key = models.CharField(
        verbose_name=_("parameter"),
        max_length=80,
        unique=True,
        choices=parameter_choices,
    )
    value = models.CharField(
        verbose_name=_("value"),
        max_length=40,
        help_text=_("A number, or a date as YYYY-MM-DD for date parameters."),
    )
    reason = models.TextField(
        verbose_name=_("reason and source"),
        blank=True,
        help_text=_("Why the default is overridden, with the document that supports the value."),
    )
    updated_at = models.DateTimeField(verbose_name=_("updated at"), auto_now=True)
    history = HistoricalRecords()

    objects = RuleParameterQuerySet.as_manager()

    class Meta:
        ordering = ["key"]
        verbose_name = _("compliance rule parameter")
        verbose_name_plural = _("compliance rule parameters")

    def __str__(self):
        return f"{self.key} = {self.value}"

    @property
    def definition(self):
        return DEFINITIONS_BY_KEY.get(self.key)

    def clean(self):
        super().clean()
        if self.definition is None:
            return  # the choices validation reports an unknown key
        try:
            parse_value(self.key, self.value)
        except ValueError:
            raise ValidationError(
                {"value": _("Enter a number, or a date as YYYY-MM-DD for date parameters.")}
            ) from None
