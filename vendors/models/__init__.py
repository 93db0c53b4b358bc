"""Catalog models, one module per area (as NetBox's ``dcim/models/``): accelerators, servers, hosting vendors, data centers, policy zones, offers,
model presets.

Conventions (see docs/catalog.md):
- units are in field names (``_gb`` marketed decimal GB, ``_gib`` binary, ``_tbps`` TB/s,
  ``_gbs`` GB/s, ``_gbps`` Gb/s, ``_w`` watts, ``_kg``, ``_c`` °C, ``_pct`` percent,
  ``_cny`` yuan) and in verbose names;
- every row carries ``source`` (URLs or document names) and ``as_of`` (date of the figures);
  a figure nobody could source stays empty, never guessed;
- every model has a unique ``key`` (its natural key), so fixtures load without primary keys
  and reload idempotently;
- accelerator and server field names equal the field names of the dataclasses in
  ``advisor/domain/hardware.py``.
"""

from vendors.models.base import (
    AUDIT_FIELDS,
    EXAMPLE_LABEL,
    FIXTURE_CHANGE_REASON,
    CatalogEntry,
    KeyedManager,
    inlet_temp,
    keep_created_at,
    null_or,
    percent,
    positive,
    pue,
    record_fixture_history,
)
from vendors.models.hardware import (
    Accelerator,
    ServerModel,
)
from vendors.models.hosting import (
    Certificate,
    HostingVendor,
)
from vendors.models.offers import (
    Offer,
    parse_instance_gpus,
    validate_instance_gpus,
)
from vendors.models.presets import (
    ModelPreset,
)
from vendors.models.sites import (
    DataCenter,
    PolicyZone,
)
from vendors.models.tariffs import (
    PublishedFigure,
    RackFee,
    Tariff,
)

__all__ = [
    "AUDIT_FIELDS",
    "Accelerator",
    "CatalogEntry",
    "Certificate",
    "DataCenter",
    "EXAMPLE_LABEL",
    "FIXTURE_CHANGE_REASON",
    "HostingVendor",
    "KeyedManager",
    "ModelPreset",
    "Offer",
    "PolicyZone",
    "PublishedFigure",
    "RackFee",
    "ServerModel",
    "Tariff",
    "inlet_temp",
    "keep_created_at",
    "null_or",
    "parse_instance_gpus",
    "percent",
    "positive",
    "pue",
    "record_fixture_history",
    "validate_instance_gpus",
]
