"""The recommendation computed for one version of an assessment's inputs, stored as computed.

The table keeps the name it was created with in the wizard app (``wizard_storedrecommendation``).
"""

import uuid

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from advisor.assessments.models import Assessment


class StoredRecommendation(models.Model):
    """The recommendation computed for one version of an assessment's inputs, kept as computed.

    Results, option detail, comparison, own figures and the briefs read it; a page view never
    computes it again (docs/decisions/0033-stored-recommendation.md). A new one is stored when
    the inputs change (answers, own figures, vendor answers) or when the buyer asks for the
    options to be computed again after the catalog changed; the one it replaces is deleted.
    """

    assessment = models.ForeignKey(
        Assessment,
        verbose_name=_("assessment"),
        on_delete=models.CASCADE,
        related_name="recommendations",
    )
    # The process-local cache of decoded results is keyed by this (row ids can be reused).
    token = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    assessment_version = models.PositiveIntegerField(verbose_name=_("assessment version"))
    # SHA-256 of the answers it was computed from (steps, own figures, vendor answers).
    inputs_digest = models.CharField(verbose_name=_("inputs digest"), max_length=64)
    # SHA-256 of the catalog stamp (every catalog table's latest change and row count).
    catalog_stamp = models.CharField(verbose_name=_("catalog stamp"), max_length=64)
    computed_on = models.DateField(verbose_name=_("computed for the day"))
    computed_at = models.DateTimeField(verbose_name=_("computed at"), default=timezone.now)
    # advisor.recommendation.codec: the domain's result (RecommendRun), compressed
    # (advisor.recommendation.compression: Zstandard; zlib in rows stored before decision 0081).
    payload_format = models.PositiveSmallIntegerField(verbose_name=_("payload format"))
    payload = models.BinaryField(verbose_name=_("payload"))
    # Compressed JSON (as the payload): the catalog records behind the options when computed
    # (a brief's appendix), read only when a brief is issued.
    records = models.BinaryField(verbose_name=_("catalog records"))

    class Meta:
        db_table = "wizard_storedrecommendation"
        verbose_name = _("stored recommendation")
        verbose_name_plural = _("stored recommendations")
        ordering = ["-computed_at", "-pk"]
        indexes = [
            models.Index(fields=["assessment", "-id"], name="wizard_storedrec_latest"),
        ]

    def __str__(self):
        return f"{self.assessment_id} @ {self.computed_at:%Y-%m-%d %H:%M}"
