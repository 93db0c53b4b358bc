"""The documents a brief's snapshot gives beside the signed PDF: the price comparison sheet and
the technical specification of the chosen option (DOCX and PDF).

Each is made on demand from the frozen snapshot in the brief's language, so it shows exactly
the options, figures and sources of the brief however the catalog changed since, and the same
snapshot gives the same bytes (dates inside the files are the snapshot's day,
:mod:`advisor.brief.office`). Every generation is recorded in the audit trail: who, when,
which document and its SHA-256.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.utils.translation import gettext_lazy as _
from django.utils.translation import override

from advisor.brief import audit
from advisor.brief.comparison import comparison_workbook, workbook_title
from advisor.brief.models import AuditAction, AuditEvent, Brief
from advisor.brief.specification import docx_bytes, pdf_bytes, specification
from advisor.brief.verify import sha256_hex

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


@dataclass(frozen=True)
class Kind:
    key: str
    label: object
    extension: str
    content_type: str
    needs: str  # the snapshot section it is made from (briefs issued before it lack it)
    stem: str = ""  # the file name's word (default: the key), without the extension

    def filename(self, number: str) -> str:
        """``FT-2026-000001-specification.docx``: one extension, never doubled."""
        return f"{number}-{self.stem or self.key}.{self.extension}"


COMPARISON = Kind("comparison", _("Price comparison sheet (XLSX)"), "xlsx", XLSX, "shortlist")
SPECIFICATION_DOCX = Kind(
    "specification-docx",
    _("Technical specification (DOCX)"),
    "docx",
    DOCX,
    "options",
    "specification",
)
SPECIFICATION_PDF = Kind(
    "specification-pdf",
    _("Technical specification (PDF)"),
    "pdf",
    "application/pdf",
    "options",
    "specification",
)
KINDS = {kind.key: kind for kind in (COMPARISON, SPECIFICATION_DOCX, SPECIFICATION_PDF)}


@dataclass(frozen=True)
class Made:
    kind: Kind
    data: bytes
    filename: str
    sha256: str


def available(brief: Brief) -> list[Kind]:
    """The documents this brief's snapshot can give."""
    return [kind for kind in KINDS.values() if kind.needs in (brief.snapshot or {})]


def history(brief: Brief) -> list[dict]:
    """Every document made from ``brief``, newest first: when, by whom, which, its SHA-256."""
    events = AuditEvent.objects.filter(brief=brief, action=AuditAction.DOCUMENT_GENERATED)
    return [
        {
            "at": event.at,
            "by": event.actor_username,
            "label": KINDS[event.detail["document"]].label
            if event.detail.get("document") in KINDS
            else event.detail.get("document", ""),
            "sha256": event.detail.get("sha256", ""),
        }
        for event in events.order_by("-at", "-pk")
    ]


def snapshot_day(snapshot: dict) -> date:
    return date.fromisoformat(snapshot["today"])


def render(brief: Brief, kind: Kind) -> bytes:
    snapshot = brief.snapshot
    day = snapshot_day(snapshot)
    model_name = (snapshot.get("scenario") or {}).get("model", {}).get("name", "")
    with override(brief.language):
        if kind is COMPARISON:
            title = workbook_title(model_name, day, brief.number)
            return comparison_workbook(snapshot[kind.needs], title, day)
        spec = specification(snapshot, brief.number)
        return docx_bytes(spec) if kind is SPECIFICATION_DOCX else pdf_bytes(spec)


def make(brief: Brief, key: str, user) -> Made:
    """Document ``key`` of ``brief``, recorded in the audit trail; KeyError when the brief's
    snapshot cannot give it."""
    kind = KINDS[key]
    if kind not in available(brief):
        raise KeyError(key)
    data = render(brief, kind)
    made = Made(kind, data, kind.filename(brief.number), sha256_hex(data))
    audit.record(
        AuditAction.DOCUMENT_GENERATED,
        actor=user,
        brief=brief,
        document=kind.key,
        sha256=made.sha256,
        bytes=len(data),
    )
    return made
