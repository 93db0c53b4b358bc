"""The questionnaire's writes and the preview of what a vendor's answers change.

Views validate, call one of these, render. The assessment itself is written through
:mod:`advisor.assessments.services` (its version checked), never directly.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone

from advisor.assessments import services as assessment_services
from advisor.assessments.answers import DECLARED_KEY, assessment_document
from advisor.domain.questionnaire.declared import merge, validate_declared
from advisor.domain.recommend import Option, RecommendRun
from advisor.questionnaire.export import find_option
from advisor.questionnaire.models import AnswerSheet
from advisor.questionnaire.xlsx import read_workbook
from advisor.recommendation.questions import Change, changes
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


def answer_sheet_apply(*, assessment, sheet: AnswerSheet, result, version: int):
    """Add the sheet's answers to the assessment's declared facts (one transaction: the
    assessment, at ``version``, and the sheet, marked applied). Raises ``StaleDraft``."""
    section = merge(assessment.answers.get(DECLARED_KEY), result.declared)
    validate_declared(section)
    with transaction.atomic():
        assessment_services.save_declared(assessment, section, version)
        sheet.declared = section
        sheet.applied_at = timezone.now()
        sheet.save(update_fields=["declared", "applied_at"])
    return sheet


@dataclass(frozen=True)
class Effect:
    """What the answers would change for one option (nothing is stored)."""

    option: Option | None
    changes: list[Change]


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
    return Effect(option, changes(option, changed) if changed else [])
