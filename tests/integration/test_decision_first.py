"""Decision first (issue 26): the results page opens with what to do, one row per distinct
choice in rank order, honest verdicts, a way forward from a dead end, and a brief an approver
can sign."""

import io
import json
import zipfile
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from advisor.demo_scenarios import PROCUREMENT
from advisor.recommendation.output import option_findings
from advisor.recommendation.run import run_recommendation
from advisor.results import presenters
from advisor.roles import PROCUREMENT_STAFF
from tests.support.assessments import finished_assessment
from tests.support.catalog import load_catalog
from tests.support.scenarios import QWEN_32B_LORA
from tests.support.users import make_user
from vendors.models import DataCenter

pytestmark = pytest.mark.django_db

ARTICLE_QUALIFICATIONS = ["idc-licence", "icp-filing", "iso-27001", "mlps-3"]
QWEN_32B_MODEL = {"source": "preset", "preset": "qwen2-5-32b", "method": "lora"}
ELIGIBLE = {"eligible", "eligible-with-warnings", "eligible_with_warnings"}


@pytest.fixture
def buyer(client):
    load_catalog()
    user = make_user("buyer", PROCUREMENT_STAFF, password="pw")
    client.force_login(user)
    return user


def page(client, name, *args, language="en", **params):
    response = client.get(reverse(name, args=args), params, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200, response.status_code
    return response


def six_sites() -> list[str]:
    return list(DataCenter.objects.order_by("key").values_list("key", flat=True))[:6]


# --- The decision and one row per choice ---------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_page_opens_with_the_decision_and_rank_one_first(client, buyer, language):
    assessment = finished_assessment(buyer)
    response = page(client, "results:list", assessment.pk, language=language)
    html = response.content.decode()
    rows = response.context["rows"]
    decision = response.context["decision"]
    assert rows[0].rank == 1 and rows[0].option.key == decision.recommended.key
    assert [r.rank for r in rows] == sorted(r.rank for r in rows)  # rank order is display order
    # The paragraph names the option, the runner-up in another mode and the open questions.
    text = html[html.index('id="decision"') : html.index("</section>", html.index('id="decision"'))]
    option_url = reverse("results:option", args=(assessment.pk, decision.recommended.key))
    assert option_url in text
    assert decision.runner_up is not None
    assert decision.runner_up.mode != decision.recommended.mode
    assert reverse("results:option", args=(assessment.pk, decision.runner_up.key)) in text
    assert 'id="open-before-ordering"' in text
    assert html.index('id="decision"') < html.index("options-table")


def test_a_32b_job_over_every_site_shows_at_most_15_rows_before_show_all():
    load_catalog()
    run = run_recommendation(QWEN_32B_LORA)  # no site section: every data center
    assert len({o.site.data_center.key for o in run.recommendation.options if not o.is_cloud}) == (
        DataCenter.objects.count()
    )
    rows = presenters.rows_for(run.recommendation, "recommended")
    shown, hidden = presenters.folded(rows, show_all=False)
    assert 0 < len(shown) <= 15 and hidden > 0
    everything, _ = presenters.folded(rows, show_all=True)
    assert len(everything) == len(shown) + hidden
    # Folding loses nothing: every qualifying option is in exactly one row.
    assert sum(len(r.choice.options) for r in everything) == len(rows)
    # At most one row per accelerator × mode by default, in rank order.
    pairs = [(r.option.hardware.accelerator.key, r.option.mode) for r in shown]
    assert len(pairs) == len(set(pairs))
    assert [r.rank for r in shown] == sorted(r.rank for r in shown)


def test_the_page_with_six_sites_folds_and_shows_all_on_request(client, buyer):
    site = {"mode": "compare", "compare": six_sites()}
    assessment = finished_assessment(buyer, site=site, model=QWEN_32B_MODEL)
    response = page(client, "results:list", assessment.pk)
    assert len(response.context["rows"]) <= 15
    hidden = response.context["hidden"]
    assert (
        hidden > 0 and "?ranking=recommended&amp;sort=rank&amp;all=1" in response.content.decode()
    )
    every = page(client, "results:list", assessment.pk, all="1").context["rows"]
    assert len(every) == len(response.context["rows"]) + hidden


# --- Honest verdicts -------------------------------------------------------------------------


def test_no_option_with_an_unknown_veto_check_is_called_eligible(tmp_path):
    load_catalog()
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(QWEN_32B_LORA))
    out = StringIO()
    call_command("recommend", "--input", str(path), "--format", "json", "--all", stdout=out)
    document = json.loads(out.getvalue())
    unknown_veto = [
        o
        for o in document["options"]
        if any(
            f["status"] == "unknown" and f["severity"] == "blocker"
            for f in option_findings(document, o)
        )
    ]
    assert unknown_veto, "the seeded catalog leaves some veto checks unknown"
    assert all(o["verdict"] not in ELIGIBLE for o in unknown_veto)
    assert {o["verdict"] for o in unknown_veto} <= {"incomplete", "not-eligible"}


def test_the_verdict_on_the_page_is_the_option_s(client, buyer):
    assessment = finished_assessment(buyer)
    rows = page(client, "results:list", assessment.pk).context["rows"]
    option = rows[0].option
    html = page(client, "results:option", assessment.pk, option.key).content.decode()
    assert f"verdict-{option.compliance.verdict}" in html


# --- A way forward from a dead end ---------------------------------------------------------------


@pytest.fixture
def dead_end(client, buyer):
    procurement = {
        "mode": "any",
        "qualifications": ARTICLE_QUALIFICATIONS,
        "usage": "once",
        "rent_min_months": 1,
    }
    site = {"mode": "compare", "compare": ["jianmi-guiyang", *six_sites()[:3]]}
    return finished_assessment(buyer, site=site, procurement=procurement)


def test_nothing_qualifying_names_the_blocking_requirement_and_offers_questionnaires(
    client, dead_end
):
    response = page(client, "results:list", dead_end.pk)
    html = response.content.decode()
    assert response.context["decision"].recommended is None
    assert 'id="blocking-requirements"' in html
    blockers = response.context["blockers"]
    assert blockers and all(b.removes > 0 for b in blockers)
    # Issue 51: the combined answer first (which requirements together, how many come back),
    # then the requirements one by one.
    combined = response.context["combined"]
    assert combined is not None and len(combined.codes) >= 2 and combined.would_qualify > 0
    flat = " ".join(html.split())
    assert flat.index('id="combined-requirements"') < flat.index('id="blocking-requirements"')
    assert f"these requirements let {combined.would_qualify} options qualify: " in flat
    assert any("removes" in line for line in html.split("<li>")[1:])
    bulk = reverse("questionnaire:bulk", args=(dead_end.pk,))
    assert bulk in html

    # One step: the tracker lists the vendors, the ZIP holds one workbook per vendor, and the
    # tracker then says they were sent.
    tracker = page(client, "questionnaire:bulk", dead_end.pk)
    rows = tracker.context["rows"]
    assert rows and all(sent is None for _option, sent in rows)
    # Cloud providers are asked too (issue 51): the requirements remove their offers as well.
    clouds = [option for option, _sent in rows if option.is_cloud]
    assert clouds and all(option.cloud.provider in tracker.content.decode() for option in clouds)
    assert len(response.context["vendors_to_ask"]) == len(rows)
    archive = client.get(bulk, {"download": "1"})
    assert archive.status_code == 200 and archive["Content-Type"] == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(archive.content)).namelist()
    assert len(names) == len(rows) and all(n.endswith(".xlsx") for n in names)
    again = page(client, "questionnaire:bulk", dead_end.pk)
    assert all(sent is not None for _option, sent in again.context["rows"])


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_domestic_preferred_is_named_in_the_decision(client, buyer, language):
    assessment = finished_assessment(buyer, procurement={**PROCUREMENT, "domestic": "preferred"})
    response = page(client, "results:list", assessment.pk, language=language)
    decision = response.context["decision"]
    assert decision.prefer_domestic and decision.best_domestic is not None
    assert decision.best_domestic.hardware.domestic
    html = " ".join(response.content.decode().split())
    paragraph = html.split('id="domestic-preference">')[1].split("</p>")[0]
    words = {"en": "Domestic accelerators preferred", "zh-hans": "优先国产加速卡"}[language]
    assert words in paragraph
    if decision.best_domestic.key != decision.recommended.key:
        assert decision.best_domestic.key in paragraph  # its link
        assert str(decision.domestic_rank) in paragraph
    plain = finished_assessment(buyer, procurement={**PROCUREMENT, "domestic": ""})
    assert 'id="domestic-preference"' not in page(client, "results:list", plain.pk).content.decode()
