"""Catalog rows → sizing inputs: accelerators and server models as domain hardware specs.

Read-only. The domain dataclasses (:mod:`advisor.domain.hardware`) carry the catalog's field
names, so a row converts field by field; a server's accelerator becomes its key.
"""

from __future__ import annotations

from dataclasses import fields

from advisor.domain.hardware import AcceleratorSpec, ServerSpec
from vendors.models import Accelerator, ServerModel

_ACCELERATOR_FIELDS = tuple(f.name for f in fields(AcceleratorSpec))
_SERVER_FIELDS = tuple(f.name for f in fields(ServerSpec) if f.name != "accelerator_key")


def accelerator_spec_from_row(row: Accelerator) -> AcceleratorSpec:
    return AcceleratorSpec(**{name: getattr(row, name) for name in _ACCELERATOR_FIELDS})


def server_spec_from_row(row: ServerModel) -> ServerSpec:
    values = {name: getattr(row, name) for name in _SERVER_FIELDS}
    return ServerSpec(accelerator_key=row.accelerator.key, **values)


def accelerator_specs() -> dict[str, AcceleratorSpec]:
    """Every accelerator in the catalog, by key."""
    return {row.key: accelerator_spec_from_row(row) for row in Accelerator.objects.all()}


def accelerator_spec(key: str) -> AcceleratorSpec | None:
    row = Accelerator.objects.filter(key=key).first()
    return accelerator_spec_from_row(row) if row is not None else None


def server_spec(key: str) -> ServerSpec | None:
    row = ServerModel.objects.select_related("accelerator").filter(key=key).first()
    return server_spec_from_row(row) if row is not None else None


def servers_for_accelerator(accelerator_key: str) -> list[ServerSpec]:
    """Server models that hold this accelerator, most GPUs first, then by maker and name."""
    rows = ServerModel.objects.select_related("accelerator").filter(
        accelerator__key=accelerator_key
    )
    specs = [server_spec_from_row(row) for row in rows]
    return sorted(specs, key=lambda spec: (-spec.gpu_count, spec.maker, spec.name))
