"""An approver's certificate upload refused in plain words (decision 0121), in both languages
and at 320 px: a certificate in another person's name."""

import pytest
from django.test import override_settings

from advisor.roles import APPROVER
from tests.browser.test_accessibility import review
from tests.support.approver_certs import authority, pkcs12_file
from tests.support.users import make_user

# A brief issued here is one real page (tests/conftest.py one_page_briefs): its PDF is not read.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("one_page_briefs")]

WORDS = {"en": "not yours", "zh-hans": "不是您"}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_certificate_in_another_persons_name_is_refused_in_plain_words(
    page, live_server, login, screenshot, tmp_path, settings, language
):
    approvers = authority("Example Org Approvers CA")
    (tmp_path / "approvers.pem").write_bytes(approvers.pem)
    p12 = tmp_path / "cfo.p12"
    p12.write_bytes(
        pkcs12_file("pw", "Chief Financial Officer Li", issuer=approvers, email="cfo@example.org")
    )
    make_user("lina", APPROVER, password="pw-lina-1", email="li.na@example.org")
    signing = {**settings.BRIEF_SIGNING, "APPROVER_TRUST_ROOTS": [tmp_path / "approvers.pem"]}
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    with override_settings(BRIEF_SIGNING=signing):
        login("lina", "pw-lina-1")
        page.goto(f"{live_server.url}/brief/certificate/")
        page.set_input_files("input[type=file]", str(p12))
        page.fill("input[type=password]", "pw")
        page.click("form.issue-form button[type=submit]")
        summary = page.locator(".error-summary").inner_text()
        screenshot(f"certificate-refused-{language}")
        page.set_viewport_size({"width": 320, "height": 900})
        screenshot(f"certificate-refused-{language}-320")
        page.set_viewport_size({"width": 1280, "height": 900})
        found = {}
        review(page, "certificate refused", found, None)
    assert WORDS[language] in summary and "Chief Financial Officer Li" in summary
    assert not found, found
