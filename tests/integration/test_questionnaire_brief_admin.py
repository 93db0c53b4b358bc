"""Declared facts in the brief (with evidence, and the open questions) and promoted by admin."""

from datetime import date

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import override_settings
from django.urls import reverse

from advisor.brief import services
from advisor.questionnaire.models import AnswerSheet
from tests.integration.test_questionnaire import QWEN_32B_LORA, top_option
from tests.support.assessments import finished_assessment
from tests.support.catalog import load_catalog
from tests.support.pdf import pdf_text
from vendors.models import Certificate, DataCenter

pytestmark = pytest.mark.django_db
DECLARED = {
    "jianmi-guiyang": {"ups_minutes": {"value": 30, "evidence": "UPS acceptance report 2026-03"}},
    "jianmi": {
        "mlps.last_assessment_date": {"value": "2026-06-01", "evidence": "测评报告 No. 52-26"}
    },
}


@pytest.fixture
def catalog():
    load_catalog()


@pytest.mark.usefixtures("brief_ready")
@pytest.mark.parametrize(
    ("language", "phrases"),
    [
        ("en", ["Open questions for the vendor", "Facts declared by the vendor", "Questions still open", "UPS acceptance report 2026-03"]),
        ("zh-hans", ["向供应商提出的待答问题", "供应商申报的事实", "尚未回答的问题", "测评报告 No. 52-26"]),
    ],
)  # fmt: skip
def test_brief_lists_declared_facts_and_open_questions(
    catalog, tmp_path, language, phrases, django_capture_on_commit_callbacks
):
    buyer = User.objects.create_user("buyer-q")
    document = {**QWEN_32B_LORA, "declared": DECLARED}
    with django_capture_on_commit_callbacks(execute=True):
        # The brief for the top option hosted at the Guiyang site (its vendor answered).
        _, option = top_option(document)
        brief = services.issue_brief(
            user=buyer,
            document=document,
            option_key=option.key,
            language=language,
            inputs={"declared": DECLARED},
        )
    brief.refresh_from_db()
    section = brief.snapshot["vendor_questionnaire"]
    assert {(d["subject"], d["fact"]) for d in section["declared"]} == {
        ("jianmi-guiyang", "ups_minutes"),
        ("jianmi", "mlps.last_assessment_date"),
    }
    assert section["declared_by_rule"]["SITE-UPS"] == ["ups_minutes"]
    open_ids = {q["id"] for q in section["open"]}
    assert "jianmi-guiyang:inlet_temp_min_c" in open_ids
    assert "jianmi-guiyang:ups_minutes" not in open_ids
    text = " ".join(pdf_text(brief.pdf, tmp_path).split())
    for phrase in phrases:
        assert phrase in text, phrase
    # The declared facts read as a table, never as JSON or a Python repr.
    assert '"ups_minutes"' not in text
    assert "'value'" not in text


@pytest.fixture
def admin_client(client, catalog):
    with override_settings(PRODUCTION=False, DEMO_PASSWORD="pw"):
        call_command("setup_demo", verbosity=0)
    client.force_login(User.objects.get(username="admin"))
    return client


def test_admin_promotes_a_declared_fact_with_history_and_source(admin_client):
    buyer = User.objects.get(username="buyer")
    assessment = finished_assessment(
        buyer, site={"mode": "catalog", "data_center": "jianmi-guiyang"}
    )
    sheet = AnswerSheet.objects.create(
        assessment=assessment, uploaded_by=buyer, original_name="answers.xlsx", sha256="0" * 64,
        received_on=date(2026, 11, 20), declared=DECLARED, applied_at="2026-11-21T10:00:00+08:00",
    )  # fmt: skip
    changelist = reverse("admin:questionnaire_answersheet_changelist")
    form = admin_client.post(
        changelist, {"action": "promote_declared", "_selected_action": [sheet.pk]}
    )
    assert form.status_code == 200
    key = f"{sheet.pk}:jianmi-guiyang:ups_minutes"
    assert key in form.content.decode()
    history_before = DataCenter.history.filter(key="jianmi-guiyang").count()
    done = admin_client.post(
        changelist,
        {"action": "promote_declared", "_selected_action": [sheet.pk], "apply": "1",
         "fact": [key, f"{sheet.pk}:jianmi:mlps.last_assessment_date"]},
    )  # fmt: skip
    assert done.status_code == 302
    dc = DataCenter.objects.get(key="jianmi-guiyang")
    assert dc.ups_minutes == 30
    assert (
        "Declared by the vendor on 2026-11-20, evidence: UPS acceptance report 2026-03" in dc.source
    )
    latest = DataCenter.history.filter(key="jianmi-guiyang").order_by("-history_date").first()
    assert DataCenter.history.filter(key="jianmi-guiyang").count() == history_before + 1
    assert latest.history_change_reason.startswith("Declared by the vendor on 2026-11-20")
    mlps = Certificate.objects.filter(vendor__key="jianmi", kind="mlps").order_by("-pk").first()
    assert mlps.last_assessment_date == date(2026, 6, 1)
    assert "测评报告 No. 52-26" in mlps.source


def test_an_answer_sheets_file_is_served_through_a_permission_check(admin_client, client):
    """The admin links the uploaded workbook to a view that checks the permission, never to
    /media/ (not served in production, and open to anyone holding the link)."""
    from django.core.files.base import ContentFile

    from advisor.questionnaire.xlsx import write_workbook

    buyer = User.objects.get(username="buyer")
    assessment = finished_assessment(buyer)
    workbook = write_workbook([], "test")
    sheet = AnswerSheet(
        assessment=assessment, uploaded_by=buyer, original_name="vendor answers.xlsx",
        sha256="0" * 64, received_on=date(2026, 11, 20),
    )  # fmt: skip
    sheet.file.save("answers.xlsx", ContentFile(workbook), save=False)
    sheet.save()
    page = admin_client.get(reverse("admin:questionnaire_answersheet_change", args=[sheet.pk]))
    html = page.content.decode()
    file_url = reverse("admin:questionnaire_answersheet_file", args=[sheet.pk])
    assert f'href="{file_url}"' in html and "/media/" not in html
    download = admin_client.get(file_url)
    assert download.status_code == 200
    assert b"".join(download.streaming_content) == workbook
    assert "attachment" in download["Content-Disposition"]
    # Staff without the answer sheets' permission get 403; anyone else the admin's sign-in.
    from tests.support.users import make_user

    client.force_login(make_user("staff-only", is_staff=True))
    assert client.get(file_url).status_code == 403
    client.logout()
    assert client.get(file_url).status_code == 302
