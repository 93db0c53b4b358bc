"""Security pieces the settings name: a request-size limit and this project's deploy checks.

See docs/decisions/0011-security.md. The settings (config/settings/security.py) do the
rest: HTTPS only, HSTS, the Content Security Policy, sessions, the sign-in lockout.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

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

from advisor.brief.config import _passphrase
from advisor.brief.signing import SigningError, is_development_ca


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


# `manage.py check --deploy --tag signing` runs only these; scripts/serve-production runs it
# before it starts anything and refuses to start on an error.
SIGNING_TAG = "signing"
DEVELOPMENT_ORGANISATION = "Procurement Advisor Dev"


def _common_name(name) -> str:
    from cryptography.x509.oid import NameOID

    values = name.get_attributes_for_oid(NameOID.COMMON_NAME)
    return str(values[0].value) if values else name.rfc4514_string()


@checks.register(SIGNING_TAG, deploy=True)
def check_brief_signer(app_configs=None, **kwargs):
    """Production signs with the organisation's own key, never the development signer.

    Errors: no key configured (advisor.E010); the development signer, by its file or by its
    development CA (E011); no passphrase, or a key it does not open (E012); no trust roots, or
    the development CA among them (E013). Warnings: the development organisation name
    (W003); a signer that does not chain to the trust roots (W004)."""
    if not settings.PRODUCTION:
        return []
    signing = settings.BRIEF_SIGNING
    messages = []
    hint = (
        "Set BRIEF_SIGNING_PKCS12 to the organisation's PKCS#12 file, BRIEF_SIGNING_PASSPHRASE "
        "or BRIEF_SIGNING_PASSPHRASE_FILE, and BRIEF_SIGNING_TRUST_ROOTS to its CA "
        "certificates; `make_dev_signing_cert` is for development only."
    )
    roots = [Path(p) for p in signing.get("TRUST_ROOTS") or []]
    root_names = set()
    if not roots:
        messages.append(
            checks.Error("BRIEF_SIGNING_TRUST_ROOTS is unset.", hint=hint, id="advisor.E013")
        )
    for root in roots:
        name = _root_name(root)
        if name is None:
            messages.append(
                checks.Error(f"Trust root {root} cannot be read.", hint=hint, id="advisor.E013")
            )
        elif is_development_ca(name):
            messages.append(
                checks.Error(
                    f"Trust root {root} is the development CA {name!r}.",
                    hint=hint,
                    id="advisor.E013",
                )
            )
        else:
            root_names.add(name)
    if signing.get("ORGANISATION") == DEVELOPMENT_ORGANISATION:
        messages.append(
            checks.Warning(
                f"BRIEF_SIGNING_ORGANISATION is unset: briefs print {DEVELOPMENT_ORGANISATION!r}.",
                hint="Set BRIEF_SIGNING_ORGANISATION to the organisation's name.",
                id="advisor.W003",
            )
        )
    path = signing.get("PKCS12_PATH")
    if not path:
        development = Path(settings.SIGNING_DIR) / "dev-signer.p12"
        found = (
            f"; the development signer in the data folder ({development}) is never used in "
            "production"
            if development.exists()
            else ""
        )
        messages.append(
            checks.Error(
                f"BRIEF_SIGNING_PKCS12 is unset: production has no signing key{found}.",
                hint=hint,
                id="advisor.E010",
            )
        )
        return messages
    path = Path(path)
    if path.name == "dev-signer.p12":
        messages.append(
            checks.Error(
                f"BRIEF_SIGNING_PKCS12 is the development signer {path}.",
                hint=hint,
                id="advisor.E011",
            )
        )
        return messages
    try:
        passphrase = _passphrase(signing)
    except SigningError as error:
        messages.append(checks.Error(str(error), hint=hint, id="advisor.E012"))
        return messages
    certificate = _signer_certificate(path, passphrase)
    if isinstance(certificate, str):
        messages.append(checks.Error(certificate, hint=hint, id="advisor.E012"))
        return messages
    subject, issuer = _common_name(certificate.subject), _common_name(certificate.issuer)
    if is_development_ca(issuer):
        messages.append(
            checks.Error(
                f"The brief signer in {path} is the development signer {subject!r}, issued "
                f"by {issuer!r}.",
                hint=hint,
                id="advisor.E011",
            )
        )
    elif root_names and issuer not in root_names:
        messages.append(
            checks.Warning(
                f"The brief signer {subject!r} is issued by {issuer!r}, which is not among "
                "the trust roots: the verify page would call new briefs 'not signed by us'.",
                hint="Add the issuing CA's certificate to BRIEF_SIGNING_TRUST_ROOTS.",
                id="advisor.W004",
            )
        )
    return messages


def _root_name(path: Path) -> str | None:
    from cryptography import x509

    try:
        data = path.read_bytes()
        cert = (
            x509.load_pem_x509_certificate(data)
            if b"-----BEGIN" in data
            else x509.load_der_x509_certificate(data)
        )
    except (OSError, ValueError):
        return None
    return _common_name(cert.subject)


def _signer_certificate(path: Path, passphrase: str):
    """The signer's certificate, or a sentence saying why it cannot be read."""
    from cryptography.hazmat.primitives.serialization import pkcs12

    try:
        data = path.read_bytes()
    except OSError as error:
        return f"The signing key {path} cannot be read ({error.strerror or error})."
    try:
        _key, certificate, _others = pkcs12.load_key_and_certificates(data, passphrase.encode())
    except ValueError:
        return f"The signing key {path} does not open with the configured passphrase."
    if certificate is None:
        return f"The signing key {path} holds no certificate."
    return certificate


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
