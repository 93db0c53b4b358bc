"""Every claim true (issue 51, items 1, 2, 5, 7, 8): priced and unpriced options are different
answers, the buyer's own room is not a hosting vendor, a choice other than rank 1 carries its
reason, risks are read from the figures, and every printed cost row reproduces."""

import dataclasses
import io
import json
import re
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from django.utils import translation

from advisor.brief import services
from advisor.brief.generation import meta
from advisor.brief.models import Brief
from advisor.brief.render import render_html
from advisor.brief.snapshot import CHEAPER_LISTED, brief_snapshot
from advisor.domain.recommend.risks import figure_risks, memory_risk
from advisor.presentation.compared import comparison_text
from advisor.presentation.text import render_text
from advisor.recommendation.output import recommendation_document
from advisor.recommendation.run import run_recommendation
from advisor.recommendation.services import assessment_results
from advisor.roles import PROCUREMENT_STAFF
from tests.support.api import api_client
from tests.support.assessments import finished_assessment
from tests.support.pdf import pdf_text
from tests.support.scenarios import QWEN_7B_LORA_COMPARED as SCENARIO
from tests.support.scenarios import QWEN_32B_LORA
from tests.support.users import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("brief_ready")]
TODAY = date(2026, 12, 7)
ROOM = {
    "name": "Our Guiyang room",
    "policy_zone": "guizhou",
    "max_kw_per_rack": 12,
    "cooling_available": ["air"],
    "pue": 1.2,
    "power_feeds": 2,
    "ups_minutes": 30,
    "generator_start_s": 15,
}
QUALIFICATIONS = ["idc-licence", "icp-filing", "iso-27001", "mlps-3"]


def one_line(text: str) -> str:
    return " ".join(text.split())


# --- 1. Priced and unpriced are different answers ----------------------------------------------


def recommendation_json(run) -> dict:
    return recommendation_document(run, render_text, compared=comparison_text)


def test_recommend_all_counts_no_unpriced_option_as_qualifying():
    run = run_recommendation(QWEN_32B_LORA, today=TODAY)
    with translation.override("en"):
        payload = recommendation_json(run)
    rows = payload["options"]
    assert not [r["key"] for r in rows if r["qualifies"] and r["cost"] is None]
    unpriced = [r for r in rows if r["unpriced"]]
    assert unpriced, "the seeded catalog has servers without a price"
    assert payload["unpriced"] == len(unpriced)
    assert payload["qualifying"] == sum(r["qualifies"] for r in rows)
    assert all(r["cost"] is None and not r["qualifies"] for r in unpriced)
    assert all(r["mode"] in ("buy", "rent", "own") for r in unpriced)  # the mode is kept
    # Qualifying (priced) options come first, then the unpriced ones, then the rest.
    standing = [0 if r["qualifies"] else 1 if r["unpriced"] else 2 for r in rows]
    assert standing == sorted(standing)
    assert f"Cheapest of {payload['qualifying']} priced options" in payload["compared"]
    assert f"{len(unpriced)} more meet the requirements but are unpriced" in payload["compared"]
    with translation.override("zh-hans"):
        chinese = recommendation_json(run)["compared"]
    assert f"在 {payload['qualifying']} 个已计价的符合条件方案中最便宜" in chinese
    assert f"另有 {len(unpriced)} 个方案满足要求但未计价，无法比较" in chinese


def test_the_table_marks_unpriced_options_and_says_how_many_were_compared(tmp_path):
    path = tmp_path / "job.json"
    path.write_text(json.dumps(SCENARIO), encoding="utf-8")
    out = io.StringIO()
    call_command("recommend", "--input", str(path), "--all", stdout=out)
    text = out.getvalue()
    assert re.search(r"^unpriced\s", text, re.MULTILINE)
    assert "priced options that qualify" in text and "could not be compared" in text


def test_the_same_server_has_the_same_purchase_price_in_every_site_and_the_own_room():
    hosted = run_recommendation(SCENARIO, today=TODAY).recommendation.options
    room = {**SCENARIO, "site": {"room": ROOM}}
    own = run_recommendation(room, today=TODAY).recommendation.options
    prices = {}
    for option in (*hosted, *own):
        cost = option.cost
        if option.is_cloud or cost is None or option.mode == "rent":
            continue
        purchase = next(line for line in cost.lines if line.item == "purchase")
        prices.setdefault(option.hardware.server.key, set()).add(purchase.unit_price_cny)
    assert "dgx-h200" in prices  # priced by its board's offer, in the own room too
    assert all(len(found) == 1 for found in prices.values()), prices
    priced_here = {o.hardware.server.key for o in hosted if o.cost and o.mode == "buy"}
    # Beside the room the cloud is offered too (decision 0101): the room's own options.
    priced_in_room = {o.hardware.server.key for o in own if o.cost and o.mode == "own"}
    assert priced_here == priced_in_room


# --- 2. The own room is the buyer's own ----------------------------------------------------------


def test_an_own_room_with_vendor_qualifications_still_has_own_room_options():
    document = {
        **SCENARIO,
        "site": {"room": ROOM},
        "procurement": {"modes": ["buy"], "qualifications": QUALIFICATIONS},
    }
    run = run_recommendation(document, today=TODAY)
    qualifying = run.recommendation.rankings["recommended"]
    assert qualifying and all(o.is_own_room for o in qualifying)
    for option in run.recommendation.options:
        rules = {f.rule_id for f in option.compliance.findings}
        assert not {r for r in rules if r.startswith("VENDOR-")}, option.key
        assert not any(code.startswith("required:") for code in option.reason_codes)
        # No room check awaits a vendor (the server's own checks are its supplier's).
        assert all(f.area == "hardware" for f in option.compliance.unknown_blockers)
    best = qualifying[0]
    internal = {f.rule_id for f in best.compliance.internal_checks}
    assert internal and all(r.startswith("SITE-") for r in internal)  # the facilities team's


def test_the_memo_says_vendor_qualifications_skip_the_own_room_and_lists_its_checks():
    document = {
        **SCENARIO,
        "site": {"room": ROOM},
        "procurement": {"modes": ["buy"], "qualifications": QUALIFICATIONS},
    }
    run = run_recommendation(document, today=TODAY)
    memo = brief_snapshot(
        scenario=run.scenario,
        procurement=run.procurement,
        recommendation=run.recommendation,
        chosen_key=None,
        today=TODAY,
    )["memo"]
    assert memo["vendor_rules_skipped"] and memo["internal_checks"]
    assert all(f["rule_id"].startswith("HW-") for f in memo["unknown_vetoes"])


# --- 1 and 5: the memo counts, names the cheaper options and prints the reason -----------------


@pytest.fixture
def buyer():
    return User.objects.create_user("buyer-claims")


def issued(buyer, capture, option_key=None, language="en", reason=""):
    with capture(execute=True):
        brief = services.issue_brief(
            user=buyer, document=SCENARIO, option_key=option_key, language=language, reason=reason
        )
    brief.refresh_from_db()
    assert brief.ready, brief.failure
    return brief


COUNTS = {
    "en": "Compared: {compared} priced; {unpriced} more meet the requirements but are unpriced "
    "and could not be compared, among them",
    "zh-hans": "参与比较：{compared} 个已计价方案；另有 {unpriced} 个方案满足要求但未计价，无法比较，其中包括",
}
REASON = {
    "en": "Our policy buys servers; the rental is excluded",
    "zh-hans": "公司政策要求购买服务器",
}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_memo_says_how_many_were_compared_and_prints_the_reason(
    buyer, tmp_path, language, django_capture_on_commit_callbacks
):
    recommendation = run_recommendation(SCENARIO).recommendation
    ranked = recommendation.rankings["recommended"]
    chosen = next(o for o in ranked[1:] if o.mode == "buy")
    brief = issued(
        buyer, django_capture_on_commit_callbacks, chosen.key, language, REASON[language]
    )
    memo = brief.snapshot["memo"]
    assert memo["compared"] == len(ranked) and memo["unpriced"] == len(recommendation.unpriced)
    assert memo["reason"] == REASON[language]
    text = one_line(pdf_text(brief.pdf, tmp_path, first=1, last=2, name=f"brief-{brief.pk}.pdf"))
    expected = COUNTS[language].format(compared=len(ranked), unpriced=len(recommendation.unpriced))
    assert one_line(expected) in text
    assert REASON[language] in text
    # Every cheaper qualifying option is named, or the cheapest of each mode and site.
    cheaper = [o for o in ranked if o.cost_cny < chosen.cost_cny]
    listed = {o["key"] for o in memo["cheaper"]}
    assert listed <= {o.key for o in cheaper}
    places = {(o.mode, o.site.data_center.key or o.cloud.key) for o in cheaper}
    assert len(listed) + memo["cheaper_more"] + memo["cheaper_elsewhere"] == len(cheaper)
    named_places = {
        (o.mode, o.site.data_center.key or o.cloud.key) for o in cheaper if o.key in listed
    }
    elsewhere = [
        o for o in cheaper if (o.mode, o.site.data_center.key or o.cloud.key) not in named_places
    ]
    assert memo["cheaper_elsewhere"] == len(elsewhere)
    assert len(listed) >= min(len(cheaper), len(places), CHEAPER_LISTED)


def test_the_same_server_at_another_site_is_named_among_the_cheaper_options():
    recommendation = run_recommendation(SCENARIO, today=TODAY).recommendation
    ranked = list(recommendation.rankings["recommended"])
    pairs = [
        (a, b)
        for a in ranked
        for b in ranked
        if a.mode == b.mode == "buy"
        and a.hardware.server.key == b.hardware.server.key
        and a.cost_cny < b.cost_cny
    ]
    assert pairs, "the compared sites price the same server apart"
    cheaper_site, chosen = pairs[0]
    run = run_recommendation(SCENARIO, today=TODAY)
    memo = brief_snapshot(
        scenario=run.scenario,
        procurement=run.procurement,
        recommendation=recommendation,
        chosen_key=chosen.key,
        today=TODAY,
    )["memo"]
    assert cheaper_site.key in {o["key"] for o in memo["cheaper"]}


# --- 5. The reason is asked for on the page, the API and the command -------------------------


@pytest.fixture
def assessment(client):
    user = make_user("reason-buyer", PROCUREMENT_STAFF, password="pw")
    client.force_login(user)
    return finished_assessment(user)


def second(assessment):
    return assessment_results(assessment).recommendation.rankings["recommended"][1]


def test_the_page_asks_for_a_reason_for_another_option_and_keeps_it(client, assessment):
    option = second(assessment)
    page = reverse("results:option", args=(assessment.pk, option.key))
    html = client.get(page, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'name="reason"' in html and "Why this option rather than rank 1?" in html
    first = assessment_results(assessment).recommendation.rankings["recommended"][0]
    top = client.get(reverse("results:option", args=(assessment.pk, first.key))).content
    assert b'name="reason"' not in top
    posted = {"assessment": assessment.pk, "option": option.key, "language": "en"}
    response = client.post(reverse("brief:issue"), {**posted, "reason": "   "})
    assert response["Location"] == f"{page}#issue-reason" and not Brief.objects.exists()
    html = client.get(page, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "This option is not rank 1: say why you chose it" in html
    assert 'aria-invalid="true"' in html
    # Refused for another cause (the options were computed again): the text waits on the page.
    stale = {**posted, "computed": "00000000-0000-0000-0000-000000000000"}
    client.post(reverse("brief:issue"), {**stale, "reason": "Domestic policy"})
    assert "Domestic policy</textarea>" in client.get(page).content.decode()
    assert 'name="reason"' in client.get(page).content.decode()  # kept once, then gone
    assert "Domestic policy</textarea>" not in client.get(page).content.decode()
    response = client.post(reverse("brief:issue"), {**posted, "reason": "Domestic policy"})
    brief = Brief.objects.get()
    assert response["Location"] == reverse("brief:detail", args=(brief.pk,))
    assert brief.snapshot["memo"]["reason"] == "Domestic policy"


def test_the_api_refuses_another_option_without_a_reason(client, assessment):
    api = api_client(assessment.owner)
    url = f"/api/assessments/{assessment.pk}/briefs"
    refused = api.post(url, {"option": second(assessment).key}, content_type="application/json")
    assert refused.status_code == 400 and refused.json()["errors"][0]["field"] == "reason"
    results = api.get(f"/api/assessments/{assessment.pk}/results").json()
    assert results["unpriced"] == len(assessment_results(assessment).recommendation.unpriced)


def test_the_command_requires_a_reason_for_another_option(tmp_path, one_page_briefs):
    make_user("cli-buyer", PROCUREMENT_STAFF)
    path = tmp_path / "job.json"
    path.write_text(json.dumps(SCENARIO), encoding="utf-8")
    arguments = ["issue_brief", "--input", str(path), "--user", "cli-buyer", "--option", "2"]
    with pytest.raises(CommandError, match="reason: required"):
        call_command(*arguments, "--output", str(tmp_path / "b.pdf"))
    out = io.StringIO()
    call_command(
        *arguments, "--reason", "Bought, as policy asks", "--output", str(tmp_path / "b.pdf"),
        stdout=out,
    )  # fmt: skip
    assert Brief.objects.get().snapshot["memo"]["reason"] == "Bought, as policy asks"


# --- 7. Risks from the figures ----------------------------------------------------------------


def test_a_memory_margin_inside_the_band_is_a_risk_on_page_two_and_in_the_decision():
    run = run_recommendation(SCENARIO, today=TODAY)
    best = run.recommendation.rankings["recommended"][0]
    sizing = best.sizing
    tight = dataclasses.replace(best, sizing=dataclasses.replace(
        sizing, memory_high_gib=sizing.capacity_gib + 6.6
    ))  # fmt: skip
    assert memory_risk(best) is None or sizing.memory_high_gib > sizing.capacity_gib
    risk = memory_risk(tight)
    with translation.override("en"):
        text = render_text(risk)
    assert "fits at the estimate, not at the upper edge of its band" in text
    assert risk in figure_risks(tight, run.recommendation)
    with translation.override("zh-hans"):
        assert "按估算值可以容纳，但按估算区间上限" in render_text(risk)


def test_the_risks_are_printed_on_page_two(buyer):
    brief = services.issue_brief(user=buyer, document=SCENARIO, language="en")  # HTML read: no PDF
    snapshot = json.loads(json.dumps(brief.snapshot))
    snapshot["memo"]["risks"] = [
        {"template": "Memory: {need:,.1f} of {have:,.1f} GiB per GPU fits at the estimate, not "
         "at the upper edge of its band ({high:,.1f} GiB); test the longest sequences before "
         "ordering, or choose more GPUs.", "params": {"need": 74.2, "have": 75.2, "high": 81.8}}
    ]  # fmt: skip
    html = render_html(snapshot, meta(brief, approved=False))
    memo = one_line(re.sub(r"<[^>]+>", " ", html.split('id="risks-open"')[1].split("</ul>")[0]))
    assert "74.2 of 75.2 GiB per GPU fits at the estimate" in memo


# --- 8. Printed lines reproduce -------------------------------------------------------------

MONEY = r"-?(?:¥\s?)?-?[\d,]+(?:\.\d+)?(?:\s?元)?"
# A cost row as pdftotext -layout writes it: "0.562 元 / 千瓦时   55,995 千瓦时   31,469.19 元"
# (the quantity's unit is the unit price's, in English counted: "/ year   3 years").
ROW = re.compile(
    rf"(?P<unit_price>{MONEY})\s*/\s*(?P<unit>\S+)\s+(?P<quantity>[\d,]+(?:\.\d+)?)\s*"
    rf"(?P=unit)s?\s+(?P<amount>{MONEY})"
)
PROGRAMME = {**SCENARIO, "procurement": {"usage": "programme", "runs_per_year": 12, "years": 3}}


def _number(text: str) -> Decimal:
    return Decimal(re.sub(r"[¥元,\s]", "", text))


def reproduce(rows) -> int:
    """Each row's printed unit price × printed quantity, to the fen, is its printed amount."""
    for row in rows:
        price, quantity, amount = (_number(row[k]) for k in ("unit_price", "quantity", "amount"))
        product = (price * quantity).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
        assert product == abs(amount), row
    return len(rows)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_every_printed_cost_row_of_a_brief_reproduces(
    buyer, tmp_path, language, django_capture_on_commit_callbacks
):
    ranked = run_recommendation(PROGRAMME).recommendation.rankings["recommended"]
    bought = next(
        o for o in ranked if o.mode == "buy" and o.site.data_center.key == "example-guian"
    )
    with django_capture_on_commit_callbacks(execute=True):
        brief = services.issue_brief(
            user=buyer, document=PROGRAMME, option_key=bought.key, language=language
        )
    brief.refresh_from_db()
    text = pdf_text(brief.pdf, tmp_path, layout=True, name=f"brief-{brief.pk}.pdf")
    rows = [m.groupdict() for m in ROW.finditer(text)]
    items = {line["item"] for line in brief.snapshot["memo"]["cost"]["lines"]}
    assert {"purchase", "electricity", "maintenance"} <= items
    assert reproduce(rows) >= len(brief.snapshot["memo"]["cost"]["lines"])
    assert re.search(r"0\.562\s*(元)?\s*/", text)  # the tariff as used, not 0.56
    assert re.search(r"[\d,]+\.00\s*(元)?\s*/\s*(year|年)", text)  # maintenance by the year


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_every_printed_cost_row_of_the_option_page_reproduces(client, assessment, language):
    options = assessment_results(assessment).recommendation.rankings["recommended"]
    for option in [o for o in options if o.mode == "buy"][:2] + [options[0]]:
        url = reverse("results:option", args=(assessment.pk, option.key))
        html = client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
        table = html.split('id="cost-lines"')[1].split("</table>")[0]
        cells = [
            [re.sub(r"<[^>]+>", "", cell).replace("\xa0", " ").strip() for cell in row]
            for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)
            for row in [re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
            if len(row) == 4 and "/" in row[1]
        ]
        rows = [
            {
                "unit_price": cell[1].split("/")[0],
                "quantity": cell[2].split()[0],
                "amount": cell[3],
            }
            for cell in cells
        ]
        assert reproduce(rows) == len(option.cost.lines) + (1 if option.cost.resale else 0)


WIZARD_ROOM = {
    "mode": "own",
    "room_name": "Our Guiyang room",
    "province": "guizhou",
    "max_kw_per_rack": "12",
    "pue": "1.2",
    "power_feeds": "2",
    "cooling_available": ["air"],
}


def test_the_results_page_of_an_own_room_with_qualifications(client, assessment, monkeypatch):
    from advisor.demo_scenarios import PROCUREMENT
    from advisor.domain.i18n import Message

    user = assessment.owner
    procurement = {**PROCUREMENT, "modes": ["buy"], "qualifications": ["iso-27001", "mlps-3"]}
    room = finished_assessment(user, site=WIZARD_ROOM, procurement=procurement)
    run = assessment_results(room)
    assert run.recommendation.rankings["recommended"]  # own-room options still qualify
    risk = Message("Memory: {need:,.1f} of {have:,.1f} GiB per GPU fits at the estimate, not at "
                   "the upper edge of its band ({high:,.1f} GiB); test the longest sequences "
                   "before ordering, or choose more GPUs.", {"need": 74.2, "have": 75.2, "high": 81.8})  # fmt: skip
    monkeypatch.setattr("advisor.results.views.figure_risks", lambda option, rec: (risk,))
    for language, words in (
        ("en", ("apply to hosting vendors and cloud providers only", "74.2 of 75.2 GiB")),
        ("zh-hans", ("仅适用于托管服务商和云服务商", "每张 GPU 需要 74.2 GiB")),
    ):
        html = client.get(
            reverse("results:list", args=(room.pk,)), HTTP_ACCEPT_LANGUAGE=language
        ).content.decode()
        decision = html.split('id="decision"')[1].split("</section>")[0]
        assert 'id="vendor-rules-note"' in decision and words[0] in decision
        assert 'id="decision-risks"' in decision and words[1] in decision


def test_low_utilisation_and_a_stale_export_control_record_are_risks():
    from advisor.domain.recommend.risks import (
        UTILISATION_FLOOR,
        export_control_risk,
        utilisation_risk,
    )

    run = run_recommendation(SCENARIO, today=TODAY)
    best = run.recommendation.rankings["recommended"][0]
    time = best.sizing.time
    slow = dataclasses.replace(
        best, sizing=dataclasses.replace(best.sizing, time=dataclasses.replace(
            time, model_flops_utilisation=UTILISATION_FLOOR / 5
        ))
    )  # fmt: skip
    with translation.override("en"):
        assert "below the 10% floor" in render_text(utilisation_risk(slow))
    busy = dataclasses.replace(
        best, sizing=dataclasses.replace(best.sizing, time=dataclasses.replace(
            time, model_flops_utilisation=UTILISATION_FLOOR * 3
        ))
    )  # fmt: skip
    assert utilisation_risk(busy) is None
    stale = next(
        o for o in run.recommendation.rankings["recommended"]
        if o.hardware.availability and o.hardware.availability.as_of
        and (TODAY - o.hardware.availability.as_of).days > 90
    )  # fmt: skip
    with translation.override("zh-hans"):
        assert "请向供应商确认仍可供货" in render_text(export_control_risk(stale))


def test_a_site_difference_resting_on_a_one_sided_demand_charge_is_a_risk():
    from tests.support.scenarios import QWEN_7B_LORA

    run = run_recommendation(QWEN_7B_LORA, today=TODAY)
    guian = next(
        o for o in run.recommendation.rankings["recommended"]
        if o.mode == "buy" and o.site.data_center.key == "example-guian"
    )  # fmt: skip
    assert guian.economics.inputs.site.demand_charge_cny_per_kw_month > 0
    found = [r for r in figure_risks(guian, run.recommendation) if "demand charge" in r.template]
    assert len(found) == 1  # one line, however many sites
    with translation.override("en"):
        assert "of demand charge that only one side's figures have" in render_text(found[0])
    with translation.override("zh-hans"):
        assert "基本电费" in render_text(found[0])
