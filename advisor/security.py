"""Security pieces the settings name: a request-size limit and this project's deploy checks
(the brief signer's is the brief app's: advisor/brief/checks.py).

See docs/decisions/0011-security.md. The settings (config/settings/security.py) do the
rest: HTTPS only, HSTS, the Content Security Policy, sessions, the sign-in lockout.
"""

from __future__ import annotations

from datetime import timedelta

from axes.helpers import get_client_ip_address
from axes.models import AccessAttempt
from django.conf import settings
from django.core import checks
from django.core.exceptions import PermissionDenied
from django.db.models import Sum
from django.http import HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.cache import patch_cache_control


class RequestSizeLimitMiddleware:
    """Refuse a request body over ``ADVISOR_MAX_REQUEST_BYTES`` with 413, before parsing.

    Django caps form fields (DATA_UPLOAD_MAX_MEMORY_SIZE) but streams files of any size to a
    temporary file; the largest legitimate upload is a 20 MB brief PDF, so anything much
    larger is refused from its Content-Length without reading it.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        limit = settings.ADVISOR_MAX_REQUEST_BYTES
        if length > limit:
            # Before LocaleMiddleware: the language comes from the request here.
            with translation.override(translation.get_language_from_request(request)):
                html = render_to_string("413.html", {"limit_mb": limit // (1024 * 1024)})
            response = HttpResponse(html, status=413)
            response["Connection"] = "close"
            return response
        return self.get_response(request)


# django-axes keeps the name tried in a 255-character column; PostgreSQL refuses a longer value
# (a 500 at sign-in), so the lockout counts a longer name by its first 255 characters.
ATTEMPT_USERNAME_MAX = 255


def attempt_username(request, credentials=None) -> str | None:
    """The name a sign-in tried, as the lockout records it (``AXES_USERNAME_CALLABLE``)."""
    source = credentials or getattr(request, "data", None) or request.POST
    value = source.get(settings.AXES_USERNAME_FORM_FIELD)
    return None if value is None else str(value)[:ATTEMPT_USERNAME_MAX]


def lockout_response(request, original_response=None, credentials=None):
    """django-axes' lockout page (AXES_LOCKOUT_CALLABLE): translated, 429 Too Many Requests,
    for a name locked at an address and for an address that failed too often (any names)."""
    if getattr(request, "sign_in_address_limited", False):
        minutes = settings.SIGN_IN_ADDRESS_MINUTES
        context = {
            "address_limited": True,
            "failure_limit": settings.SIGN_IN_ADDRESS_LIMIT,
            "cooloff_minutes": minutes,
        }
        retry_after = minutes * 60
    else:
        cooloff = settings.AXES_COOLOFF_TIME
        context = {
            "failure_limit": settings.AXES_FAILURE_LIMIT,
            "cooloff_minutes": int(cooloff.total_seconds() // 60) if cooloff else None,
        }
        retry_after = int(cooloff.total_seconds()) if cooloff else None
    response = render(request, "registration/locked_out.html", context, status=429)
    if retry_after:
        response["Retry-After"] = str(retry_after)
    return response


def address_failures(address: str) -> int:
    """Failed sign-ins from ``address``, under any names, within the last
    ``SIGN_IN_ADDRESS_MINUTES`` (django-axes' attempt records: one row per name and address,
    its failures counted since the name's last success there)."""
    since = timezone.now() - timedelta(minutes=settings.SIGN_IN_ADDRESS_MINUTES)
    total = AccessAttempt.objects.filter(ip_address=address, attempt_time__gte=since).aggregate(
        failures=Sum("failures_since_start")
    )["failures"]
    return total or 0


class SignInAddressBackend:
    """Refuses every sign-in from an address that failed ``SIGN_IN_ADDRESS_LIMIT`` times or
    more within ``SIGN_IN_ADDRESS_MINUTES``, whatever the names (password spraying: many names,
    one guess each, from one address, which the per-name lockout never sees).

    First in ``AUTHENTICATION_BACKENDS``, before django-axes' backend; it authenticates no one
    and loads no one (no ``get_user``: a session never names it).
    A refusal is a failed sign-in (Django sends ``user_login_failed``, so it is audited and
    counted) and, through django-axes' middleware, the translated 429 lockout page.
    """

    def authenticate(self, request, username=None, password=None, **kwargs):
        limit = settings.SIGN_IN_ADDRESS_LIMIT
        if request is None or not limit:
            return None
        if address_failures(client_ip(None, request)) >= limit:
            request.sign_in_address_limited = True
            request.axes_locked_out = True  # AxesMiddleware answers with lockout_response
            raise PermissionDenied("too many failed sign-ins from this address")
        return None


@checks.register(checks.Tags.security, deploy=True)
def check_production_configuration(app_configs=None, **kwargs):
    """Production needs its own secret key and an HTTPS address for the briefs' links."""
    messages = []
    key_file = settings.VAR_DIR / "secret_key"
    if key_file.exists() and key_file.read_text().strip() == settings.SECRET_KEY:
        messages.append(
            checks.Warning(
                "SECRET_KEY is the development key from var/secret_key.",
                hint="Set DJANGO_SECRET_KEY (a long random string, the same on every app server).",
                id="advisor.W001",
            )
        )
    if not settings.SITE_URL.startswith("https://"):
        messages.append(
            checks.Warning(
                f"ADVISOR_SITE_URL is {settings.SITE_URL!r}: briefs print it as their "
                "verification link.",
                hint="Set ADVISOR_SITE_URL to the public https:// address of this deployment.",
                id="advisor.W002",
            )
        )
    return messages


def client_ip(group, request) -> str:
    """The client's address for per-client limits: the same as the sign-in lockout reads
    (``REMOTE_ADDR``, or ``X-Forwarded-For`` behind ``DJANGO_PROXY_COUNT`` proxies)."""
    return get_client_ip_address(request) or request.META.get("REMOTE_ADDR", "") or "unknown"


class PermissionsPolicyMiddleware:
    """``Permissions-Policy`` on every response (``settings.PERMISSIONS_POLICY``): the advisor
    uses no camera, microphone, location, payment or other device feature, so no page, and
    nothing injected into one, may ask the browser for them."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if settings.PERMISSIONS_POLICY:
            response.headers.setdefault("Permissions-Policy", settings.PERMISSIONS_POLICY)
        return response


class PrivatePagesMiddleware:
    """``Cache-Control: private, no-store`` on every response to a signed-in user.

    Their pages and brief PDFs hold their own data: no browser back-forward cache on a shared
    computer and no proxy may keep a copy.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            response.headers.pop("Cache-Control", None)
            patch_cache_control(response, private=True, no_store=True)
        return response
