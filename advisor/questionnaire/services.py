"""The questionnaire's writes and the preview of what a vendor's answers change.

Views validate, call one of these, render. The assessment itself is written through
:mod:`advisor.assessments.services` (its version checked), never directly.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from dataclasses import dataclass, field

from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone

from advisor.assessments import services as assessment_services
from advisor.assessments.answers import DECLARED_KEY, assessment_document
from advisor.catalog.cache import catalog_reads
from advisor.catalog.subjects import subjects_for
from advisor.domain.questionnaire.declared import merge, validate_declared
from advisor.domain.recommend import Option, RecommendRun
from advisor.questionnaire import xlsx
from advisor.questionnaire.export import addressee, find_option, title
from advisor.questionnaire.models import AnswerSheet, QuestionnaireRequest
from advisor.questionnaire.xlsx import read_workbook
from advisor.recommendation.questions import Change, changes, questions
from advisor.recommendation.run import run_recommendation


def answer_sheet_receive(*, assessment, user, data: bytes, name: str, option_key: str):
    """Store an uploaded workbook (read once first: raises ``UnreadableFile`` if it cannot be
    read, and nothing is stored)."""
    read_workbook(data, timezone.localdate())
    sheet = AnswerSheet(
        assessment=assessment,
        uploaded_by=user,
        option_key=option_key or "",
        original_name=(name or "answers.xlsx")[:255],
        sha256=hashlib.sha256(data).hexdigest(),
        received_on=timezone.localdate(),
    )
    sheet.file.save("answers.xlsx", ContentFile(data), save=False)
    sheet.save()
    return sheet


def answer_sheet_read(sheet: AnswerSheet):
    with sheet.file.open("rb") as handle:
        return read_workbook(handle.read(), sheet.received_on)


def answer_sheet_apply(*, assessment, sheet: AnswerSheet, result, version: int, before=None):
    """Add the sheet's answers to the assessment's declared facts (one transaction: the
    assessment, at ``version``, and the sheet, marked applied). Raises ``StaleDraft``."""
    section = merge(assessment.answers.get(DECLARED_KEY), result.declared)
    validate_declared(section)
    with transaction.atomic():
        assessment_services.save_declared(assessment, section, version)
        sheet.declared = section
        sheet.applied_at = timezone.now()
        sheet.save(update_fields=["declared", "applied_at"])
        if before is not None and sheet.option_key:
            _answered(assessment=assessment, option=find_option(before, sheet.option_key))
    return sheet


@dataclass(frozen=True)
class Effect:
    """What the answers would change for one option (nothing is stored)."""

    option: Option | None
    changes: list[Change]
    # Who each answer is about, by subject key: the names the preview shows (not the keys).
    names: dict = field(default_factory=dict)


def subject_names(run: RecommendRun, option: Option | None) -> dict:
    """``{subject key: name}`` of the option's subjects (data center, operator or cloud
    provider, cloud offer, server, accelerator, offer)."""
    if option is None:
        return {}
    with catalog_reads():
        keys = subjects_for(option, run.declared).keys
    return {key: name for key, name in keys.values()}


def answer_sheet_effect(*, assessment, sheet: AnswerSheet, result, before: RecommendRun):
    """The sheet's option (or the first option) and the findings its answers would change."""
    document = assessment_document(assessment)
    document[DECLARED_KEY] = merge(document.get(DECLARED_KEY), result.declared)
    after = run_recommendation(document, today=before.today)
    option = find_option(before, sheet.option_key) if sheet.option_key else None
    option = option or (before.recommendation.options[0] if before.recommendation.options else None)
    if option is None:
        return Effect(None, [])
    changed = find_option(after, option.key)
    return Effect(
        option, changes(option, changed) if changed else [], subject_names(before, option)
    )


# --- Questionnaires for the shortlisted vendors, and who has answered --------------------------

MAX_VENDORS = 12


def shortlisted(run: RecommendRun) -> list[Option]:
    """One option per hosting vendor or cloud provider, the best ranked of each (no own room):
    whose questionnaire settles what blocks or qualifies that vendor's options."""
    chosen: dict[str, Option] = {}
    for option in run.recommendation.options:
        key = vendor_key(option)
        if option.is_own_room or not key or key in chosen:
            continue
        chosen[key] = option
    return list(chosen.values())[:MAX_VENDORS]


def vendor_key(option: Option) -> str:
    return option.site.vendor.key or option.site.vendor.name


def questionnaires_sent(*, assessment, options: list[Option], counts: dict[str, int]) -> None:
    """Record that the questionnaires of ``options`` went out now (one row per vendor)."""
    now = timezone.now()
    for option in options:
        QuestionnaireRequest.objects.update_or_create(
            assessment=assessment,
            vendor_key=vendor_key(option)[:100],
            defaults={
                "vendor_name": (addressee(option) or vendor_key(option))[:200],
                "option_key": option.key[:300],
                "questions": counts.get(option.key, 0),
                "sent_at": now,
            },
        )


def _answered(*, assessment, option: Option | None) -> None:
    if option is None:
        return
    QuestionnaireRequest.objects.filter(
        assessment=assessment, vendor_key=vendor_key(option)[:100]
    ).update(answered_at=timezone.now())


def bundle(run: RecommendRun, options: list[Option]) -> tuple[bytes, dict[str, int]]:
    """A ZIP of one questionnaire workbook per vendor, and the questions asked per option."""
    buffer = io.BytesIO()
    counts = {}
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for option in options:
            asked = questions(run, option)
            counts[option.key] = len(asked)
            name = f"questionnaire-{vendor_key(option)}.xlsx"
            archive.writestr(name, xlsx.write_workbook(asked, title(option)))
    return buffer.getvalue(), counts
