from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WizardConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "advisor.wizard"
    label = "wizard"
    verbose_name = _("Assessments")
