"""Assessments: one row per assessment, the buyer's answers kept as one JSON object per step.

The table keeps the name it was created with in the wizard app (``wizard_assessment``).
"""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

TITLE_MAX_LENGTH = 120


class Assessment(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        COMPLETE = "complete", _("Answers confirmed")

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("owner"),
        on_delete=models.CASCADE,
        related_name="assessments",
    )
    # Empty until the user names it: the default name is rendered in the reader's language
    # (``display_title``), never frozen in the language of the moment it was created.
    title = models.CharField(
        verbose_name=_("title"),
        max_length=TITLE_MAX_LENGTH,
        blank=True,
    )
    status = models.CharField(
        verbose_name=_("status"),
        max_length=16,
        choices=Status.choices,
        default=Status.DRAFT,
    )
    # Bumped by every write; a form carries the version it was rendered from, so a write made
    # from a stale page (another tab saved in between) is refused instead of overwriting.
    version = models.PositiveIntegerField(
        verbose_name=_("version"),
        default=1,
    )
    # {step slug: {field: JSON value}}: what the user entered on each step, already validated.
    answers = models.JSONField(
        verbose_name=_("answers"),
        default=dict,
        blank=True,
    )
    created_at = models.DateTimeField(
        verbose_name=_("created"),
        auto_now_add=True,
    )
    updated_at = models.DateTimeField(
        verbose_name=_("last changed"),
        auto_now=True,
    )

    class Meta:
        db_table = "wizard_assessment"
        verbose_name = _("assessment")
        verbose_name_plural = _("assessments")
        ordering = ["-updated_at", "-pk"]
        indexes = [
            models.Index(fields=["owner", "-updated_at"], name="wizard_assessment_owner_recent"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(version__gte=1),
                name="wizard_assessment_version_positive",
            ),
        ]

    def __str__(self):
        return self.display_title

    @property
    def display_title(self) -> str:
        """The user's name for it, or "Assessment of <created>" in the active language."""
        if self.title:
            return self.title
        created = timezone.localtime(self.created_at) if self.created_at else timezone.localtime()
        return gettext("Assessment of %(date)s") % {"date": created.strftime("%Y-%m-%d %H:%M")}

    def step_answers(self, slug: str) -> dict:
        value = self.answers.get(slug) if isinstance(self.answers, dict) else None
        return value if isinstance(value, dict) else {}
