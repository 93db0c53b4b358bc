"""What the API reads besides scenario documents, and what it answers (the OpenAPI schema)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal
from uuid import UUID

from django.urls import reverse
from ninja import Field, Schema

from advisor.assessments.answers import Incomplete, assessment_document

Language = Literal["en", "zh-hans"]
# A catalog key as the catalog writes them (lower-case words joined by hyphens): anything else
# names nothing in the catalog and is refused before it reaches a query.
CATALOG_KEY = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"


class Error(Schema):
    field: str = Field(description="the field's dotted path, e.g. `procurement.years`")
    message: str


class Errors(Schema):
    errors: list[Error]


class LanguageParams(Schema):
    language: Language = Field("en", description="language of labels and messages")


class SizeParams(LanguageParams):
    accelerator: str | None = Field(
        None, max_length=80, pattern=CATALOG_KEY, description="overrides the document's"
    )
    gpus: int | None = Field(None, description="GPU count (overrides hardware.count)")
    server: str | None = Field(
        None, max_length=80, pattern=CATALOG_KEY, description="catalog server model key"
    )
    allow_offload: bool = False


class TitleParams(Schema):
    title: str = Field("", max_length=120, description="the assessment's name")


class IssueIn(Schema):
    option: str = Field(min_length=1, max_length=400, description="the option's key (results)")
    language: Language = "zh-hans"
    computed: UUID | None = Field(
        None,
        description="the `computed` token of the results you chose from: refused (409) when "
        "the options have been computed again since",
    )


class AssessmentOut(Schema):
    id: int
    title: str
    status: str
    created_at: datetime
    updated_at: datetime
    page: str


class AssessmentDetail(AssessmentOut):
    document: dict | None = Field(description="the scenario document; null while unanswered")


class ResultsOut(Schema):
    assessment: int
    computed: str = Field(description="token of the stored result (issue a brief with it)")
    catalog_changed: bool
    today: str
    considered: int
    qualifying: int
    options: list[dict]


class BriefOut(Schema):
    id: int
    number: str
    status: str
    language: str
    ready: bool
    superseded: bool
    assessment: int | None
    option: str | None
    verdict: str | None
    open_vetoes: int
    created_at: datetime
    updated_at: datetime
    approved_at: datetime | None
    review_comment: str
    sha256: str
    pdf: str | None = Field(description="download URL once ready")


class SignatureOut(Schema):
    signer: str
    signing_time: datetime | None
    intact: bool
    valid: bool
    trusted: bool
    covers_whole_file: bool


class Superseded(Schema):
    since: datetime | None = Field(description="when the result that supersedes it was computed")
    verdict_when_issued: str | None
    verdict_now: str | None = Field(description="None when the option is gone")


class VerificationOut(Schema):
    ok: bool = Field(description="intact, trusted and exactly a brief on record")
    sha256: str
    tampering: str
    signatures: list[SignatureOut]
    on_record: bool
    brief: str | None = Field(description="the number of the brief on record")
    stripped_from: str | None
    superseded_draft_of: str | None
    superseded: Superseded | None = Field(
        None,
        description="set when the brief on record no longer holds: its option's verdict "
        "changed after issue, or the option is no longer among the assessment's options",
    )


def assessment_out(assessment) -> dict:
    return {
        "id": assessment.pk,
        "title": assessment.display_title,
        "status": assessment.status,
        "created_at": assessment.created_at,
        "updated_at": assessment.updated_at,
        "page": reverse("results:list", args=[assessment.pk]),
    }


def assessment_detail(assessment) -> dict:
    try:
        document = assessment_document(assessment)
    except Incomplete:
        document = None
    return {**assessment_out(assessment), "document": document}


def brief_out(glance) -> dict:
    brief = glance.brief
    return {
        "id": brief.pk,
        "number": brief.number,
        "status": brief.status,
        "language": brief.language,
        "ready": brief.ready,
        "superseded": glance.superseded,
        "assessment": brief.assessment_id,
        "option": glance.chosen.get("key"),
        "verdict": (glance.chosen.get("compliance") or {}).get("verdict"),
        "open_vetoes": len(glance.open_vetoes),
        "created_at": brief.created_at,
        "updated_at": brief.updated_at,
        "approved_at": brief.approved_at,
        "review_comment": brief.review_comment,
        "sha256": brief.sha256,
        "pdf": reverse("api:brief_pdf", args=[brief.pk]) if brief.ready else None,
    }


def _number(brief) -> str | None:
    return brief.number if brief is not None else None


def verification_out(verification) -> dict:
    report = verification.report
    return {
        "ok": verification.ok,
        "sha256": report.sha256,
        "tampering": report.tampering.value,
        "signatures": [
            {
                "signer": s.signer,
                "signing_time": s.signing_time,
                "intact": s.intact,
                "valid": s.valid,
                "trusted": s.trusted,
                "covers_whole_file": s.covers_whole_file,
            }
            for s in report.signatures
        ],
        "on_record": verification.on_record,
        "brief": _number(verification.brief),
        "stripped_from": _number(verification.stripped_from),
        "superseded_draft_of": _number(verification.superseded_draft_of),
        "superseded": _superseded(verification),
    }


def _superseded(verification) -> dict | None:
    if not verification.superseded:
        return None
    standing = verification.standing
    return {
        "since": standing.since,
        "verdict_when_issued": standing.then_verdict,
        "verdict_now": standing.now_verdict,
    }
