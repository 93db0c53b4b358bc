from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class BriefConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "advisor.brief"
    label = "brief"
    verbose_name = _("Procurement briefs")

    def ready(self):
        from advisor.brief import checks  # noqa: F401  (registers the signing deploy checks)
