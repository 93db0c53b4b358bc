import pytest
from django.contrib.auth.models import User
from django.test import override_settings

from advisor.brief.models import Brief, BriefStatus
from tests.support.briefs import make_pki, make_signed_pdf, signing_settings

pytestmark = pytest.mark.django_db(transaction=True)


def test_anyone_can_verify_a_brief_in_the_browser(page, live_server, screenshot, tmp_path):
    make_pki(tmp_path)
    pdf = make_signed_pdf(tmp_path)  # pyHanko steps outside Playwright's running loop itself
    Brief.objects.create(
        number=pdf.number,
        language="en",
        status=BriefStatus.APPROVED,
        prepared_by=User.objects.create_user("buyer9"),
        approved_by=User.objects.create_user("approver9"),
        ruleset_version="test",
        sha256=pdf.sha256,
        unsigned_sha256=pdf.unsigned_sha256,
    )
    good, bad = tmp_path / "good.pdf", tmp_path / "bad.txt"
    good.write_bytes(pdf.signed)
    bad.write_bytes(b"hello")
    with override_settings(BRIEF_SIGNING=signing_settings(tmp_path)):
        page.goto(f"{live_server.url}/brief/verify/")
        page.set_input_files("#id_pdf", str(bad))
        page.click("main button[type=submit]")
        screenshot("verify-error-en")
        assert "not a PDF" in page.locator(".error-summary").inner_text()
        screenshot("verify-error-en")

        page.set_input_files("#id_pdf", str(good))
        page.click("main button[type=submit]")
        verdict = page.locator("#verdict")
        assert "on record" in verdict.inner_text()
        assert pdf.number in page.locator(".summary-list").inner_text()
        screenshot("verify-ok-en")


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_superseded_brief_is_verified_as_superseded(
    page, live_server, screenshot, tmp_path, language
):
    """Issue 51: the signature is intact and the brief on record, but its option's verdict has
    changed since issue; the page says superseded, since when and why, in both languages."""
    from advisor.recommendation.services import assessment_results
    from tests.browser.test_accessibility import review
    from tests.support.assessments import finished_assessment
    from tests.support.catalog import load_catalog

    load_catalog()
    buyer = User.objects.create_user("buyer8")
    assessment = finished_assessment(buyer)
    option = assessment_results(assessment).recommendation.options[0]
    assert option.compliance.verdict != "eligible"
    make_pki(tmp_path)
    pdf = make_signed_pdf(tmp_path)
    Brief.objects.create(
        number=pdf.number,
        language=language,
        status=BriefStatus.APPROVED,
        prepared_by=buyer,
        approved_by=User.objects.create_user("approver8"),
        ruleset_version="test",
        sha256=pdf.sha256,
        unsigned_sha256=pdf.unsigned_sha256,
        assessment=assessment,
        snapshot={"options": [{"key": option.key, "compliance": {"verdict": "eligible"}}]},
    )
    good = tmp_path / "good.pdf"
    good.write_bytes(pdf.signed)
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    with override_settings(BRIEF_SIGNING=signing_settings(tmp_path)):
        page.goto(f"{live_server.url}/brief/verify/")
        page.set_input_files("#id_pdf", str(good))
        page.click("main button[type=submit]")
        verdict = page.locator("#verdict").inner_text()
        words = {"en": ("superseded", "Superseded since"), "zh-hans": ("已过时", "起已过时")}
        assert words[language][0] in verdict
        assert words[language][1] in page.locator("#superseded").inner_text()
        found: dict = {}
        review(page, "verify superseded", found, None)
        assert found == {}
        screenshot(f"verify-superseded-{language}")
