"""The verify page judges the approval signature on its own (decision 0121): an approved brief
on record whose approval signature names someone other than the recorded approver is flagged,
in both languages and at 320 px, and passes axe-core."""

import pytest
from django.contrib.auth.models import User
from django.test import override_settings

from advisor.brief.models import Brief, BriefStatus
from advisor.brief.signing import APPROVAL_FIELD, SignatureRequest, sign_pdf_as
from advisor.brief.verify import sha256_hex
from tests.browser.test_accessibility import review
from tests.support.approver_certs import authority, pkcs12_file
from tests.support.briefs import make_pki, make_signed_pdf, signing_settings

pytestmark = pytest.mark.django_db(transaction=True)

HEADLINES = {
    "en": "Issued by us, but the approval signature does not vouch for the recorded approver",
    "zh-hans": "由我们签发，但审批签名不能证明记录在案的审批人",
}
FLAGS = {"en": "not the approver on record", "zh-hans": "不是记录在案的审批人"}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_an_approval_signed_by_another_person_is_flagged(
    page, live_server, screenshot, tmp_path, language
):
    make_pki(tmp_path)
    system = make_signed_pdf(tmp_path, "FT-2026-000031")
    approvers = authority("Test Org Approvers CA")
    (tmp_path / "approvers.pem").write_bytes(approvers.pem)
    someone_else = pkcs12_file(
        "pw", "Chief Financial Officer Li", issuer=approvers, email="cfo@example.org"
    )
    request = SignatureRequest("Approval of FT-2026-000031", field_name=APPROVAL_FIELD)
    approved = sign_pdf_as(system.signed, someone_else, "pw", request, "Guiyang")
    Brief.objects.create(
        number=system.number,
        language="en",
        status=BriefStatus.APPROVED,
        prepared_by=User.objects.create_user("buyer31"),
        approved_by=User.objects.create_user(
            "approver2", email="a2@example.org", first_name="Er", last_name="Zhang"
        ),
        approver_signed=True,
        ruleset_version="test",
        sha256=sha256_hex(approved),
        unsigned_sha256=system.unsigned_sha256,
    )
    path = tmp_path / "approved.pdf"
    path.write_bytes(approved)
    signing = signing_settings(tmp_path)
    signing["TRUST_ROOTS"] = [*signing["TRUST_ROOTS"], tmp_path / "approvers.pem"]
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    with override_settings(BRIEF_SIGNING=signing):
        page.goto(f"{live_server.url}/brief/verify/")
        page.set_input_files("#id_pdf", str(path))
        page.click("main button[type=submit]")
        verdict = page.locator("#verdict").inner_text()
        summary = page.locator(".summary-list").inner_text()
        doubt = page.locator(".approval-doubt").inner_text()
        screenshot(f"verify-approval-signer-{language}")
        page.set_viewport_size({"width": 320, "height": 900})
        screenshot(f"verify-approval-signer-{language}-320")
        page.set_viewport_size({"width": 1280, "height": 900})
        found = {}
        review(page, "verify approval signer", found, None)
    assert verdict.strip() == HEADLINES[language]
    assert FLAGS[language] in summary and "approver2" in doubt
    assert not found, found
