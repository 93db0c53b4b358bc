"""Personal API tokens: only a SHA-256 of the token is stored; the token is shown once.

A token reads ``fta_<prefix>_<secret>``: the prefix (8 characters) is stored in clear so that
its owner can tell tokens apart on the settings page and the audit log can name it; the secret
(43 characters of URL-safe base64, 256 random bits) is never stored. A request's token is found
by the SHA-256 of the whole token, so no secret is compared character by character.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class Scope(models.TextChoices):
    READ = "read", _("Read")
    WRITE = "write", _("Read and write")


class ApiToken(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        on_delete=models.CASCADE,
        related_name="api_tokens",
    )
    name = models.CharField(verbose_name=_("name"), max_length=80)
    prefix = models.CharField(verbose_name=_("prefix"), max_length=8, unique=True)
    digest = models.CharField(verbose_name=_("SHA-256 of the token"), max_length=64, unique=True)
    scope = models.CharField(
        verbose_name=pgettext_lazy("what an API token may do", "scope"),
        max_length=8,
        choices=Scope.choices,
        default=Scope.READ,
    )
    created_at = models.DateTimeField(verbose_name=_("created"), auto_now_add=True)
    expires_at = models.DateTimeField(verbose_name=_("expires"), null=True, blank=True)
    last_used_at = models.DateTimeField(verbose_name=_("last used"), null=True, blank=True)
    revoked_at = models.DateTimeField(verbose_name=_("revoked"), null=True, blank=True)

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return f"{self.name} (fta_{self.prefix}…)"

    @property
    def expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= timezone.now()

    @property
    def active(self) -> bool:
        return self.revoked_at is None and not self.expired

    @property
    def can_write(self) -> bool:
        return self.scope == Scope.WRITE
