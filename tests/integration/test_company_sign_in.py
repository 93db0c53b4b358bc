"""Company sign-in: OpenID Connect against a provider running in the test (tests/support/
oidc_provider.py), through django-allauth; the provider's groups map to the three roles by the
settings, at the first sign-in and at every one after; local accounts keep signing in."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from allauth.socialaccount.models import SocialAccount
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from advisor.roles import APPROVER, CATALOG_ADMIN, PROCUREMENT_STAFF
from advisor.sso.adapters import company_username
from config.settings.security import app_providers, oidc_providers, saml_providers
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


SENT = object()  # the provider returns the nonce the authorization request carried


def sign_in(provider, client: Client, nonce=SENT, language="en", **claims):
    """The browser's round trip: the site sends it to the provider, the person signs in there,
    the provider sends it back to the site's callback with a code (whose ID token carries the
    request's nonce, or ``nonce`` when given: None for none)."""
    start = client.post(LOGIN_URL)
    assert start.status_code == 302, start.content
    authorize = urlsplit(start["Location"])
    assert f"{authorize.scheme}://{authorize.netloc}{authorize.path}" == (
        f"{provider.issuer}/authorize"
    )
    query = {k: v[0] for k, v in parse_qs(authorize.query).items()}
    assert query["client_id"] == oidc_provider.CLIENT_ID and "code_challenge" in query
    assert len(query["nonce"]) >= 32
    callback = urlsplit(query["redirect_uri"]).path
    code = provider.code_for(nonce=query["nonce"] if nonce is SENT else nonce, **claims)
    return client.get(
        callback, {"code": code, "state": query["state"]}, HTTP_ACCEPT_LANGUAGE=language
    )


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


@pytest.mark.parametrize("nonce", ["another-sign-in-s-nonce-0123456789abcdef", None])
def test_an_id_token_without_this_sign_in_s_nonce_is_refused(provider, nonce):
    """A wrong nonce (an ID token meant for another sign-in, or replayed) or none at all."""
    client = Client()
    refused = sign_in(provider, client, nonce=nonce, sub="emp-7", preferred_username="zhao.min")
    page = refused.content.decode()
    assert refused.status_code == 400, page
    assert "did not carry the one-time code (nonce)" in page
    assert not User.objects.filter(username__startswith="zhao").exists()
    assert client.get(reverse("home"))["Location"].startswith(reverse("login"))
    chinese = sign_in(
        provider, Client(), nonce=nonce, language="zh-hans", sub="emp-7", preferred_username="zm"
    )
    assert chinese.status_code == 400 and "一次性随机码（nonce）" in chinese.content.decode()


def test_the_scopes_asked_for_are_configurable(provider, settings):
    start = Client().post(LOGIN_URL)
    scope = parse_qs(urlsplit(start["Location"]).query)["scope"][0]
    assert sorted(scope.split()) == ["email", "openid", "profile"]
    settings.SOCIALACCOUNT_PROVIDERS = oidc_providers(
        provider.issuer,
        oidc_provider.CLIENT_ID,
        oidc_provider.CLIENT_SECRET,
        "Example SSO",
        "profile, groups",
    )
    start = Client().post(LOGIN_URL)
    scope = parse_qs(urlsplit(start["Location"]).query)["scope"][0]
    assert sorted(scope.split()) == ["groups", "openid", "profile"]  # the order is not kept


def test_the_groups_claim_name_is_configurable(provider, settings):
    settings.COMPANY_SIGN_IN = {**settings.COMPANY_SIGN_IN, "GROUPS_CLAIM": "roles"}
    sign_in(provider, Client(), sub="emp-9", preferred_username="qian", roles=["ft-approvers"])
    assert roles_of(User.objects.get(username="qian")) == {APPROVER}


def test_a_user_name_taken_locally_becomes_the_provider_s_full_identifier(provider):
    local = User.objects.create_user("li.wei", email="someone.else@example.cn")
    client = Client()
    done = sign_in(
        provider,
        client,
        sub="emp-1001",
        preferred_username="li.wei",
        email="x@example.cn",
        groups=["ft-buyers"],
    )
    assert done.status_code == 302
    person = User.objects.get(socialaccount__uid="emp-1001")
    assert person.username == "li.wei@company" and person != local
    assert roles_of(person) == {PROCUREMENT_STAFF} and roles_of(local) == set()
    told = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Your user name here is li.wei@company: li.wei belongs to another account." in told
    # Two more people of that name at the provider: their e-mail address, else the
    # provider's identifier of them; never a name made up from the e-mail ("x").
    second = sign_in(
        provider, Client(), sub="emp-2002", preferred_username="li.wei", email="x2@example.cn"
    )
    third = sign_in(provider, Client(), sub="emp-3003", preferred_username="li.wei")
    assert second.status_code == third.status_code == 302
    names = set(User.objects.values_list("username", flat=True))
    assert names == {"li.wei", "li.wei@company", "x2@example.cn", "emp-3003@company"}
    # A returning person keeps their account and name.
    sign_in(provider, Client(), sub="emp-1001", preferred_username="li.wei", groups=[])
    assert User.objects.get(socialaccount__uid="emp-1001").username == "li.wei@company"


@pytest.mark.parametrize("provider_id", ["saml", "dingtalk", "feishu"])
def test_every_provider_s_clashing_name_is_qualified_by_the_provider(provider_id):
    User.objects.create_user("王芳")
    account = SocialAccount(provider=provider_id, uid="ou_7d8a|6f")
    assert company_username({"username": "王芳"}, account) == f"王芳@{provider_id}"
    User.objects.create_user(f"王芳@{provider_id}")
    assert company_username({"username": "王芳"}, account) == f"ou_7d8a_6f@{provider_id}"
    assert company_username({"username": "李雷"}, account) == "李雷"


def test_the_sign_in_page_s_policy_lets_its_forms_lead_to_the_providers(provider, settings):
    """Browsers apply form-action to the redirect after a form: the sign-in pages allow the
    configured providers' hosts (tests/browser/test_company_sign_in_refused.py goes there);
    every other page keeps 'self'."""
    settings.SOCIALACCOUNT_PROVIDERS = {
        **settings.SOCIALACCOUNT_PROVIDERS,
        **saml_providers("urn:idp", "https://idp.example.cn/sso", "CERT", "Example SAML"),
        **app_providers("dingtalk", "ding-client", "s"),
    }
    settings.COMPANY_SIGN_IN = {**settings.COMPANY_SIGN_IN, "FORM_ORIGINS": ["https://sso2.cn"]}
    header = "Content-Security-Policy"
    for path in (reverse("login"), LOGIN_URL):
        response = Client().get(path)
        policy = response.headers.get(header) or response.headers[f"{header}-Report-Only"]
        (action,) = [d for d in policy.split("; ") if d.startswith("form-action")]
        assert action.split() == [
            "form-action",
            "'self'",
            provider.issuer,
            "https://idp.example.cn",
            "https://login.dingtalk.com",
            "https://sso2.cn",
        ]
    elsewhere = Client().get(reverse("brief:verify"))
    policy = elsewhere.headers.get(header) or elsewhere.headers[f"{header}-Report-Only"]
    assert "form-action 'self';" in policy + ";"
