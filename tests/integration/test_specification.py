"""The technical specification (技术规格书) of the standard 32B LoRA job: a Word document that
reads back (python-docx round trip), ★/▲ lines from the rules' severities, no brand or model
name of the catalog in it, a preface table with known values or marked blanks, acceptance tests
from the checklist; the PDF in both languages; the command and the brief's downloads."""

from __future__ import annotations

import hashlib
import io
import json
import re
import subprocess
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import translation
from docx import Document

from advisor.brief.models import AuditAction, AuditEvent
from advisor.brief.snapshot import brief_snapshot
from advisor.brief.specification import (
    IMPORTANT,
    MANDATORY,
    NOT_REQUIREMENTS,
    docx_bytes,
    pdf_bytes,
    specification,
)
from advisor.presentation.text import render_text
from advisor.recommendation.run import run_recommendation
from advisor.roles import PROCUREMENT_STAFF
from tests.support.briefs import issue_through_the_page
from tests.support.catalog import load_catalog
from tests.support.scenarios import QWEN_32B_LORA
from tests.support.users import make_user
from vendors import models as catalog

pytestmark = pytest.mark.django_db


@pytest.fixture
def run_32b():
    load_catalog()
    return run_recommendation(QWEN_32B_LORA)


def snapshot_for(run, mode: str) -> dict:
    chosen = next(o for o in run.recommendation.rankings["recommended"] if o.mode == mode)
    return brief_snapshot(
        scenario=run.scenario,
        procurement=run.procurement,
        recommendation=run.recommendation,
        chosen_key=chosen.key,
        today=run.today,
    )


def catalog_names() -> set[str]:
    """Every brand and model name the catalog holds: accelerators and servers (name, maker,
    key), hosting vendors, data centers and cloud providers, in both languages."""
    names = set()
    for model, fields in (
        (catalog.Accelerator, ("key", "name", "name_zh", "maker", "maker_zh")),
        (catalog.ServerModel, ("key", "name", "name_zh", "maker", "maker_zh")),
        (catalog.HostingVendor, ("key", "name", "name_zh")),
        (catalog.DataCenter, ("key", "name", "name_zh")),
        (catalog.Offer, ("provider", "provider_zh")),
    ):
        for row in model.objects.values_list(*fields):
            names |= {value for value in row if value and len(value) > 1}
    return names - {"Various OEMs", "多家 OEM"}  # a server's maker when many build it


def brands_in(text: str, names: set[str]) -> list[str]:
    found = []
    for name in names:
        pattern = re.escape(name)
        if name.isascii():
            pattern = rf"(?<![\w-]){pattern}(?![\w-])"
            if re.search(pattern, text, flags=re.IGNORECASE):
                found.append(name)
        elif name in text:
            found.append(name)
    return found


def docx_text(data: bytes) -> tuple[list[str], list[list[str]]]:
    document = Document(io.BytesIO(data))
    paragraphs = [p.text for p in document.paragraphs]
    rows = [[c.text for c in row.cells] for table in document.tables for row in table.rows]
    return paragraphs, rows


@pytest.mark.parametrize("mode", ["buy", "cloud"])
def test_docx_round_trip_marks_from_rules_and_no_brand_names(run_32b, mode):
    snapshot = snapshot_for(run_32b, mode)
    option = snapshot["options"][0]
    with translation.override("en"):
        spec = specification(snapshot, "FT-2026-000042")
        data = docx_bytes(spec)
    paragraphs, rows = docx_text(data)
    assert paragraphs[0] == "Technical specification: computing capacity for fine-tuning"
    assert "FT-2026-000042" in paragraphs

    # Every requirement line is in the document, with its mark.
    for line in spec.requirement_lines():
        assert f"{line.mark} {line.text}".strip() in paragraphs
    marked = [p for p in paragraphs if p[:1] in (MANDATORY, IMPORTANT)]
    assert any(p.startswith(MANDATORY) for p in marked)
    assert any(p.startswith(IMPORTANT) for p in marked)

    # ★ for a blocker rule, ▲ for a warning: each rule's line starts with its severity's mark.
    with translation.override("en"):
        for finding in option["compliance"]["findings"]:
            if finding["severity"] == "advice" or finding["rule_id"] in NOT_REQUIREMENTS:
                continue
            if finding["rule_id"] in {"HW-INTRANODE-LINK", "HW-INTERNODE-NIC"}:
                continue  # stated from the sizing (interconnect, network)
            if finding["rule_id"].startswith("HW-NVME"):
                continue
            title = render_text(finding["title"])
            lines = [p for p in marked if p[2:].startswith(title + ":") or p[2:] == title]
            assert lines, title
            expected = MANDATORY if finding["severity"] == "blocker" else IMPORTANT
            assert all(p.startswith(expected) for p in lines), (title, lines)

    # Memory and the accelerator count are pass/fail: ★.
    memory = next(p for p in marked if p.startswith(f"{MANDATORY} Memory per accelerator"))
    assert f"{option['sizing']['memory_total_gib']:.0f}" in memory or "GiB" in memory
    assert any(p.startswith(f"{MANDATORY} Accelerators: at least") for p in marked)

    # Preface table: known values filled, the rest marked blanks.
    preface = dict(rows)
    assert preface["Procurement mode"] in ("Buy and host", "Cloud GPU-hours")
    assert "accelerators" in preface["Quantity"]
    for unknown in ("Budget", "Requesting department", "Accepting department", "Delivery"):
        assert preface[unknown] == "[to be filled in]"

    # Acceptance tests come from the checklist, one per item.
    start = paragraphs.index(spec.acceptance_title)
    tests = [p for p in paragraphs[start + 1 :] if re.match(r"\d+\. ", p)]
    assert len(tests) == len(option["delivery"]["acceptance"]) >= 3

    # No brand or model name of the catalog, anywhere in the document.
    names = catalog_names()
    assert option["accelerator"]["name"] in names and option["server"]["name"] in names
    assert brands_in(f"Supply 8 x {option['accelerator']['name']}.", names)  # the check bites
    everything = "\n".join(paragraphs + [cell for row in rows for cell in row])
    assert brands_in(everything, names) == []


def test_budget_and_deadline_fill_the_preface(run_32b):
    document = {
        **QWEN_32B_LORA,
        "procurement": {"budget_cny": 3000000, "deadline": "2099-03-31"},
    }
    run = run_recommendation(document, today=run_32b.today)
    snapshot = snapshot_for(run, "buy")
    with translation.override("zh-hans"):
        spec = specification(snapshot)
    preface = {row.label: row for row in spec.preface}
    assert preface["预算"].known and "3,000,000" in preface["预算"].value
    assert preface["交付"].known and "2099-03-31" in preface["交付"].value
    assert not preface["需求部门"].known and preface["需求部门"].value == "［待填写］"


@pytest.mark.parametrize(("language", "words"), [("en", "Acceptance tests"), ("zh-hans", "验收")])
def test_pdf_in_both_languages(run_32b, language, words, tmp_path):
    snapshot = snapshot_for(run_32b, "buy")
    with translation.override(language):
        data = pdf_bytes(specification(snapshot, "FT-2026-000042"))
    path = tmp_path / "spec.pdf"
    path.write_bytes(data)
    text = subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout
    assert words in text and "★" in text and "▲" in text and "FT-2026-000042" in text
    assert brands_in(text, catalog_names()) == []


def test_command_writes_docx_and_pdf_and_refuses_bad_input(run_32b, tmp_path):
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps(QWEN_32B_LORA))
    for fmt in ("docx", "pdf"):
        out = tmp_path / f"spec.{fmt}"
        stdout = StringIO()
        call_command(
            "specification", "--input", str(scenario), "--option", "2", "--language", "en",
            "--format", fmt, "--output", str(out), stdout=stdout,
        )  # fmt: skip
        assert out.read_bytes()[:4] == (b"PK\x03\x04" if fmt == "docx" else b"%PDF")
    assert Document(str(tmp_path / "spec.docx")).paragraphs
    for args, words in (
        (("--option", "0"), "option: choose 1.."),
        (("--option", "100000"), "option: choose 1.."),
        (("--output", str(tmp_path / "missing" / "x.docx")), "does not exist"),
    ):
        arguments = {"--input": str(scenario), "--output": str(tmp_path / "x.docx")}
        arguments.update(dict([args]))
        with pytest.raises(CommandError) as caught:
            call_command("specification", *[x for pair in arguments.items() for x in pair])
        assert caught.value.returncode == 2 and words in str(caught.value)
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(CommandError) as caught:
        call_command("specification", "--input", str(bad), "--output", str(tmp_path / "x.pdf"))
    assert caught.value.returncode == 2 and "not valid JSON" in str(caught.value)


@pytest.mark.usefixtures("brief_ready", "one_page_briefs")
def test_brief_offers_its_specification_recorded_and_reproducible(
    client, django_capture_on_commit_callbacks
):
    buyer = make_user("buyer", PROCUREMENT_STAFF, password="pw")
    brief = issue_through_the_page(
        client, buyer, django_capture_on_commit_callbacks, language="zh-hans"
    )
    page = client.get(reverse("brief:detail", args=(brief.pk,))).content.decode()
    for kind in ("specification-docx", "specification-pdf"):
        assert reverse("brief:document", args=(brief.pk, kind)) in page
    url = reverse("brief:document", args=(brief.pk, "specification-docx"))
    first, second = client.get(url), client.get(url)
    assert first.content == second.content
    paragraphs, _rows = docx_text(first.content)
    assert paragraphs[0] == "技术规格书：微调算力" and brief.number in paragraphs
    pdf = client.get(reverse("brief:document", args=(brief.pk, "specification-pdf")))
    assert pdf["Content-Type"] == "application/pdf" and pdf.content.startswith(b"%PDF")
    events = AuditEvent.objects.filter(action=AuditAction.DOCUMENT_GENERATED, brief=brief)
    assert sorted(e.detail["document"] for e in events) == [
        "specification-docx",
        "specification-docx",
        "specification-pdf",
    ]
    digests = {e.detail["sha256"] for e in events if e.detail["document"] == "specification-docx"}
    assert digests == {hashlib.sha256(first.content).hexdigest()}
