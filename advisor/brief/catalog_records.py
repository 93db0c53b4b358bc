"""The catalog records a brief was built from, frozen with their sources for the appendix."""

from __future__ import annotations

from django.forms.models import model_to_dict

from advisor.brief.snapshot import jsonable
from vendors.models import Accelerator, DataCenter, HostingVendor, Offer, PolicyZone, ServerModel

# Bookkeeping fields that say nothing about the figures.
SKIPPED = {"id", "source", "as_of", "created_at", "updated_at", "notes"}


def _record(row, kind: str) -> dict:
    values = model_to_dict(row)
    fields = {
        name: jsonable(value)
        for name, value in values.items()
        if name not in SKIPPED and value not in (None, "", [], {})
    }
    return {
        "kind": kind,
        "key": getattr(row, "key", str(row.pk)),
        "label": f"{row._meta.verbose_name}: {row}",
        "fields": fields,
        "source": getattr(row, "source", "") or "",
        "as_of": jsonable(getattr(row, "as_of", None)),
    }


def records_for(options: list[dict]) -> list[dict]:
    """Accelerators, servers, data centers, vendors, policy zones and offers behind ``options``.

    ``options`` are option snapshots (advisor.brief.snapshot.option_snapshot).
    """
    server_keys = {o["server"]["key"] for o in options}
    accelerator_keys = {o["accelerator"]["key"] for o in options}
    dc_keys = {o["data_center"]["key"] for o in options if o["data_center"].get("key")}
    rows = [
        *(_record(r, "accelerator") for r in Accelerator.objects.filter(key__in=accelerator_keys)),
        *(_record(r, "server") for r in ServerModel.objects.filter(key__in=server_keys)),
    ]
    data_centers = list(
        DataCenter.objects.filter(key__in=dc_keys).select_related("vendor", "policy_zone")
    )
    rows += [_record(dc, "data-center") for dc in data_centers]
    vendor_ids = {dc.vendor_id for dc in data_centers if dc.vendor_id}
    zone_ids = {dc.policy_zone_id for dc in data_centers if dc.policy_zone_id}
    rows += [_record(v, "hosting-vendor") for v in HostingVendor.objects.filter(pk__in=vendor_ids)]
    rows += [_record(z, "policy-zone") for z in PolicyZone.objects.filter(pk__in=zone_ids)]
    offers = Offer.objects.filter(server_model__key__in=server_keys).order_by("key")
    rows += [_record(o, "offer") for o in offers]
    return rows
