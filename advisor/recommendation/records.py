"""The catalog records a brief was built from, frozen with their sources for the appendix."""

from __future__ import annotations

from django.forms.models import model_to_dict
from django.utils import translation
from django.utils.translation import gettext

from advisor.catalog.cache import inputs_key, memoized_for_inputs
from advisor.domain.i18n import local_name
from advisor.domain.plain import jsonable
from vendors.models import Accelerator, DataCenter, HostingVendor, Offer, PolicyZone, ServerModel

# Bookkeeping fields that say nothing about the figures.
SKIPPED = {"id", "source", "as_of", "created_at", "updated_at", "notes"}


def _related_names(row, values: dict) -> dict:
    """A foreign key's value as the record it points to is named in both languages (the
    appendix names records, never row ids)."""
    for field in row._meta.concrete_fields:
        if field.is_relation and values.get(field.name) is not None:
            target = getattr(row, field.name, None)
            if target is not None:
                values[field.name] = {
                    "name": local_name(target, "en") or str(target),
                    "name_zh": local_name(target, "zh-hans") or None,
                }
    return values


def _record(row, kind: str) -> dict:
    values = _related_names(row, model_to_dict(row))
    fields = {
        name: jsonable(value)
        for name, value in values.items()
        if name not in SKIPPED and value not in (None, "", [], {})
    }
    return {
        "kind": kind,
        "key": getattr(row, "key", str(row.pk)),
        "label": _label(row, "en"),
        "label_zh": _label(row, "zh-hans"),
        "fields": fields,
        "source": getattr(row, "source", "") or "",
        "as_of": jsonable(getattr(row, "as_of", None)),
    }


def _label(row, language: str) -> str:
    """ "Offer: HGX H20 8-GPU server – Buy – China Telecom …" as a reader of ``language`` reads
    it: the record kind and the names in that language (a market offer's seller, free text in
    the catalog, is named by its kind; the source says who it is)."""
    with translation.override(language):
        if isinstance(row, Offer):
            seller = row.data_center or row.vendor
            name = " – ".join(
                [
                    local_name(row.server_model, language),
                    str(row.get_kind_display()),
                    local_name(seller, language) if seller else gettext("market source"),
                ]
            )
        else:
            name = local_name(row, language) or str(row)
        return f"{row._meta.verbose_name}: {name}"


def _linked_records(server_keys, accelerator_keys, dc_keys) -> list[tuple[dict, dict]]:
    """Each record with the server, accelerator and data-center keys whose options use it."""
    rows = [
        (_record(r, "accelerator"), {"accelerators": {r.key}})
        for r in Accelerator.objects.filter(key__in=accelerator_keys)
    ]
    rows += [
        (_record(r, "server"), {"servers": {r.key}})
        for r in ServerModel.objects.filter(key__in=server_keys)
    ]
    data_centers = list(
        DataCenter.objects.filter(key__in=dc_keys).select_related("vendor", "policy_zone")
    )
    rows += [(_record(dc, "data-center"), {"dcs": {dc.key}}) for dc in data_centers]
    by_vendor, by_zone = {}, {}
    for dc in data_centers:
        if dc.vendor_id:
            by_vendor.setdefault(dc.vendor_id, set()).add(dc.key)
        if dc.policy_zone_id:
            by_zone.setdefault(dc.policy_zone_id, set()).add(dc.key)
    rows += [
        (_record(v, "hosting-vendor"), {"dcs": by_vendor[v.pk]})
        for v in HostingVendor.objects.filter(pk__in=by_vendor)
    ]
    rows += [
        (_record(z, "policy-zone"), {"dcs": by_zone[z.pk]})
        for z in PolicyZone.objects.filter(pk__in=by_zone)
    ]
    offers = (
        Offer.objects.filter(server_model__key__in=server_keys)
        .select_related("server_model")
        .order_by("key")
    )
    rows += [(_record(o, "offer"), {"servers": {o.server_model.key}}) for o in offers]
    return rows


def _keys(option: dict) -> tuple[str, str, str | None]:
    return option["server"]["key"], option["accelerator"]["key"], option["data_center"].get("key")


def records_for(options: list[dict]) -> list[dict]:
    """Accelerators, servers, data centers, vendors, policy zones and offers behind ``options``.

    ``options`` are option snapshots (advisor.brief.snapshot.option_snapshot).
    """
    keys = [_keys(o) for o in options]
    return [
        record
        for record, _ in _linked_records(
            {k[0] for k in keys}, {k[1] for k in keys}, {k[2] for k in keys if k[2]}
        )
    ]


def frozen_records(options) -> dict:
    """The records behind every option of a recommendation (domain ``Option``s), read at once
    and kept with it (docs/decisions/0033): ``{"records": [...], "by_option": {key: [i, ...]}}``.

    A brief issued later from the stored recommendation lists these, not the catalog of the day
    it is issued (``frozen_for``), so its appendix matches its figures.
    """
    keys = {
        o.key: (o.hardware.server.key, o.hardware.accelerator.key, o.site.data_center.key)
        for o in options
    }
    servers = sorted({k[0] for k in keys.values()})
    accelerators = sorted({k[1] for k in keys.values()})
    dcs = sorted({k[2] for k in keys.values() if k[2]})
    # Inside catalog_reads(stamp) (the stored-result service) kept per catalog stamp and keys:
    # the records of the same servers and sites read and worded once (decision 0050).
    linked = memoized_for_inputs(
        ("linked records", inputs_key(servers, accelerators, dcs)),
        lambda: _linked_records(set(servers), set(accelerators), set(dcs)),
    )
    by_option = {}
    for key, (server, accelerator, dc) in keys.items():
        by_option[key] = [
            index
            for index, (_, links) in enumerate(linked)
            if server in links.get("servers", ())
            or accelerator in links.get("accelerators", ())
            or (dc and dc in links.get("dcs", ()))
        ]
    return {"records": [record for record, _ in linked], "by_option": by_option}


def frozen_for(frozen: dict, option_keys: list[str]) -> list[dict]:
    """The frozen records behind ``option_keys``, in the order ``records_for`` gives them."""
    indexes = sorted({i for key in option_keys for i in frozen["by_option"].get(key, ())})
    return [frozen["records"][i] for i in indexes]
