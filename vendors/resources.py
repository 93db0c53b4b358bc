"""django-import-export resources: CSV/XLSX import (with a dry-run preview) and export.

Rows are matched on ``key`` (the natural key), foreign keys are written and read as the related
row's ``key``, and every imported row goes through the model's ``full_clean()`` so a bad row is
refused with the field and the reason (the admin's preview lists them by row number).
"""

from django.utils.translation import gettext as _
from import_export import fields, resources, widgets

from vendors import models


class KeyWidget(widgets.ForeignKeyWidget):
    """A foreign key as the related row's key; an unknown key is a clear error."""

    def __init__(self, model):
        super().__init__(model, field="key")

    def clean(self, value, row=None, **kwargs):
        try:
            return super().clean(value, row, **kwargs)
        except self.model.DoesNotExist as exc:
            raise ValueError(
                _("There is no %(model)s with key “%(key)s” in the catalog.")
                % {"model": self.model._meta.verbose_name, "key": value}
            ) from exc


class ListWidget(widgets.Widget):
    """A list stored as JSON, written in a cell as comma-separated values (e.g. air,immersion)."""

    def clean(self, value, row=None, **kwargs):
        if value is None or str(value).strip() == "":
            return []
        return [part.strip() for part in str(value).split(",") if part.strip()]

    def render(self, value, obj=None, **kwargs):
        return ",".join(value or [])


class NullableTextWidget(widgets.CharWidget):
    """Text whose empty cell means "not known" (None), e.g. the NIC kind."""

    def clean(self, value, row=None, **kwargs):
        if value is None or str(value).strip() == "":
            return None
        return super().clean(value, row, **kwargs)


def clear_number(widget_class):
    """A numeric widget whose error says which value is not a number (not a Python message)."""

    class ClearNumberWidget(widget_class):
        def clean(self, value, row=None, **kwargs):
            try:
                return super().clean(value, row, **kwargs)
            except (ValueError, ArithmeticError) as exc:
                raise ValueError(_("“%(value)s” is not a number.") % {"value": value}) from exc

    ClearNumberWidget.__name__ = f"Clear{widget_class.__name__}"
    return ClearNumberWidget


NUMBER_WIDGETS = {
    name: clear_number(widget)
    for name, widget in resources.ModelResource.WIDGETS_MAP.items()
    if widget in (widgets.FloatWidget, widgets.DecimalWidget, widgets.IntegerWidget)
}


class CatalogResource(resources.ModelResource):
    WIDGETS_MAP = {**resources.ModelResource.WIDGETS_MAP, **NUMBER_WIDGETS}

    class Meta:
        import_id_fields = ("key",)
        exclude = ("id", "created_at", "updated_at")
        skip_unchanged = True
        report_skipped = True
        clean_model_instances = True


def fk(name, model):
    return fields.Field(attribute=name, column_name=name, widget=KeyWidget(model))


class AcceleratorResource(CatalogResource):
    class Meta(CatalogResource.Meta):
        model = models.Accelerator


class ServerModelResource(CatalogResource):
    accelerator = fk("accelerator", models.Accelerator)
    nic_kind = fields.Field(
        attribute="nic_kind", column_name="nic_kind", widget=NullableTextWidget()
    )

    class Meta(CatalogResource.Meta):
        model = models.ServerModel


class HostingVendorResource(CatalogResource):
    class Meta(CatalogResource.Meta):
        model = models.HostingVendor


class CertificateResource(CatalogResource):
    vendor = fk("vendor", models.HostingVendor)
    data_center = fk("data_center", models.DataCenter)

    class Meta(CatalogResource.Meta):
        model = models.Certificate


class PolicyZoneResource(CatalogResource):
    parent = fk("parent", models.PolicyZone)

    class Meta(CatalogResource.Meta):
        model = models.PolicyZone


class TariffResource(CatalogResource):
    policy_zone = fk("policy_zone", models.PolicyZone)

    class Meta(CatalogResource.Meta):
        model = models.Tariff


class RackFeeResource(CatalogResource):
    policy_zone = fk("policy_zone", models.PolicyZone)

    class Meta(CatalogResource.Meta):
        model = models.RackFee


class DataCenterResource(CatalogResource):
    vendor = fk("vendor", models.HostingVendor)
    policy_zone = fk("policy_zone", models.PolicyZone)
    cooling_available = fields.Field(
        attribute="cooling_available",
        column_name="cooling_available",
        widget=ListWidget(),
    )

    class Meta(CatalogResource.Meta):
        model = models.DataCenter


class OfferResource(CatalogResource):
    server_model = fk("server_model", models.ServerModel)
    vendor = fk("vendor", models.HostingVendor)
    data_center = fk("data_center", models.DataCenter)

    class Meta(CatalogResource.Meta):
        model = models.Offer


class ModelPresetResource(CatalogResource):
    class Meta(CatalogResource.Meta):
        model = models.ModelPreset
