"""What the API reads besides scenario documents, and what it answers (the OpenAPI schema)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal
from uuid import UUID

from django.urls import reverse
from ninja import Field, Schema
from pydantic import AfterValidator, ConfigDict

from advisor.assessments.answers import Incomplete, assessment_document
from advisor.domain.document import control_character
from advisor.domain.scenario import METHODS, PRECISIONS
from advisor.recommendation.output import FORMAT, FORMATS

Language = Literal["en", "zh-hans"]
# A catalog key as the catalog writes them (lower-case words joined by hyphens): anything else
# names nothing in the catalog and is refused before it reaches a query.
CATALOG_KEY = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"


def _plain(text: str) -> str:
    """Refuse control characters (a NUL reaches no database): 400 naming the field."""
    if character := control_character(text):
        raise ValueError(f"must not contain control characters (found {character})")
    return text


# Text without control characters (C0 and DEL), as scenario documents (advisor.domain.document).
PlainText = Annotated[str, AfterValidator(_plain)]


def _section(description: str, nullable: bool = False) -> dict:
    kinds = ["object", "null"] if nullable else "object"
    return {"type": kinds, "description": description, "additionalProperties": True}


def _switch(description: str) -> dict:
    return {"type": ["boolean", "null"], "description": description}


# The scenario document's top level (docs/scenario-format.md): what a generated client needs to
# build one. The one validator (``check_document``) still judges every field and answers a 400
# naming it in the commands' words, so the sections' insides are described there, not here.
SCENARIO_DOCUMENT = {
    "title": "ScenarioDocument",
    "type": "object",
    "description": (
        "A scenario document: scenario v1 with the project's extensions and the optional "
        "sections `site`, `procurement` and `declared` (docs/scenario-format.md), at most 1 "
        "MiB. An unknown top-level key is refused unless its value is an object (a future "
        "section, kept)."
    ),
    "required": [
        "model",
        "method",
        "precision",
        "seq_len",
        "micro_batch",
        "hardware",
        "parallelism",
    ],
    "properties": {
        "model": _section("the architecture: name, params_b, layers, hidden, heads, …"),
        "method": {"type": "string", "enum": list(METHODS), "description": "what is trained"},
        "lora": _section("adapter settings: rank, alpha, targets, dropout", nullable=True),
        "precision": {"type": "string", "enum": list(PRECISIONS)},
        "quant_bits": {"type": ["integer", "null"], "enum": [4, 8, None]},
        "optimizer": {"type": "string", "description": "default `adamw`"},
        "optimizer_in_backward": _switch("the optimizer step runs during the backward pass"),
        "seq_len": {"type": "integer", "minimum": 1, "maximum": 1048576, "description": "tokens"},
        "micro_batch": {"type": "integer", "minimum": 1, "maximum": 4096},
        "grad_accum": {"type": "integer", "minimum": 1, "maximum": 65536, "default": 1},
        "gradient_checkpointing": _switch("activation checkpointing; null: not stated"),
        "flash_attention": _switch("a fused attention kernel; null: not stated"),
        "packed": _switch("every sequence is exactly `seq_len` tokens; null: not stated"),
        "hardware": _section("accelerator (catalog key), count, nodes"),
        "parallelism": _section("tensor, pipeline, data parallel, ZeRO stage, offload, …"),
        "training": _section("dataset_tokens, epochs", nullable=True),
        "site": _section("where the servers may go: data_centers, room (optional section)"),
        "procurement": _section(
            "how they may be obtained: modes, years, usage, budget, qualifications, … "
            "(optional section)"
        ),
        "declared": _section(
            "facts the hosting vendor declared, per subject key (optional section)"
        ),
    },
    "additionalProperties": True,
}


class Error(Schema):
    field: str = Field(description="the field's dotted path, e.g. `procurement.years`")
    message: str


class Errors(Schema):
    errors: list[Error]


class LanguageParams(Schema):
    language: Language = Field("en", description="language of labels and messages")


class MessageLanguage(Schema):
    language: Language | None = Field(
        None, description="language of the messages (errors); default: Accept-Language"
    )


class TitleParams(MessageLanguage):
    title: PlainText = Field("", max_length=120, description="the assessment's name")


class Placement(Schema):
    gpus: int
    servers: int
    strategy: str
    offload: str | None
    tensor_parallel: int
    memory_total_gib: float


class SizeOut(Schema):
    """What `manage.py size --format json` prints (docs/sizing.md); sizes in GiB, power in
    kW, times in hours or seconds as the names say."""

    model_config = ConfigDict(extra="forbid")

    accelerator: str | None = Field(description="catalog key; null when none is named")
    server: str | None
    gpus: int
    servers: int
    gpus_per_server: int
    strategy: str
    offload: str | None
    tensor_parallel: int
    pipeline_parallel: int
    memory_per_gpu_gib: dict[str, float] = Field(description="per component, GiB")
    memory_band_gib: list[float] = Field(description="[low, high]")
    memory_allocated_gib: float
    memory_reading_gib: float
    memory_reading_range_gib: list[float]
    capacity_gib: float | None
    fits: bool | None = Field(description="null when no accelerator is named")
    max_micro_batch: int | None
    max_seq_len: int | None
    host_ram_per_server_gib: float
    paged_optimizer_gib: float
    fewest_gpus: Placement | None
    tokens_per_s: float | None
    tokens_per_s_band: list[float] | None
    step_time_s: float | None
    time_to_train_hours: float | None
    time_to_train_hours_band: list[float] | None
    gpu_hours: float | None
    power_kw_per_server: float | None
    power_typical_kw_per_server: float | None
    btu_per_hour_per_server: float | None
    checkpoint_gib: float
    local_nvme_recommended_tb: float
    network_gbps_per_server: float | None
    assumptions: list[str] = Field(description="in the language asked for")


class SizeParams(LanguageParams):
    accelerator: str | None = Field(
        None, max_length=80, pattern=CATALOG_KEY, description="overrides the document's"
    )
    gpus: int | None = Field(None, description="GPU count (overrides hardware.count)")
    server: str | None = Field(
        None, max_length=80, pattern=CATALOG_KEY, description="catalog server model key"
    )
    allow_offload: bool = False


class IssueIn(Schema):
    option: PlainText = Field(
        min_length=1, max_length=400, description="the option's key (results)"
    )
    language: Language = "zh-hans"
    computed: UUID | None = Field(
        None,
        description="the `computed` token of the results you chose from: refused (409) when "
        "the options have been computed again since",
    )
    reason: str = Field(
        "",
        max_length=2000,
        description="why this option rather than rank 1: required for any other option, "
        "printed in the brief's memo",
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


class RecommendParams(LanguageParams):
    format: int = Field(
        FORMAT,
        ge=min(FORMATS),
        le=max(FORMATS),
        description="output format: 2 lists each distinct finding once (`findings`) and each "
        "option names its findings by id; 1 is the previous format (each option's findings "
        "written out), kept for one release",
    )


class NoExtra(Schema):
    """The recommendation's parts: every key is described (a test validates the answers)."""

    model_config = ConfigDict(extra="forbid")


class FindingOut(NoExtra):
    id: int = Field(description="what options' `findings` name it by (from 1, in order)")
    rule: str
    status: str = Field(description="pass, fail, unknown or not-applicable")
    severity: str = Field(description="blocker, warning or info")
    citation: str
    message: str = Field(description="in the language asked for")


class DeclaredOut(NoExtra):
    finding: int = Field(description="the id of the finding this fact was used for")
    subject: str = Field(description="a data center, operator, server or accelerator key")
    fact: str
    value: Any
    evidence: str


class OptionOut(NoExtra):
    rank: int
    key: str
    qualifies: bool = Field(description="meets every requirement and is priced")
    unpriced: bool = Field(description="meets every requirement but has no price: not compared")
    reasons: list[str] = Field(description="why it does not qualify (empty when it does)")
    accelerator: str
    gpus: int
    servers: int
    server: str
    data_center: str | None = Field(description="null for a cloud option")
    vendor: str | None
    place: str = Field(description="data center, or cloud provider and region")
    capacity: dict[str, Any] = Field(
        description="how the GPUs are obtained (docs/economics.md): `how`, `instances`, "
        "`gpus_per_instance`, `gpus`, `gpus_used`, `idle_gpus`, `provider`, `region`, …"
    )
    fits: bool
    memory_per_gpu_gib: float
    capacity_gib: float
    time_to_train_hours: float | None
    mode: str | None
    cost: dict[str, Any] | None = Field(
        description="cost lines and totals, amounts as exact strings (docs/economics.md); "
        "null when the option is not priced"
    )
    verdict: str
    counts: dict[str, int]
    findings: list[int] = Field(description="ids of the option's findings, in order")
    declared: list[DeclaredOut] = Field(
        description="the vendor's declared facts its findings were computed from"
    )


class Recommendation(NoExtra):
    format: Literal[2] = Field(description="the output format's version")
    today: str
    considered: int
    qualifying: int = Field(description="priced options that meet every requirement (compared)")
    unpriced: int = Field(description="options that meet every requirement but have no price")
    compared: str = Field(description="how many were compared and how many could not be")
    findings: list[FindingOut] = Field(description="every distinct finding, once")
    options: list[OptionOut] = Field(description="ranked, the best first")


class ResultsOut(Recommendation):
    assessment: int
    computed: str = Field(description="token of the stored result (issue a brief with it)")
    catalog_changed: bool


class BriefOut(Schema):
    id: int
    number: str
    status: str
    language: str
    ready: bool
    superseded: bool
    origin: str = Field(
        description="where it was issued: page (the advisor's pages), api or command_line "
        "(manage.py issue_brief); the same as in its webhook events"
    )
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
    role: str = Field(
        description="issuer: the system's signature; approver: the approver's own approval "
        "signature (judged on its own, see `approval`)"
    )


class ApprovalOut(Schema):
    trusted: bool = Field(description="intact, valid and chaining to a trusted authority")
    signer_is_approver: bool | None = Field(
        description="the certificate names the approver on record (e-mail or full name); "
        "null when no approver is on record to compare with"
    )
    approver: str | None = Field(description="the approver on record (user name)")


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
    issuer_trusted: bool = Field(
        default=False, description="the system's signature is intact and trusted"
    )
    approval: ApprovalOut | None = Field(
        default=None, description="the approval signature, when the PDF carries one"
    )
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
        "origin": brief.origin,
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
                "role": "approver" if s is verification.approval_signature else "issuer",
            }
            for s in report.signatures
        ],
        "issuer_trusted": not verification.untrusted and report.tampering.value == "none",
        "approval": _approval_out(verification),
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


def _approval_out(verification) -> dict | None:
    if verification.approval_signature is None:
        return None
    approver = verification.brief.approved_by if verification.brief else None
    return {
        "trusted": verification.approval_trusted,
        "signer_is_approver": verification.approval_signer_is_approver,
        "approver": approver.get_username() if approver else None,
    }
