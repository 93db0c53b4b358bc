"""Whatever the wizard refuses, the command line refuses with the same words and field path.

Finding (issue 33): `recommend` took a deadline in the past ("-235,944 h allowed", exit 0) and an
unknown policy zone in an own room (exit 0), both of which the wizard refuses. Every refusal
below is made twice: once on the wizard's page (the field's error), once through `recommend`,
`size` and `issue_brief` with the document the wizard would have written, changed the same way
(exit status 2, one line ``<field path>: <words>``). The rules and their words live once, in
advisor.domain.scenario and advisor.domain.document.
"""

from __future__ import annotations

import copy
import html
import json
from dataclasses import dataclass
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from advisor.assessments import answers, services
from advisor.roles import PROCUREMENT_STAFF
from tests.integration.test_wizard_support import (
    MODEL,
    PROCUREMENT,
    SITE,
    TRAINING,
    make_catalog,
)
from tests.support.users import make_user

pytestmark = pytest.mark.django_db

ROOM = {
    "mode": "own",
    "room_name": "Our room",
    "province": "guizhou",
    "max_kw_per_rack": "12",
    "pue": "1.25",
    "power_feeds": "2",
    "cooling_available": ["air"],
}


def in_years(years: int) -> str:
    today = timezone.localdate()
    return today.replace(year=today.year + years, day=min(today.day, 28)).isoformat()


@dataclass(frozen=True)
class Refusal:
    name: str
    step: str  # the wizard page that refuses it
    posted: dict  # that page's answers, changed
    before: dict  # answers given on other pages first (a rule that spans steps)
    document: callable  # the same change, in the wizard's document
    path: str  # the field the command line names
    words: str  # what both say
    wizard_words: str | None = None  # where the wizard names the same thing differently


def change(**paths):
    """A document edit: ``"site.room.policy_zone": "atlantis"`` sets that field."""

    def edit(document: dict) -> dict:
        document = copy.deepcopy(document)
        for dotted, value in paths.items():
            *parents, last = dotted.split(".")
            target = document
            for key in parents:
                target = target.setdefault(key, {})
            target[last] = value
        return document

    return edit


REFUSALS = [
    Refusal(
        "deadline-in-the-past",
        "training",
        {**TRAINING, "deadline": "2020-01-01"},
        {},
        change(**{"procurement.deadline": "2020-01-01"}),
        "procurement.deadline",
        "The deadline must be after today.",
    ),
    Refusal(
        "deadline-today",
        "training",
        {**TRAINING, "deadline": in_years(0)},
        {},
        change(**{"procurement.deadline": in_years(0)}),
        "procurement.deadline",
        "The deadline must be after today.",
    ),
    Refusal(
        "deadline-too-far",
        "training",
        {**TRAINING, "deadline": in_years(11)},
        {},
        change(**{"procurement.deadline": in_years(11)}),
        "procurement.deadline",
        "The deadline must be within 10 years.",
    ),
    Refusal(
        "unknown-policy-zone",
        "site",
        {**ROOM, "province": "atlantis"},
        {},
        change(
            **{"site": {"room": {**answers.site_section(ROOM)["room"], "policy_zone": "atlantis"}}}
        ),
        "site.room.policy_zone",
        "atlantis is not a province in the catalog.",
    ),
    Refusal(
        "unknown-data-center",
        "site",
        {"mode": "catalog", "data_center": "nowhere"},
        {},
        change(**{"site": {"data_centers": ["nowhere"]}}),
        "site.data_centers[0]",
        "nowhere is not a data center in the catalog.",
    ),
    Refusal(
        "room-temperatures-reversed",
        "site",
        {**ROOM, "inlet_temp_min_c": "25", "inlet_temp_max_c": "18"},
        {},
        change(
            **{
                "site": {
                    "room": {
                        **answers.site_section(ROOM)["room"],
                        "inlet_temp_min_c": 25,
                        "inlet_temp_max_c": 18,
                    }
                }
            }
        ),
        "site.room.inlet_temp_max_c",
        "The highest value must not be below the lowest.",
    ),
    Refusal(
        "room-pue-out-of-range",
        "site",
        {**ROOM, "pue": "5"},
        {},
        change(**{"site": {"room": {**answers.site_section(ROOM)["room"], "pue": 5}}}),
        "site.room.pue",
        "must be between 1 and 3",
    ),
    Refusal(
        "budget-out-of-range",
        "procurement",
        {**PROCUREMENT, "budget_cny": "-1"},
        {},
        change(**{"procurement.budget_cny": -1}),
        "procurement.budget_cny",
        "must be between 0 and 100,000,000,000",
    ),
    Refusal(
        "years-out-of-range",
        "procurement",
        {**PROCUREMENT, "years": "16"},
        {},
        change(**{"procurement.years": 16}),
        "procurement.years",
        "must be between 1 and 15",
    ),
    Refusal(
        "quant-bits-without-qlora",
        "model",
        {**MODEL, "method": "lora", "quant_bits": "4"},
        {},
        change(quant_bits=4),
        "quant_bits",
        "Quantised base weights apply only to QLoRA. Choose QLoRA as the method, or leave this "
        "empty.",
    ),
    Refusal(
        "adapter-without-adapter-method",
        "model",
        {**MODEL, "method": "full", "lora_rank": "16"},
        {},
        change(method="full", lora={"rank": 16, "alpha": None, "targets": None}),
        "lora",
        "Adapter rank, alpha and targets apply only to LoRA, QLoRA or DoRA. Choose one of those "
        "methods, or clear the adapter settings.",
    ),
    Refusal(
        "qlora-in-fp32",
        "training",
        {**TRAINING, "precision": "fp32"},
        {"model": {**MODEL, "method": "qlora"}},
        change(method="qlora", quant_bits=4, precision="fp32"),
        "precision",
        "QLoRA stores the frozen model in 4 or 8 bits and computes in 16 bits, so it cannot run "
        "in fp32. Choose bf16 (or mixed bf16), or choose LoRA for fp32.",
    ),
    Refusal(
        "sequence-longer-than-the-context",
        "training",
        {**TRAINING, "seq_len": "16384"},
        {"model": {**MODEL, "preset": "llama-3-1-8b"}},
        # The command line knows the model's context when the document states it.
        change(seq_len=16384, **{"model.context_length": 8192}),
        "seq_len",
        "The model was trained for at most 8,192 tokens per sequence; 16,384 is longer. Use "
        "8,192 or less, or choose a model with a longer context.",
    ),
    Refusal(
        "chosen-and-excluded",
        "procurement",
        {
            **PROCUREMENT,
            "preferred_families": ["nvidia-hopper"],
            "excluded_families": ["nvidia-hopper"],
        },
        {},
        change(
            **{
                "procurement.preferred_accelerators": ["h100-sxm-80gb"],
                "procurement.excluded_accelerators": ["h100-sxm-80gb"],
            }
        ),
        "procurement.excluded_accelerators",
        "h100-sxm-80gb: cannot be both chosen and excluded.",
        wizard_words="NVIDIA Hopper: cannot be both chosen and excluded.",  # families there
    ),
    Refusal(
        "domestic-only-but-foreign",
        "procurement",
        {**PROCUREMENT, "preferred_families": ["nvidia-hopper"], "domestic": "required"},
        {},
        change(
            **{
                "procurement.preferred_accelerators": ["h100-sxm-80gb"],
                "procurement.domestic_only": True,
            }
        ),
        "procurement.preferred_accelerators",
        "You asked for domestic accelerators only, but also for h100-sxm-80gb.",
        wizard_words="You asked for domestic accelerators only, but also for NVIDIA Hopper.",
    ),
    Refusal(
        "unknown-accelerator",
        "procurement",
        {**PROCUREMENT, "excluded_families": ["nowhere-none"]},
        {},
        change(**{"procurement.excluded_accelerators": ["tpu-v9"]}),
        "procurement.excluded_accelerators[0]",
        "tpu-v9 is not an accelerator in the catalog.",
        # The wizard offers families, not accelerators: a family it does not know is Django's
        # "not one of the available choices".
        wizard_words="nowhere-none is not one of the available choices",
    ),
]


@pytest.fixture
def buyer(client):
    make_catalog()
    user = make_user("buyer", PROCUREMENT_STAFF, password="pw")
    client.force_login(user)
    return user


def post(client, draft, slug, data):
    from django.urls import reverse

    draft.refresh_from_db()
    return client.post(
        reverse("wizard:step", args=[draft.pk, slug]),
        {**data, "version": draft.version},
        HTTP_ACCEPT_LANGUAGE="en",
    )


def valid_document(client, buyer) -> dict:
    """The document the wizard writes for valid answers on all four pages."""
    draft = services.create_assessment(buyer, "Valid")
    for slug, data in (
        ("model", MODEL),
        ("training", TRAINING),
        ("site", SITE),
        ("procurement", PROCUREMENT),
    ):
        assert post(client, draft, slug, data).status_code == 302
    draft.refresh_from_db()
    return answers.scenario_document(draft.answers)


def command_line(command: str, document: dict, tmp_path) -> str:
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(document))
    extra = {
        "recommend": [],
        "size": [],
        "issue_brief": ["--user", "buyer", "--output", str(tmp_path / "brief.pdf")],
    }[command]
    with pytest.raises(CommandError) as refused:
        call_command(command, "--input", str(path), *extra, stdout=StringIO(), stderr=StringIO())
    assert refused.value.returncode == 2, refused.value
    line = str(refused.value)
    assert "\n" not in line
    return line


@pytest.mark.parametrize("refusal", REFUSALS, ids=[r.name for r in REFUSALS])
def test_the_wizard_and_the_command_line_refuse_alike(client, buyer, tmp_path, refusal):
    draft = services.create_assessment(buyer, refusal.name)
    for slug, data in refusal.before.items():
        assert post(client, draft, slug, data).status_code == 302
    page = post(client, draft, refusal.step, refusal.posted)
    assert page.status_code == 200, f"the wizard accepted {refusal.name}"
    shown = html.unescape(page.content.decode())
    assert (refusal.wizard_words or refusal.words) in shown

    document = refusal.document(valid_document(client, buyer))
    for command in ("recommend", "size", "issue_brief"):
        line = command_line(command, document, tmp_path)
        assert line.startswith(f"{refusal.path}: "), (command, line)
        assert refusal.words in line, (command, line)


def test_the_valid_document_passes_every_command_line_check(client, buyer, tmp_path):
    from advisor.catalog.candidates import entry_context
    from advisor.domain.document import validate_document

    document = valid_document(client, buyer)
    validate_document(document, entry_context(document))  # no error: the table's base is valid
