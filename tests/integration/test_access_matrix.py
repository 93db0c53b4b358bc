"""Every URL pattern, as every kind of visitor: allowed or denied, and no object by its id.

The patterns come from the URL resolver, so a new URL cannot be forgotten:
``test_every_url_pattern_has_an_expectation`` fails until it has a row here. Object URLs carry
the ids of the owner's assessment and brief, so "another buyer" and the other roles are
trying to reach an object that is not theirs by its id.

Outcomes: ``OK`` (the view answered: a page, a redirect that is not the sign-in page, or a
form error), ``LOGIN`` (redirected to a sign-in page), 401 (the API without a token), 403, 404.

The HTTP API's endpoints (``api=True``) are asked with each visitor's personal API token
(write scope; none for the anonymous visitor) instead of a session, documents as JSON: the
same roles and the same owners as the pages (docs/decisions/0048-http-api.md).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace

import pytest
from axes.models import AccessFailureLog, AccessLog
from django.contrib import admin
from django.contrib.contenttypes.models import ContentType
from django.core.files.base import ContentFile
from django.test import Client
from django.urls import URLResolver, get_resolver, reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from advisor.api import tokens
from advisor.assessments.answers import assessment_document
from advisor.brief import services as brief_services
from advisor.brief.models import Brief
from advisor.models import RuleParameter
from advisor.questionnaire.models import AnswerSheet
from advisor.questionnaire.xlsx import write_workbook as questionnaire_xlsx
from advisor.recommendation.services import assessment_results
from advisor.roles import APPROVER, CATALOG_ADMIN, PROCUREMENT_STAFF
from advisor.webhooks.models import WebhookEndpoint, WebhookMessage
from config import urls  # noqa: F401 - registers the admin modules (advisor.admin_config)
from config.settings.security import oidc_providers
from tests.support.api import token_client
from tests.support.assessments import finished_assessment
from tests.support.scenarios import QWEN_7B_LORA_COMPARED
from tests.support.users import make_user, signed_in_client

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("brief_ready", "one_page_briefs")]

OK, LOGIN = "ok", "login"
VISITORS = ("anonymous", "other buyer", "owner", "approver", "catalog admin")


def walk(patterns, prefix="", namespaces=()):
    """(key, route) of every URL pattern; key is the qualified name, or the route if unnamed."""
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            inner = (*namespaces, pattern.namespace) if pattern.namespace else namespaces
            yield from walk(pattern.url_patterns, prefix + str(pattern.pattern), inner)
        else:
            route = prefix + str(pattern.pattern)
            yield (":".join((*namespaces, pattern.name)) if pattern.name else route), route


def all_patterns() -> list[tuple[str, str]]:
    return list(walk(get_resolver().url_patterns))


@dataclass
class Case:
    """One request (a URL built from the world) and the outcome for each visitor, in order."""

    url: object  # callable(world) -> path
    expected: tuple
    method: str = "get"
    data: dict | object = field(default_factory=dict)  # or callable(world) -> dict
    api: bool = False  # asked with the visitor's API token, a body as JSON

    def outcomes(self) -> dict:
        assert len(self.expected) == len(VISITORS)
        return dict(zip(VISITORS, self.expected, strict=True))


def to(name, *args, query=""):
    """A URL builder: ``args`` are world attribute names (or literal values)."""

    def build(world):
        values = [
            getattr(world, a) if isinstance(a, str) and hasattr(world, a) else a for a in args
        ]
        return reverse(name, args=values) + query

    return build


PUBLIC = (OK,) * 5
SIGNED_IN = (LOGIN, OK, OK, OK, OK)
PREPARER = (LOGIN, OK, OK, 403, 403)  # procurement staff; nothing of anyone else's
OWN_ASSESSMENT = (LOGIN, 404, OK, 403, 403)  # another buyer's id is "not found"
APPROVER_ONLY = (LOGIN, 403, 403, OK, 403)
OWN_OR_APPROVER_BRIEF = (LOGIN, 404, OK, OK, 404)
# The HTTP API: 401 without a token, otherwise as the pages.
API_PREPARER = (401, OK, OK, 403, 403)
API_OWN_ASSESSMENT = (401, 404, OK, 403, 403)
API_SIGNED_IN = (401, OK, OK, OK, OK)
API_OWN_OR_APPROVER_BRIEF = (401, 404, OK, OK, 404)
# The webhooks page: the integration role only (tests/integration/test_webhooks_page.py).
INTEGRATION_ONLY = (LOGIN, 403, 403, 403, 403)


def endpoint_id(world) -> list[int]:
    return [WebhookEndpoint.objects.order_by("pk").first().pk]


def to_endpoint(name):
    return lambda world: reverse(name, args=endpoint_id(world))


def api(route, expected, method="get", data=None):
    return Case(route, expected, method, data if data is not None else {}, api=True)


def document(world):
    return QWEN_7B_LORA_COMPARED


EXPECTED: dict[str, list[Case]] = {
    "home": [Case(to("home"), SIGNED_IN)],
    "health": [Case(to("health"), PUBLIC)],
    "login": [Case(to("login"), PUBLIC)],
    "logout": [Case(to("logout"), PUBLIC, method="post")],
    "set_language": [Case(to("set_language"), PUBLIC, "post", {"language": "en"})],
    # Wizard
    "wizard:create": [Case(to("wizard:create"), PREPARER, "post")],
    "wizard:preset_options": [Case(to("wizard:preset_options", query="?q=qwen"), PREPARER)],
    "wizard:task_list": [Case(to("wizard:task_list", "assessment_id"), OWN_ASSESSMENT)],
    "wizard:rename": [
        Case(to("wizard:rename", "assessment_id"), OWN_ASSESSMENT),
        Case(to("wizard:rename", "assessment_id"), OWN_ASSESSMENT, "post", {"title": ""}),
    ],
    "wizard:duplicate": [Case(to("wizard:duplicate", "assessment_id"), OWN_ASSESSMENT, "post")],
    "wizard:delete": [Case(to("wizard:delete", "assessment_id"), OWN_ASSESSMENT)],
    "wizard:check": [Case(to("wizard:check", "assessment_id"), OWN_ASSESSMENT)],
    "wizard:step": [
        Case(to("wizard:step", "assessment_id", slug), OWN_ASSESSMENT)
        for slug in ("model", "training", "site", "procurement")
    ],
    "wizard:estimate": [
        Case(to("wizard:estimate", "assessment_id", "training"), OWN_ASSESSMENT, "post")
    ],
    # Options
    "results:list": [Case(to("results:list", "assessment_id"), OWN_ASSESSMENT)],
    "results:option": [Case(to("results:option", "assessment_id", "option_key"), OWN_ASSESSMENT)],
    "results:compare": [
        Case(
            lambda w: (
                reverse("results:compare", args=[w.assessment_id]) + f"?option={w.option_key}"
            ),
            OWN_ASSESSMENT,
        )
    ],
    "results:figures": [Case(to("results:figures", "assessment_id"), OWN_ASSESSMENT)],
    "results:recompute": [Case(to("results:recompute", "assessment_id"), OWN_ASSESSMENT, "post")],
    # Vendor questionnaire
    "questionnaire:download": [
        Case(to("questionnaire:download", "assessment_id", "option_key", kind), OWN_ASSESSMENT)
        for kind in ("xlsx", "pdf")
    ],
    "questionnaire:bulk": [
        Case(to("questionnaire:bulk", "assessment_id"), OWN_ASSESSMENT),
        Case(to("questionnaire:bulk", "assessment_id", query="?download=1"), OWN_ASSESSMENT),
    ],
    "questionnaire:upload": [Case(to("questionnaire:upload", "assessment_id"), OWN_ASSESSMENT)],
    "questionnaire:preview": [
        Case(to("questionnaire:preview", "assessment_id", "sheet_id"), OWN_ASSESSMENT)
    ],
    # Briefs
    "brief:list": [Case(to("brief:list"), SIGNED_IN)],
    "brief:issue": [
        Case(
            to("brief:issue"),
            (LOGIN, 404, OK, 403, 403),
            "post",
            lambda w: {"assessment": w.assessment_id, "option": w.option_key, "language": "en"},
        )
    ],
    "brief:approvals": [Case(to("brief:approvals"), APPROVER_ONLY)],
    "brief:verify": [Case(to("brief:verify"), PUBLIC)],  # public by design
    "brief:detail": [Case(to("brief:detail", "brief_id"), OWN_OR_APPROVER_BRIEF)],
    "brief:download": [Case(to("brief:download", "brief_id"), OWN_OR_APPROVER_BRIEF)],
    # A document made from the brief's snapshot (the comparison sheet): as the brief's PDF.
    "brief:document": [Case(to("brief:document", "brief_id", "comparison"), OWN_OR_APPROVER_BRIEF)],
    # An approver's own signing certificate: approvers only, each their own.
    "brief:certificate": [Case(to("brief:certificate"), APPROVER_ONLY)],
    # Only its preparer may retry; an approver sees the brief but may not.
    "brief:retry": [Case(to("brief:retry", "brief_id"), (LOGIN, 404, OK, 403, 404), "post")],
    # An empty decision: the form comes back (400) for an approver, nothing changes.
    "brief:review": [Case(to("brief:review", "brief_id"), APPROVER_ONLY, "post")],
    # HTTP API (advisor/api): the schema is public, the docs take a session, the endpoints a
    # token.
    "api:openapi-json": [Case(lambda w: "/api/v1/openapi.json", PUBLIC)],
    "api:openapi-view": [Case(lambda w: "/api/v1/docs", SIGNED_IN)],
    # The index (where the docs, schema and tokens are) answers everyone; ninja's own root
    # pattern, listed after it, is never reached.
    "api:index": [Case(lambda w: "/api/v1/", PUBLIC)],
    "api:api-root": [Case(lambda w: "/api/v1/", PUBLIC)],
    "api:size": [api(lambda w: "/api/v1/size", API_PREPARER, "post", document)],
    "api:recommend": [api(lambda w: "/api/v1/recommend", API_PREPARER, "post", document)],
    "api:create_assessment": [api(lambda w: "/api/v1/assessments", API_PREPARER, "post", document)],
    "api:list_assessments": [api(lambda w: "/api/v1/assessments", API_PREPARER)],
    "api:read_assessment": [
        api(lambda w: f"/api/v1/assessments/{w.assessment_id}", API_OWN_ASSESSMENT)
    ],
    "api:results": [
        api(lambda w: f"/api/v1/assessments/{w.assessment_id}/results", API_OWN_ASSESSMENT)
    ],
    "api:issue_brief": [
        api(
            lambda w: f"/api/v1/assessments/{w.assessment_id}/briefs",
            API_OWN_ASSESSMENT,
            "post",
            lambda w: {"option": w.option_key, "language": "en"},
        )
    ],
    "api:list_briefs": [api(lambda w: "/api/v1/briefs", API_SIGNED_IN)],
    "api:brief_status": [api(lambda w: f"/api/v1/briefs/{w.brief_id}", API_OWN_OR_APPROVER_BRIEF)],
    "api:brief_pdf": [api(lambda w: f"/api/v1/briefs/{w.brief_id}/pdf", API_OWN_OR_APPROVER_BRIEF)],
    "api:brief_snapshot": [
        api(lambda w: f"/api/v1/briefs/{w.brief_id}/snapshot", API_OWN_OR_APPROVER_BRIEF)
    ],
    # Without a file: the endpoint answers 400 naming the field, as the page its form error.
    "api:verify": [api(lambda w: "/api/v1/verify", API_SIGNED_IN, "post")],
    # API tokens page: one's own tokens only; another's token is "not found".
    "api_tokens:list": [Case(to("api_tokens:list"), SIGNED_IN)],
    "webhooks:list": [Case(to("webhooks:list"), INTEGRATION_ONLY)],
    "webhooks:add": [
        Case(to("webhooks:add"), INTEGRATION_ONLY),
        Case(to("webhooks:add"), INTEGRATION_ONLY, "post"),
    ],
    "webhooks:detail": [Case(to_endpoint("webhooks:detail"), INTEGRATION_ONLY)],
    "webhooks:change": [Case(to_endpoint("webhooks:change"), INTEGRATION_ONLY, "post")],
    "webhooks:test": [Case(to_endpoint("webhooks:test"), INTEGRATION_ONLY, "post")],
    "api_tokens:revoke": [
        Case(to("api_tokens:revoke", "spare_token_id"), (LOGIN, 404, OK, 404, 404), "post")
    ],
    # Company sign-in (django-allauth, OpenID Connect; a provider named "company" configured):
    # anyone may start one; a callback without the state its start left is refused (401).
    "openid_connect_login": [Case(lambda w: "/accounts/company/oidc/company/login/", PUBLIC)],
    "openid_connect_callback": [
        Case(lambda w: "/accounts/company/oidc/company/login/callback/", (401,) * 5)
    ],
    # SAML: not configured here, so its pages do not exist; the assertion consumer only keeps
    # what was posted and sends the browser on to the finish page, which does not exist either.
    "saml_login": [Case(lambda w: "/accounts/company/saml/company/login/", (404,) * 5)],
    "saml_acs": [Case(lambda w: "/accounts/company/saml/company/acs/", PUBLIC, "post")],
    "saml_finish_acs": [Case(lambda w: "/accounts/company/saml/company/acs/finish/", (404,) * 5)],
    "saml_sls": [Case(lambda w: "/accounts/company/saml/company/sls/", (404,) * 5)],
    "saml_metadata": [Case(lambda w: "/accounts/company/saml/company/metadata/", (404,) * 5)],
    # DingTalk and Feishu: their settings are not given here, so their pages do not exist.
    "dingtalk_login": [Case(to("dingtalk_login"), (404,) * 5)],
    "dingtalk_callback": [Case(to("dingtalk_callback"), (404,) * 5)],
    "feishu_login": [Case(to("feishu_login"), (404,) * 5)],
    "feishu_callback": [Case(to("feishu_callback"), (404,) * 5)],
    "socialaccount_login_cancelled": [Case(to("socialaccount_login_cancelled"), PUBLIC)],
    "socialaccount_login_error": [Case(to("socialaccount_login_error"), PUBLIC)],
    "socialaccount_signup": [Case(to("socialaccount_signup"), PUBLIC)],
    # Django admin, site-wide pages. Staff only (non-staff are sent to the admin sign-in).
    "admin:login": [Case(to("admin:login"), PUBLIC)],
    "admin:index": [Case(to("admin:index"), (LOGIN,) * 4 + (OK,))],
    "admin:logout": [Case(to("admin:logout"), PUBLIC, "post")],  # signs out whoever asks
    "admin:password_change": [Case(to("admin:password_change"), (LOGIN,) * 4 + (OK,))],
    "admin:password_change_done": [Case(to("admin:password_change_done"), (LOGIN,) * 4 + (OK,))],
    "admin:jsi18n": [Case(to("admin:jsi18n"), (LOGIN,) * 4 + (OK,))],
    # Without a field to complete, the autocomplete refuses even staff.
    "admin:autocomplete": [Case(to("admin:autocomplete"), (LOGIN,) * 4 + (403,))],
    # "View on site" of the owner's brief: briefs have no public page, so nothing to show.
    "admin:view_on_site": [
        Case(
            lambda w: reverse("admin:view_on_site", args=[w.brief_type_id, w.brief_id]),
            (LOGIN,) * 4 + (404,),
        )
    ],
    "admin:auth_user_password_change": [
        Case(
            lambda w: reverse("admin:auth_user_password_change", args=[w.users["owner"].pk]),
            (LOGIN,) * 4 + (403,),
        )
    ],
    "admin:app_list": [
        Case(lambda w: reverse("admin:app_list", args=["vendors"]), (LOGIN,) * 4 + (OK,)),
        Case(lambda w: reverse("admin:app_list", args=["advisor"]), (LOGIN,) * 4 + (OK,)),
        Case(lambda w: reverse("admin:app_list", args=["brief"]), (LOGIN,) * 4 + (404,)),
        Case(lambda w: reverse("admin:app_list", args=["auth"]), (LOGIN,) * 4 + (404,)),
        Case(lambda w: reverse("admin:app_list", args=["axes"]), (LOGIN,) * 4 + (404,)),
    ],
    "admin/(?P<url>.*)$": [Case(lambda w: "/admin/no-such-page/", (LOGIN,) * 4 + (404,))],
}

# The /api/ alias (deprecated, kept for one release) answers as /api/v1/ does, to everyone.
EXPECTED.update(
    {
        "api-alias:" + key.removeprefix("api:"): [
            replace(case, url=lambda w, url=case.url: url(w).replace("/api/v1/", "/api/", 1))
            for case in cases
        ]
        for key, cases in list(EXPECTED.items())
        if key.startswith("api:")
    }
)

# Model admin pages: the catalog admin edits the catalog (vendors) and the rule parameters;
# users, groups, sign-in attempts, briefs, the audit log and task results are not theirs.
CATALOG_MODELS = {"advisor.ruleparameter"} | {
    m._meta.label_lower for m in admin.site._registry if m._meta.app_label == "vendors"
}
MODEL_ACTIONS = {
    "changelist": ("get", None),
    "add": ("get", None),
    "change": ("get", "object"),
    "history": ("get", "object"),
    "delete": ("get", "object"),  # the confirmation page; nothing is deleted
    "simple_history": ("get", "history"),
    "import": ("get", None),
    "export": ("get", None),
    "process_import": ("post", None),
    "upload_config": ("get", None),
    "file": ("get", "object"),  # an answer sheet's uploaded workbook, through the permission
}
READ_ONLY_RECORDS = {"brief.brief", "brief.auditevent"}
# Seen by the catalog admin (to promote declared facts into the catalog), never added or deleted.
VIEW_ONLY_FOR_CATALOG_ADMIN = {"questionnaire.answersheet"}


def admin_model_cases(key: str, route: str) -> list[Case] | None:
    for model in admin.site._registry:
        label = model._meta.label_lower
        app, name = model._meta.app_label, model._meta.model_name
        allowed = label in CATALOG_MODELS or label in VIEW_ONLY_FOR_CATALOG_ADMIN
        staff = OK if allowed else 403
        if key == f"admin/{app}/{name}/<path:object_id>/":
            # The old-style change URL redirects any staff member to the change URL (whose
            # own row checks the permission): it shows nothing.
            staff = OK
            return [
                Case(
                    lambda w, m=model, a=app, n=name: f"/admin/{a}/{n}/{w.object_of(m)}/",
                    (LOGIN,) * 4 + (staff,),
                )
            ]
        prefix = f"admin:{app}_{name}_"
        if not key.startswith(prefix) or key[len(prefix) :] not in MODEL_ACTIONS:
            continue
        action = key[len(prefix) :]
        method, needs = MODEL_ACTIONS[action]
        if action == "add" and label in READ_ONLY_RECORDS:
            staff = 403  # records are never added in admin, by anyone
        if action in ("add", "delete") and label in VIEW_ONLY_FOR_CATALOG_ADMIN:
            staff = 403
        return [Case(_admin_url(key, model, needs), (LOGIN,) * 4 + (staff,), method)]
    return None


def _admin_url(key, model, needs):
    def build(world):
        if needs == "object":
            return reverse(key, args=[world.object_of(model)])
        if needs == "history":
            return reverse(key, args=world.history_of(model))
        return reverse(key)

    return build


def cases_for(key: str, route: str) -> list[Case] | None:
    return EXPECTED.get(key) or admin_model_cases(key, route)


def test_every_url_pattern_has_an_expectation():
    missing = [key for key, route in all_patterns() if not cases_for(key, route)]
    assert missing == [], "add these URL patterns to tests/integration/test_access_matrix.py"
    stale = set(EXPECTED) - {key for key, _ in all_patterns()}
    assert stale == set(), "these expectations name URL patterns that no longer exist"


# --- The world: a buyer's confirmed assessment and brief, and the other visitors ----------


class World:
    def __init__(self, django_capture_on_commit_callbacks):
        self.users = {
            "other buyer": make_user("other-buyer", PROCUREMENT_STAFF),
            "owner": make_user("owner", PROCUREMENT_STAFF),
            "approver": make_user("approver", APPROVER),
            "catalog admin": make_user("catalog-admin", CATALOG_ADMIN, is_staff=True),
        }
        owner = self.users["owner"]
        finished_assessment(self.users["other buyer"], title="Theirs")  # has data of its own
        assessment = finished_assessment(owner, title="Owner's plan")
        self.assessment_id = assessment.pk
        self.option_key = (
            assessment_results(assessment).recommendation.rankings["recommended"][0].key
        )
        with django_capture_on_commit_callbacks(execute=True):
            brief = brief_services.issue_brief(
                user=owner,
                document=assessment_document(assessment),
                option_key=self.option_key,
                language="en",
                assessment=assessment,
                inputs=assessment.answers,
            )
        brief.refresh_from_db()
        assert brief.ready, brief.failure
        self.brief_id = brief.pk
        sheet = AnswerSheet(
            assessment=assessment,
            uploaded_by=owner,
            original_name="answers.xlsx",
            sha256="0" * 64,
            received_on=timezone.localdate(),
        )
        sheet.file.save("answers.xlsx", ContentFile(questionnaire_xlsx([], "test")), save=False)
        sheet.save()
        self.sheet_id = sheet.pk
        self.brief_type_id = ContentType.objects.get_for_model(Brief).pk
        # A row of every model that has admin pages, so object URLs name a real object.
        RuleParameter.objects.create(key="site.ups_backup_target_min", value="45")
        Client().post(reverse("login"), {"username": "owner", "password": "wrong"})  # an attempt
        sign_in = {"user_agent": "test", "ip_address": "192.0.2.1", "username": "owner"}
        sign_in |= {"http_accept": "*/*", "path_info": reverse("login")}
        AccessLog.objects.create(**sign_in)
        AccessFailureLog.objects.create(**sign_in, locked_out=False)
        DBTaskResult.objects.create(
            status="SUCCESSFUL",
            args_kwargs={"args": [self.brief_id], "kwargs": {}},
            task_path="advisor.brief.tasks.generate_brief",
            queue_name="default",
            backend_name="default",
            run_after=timezone.now(),
            exception_class_path="",
            traceback="",
        )
        endpoint = WebhookEndpoint.objects.create(name="hooks", url="http://127.0.0.1:9/hooks")
        WebhookMessage.objects.create(
            endpoint=endpoint, event_type="brief.issued", brief_number="FT-1", body="{}"
        )
        for model in admin.site._registry:
            assert model._default_manager.exists(), model
        self.tokens = {
            visitor: tokens.create_token(user=user, name="matrix", scope="write", days=1)[1]
            for visitor, user in self.users.items()
        }
        self.spare_token_id = tokens.create_token(user=owner, name="spare", scope="read", days=1)[
            0
        ].pk

    def object_of(self, model) -> str:
        return str(model._default_manager.order_by("pk").first().pk)

    def history_of(self, model) -> list[str]:
        first = model._default_manager.order_by("pk").first()
        history = first.history.order_by("history_id").first()
        return [str(first.pk), str(history.history_id)]

    def client_for(self, visitor: str) -> Client:
        """A fresh client per request (a case may sign out or change the language); signed in
        by a session of its own, without a sign-in's side effects (signing in is tested in
        test_security_auth.py)."""
        if visitor == "anonymous":
            return Client()
        return signed_in_client(self.users[visitor])

    def api_client_for(self, visitor: str) -> Client:
        if visitor == "anonymous":
            return Client()
        return token_client(self.tokens[visitor])


@pytest.fixture
def world(django_capture_on_commit_callbacks, settings):
    settings.SOCIALACCOUNT_PROVIDERS = oidc_providers("http://127.0.0.1:9", "c", "s", "SSO")
    return World(django_capture_on_commit_callbacks)


SIGN_IN = re.compile(r"^/(accounts|admin)/login/\?next=")


def outcome(response) -> object:
    location = response.get("Location", "")
    if response.status_code in (301, 302) and SIGN_IN.match(location):
        return LOGIN
    if response.status_code in (401, 403, 404, 405) or response.status_code >= 500:
        return response.status_code
    return OK


def test_access_matrix(world):
    # A brief issued or retried here is queued on commit, which a test's transaction never
    # reaches: who may ask is the question, not the PDF (test_brief_issue.py renders them).
    wrong = []
    checked = 0
    for key, route in all_patterns():
        for case in cases_for(key, route) or []:
            url = case.url(world)
            data = case.data(world) if callable(case.data) else case.data
            for visitor, expected in case.outcomes().items():
                if case.api:
                    client = world.api_client_for(visitor)
                    if case.method == "post":
                        response = client.post(url, json.dumps(data), "application/json")
                    else:
                        response = client.get(url, data)
                else:
                    client = world.client_for(visitor)
                    response = getattr(client, case.method)(url, data)
                got = outcome(response)
                checked += 1
                if got != expected:
                    wrong.append(f"{case.method.upper()} {url} as {visitor}: {got}, not {expected}")
    assert not wrong, "\n".join(wrong)
    assert checked >= 5 * len(all_patterns())
