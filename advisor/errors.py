"""Error pages: a database outage is a friendly, translated 503, never a traceback.

Django turns an exception raised anywhere (a view, a template, a middleware such as the
session store) into a response through ``handler500``; this handler is that hook. It runs
inside the ``except`` block, so the exception is at hand: database connection failures
(``OperationalError``, ``InterfaceError``) become "503 Service Unavailable" with
``Retry-After``, rendered without touching the database (no request context processors, no
session, no user). Anything else falls through to Django's ordinary 500 page.
"""

from __future__ import annotations

import sys

from django.db.utils import InterfaceError, OperationalError
from django.http import HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views import defaults

DATABASE_ERRORS = (OperationalError, InterfaceError)
RETRY_AFTER_SECONDS = 30


def wants_json(request) -> bool:
    return request.accepts("application/json") and not request.accepts("text/html")


def database_unavailable(request) -> HttpResponse:
    if wants_json(request):
        response = JsonResponse(
            {
                "status": "error",
                "database": "unreachable",
                "message": _("The service is briefly unavailable. Please try again shortly."),
            },
            status=503,
        )
    else:
        html = render_to_string("503.html", {"retry_after": RETRY_AFTER_SECONDS})
        response = HttpResponse(html, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Content-Language"] = get_language()
    response["Cache-Control"] = "no-store"
    return response


def server_error(request, template_name=defaults.ERROR_500_TEMPLATE_NAME):
    """``handler500``: 503 for an unreachable database, Django's 500 page otherwise."""
    if isinstance(sys.exc_info()[1], DATABASE_ERRORS):
        return database_unavailable(request)
    return defaults.server_error(request, template_name)
