"""Deploy checks of the brief signatures' level (docs/decisions/0117-long-term-signatures.md).

Registered from the app's ``ready()`` under the ``signing`` tag, beside the signer checks of
:mod:`advisor.security`; ``manage.py check --deploy`` reports them in production only.
"""

from __future__ import annotations

from django.conf import settings
from django.core import checks

SIGNING_TAG = "signing"


@checks.register(SIGNING_TAG, deploy=True)
def check_timestamp_authority(app_configs=None, **kwargs):
    """Warnings: no timestamp authority (brief.W001: briefs are signed PAdES B-B, which cannot
    be checked once the certificates expire); a timestamp authority without any source of
    revocation information (brief.W002: B-LT falls back to B-T)."""
    if not settings.PRODUCTION:
        return []
    signing = settings.BRIEF_SIGNING
    if not signing.get("TIMESTAMP_URL"):
        return [
            checks.Warning(
                "No timestamp authority is configured: briefs are signed PAdES B-B, without a "
                "trusted time or validation data, and their signatures cannot be checked once "
                "the signers' certificates expire.",
                hint="Set BRIEF_TIMESTAMP_URL to an RFC 3161 timestamp authority; with the "
                "CAs' revocation information (BRIEF_REVOCATION_FILES or BRIEF_REVOCATION_FETCH) "
                "briefs are signed PAdES B-LT.",
                id="brief.W001",
            )
        ]
    if not signing.get("REVOCATION_FILES") and not signing.get("REVOCATION_FETCH"):
        return [
            checks.Warning(
                "A timestamp authority is configured but no revocation information can be had "
                "(no CRL files, fetching off): briefs are signed PAdES B-T, not B-LT.",
                hint="Set BRIEF_REVOCATION_FILES to the CAs' CRL files, or "
                "BRIEF_REVOCATION_FETCH=1.",
                id="brief.W002",
            )
        ]
    return []
