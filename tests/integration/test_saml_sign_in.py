"""Company sign-in through SAML 2.0 (django-allauth's SAML provider, python3-saml and xmlsec)
against an identity provider played by the test (tests/support/saml_idp.py): the button in both
languages, the authentication request, a signed assertion that signs the person in with the
roles its groups map to (at the first sign-in and every later one), and every response that
must sign nobody in: altered after signing, signed by another key, unsigned, for another
audience, started by the identity provider on its own, replayed."""

from __future__ import annotations

import base64

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from advisor.roles import APPROVER, CATALOG_ADMIN, PROCUREMENT_STAFF
from config.settings.security import saml_providers
from tests.support import saml_idp

pytestmark = pytest.mark.django_db

ROLES = {"ft-buyers": PROCUREMENT_STAFF, "ft-approvers": APPROVER, "ft-catalog": CATALOG_ADMIN}
LOGIN = "/accounts/company/saml/company/login/"
ACS = "/accounts/company/saml/company/acs/"
METADATA = "/accounts/company/saml/company/metadata/"


@pytest.fixture(scope="module")
def idp():
    return saml_idp.IdentityProvider()


@pytest.fixture
def configured(idp, settings):
    settings.SOCIALACCOUNT_PROVIDERS = saml_providers(
        idp.entity_id, idp.sso_url, idp.certificate, "Example Group SAML"
    )
    settings.COMPANY_SIGN_IN = {
        **settings.COMPANY_SIGN_IN,
        "SAML_GROUPS_ATTRIBUTE": "groups",
        "SAML_ROLES": ROLES,
    }
    return idp


def start(client: Client, idp) -> dict:
    """Post the sign-in button: the authentication request the browser is sent off with."""
    response = client.post(LOGIN)
    assert response.status_code == 302, response.content
    return idp.read_request(response["Location"])


def person(groups: list[str], username: str = "li.na") -> dict[str, list[str]]:
    return {
        "username": [username],
        "email": [f"{username}@example.cn"],
        "givenName": ["Na"],
        "sn": ["Li"],
        "groups": groups,
    }


def post_back(client: Client, request: dict, saml_response: str):
    """The browser posts the response to the site, which finishes the sign-in."""
    posted = client.post(ACS, {"SAMLResponse": saml_response, "RelayState": request["relay_state"]})
    assert posted.status_code == 302, posted.content
    return client.get(posted["Location"], HTTP_ACCEPT_LANGUAGE="en")


def signed_in(client: Client) -> User | None:
    user_id = client.session.get("_auth_user_id")
    return User.objects.get(pk=user_id) if user_id else None


def roles_of(user) -> set[str]:
    return set(user.groups.values_list("name", flat=True))


def test_the_button_in_both_languages_and_the_authentication_request(configured):
    client = Client()
    page = client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Sign in with Example Group SAML" in page
    chinese = client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "使用 Example Group SAML 登录" in chinese
    request = start(client, configured)
    assert request["id"] and request["destination"] == configured.sso_url
    assert request["acs"] == f"http://testserver{ACS}"
    assert request["sp_entity_id"] == f"http://testserver{METADATA}"


def test_a_signed_assertion_signs_in_with_the_roles_of_its_groups_every_time(configured):
    client = Client()
    request = start(client, configured)
    answer = configured.response(request, person(["ft-buyers", "ft-approvers"]), "li.na")
    done = post_back(client, request, answer)
    assert done.status_code == 302 and done["Location"] == reverse("home"), done.content
    user = signed_in(client)
    assert user is not None and user.username == "li.na"
    assert user.email == "li.na@example.cn" and (user.first_name, user.last_name) == ("Na", "Li")
    assert roles_of(user) == {PROCUREMENT_STAFF, APPROVER} and not user.is_staff

    # Moved at the identity provider: out of the approvers, into the catalog admins.
    again = Client()
    request = start(again, configured)
    answer = configured.response(request, person(["ft-buyers", "ft-catalog", "other"]), "li.na")
    assert post_back(again, request, answer).status_code == 302
    user.refresh_from_db()
    assert signed_in(again) == user and User.objects.count() == 1
    assert roles_of(user) == {PROCUREMENT_STAFF, CATALOG_ADMIN} and user.is_staff


def signs_nobody_in(client: Client, request: dict, saml_response: str) -> None:
    page = post_back(client, request, saml_response)
    assert page.status_code == 401, (page.status_code, page.content[:300])
    assert "Company sign-in did not complete" in page.content.decode()
    assert signed_in(client) is None and not User.objects.exists()


def test_an_assertion_altered_after_signing_signs_nobody_in(configured):
    client = Client()
    request = start(client, configured)
    answer = configured.response(request, person(["ft-buyers"]), "li.na")
    forged = saml_idp.tampered(answer, ">ft-buyers<", ">ft-catalog<")
    signs_nobody_in(client, request, forged)


def test_an_assertion_signed_by_another_key_signs_nobody_in(configured):
    client = Client()
    request = start(client, configured)
    other = saml_idp.key_and_certificate("Impostor")
    answer = configured.response(request, person(["ft-catalog"]), "li.na", signing_keys=other)
    signs_nobody_in(client, request, answer)


def test_an_assertion_signed_with_sha1_signs_nobody_in(configured):
    client = Client()
    request = start(client, configured)
    sha1 = (saml_idp.Saml.RSA_SHA1, saml_idp.Saml.SHA1)
    answer = configured.response(request, person(["ft-buyers"]), "li.na", algorithms=sha1)
    signs_nobody_in(client, request, answer)


def test_the_same_response_twice_in_one_browser_signs_in_once(configured):
    client = Client()
    request = start(client, configured)
    answer = configured.response(request, person(["ft-buyers"]), "li.na")
    assert post_back(client, request, answer).status_code == 302
    client.logout()
    page = post_back(client, request, answer)
    assert page.status_code in (401, 403) and signed_in(client) is None


def test_an_unsigned_assertion_signs_nobody_in(configured):
    client = Client()
    request = start(client, configured)
    answer = configured.response(request, person(["ft-buyers"]), "li.na", sign=False)
    signs_nobody_in(client, request, answer)


def test_an_assertion_for_another_site_signs_nobody_in(configured):
    client = Client()
    request = start(client, configured)
    answer = configured.response(
        request, person(["ft-buyers"]), "li.na", audience="https://other.example.cn/saml"
    )
    signs_nobody_in(client, request, answer)


def test_a_sign_in_the_identity_provider_starts_on_its_own_is_refused(configured):
    client = Client()
    request = start(Client(), configured)  # nothing asked in this browser
    answer = configured.response(request, person(["ft-buyers"]), "li.na", in_response_to=None)
    signs_nobody_in(client, request, answer)


def test_a_replayed_response_signs_nobody_in_again(configured):
    client = Client()
    request = start(client, configured)
    answer = configured.response(request, person(["ft-buyers"]), "li.na")
    assert post_back(client, request, answer).status_code == 302
    assert signed_in(client) is not None
    thief = Client()
    page = post_back(thief, request, answer)
    assert page.status_code in (401, 403) and signed_in(thief) is None


def test_the_metadata_for_the_identity_provider_names_this_site(configured):
    metadata = Client().get(METADATA)
    assert metadata.status_code == 200 and metadata["Content-Type"].startswith("text/xml")
    text = metadata.content.decode()
    assert f'entityID="http://testserver{METADATA}"' in text
    assert f'Location="http://testserver{ACS}"' in text
    assert 'WantAssertionsSigned="true"' in text


def test_without_its_settings_no_button_and_no_pages(settings):
    settings.SOCIALACCOUNT_PROVIDERS = {}
    page = Client().get(reverse("login"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "SAML" not in page and "Sign in with" not in page
    for url in (LOGIN, METADATA):
        assert Client().get(url).status_code == 404
    assert Client().post(ACS, {"SAMLResponse": "x"}).status_code in (302, 404)


def test_the_settings_stay_off_without_an_entity_id_and_require_signed_assertions():
    assert saml_providers("", "https://idp/sso", "CERT", "SAML") == {}
    app = saml_providers("urn:idp", "https://idp/sso", "CERT", "SAML", "urn:sp", {"uid": "eid"})
    settings = app["saml"]["APPS"][0]["settings"]
    assert settings["idp"] == {
        "entity_id": "urn:idp",
        "sso_url": "https://idp/sso",
        "x509cert": "CERT",
    }
    assert settings["sp"] == {"entity_id": "urn:sp"}
    assert settings["attribute_mapping"]["uid"] == "eid"
    assert "mail" in settings["attribute_mapping"]["email"]
    advanced = settings["advanced"]
    assert advanced["want_assertion_signed"] and advanced["reject_idp_initiated_sso"]
    assert advanced["strict"]


def test_xmlsec_and_lxml_share_one_libxml2():
    """xmlsec refuses to work beside an lxml built on another libxml2: the lock keeps them
    matched (decision 0054); this says so the day an upgrade parts them."""
    import lxml.etree
    import xmlsec

    assert xmlsec.get_libxml_version() == lxml.etree.LIBXML_VERSION[:3]


LAUGHS = (
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    '<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">'
    '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>'
    '<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">&lol3;</samlp:Response>'
)
HOSTILE = {
    "not base64": "%%%not-base64%%%",
    "not XML": base64.b64encode(b"\x00\xffnot xml at all").decode(),
    "empty": "",
    "entity expansion": base64.b64encode(LAUGHS.encode()).decode(),
    "another document": base64.b64encode(b"<html><body>hello</body></html>").decode(),
    "external entity": base64.b64encode(
        b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        b'<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">&x;'
        b"</samlp:Response>"
    ).decode(),
}


@pytest.mark.parametrize("saml_response", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_post_gets_the_refusal_page_never_an_error(configured, saml_response):
    client = Client(raise_request_exception=False)
    request = start(client, configured)
    page = post_back(client, request, saml_response)
    assert page.status_code == 401 and signed_in(client) is None
    assert b"root:" not in page.content


def test_the_finish_page_without_a_posted_response_is_the_refusal_page(configured):
    page = Client(raise_request_exception=False).get(
        "/accounts/company/saml/company/acs/finish/", HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert page.status_code == 401 and "公司账号登录未完成" in page.content.decode()


def test_a_request_naming_a_host_not_allowed_is_refused_before_any_saml(configured):
    page = Client(raise_request_exception=False).post(LOGIN, HTTP_HOST="evil.example.com")
    assert page.status_code == 400


@pytest.mark.parametrize(
    "query",
    [{}, {"SAMLRequest": "x"}, {"SAMLRequest": "bm90IGRlZmxhdGU="}, {"SAMLResponse": "%%%"}],
    ids=["nothing", "not-base64", "not-deflate", "not-xml"],
)
def test_the_logout_page_refuses_what_it_cannot_read_with_the_refusal_page(configured, query):
    page = Client(raise_request_exception=False).get(
        "/accounts/company/saml/company/sls/", query, HTTP_ACCEPT_LANGUAGE="en"
    )
    assert page.status_code in (400, 401)
    assert "Company sign-in did not complete" in page.content.decode()
