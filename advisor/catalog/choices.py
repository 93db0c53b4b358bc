"""Catalog reads behind the buyer's answers: model presets, data centers, provinces and the
accelerator families the wizard offers (rows and keys; the words are the wizard's business).

Read-only and small: the catalog holds tens of rows. Inside ``catalog_reads`` (the wizard's
pages, :func:`advisor.catalog.stamp.catalog_reads_kept`) the lists are read once per catalog
stamp and shared between requests: callers read them, never change them.
"""

from __future__ import annotations

import re

from django.db.models import Q
from django.utils.text import slugify

from advisor.catalog.cache import memoized
from advisor.domain.scenario import MODEL_SHAPE_KEYS
from vendors import models as catalog

# The ModelPreset fields that are scenario v1 ``model`` fields.
ARCH_FIELDS = MODEL_SHAPE_KEYS


def presets(query: str = "", selected: str = "", limit: int | None = None) -> list:
    """Presets by family and size; with ``query``, those whose name, repository or family
    contains it (case-insensitive), the ``selected`` one always kept."""
    query = (query or "").strip()[:100]
    if not query and not limit:
        return memoized("model presets", _every_preset)
    rows = _presets_in_order()
    if query:
        rows = rows.filter(
            Q(name__icontains=query)
            | Q(hf_repo__icontains=query)
            | Q(family__icontains=query)
            | Q(key=selected)
        )
    return list(rows[:limit] if limit else rows)


def _presets_in_order():
    return catalog.ModelPreset.objects.order_by("family", "params_b", "name")


def _every_preset() -> list:
    return list(_presets_in_order())


def preset(key: str | None):
    """The model preset ``key`` (None when unknown); read once per catalog stamp inside
    ``catalog_reads`` (a stored result's document, docs/decisions/0073), else per call."""
    if not key:
        return None
    return memoized(
        ("model preset", key), lambda: catalog.ModelPreset.objects.filter(key=key).first()
    )


def data_centers() -> list:
    return memoized("data centers", _read_data_centers)


def _read_data_centers() -> list:
    return list(
        catalog.DataCenter.objects.select_related("vendor").order_by("province", "city", "name")
    )


def unknown_data_centers(keys) -> list[str]:
    """The keys among ``keys`` that name no catalog data center (in the order given)."""
    keys = [k for k in keys or [] if isinstance(k, str)]
    found = set(catalog.DataCenter.objects.filter(key__in=keys).values_list("key", flat=True))
    return [k for k in keys if k not in found]


def provinces() -> list:
    """Provinces as policy zones (with the PUE limit each sets for new rooms, if any)."""
    return memoized("provinces", _read_provinces)


def _read_provinces() -> list:
    return list(catalog.PolicyZone.objects.filter(kind="province").order_by("province"))


def zone(key: str | None):
    if not key:
        return None
    return catalog.PolicyZone.objects.filter(key=key).first()


def family_name(maker: str, architecture: str) -> str:
    """ "Huawei Da Vinci" for both "Da Vinci" and "Da Vinci (dual-die)": notes in brackets
    describe a part, not a family."""
    return f"{maker} {re.sub(r'\s*\(.*?\)', '', architecture).strip()}".strip()


def family_key(maker: str, architecture: str) -> str:
    return slugify(family_name(maker, architecture))


def accelerator_families() -> dict[str, dict]:
    """Accelerator families (maker + architecture), keyed by a slug of the English name
    (stored answers keep it): ``{"rows": [...], "keys": [...], "domestic": bool}``. Read once
    per catalog stamp inside ``catalog_reads``: callers read it, never change it."""
    return memoized("accelerator families", _read_accelerator_families)


def _read_accelerator_families() -> dict[str, dict]:
    out: dict[str, dict] = {}
    for row in catalog.Accelerator.objects.order_by("maker", "architecture", "key"):
        entry = out.setdefault(
            family_key(row.maker, row.architecture), {"rows": [], "keys": [], "domestic": True}
        )
        entry["rows"].append(row)
        entry["keys"].append(row.key)
        entry["domestic"] &= row.china_availability == "domestic"
    return out


def domestic_accelerator_keys() -> frozenset[str]:
    return memoized("domestic accelerators", _read_domestic_accelerator_keys)


def _read_domestic_accelerator_keys() -> frozenset[str]:
    return frozenset(
        catalog.Accelerator.objects.filter(china_availability="domestic").values_list(
            "key", flat=True
        )
    )
