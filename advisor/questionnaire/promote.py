"""Promote a declared fact into the catalog: the row changes with history and a source line."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import translation
from django.utils.translation import gettext as _

from advisor.domain.questionnaire.declared import DeclaredFact, validate_declared
from advisor.domain.questionnaire.specs import (
    ACCELERATOR,
    CLOUD_OFFER,
    DATA_CENTER,
    OPERATOR,
    SERVER,
)
from advisor.domain.sources import split_line
from vendors.models import Accelerator, Certificate, DataCenter, HostingVendor, Offer, ServerModel

MODELS = {
    DATA_CENTER: DataCenter,
    OPERATOR: HostingVendor,
    CLOUD_OFFER: Offer,  # a cloud offer's region and its being in mainland China
    SERVER: ServerModel,
    ACCELERATOR: Accelerator,
}


def promotable(section: dict) -> list[DeclaredFact]:
    """The facts of a declared section that have a catalog field to go into."""
    return [
        item
        for item in validate_declared(section or {})
        if item.fact.promotable and item.fact.kind in MODELS
    ]


def source_line(item: DeclaredFact, received) -> str:
    """The catalog's source line for a promoted fact, in English like every catalog source."""
    with translation.override("en"):
        line = _("Declared by the vendor on %(date)s") % {"date": item.received or received}
        if item.evidence:
            line += _(", evidence: %(evidence)s") % {"evidence": item.evidence}
    # The vendor's own declaration: a vendor publication (docs/decisions/0043-source-kinds.md).
    return f"[vendor] {line} ({item.fact.name})."


@dataclass(frozen=True)
class Promoted:
    item: DeclaredFact
    error: str = ""


def _row_for(item: DeclaredFact):
    model = MODELS[item.fact.kind]
    row = model.objects.filter(key=item.subject).first()
    if row is None or "." not in item.fact.name:
        return row, item.fact.name
    kind, field = item.fact.name.split(".", 1)
    certificate = (
        Certificate.objects.filter(vendor=row, kind=kind).order_by("-valid_until", "-pk").first()
    )
    if certificate is None:
        certificate = Certificate(
            key=f"{row.key}-{kind}-declared"[:50], vendor=row, kind=kind, as_of=None
        )
    return certificate, field


def promote(items: list[DeclaredFact], received) -> list[Promoted]:
    """Write each fact into its catalog row (validated); each row saves with history."""
    results = []
    for item in items:
        row, field = _row_for(item)
        if row is None:
            results.append(
                Promoted(item, _("No catalog record has the key %(key)s.") % {"key": item.subject})
            )
            continue
        setattr(row, field, item.python_value)
        line = source_line(item, received)
        row.source = f"{row.source}\n{line}".strip() if row.source else line
        row._change_reason = split_line(line)[1]  # the history reads the words, not the kind
        try:
            with transaction.atomic():
                row.full_clean()
                row.save()
        except ValidationError as error:
            results.append(Promoted(item, "; ".join(error.messages)))
            continue
        results.append(Promoted(item))
    return results
