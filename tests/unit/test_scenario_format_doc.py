"""docs/scenario-format.md describes what advisor/domain/scenario/ accepts, all of it.

Every field, every allowed value and every numeric range of the code appears in the document,
and its JSON examples are valid: a field or value added to the code without its description
fails here. The code stays the final word; this only keeps the document from falling behind.
"""

import json
import re
from pathlib import Path

import pytest

from advisor.catalog import candidates
from advisor.domain import scenario as sc
from advisor.domain.recommend import OWN_ROOM_KEY
from advisor.domain.recommend.procurement import QUALIFICATION_RULES

DOC = Path(__file__).resolve().parents[2] / "docs" / "scenario-format.md"
TEXT = DOC.read_text(encoding="utf-8")


def _fmt(value) -> str:
    """A range bound as the document writes it (1,024; 0.01; 10^15)."""
    if value == 10**15:
        return "10^15"
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:g}"


NAMES = sorted(
    {
        *sc._TOP_KEYS,
        *sc._MODEL_KEYS,
        *sc._LORA_KEYS,
        *sc._HARDWARE_KEYS,
        *sc._PARALLELISM_KEYS,
        *sc._TRAINING_KEYS,
        *sc.METHODS,
        *sc.PRECISIONS,
        *sc.OPTIMIZERS,
        *sc.STRATEGIES,
        *sc.OFFLOADS,
        *sc.FRAMEWORKS,
        *sc.LORA_TARGET_PRESETS,
        *sc.LORA_TARGET_NAMES,
        *QUALIFICATION_RULES,
        *candidates.SITE_FIGURES,
        *candidates.PRICE_FIGURES,
        OWN_ROOM_KEY,
    }
)


@pytest.mark.parametrize("name", NAMES)
def test_every_field_and_value_is_described(name):
    assert f"`{name}`" in TEXT or f'"{name}"' in TEXT


@pytest.mark.parametrize("path", sorted(sc.LIMITS))
def test_every_range_is_stated(path):
    low, high = sc.LIMITS[path]
    field = path.rsplit(".", 1)[-1]
    rows = [line for line in TEXT.splitlines() if line.startswith(f"| `{field}` |")]
    assert any(f"{_fmt(low)} – {_fmt(high)}" in row for row in rows), (path, rows)


def json_examples() -> list[str]:
    return re.findall(r"```json\n(.*?)```", TEXT, flags=re.DOTALL)


def test_the_smallest_example_is_a_valid_scenario():
    documents = [json.loads(block) for block in json_examples() if block.lstrip().startswith("{")]
    assert documents, "the document shows a whole scenario"
    for document in documents:
        sc.load_scenario(document)


def test_the_section_examples_are_valid_json():
    sections = [block for block in json_examples() if block.lstrip().startswith('"')]
    assert {json.loads("{" + block + "}").popitem()[0] for block in sections} == {
        "site",
        "procurement",
        "declared",
    }
