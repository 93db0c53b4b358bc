"""Company sign-in: OpenID Connect against a provider running in the test (tests/support/
oidc_provider.py), through django-allauth; the provider's groups map to the three roles by the
settings, at the first sign-in and at every one after; local accounts keep signing in."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from advisor.roles import APPROVER, CATALOG_ADMIN, PROCUREMENT_STAFF
from config.settings.security import oidc_providers
from tests.support import oidc_provider

pytestmark = pytest.mark.django_db

LOGIN_URL = "/accounts/company/oidc/company/login/"
ROLES = {"ft-buyers": PROCUREMENT_STAFF, "ft-approvers": APPROVER, "ft-catalog": CATALOG_ADMIN}


@pytest.fixture
def provider(settings):
    provider, server = oidc_provider.start()
    settings.SOCIALACCOUNT_PROVIDERS = oidc_providers(
        provider.issuer, oidc_provider.CLIENT_ID, oidc_provider.CLIENT_SECRET, "Example SSO"
    )
    settings.COMPANY_SIGN_IN = {"NAME": "Example SSO", "GROUPS_CLAIM": "groups", "ROLES": ROLES}
    yield provider
    server.shutdown()
    server.server_close()


def sign_in(provider, client: Client, **claims):
    """The browser's round trip: the site sends it to the provider, the person signs in there,
    the provider sends it back to the site's callback with a code."""
    start = client.post(LOGIN_URL)
    assert start.status_code == 302, start.content
    authorize = urlsplit(start["Location"])
    assert f"{authorize.scheme}://{authorize.netloc}{authorize.path}" == (
        f"{provider.issuer}/authorize"
    )
    query = {k: v[0] for k, v in parse_qs(authorize.query).items()}
    assert query["client_id"] == oidc_provider.CLIENT_ID and "code_challenge" in query
    callback = urlsplit(query["redirect_uri"]).path
    code = provider.code_for(**claims)
    return client.get(callback, {"code": code, "state": query["state"]})


def roles_of(user) -> set[str]:
    return set(user.groups.values_list("name", flat=True))


def test_the_provider_groups_give_the_roles_at_first_and_every_later_sign_in(provider):
    client = Client()
    page = client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Sign in with Example SSO" in page
    chinese = client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "使用 Example SSO 登录" in chinese
    done = sign_in(
        provider,
        client,
        sub="emp-1001",
        preferred_username="li.wei",
        email="li.wei@example.cn",
        name="Li Wei",
        groups=["ft-buyers", "all-staff"],
    )
    assert done.status_code == 302 and done["Location"] == reverse("home")
    user = User.objects.get(username="li.wei")
    assert roles_of(user) == {PROCUREMENT_STAFF} and not user.is_staff
    home = client.get(reverse("home"))
    assert home.status_code == 200  # signed in: the buyer's home page
    assert provider.token_requests[0]["code_verifier"]  # PKCE

    # The company moves Li Wei to approvals and the catalog: the next sign-in follows.
    again = Client()
    sign_in(
        provider,
        again,
        sub="emp-1001",
        preferred_username="li.wei",
        groups=["ft-approvers", "ft-catalog"],
    )
    user.refresh_from_db()
    assert roles_of(user) == {APPROVER, CATALOG_ADMIN} and user.is_staff
    assert User.objects.filter(username__startswith="li.wei").count() == 1
    sign_in(provider, Client(), sub="emp-1001", preferred_username="li.wei", groups=[])
    user.refresh_from_db()
    assert roles_of(user) == set() and not user.is_staff


def test_a_refused_or_cancelled_sign_in_says_so_and_signs_in_nobody(provider):
    client = Client()
    start = client.post(LOGIN_URL)
    query = {k: v[0] for k, v in parse_qs(urlsplit(start["Location"]).query).items()}
    callback = urlsplit(query["redirect_uri"]).path
    cancelled = client.get(callback, {"error": "access_denied", "state": query["state"]})
    assert cancelled.status_code == 302
    page = client.get(cancelled["Location"], HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 400 and "did not complete" in page.content.decode()
    forged = client.get(callback, {"code": "made-up", "state": "wrong"}, HTTP_ACCEPT_LANGUAGE="en")
    assert forged.status_code == 401 and "did not complete" in forged.content.decode()
    assert not User.objects.exists()
    assert client.get(reverse("home"))["Location"].startswith(reverse("login"))


def test_a_plain_link_to_the_provider_asks_before_leaving(provider):
    page = Client().get(LOGIN_URL, HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 200
    assert "Sign in with Example SSO" in page.content.decode()


def test_without_a_provider_the_sign_in_page_offers_local_accounts_only(settings):
    settings.SOCIALACCOUNT_PROVIDERS = {}
    page = Client().get(reverse("login"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Sign in with" not in page and 'name="password"' in page
