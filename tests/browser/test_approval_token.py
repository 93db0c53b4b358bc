"""In Chromium: an approver registers the key on their signing token (SoftHSM, decision 0149)
or their credential at a signing service (a local CSC service, decision 0150) and approves with
its PIN; a wrong PIN is refused in plain words with the comment kept; both languages, axe,
320 px (screenshots under test-artifacts/screenshots/)."""

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings

from advisor.assessments.answers import assessment_document
from advisor.brief import generation, services
from advisor.brief.models import BriefStatus, KeySource, SigningCertificate
from advisor.recommendation.services import assessment_results
from tests.browser.test_accessibility import review

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("one_page_briefs")]

COMMENT = "Hosting line checked against the data center's offer."
WORDS = {
    "en": {"pin": "PIN of your signing token", "refused": "The token refused this PIN"},
    "zh-hans": {"pin": "签名令牌的 PIN", "refused": "令牌拒绝了此 PIN"},
}


@pytest.fixture
def brief(world):
    # The approver's certificate on the token names Wang Fang (decision 0121).
    get_user_model().objects.filter(username="boss").update(first_name="Fang", last_name="Wang")
    option = assessment_results(world).recommendation.rankings["recommended"][0]
    issued = services.issue_brief(
        user=world.owner, document=assessment_document(world), option_key=option.key,
        language="en", assessment=world,
    )  # fmt: skip
    issued = generation.generate(issued.pk)
    assert issued.status == BriefStatus.AWAITING_APPROVAL
    return issued


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_an_approver_signs_with_the_pin_of_their_token(
    page, live_server, login, screenshot, settings, brief, approver_token, language
):
    pki, token = approver_token
    signing = {
        **settings.BRIEF_SIGNING,
        "TRUST_ROOTS": [*settings.BRIEF_SIGNING["TRUST_ROOTS"], pki.ca_cert_path],
        "APPROVER_PKCS11_MODULE": str(token.module),
    }
    words = WORDS[language]
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    found = {}
    with override_settings(BRIEF_SIGNING=signing):
        login("boss", "pw-boss-1")
        page.wait_for_selector("main h1")
        page.goto(f"{live_server.url}/brief/certificate/")
        page.fill("#id_token_label", token.label)
        page.fill("#id_key_label", token.key_label)
        page.fill("#id_pin", token.pin)
        with page.expect_navigation():
            page.click("form[aria-labelledby=token-heading] button[type=submit]")
        assert page.locator("#registered-certificate").inner_text().count(token.label) == 1
        screenshot(f"approval-token-registered-{language}")
        review(page, "token registered", found, None)
        registered = SigningCertificate.objects.get(user__username="boss")
        assert registered.source == KeySource.PKCS11

        page.goto(f"{live_server.url}/brief/{brief.pk}/")
        assert words["pin"] in page.locator("label[for=id_pin]").inner_text()
        page.check("#id_decision_0")
        page.fill("#id_comment", COMMENT)
        if page.locator("#id_acknowledge_vetoes").count():
            page.check("#id_acknowledge_vetoes")
        page.fill("#id_pin", "000000")
        with page.expect_navigation():
            page.click("form button[type=submit]:below(#id_pin)")
        summary = page.locator(".error-summary").inner_text()
        assert words["refused"] in summary
        assert page.input_value("#id_comment") == COMMENT  # the comment is kept
        assert page.input_value("#id_pin") == ""  # the PIN is never sent back
        screenshot(f"approval-token-wrong-pin-{language}")
        page.set_viewport_size({"width": 320, "height": 900})
        screenshot(f"approval-token-wrong-pin-{language}-320")
        page.set_viewport_size({"width": 1280, "height": 900})
        review(page, "wrong PIN", found, None)

        if page.locator("#id_acknowledge_vetoes").count():
            page.check("#id_acknowledge_vetoes")
        page.check("#id_decision_0")
        page.fill("#id_pin", token.pin)
        with page.expect_navigation():
            page.click("form button[type=submit]:below(#id_pin)")
    brief.refresh_from_db()
    assert brief.status == BriefStatus.APPROVED and brief.approver_signed
    assert not found, found


@pytest.fixture
def signing_service_for(tmp_path_factory):
    """A local CSC signing service holding Wang Fang's test key (tests.support.csc_service)."""
    from advisor.brief.pki import create_pki
    from tests.support.csc_service import signing_service

    pki = create_pki(
        tmp_path_factory.mktemp("csc-pki"), "pw", "Approver Org", "Wang Fang", development=False
    )
    service = signing_service(
        pki.signer_pkcs12_path, "pw", credential_id="wang-fang-01", pin="csc-pin-5186"
    )
    yield pki, service
    service.stop()


SERVICE_WORDS = {
    "en": {"pin": "PIN for your key at the signing service", "refused": "refused this PIN"},
    "zh-hans": {"pin": "您在签名服务处密钥的 PIN", "refused": "签名服务拒绝了此 PIN"},
}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_an_approver_signs_at_the_signing_service(
    page, live_server, login, screenshot, settings, brief, signing_service_for, language
):
    pki, service = signing_service_for
    signing = {
        **settings.BRIEF_SIGNING,
        "TRUST_ROOTS": [*settings.BRIEF_SIGNING["TRUST_ROOTS"], pki.ca_cert_path],
        "APPROVER_CSC": {"URL": service.url, "TOKEN": service.access_token, "TOKEN_FILE": None},
    }
    words = SERVICE_WORDS[language]
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    found = {}
    with override_settings(BRIEF_SIGNING=signing):
        login("boss", "pw-boss-1")
        page.wait_for_selector("main h1")
        page.goto(f"{live_server.url}/brief/certificate/")
        page.fill("#id_credential_id", "wang-fang-01")
        with page.expect_navigation():
            page.click("form[aria-labelledby=remote-heading] button[type=submit]")
        assert "wang-fang-01" in page.locator("#registered-certificate").inner_text()
        screenshot(f"approval-service-registered-{language}")
        review(page, "service registered", found, None)

        page.goto(f"{live_server.url}/brief/{brief.pk}/")
        assert words["pin"] in page.locator("label[for=id_pin]").inner_text()
        assert page.locator("#id_otp").count() == 1
        page.check("#id_decision_0")
        page.fill("#id_comment", COMMENT)
        if page.locator("#id_acknowledge_vetoes").count():
            page.check("#id_acknowledge_vetoes")
        page.fill("#id_pin", "0000")
        with page.expect_navigation():
            page.click("form button[type=submit]:below(#id_pin)")
        assert words["refused"] in page.locator(".error-summary").inner_text()
        assert page.input_value("#id_comment") == COMMENT
        screenshot(f"approval-service-wrong-pin-{language}")
        page.set_viewport_size({"width": 320, "height": 900})
        screenshot(f"approval-service-wrong-pin-{language}-320")
        page.set_viewport_size({"width": 1280, "height": 900})
        review(page, "service wrong PIN", found, None)

        if page.locator("#id_acknowledge_vetoes").count():
            page.check("#id_acknowledge_vetoes")
        page.check("#id_decision_0")
        page.fill("#id_pin", "csc-pin-5186")
        with page.expect_navigation():
            page.click("form button[type=submit]:below(#id_pin)")
    brief.refresh_from_db()
    assert brief.status == BriefStatus.APPROVED and brief.approver_signed
    assert not found, found
