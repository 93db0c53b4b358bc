"""The wizard's choices in the reader's words: presets, data centers, provinces, families.

The rows come from :mod:`advisor.catalog.choices`; this module only puts words on them.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from advisor.catalog import choices as catalog
from advisor.presentation.text import local_name


def preset_label(row) -> str:
    return _("%(name)s · %(params)s B parameters") % {
        "name": row.name,
        "params": f"{row.params_b:.3g}" if row.params_b < 100 else f"{row.params_b:.0f}",
    }


def _grouped(rows) -> list:
    groups: dict[str, list] = {}
    for row in rows:
        groups.setdefault(row.get_family_display(), []).append((row.key, preset_label(row)))
    return list(groups.items())


def preset_choices() -> list:
    """Presets grouped by family for a ``<select>`` with ``<optgroup>``s."""
    return _grouped(catalog.presets())


def search_presets(query: str, selected: str = "", limit: int = 50) -> list:
    """Presets matching ``query`` as ``(family label, [(key, label), ...])`` groups."""
    return _grouped(catalog.presets(query, selected, limit))


def context_length(answers: dict) -> int | None:
    if answers.get("source") == "preset":
        row = catalog.preset(answers.get("preset"))
        return row.context_length if row else None
    return answers.get("context_length")


def data_center_label(row) -> str:
    """Name · city · operator, each in the reader's language."""
    vendor = getattr(row, "vendor", None)
    operator = f" · {local_name(vendor)}" if vendor else ""
    return f"{local_name(row)} · {local_name(row, 'city')}{operator}"


def data_center_choices() -> list:
    return [(row.key, data_center_label(row)) for row in catalog.data_centers()]


def province_choices() -> list:
    """Provinces as policy zones, each with the PUE limit it sets for new rooms, if any."""
    choices = []
    for row in catalog.provinces():
        label = local_name(row)
        if row.pue_limit is not None:
            label = _("%(zone)s · PUE limit %(limit)s") % {
                "zone": label,
                "limit": f"{row.pue_limit:g}",
            }
        choices.append((row.key, label))
    return choices


# Architectures with a name of their own in Chinese (the others are product names: Hopper, CDNA).
ARCHITECTURE_NAMES = {"Da Vinci": gettext_lazy("Da Vinci")}


def _family_label(entry: dict) -> str:
    row = entry["rows"][0]
    label = catalog.family_name(local_name(row, "maker"), row.architecture)
    for english, local in ARCHITECTURE_NAMES.items():
        label = label.replace(english, str(local))
    return label


def family_choices() -> list:
    return [(key, _family_label(entry)) for key, entry in catalog.accelerator_families().items()]


def family_label(key: str) -> str:
    entry = catalog.accelerator_families().get(key)
    return _family_label(entry) if entry else key


def accelerator_choices() -> list:
    """Every accelerator of the catalog by product (H100, H20, 910B …), named for the reader,
    its family after it."""
    rows = []
    for entry in catalog.accelerator_families().values():
        family = _family_label(entry)
        rows += [(row.key, f"{local_name(row)} · {family}") for row in entry["rows"]]
    return sorted(rows, key=lambda item: item[1].lower())


def family_is_domestic(key: str) -> bool:
    entry = catalog.accelerator_families().get(key)
    return bool(entry and entry["domestic"])


def domestic_accelerator_keys() -> frozenset[str]:
    return catalog.domestic_accelerator_keys()
