from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WizardConfig(AppConfig):
    """The wizard's pages; its tables moved to ``assessments`` and ``recommendation`` (their
    migrations keep the history: docs/decisions/0041-one-way-structure.md)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "advisor.wizard"
    label = "wizard"
    verbose_name = _("Assessment wizard")
