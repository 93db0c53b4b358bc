import json
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import translation

from advisor.brief.models import Brief
from advisor.brief.verification import verify_upload
from advisor.domain.compliance.base import Area, Finding, Severity, Status
from advisor.domain.i18n import Code, Message
from advisor.domain.plain import jsonable
from advisor.domain.recommend.records import capacity_record, plain_cost
from advisor.management.cli import display_width
from advisor.management.commands.recommend import _shared_row, json_text, recommendation_json
from advisor.presentation.text import render_text
from advisor.recommendation.run import run_recommendation
from advisor.roles import PROCUREMENT_STAFF
from tests.support.briefs import signing_settings
from tests.support.catalog import load_catalog
from tests.support.scenarios import QWEN_7B_LORA as SCENARIO
from tests.support.users import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def seeded(tmp_path, pki_dir, settings):
    load_catalog()
    settings.BRIEF_SIGNING = signing_settings(pki_dir)
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def scenario_file(tmp_path):
    path = tmp_path / "scenario.json"
    site = {"data_centers": ["example-guian", "example-shanghai-qingpu"]}
    path.write_text(json.dumps({**SCENARIO, "site": site}))
    return path


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_recommend_json_has_the_documented_keys(scenario_file):
    payload = json.loads(run("recommend", "--input", str(scenario_file), "--format", "json"))
    assert payload["options"]
    first = payload["options"][0]
    for key in (
        "rank",
        "accelerator",
        "gpus",
        "server",
        "data_center",
        "vendor",
        "fits",
        "memory_per_gpu_gib",
        "time_to_train_hours",
        "capacity",
        "mode",
        "cost",
        "verdict",
        "findings",
    ):
        assert key in first, key
    assert {"rule", "status", "citation"} <= set(first["findings"][0])
    # Every priced option's cash out is its lines: unit price × quantity, summed (docs/economics.md).
    priced = [o["cost"] for o in payload["options"] if o["cost"]]
    assert priced
    for cost in priced:
        for line in cost["lines"]:
            amount = Decimal(line["unit_price_cny"]) * Decimal(line["quantity"])
            assert abs(amount - Decimal(line["amount_cny"])) <= Decimal("0.01"), line
        total = sum(Decimal(line["amount_cny"]) for line in cost["lines"])
        assert total == Decimal(cost["cash_out_cny"])
        resale = Decimal(cost["resale"]["amount_cny"]) if cost["resale"] else 0
        assert total + resale == Decimal(cost["net_of_resale_cny"])
    assert [o["rank"] for o in payload["options"]] == list(range(1, len(payload["options"]) + 1))
    assert {o["data_center"] for o in payload["options"] if o["capacity"]["how"] != "cloud"} == {
        "example-guian",
        "example-shanghai-qingpu",
    }


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_recommend_json_text_is_json_dumps_indented(language):
    """``json_text`` writes each shared finding row once (issue 34); the text is byte for byte
    what ``json.dumps(indent=2)`` writes, with declared facts, with a NUL of its own, with no
    finding and with a list of rows two options share."""
    site = {"data_centers": ["example-guian", "jianmi-guiyang"]}
    declared = {"jianmi-guiyang": {"ups_minutes": {"value": 12, "evidence": "UPS test report"}}}
    run_ = run_recommendation({**SCENARIO, "site": site, "declared": declared})
    with translation.override(language):
        payload = recommendation_json(run_)
    assert any(f["declared"] for o in payload["options"] for f in o["findings"])
    assert json_text(payload) == json.dumps(payload, indent=2, ensure_ascii=False)
    first = payload["options"][0]
    nul = {**payload, "options": [{**first, "findings": [{"message": "\x00"}]}]}
    assert json_text(nul) == json.dumps(nul, indent=2, ensure_ascii=False)
    # Options with no finding, and two options holding the very same list of rows.
    rows = first["findings"]
    shared = {**payload, "options": [{**first, "findings": []}, first, {**first, "findings": rows}]}
    assert json_text(shared) == json.dumps(shared, indent=2, ensure_ascii=False)


def test_options_share_cost_and_capacity_records_that_read_the_same():
    """The JSON keeps one cost and one capacity record per what they read (issue 34): each
    option's records are its own ``plain_cost`` and ``capacity_record``, and the rent of one
    server at two sites is one record."""
    site = {"data_centers": ["example-guian", "example-shanghai-qingpu"]}
    run_ = run_recommendation({**SCENARIO, "site": site})
    options = run_.recommendation.options
    payload = recommendation_json(run_)
    for option, row in zip(options, payload["options"], strict=True):
        assert row["cost"] == plain_cost(option)
        assert row["capacity"] == jsonable(capacity_record(option))
    rents = [row for row in payload["options"] if row["mode"] == "rent"]
    by_server = {}
    for row in rents:
        by_server.setdefault(row["server"], []).append(row)
    shared = [rows for rows in by_server.values() if len(rows) > 1]
    assert shared
    assert all(rows[0]["cost"] is rows[1]["cost"] for rows in shared)
    assert all(rows[0]["capacity"] is rows[1]["capacity"] for rows in shared)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_findings_that_say_the_same_share_a_row_and_others_keep_their_own(language):
    """A row is worded once for the findings that say the same (issue 34): a value of another
    type or precision reads as its own (1, True, 1.0, -0.0, Decimal 1.0 and 1.00)."""
    values = (1, 1, True, 1.0, -0.0, 0.0, Decimal("1.0"), Decimal("1.00"), Code("cooling", "air"))
    findings = [
        Finding(
            rule_id="SITE-RACK-POWER",
            area=Area.SITE,
            title="t",
            explanation="e",
            citation="c",
            severity=Severity.BLOCKER,
            status=Status.PASS,
            message=Message("{full} kW per rack at full load", {"full": value}),
        )
        for value in values
    ]
    worded = {}
    with translation.override(language):
        rows = [_shared_row(finding, worded) for finding in findings]
        assert [row["message"] for row in rows] == [render_text(f.message) for f in findings]
    assert rows[0] is rows[1]


def test_recommend_table_in_chinese(scenario_file):
    """Sites and verdicts in the reader's language, columns lined up in terminal columns."""
    text = run("recommend", "--input", str(scenario_file), "--language", "zh-hans", "--all")
    lines = text.strip().splitlines()
    assert "演示:贵安规划示例(非真实站点)" in text
    assert "example-guian" not in text
    assert "不合格" in text
    for verdict in ("eligible", "incomplete", "not-eligible"):
        assert verdict not in text
    starts = {display_width(line[: line.index("演示")]) for line in lines if "演示" in line}
    assert starts == {display_width(lines[0][: lines[0].index("数据中心")])}
    verdicts = {display_width(line[: line.index("不合格")]) for line in lines if "不合格" in line}
    assert verdicts == {display_width(lines[0][: lines[0].index("结论")])}


def test_size_table_in_chinese_says_gpus_per_server_in_chinese(scenario_file):
    text = run("size", "--input", str(scenario_file), "--language", "zh-hans")
    assert "每台服务器 8 张" in text
    assert "per server" not in text


@pytest.mark.parametrize(
    ("content", "field"),
    [("{", "input: not valid JSON"), ('{"model": {}}', "model"), ("[1]", "input: must be")],
)
def test_recommend_bad_input_exits_2_naming_the_field(tmp_path, content, field):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(CommandError) as error:
        call_command("recommend", "--input", str(path))
    assert error.value.returncode == 2
    assert field in str(error.value)


def test_issue_brief_writes_a_verifiable_pdf(scenario_file, tmp_path):
    make_user("buyer", PROCUREMENT_STAFF)
    output = tmp_path / "brief.pdf"
    text = run(
        "issue_brief",
        "--input",
        str(scenario_file),
        "--user",
        "buyer",
        "--language",
        "en",
        "--output",
        str(output),
    )
    brief = Brief.objects.get()
    assert brief.number in text
    assert verify_upload(output.read_bytes()).ok


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--user", "ghost"], "user"), (["--user", "buyer", "--option", "999"], "option")],
)
def test_issue_brief_bad_arguments(scenario_file, tmp_path, args, message):
    make_user("buyer", PROCUREMENT_STAFF)
    with pytest.raises(CommandError) as error:
        call_command(
            "issue_brief", "--input", str(scenario_file), "--output", str(tmp_path / "x"), *args
        )
    assert error.value.returncode == 2 and message in str(error.value)
