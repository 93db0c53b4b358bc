"""An uploaded answer sheet, kept with the assessment whether or not it was applied."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


def answer_file_path(instance, filename):
    return f"questionnaires/{instance.assessment_id}/answers.xlsx"


class AnswerSheet(models.Model):
    assessment = models.ForeignKey(
        "assessments.Assessment",
        verbose_name=_("assessment"),
        on_delete=models.CASCADE,
        related_name="answer_sheets",
    )
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("uploaded by"), on_delete=models.PROTECT
    )
    file = models.FileField(verbose_name=_("file"), upload_to=answer_file_path)
    option_key = models.CharField(verbose_name=_("option"), max_length=300, blank=True)
    original_name = models.CharField(verbose_name=_("file name"), max_length=255)
    sha256 = models.CharField(verbose_name=_("SHA-256"), max_length=64)
    uploaded_at = models.DateTimeField(verbose_name=_("uploaded at"), auto_now_add=True)
    received_on = models.DateField(verbose_name=_("received on"))
    # The declared section the file gave (JSON), and when the buyer applied it (None: not yet).
    declared = models.JSONField(verbose_name=_("declared facts"), default=dict)
    applied_at = models.DateTimeField(verbose_name=_("applied at"), null=True, blank=True)

    class Meta:
        verbose_name = _("vendor answer sheet")
        verbose_name_plural = _("vendor answer sheets")
        ordering = ["-uploaded_at"]

    def __str__(self):
        return f"{self.original_name} ({self.uploaded_at:%Y-%m-%d})"


class QuestionnaireRequest(models.Model):
    """A questionnaire sent to one vendor for one assessment: when it went out (downloaded to
    send), and when the vendor's answers came back (an answer sheet applied)."""

    assessment = models.ForeignKey(
        "assessments.Assessment",
        verbose_name=_("assessment"),
        on_delete=models.CASCADE,
        related_name="questionnaire_requests",
    )
    vendor_key = models.CharField(verbose_name=_("vendor"), max_length=100)
    vendor_name = models.CharField(verbose_name=_("vendor name"), max_length=200)
    option_key = models.CharField(verbose_name=_("option"), max_length=300)
    questions = models.PositiveIntegerField(verbose_name=_("questions"), default=0)
    sent_at = models.DateTimeField(verbose_name=_("sent at"))
    answered_at = models.DateTimeField(verbose_name=_("answered at"), null=True, blank=True)

    class Meta:
        verbose_name = _("questionnaire sent")
        verbose_name_plural = _("questionnaires sent")
        ordering = ["vendor_name"]
        constraints = [
            models.UniqueConstraint(
                fields=["assessment", "vendor_key"], name="questionnaire_request_once_per_vendor"
            )
        ]

    def __str__(self):
        return f"{self.vendor_name} ({self.sent_at:%Y-%m-%d})"
