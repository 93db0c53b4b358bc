"""Results, option detail and comparison pages."""

import re
from decimal import Decimal
from html import unescape
from urllib.parse import parse_qs, urlsplit

import pytest
from django.urls import reverse

from advisor.assessments import services as assessment_services
from advisor.recommendation.services import assessment_results
from advisor.roles import PROCUREMENT_STAFF
from tests.support.assessments import finished_assessment
from tests.support.catalog import load_catalog
from tests.support.users import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def seeded():
    load_catalog()


@pytest.fixture
def buyer(client):
    user = make_user("buyer", PROCUREMENT_STAFF, password="pw")
    client.force_login(user)
    return user


@pytest.fixture
def assessment(buyer):
    return finished_assessment(buyer)


def get(client, name, *args, **params):
    return client.get(reverse(name, args=args), params, HTTP_ACCEPT_LANGUAGE="en")


def test_results_list_ranked_options_with_memory_time_cost_and_verdict(client, assessment):
    response = get(client, "results:list", assessment.pk, ranking="all")
    assert response.status_code == 200
    html = response.content.decode()
    run = assessment_results(assessment)
    # One row per distinct choice: the options folded into the rows are every option.
    rows = response.context["rows"]
    assert sum(len(r.choice.options) for r in rows) == len(run.recommendation.options)
    for needle in ("Memory per GPU", "Time to train", "Cash out", "net of resale", "GiB"):
        assert needle in html
    first = response.context["rows"][0].option
    assert reverse("results:option", args=(assessment.pk, first.key)) in html


def test_options_that_do_not_qualify_show_their_reason(client, assessment):
    response = get(client, "results:list", assessment.pk, ranking="all")
    not_qualifying = [r for r in response.context["rows"] if r.option.reasons]
    assert not_qualifying, "the seeded catalog has options that do not qualify"
    html = response.content.decode()
    assert "Does not qualify" in html
    reason = not_qualifying[0].option.reasons[0].render()
    assert reason.split(":")[0] in html


def test_unpriced_options_are_not_qualifying_and_say_so(client, assessment):
    """An option without a price is neither ranked nor counted: its row says it could not be
    compared, the decision counts it apart and links to the own-figures page."""
    response = get(client, "results:list", assessment.pk, ranking="all")
    run = assessment_results(assessment)
    unpriced = run.recommendation.unpriced
    assert unpriced, "the seeded catalog has servers without a price"
    assert all(o not in run.recommendation.rankings["recommended"] for o in unpriced)
    assert all(o.mode for o in unpriced)  # the mode asked for is kept
    html = response.content.decode()
    assert "unpriced: cannot be compared" in html
    decision = response.context["decision"]
    assert decision.unpriced == len(unpriced)
    assert f"of the {decision.qualifying} priced options that qualify" in html
    assert f"{len(unpriced)} more options meet your requirements but are unpriced" in html
    assert 'id="enter-prices-link"' in html
    page = get(client, "results:option", assessment.pk, unpriced[0].key).content.decode()
    assert "Unpriced: cannot be compared" in page and 'id="enter-price-link"' in page
    assert reverse("results:figures", args=(assessment.pk,)) in page
    field = f"id_price__{unpriced[0].hardware.server.key}__purchase_cny_per_server"
    assert f"#{field}" in page  # the link lands on the price to enter
    figures = get(client, "results:figures", assessment.pk).content.decode()
    assert f'id="{field}"' in figures


@pytest.mark.parametrize("sort", ["cost", "time", "memory", "compliance", "rank", "bogus"])
def test_sorting_never_fails_and_cost_sort_is_ascending(client, assessment, sort):
    response = get(client, "results:list", assessment.pk, ranking="all", sort=sort)
    assert response.status_code == 200
    if sort == "cost":
        costs = [r.option.cost_cny for r in response.context["rows"] if r.option.cost_cny]
        assert costs == sorted(costs)


def test_rankings_hold_only_qualifying_options(client, assessment):
    for ranking in ("recommended", "fastest_within_budget", "best_compliance"):
        rows = get(client, "results:list", assessment.pk, ranking=ranking).context["rows"]
        assert all(r.option.qualifies for r in rows)


def test_option_detail_has_breakdown_findings_and_economics(client, assessment):
    options = assessment_results(assessment).recommendation.options
    option = next(o for o in options if not o.is_cloud)
    response = get(client, "results:option", assessment.pk, option.key)
    html = response.content.decode()
    assert response.status_code == 200
    assert (
        "<svg" in html and "Compliance findings" in html and "PUE against the policy zone" in html
    )
    assert "Issue brief" in html


def test_cloud_option_page_names_the_provider_and_shows_cloud_checks_only(client, assessment):
    options = assessment_results(assessment).recommendation.options
    option = next(o for o in options if o.is_cloud)
    response = get(client, "results:option", assessment.pk, option.key)
    html = response.content.decode()
    assert response.status_code == 200
    assert option.cloud.provider in html and "Data residency in mainland China" in html
    assert "SITE-" not in html and "Inlet temperature" not in html


def test_each_row_says_how_the_capacity_is_obtained(client, assessment):
    response = get(client, "results:list", assessment.pk, ranking="all")
    html = response.content.decode()
    modes = {r.option.mode for r in response.context["rows"] if r.option.mode}
    assert {"buy", "cloud"} <= modes
    for label in ("Buy and host", "Cloud GPU-hours"):
        assert label in html
    # Rank 1 is the first row (never under rows of other groups).
    ranked = get(client, "results:list", assessment.pk).context["rows"]
    assert ranked[0].rank == 1


def test_unknown_option_is_404(client, assessment):
    assert get(client, "results:option", assessment.pk, "nope@nowhere").status_code == 404


def test_compare_up_to_three(client, assessment):
    keys = [o.key for o in assessment_results(assessment).recommendation.options[:3]]
    url = reverse("results:compare", args=(assessment.pk,))
    response = client.get(url, {"option": keys}, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    assert len(response.context["options"]) == 3
    too_many = [o.key for o in assessment_results(assessment).recommendation.options[:4]]
    response = client.get(url, {"option": too_many}, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 400
    assert "at most 3" in response.content.decode()
    assert client.get(url, HTTP_ACCEPT_LANGUAGE="en").status_code == 400


def test_other_users_results_are_404(client, assessment):
    stranger = make_user("stranger", PROCUREMENT_STAFF)
    client.force_login(stranger)
    assert get(client, "results:list", assessment.pk).status_code == 404


def test_incomplete_assessment_goes_back_to_its_answers(client, buyer):
    draft = assessment_services.create_assessment(buyer, "draft")
    response = get(client, "results:list", draft.pk)
    assert response.status_code == 302
    assert reverse("wizard:check", args=(draft.pk,)) in response["Location"]


def test_results_follow_a_changed_answer(client, assessment):
    before = assessment_results(assessment)
    training = {**assessment.answers["training"], "seq_len": 8192}
    assessment = assessment_services.save_step(assessment, "training", training, assessment.version)
    after = assessment_results(assessment)
    assert after is not before
    assert after.scenario.seq_len == 8192


def test_own_figures_replace_the_fallback_figures_and_are_marked_as_theirs(client, assessment):
    before = assessment_results(assessment)
    bought = [
        o
        for o in before.recommendation.options
        if o.site.data_center.key == "example-guian" and o.economics and "buy" in o.economics.costs
    ]
    assert bought, "Gui'an is priced from its province's tariff and the national rack fee"
    provenance = bought[0].economics.inputs.provenance
    assert provenance["tariff_cny_per_kwh"].level == "zone"
    assert provenance["rack_fee_cny_per_month"].level == "national"
    url = reverse("results:figures", args=(assessment.pk,))
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 200 and "In use: 0.562" in page.content.decode()
    response = client.post(
        url,
        {
            "version": assessment.version,
            "site__example-guian__tariff_cny_per_kwh": "0.48",
            "site__example-guian__rack_fee_cny_per_month": "6500",
            "maintenance_pct_per_year": "4",
        },
    )
    assert response.status_code == 302
    assessment.refresh_from_db()
    after = assessment_results(assessment)
    guian = [o for o in after.recommendation.options if o.site.data_center.key == "example-guian"]
    priced = [o for o in guian if o.economics is not None]
    assert priced
    site = priced[0].economics.inputs.site
    assert priced[0].economics.inputs.provenance["tariff_cny_per_kwh"].basis == "override"
    assert site.tariff_cny_per_kwh == Decimal("0.48")
    assert site.rack_fee_cny_per_month == Decimal("6500")
    assert priced[0].economics.inputs.assumptions.maintenance_pct_per_year == Decimal("4")
    assert assessment.status == "complete" or assessment.status == "draft"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("site__example-guian__pue", "0.5", "greater than or equal to 1"),
        ("site__example-guian__tariff_cny_per_kwh", "abc", "Enter a number"),
        ("resale_pct", "150", "less than or equal to 100"),
    ],
)
def test_bad_figures_are_explained_and_kept(client, assessment, field, value, message):
    url = reverse("results:figures", args=(assessment.pk,))
    response = client.post(
        url, {"version": assessment.version, field: value}, HTTP_ACCEPT_LANGUAGE="en"
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert message in html and f'value="{value}"' in html


def test_stale_figures_are_refused_and_kept(client, assessment):
    url = reverse("results:figures", args=(assessment.pk,))
    response = client.post(
        url,
        {"version": assessment.version - 1, "maintenance_pct_per_year": "7"},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 409
    assert 'value="7"' in response.content.decode()


def test_option_detail_says_what_a_device_reading_may_show_when_lengths_vary(client, assessment):
    option = assessment_results(assessment).recommendation.options[0]
    memory = option.sizing.memory
    assert memory.length_drift > 0  # the wizard does not ask about packing: lengths may vary
    html = get(client, "results:option", assessment.pk, option.key).content.decode()
    assert 'id="device-reading"' in html
    assert f"nvidia-smi may show up to {memory.device_reading_high:.1f} GiB" in html
    chinese = client.get(
        reverse("results:option", args=(assessment.pk, option.key)),
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    ).content.decode()
    assert f"nvidia-smi 显示可能高达 {memory.device_reading_high:.1f} GiB" in chinese


RULE_ID = re.compile(r"\b(?:SITE|VENDOR|HW|CLOUD)-[A-Z0-9-]+\b")
EXPRESSION = re.compile(r"==|&lt;=|&gt;=|<=|>=|\bTrue\b|\bFalse\b|\bNone\b")


@pytest.mark.parametrize(
    ("language", "title", "sentence"),
    [
        (
            "en",
            "Value-added telecom licence with IDC (B11)",
            "The licence&#x27;s list of business categories",
        ),
        ("zh-hans", "含 IDC 业务（B11）的增值电信业务经营许可证", "许可证列明的业务类别"),
    ],
)
def test_option_page_names_findings_in_words_with_evidence_sentences(
    client, assessment, language, title, sentence
):
    """Issue 27: no rule id and no expression on a page; evidence reads as sentences and the
    citations name public documents in the reader's language."""
    options = assessment_results(assessment).recommendation.options
    option = next(o for o in options if not o.is_cloud)
    url = reverse("results:option", args=[assessment.pk, option.key])
    html = client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    tables = html.split('<table class="findings">')[1:]
    findings = " ".join(table.split("</table>")[0] for table in tables)
    assert not RULE_ID.findall(html), RULE_ID.findall(html)
    assert not EXPRESSION.findall(findings), EXPRESSION.findall(findings)
    assert title in findings and sentence in findings
    if language == "zh-hans":
        assert (
            "《电信业务分类目录（2015年版）》" in findings and "采购方要求（来源文章）" in findings
        )
        assert "Source article" not in findings and "原文 S" not in findings


def test_the_figures_page_shows_what_is_in_use_and_returns_where_the_buyer_was(client, assessment):
    url = reverse("results:figures", args=(assessment.pk,))
    response = get(client, "results:figures", assessment.pk)
    html = response.content.decode()
    form = response.context["form"]
    # Rows only for real sites: no cloud pseudo-site, no "None".
    assert all(key for key, _name, _in_use in form.sites)
    assert ">None<" not in html
    # Every server price and assumption in use is shown with its source.
    prices = {key: in_use for key, _name, in_use in form.servers}
    assert any(in_use for in_use in prices.values())
    priced = next(in_use for in_use in prices.values() if "purchase_cny_per_server" in in_use)
    assert priced["purchase_cny_per_server"].value and priced["purchase_cny_per_server"].source
    general = form.fields["maintenance_pct_per_year"].in_use
    assert general.value == "5" and "Rule of thumb" in general.source
    resale = form.fields["resale_pct"].in_use
    assert resale.value and "used-market" in resale.source
    assert "placeholder=" not in html  # nothing cut off inside a box
    # Saving from an option page goes back to that option page.
    option = assessment_results(assessment).recommendation.options[0]
    back = reverse("results:option", args=(assessment.pk, option.key))
    option_html = get(client, "results:option", assessment.pk, option.key).content.decode()
    link = re.search(r'href="([^"]+)" id="own-figures-link"', option_html).group(1)
    assert parse_qs(urlsplit(unescape(link)).query)["next"] == [back]
    saved = client.post(
        f"{url}?next={back}",
        {"version": assessment.version, "maintenance_pct_per_year": "4", "next": back},
    )
    assert saved.status_code == 302 and saved["Location"] == back
    # A link elsewhere is not followed.
    elsewhere = client.post(
        url,
        {
            "version": assessment.version + 1,
            "maintenance_pct_per_year": "3",
            "next": "https://evil.example/",
        },
    )
    assert elsewhere["Location"] == reverse("results:list", args=(assessment.pk,))
