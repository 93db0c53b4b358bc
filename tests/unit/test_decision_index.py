"""docs/decisions/README.md lists every decision record, each once, with a status."""

import re
from pathlib import Path

DECISIONS = Path(__file__).resolve().parents[2] / "docs" / "decisions"
INDEX = (DECISIONS / "README.md").read_text(encoding="utf-8")
ROW = re.compile(r"^\| \[(\d{4})\]\(((\d{4})-[^)]+\.md)\) \| (.+?) \| (.+?) \| (.+?) \|$", re.M)
STATUS = re.compile(
    r"^(accepted(; amended by \d{4}(, \d{4})*)?(; amended in place [\d-]+)?|superseded by \d{4})$"
)


def records() -> list[str]:
    return sorted(p.name for p in DECISIONS.glob("[0-9][0-9][0-9][0-9]-*.md"))


def rows() -> list[re.Match]:
    return list(ROW.finditer(INDEX))


def test_every_record_has_one_row():
    listed = [row.group(2) for row in rows()]
    missing = sorted(set(records()) - set(listed))
    assert not missing, f"add a row to docs/decisions/README.md for {missing}"
    assert len(listed) == len(set(listed)), "a record is listed twice"


def test_every_row_links_a_record_under_its_own_number():
    for row in rows():
        number, name, prefix = row.group(1), row.group(2), row.group(3)
        assert number == prefix, row.group(0)
        assert (DECISIONS / name).is_file(), f"{name} is listed but does not exist"


def test_every_row_has_a_status_naming_records_that_exist():
    numbers = {name[:4] for name in records()}
    for row in rows():
        status = row.group(6)
        assert STATUS.match(status), row.group(0)
        assert set(re.findall(r"\d{4}", status.split("in place")[0])) <= numbers, row.group(0)


def test_a_number_without_a_record_is_stated_as_never_used():
    numbers = sorted(int(name[:4]) for name in records())
    skipped = sorted(set(range(1, numbers[-1] + 1)) - set(numbers))
    stated = re.search(r"\*\*Numbers never used: ([\d, ]+)\.\*\*", INDEX)
    assert stated, "the index says which numbers were never used"
    said = [int(n) for n in re.findall(r"\d{4}", stated.group(1))]
    assert said == [n for n in said if n in skipped], "a number said unused has a record"
    unexplained = [n for n in skipped if n not in said]
    # Records are added concurrently under numbers handed out in advance: a gap above the
    # stated ones is a number not written yet, not one skipped for good.
    assert not [n for n in unexplained if n < max(said)], unexplained
