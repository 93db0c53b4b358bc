from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AdvisorConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "advisor"
    verbose_name = _("Procurement advisor")

    def ready(self):
        # Audit-log signal receivers and the project's deploy checks (docs/decisions/0011).
        from advisor import security, signals  # noqa: F401
