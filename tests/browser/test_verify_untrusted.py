"""The verify page's own headline for a look-alike, untrusted signer, in both languages."""

import pytest
from django.test import override_settings

from tests.support.briefs import make_pki, make_signed_pdf, signing_settings

pytestmark = pytest.mark.django_db(transaction=True)

HEADLINES = {
    "en": "Not signed by us",
    "zh-hans": "并非由我们签署",
}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_look_alike_signer_is_headed_not_signed_by_us(
    page, live_server, screenshot, tmp_path, language
):
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    make_pki(ours)
    make_pki(theirs)  # the same organisation and signer names, a CA we do not trust
    forged = tmp_path / "forged.pdf"
    forged.write_bytes(make_signed_pdf(theirs).signed)
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    with override_settings(BRIEF_SIGNING=signing_settings(ours)):
        page.goto(f"{live_server.url}/brief/verify/")
        page.set_input_files("#id_pdf", str(forged))
        page.click("main button[type=submit]")
        verdict = page.locator("#verdict").inner_text()
        screenshot(f"verify-untrusted-{language}")
    assert verdict.startswith(HEADLINES[language])
