"""Running the recommendation for an assessment's answers (cached per draft version)."""

from __future__ import annotations

import hashlib

from django.apps import apps
from django.core.cache import cache
from django.db.models import Max

from advisor.models import RuleParameter
from advisor.selectors.recommend import RecommendRun, local_today, run_recommendation
from advisor.wizard import services as wizard_services
from advisor.wizard.answers import scenario_document
from advisor.wizard.models import Assessment

CACHE_SECONDS = 300


class Incomplete(Exception):
    """The assessment's answers do not yet describe a job."""


FIGURES_KEY = "figures"
DECLARED_KEY = "declared"


def assessment_document(assessment: Assessment) -> dict:
    """The wizard's document plus the buyer's own figures (results page) in ``procurement``."""
    document = scenario_document(assessment.answers)
    if document is None:
        raise Incomplete(assessment.pk)
    figures = assessment.answers.get(FIGURES_KEY) or {}
    if figures:
        document["procurement"] = {**(document.get("procurement") or {}), **figures}
    declared = assessment.answers.get(DECLARED_KEY)
    if declared:
        document[DECLARED_KEY] = declared  # the vendor's answers, applied (questionnaire)
    return document


def save_figures(assessment: Assessment, figures: dict, version: int) -> Assessment:
    """Store the buyer's own figures; raises StaleDraft if another tab saved in between.

    Figures refine prices and site data, not the job: a confirmed assessment stays confirmed.
    """
    answers = {**(assessment.answers or {}), FIGURES_KEY: figures}
    return wizard_services._write(assessment, version, answers=answers)


def catalog_stamp() -> str:
    """Changes whenever a catalog row or a rule parameter is saved (latest ``updated_at``)."""
    stamps = [
        model.objects.aggregate(latest=Max("updated_at"))["latest"]
        for model in (*apps.get_app_config("vendors").get_models(), RuleParameter)
        if any(f.name == "updated_at" for f in model._meta.get_fields())
    ]
    counts = [model.objects.count() for model in apps.get_app_config("vendors").get_models()]
    return ":".join([*(s.isoformat() for s in stamps if s), *map(str, counts)])


def assessment_results(assessment: Assessment) -> RecommendRun | None:
    """The ranked options for the assessment's current answers; None while incomplete.

    Results depend on the answers (the draft version), the catalog (rows saved, added or
    deleted) and the day; the cache key holds all three.
    """
    try:
        document = assessment_document(assessment)
    except Incomplete:
        return None
    today = local_today()
    stamp = hashlib.sha256(catalog_stamp().encode()).hexdigest()[:16]
    key = f"results:{assessment.pk}:{assessment.version}:{today.isoformat()}:{stamp}"
    run = cache.get(key)
    if run is None:
        run = run_recommendation(document, today=today)
        cache.set(key, run, CACHE_SECONDS)
    return run
