"""The longest-sample question (decision 0135): asked for unpacked samples, checked as the
scenario loader checks it, carried into the scenario, and its basis stated on the results page
and in the brief in both languages."""

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from advisor.assessments import answers, services
from advisor.assessments.answers import assessment_document
from advisor.assessments.models import Assessment
from advisor.brief import services as brief_services
from advisor.brief.render import render_html
from advisor.recommendation.services import assessment_results
from advisor.roles import PROCUREMENT_STAFF
from advisor.wizard import steps
from tests.integration.test_wizard_support import TRAINING
from tests.support import assessments
from tests.support.catalog import load_catalog
from tests.support.training_step import (
    brief_meta,
    check_page,
    post_training,
    scenario_of,
    start_draft,
)
from tests.support.users import make_user

pytestmark = pytest.mark.django_db

LABEL = "Longest sample (tokens)"
CHINESE_LABEL = "最长样本（token）"
UNPACKED = {**TRAINING, "packed": "no"}  # seq_len 4,096; 20,000 samples of 1,500 on average
STATED_EN = (
    "Samples are not packed: each batch is padded to its longest sample, so memory is sized for "
    "the longest sample stated, 2,048 tokens (4,096 is the truncation bound)."
)
STATED_ZH = "样本未打包：每个批次填充到其中最长的样本，因此显存按所填的最长样本 2,048 个词元计算"


@pytest.fixture
def draft(client):
    return start_draft(client)


def training_page(client, draft, language="en") -> str:
    response = client.get(
        reverse("wizard:step", args=[draft.pk, "training"]), HTTP_ACCEPT_LANGUAGE=language
    )
    assert response.status_code == 200
    return response.content.decode()


def test_the_question_is_offered_under_the_packing_answer_with_what_it_is_for(client, draft):
    page = training_page(client, draft)
    assert 'class="reveal reveal-unpacked"' in page
    assert LABEL in page and 'name="longest_sample"' in page
    assert "Batches that are not packed are padded to their longest sample" in page
    assert "Left empty, the advisor estimates it from the average tokens per sample" in page
    chinese = training_page(client, draft, "zh-hans")
    assert CHINESE_LABEL in chinese and "未打包的批次会填充到其中最长的样本" in chinese


def test_a_stated_longest_sample_reaches_the_scenario_and_the_check_page(client, draft):
    response = post_training(client, draft, {**UNPACKED, "longest_sample": "2048"})
    assert response.status_code == 302, response.content.decode()[:2000]
    draft.refresh_from_db()
    assert draft.answers["training"]["longest_sample"] == 2048
    assert answers.scenario_document(draft.answers)["longest_sample_tokens"] == 2048
    assert scenario_of(draft).longest_sample_tokens == 2048
    assert steps.get("training").is_complete(draft.answers)
    html = check_page(client, draft)
    assert LABEL in html and "2,048" in html
    training = reverse("wizard:step", args=[draft.pk, "training"])
    assert f"{training}?next=check#id_longest_sample" in html
    assert CHINESE_LABEL in check_page(client, draft, "zh-hans")


def test_left_empty_it_is_absent_and_the_check_page_says_what_is_used(client, draft):
    response = post_training(client, draft, {**UNPACKED, "longest_sample": ""})
    assert response.status_code == 302
    draft.refresh_from_db()
    assert "longest_sample_tokens" not in answers.scenario_document(draft.answers)
    assert scenario_of(draft).longest_sample_tokens is None
    html = check_page(client, draft)
    assert "Not stated: estimated from the average, else the sequence length" in html
    assert "未说明：按平均长度估算，否则按序列长度" in check_page(client, draft, "zh-hans")


@pytest.mark.parametrize("packed", ["yes", ""])
def test_packed_or_not_sure_keeps_the_answer_but_leaves_it_out(client, draft, packed):
    response = post_training(client, draft, {**TRAINING, "packed": packed, "longest_sample": "512"})
    assert response.status_code == 302
    draft.refresh_from_db()
    assert draft.answers["training"]["longest_sample"] == 512  # nothing typed is lost
    assert "longest_sample_tokens" not in answers.scenario_document(draft.answers)
    assert LABEL not in check_page(client, draft)


@pytest.mark.parametrize(
    ("language", "longest", "message"),
    [
        (
            "en",
            "5000",
            "The longest sample (5,000 tokens) is longer than seq_len (4,096), where samples "
            "are truncated. Give 4,096 or less, or raise seq_len.",
        ),
        (
            "en",
            "1000",
            "The average tokens per sample (1,500) is more than the longest sample (1,000). "
            "Check both figures.",
        ),
        ("en", "abc", f"{LABEL} must be a whole number."),
        ("en", "1.5", f"{LABEL} must be a whole number."),
        ("en", "0", f"{LABEL} must be between 1 and 1,048,576."),
        ("en", "9" * 40, f"{LABEL} must be between 1 and 1,048,576."),
        ("zh-hans", "5000", "最长样本（5,000 个词元）超过了样本被截断处的 seq_len（4,096）"),
    ],
)
def test_a_bad_longest_sample_is_a_field_error_and_keeps_every_entry(
    client, draft, language, longest, message
):
    data = {**UNPACKED, "samples": "12345", "longest_sample": longest}
    response = post_training(client, draft, data, language)
    assert response.status_code == 200
    html = response.content.decode().replace("&#x27;", "'")
    assert 'href="#id_longest_sample"' in html  # the summary links to the question
    assert message in html, html[html.find("error-summary") :][:1500]
    assert f'value="{longest}"' in html and 'value="12345"' in html
    draft.refresh_from_db()
    assert "training" not in draft.answers


def test_with_total_tokens_only_the_bound_is_checked(client, draft):
    data = {**UNPACKED, "dataset_mode": "tokens", "total_tokens": "90000000"}
    response = post_training(client, draft, {**data, "longest_sample": "100"})
    assert response.status_code == 302, response.content.decode()[:2000]
    assert scenario_of(draft).longest_sample_tokens == 100


def test_a_draft_saved_before_the_question_keeps_working(client, draft):
    old = {**assessments.TRAINING, "packed": "no"}
    old.pop("longest_sample", None)
    draft.refresh_from_db()
    draft = services.save_step(draft, "training", old, draft.version)
    assert steps.get("training").is_complete(draft.answers)
    assert "longest_sample_tokens" not in answers.scenario_document(draft.answers)
    assert "Not stated: estimated from the average" in check_page(client, draft)
    assert 'name="longest_sample"' in training_page(client, draft)


@pytest.mark.parametrize("stored", ["2048", True, -5, 2.5, [1], {"a": 1}, 10**9])
def test_a_tampered_stored_value_is_never_a_500(client, draft, stored):
    post_training(client, draft, UNPACKED)
    draft.refresh_from_db()
    tampered = {
        **draft.answers,
        "training": {**draft.answers["training"], "longest_sample": stored},
    }
    Assessment.objects.filter(pk=draft.pk).update(answers=tampered)
    draft.refresh_from_db()
    document = answers.scenario_document(draft.answers)
    if type(stored) is int and stored > 0:  # a whole number is passed on for the loader to judge
        assert document["longest_sample_tokens"] == stored
        assert answers.scenario_problem(draft.answers) is not None
        assert not steps.get("training").is_complete(draft.answers)
    else:
        assert "longest_sample_tokens" not in document
    check_page(client, draft)
    assert client.get(reverse("wizard:step", args=[draft.pk, "training"])).status_code == 200


def unpacked_assessment(owner, longest):
    """The standard job (4,096 tokens, total tokens given), unpacked, with ``longest`` stated."""
    training = {**assessments.TRAINING, "packed": "no", "longest_sample": longest}
    return assessments.finished_assessment(owner, training=training)


def test_the_stated_length_reaches_the_sizing():
    load_catalog()
    owner = User.objects.create_user("buyer7")
    short = assessment_results(unpacked_assessment(owner, 512)).recommendation.options
    full = assessment_results(unpacked_assessment(owner, 4096)).recommendation.options
    assert [o.key for o in short] == [o.key for o in full]
    for stated, bound in zip(short, full, strict=True):
        assert stated.sizing.memory.total < bound.sizing.memory.total


def test_the_results_page_states_the_longest_sample_basis(client):
    load_catalog()
    buyer = make_user("buyer", PROCUREMENT_STAFF, password="pw")
    client.force_login(buyer)
    assessment = unpacked_assessment(buyer, 2048)
    option = assessment_results(assessment).recommendation.options[0]
    url = reverse("results:option", args=(assessment.pk, option.key))
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert STATED_EN in english
    chinese = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert STATED_ZH in chinese


def test_the_brief_states_the_longest_sample_basis_in_both_languages():
    load_catalog()
    owner = User.objects.create_user("buyer9")
    assessment = unpacked_assessment(owner, 2048)
    document = assessment_document(assessment)
    assert document["longest_sample_tokens"] == 2048
    brief = brief_services.issue_brief(user=owner, document=document, assessment=assessment)
    assert brief.snapshot["scenario"]["longest_sample_tokens"] == 2048
    english = render_html(brief.snapshot, brief_meta("en"))
    assert STATED_EN in english
    assert "<th>Longest sample (tokens)</th><td>2,048</td>" in english
    chinese = render_html(brief.snapshot, brief_meta("zh-hans"))
    assert STATED_ZH in chinese
    assert "<th>最长样本（token）</th><td>2,048</td>" in chinese


def test_a_brief_snapshot_from_before_the_question_says_not_stated():
    load_catalog()
    owner = User.objects.create_user("buyer9")
    assessment = unpacked_assessment(owner, 2048)
    brief = brief_services.issue_brief(
        user=owner, document=assessment_document(assessment), assessment=assessment
    )
    snapshot = {**brief.snapshot, "scenario": dict(brief.snapshot["scenario"])}
    snapshot["scenario"].pop("longest_sample_tokens")
    assert "<th>Longest sample (tokens)</th><td>not stated</td>" in render_html(
        snapshot, brief_meta("en")
    )
