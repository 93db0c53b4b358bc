"""The Content Security Policy lets the company sign-in leave for the provider (decision 0128).

``form-action 'self'`` also governs the redirects that follow a form's submission, so the
sign-in buttons (forms that POST here, then redirect to the provider) were stopped by the
browser wherever the policy is enforced. On the pages that carry those forms, form-action also
allows the configured providers' sign-in hosts, and no others; every other page keeps 'self'."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.urls import reverse

# Hosts the providers' own sign-in passes through after our redirect (their published OAuth
# pages; a host they add is configured with ADVISOR_SIGN_IN_FORM_ORIGINS).
FIXED_ORIGINS = {
    "dingtalk": ("https://login.dingtalk.com",),
    "feishu": (
        "https://open.feishu.cn",
        "https://accounts.feishu.cn",
        "https://passport.feishu.cn",
    ),
}
COMPANY_PAGES = "/accounts/company/"


def origin(url: str) -> str | None:
    parts = urlsplit(url or "")
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else None


def sign_in_origins(providers: dict, extra: list[str] | tuple[str, ...] = ()) -> list[str]:
    """The origins the configured providers' sign-in starts at: an OpenID Connect issuer's, a
    SAML identity provider's single sign-on URL's, DingTalk's and Feishu's, and ``extra``."""
    found = []
    for provider, config in providers.items():
        for app in config.get("APPS", ()):
            app_settings = app.get("settings") or {}
            if provider == "openid_connect":
                found.append(origin(app_settings.get("server_url")))
            elif provider == "saml":
                found.append(origin((app_settings.get("idp") or {}).get("sso_url")))
        found.extend(FIXED_ORIGINS.get(provider, ()))
    found.extend(extra)
    return list(dict.fromkeys(o for o in found if o))


class CompanySignInFormAction:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if request.path != reverse("login") and not request.path.startswith(COMPANY_PAGES):
            return response
        origins = sign_in_origins(
            settings.SOCIALACCOUNT_PROVIDERS, settings.COMPANY_SIGN_IN.get("FORM_ORIGINS", ())
        )
        if not origins:
            return response
        for attribute, name in (
            ("_csp_config", "SECURE_CSP"),
            ("_csp_ro_config", "SECURE_CSP_REPORT_ONLY"),
        ):
            policy = getattr(settings, name)
            if policy and not hasattr(response, attribute):
                allowed = [*policy.get("form-action", ()), *origins]
                setattr(response, attribute, {**policy, "form-action": allowed})
        return response
