"""Security: HTTPS, headers, the Content Security Policy, sessions and sign-in throttling."""

import json
import os
from datetime import timedelta

from django.utils.csp import CSP

from config.settings.environment import PRODUCTION, env_flag

# --- Security (docs/decisions/0011) ---------------------------------------------------------
# Production mode (DJANGO_DEBUG unset or 0) passes `manage.py check --deploy --fail-level
# WARNING`: HTTPS only (redirect, HSTS, Secure cookies), a nonce-based Content Security Policy,
# no framing, a same-origin referrer. Development (DJANGO_DEBUG=1) keeps plain HTTP.
#
# DJANGO_SECURE_SSL_REDIRECT      "0" when the proxy in front already redirects HTTP to HTTPS
#                                 (default on in production)
# DJANGO_SECURE_PROXY_SSL_HEADER  "X-Forwarded-Proto: https" behind a TLS-terminating proxy that
#                                 sets that header (and strips it from clients' requests)
# DJANGO_CSRF_TRUSTED_ORIGINS     comma-separated origins, e.g. "https://advisor.example.cn"
# DJANGO_HSTS_SECONDS             HSTS max-age (default one year in production, 0 = no HSTS)
# DJANGO_HSTS_PRELOAD             "0" leaves out the preload directive (then silence security.W021)
# DJANGO_PROXY_COUNT              proxies in front: the sign-in lockout then reads the client's
#                                 address from X-Forwarded-For (default 0: REMOTE_ADDR)
# DJANGO_SESSION_HOURS            how long a sign-in lasts (default 8)
# DJANGO_SESSION_EXPIRE_AT_BROWSER_CLOSE  "0" keeps the sign-in across browser restarts
# AXES_FAILURE_LIMIT, AXES_COOLOFF_MINUTES  failed sign-ins (per user name and address) before a
#                                 lockout, and its length (default 5 and 30)


def proxy_ssl_header(value: str) -> tuple[str, str] | None:
    """``"X-Forwarded-Proto: https"`` -> ``("HTTP_X_FORWARDED_PROTO", "https")``."""
    name, _sep, expected = value.partition(":")
    if not name.strip() or not expected.strip():
        return None
    return "HTTP_" + name.strip().upper().replace("-", "_"), expected.strip()


SECURE_SSL_REDIRECT = env_flag("DJANGO_SECURE_SSL_REDIRECT", default=PRODUCTION)
# Load balancers probe /health/ over plain HTTP: it answers there instead of redirecting.
SECURE_REDIRECT_EXEMPT = [r"^health/$"]
SECURE_PROXY_SSL_HEADER = proxy_ssl_header(os.environ.get("DJANGO_SECURE_PROXY_SSL_HEADER", ""))
CSRF_TRUSTED_ORIGINS = [
    o.strip() for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()
]
SECURE_HSTS_SECONDS = int(
    os.environ.get("DJANGO_HSTS_SECONDS", str(365 * 24 * 3600) if PRODUCTION else "0")
)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = env_flag("DJANGO_HSTS_PRELOAD", default=True)
SESSION_COOKIE_SECURE = PRODUCTION
CSRF_COOKIE_SECURE = PRODUCTION
CSRF_COOKIE_HTTPONLY = True  # htmx sends the token from the page (hx-headers), not the cookie
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# No page uses a device or browser feature: every response says so (advisor.security).
PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "autoplay",
        "browsing-topics",
        "camera",
        "display-capture",
        "encrypted-media",
        "fullscreen",
        "geolocation",
        "gyroscope",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "picture-in-picture",
        "publickey-credentials-get",
        "screen-wake-lock",
        "serial",
        "usb",
        "xr-spatial-tracking",
    )  # fmt: skip
)

# Content Security Policy: scripts and styles only from this origin or carrying the response's
# nonce ({{ csp_nonce }}); no inline handlers, style attributes or eval. Charts are inline SVG
# drawn with attributes, not styles. Enforced in production (and so in the tests); report-only
# in development, where violations still show in the browser console but Django's debug pages
# (inline styles and scripts) keep working.
CONTENT_SECURITY_POLICY = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.NONCE],
    "img-src": [CSP.SELF],
    "font-src": [CSP.SELF],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}
SECURE_CSP = CONTENT_SECURITY_POLICY if PRODUCTION else {}
SECURE_CSP_REPORT_ONLY = {} if PRODUCTION else CONTENT_SECURITY_POLICY

# Sign-in: sessions end after DJANGO_SESSION_HOURS and, by default, when the browser closes.
SESSION_COOKIE_AGE = int(float(os.environ.get("DJANGO_SESSION_HOURS", "8")) * 3600)
SESSION_EXPIRE_AT_BROWSER_CLOSE = env_flag("DJANGO_SESSION_EXPIRE_AT_BROWSER_CLOSE", default=True)

# Lockout after repeated failed sign-ins (django-axes), on the sign-in page and Django admin
# alike (both go through authenticate()). Attempts live in the database, shared by every app
# server; an admin unlocks by deleting the attempt in admin ("Access attempts") or with
# `manage.py axes_reset_username NAME`. Sign-ins themselves are in the audit log.
#
# Password spraying (many names, one guess each, from one address) never reaches the per-name
# limit: an address with ADVISOR_SIGN_IN_ADDRESS_LIMIT failed sign-ins (any names) within
# ADVISOR_SIGN_IN_ADDRESS_MINUTES gets the 429 page for every sign-in until the window has
# passed (advisor.security.SignInAddressBackend; 0 turns it off). Far above what one office
# behind one address mistypes; a colleague's success resets only their own name's count.
AUTHENTICATION_BACKENDS = [
    "advisor.security.SignInAddressBackend",
    "axes.backends.AxesStandaloneBackend",
    # Permissions in one query (advisor.roles); ModelBackend checks passwords.
    "advisor.roles.PermissionsBackend",
    "django.contrib.auth.backends.ModelBackend",
    # The company sign-in (below): django-allauth signs in the person its provider vouched for.
    "allauth.account.auth_backends.AuthenticationBackend",
]
SIGN_IN_ADDRESS_LIMIT = int(os.environ.get("ADVISOR_SIGN_IN_ADDRESS_LIMIT", "10"))
SIGN_IN_ADDRESS_MINUTES = int(os.environ.get("ADVISOR_SIGN_IN_ADDRESS_MINUTES", "15"))
AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("AXES_COOLOFF_MINUTES", "30")))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_DISABLE_ACCESS_LOG = True  # successful sign-ins go to the audit log (advisor.signals)
AXES_LOCKOUT_CALLABLE = "advisor.security.lockout_response"  # translated page, 429
AXES_USERNAME_CALLABLE = "advisor.security.attempt_username"  # at most the column's 255
PROXY_COUNT = int(os.environ.get("DJANGO_PROXY_COUNT", "0"))
if PROXY_COUNT:
    AXES_IPWARE_PROXY_COUNT = PROXY_COUNT
    AXES_IPWARE_META_PRECEDENCE_ORDER = ("HTTP_X_FORWARDED_FOR", "REMOTE_ADDR")

# Requests per personal API token (django-ratelimit, counted in the shared cache like the verify
# page's uploads): ADVISOR_API_RATE_LIMIT, e.g. "120/m"; empty turns the limit off.
API_RATE_LIMIT = os.environ.get("ADVISOR_API_RATE_LIMIT", "120/m")

# --- Company sign-in: OpenID Connect through django-allauth (docs/company-sign-in.md) -------
# Configured from the environment, no code per company; local accounts keep working.
# ADVISOR_OIDC_SERVER_URL   the provider's issuer URL (its /.well-known/openid-configuration is
#                           read); unset: no company sign-in
# ADVISOR_OIDC_CLIENT_ID, ADVISOR_OIDC_SECRET (or ADVISOR_OIDC_SECRET_FILE)  this site's client
# ADVISOR_OIDC_NAME         the button's name ("Company account")
# ADVISOR_OIDC_GROUPS_CLAIM the claim listing a person's groups (default "groups")
# ADVISOR_OIDC_SCOPES       the scopes asked for, e.g. "openid profile email groups" (default
#                           "openid profile email"; "openid" is always asked)
# ADVISOR_OIDC_ROLES        JSON: provider group -> role, e.g. {"ft-buyers": "procurement staff",
#                           "ft-approvers": "approver", "ft-catalog": "catalog admin"}


def _secret(prefix: str, name: str = "SECRET") -> str:
    """``PREFIX_NAME``, or what the file ``PREFIX_NAME_FILE`` names holds (stripped)."""
    path = os.environ.get(f"{prefix}_{name}_FILE")
    if path:
        with open(path, encoding="utf-8") as handle:
            return handle.read().strip()
    return os.environ.get(f"{prefix}_{name}", "")


# The scopes asked for when ADVISOR_OIDC_SCOPES is not set; "openid" is always asked.
OIDC_SCOPES = ("openid", "profile", "email")


def oidc_scopes(value: str) -> list[str]:
    """ADVISOR_OIDC_SCOPES (space- or comma-separated) as a list that starts with "openid"."""
    named = [s for s in value.replace(",", " ").split() if s] or list(OIDC_SCOPES)
    return ["openid", *dict.fromkeys(s for s in named if s != "openid")]


def oidc_providers(
    server_url: str, client_id: str, secret: str, name: str, scopes: str = ""
) -> dict:
    if not server_url:
        return {}
    app = {
        "provider_id": "company",
        "name": name,
        "client_id": client_id,
        "secret": secret,
        "settings": {
            "server_url": server_url,
            "oauth_pkce_enabled": True,
            "scope": oidc_scopes(scopes),
        },
    }
    return {"openid_connect": {"APPS": [app]}}


def app_providers(provider: str, client_id: str, secret: str) -> dict:
    """DingTalk or Feishu (allauth's own providers): on only when the client id is given."""
    if not client_id:
        return {}
    return {provider: {"APPS": [{"client_id": client_id, "secret": secret}]}}


# --- Company sign-in: SAML 2.0 (docs/company-sign-in.md, decision 0054) ---------------------
# ADVISOR_SAML_IDP_ENTITY_ID  the identity provider's entity ID; unset: no SAML sign-in
# ADVISOR_SAML_IDP_SSO_URL    its single sign-on service (HTTP-Redirect binding)
# ADVISOR_SAML_IDP_X509CERT (or ADVISOR_SAML_IDP_X509CERT_FILE)  its signing certificate (PEM)
# ADVISOR_SAML_NAME           the button's name ("Company account (SAML)")
# ADVISOR_SAML_SP_ENTITY_ID   this site's entity ID (default: its metadata URL)
# ADVISOR_SAML_GROUPS_ATTRIBUTE  the attribute listing a person's groups (default "groups")
# ADVISOR_SAML_ROLES          JSON: group -> role, as ADVISOR_OIDC_ROLES (default: that mapping)
# ADVISOR_SAML_ATTRIBUTES     JSON: uid / username / email / first_name / last_name -> attribute
#                             names, replacing the defaults below for the fields it names

SAML_ATTRIBUTES = {
    "uid": ["urn:oasis:names:tc:SAML:attribute:subject-id"],
    "username": ["username", "uid", "urn:oid:0.9.2342.19200300.100.1.1"],
    "email": [
        "email",
        "mail",
        "urn:oid:0.9.2342.19200300.100.1.3",
        "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress",
    ],
    "first_name": [
        "givenName",
        "urn:oid:2.5.4.42",
        "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname",
    ],
    "last_name": [
        "sn",
        "surname",
        "urn:oid:2.5.4.4",
        "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname",
    ],
}


def saml_providers(
    entity_id: str,
    sso_url: str,
    certificate: str,
    name: str,
    sp_entity_id: str = "",
    attributes: dict | None = None,
) -> dict:
    """One SAML identity provider (allauth's SAML provider, organisation slug ``company``):
    signed assertions required, sign-ins the identity provider starts on its own refused."""
    if not entity_id:
        return {}
    app = {
        "provider_id": "saml",
        "client_id": "company",
        "name": name,
        "settings": {
            "idp": {"entity_id": entity_id, "sso_url": sso_url, "x509cert": certificate},
            "sp": {"entity_id": sp_entity_id} if sp_entity_id else {},
            "attribute_mapping": {**SAML_ATTRIBUTES, **(attributes or {})},
            "advanced": {
                "strict": True,
                "want_assertion_signed": True,
                "reject_idp_initiated_sso": True,
                "reject_deprecated_algorithm": True,
                # this site's own URLs may be on an intranet name ("http://advisor/")
                "allow_single_label_domains": True,
            },
        },
    }
    return {"saml": {"APPS": [app]}}


_OIDC_ROLES = os.environ.get("ADVISOR_OIDC_ROLES", "{}") or "{}"
COMPANY_SIGN_IN = {
    "NAME": os.environ.get("ADVISOR_OIDC_NAME", "Company account"),
    "GROUPS_CLAIM": os.environ.get("ADVISOR_OIDC_GROUPS_CLAIM", "groups"),
    "ROLES": json.loads(_OIDC_ROLES),
    "SAML_GROUPS_ATTRIBUTE": os.environ.get("ADVISOR_SAML_GROUPS_ATTRIBUTE", "groups"),
    "SAML_ROLES": json.loads(os.environ.get("ADVISOR_SAML_ROLES", "") or _OIDC_ROLES),
    # department id -> role; unset: an administrator gives these people's roles
    "DINGTALK_ROLES": json.loads(os.environ.get("ADVISOR_DINGTALK_ROLES", "") or "{}"),
    "FEISHU_ROLES": json.loads(os.environ.get("ADVISOR_FEISHU_ROLES", "") or "{}"),
    # origins the sign-in pages' forms may lead to besides the providers' own (decision 0128)
    "FORM_ORIGINS": [
        o.strip()
        for o in os.environ.get("ADVISOR_SIGN_IN_FORM_ORIGINS", "").split(",")
        if o.strip()
    ],
}
# DingTalk and Feishu (each on when its id is given; docs/company-sign-in.md):
# ADVISOR_DINGTALK_CLIENT_ID, ADVISOR_DINGTALK_CLIENT_SECRET (or ..._CLIENT_SECRET_FILE)
# ADVISOR_FEISHU_APP_ID, ADVISOR_FEISHU_APP_SECRET (or ..._APP_SECRET_FILE)
# ADVISOR_DINGTALK_ROLES, ADVISOR_FEISHU_ROLES  JSON: department id -> role, read from the
#   company directory at every sign-in; unset: an administrator gives these people's roles
SOCIALACCOUNT_PROVIDERS = {
    **oidc_providers(
        os.environ.get("ADVISOR_OIDC_SERVER_URL", ""),
        os.environ.get("ADVISOR_OIDC_CLIENT_ID", ""),
        _secret("ADVISOR_OIDC"),
        COMPANY_SIGN_IN["NAME"],
        os.environ.get("ADVISOR_OIDC_SCOPES", ""),
    ),
    **saml_providers(
        os.environ.get("ADVISOR_SAML_IDP_ENTITY_ID", ""),
        os.environ.get("ADVISOR_SAML_IDP_SSO_URL", ""),
        _secret("ADVISOR_SAML_IDP", "X509CERT"),
        os.environ.get("ADVISOR_SAML_NAME", "Company account (SAML)"),
        os.environ.get("ADVISOR_SAML_SP_ENTITY_ID", ""),
        json.loads(os.environ.get("ADVISOR_SAML_ATTRIBUTES", "") or "{}"),
    ),
    **app_providers(
        "dingtalk",
        os.environ.get("ADVISOR_DINGTALK_CLIENT_ID", ""),
        _secret("ADVISOR_DINGTALK", "CLIENT_SECRET"),
    ),
    **app_providers(
        "feishu",
        os.environ.get("ADVISOR_FEISHU_APP_ID", ""),
        _secret("ADVISOR_FEISHU", "APP_SECRET"),
    ),
}
SOCIALACCOUNT_ADAPTER = "advisor.sso.adapters.CompanySignInAdapter"
ACCOUNT_ADAPTER = "advisor.sso.adapters.AccountAdapter"
SOCIALACCOUNT_AUTO_SIGNUP = True
SOCIALACCOUNT_EMAIL_REQUIRED = False
SOCIALACCOUNT_EMAIL_VERIFICATION = "none"
SOCIALACCOUNT_LOGIN_ON_GET = False  # the sign-in page posts (CSRF), never a plain link
SOCIALACCOUNT_STORE_TOKENS = False
ACCOUNT_EMAIL_VERIFICATION = "none"
