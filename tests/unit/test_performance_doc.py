"""docs/performance.md states the current figures and how they are made, in one short page."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TEXT = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")


def test_the_page_is_short_and_has_its_two_parts():
    assert len(TEXT.splitlines()) <= 250
    assert "\n## Current figures\n" in TEXT and "\n## How we measure\n" in TEXT


def test_every_bench_it_names_exists():
    named = set(re.findall(r"bench/(\w+\.py)", TEXT))
    assert "cpu_per_request.py" in named
    assert not [name for name in named if not (ROOT / "bench" / name).is_file()]


def test_every_figure_row_says_its_host_and_date():
    rows = [line for line in TEXT.splitlines() if line.startswith("| ") and "bench/" in line]
    assert rows
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", cells[-1]), row
        assert cells[-2], row
