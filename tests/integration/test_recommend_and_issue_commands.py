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
from advisor.presentation.compared import comparison_text
from advisor.presentation.text import render_text
from advisor.recommendation.output import Findings, option_findings, recommendation_document
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
        "declared",
    ):
        assert key in first, key
    assert payload["format"] == 2
    assert set(payload["findings"][0]) == {
        "id",
        "rule",
        "status",
        "severity",
        "citation",
        "message",
    }
    assert option_findings(payload, first)[0]["rule"]
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
def test_format_1_lists_what_format_2_refers_to(language, scenario_file):
    """The previous format (``--format json-1``, kept for one release) is format 2 with each
    option's findings written out, declared facts included."""
    site = {"data_centers": ["example-guian", "jianmi-guiyang"]}
    declared = {"jianmi-guiyang": {"ups_minutes": {"value": 12, "evidence": "UPS test report"}}}
    scenario_file.write_text(json.dumps({**SCENARIO, "site": site, "declared": declared}))
    args = ("recommend", "--input", str(scenario_file), "--language", language, "--format")
    old = json.loads(run(*args, "json-1"))
    new = json.loads(run(*args, "json"))
    assert (new["format"], "format" in old) == (2, False)
    assert any(f["declared"] for o in old["options"] for f in o["findings"])
    assert len(old["options"]) == len(new["options"])
    for before, after in zip(old["options"], new["options"], strict=True):
        assert before["findings"] == option_findings(new, after)
        assert _without(before, "findings") == _without(after, "findings", "declared")


def _without(row: dict, *keys) -> dict:
    return {key: value for key, value in row.items() if key not in keys}


def test_options_cost_and_capacity_are_their_records(scenario_file):
    """Each option's ``cost`` and ``capacity`` are its own ``plain_cost`` and
    ``capacity_record`` (docs/economics.md)."""
    site = {"data_centers": ["example-guian", "example-shanghai-qingpu"]}
    run_ = run_recommendation({**SCENARIO, "site": site})
    payload = recommendation_document(run_, render_text, compared=comparison_text)
    for option, row in zip(run_.recommendation.options, payload["options"], strict=True):
        assert row["cost"] == plain_cost(option)
        assert row["capacity"] == jsonable(capacity_record(option))


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_findings_that_read_the_same_share_an_id_and_others_keep_their_own(language):
    """A finding is listed once for every finding that reads the same: a value written
    differently (1 and 1.5, a code) is its own row."""
    values = (1, 1, True, 1.5, -0.0, 0.0, Decimal("1.0"), Decimal("1.50"), Code("cooling", "air"))
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
    listed = Findings(render_text)
    with translation.override(language):
        ids = [listed.id_of(finding) for finding in findings]
        words = [render_text(f.message) for f in findings]
    by_id = {row["id"]: row for row in listed.rows}
    assert [by_id[i]["message"] for i in ids] == words
    assert len(listed.rows) == len(set(words)) < len(findings)
    assert all((ids[i] == ids[j]) == (words[i] == words[j]) for i in range(9) for j in range(9))
    assert ids[0] == ids[1] == 1 and [row["id"] for row in listed.rows] == sorted(set(ids))


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


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_recommend_table_names_the_hardware_not_its_keys(scenario_file, language):
    """The hardware column names the cards and servers as the catalog does in the reader's
    language (昇腾 910B on a Chinese table), never by their record keys."""
    from vendors.models import Accelerator, ServerModel

    text = run("recommend", "--input", str(scenario_file), "--language", language, "--all")
    keys = set(Accelerator.objects.values_list("key", flat=True))
    keys |= set(ServerModel.objects.values_list("key", flat=True))
    cells = [line.split("  ")[1] for line in text.splitlines()[1:] if " × " in line]
    assert cells
    for cell in cells:
        words = set(cell.translate(str.maketrans("()（）", "    ")).split())
        assert not words & keys, cell
    options = run_recommendation(json.loads(scenario_file.read_text())).recommendation.options
    chinese = language == "zh-hans"
    for option in options:
        card = option.hardware.accelerator
        name = (card.name_zh or card.name) if chinese else card.name
        opening = "（" if chinese else " ("
        assert f"{option.sizing.layout.gpus} × {name}{opening}" in text
    translated = [o for o in options if o.hardware.accelerator.name_zh not in ("", None)]
    translated = [
        o for o in translated if o.hardware.accelerator.name_zh != o.hardware.accelerator.name
    ]
    assert translated, "the scenario's options include a card with its own Chinese name"


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_no_cheapest_of_none(language):
    """When nothing qualifies, the comparison sentence claims no "cheapest of 0"."""
    from advisor.presentation.compared import comparison_text

    class Nothing:
        rankings = {"recommended": ()}
        unpriced = ()

    with translation.override(language):
        text = comparison_text(Nothing())
    assert "0" not in text
    assert text in (
        "No priced option qualifies, so none is the cheapest.",
        "没有已计价的符合条件方案，因此无从比较哪个最便宜。",
    )
