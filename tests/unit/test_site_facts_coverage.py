"""What the catalog fixtures hold for the sites (issue 45, site side; docs/catalog.md): every
site, tariff and rack-fee record has its sources, each line with a kind, and a date; no source
is a staging host; the Qingyang (Gansu) and Helinger/Wulanchabu (Inner Mongolia) hubs have a
real data center; and where the coverage the issue asks for is not reached yet (own PUE for
70 % of real data centers, a tariff table of the last 24 months in every province with one, rack
fees for five regions), the gaps are exactly the ones docs/catalog.md names, so a new gap or a
closed one shows here; so are the provinces whose current table rests only on low-quality
sources.

The fixtures are read as JSON (what ``load_catalog`` loads); dates are measured from the date the
sources were read (``build_sites.AS_OF``), never from today, so the test does not age.
"""

import json
import re
from datetime import date
from pathlib import Path

from advisor.domain.sources import source_lines

CATALOG = Path(__file__).resolve().parents[2] / "fixtures" / "catalog"
READ_ON = date(2026, 12, 1)  # fixtures/build_sites.py AS_OF: the date the sources were read
FRESH_MONTHS = 24
STAGING = re.compile(r"https?://(?:[\w-]+\.)*staging[\w-]*\.", re.IGNORECASE)
# Root regions (a zone's top parent) whose real data centers have no official, complete
# time-of-use table of the last 24 months: docs/catalog.md "Known gaps".
KNOWN_TARIFF_GAPS = {
    "national-hub-nodes",  # Hebei: no State Grid Jibei table yet (the sites' zone chain ends here)
    "shanghai",  # the 2025-05 table has its valley price only
    "inner-mongolia",  # a 2015 press figure
    "ningxia",  # a 2020 press figure read on a repost
    "gansu",  # an aggregator's figure
}
# Regions whose fresh, complete table rests only on low-quality sources (LOW): Guizhou's band
# prices are derived, Beijing's 2026-07 table was read only as a transcription of an archive,
# Guangdong's Shaoguan sites have only the northern region's below-1 kV row.
LOW_ONLY_TABLES = {"guizhou", "beijing", "guangdong"}
# Real data centers with a PUE of their own (design or measured). Issue 45 asks for 70 %;
# the sources read give these only (docs/catalog.md "Known gaps").
OWN_PUE = {
    "ctc-guizhou-info-park",
    "chindata-zhangjiakou",
    "ctc-ningxia-zhongwei-ai",
}
RACK_FEE_REGIONS = {"guangdong", "shanghai", "hebei"}  # plus the national fallback


def records(name: str) -> list[dict]:
    return [r["fields"] for r in json.loads((CATALOG / name).read_text(encoding="utf-8"))]


ZONES = {z["key"]: z for z in records("30_policy_zones.json")}
TARIFFS = records("35_tariffs.json")
RACK_FEES = records("36_rack_fees.json")
SITES = records("50_data_centers.json")
REAL = [d for d in SITES if not d["is_example"]]


def root(zone_key: str) -> str:
    while ZONES[zone_key].get("parent"):
        zone_key = ZONES[zone_key]["parent"][0]
    return zone_key


def chain(zone_key: str) -> list[str]:
    keys = [zone_key]
    while ZONES[keys[-1]].get("parent"):
        keys.append(ZONES[keys[-1]]["parent"][0])
    return keys


def months_old(month: str) -> int:
    day = date.fromisoformat(month)
    return (READ_ON.year - day.year) * 12 + READ_ON.month - day.month


def complete_table(tariff: dict) -> bool:
    bands = ("flat_cny_per_kwh", "peak_cny_per_kwh", "valley_cny_per_kwh")
    return all(tariff[b] is not None for b in bands)


def test_every_site_tariff_and_rack_fee_record_has_kinded_sources_and_a_date():
    for name in ("30_policy_zones.json", "35_tariffs.json", "36_rack_fees.json"):
        for record in records(name):
            assert record["as_of"], (name, record["key"])
            assert record["source"].strip(), (name, record["key"])
            for kind, line in source_lines(record["source"]):
                assert kind, (name, record["key"], line)
    for site in SITES:
        assert site["as_of"] and site["source"].strip(), site["key"]
        assert all(kind for kind, _ in source_lines(site["source"])), site["key"]


def test_no_source_or_url_is_a_staging_host():
    for path in sorted(CATALOG.glob("*.json")):
        text = path.read_text(encoding="utf-8")
        assert not STAGING.search(text), path.name


def test_the_qingyang_and_inner_mongolia_hubs_have_a_real_data_center():
    gansu = [d for d in REAL if d["province"] == "Gansu" and "Qingyang" in d["city"]]
    assert gansu and all(d["vendor"] for d in gansu)
    mongolia = [
        d
        for d in REAL
        if d["province"] == "Inner Mongolia"
        and any(place in d["city"] for place in ("Helinger", "Horinger", "Ulanqab", "Wulanchabu"))
    ]
    assert mongolia and all(d["vendor"] for d in mongolia)


def test_real_data_centers_with_their_own_pue_are_the_known_ones():
    own = {d["key"] for d in REAL if d["pue_measured"] is not None or d["pue_design"] is not None}
    assert own == OWN_PUE
    for site in REAL:
        if site["key"] in own:
            pue = site["pue_measured"] or site["pue_design"]
            assert 1 <= pue < 2, site["key"]
            assert "PUE" in site["notes"], site["key"]  # what the figure is and its scope


def fresh_tables(site: dict) -> list[dict]:
    zones = chain(site["policy_zone"][0])
    return [
        t
        for t in TARIFFS
        if t["policy_zone"][0] in zones
        and complete_table(t)
        and months_old(t["month"]) <= FRESH_MONTHS
    ]


def test_provinces_without_a_fresh_official_table_are_the_known_gaps():
    gaps = {root(site["policy_zone"][0]) for site in REAL if not fresh_tables(site)}
    assert gaps == KNOWN_TARIFF_GAPS


def test_provinces_whose_fresh_table_is_only_low_quality_are_the_known_ones():
    low_only = set()
    for site in REAL:
        tables = fresh_tables(site)
        if tables and all(t["flag"] == "LOW" for t in tables):
            low_only.add(root(site["policy_zone"][0]))
    assert low_only == LOW_ONLY_TABLES


def test_rack_fees_are_recorded_for_the_known_regions_and_nationally():
    regions = {root(f["policy_zone"][0]) for f in RACK_FEES if f["policy_zone"]}
    assert regions == RACK_FEE_REGIONS
    assert any(f["policy_zone"] is None for f in RACK_FEES)
    for fee in RACK_FEES:
        assert fee["published_on"] and fee["url"], fee["key"]
