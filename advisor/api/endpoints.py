"""The HTTP API (django-ninja): size, recommend, assessments, their results, briefs, verify.

An edge adapter like the management commands (docs/decisions/0048-http-api.md): it reads a
request, calls one feature service or selector, and answers JSON. Scenario documents go
through the one validator (``advisor.assessments.documents.check_document``) and a refusal is a 400
naming the field, in the commands' words: ``{"errors": [{"field": "model.layers",
"message": "must be between 1 and 1,024"}]}``. The same roles and the same ownership as the
pages: another buyer's assessment or brief is "not found" (404).
"""

from __future__ import annotations

import json
from functools import wraps

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import FileResponse, Http404, HttpResponse
from django.urls import URLPattern, reverse
from django.utils import translation
from django.utils.translation import gettext, gettext_noop
from django_ratelimit.core import is_ratelimited
from ninja import File, NinjaAPI, Query, Status
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.files import UploadedFile

from advisor.api import schemas
from advisor.api.auth import (
    RateLimited,
    TokenAuth,
    require_permission,
    require_write,
    signed_in_or_token,
)
from advisor.assessments.answers import Incomplete
from advisor.assessments.documents import (
    MAX_INPUT_BYTES,
    InputError,
    check_document,
    parse_document,
)
from advisor.assessments.selectors import assessment_for, assessments_for
from advisor.assessments.services import create_document_assessment
from advisor.brief import audit
from advisor.brief import services as brief_services
from advisor.brief.forms import UPLOAD_ERRORS
from advisor.brief.lifecycle import glance
from advisor.brief.models import AuditAction, Origin
from advisor.brief.selectors import brief_for, briefs_prepared_by
from advisor.brief.verification import (
    MAX_PDF_BYTES,
    Busy,
    NotAPdf,
    verify_owners,
    verify_upload,
)
from advisor.domain.scenario import ScenarioError
from advisor.presentation.compared import comparison_text
from advisor.presentation.text import render_text
from advisor.recommendation.output import recommendation_document
from advisor.recommendation.run import run_recommendation
from advisor.recommendation.services import shown_results
from advisor.recommendation.sizing import size_scenario
from advisor.roles import ISSUE, PREPARE


class AdvisorAPI(NinjaAPI):
    """Operation ids are the functions' names (``issue_brief``), what a generated client calls
    its methods; the default would be ``advisor_api_endpoints_issue_brief``."""

    def get_openapi_operation_id(self, operation) -> str:
        return operation.view_func.__name__

    def get_openapi_schema(self, *, path_prefix=None, path_params=None):
        schema = super().get_openapi_schema(path_prefix=path_prefix, path_params=path_params)
        schema["components"]["schemas"]["ScenarioDocument"] = schemas.SCENARIO_DOCUMENT
        return schema


api = AdvisorAPI(
    title="Fine-tuning server procurement advisor API",
    version="1",
    description=(
        "Size fine-tuning jobs, rank procurement options, keep assessments and issue signed "
        "briefs. Authenticate with a personal API token: `Authorization: Bearer fta_…` "
        "(created on the API tokens page). Scenario documents are described in "
        "docs/scenario-format.md; a refused document answers 400 with one error naming the "
        "field, in the words of the `manage.py` commands. Every error answers the one shape "
        '`{"errors": [{"field": ..., "message": ...}]}`. Messages are in the `language` a '
        "request names (the parameter, or the body's `language` when issuing a brief); "
        "without one, the API's and the validator's words are English, as the commands print "
        "them. "
        "The path `/api/` answers the same as `/api/v1/` for one release (deprecated)."
    ),
    auth=TokenAuth(),
    urls_namespace="api",
    docs_decorator=signed_in_or_token,
)

DOCUMENT_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/ScenarioDocument"}}
        },
    }
}
# The one error shape, declared for every status an operation can answer besides its success.
# 413 and 422 are never answered: a body over 1 MiB and a field the schema refuses are 400s,
# as the commands refuse them (docs/api.md).
BAD, UNAUTHENTICATED, FORBIDDEN, NOT_FOUND, CONFLICT, TOO_MANY = 400, 401, 403, 404, 409, 429
ALWAYS = (BAD, UNAUTHENTICATED, TOO_MANY)  # a bad parameter, the token, the rate limit


def answers(success: dict, *statuses: int) -> dict:
    """``success`` and the error shape for ``statuses`` and every operation's own 400/401/429."""
    return {**success, **{status: schemas.Errors for status in (*ALWAYS, *statuses)}}


# The API's own words: English as the commands print them, or in the language a request names.
PREPARERS_ONLY = "role: " + gettext_noop("only procurement staff may do this")
ISSUERS_ONLY = "role: " + gettext_noop("only procurement staff may issue briefs")
UNKNOWN_TOKEN = gettext_noop("missing, unknown, expired or revoked")
TOO_MANY_REQUESTS = gettext_noop("too many requests; try again in a minute")
NOT_FOUND_WORDS = gettext_noop("not found")
UNANSWERED = gettext_noop("unanswered steps; finish it in the wizard")
PDF_NOT_READY = gettext_noop("not ready yet; ask for the brief's status")
TOO_MANY_PDFS = gettext_noop("too many PDFs checked; try again in a minute")
SLOTS_BUSY = gettext_noop("every verification slot is busy; try again shortly")


def words(request, text: str) -> str:
    """``text`` in the language the request named (``language``), else in English, the words
    the commands print."""
    return gettext(text) if getattr(request, "asked_language", None) else text


def errors(status: int, *pairs: tuple[str, str]) -> HttpResponse:
    return api.create_response(
        None, {"errors": [{"field": f, "message": m} for f, m in pairs]}, status=status
    )


@api.exception_handler(ScenarioError)
def _scenario_error(request, error: ScenarioError):
    named = getattr(request, "asked_language", None)
    return errors(400, (error.field, error.message.render(gettext if named else str)))


@api.exception_handler(InputError)
def _input_error(request, error: InputError):
    return errors(400, (error.field, error.words))


@api.exception_handler(ValidationError)
def _validation_error(request, error: ValidationError):
    """Query and form parameters the schema refuses: 400, one error per field, with its path."""
    seen = {}
    for item in error.errors:
        location = [str(part) for part in item.get("loc", ()) if part not in ("query", "body")]
        seen.setdefault(".".join(location) or "input", str(item.get("msg", "invalid")))
    return errors(400, *seen.items())


@api.exception_handler(AuthenticationError)
def _unauthenticated(request, error):
    response = errors(401, ("token", words(request, UNKNOWN_TOKEN)))
    response["WWW-Authenticate"] = "Bearer"
    return response


@api.exception_handler(RateLimited)
def _rate_limited(request, error):
    response = errors(429, ("token", words(request, TOO_MANY_REQUESTS)))
    response["Retry-After"] = "60"
    return response


@api.exception_handler(HttpError)
def _http_error(request, error: HttpError):
    field, _sep, text = str(error).partition(": ")
    if not text:
        return errors(error.status_code, ("request", field))
    return errors(error.status_code, (field, words(request, text)))


@api.exception_handler(Http404)
def _not_found(request, error):
    return errors(404, ("id", words(request, NOT_FOUND_WORDS)))


def _body(request) -> bytes:
    try:
        return request.body
    except RequestDataTooBig:  # over DATA_UPLOAD_MAX_MEMORY_SIZE (1 MiB), as the commands
        return b" " * (MAX_INPUT_BYTES + 1)


def _document(request) -> dict:
    """The request body as a checked scenario document (400 naming the field otherwise)."""
    document = parse_document(_body(request), "request body")
    check_document(document)
    return document


def _audit_write(request, what: str, **detail) -> None:
    audit.record(
        AuditAction.API_WRITE,
        actor=request.user,
        brief=detail.pop("brief", None),
        what=what,
        method=request.method,
        path=request.path,
        token=request.auth.prefix,
        **detail,
    )


# --- Where to start ---------------------------------------------------------------------------


@api.get("/", auth=None, include_in_schema=False, response=dict)
def index(request):
    """The API's root: where its documentation, schema and tokens are (no token needed)."""
    return {
        "name": api.title,
        "version": api.version,
        "docs": reverse("api:openapi-view"),
        "openapi": reverse("api:openapi-json"),
        "tokens": reverse("api_tokens:list"),
        "authentication": "Authorization: Bearer <personal API token>",
    }


# --- Sizing and ranking, as the commands print them -----------------------------------------


@api.post(
    "/size",
    response=answers({200: schemas.SizeOut}, FORBIDDEN),
    openapi_extra=DOCUMENT_BODY,
    summary="Size a job (as `manage.py size --format json`)",
    tags=["sizing"],
)
def size(request, params: Query[schemas.SizeParams]):
    require_permission(request, PREPARE, PREPARERS_ONLY)
    scenario = check_document(parse_document(_body(request), "request body"))
    result = size_scenario(
        scenario,
        accelerator_key=params.accelerator,
        gpus=params.gpus,
        server_key=params.server,
        allow_offload=params.allow_offload,
    )
    with translation.override(params.language):
        return _json(result.to_json(gettext))


@api.post(
    "/recommend",
    response=answers({200: schemas.Recommendation}, FORBIDDEN),
    openapi_extra=DOCUMENT_BODY,
    summary="Rank the options (as `manage.py recommend --format json`)",
    description="Format 2 (`format=1`: the previous format, for one release; docs/api.md).",
    tags=["sizing"],
)
def recommend(request, params: Query[schemas.RecommendParams]):
    require_permission(request, PREPARE, PREPARERS_ONLY)
    run = run_recommendation(_document(request))
    with translation.override(params.language):
        return _json(
            recommendation_document(run, render_text, params.format, compared=comparison_text)
        )


# --- Assessments ----------------------------------------------------------------------------


@api.post(
    "/assessments",
    response=answers({201: schemas.AssessmentOut}, FORBIDDEN),
    openapi_extra=DOCUMENT_BODY,
    summary="Create an assessment from a scenario document",
    tags=["assessments"],
)
def create_assessment(request, params: Query[schemas.TitleParams]):
    require_permission(request, PREPARE, PREPARERS_ONLY)
    require_write(request)
    document = _document(request)
    assessment = create_document_assessment(
        owner=request.user, document=document, title=params.title
    )
    _audit_write(request, "assessment created", assessment=assessment.pk)
    return Status(201, schemas.assessment_out(assessment))


@api.get(
    "/assessments",
    response=answers({200: list[schemas.AssessmentOut]}, FORBIDDEN),
    summary="Your assessments, the latest changed first",
    tags=["assessments"],
)
def list_assessments(request, params: Query[schemas.MessageLanguage]):
    require_permission(request, PREPARE, PREPARERS_ONLY)
    return [schemas.assessment_out(a) for a in assessments_for(request.user)[:500]]


@api.get(
    "/assessments/{assessment_id}",
    response=answers({200: schemas.AssessmentDetail}, FORBIDDEN, NOT_FOUND),
    summary="One of your assessments, with its scenario document",
    tags=["assessments"],
)
def read_assessment(request, assessment_id: int, params: Query[schemas.MessageLanguage]):
    require_permission(request, PREPARE, PREPARERS_ONLY)
    return schemas.assessment_detail(assessment_for(request.user, assessment_id))


@api.get(
    "/assessments/{assessment_id}/results",
    response=answers({200: schemas.ResultsOut}, FORBIDDEN, NOT_FOUND, CONFLICT),
    summary="The assessment's ranked options, as stored (computed once per version)",
    tags=["assessments"],
)
def results(request, assessment_id: int, params: Query[schemas.RecommendParams]):
    require_permission(request, PREPARE, PREPARERS_ONLY)
    assessment = assessment_for(request.user, assessment_id)
    shown = shown_results(assessment)
    if shown is None:
        return errors(409, ("assessment", words(request, UNANSWERED)))
    with translation.override(params.language):
        payload = recommendation_document(
            shown.run, render_text, params.format, compared=comparison_text
        )
    return _json(
        {
            **payload,
            "assessment": assessment.pk,
            "computed": str(shown.stored.token),
            "catalog_changed": shown.catalog_changed,
        }
    )


def _json(document: dict) -> HttpResponse:
    """The recommendation as ``json.dumps`` writes it: the schema above describes it (a test
    checks the answers against it); it is not validated again on every answer."""
    return HttpResponse(json.dumps(document, ensure_ascii=False), content_type="application/json")


# --- Briefs ---------------------------------------------------------------------------------


@api.post(
    "/assessments/{assessment_id}/briefs",
    response=answers({202: schemas.BriefOut}, FORBIDDEN, NOT_FOUND, CONFLICT),
    summary="Issue a brief for an option of the assessment (rendered and signed by the worker)",
    description="Messages (a 409, a 400) are in the body's `language` unless the `language` "
    "parameter names another.",
    tags=["briefs"],
)
def issue_brief(
    request, assessment_id: int, payload: schemas.IssueIn, params: Query[schemas.MessageLanguage]
):
    require_permission(request, ISSUE, ISSUERS_ONLY)
    require_write(request)
    assessment = assessment_for(request.user, assessment_id)
    request.asked_language = params.language or payload.language
    with translation.override(request.asked_language):
        return _issue(request, assessment, payload)


def _issue(request, assessment, payload: schemas.IssueIn):
    try:
        brief = brief_services.issue_for_assessment(
            user=request.user,
            assessment=assessment,
            option_key=payload.option,
            language=payload.language,
            computed=payload.computed,
            reason=payload.reason,
            origin=Origin.API,
        )
    except Incomplete:
        return errors(409, ("assessment", words(request, UNANSWERED)))
    except brief_services.StaleOptions as error:
        return errors(409, ("computed", str(error)))
    except brief_services.ReasonRequired as error:
        return errors(400, ("reason", str(error)))
    except brief_services.BriefError as error:
        return errors(400, ("option", str(error)))
    _audit_write(request, "brief issued", brief=brief, option=payload.option)
    brief.refresh_from_db()
    return Status(202, schemas.brief_out(glance(brief)))


@api.get(
    "/briefs",
    response=answers({200: list[schemas.BriefOut]}),
    summary="The briefs you prepared, the latest first",
    tags=["briefs"],
)
def list_briefs(request, params: Query[schemas.MessageLanguage]):
    return [schemas.brief_out(glance(b)) for b in briefs_prepared_by(request.user)[:500]]


@api.get(
    "/briefs/{brief_id}",
    response=answers({200: schemas.BriefOut}, NOT_FOUND),
    summary="A brief's status (yours, or any submitted brief for an approver)",
    tags=["briefs"],
)
def brief_status(request, brief_id: int, params: Query[schemas.MessageLanguage]):
    return schemas.brief_out(glance(brief_for(request.user, brief_id)))


@api.get(
    "/briefs/{brief_id}/pdf",
    response=answers({200: None}, NOT_FOUND),
    summary="The signed PDF",
    tags=["briefs"],
    openapi_extra={
        "responses": {
            200: {
                "description": "The signed PDF",
                "content": {"application/pdf": {"schema": {"type": "string", "format": "binary"}}},
            }
        }
    },
)
def brief_pdf(request, brief_id: int, params: Query[schemas.MessageLanguage]):
    brief = brief_for(request.user, brief_id)
    if not brief.ready:
        return errors(404, ("pdf", words(request, PDF_NOT_READY)))
    brief_services.record_download(brief, request.user)
    response = FileResponse(
        brief.pdf.open("rb"), as_attachment=True, filename=f"{brief.number}.pdf"
    )
    response["Content-Type"] = "application/pdf"
    return response


@api.get(
    "/briefs/{brief_id}/snapshot",
    response=answers({200: dict}, NOT_FOUND),
    summary="The brief's frozen content (the snapshot its PDF was rendered from)",
    tags=["briefs"],
)
def brief_snapshot(request, brief_id: int, params: Query[schemas.MessageLanguage]):
    return brief_for(request.user, brief_id).snapshot


@api.post(
    "/verify",
    response=answers({200: schemas.VerificationOut, 503: schemas.Errors}),
    summary="Verify a PDF: signature intact and trusted, changed after signing, on record",
    tags=["briefs"],
)
def verify(request, pdf: File[UploadedFile], params: Query[schemas.MessageLanguage]):
    if _verify_limited(request):  # the page's bound (decision 0019), per token here
        response = errors(429, ("pdf", words(request, TOO_MANY_PDFS)))
        response["Retry-After"] = "60"
        return response
    if pdf.size > MAX_PDF_BYTES:
        return errors(400, ("pdf", _upload_error(request, "too-large")))
    try:
        verification = verify_upload(
            pdf.read(), wait_s=settings.VERIFY_QUEUE_S, owners=verify_owners(request)
        )
    except Busy:
        response = errors(503, ("pdf", words(request, SLOTS_BUSY)))
        response["Retry-After"] = str(Busy.retry_after)
        return response
    except NotAPdf as error:
        return errors(400, ("pdf", _upload_error(request, str(error))))
    audit.record(
        AuditAction.BRIEF_VERIFIED,
        actor=request.user,
        brief=verification.brief or verification.stripped_from,
        sha256=verification.report.sha256,
        outcome=verification.report.tampering.value,
        on_record=verification.on_record,
    )
    return schemas.verification_out(verification)


def _verify_limited(request) -> bool:
    """The page's limit, per token and per user (all their tokens together)."""
    if not settings.VERIFY_RATE_LIMIT:
        return False
    limited = [
        is_ratelimited(
            request, group=group, key=key, rate=settings.VERIFY_RATE_LIMIT, increment=True
        )
        for group, key in (
            ("api-verify", lambda group, r: r.auth.prefix),
            ("api-verify-user", lambda group, r: str(r.user.pk)),
        )
    ]
    return any(limited)


def _upload_error(request, reason: str) -> str:
    """The verify page's words, in the language the request named, else in English."""
    with translation.override(getattr(request, "asked_language", None) or "en"):
        return str(UPLOAD_ERRORS[reason]) % {"limit": MAX_PDF_BYTES // (1024 * 1024)}


# --- Where it is mounted: /api/v1/, and /api/ for one release ------------------------------

LANGUAGES = ("en", "zh-hans")


def _in_asked_language(view):
    """Every message of a request that names a ``language`` (errors included: the handlers run
    inside) is in that language; otherwise in the Accept-Language's, as the pages."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        language = request.GET.get("language")
        request.asked_language = language if language in LANGUAGES else None
        if request.asked_language is None:
            return view(request, *args, **kwargs)
        with translation.override(language):
            return view(request, *args, **kwargs)

    return wrapper


def _deprecated(view):
    """The alias answers as /api/v1/ does, saying where the same answer lives from now on."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        successor = "/api/v1/" + request.path.removeprefix("/api/")
        response["Link"] = f'<{successor}>; rel="successor-version"'
        return response

    return wrapper


def mounted(namespace: str, alias: bool = False):
    """The API's URL patterns for ``include``: ``api`` at /api/v1/ (what the schema names and
    ``reverse`` gives), ``api-alias`` at /api/ (deprecated, removed in the next release)."""
    patterns, app_name, _namespace = api.urls
    wrapped = []
    for pattern in patterns:
        view = _in_asked_language(pattern.callback)
        if alias:
            view = _deprecated(view)
        wrapped.append(URLPattern(pattern.pattern, view, pattern.default_args, pattern.name))
    return wrapped, app_name, namespace
