"""The sample-lengths question: stored, carried into the scenario, shown, read and briefed."""

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from advisor.assessments import answers, services
from advisor.assessments.answers import assessment_document
from advisor.assessments.models import Assessment
from advisor.brief import services as brief_services
from advisor.brief.render import render_html
from advisor.recommendation.services import assessment_results
from advisor.wizard import estimate, steps
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

pytestmark = pytest.mark.django_db


@pytest.fixture
def draft(client):
    return start_draft(client)


PACKED = "Packed: every sequence is filled to the full length"
VARYING = "Varying: each batch is padded to its longest sample"


@pytest.mark.parametrize(
    ("answer", "packed", "label"), [("yes", True, PACKED), ("no", False, VARYING)]
)
def test_each_answer_is_stored_reaches_the_scenario_and_the_check_page(
    client, draft, answer, packed, label
):
    response = post_training(client, draft, {**TRAINING, "packed": answer})
    assert response.status_code == 302, response.content.decode()[:2000]
    draft.refresh_from_db()
    assert draft.answers["training"]["packed"] == answer
    assert scenario_of(draft).packed is packed
    assert steps.get("training").is_complete(draft.answers)
    html = check_page(client, draft)
    assert "Sample lengths" in html and label in html
    training = reverse("wizard:step", args=[draft.pk, "training"])
    assert f"{training}?next=check#id_packed_0" in html


def test_not_sure_is_offered_first_and_is_null_in_the_scenario(client, draft):
    page = client.get(
        reverse("wizard:step", args=[draft.pk, "training"]), HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    assert 'type="radio" name="packed" value="" id="id_packed_0" checked' in page
    assert "padded to its own longest sample, so memory is sized for the dataset" in page
    assert (
        "样本长度"
        in client.get(
            reverse("wizard:step", args=[draft.pk, "training"]), HTTP_ACCEPT_LANGUAGE="zh-hans"
        ).content.decode()
    )
    post_training(client, draft, {**TRAINING, "packed": ""})
    draft.refresh_from_db()
    document = answers.scenario_document(draft.answers)
    assert "packed" in document and document["packed"] is None
    assert "Not sure" in check_page(client, draft)


def test_a_post_without_the_field_means_not_sure(client, draft):
    response = post_training(client, draft, TRAINING)  # a form from before the question
    assert response.status_code == 302
    assert scenario_of(draft).packed is None


@pytest.mark.parametrize("value", ["true", "YES", " yes", "yes\x00", "y" * 3000, "None", "1"])
def test_a_hostile_answer_is_a_field_error_and_keeps_the_other_entries(client, draft, value):
    data = {**TRAINING, "seq_len": "3072", "samples": "12345", "packed": value}
    response = post_training(client, draft, data)
    assert response.status_code == 200
    html = response.content.decode()
    assert "There is a problem" in html
    assert 'href="#id_packed_0"' in html
    assert 'value="3072"' in html and 'value="12345"' in html
    draft.refresh_from_db()
    assert "training" not in draft.answers


@pytest.mark.parametrize("stored", ["bogus", 7, ["yes"], {"yes": True}, None, True])
def test_an_unknown_stored_value_is_null_never_a_500(client, draft, stored):
    post_training(client, draft, {**TRAINING, "packed": "yes"})
    draft.refresh_from_db()
    tampered = {**draft.answers, "training": {**draft.answers["training"], "packed": stored}}
    Assessment.objects.filter(pk=draft.pk).update(answers=tampered)
    draft.refresh_from_db()
    assert scenario_of(draft).packed is None
    check_page(client, draft)
    assert client.get(reverse("wizard:step", args=[draft.pk, "training"])).status_code == 200


def test_packing_changes_the_device_reading_never_the_fit():
    load_catalog()
    owner = User.objects.create_user("buyer8")
    results = {}
    for answer in ("yes", ""):
        assessment = assessments.finished_assessment(owner)
        training = {**assessment.answers["training"], "packed": answer}
        assessment = services.save_step(assessment, "training", training, assessment.version)
        results[answer] = assessment_results(assessment).recommendation.options
    assert [o.key for o in results["yes"]] == [o.key for o in results[""]]
    for packed, unsure in zip(results["yes"], results[""], strict=True):
        assert packed.sizing.memory.total == pytest.approx(unsure.sizing.memory.total)
        assert packed.sizing.fits == unsure.sizing.fits
        assert packed.sizing.memory.length_drift == 0
        assert unsure.sizing.memory.length_drift > 0


def test_the_estimate_panel_assumes_lengths_may_vary():
    assert estimate.ASSUMED_TRAINING["packed"] == ""


@pytest.mark.parametrize(
    ("answer", "english", "chinese"),
    [
        ("yes", PACKED, "已打包：每条序列都填满到完整长度"),
        ("no", VARYING, "长度不一：每个批次填充到其中最长的样本"),
        ("", "Not stated: lengths are assumed to vary", "未说明：按长度不一处理"),
    ],
)
def test_the_brief_states_the_sample_lengths(answer, english, chinese):
    load_catalog()
    owner = User.objects.create_user("buyer9")
    assessment = assessments.finished_assessment(owner)
    training = {**assessment.answers["training"], "packed": answer}
    assessment = services.save_step(assessment, "training", training, assessment.version)
    brief = brief_services.issue_brief(
        user=owner, document=assessment_document(assessment), assessment=assessment
    )
    assert brief.snapshot["scenario"]["packed"] == {"yes": True, "no": False}.get(answer)
    html = render_html(brief.snapshot, brief_meta("en"))
    assert "Sample lengths" in html and english in html
    html = render_html(brief.snapshot, brief_meta("zh-hans"))
    assert "样本长度" in html and chinese in html


@pytest.mark.parametrize(
    ("changes", "average"),
    [
        ({"dataset_mode": "samples", "avg_tokens": "1500"}, 1500),
        ({"dataset_mode": "tokens", "total_tokens": "90000000"}, None),
    ],
)
def test_the_stated_average_sample_length_reaches_the_scenario(client, draft, changes, average):
    post_training(client, draft, {**TRAINING, **changes, "packed": "no"})
    draft.refresh_from_db()
    assert scenario_of(draft).avg_tokens_per_sample == average
