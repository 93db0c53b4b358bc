"""Run the recommendation for a document: read the catalog, size, check, price and rank.

The input is the wizard's document: a scenario v1 object with optional ``site`` and
``procurement`` sections (docs/wizard.md). Without a ``site`` section every catalog data
center is considered; without ``procurement`` every mode, no budget and no deadline.
"""

from __future__ import annotations

from datetime import date

from django.utils import timezone

from advisor.catalog import compliance as compliance_selectors
from advisor.catalog.candidates import hardware_candidates, site_candidates
from advisor.catalog.memo import catalog_reads
from advisor.domain.document import validate_document
from advisor.domain.questionnaire.declared import SECTION as DECLARED_SECTION
from advisor.domain.questionnaire.declared import by_subject, validate_declared
from advisor.domain.recommend import RecommendRun, recommend
from advisor.domain.recommend.procurement import procurement_from


def local_today() -> date:
    return timezone.localdate()


def run_recommendation(document: dict, *, today: date | None = None) -> RecommendRun:
    """Everything the results page, the CLI and the brief show, from the wizard's document.

    Raises :class:`advisor.domain.scenario.ScenarioError` naming the field when the scenario
    or one of its sections (site, procurement) is invalid (``advisor.domain.document``).
    """
    today = today or local_today()
    scenario = validate_document(document)
    declared = validate_declared(document.get(DECLARED_SECTION))
    grouped = by_subject(declared)
    procurement = procurement_from(document.get("procurement"), today)
    with catalog_reads():  # each catalog query once for this computation
        hardware = hardware_candidates(
            grouped,
            (document.get("procurement") or {}).get("price_overrides"),
            # In the buyer's own room only buying applies (as for the site's offers).
            with_cloud=not (document.get("site") or {}).get("room"),
        )
        sites = site_candidates(document.get("site"), document.get("procurement"), grouped)
        params = compliance_selectors.rule_parameters()
    recommendation = recommend(scenario, hardware, sites, procurement, today=today, params=params)
    return RecommendRun(scenario, procurement, recommendation, today, declared)
