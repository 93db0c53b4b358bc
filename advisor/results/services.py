"""Running the recommendation for an assessment's answers (cached per draft version)."""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict

from django.apps import apps
from django.core.cache import cache
from django.db import connection

from advisor.models import RuleParameter
from advisor.selectors.recommend import RecommendRun, local_today, run_recommendation
from advisor.wizard import services as wizard_services
from advisor.wizard.answers import scenario_document
from advisor.wizard.models import Assessment

CACHE_SECONDS = 24 * 3600  # the key changes with the answers, the catalog and the day


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


def _stamp_sql() -> str:
    """One query for the catalog stamp: latest ``updated_at`` and row count of every table."""
    quote = connection.ops.quote_name
    parts = []
    for model in (*apps.get_app_config("vendors").get_models(), RuleParameter):
        table = quote(model._meta.db_table)
        if any(f.name == "updated_at" for f in model._meta.get_fields()):
            column = quote(model._meta.get_field("updated_at").column)
            parts.append(f"(SELECT MAX({column}) FROM {table})")
        if model is not RuleParameter:
            parts.append(f"(SELECT COUNT(*) FROM {table})")
    return "SELECT " + ", ".join(parts)


def catalog_stamp() -> str:
    """Changes whenever a catalog row or a rule parameter is saved (latest ``updated_at``),
    added or deleted (row counts). One database round trip (it was one query per table)."""
    with connection.cursor() as cursor:
        cursor.execute(_stamp_sql())
        row = cursor.fetchone()
    return ":".join("" if value is None else str(value) for value in row)


# Recommendations already computed in this process, by their full cache key (the document's
# digest, the day, the catalog stamp): a key never names two different results, so a hit needs
# no check. Saves unpickling the run from the shared cache on every page view.
_LOCAL_RUNS: OrderedDict[str, RecommendRun] = OrderedDict()
_LOCAL_MAX = 32
_LOCAL_LOCK = threading.Lock()


def _local_get(key: str) -> RecommendRun | None:
    with _LOCAL_LOCK:
        run = _LOCAL_RUNS.get(key)
        if run is not None:
            _LOCAL_RUNS.move_to_end(key)
        return run


def _local_put(key: str, run: RecommendRun) -> None:
    with _LOCAL_LOCK:
        _LOCAL_RUNS[key] = run
        _LOCAL_RUNS.move_to_end(key)
        while len(_LOCAL_RUNS) > _LOCAL_MAX:
            _LOCAL_RUNS.popitem(last=False)


def assessment_results(assessment: Assessment) -> RecommendRun | None:
    """The ranked options for the assessment's current answers; None while incomplete.

    Results depend on the answers (the document, own figures included), the catalog (rows
    saved, added or deleted) and the day; the key holds all three. The recommendation is computed once per
    key: kept in this process, and in the shared cache for the other processes for a day
    (results, option, comparison and own figures all read it).
    """
    try:
        document = assessment_document(assessment)
    except Incomplete:
        return None
    today = local_today()
    stamp = hashlib.sha256(catalog_stamp().encode()).hexdigest()[:16]
    inputs = json.dumps(document, sort_keys=True, default=str, ensure_ascii=False)
    digest = hashlib.sha256(inputs.encode()).hexdigest()[:32]
    key = f"results:{digest}:{today.isoformat()}:{stamp}"
    run = _local_get(key)
    if run is not None:
        return run
    run = cache.get(key)
    if run is None:
        run = run_recommendation(document, today=today)
        cache.set(key, run, CACHE_SECONDS)
    _local_put(key, run)
    return run
