from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class BriefConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "advisor.brief"
    label = "brief"
    verbose_name = _("Procurement briefs")
