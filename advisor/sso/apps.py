from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SsoConfig(AppConfig):
    name = "advisor.sso"
    label = "sso"
    verbose_name = _("Company sign-in")
