"""Vendor questionnaire over the seeded catalog: export, fill, read back, recommend again."""

import io
import json
from datetime import date

import openpyxl
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import translation

from advisor.domain.questionnaire.declared import as_section, validate_declared
from advisor.questionnaire import export
from advisor.questionnaire.xlsx import HEADERS, read_workbook, write_workbook
from advisor.recommendation import questions as services
from advisor.recommendation.output import option_findings
from advisor.recommendation.run import run_recommendation
from tests.support.catalog import load_catalog
from tests.support.scenarios import QWEN_7B_LORA as DEMO_7B_LORA
from tests.support.scenarios import QWEN_32B_LORA as DEMO_32B_LORA

pytestmark = pytest.mark.django_db
TODAY = date(2026, 11, 29)
GUIYANG = "jianmi-guiyang"  # the source article's Guiyang vendor (简米科技)

QWEN_32B_LORA = {
    **DEMO_32B_LORA,
    "micro_batch": 2,
    "grad_accum": 4,
    "hardware": {"accelerator": None, "count": 8, "nodes": 1},
    "parallelism": {**DEMO_32B_LORA["parallelism"], "strategy": "fsdp"},
    "site": {"data_centers": [GUIYANG]},
}

# What a vendor might answer: valid for every question the catalog can raise.
VALID_ANSWERS = {
    "inlet_temp_min_c": 18,
    "inlet_temp_max_c": 25,
    "humidity_min_pct": 40,
    "humidity_max_pct": 60,
    "dew_point_min_c": 5.5,
    "dew_point_max_c": 15,
    "humidity_control": "yes",
    "climate_mean_rh_pct": 80,
    "pue_measured": 1.19,
    "max_kw_per_rack": 40,
    "cooling_available": "air, direct-liquid",
    "power_feeds": 2,
    "ups_minutes": 30,
    "generator_start_s": 15,
    "hvdc": "yes",
    "hvdc_efficiency_pct": 95,
    "floor_load_kg_per_m2": 1200,
    "latency_east_china_ms": 28,
    "latency_south_china_ms": 25,
    "packet_loss_pct": 0.05,
    "rack_fee_cny_per_month": 6500,
    "rack_fee_kw": 10,
    "power_pricing": "pass-through",
    "power_price_cny_per_kwh": 0.5,
    "licence_number": "黔B1-20260001",
    "licence_categories": "B11, B12",
    "licence_valid_until": date(2029, 6, 30),
    "icp_filing_number": "黔ICP备12345678号",
    "iso-27001.number": "ISC-27001-2026-001",
    "iso-27001.iso27001_edition": "2022",
    "iso-27001.valid_until": date(2028, 12, 31),
    "iso-27001.last_surveillance_audit": date(2026, 9, 1),
    "iso-9001.number": "QMS-9001-2026-001",
    "iso-9001.valid_until": date(2028, 12, 31),
    "iso-9001.last_surveillance_audit": date(2026, 9, 1),
    "mlps.number": "52010099001-26001",
    "mlps.mlps_level": 3,
    "mlps.last_assessment_date": date(2026, 6, 1),
    "self_operated_dcs": "yes",
    "has_own_bgp": "yes",
    "onsite_24x7": "yes",
    "spare_part_replacement_hours": 2,
    "fault_response_hours": 4,
    "mttr_hours": 4,
    "compensation_terms": "10% of the monthly fee per hour over the MTTR",
    "cooling": "air",
    "power_max_w": 10200,
    "power_typical_w": 8000,
    "weight_kg": 130,
    "topology": "xgmi-mesh",
    "nic_kind": "roce",
    "nvme_usable_tb": 15,
    "nvme_read_gbs": 12,
    "pytorch_version": "2.5",
    "stack_version": "6.2",
    "china_availability": "licence-required",
    "china_availability_as_of": date(2026, 11, 20),
    "monthly_rent": 150000,
    "lead_time_weeks": 8,
    # a cloud provider's
    "region": "贵州 贵安",
    "region_in_mainland_china": "yes",
    "image_pytorch_version": "2.5",
    "image_stack_version": "8.0",
    "deletion_on_exit": "yes",
    "billing_terms": "per second, no minimum term, stopped instances not billed",
    "instance_interconnect": "hccs-mesh",
}


@pytest.fixture
def catalog():
    load_catalog()


def top_option(document):
    run = run_recommendation(document, today=TODAY)
    # The top option hosted at a data center: cloud options have no site to ask about.
    return run, next(o for o in run.recommendation.options if not o.is_cloud)


def fill(workbook_bytes: bytes, answers: dict) -> bytes:
    book = openpyxl.load_workbook(io.BytesIO(workbook_bytes))
    sheet = book["questionnaire"]
    column = {key: HEADERS.index(key) + 1 for key in HEADERS}
    for row in range(3, sheet.max_row + 1):
        question_id = sheet.cell(row, column["id"]).value
        name = question_id.rsplit(":", 1)[1]
        if name in answers:
            sheet.cell(row, column["answer"]).value = answers[name]
            sheet.cell(row, column["evidence"]).value = f"evidence for {name}"
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def question_ids(data: bytes) -> list[str]:
    sheet = openpyxl.load_workbook(io.BytesIO(data))["questionnaire"]
    return [row[0] for row in sheet.iter_rows(min_row=3, values_only=True)]


def test_filled_questionnaire_leaves_the_top_guiyang_option_without_unknowns(catalog, tmp_path):
    run, option = top_option(QWEN_32B_LORA)
    assert option.site.data_center.key == GUIYANG
    unknown_before = [f.rule_id for f in option.compliance.findings if f.status == "unknown"]
    assert len(unknown_before) > 10

    sheets = {}
    for language in ("zh-hans", "en"):
        with translation.override(language):
            sheets[language] = export.render(run, option, "xlsx")
    ids = question_ids(sheets["en"])
    assert ids == question_ids(sheets["zh-hans"])
    assert len(ids) == len(set(ids))
    asked_rules = {rule for q in services.questions(run, option) for rule in q.rules}
    assert set(unknown_before) <= asked_rules, "every unknown finding has a question"
    price_rows = [i for i in ids if i.endswith(("rack_fee_cny_per_month", "lead_time_weeks"))]
    assert len(price_rows) == 2

    filled = tmp_path / "answers.xlsx"
    filled.write_bytes(fill(sheets["zh-hans"], VALID_ANSWERS))
    out = io.StringIO()
    call_command("questionnaire", "read", str(filled), stdout=out)
    declared = json.loads(out.getvalue())["declared"]
    answered = {f"{subject}:{name}" for subject, facts in declared.items() for name in facts}
    assert answered == set(ids)

    _, after = top_option({**QWEN_32B_LORA, "declared": declared})
    after = next(o for o in run_recommendation(
        {**QWEN_32B_LORA, "declared": declared}, today=TODAY
    ).recommendation.options if o.key == option.key)  # fmt: skip
    still_unknown = [f.rule_id for f in after.compliance.findings if f.status == "unknown"]
    assert still_unknown == []


def test_recommend_command_honours_the_declared_section(catalog, tmp_path):
    document = {
        **QWEN_32B_LORA,
        "declared": {GUIYANG: {"ups_minutes": {"value": 12, "evidence": "UPS test report"}}},
    }
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    out = io.StringIO()
    call_command("recommend", "--input", str(path), "--format", "json", stdout=out)
    document = json.loads(out.getvalue())
    findings = [option_findings(document, o) for o in document["options"]]
    option = next(f for f in findings if any(x["rule"] == "SITE-UPS" for x in f))
    ups = next(f for f in option if f["rule"] == "SITE-UPS")
    assert ups["status"] == "fail"
    assert ups["declared"] == [
        {"subject": GUIYANG, "fact": "ups_minutes", "value": 12, "evidence": "UPS test report"}
    ]


@pytest.mark.parametrize(
    ("name", "answer", "why"),
    [
        ("ups_minutes", "thirty", "must be a number"),
        ("power_feeds", 2.5, "must be a whole number"),
        ("hvdc", "maybe", "must be yes or no"),
        ("licence_valid_until", "30/06/2029", "must be a date written YYYY-MM-DD"),
        ("power_pricing", "metered", "must be one of: fixed, pass-through, included"),
        ("ups_minutes", 9999, "must be between 0 and 600"),
    ],
)
def test_a_wrong_answer_is_refused_with_row_and_column(catalog, tmp_path, name, answer, why):
    run, option = top_option(QWEN_32B_LORA)
    with translation.override("en"):
        data = export.render(run, option, "xlsx")
    ids = question_ids(data)
    row = 3 + next(i for i, qid in enumerate(ids) if qid.endswith(f":{name}"))
    path = tmp_path / "answers.xlsx"
    path.write_bytes(fill(data, {name: answer}))
    with pytest.raises(CommandError) as refused:
        call_command("questionnaire", "read", str(path))
    assert refused.value.returncode == 2
    assert str(refused.value) == f"{path}: row {row}, column G (answer): {why}"


def test_export_command_writes_xlsx_and_pdf(catalog, tmp_path):
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(QWEN_32B_LORA), encoding="utf-8")
    xlsx_path, pdf_path = tmp_path / "q.xlsx", tmp_path / "q.pdf"
    call_command("questionnaire", "export", "--input", str(path), "--option", "1",
                 "--language", "en", "--output", str(xlsx_path))  # fmt: skip
    call_command("questionnaire", "export", "--input", str(path), "--option", "1",
                 "--format", "pdf", "--output", str(pdf_path))  # fmt: skip
    sheet = openpyxl.load_workbook(xlsx_path)["questionnaire"]
    assert [c.value for c in sheet[1]] == list(HEADERS)
    assert sheet.cell(2, 7).value == "Your answer"
    assert pdf_path.read_bytes().startswith(b"%PDF")
    with pytest.raises(CommandError) as missing:
        call_command("questionnaire", "export", "--input", str(path), "--option", "nope",
                     "--output", str(xlsx_path))  # fmt: skip
    assert missing.value.returncode == 2


def test_declared_round_trip_through_a_workbook(catalog):
    run, option = top_option(QWEN_32B_LORA)
    data = fill(write_workbook(services.questions(run, option), "t"), VALID_ANSWERS)
    result = read_workbook(data, TODAY)
    assert result.refusals == ()
    again = validate_declared(as_section(result.declared))
    assert as_section(again) == as_section(result.declared)


def test_the_top_cloud_option_is_asked_of_its_provider_and_can_be_completed(catalog):
    """Issue 51: the questionnaire of the best cloud option is addressed to its provider by
    name and asks what blocks it (region and residency, ISO 27001, MLPS, the instance image)
    and the terms of a cloud contract; applying the answers completes its verdict."""
    document = {**DEMO_7B_LORA, "site": {"data_centers": [GUIYANG]}}
    run = run_recommendation(document, today=TODAY)
    option = next(o for o in run.recommendation.options if o.is_cloud)
    assert option.compliance.verdict == "incomplete"
    provider = option.cloud.provider
    with translation.override("en"):
        assert export.addressee(option) == provider
        assert provider in export.title(option) and "None" not in export.title(option)
        assert option.cloud.key in export.filename(option, "xlsx")
        english = export.render(run, option, "xlsx")
    with translation.override("zh-hans"):
        chinese = export.render(run, option, "xlsx")
        assert (option.cloud.provider_zh or provider) in export.title(option)
    ids = question_ids(english)
    assert ids == question_ids(chinese)
    names = {i.rsplit(":", 1)[1] for i in ids}
    assert {"region", "region_in_mainland_china", "iso-27001.number", "mlps.mlps_level"} <= names
    assert {"deletion_on_exit", "billing_terms", "instance_interconnect"} <= names
    assert {"image_pytorch_version", "image_stack_version"} <= names
    server = option.hardware.server.key
    assert not [i for i in ids if i.startswith(f"{server}:")], "no server question for a cloud"
    subjects = {i.rsplit(":", 1)[0] for i in ids}
    assert subjects <= {option.site.vendor.key, option.cloud.key, option.hardware.accelerator.key}

    result = read_workbook(fill(chinese, VALID_ANSWERS), TODAY)
    declared = as_section(result.declared)
    after_run = run_recommendation({**document, "declared": declared}, today=TODAY)
    after = next(o for o in after_run.recommendation.options if o.key == option.key)
    assert [f.rule_id for f in after.compliance.findings if f.status == "unknown"] == []
    assert after.compliance.verdict in ("eligible", "eligible-with-warnings")
    assert services.questions(after_run, after) == []  # nothing left to ask
