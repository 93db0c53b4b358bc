from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WebhooksConfig(AppConfig):
    name = "advisor.webhooks"
    label = "webhooks"
    verbose_name = _("Webhooks")

    def ready(self):
        from advisor.webhooks import receivers  # noqa: F401 - connects the brief events
