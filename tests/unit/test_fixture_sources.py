"""Catalog fixtures cite public documents, never the project's research notes, and every source
line carries its kind (docs/decisions/0026-public-citations.md, 0043-source-kinds.md).

Scope: every catalog fixture, the files the hardware/model-preset catalog is built from and the
builders; the fixtures must be exactly what their builders write.
"""

import importlib.util
import json
import re
from pathlib import Path

import pytest

from advisor.domain import sources as source_kinds

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


# --------------------------------------------------------------------------- source kinds

# Every field of a catalog row that lists sources, one document per line.
SOURCE_FIELDS = ("source", "pue_limit_source", "tariff_source", "hours_source")


def test_every_citation_has_a_kind():
    citations = json.loads((SOURCES / "citations.json").read_text(encoding="utf-8"))
    without = [
        key for key, c in citations.items() if c.get("kind") not in source_kinds.SOURCE_KINDS
    ]
    assert not without, without


@pytest.mark.parametrize("fields", catalog_rows())
def test_every_source_line_has_a_kind(fields):
    for name in SOURCE_FIELDS:
        untagged = source_kinds.untagged_lines(fields.get(name))
        assert not untagged, f"{name}: {untagged[0][:100]}"


@pytest.mark.parametrize(
    ("text", "missing"),
    [
        ("[press] Report. Paper, 2024. https://example.org/a", []),
        ("[vendor] A\n[blog] B", []),
        ("[Article reproducing a table]. site, n.d. https://example.org/b", ["[Article"]),
        ("Report. Paper, 2024. https://example.org/a", ["Report."]),
        ("[rumour] Report.", ["[rumour]"]),
    ],
)
def test_a_line_without_a_kind_is_found(text, missing):
    found = source_kinds.untagged_lines(text)
    assert [line.split()[0] for line in found] == missing


def fixture(name):
    return {r["fields"]["key"]: r["fields"] for r in json.loads((CATALOG / name).read_text())}


def test_a_price_resting_only_on_aggregators_or_blogs_is_low():
    for key, offer in fixture("60_offers.json").items():
        if source_kinds.is_low_quality(source_kinds.source_kind(offer["source"])):
            assert offer["price_flag"] == "LOW", key
    for name in ("35_tariffs.json", "36_rack_fees.json"):
        for key, row in fixture(name).items():
            if source_kinds.is_low_quality(source_kinds.source_kind(row["source"])):
                assert row["flag"] == "LOW", key


def test_the_ascend_910_price_is_not_kept_as_a_910b_price():
    offer = fixture("60_offers.json")["market-atlas-800t-a2-cloud-2026-07"]
    assert offer["price_flag"] == "LOW"
    assert "'Ascend 910', not for the 910B" in offer["notes"]


def test_no_a100_figure_rests_on_the_table_with_the_wrong_bf16():
    for key, row in fixture("10_accelerators.json").items():
        if key.startswith("a100"):
            assert "gpu-data-sheets" not in row["source"], key
            assert row["bf16_dense_tflops"] == 312, key
            assert "[vendor] NVIDIA A100 Tensor Core GPU" in row["source"], key


def test_910b_figures_are_resourced_and_flagged():
    ascend = fixture("10_accelerators.json")["ascend-910b-64gb"]
    assert ascend["memory_bandwidth_tbps"] == 1.6
    # Derived for the 24-core 910B2 (Huawei's core count × cube rate × the clock npu-smi
    # shows), not the blogs' 320 nor the inference card's 280.
    assert ascend["fp16_dense_tflops"] == 353.9
    low = {name.strip() for name in ascend["low_confidence_figures"].split(",")}
    assert low == {
        "memory_bandwidth_tbps",
        "fp16_dense_tflops",
        "tdp_w",
        "interconnect_bandwidth_gbs",
    }
    kinds = source_kinds.kinds_of(ascend["source"])
    assert source_kinds.strongest(kinds) == "vendor"
    assert "haoyuanyu" not in ascend["source"]


def test_server_cooling_is_stated_by_a_source_or_left_empty():
    servers = fixture("20_servers.json")
    # No Huawei document states the standard Atlas 800T A2's cooling: unknown, not "liquid".
    assert servers["atlas-800t-a2"]["cooling"] == ""
    # Dell's own MLPerf files: the XE9680 air-cooled, the XE9680L liquid-cooled.
    assert servers["dell-xe9680-h100"]["cooling"] == "air"
    assert servers["dell-xe9680l-h200"]["cooling"] == "liquid"
    assert "liquid-cooled" in servers["dell-xe9680l-h200"]["source"]
    # NVIDIA's HGX reference architecture is air-cooled; other HGX classes have no such source.
    for key in ("hgx-h100-8gpu", "hgx-h200-8gpu"):
        assert "air-cooled form factor" in servers[key]["source"], key
    for key in ("hgx-a100-80gb-8gpu", "hgx-a800-8gpu", "hgx-h800-8gpu", "hgx-h20-8gpu"):
        assert servers[key]["cooling"] == "", key


def test_the_xe9680_interconnect_no_longer_rests_on_a_tbd_file():
    xe9680 = fixture("20_servers.json")["dell-xe9680-h100"]
    assert "NVLink Switch topology" in xe9680["source"]
    assert "NVLink 900 GB/s per H100 SXM" in xe9680["source"]


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
        ("build_sites.py", "vendor_records", "40_hosting_vendors.json"),
        ("build_sites.py", "dc_records", "50_data_centers.json"),
        ("build_sites.py", "offer_records", "60_offers.json"),
        # The data files (30-36): the builder gives each source line its kind and the LOW flag.
        ("build_catalog.py", "data_records:30_policy_zones.json", "30_policy_zones.json"),
        ("build_catalog.py", "data_records:35_tariffs.json", "35_tariffs.json"),
        ("build_catalog.py", "data_records:36_rack_fees.json", "36_rack_fees.json"),
    ],
)
def test_fixtures_are_what_their_builder_writes(builder, function, fixture, monkeypatch):
    module = load_builder(builder, monkeypatch)
    expected = (CATALOG / fixture).read_text(encoding="utf-8")
    name, _, argument = function.partition(":")
    records = getattr(module, name)(*([argument] if argument else []))
    assert dumped(records) == expected, (
        f"{fixture} differs from {builder}; rerun the builder (docs/catalog.md)"
    )


def test_an_uncited_locator_stops_the_build(monkeypatch):
    citations = load_builder("citations.py", monkeypatch)
    assert citations.cite("https://www.smbom.com/news/13059").endswith(
        "https://www.smbom.com/news/13059"
    )
    with pytest.raises(KeyError, match="add it to fixtures/sources/citations.json"):
        citations.cite("https://example.org/a-page-nobody-recorded")
