"""Hardware and model-preset fixtures cite public documents, never the project's research notes.

Scope: the files the hardware/model-preset catalog is built from and made of. The other catalog
fixtures (30-60) and build_catalog.py's site and tariff sections are checked by their owners'
tests; the list below is explicit so a file added later is a deliberate choice.
"""

import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
CATALOG = FIXTURES / "catalog"
SOURCES = FIXTURES / "sources"

CITED_CATALOG_FILES = sorted(path.name for path in CATALOG.glob("*.json"))
CHECKED_FILES = [
    *(CATALOG / name for name in CITED_CATALOG_FILES),
    *sorted(SOURCES.iterdir()),
    *sorted(FIXTURES.glob("*.py")),
]

# What a reference to material outside the repository looks like: the folder beside the
# checkout, and the research and reference-case files by name. The folder name is spelled in
# parts so that `git grep` for it over the repository finds only real references.
OUTSIDE = "sha" + "red"
OUTSIDE_REFERENCES = re.compile(
    rf"\.\./{OUTSIDE}|\b{OUTSIDE}/|hardware-site-facts|china-costs-policy|tariffs-rack-fees|"
    r"sizing-notes|reference-cases/|cases\.json"
)
URL = re.compile(r"https?://\S+")
# "Title. Publisher, date." with a date (YYYY, YYYY-MM, YYYY-MM-DD) or "n.d." (no date given).
NAMED_DOCUMENT = re.compile(r"^\S.*\. \S.*, (\d{4}(-\d{2}){0,2}|n\.d\.)")


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (f"Project research: {OUTSIDE}/research/accelerators.json", True),
        (f"see ../{OUTSIDE}/reference-cases/README.md", True),
        ("hardware-site-facts.md §2 C1", True),
        ("china-costs-policy.md §3.3", True),
        ("reference-cases/cases.json (scenario.model)", True),
        ("NVIDIA, n.d. https://docs.nvidia.com/dgx/dgxh100-user-guide/", False),
        ("n_shared_experts=1, shared experts are always active", False),
    ],
)
def test_outside_reference_pattern(text, found):
    assert bool(OUTSIDE_REFERENCES.search(text)) is found


@pytest.mark.parametrize("path", CHECKED_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_fixture_file_refers_to_material_outside_the_repository(path):
    hits = [
        f"{number}: {line.strip()[:120]}"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if OUTSIDE_REFERENCES.search(line)
    ]
    assert not hits, "\n".join(hits)


@pytest.mark.parametrize(
    ("source", "cited"),
    [
        ("H100. Glenn K. Lockwood, n.d., read by 2026-11-29. https://glennklockwood.com/x", True),
        ("Federal Register rule. BIS, 2023-10-25.", True),
        ("https://huggingface.co/Qwen/Qwen2.5-7B/blob/main/config.json", True),
        ("Project research notes §1", False),
        ("Source article (vendor comparison table)", False),
        ("  ", False),
    ],
)
def test_citation_rule(source, cited):
    assert is_cited(source) is cited


def is_cited(source: str) -> bool:
    """A URL, or a named document with its issuer and date, on at least one line."""
    lines = [line.strip() for line in source.splitlines() if line.strip()]
    return any(URL.search(line) or NAMED_DOCUMENT.match(line) for line in lines)


def names_its_publication(fields) -> bool:
    """Tariffs and rack fees carry their publication in fields of their own: the document's
    title and issuer, and its URL or the date (month) it applies to."""
    return bool(
        fields.get("document_title", "").strip()
        and fields.get("issuer", "").strip()
        and (fields.get("url") or fields.get("published_on") or fields.get("month"))
    )


def catalog_rows():
    return list(_catalog_rows())


def _catalog_rows():
    for name in CITED_CATALOG_FILES:
        for record in json.loads((CATALOG / name).read_text(encoding="utf-8")):
            yield pytest.param(record["fields"], id=f"{name}:{record['fields']['key']}")


@pytest.mark.parametrize("fields", catalog_rows())
def test_every_row_cites_a_public_document(fields):
    assert fields["source"].strip(), "empty source"
    assert is_cited(fields["source"]) or names_its_publication(fields), fields["source"]
    assert fields["as_of"], "no as_of date"


def test_every_citation_names_title_publisher_date_and_a_url():
    citations = json.loads((SOURCES / "citations.json").read_text(encoding="utf-8"))
    without_url = []
    for key, c in citations.items():
        assert c["title"].strip() and c["publisher"].strip() and c["date"].strip(), key
        assert re.match(r"\d{4}|n\.d\.|online edition|round ", c["date"]), (key, c["date"])
        if c["url"]:
            assert URL.fullmatch(c["url"]), (key, c["url"])
        else:
            without_url.append(key)
    # The one source the research recorded without any retrievable document; it stays marked.
    assert len(without_url) == 1 and without_url[0].startswith("secondary source"), without_url
    assert "publisher not recorded" in citations[without_url[0]]["publisher"]


def load_builder(name, monkeypatch):
    monkeypatch.syspath_prepend(str(FIXTURES))
    spec = importlib.util.spec_from_file_location(f"fixture_builder_{name}", FIXTURES / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def dumped(records):
    return json.dumps(records, ensure_ascii=False, indent=2) + "\n"


@pytest.mark.parametrize(
    ("builder", "function", "fixture"),
    [
        ("build_hardware.py", "accelerator_records", "10_accelerators.json"),
        ("build_hardware.py", "server_records", "20_servers.json"),
        ("build_catalog.py", "preset_records", "70_model_presets.json"),
    ],
)
def test_fixtures_are_what_their_builder_writes(builder, function, fixture, monkeypatch):
    module = load_builder(builder, monkeypatch)
    expected = (CATALOG / fixture).read_text(encoding="utf-8")
    assert dumped(getattr(module, function)()) == expected, (
        f"{fixture} differs from {builder}; rerun the builder (docs/catalog.md)"
    )


def test_an_uncited_locator_stops_the_build(monkeypatch):
    citations = load_builder("citations.py", monkeypatch)
    assert citations.cite("https://www.smbom.com/news/13059").endswith(
        "https://www.smbom.com/news/13059"
    )
    with pytest.raises(KeyError, match="add it to fixtures/sources/citations.json"):
        citations.cite("https://example.org/a-page-nobody-recorded")
