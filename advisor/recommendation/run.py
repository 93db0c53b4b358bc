"""Run the recommendation for a document: read the catalog, size, check, price and rank.

The input is the wizard's document: a scenario v1 object with optional ``site`` and
``procurement`` sections (docs/wizard.md). Without a ``site`` section every catalog data
center is considered; without ``procurement`` every mode, no budget and no deadline.
"""

from __future__ import annotations

from datetime import date

from django.utils import timezone

from advisor.catalog import compliance as compliance_selectors
from advisor.catalog.cache import catalog_reads, inputs_key, memoized, memoized_for_inputs
from advisor.catalog.candidates import hardware_candidates, site_candidates
from advisor.catalog.stamp import catalog_state
from advisor.domain.document import validate_document
from advisor.domain.questionnaire.declared import SECTION as DECLARED_SECTION
from advisor.domain.questionnaire.declared import by_subject, validate_declared
from advisor.domain.recommend import RecommendRun, recommend
from advisor.domain.recommend.procurement import procurement_from


def local_today() -> date:
    return timezone.localdate()


def run_recommendation(
    document: dict, *, today: date | None = None, catalog_stamp: str | None = None
) -> RecommendRun:
    """Everything the results page, the CLI and the brief show, from the wizard's document.

    ``catalog_stamp``: the catalog stamp the caller has just read (else it is read here); the
    catalog reads are kept per stamp for the next computation (docs/decisions/0050).

    Raises :class:`advisor.domain.scenario.ScenarioError` naming the field when the scenario
    or one of its sections (site, procurement) is invalid (``advisor.domain.document``).
    """
    today = today or local_today()
    scenario = validate_document(document)
    declared = validate_declared(document.get(DECLARED_SECTION))
    grouped = by_subject(declared)
    procurement = procurement_from(document.get("procurement"), today)
    price_overrides = (document.get("procurement") or {}).get("price_overrides")
    with catalog_reads(catalog_stamp or catalog_state().stamp):
        hardware = memoized_for_inputs(
            # Cloud offers are options beside the buyer's own room too, when cloud is among
            # the modes asked for (decision 0101); renting applies only at a vendor's site.
            ("hardware candidates", inputs_key(grouped, price_overrides)),
            lambda: tuple(hardware_candidates(grouped, price_overrides)),
        )
        sites = site_candidates(document.get("site"), document.get("procurement"), grouped)
        params = memoized("rule parameters", compliance_selectors.rule_parameters)
    recommendation = recommend(
        scenario, list(hardware), sites, procurement, today=today, params=params
    )
    return RecommendRun(scenario, procurement, recommendation, today, declared)
