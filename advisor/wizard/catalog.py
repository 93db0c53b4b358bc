"""Catalog reads for the wizard's choices (presets, data centers, provinces, families).

Read-only and small: the catalog holds tens of rows, so choices are built per request.
"""

from __future__ import annotations

import re

from django.db.models import Q
from django.utils.text import slugify
from django.utils.translation import gettext as _

from advisor.presentation.text import local_name
from vendors import models as catalog

# The ModelPreset fields that are scenario v1 ``model`` fields.
ARCH_FIELDS = (
    "params_b",
    "layers",
    "hidden",
    "heads",
    "kv_heads",
    "intermediate",
    "vocab",
    "tied_embeddings",
    "experts",
    "experts_per_token",
)


def preset_choices() -> list:
    """Presets grouped by family for a ``<select>`` with ``<optgroup>``s."""
    groups: dict[str, list] = {}
    for preset in catalog.ModelPreset.objects.order_by("family", "params_b", "name"):
        groups.setdefault(preset.get_family_display(), []).append(
            (preset.key, preset_label(preset))
        )
    return list(groups.items())


def preset_label(row) -> str:
    return _("%(name)s · %(params)s B parameters") % {
        "name": row.name,
        "params": f"{row.params_b:.3g}" if row.params_b < 100 else f"{row.params_b:.0f}",
    }


def search_presets(query: str, selected: str = "", limit: int = 50) -> list:
    """Presets whose name, repository or family contains ``query`` (case-insensitive),
    as ``(family label, [(key, label), ...])`` groups; the ``selected`` one is always kept."""
    query = (query or "").strip()[:100]
    rows = catalog.ModelPreset.objects.order_by("family", "params_b", "name")
    if query:
        rows = rows.filter(
            Q(name__icontains=query)
            | Q(hf_repo__icontains=query)
            | Q(family__icontains=query)
            | Q(key=selected)
        )
    groups: dict[str, list] = {}
    for row in rows[:limit]:
        groups.setdefault(row.get_family_display(), []).append((row.key, preset_label(row)))
    return list(groups.items())


def preset(key: str | None):
    if not key:
        return None
    return catalog.ModelPreset.objects.filter(key=key).first()


def model_fields(answers: dict) -> dict | None:
    """The scenario ``model`` object for the model step's answers, or None if incomplete."""
    source = answers.get("source")
    if source == "preset":
        row = preset(answers.get("preset"))
        if row is None:
            return None
        fields = {name: getattr(row, name) for name in ARCH_FIELDS}
        fields["name"] = row.name
    elif source in ("custom", "upload"):
        fields = {name: answers.get(name) for name in ARCH_FIELDS}
        fields["name"] = answers.get("name") or _("Custom model")
        if fields["params_b"] is None:
            return None
    else:
        return None
    fields["tied_embeddings"] = bool(fields["tied_embeddings"])
    if not fields.get("experts") or fields["experts"] <= 1:
        fields["experts"] = fields["experts_per_token"] = None
    order = ("name", *ARCH_FIELDS)
    return {name: fields.get(name) for name in order}


def context_length(answers: dict) -> int | None:
    if answers.get("source") == "preset":
        row = preset(answers.get("preset"))
        return row.context_length if row else None
    return answers.get("context_length")


def model_label(answers: dict) -> str:
    if answers.get("source") == "preset":
        row = preset(answers.get("preset"))
        return row.name if row else _("a model no longer in the catalog")
    return answers.get("name") or _("Custom model")


def data_center_choices() -> list:
    rows = catalog.DataCenter.objects.select_related("vendor").order_by("province", "city", "name")
    return [(row.key, data_center_label(row)) for row in rows]


def data_center_label(row) -> str:
    """Name · city · operator, each in the reader's language."""
    vendor = getattr(row, "vendor", None)
    operator = f" · {local_name(vendor)}" if vendor else ""
    return f"{local_name(row)} · {local_name(row, 'city')}{operator}"


def data_center_labels(keys) -> list[str]:
    rows = catalog.DataCenter.objects.select_related("vendor").filter(key__in=list(keys or []))
    rows = {row.key: row for row in rows}
    return [data_center_label(rows[k]) if k in rows else k for k in keys or []]


def province_choices() -> list:
    """Provinces as policy zones, each with the PUE limit it sets for new rooms, if any."""
    rows = catalog.PolicyZone.objects.filter(kind="province").order_by("province")
    choices = []
    for row in rows:
        label = zone_label(row)
        if row.pue_limit is not None:
            label = _("%(zone)s · PUE limit %(limit)s") % {
                "zone": label,
                "limit": f"{row.pue_limit:g}",
            }
        choices.append((row.key, label))
    return choices


def zone_label(row) -> str:
    return local_name(row)


def zone(key: str | None):
    if not key:
        return None
    return catalog.PolicyZone.objects.filter(key=key).first()


def _family_name(maker: str, architecture: str) -> str:
    """ "Huawei Da Vinci" for both "Da Vinci" and "Da Vinci (dual-die)": notes in brackets
    describe a part, not a family."""
    return f"{maker} {re.sub(r'\s*\(.*?\)', '', architecture).strip()}".strip()


def _family_key(maker: str, architecture: str) -> str:
    return slugify(_family_name(maker, architecture))


def families() -> dict[str, dict]:
    """Accelerator families (maker + architecture): label and whether all are domestic.

    The key is made from the English maker (stored answers keep it); the label names the maker
    in the reader's language ("华为 Da Vinci" on a Chinese page)."""
    out: dict[str, dict] = {}
    for row in catalog.Accelerator.objects.order_by("maker", "architecture"):
        key = _family_key(row.maker, row.architecture)
        label = _family_name(local_name(row, "maker"), row.architecture)
        entry = out.setdefault(key, {"label": label, "domestic": True, "keys": []})
        entry["domestic"] &= row.china_availability == "domestic"
        entry["keys"].append(row.key)
    return out


def family_choices() -> list:
    return [(key, entry["label"]) for key, entry in families().items()]


def family_label(key: str) -> str:
    entry = families().get(key)
    return entry["label"] if entry else key


def family_is_domestic(key: str) -> bool:
    entry = families().get(key)
    return bool(entry and entry["domestic"])


def domestic_accelerator_keys() -> set[str]:
    return set(
        catalog.Accelerator.objects.filter(china_availability="domestic").values_list(
            "key", flat=True
        )
    )
