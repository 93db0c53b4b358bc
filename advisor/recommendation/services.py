"""The recommendation for an assessment: computed once per version of its inputs, stored.

docs/decisions/0033-stored-recommendation.md: results, option detail, comparison, own figures
and briefs read the stored result; a page view never computes it again.
"""

from __future__ import annotations

import hashlib
import json
import logging
from datetime import datetime

from django.db import transaction

from advisor.assessments.answers import Incomplete, assessment_document
from advisor.assessments.models import Assessment
from advisor.catalog.cache import catalog_reads, inputs_key, memoized_for_inputs
from advisor.catalog.stamp import CatalogState, catalog_state
from advisor.domain.cache import Latest
from advisor.domain.recommend import RecommendRun
from advisor.recommendation import codec, compression
from advisor.recommendation.models import StoredRecommendation
from advisor.recommendation.records import frozen_records
from advisor.recommendation.run import local_today, run_recommendation

logger = logging.getLogger(__name__)


# --- The stored recommendation (docs/decisions/0033-stored-recommendation.md) ---------------


# Decoded results, by their stored row's token (a stored row never changes: a new computation
# is a new row), so that a process decodes each stored result once.
_LOCAL_RUNS = Latest(32)

# The session key under which the brief's issue form keeps the buyer's reason for choosing an
# option other than rank 1 when the brief could not be issued; the option page fills the form
# with it again (nothing the buyer wrote is lost). Written by the brief, read by the results.
ISSUE_REASON_KEPT = "brief_issue_reason"


def inputs_digest(assessment: Assessment) -> str:
    """SHA-256 of what the buyer entered: every step's answers, own figures, vendor answers.

    The answers, not the document made from them: building the document reads the catalog
    (presets, accelerator lists), and what the catalog contributes is the stamp's business.
    """
    inputs = json.dumps(assessment.answers, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(inputs.encode()).hexdigest()


class Shown:
    """What the results pages show: the stored recommendation and whether it is still current.

    The stored options (``run``) are decoded on first use: a page whose words are kept for the
    stored result (``advisor.results.pages``) reads only ``stored`` and ``catalog``.
    """

    def __init__(
        self,
        stored: StoredRecommendation,
        catalog: CatalogState,
        *,
        run: RecommendRun | None = None,
        assessment: Assessment | None = None,
        computed: bool = False,
    ):
        self.stored = stored  # without its payload and records
        self.catalog = catalog
        self._run = run
        self._assessment = assessment
        # Computed and stored by this request: nothing can have been kept for it yet.
        self.computed = computed

    @property
    def run(self) -> RecommendRun:
        if self._run is None:
            run = _decoded(self.stored)
            if run is None:  # unreadable after all: computed again, stored anew
                self.stored, run = _store(self._assessment, self.catalog)
                self.computed = True
            self._run = run
        return self._run

    def catalog_reads(self):
        """A block in which the catalog rows a page reads besides the stored result (who an
        option's facts are about, the rule parameters) are read once per catalog stamp: the
        stamp this page read, so what is kept is today's catalog (docs/decisions/0073)."""
        return catalog_reads(self.catalog.stamp)

    @property
    def catalog_changed(self) -> bool:
        return self.stored.catalog_stamp != self.catalog.stamp

    @property
    def catalog_changed_at(self) -> datetime | None:
        """When the catalog last changed, if after the computation (a deletion has no date)."""
        changed = self.catalog.changed_at
        return changed if changed and changed > self.stored.computed_at else None


def _latest(assessment: Assessment) -> StoredRecommendation | None:
    return (
        StoredRecommendation.objects.filter(assessment=assessment)
        .defer("payload", "records")
        .order_by("-pk")
        .first()
    )


def _store(assessment: Assessment, catalog: CatalogState):
    """Compute the recommendation, store it, delete the one it replaces (one transaction).

    Stored with it: the catalog records behind its options as they are now (a brief's appendix
    lists these, catalog_records.frozen_records). Raises Incomplete or ScenarioError.
    """
    digest = inputs_digest(assessment)
    with catalog_reads(catalog.stamp):  # the document's presets and accelerators, per stamp
        document = assessment_document(assessment)
    run = run_recommendation(document, today=local_today(), catalog_stamp=catalog.stamp)
    payload = compression.compress(codec.dumps(run))
    with catalog_reads(catalog.stamp):  # the records kept per stamp, as the candidates are
        records = _records(run.recommendation.options)
    with transaction.atomic():
        stored = StoredRecommendation.objects.create(
            assessment=assessment,
            assessment_version=assessment.version,
            inputs_digest=digest,
            catalog_stamp=catalog.stamp,
            computed_on=run.today,
            payload_format=codec.FORMAT,
            payload=payload,
            records=records,
        )
        StoredRecommendation.objects.filter(assessment=assessment, pk__lt=stored.pk).delete()
    del stored.payload, stored.records  # as read back: without them
    _LOCAL_RUNS.put(str(stored.token), run)
    return stored, run


def _records(options) -> bytes:
    """The catalog records behind ``options`` (``frozen_records``) as stored: compressed JSON.

    Kept per catalog stamp and set of options (each option's key, server, accelerator and data
    center): a buyer who changes the job, not the candidates, gets the same records, written
    once. Options are taken in key order, so the bytes do not depend on their ranking."""
    keys = sorted(
        (o.key, o.hardware.server.key, o.hardware.accelerator.key, o.site.data_center.key or "")
        for o in options
    )
    return memoized_for_inputs(
        ("stored records", inputs_key(keys)),
        lambda: _records_written(sorted(options, key=lambda o: o.key)),
    )


def _records_written(options) -> bytes:
    return compression.compress(json.dumps(frozen_records(options), ensure_ascii=False).encode())


def _decoded(stored: StoredRecommendation) -> RecommendRun | None:
    """The stored run (decoded once per process); None when older code stored it."""
    key = str(stored.token)
    run = _LOCAL_RUNS.get(key)
    if run is not None:
        return run
    if stored.payload_format != codec.FORMAT:
        return None
    payload = StoredRecommendation.objects.values_list("payload", flat=True).get(pk=stored.pk)
    try:
        run = codec.loads(compression.decompress(payload))
    except (codec.StoredFormatError, compression.Unreadable) as error:
        logger.warning("Stored recommendation %s was written by older code: %s", stored.pk, error)
        return None
    _LOCAL_RUNS.put(key, run)
    return run


def stored_records(stored: StoredRecommendation) -> dict:
    """The catalog records behind the stored result's options, as they were when computed."""
    records = StoredRecommendation.objects.values_list("records", flat=True).get(pk=stored.pk)
    return json.loads(compression.decompress(records).decode())


def shown_results(assessment: Assessment) -> Shown | None:
    """The stored recommendation for the assessment's current inputs; None while incomplete.

    Computed and stored on the first read after the inputs changed (answers confirmed, own
    figures or vendor answers saved); every later read returns it as stored, even when the
    catalog has changed since (``Shown.catalog_changed``: the pages say so and offer
    :func:`recompute`). Raises ScenarioError naming the field when the answers cannot be sized.
    """
    catalog = catalog_state()
    stored = _latest(assessment)
    if (
        stored is not None
        and stored.inputs_digest == inputs_digest(assessment)
        and stored.payload_format == codec.FORMAT
    ):  # decoded when a page reads the options (Shown.run)
        run = _LOCAL_RUNS.get(str(stored.token))
        return Shown(stored, catalog, run=run, assessment=assessment)
    try:
        stored, run = _store(assessment, catalog)
    except Incomplete:
        return None
    return Shown(stored, catalog, run=run, assessment=assessment, computed=True)


def recompute(assessment: Assessment) -> Shown | None:
    """Compute the options again with today's catalog: a new stored result replaces the old."""
    catalog = catalog_state()
    try:
        stored, run = _store(assessment, catalog)
    except Incomplete:
        return None
    return Shown(stored, catalog, run=run, assessment=assessment, computed=True)


def assessment_results(assessment: Assessment) -> RecommendRun | None:
    """The ranked options the buyer sees for the assessment (stored); None while incomplete."""
    shown = shown_results(assessment)
    return shown.run if shown is not None else None


def latest_option(assessment_id: int | None, key: str):
    """The option ``key`` as the assessment's latest stored recommendation has it (nothing is
    computed); None when there is no stored result or the option is no longer among it."""
    return latest_option_at(assessment_id, key)[0]


def latest_option_at(assessment_id: int | None, key: str):
    """``(option, computed_at)``: the option ``key`` as the latest stored recommendation has it
    (None when it is no longer among it) and when that result was computed (None when there is
    no stored result)."""
    if assessment_id is None:
        return None, None
    stored = (
        StoredRecommendation.objects.filter(assessment_id=assessment_id)
        .defer("payload", "records")
        .order_by("-pk")
        .first()
    )
    run = _decoded(stored) if stored is not None else None
    if run is None:
        return None, None
    option = next((o for o in run.recommendation.options if o.key == key), None)
    return option, stored.computed_at
