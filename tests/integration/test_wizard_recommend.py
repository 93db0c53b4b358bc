"""The wizard's answers feed the recommendation service (the results page's input)."""

import pytest
from django.contrib.auth.models import User

from advisor.assessments import answers, services
from advisor.recommendation.run import run_recommendation
from advisor.wizard import steps
from tests.support.catalog import load_catalog

pytestmark = pytest.mark.django_db

TRAINING = {
    "seq_len": 4096,
    "micro_batch": 1,
    "dataset_mode": "tokens",
    "total_tokens": 100_000_000,
    "epochs": 3,
    "precision": "amp-bf16",
    "optimizer": "adamw",
    "gradient_checkpointing": "yes",
    "flash_attention": "yes",
}
PROCUREMENT = {
    "modes": ["buy", "cloud"],  # what an own room offers too (no renting into it; decision 0101)
    "budget_cny": None,
    "qualifications": ["iso-27001"],
    "preferred_families": [],
    "excluded_families": [],
    "domestic": "",
    "usage": "programme",
    "runs_per_year": 12,
    "years": 3,
    "rent_min_months": 1,
}


@pytest.fixture
def seeded():
    load_catalog()


def confirmed(site: dict) -> dict:
    user = User.objects.create_user("buyer", password="pw")
    draft = services.create_assessment(user, "x")
    values = {
        "model": {"source": "preset", "preset": "qwen2-5-7b", "method": "lora"},
        "training": TRAINING,
        "site": site,
        "procurement": PROCUREMENT,
    }
    for slug, value in values.items():
        services.save_step(draft, slug, value, draft.version)
    assert steps.all_complete(draft.answers)
    return draft.answers


@pytest.mark.parametrize(
    "site",
    [
        {"mode": "catalog", "data_center": "example-guian"},
        {"mode": "compare", "compare": ["example-guian", "example-shanghai-qingpu"]},
        {
            "mode": "own",
            "room_name": "Our room",
            "province": "guizhou",
            "max_kw_per_rack": 12,
            "pue": 1.25,
            "power_feeds": 2,
            "cooling_available": ["air"],
        },
    ],
    ids=["catalog", "compare", "own-room"],
)
def test_the_wizard_document_runs_through_the_recommendation(seeded, site):
    document = answers.scenario_document(confirmed(site))
    run = run_recommendation(document)
    assert run.recommendation.options
    assert run.procurement.required_rules == ("VENDOR-ISO27001",)


def test_one_product_can_be_excluded_while_its_family_stays(seeded):
    """H100 excluded, H20 (the same NVIDIA Hopper family) kept (issue 27 item 4)."""
    user = User.objects.create_user("buyer", password="pw")
    draft = services.create_assessment(user, "x")
    values = {
        "model": {"source": "preset", "preset": "qwen2-5-7b", "method": "lora"},
        "training": TRAINING,
        "site": {"mode": "catalog", "data_center": "example-guian"},
        "procurement": {
            **PROCUREMENT,
            "qualifications": [],
            "excluded_products": ["h100-sxm-80gb"],
        },
    }
    for slug, value in values.items():
        services.save_step(draft, slug, value, draft.version)
    assert steps.all_complete(draft.answers)
    document = answers.scenario_document(draft.answers)
    assert document["procurement"]["excluded_accelerators"] == ["h100-sxm-80gb"]
    run = run_recommendation(document)
    by_accelerator = {}
    for option in run.recommendation.options:
        by_accelerator.setdefault(option.hardware.accelerator.key, []).append(option)
    assert not any(o.qualifies for o in by_accelerator["h100-sxm-80gb"])
    assert any(o.qualifies for o in by_accelerator["h20-96gb"])
