"""The API tokens page: a signed-in user creates a token (shown once), lists and revokes them."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from advisor.api.models import ApiToken
from advisor.brief.models import AuditAction, AuditEvent
from advisor.roles import APPROVER, PROCUREMENT_STAFF
from tests.support.api import token_client
from tests.support.users import make_user, signed_in_client

pytestmark = pytest.mark.django_db

TOKEN = re.compile(r"fta_[0-9a-f]{8}_[A-Za-z0-9_-]{43}")


def create(client, **fields):
    data = {"name": "CI sizing", "scope": "write", "days": "30", **fields}
    return client.post(reverse("api_tokens:list"), data, HTTP_ACCEPT_LANGUAGE="en")


def test_a_token_is_shown_once_then_listed_by_its_prefix_and_works():
    user = make_user("buyer", PROCUREMENT_STAFF)
    client = signed_in_client(user)
    page = create(client).content.decode()
    (text,) = TOKEN.findall(page)
    token = ApiToken.objects.get()
    assert (token.name, token.scope, token.user) == ("CI sizing", "write", user)
    assert token_client(text).get("/api/assessments").status_code == 200
    again = client.get(reverse("api_tokens:list")).content.decode()
    assert not TOKEN.findall(again)  # never shown again
    assert f"fta_{token.prefix}…" in again and "CI sizing" in again


def test_a_revoked_token_stops_working_and_another_users_token_is_not_found():
    owner = make_user("buyer", PROCUREMENT_STAFF)
    (text,) = TOKEN.findall(create(signed_in_client(owner)).content.decode())
    token = ApiToken.objects.get()
    other = signed_in_client(make_user("approver", APPROVER))
    assert other.post(reverse("api_tokens:revoke", args=[token.pk])).status_code == 404
    assert token_client(text).get("/api/briefs").status_code == 200
    revoked = signed_in_client(owner).post(reverse("api_tokens:revoke", args=[token.pk]))
    assert revoked.status_code == 302
    assert token_client(text).get("/api/briefs").status_code == 401
    page = signed_in_client(owner).get(reverse("api_tokens:list"), HTTP_ACCEPT_LANGUAGE="en")
    assert "Revoked" in page.content.decode()
    actions = set(AuditEvent.objects.values_list("action", flat=True))
    assert {AuditAction.API_TOKEN_CREATED, AuditAction.API_TOKEN_REVOKED} <= actions


@pytest.mark.parametrize(
    "fields",
    [{"name": ""}, {"scope": "admin"}, {"days": "0"}, {"days": "367"}, {"days": "x"}],
)
def test_a_bad_form_is_refused_with_its_error_and_no_token(fields):
    client = signed_in_client(make_user("buyer", PROCUREMENT_STAFF))
    response = create(client, **fields)
    assert response.status_code == 400
    assert "There is a problem" in response.content.decode()
    assert not ApiToken.objects.exists()


def test_the_page_is_translated():
    client = signed_in_client(make_user("buyer", PROCUREMENT_STAFF))
    page = client.get(reverse("api_tokens:list"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "创建令牌" in page.content.decode()
