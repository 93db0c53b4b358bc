"""The training framework question: stored, carried into the scenario, shown and briefed."""

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from advisor.assessments import answers, services
from advisor.assessments.answers import assessment_document
from advisor.assessments.models import Assessment
from advisor.brief import services as brief_services
from advisor.brief.render import render_html
from advisor.domain.scenario import FRAMEWORKS
from advisor.wizard import estimate, steps
from tests.integration.test_wizard_support import MODEL, TRAINING, make_catalog
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


LABELS = {
    "hf": "Hugging Face Transformers / PEFT (LLaMA-Factory, ms-swift, TRL)",
    "torchtune": "torchtune",
    "litgpt": "LitGPT",
    "megatron": "Megatron-LM (NeMo, MindSpeed, Megatron-SWIFT)",
}


def test_the_labels_cover_every_framework_the_scenario_knows():
    assert set(LABELS) == set(FRAMEWORKS)


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_each_framework_is_stored_and_reaches_the_scenario(client, draft, framework):
    response = post_training(client, draft, {**TRAINING, "framework": framework})
    assert response.status_code == 302, response.content.decode()[:2000]
    draft.refresh_from_db()
    assert draft.answers["training"]["framework"] == framework
    assert answers.scenario_document(draft.answers)["framework"] == framework
    assert scenario_of(draft).framework == framework
    assert steps.get("training").is_complete(draft.answers)


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_the_check_page_names_the_framework_with_a_change_link(client, draft, framework):
    post_training(client, draft, {**TRAINING, "framework": framework})
    html = check_page(client, draft)
    assert "Training framework" in html
    assert LABELS[framework] in html
    training = reverse("wizard:step", args=[draft.pk, "training"])
    assert f"{training}?next=check#id_framework_0" in html


def test_not_sure_is_stored_empty_and_is_null_in_the_scenario(client, draft):
    response = post_training(client, draft, {**TRAINING, "framework": ""})
    assert response.status_code == 302
    draft.refresh_from_db()
    assert draft.answers["training"]["framework"] == ""
    document = answers.scenario_document(draft.answers)
    assert "framework" in document and document["framework"] is None
    assert scenario_of(draft).framework is None
    html = check_page(client, draft)
    assert "Not sure" in html
    assert "不确定" in check_page(client, draft, "zh-hans")


def test_not_sure_is_what_the_training_page_offers_first(client, draft):
    page = client.get(
        reverse("wizard:step", args=[draft.pk, "training"]), HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    assert 'type="radio" name="framework" value="" id="id_framework_0" checked' in page
    assert "Training framework" in page
    assert "“Not sure” sizes the job as the most used stack" in page
    zh = client.get(
        reverse("wizard:step", args=[draft.pk, "training"]), HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).content.decode()
    assert "训练框架" in zh
    assert "Megatron-LM（NeMo、MindSpeed、Megatron-SWIFT）" in zh


def test_a_post_without_the_field_means_not_sure(client, draft):
    response = post_training(client, draft, TRAINING)  # a form from before the question
    assert response.status_code == 302
    assert scenario_of(draft).framework is None


@pytest.mark.parametrize(
    "value",
    ["pytorch", "HF", " hf", "hf\x00", "hf" * 2000, "null", "None", "{'hf': 1}", "\u202ehf"],
)
def test_a_hostile_framework_is_a_field_error_and_keeps_the_other_entries(client, draft, value):
    data = {**TRAINING, "seq_len": "3072", "samples": "12345", "framework": value}
    response = post_training(client, draft, data)
    assert response.status_code == 200
    html = response.content.decode()
    assert "There is a problem" in html
    assert 'href="#id_framework_0"' in html  # the summary links to the question
    assert 'value="3072"' in html and 'value="12345"' in html
    draft.refresh_from_db()
    assert "training" not in draft.answers


def test_an_old_draft_without_the_answer_still_builds_a_scenario(client, draft):
    old = {k: v for k, v in assessments.TRAINING.items() if k != "framework"}
    draft.refresh_from_db()
    draft = services.save_step(draft, "training", old, draft.version)
    assert "framework" not in draft.answers["training"]
    assert steps.get("training").is_complete(draft.answers)
    assert scenario_of(draft).framework is None
    assert "Not sure" in check_page(client, draft)
    page = client.get(
        reverse("wizard:step", args=[draft.pk, "training"]), HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    assert 'value="" id="id_framework_0" checked' in page


@pytest.mark.parametrize("stored", ["bogus", 7, ["hf"], {"hf": True}, None])
def test_an_unknown_stored_value_is_null_never_a_500(client, draft, stored):
    post_training(client, draft, {**TRAINING, "framework": "hf"})
    draft.refresh_from_db()
    tampered = {**draft.answers, "training": {**draft.answers["training"], "framework": stored}}
    Assessment.objects.filter(pk=draft.pk).update(answers=tampered)
    draft.refresh_from_db()
    assert scenario_of(draft).framework is None
    check_page(client, draft)
    page = client.get(reverse("wizard:step", args=[draft.pk, "training"]))
    assert page.status_code == 200


def test_the_estimate_panel_reads_the_framework():
    make_catalog()
    model = {k: v for k, v in MODEL.items() if k != "version"}
    training = {**assessments.TRAINING, "seq_len": 8192}  # one GPU holds it either way
    rows = {}
    for framework in ("", "torchtune"):
        result = estimate.for_answers(
            {"model": model, "training": {**training, "framework": framework}}
        )
        assert result.state == estimate.READY, result.message
        rows[framework] = result.rows
    for torchtune, unsure in zip(rows["torchtune"], rows[""], strict=True):
        assert torchtune.gpus == unsure.gpus == 1
        # torchtune's recipes compute the loss in chunks; "not sure" assumes whole fp32 logits.
        assert torchtune.memory_per_gpu_gib < unsure.memory_per_gpu_gib
    assert estimate.ASSUMED_TRAINING["framework"] == ""


@pytest.mark.parametrize(
    ("framework", "english", "chinese"),
    [
        ("megatron", LABELS["megatron"], "Megatron-LM（NeMo、MindSpeed、Megatron-SWIFT）"),
        ("", "Not stated: sized as the most used stack", "未说明：按最常用的技术栈"),
    ],
)
def test_the_brief_states_the_framework_assumed(framework, english, chinese):
    load_catalog()
    owner = User.objects.create_user("buyer9")
    assessment = assessments.finished_assessment(owner)
    training = {**assessment.answers["training"], "framework": framework}
    assessment = services.save_step(assessment, "training", training, assessment.version)
    document = assessment_document(assessment)
    brief = brief_services.issue_brief(user=owner, document=document, assessment=assessment)
    assert brief.snapshot["scenario"]["framework"] == (framework or None)
    html = render_html(brief.snapshot, brief_meta("en"))
    assert "Training framework" in html and english in html
    html = render_html(brief.snapshot, brief_meta("zh-hans"))
    assert "训练框架" in html and chinese in html


def test_a_brief_snapshot_from_before_the_question_says_not_stated():
    load_catalog()
    owner = User.objects.create_user("buyer9")
    assessment = assessments.finished_assessment(owner)
    brief = brief_services.issue_brief(
        user=owner, document=assessment_document(assessment), assessment=assessment
    )
    snapshot = {**brief.snapshot, "scenario": dict(brief.snapshot["scenario"])}
    snapshot["scenario"].pop("framework")
    assert "Not stated: sized as the most used stack" in render_html(snapshot, brief_meta("en"))
