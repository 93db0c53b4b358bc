"""The only code that writes assessments. Every write checks and bumps the version.

Other apps write through the public, keyword-only functions here (e.g.
:func:`assessment_answers_update`), never through the private ``_write``.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from advisor.assessments.answers import DECLARED_KEY, DOCUMENT_KEY, FIGURES_KEY
from advisor.assessments.models import TITLE_MAX_LENGTH, Assessment
from advisor.text import clean_json, clean_text


class StaleDraft(Exception):
    """The draft changed since the page was loaded (another tab or window saved it)."""

    def __init__(self, assessment: Assessment):
        self.assessment = assessment
        super().__init__(f"assessment {assessment.pk} is at version {assessment.version}")


def create_assessment(owner, title: str = "") -> Assessment:
    """A new draft; without a name it stays unnamed and shows ``display_title``."""
    return Assessment.objects.create(owner=owner, title=title.strip()[:TITLE_MAX_LENGTH])


def _write(assessment: Assessment, version: int, **changes) -> Assessment:
    """Apply ``changes`` only if the row is still at ``version``; bump it; refresh the object.

    An update bypasses the models' save (and its text cleaning), so the text is cleaned here.
    """
    if "answers" in changes:
        changes["answers"] = clean_json(changes["answers"])
    if "title" in changes:
        changes["title"] = clean_text(changes["title"])
    updated = Assessment.objects.filter(pk=assessment.pk, version=version).update(
        version=F("version") + 1, updated_at=timezone.now(), **changes
    )
    assessment.refresh_from_db()
    if not updated:
        raise StaleDraft(assessment)
    return assessment


def create_answered_assessment(*, owner, answers: dict, title: str = "") -> Assessment:
    """A new assessment of ``owner`` with ``answers`` (``{step slug: values}``) stored step by
    step, as the wizard stores them; the steps' values must already be valid."""
    assessment = create_assessment(owner, title)
    for slug, values in answers.items():
        assessment = save_step(assessment, slug, values, assessment.version)
    return assessment


def create_document_assessment(*, owner, document: dict, title: str = "") -> Assessment:
    """A confirmed assessment of ``owner`` holding a scenario document (already checked by the
    one validator): its options are computed from the document as given (the HTTP API)."""
    return Assessment.objects.create(
        owner=owner,
        title=title.strip()[:TITLE_MAX_LENGTH],
        answers={DOCUMENT_KEY: document},
        status=Assessment.Status.COMPLETE,
    )


def assessment_answers_update(*, assessment: Assessment, answers: dict, version: int) -> Assessment:
    """Replace the assessment's whole answers object (every step, own figures, vendor answers)
    if it is still at ``version``; raises :class:`StaleDraft` otherwise. The status is kept."""
    return _write(assessment, version, answers=answers)


def save_figures(assessment: Assessment, figures: dict, version: int) -> Assessment:
    """Store the buyer's own figures; raises StaleDraft if another tab saved in between.

    Figures refine prices and site data, not the job: a confirmed assessment stays confirmed.
    """
    answers = {**(assessment.answers or {}), FIGURES_KEY: figures}
    return assessment_answers_update(assessment=assessment, answers=answers, version=version)


def save_declared(assessment: Assessment, declared: dict, version: int) -> Assessment:
    """Apply a vendor's checked answers (questionnaire): they join the assessment's inputs."""
    answers = {**(assessment.answers or {}), DECLARED_KEY: declared}
    return assessment_answers_update(assessment=assessment, answers=answers, version=version)


def save_step(assessment: Assessment, slug: str, values: dict, version: int) -> Assessment:
    """Store one step's validated answers. A changed answer reopens a confirmed assessment."""
    with transaction.atomic():
        current = Assessment.objects.select_for_update().get(pk=assessment.pk)
        if current.version != version:
            assessment.refresh_from_db()
            raise StaleDraft(assessment)
        answers = dict(current.answers or {})
        answers.pop(DOCUMENT_KEY, None)  # the wizard's steps replace a document given whole
        changed = answers.get(slug) != values
        answers[slug] = values
        status = Assessment.Status.DRAFT if changed else current.status
        return _write(assessment, version, answers=answers, status=status)


def confirm_answers(assessment: Assessment, version: int) -> Assessment:
    return _write(assessment, version, status=Assessment.Status.COMPLETE)


def rename_assessment(assessment: Assessment, title: str, version: int) -> Assessment:
    return _write(assessment, version, title=title.strip()[:TITLE_MAX_LENGTH])


def duplicate_assessment(assessment: Assessment) -> Assessment:
    # An unnamed assessment's copy stays unnamed (its own date, in the reader's language).
    title = _("Copy of %(title)s") % {"title": assessment.title} if assessment.title else ""
    return Assessment.objects.create(
        owner=assessment.owner,
        title=title[:TITLE_MAX_LENGTH],
        answers=assessment.answers,
        status=Assessment.Status.DRAFT,
    )


def delete_assessment(assessment: Assessment) -> None:
    assessment.delete()
