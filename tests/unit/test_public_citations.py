"""Citations name public documents, never the project's internal notes (issue 27, decision 0026).

A reader can open a standard, a law, a notice or a URL; nobody outside the team can open
"research §3.7", "Catalog record", "Issue 4" or "source article S3". The source article (an
advertorial) may be cited only for what the buyer asks for, in the fixed words of
``citations.BUYER_REQUIREMENT``. Checked: every citation a finding, a threshold or a delivery
item shows, in English and in its Chinese translation; every translation catalogue; the
catalog fixtures' sources; string literals in the code and templates that word citations.
"""

import ast
import io
import json
import re
import tokenize
from pathlib import Path

import polib
import pytest

from advisor.domain.compliance import citations
from advisor.domain.compliance.engine import CLOUD_RULES, RULES
from advisor.domain.compliance.parameters import DEFINITIONS
from advisor.domain.delivery import checklist
from advisor.domain.hardware import AcceleratorSpec

ROOT = Path(__file__).resolve().parents[2]

# Internal notes, in both languages: the research files and their sections, the catalog as
# its own authority, issue numbers, the source article's item codes.
INTERNAL_NOTE = re.compile(
    r"research\s*§|research/[\w-]+\.md|research hardware|hardware-site-facts|"
    r"china-costs-policy|data-audit-|catalog-corrections|调研\s*§|调研 [a-z]|"
    r"(?-i:Catalog record)(?=[;,.]|$)|目录记录；|"
    r"\bIssue \d+|需求第\s*\d+\s*项|"
    r"[Ss]ource article:? [SVHAOG]\d|原文\s*[SVHAOG]\d|"
    r"/work/notes|\.\./shared",
    re.IGNORECASE,
)
# Outside the fixed phrase, "source article" / 来源文章 / 原文 may not appear in a citation.
ARTICLE_WORDS = re.compile(r"source article|来源文章|原文")
BUYER_PHRASES = re.compile(
    re.escape(citations.BUYER_REQUIREMENT) + "|" + re.escape(citations.BUYER_REQUIREMENT_ZH)
)
# A citation names a document: a standard or law number, a title in 《》, a URL, or says
# plainly that no public document sets the figure.
NAMES_A_DOCUMENT = re.compile(
    r"https?://|《|\b(GB|GB/T|YD/T|ISO|ISO/IEC|IAF MD|ITU-T|ASHRAE)\b|FR Doc\.|"
    r"rule of thumb|经验|no public (standard|rule|document)|无公开",
    re.IGNORECASE,
)


def _catalogue(path: Path) -> dict[str, str]:
    return {
        entry.msgid: entry.msgstr
        for entry in polib.pofile(str(path))
        if entry.msgstr and not entry.obsolete and "fuzzy" not in entry.flags
    }


PO_FILES = sorted(
    p
    for p in ROOT.rglob("zh_Hans/LC_MESSAGES/django.po")
    if not {".venv", "var", "node_modules"} & set(p.relative_to(ROOT).parts)
)
CHINESE = {}
for _path in PO_FILES:
    CHINESE.update(_catalogue(_path))


def _delivery_citations() -> set[str]:
    found = set()
    for stack in ("cuda", "rocm", "cann", "other"):
        accelerator = AcceleratorSpec(
            key="x",
            maker="m",
            name="x",
            architecture="a",
            memory_gb=80,
            memory_bandwidth_tbps=None,
            bf16_dense_tflops=None,
            fp8_dense_tflops=None,
            tdp_w=None,
            interconnect_kind="k",
            interconnect_bandwidth_gbs=900,
            software_stack=stack,
        )
        inputs = checklist.DeliveryInputs(accelerator, None, gpus_per_server=8, servers=2)
        items = [
            *checklist.acceptance_checklist(inputs),
            *checklist.operating_risks(inputs),
            *checklist.contract_terms(),
        ]
        found |= {item.citation for item in items}
    return found


def shown_citations() -> list[tuple[str, str]]:
    """(where, English citation) for everything the product prints as a citation."""
    shown = {(f"rule {rule.id}", rule.citation) for rule in (*RULES, *CLOUD_RULES)}
    shown |= {(f"parameter {d.key}", d.citation) for d in DEFINITIONS}
    shown |= {("delivery checklist", text) for text in _delivery_citations()}
    return sorted(shown)


def check_citation(text: str) -> list[str]:
    """What is wrong with one citation (empty when nothing is)."""
    problems = []
    if INTERNAL_NOTE.search(text):
        problems.append(f"names an internal note: {INTERNAL_NOTE.search(text).group(0)!r}")
    if ARTICLE_WORDS.search(BUYER_PHRASES.sub("", text)):
        problems.append("cites the source article other than as the buyer's requirement")
    if not NAMES_A_DOCUMENT.search(text) and not BUYER_PHRASES.search(text):
        problems.append("names no public document and does not say that none sets it")
    return problems


@pytest.mark.parametrize(
    ("citation", "problem"),
    [
        ("GB 50174-2017《数据中心设计规范》, Appendix A", None),
        ("Buyer's requirement (source article): UPS at least 30 min", None),
        ("采购方要求（来源文章）：UPS 不少于 30 分钟", None),
        ("Industry rule of thumb (vendor white papers): about 30 kW per rack", None),
        ("Source article S3", "internal note"),
        ("原文 S5：机房温度设定在 18-25 °C", "internal note"),
        ("Rack-density bands (research §3.7, G1)", "internal note"),
        ("机柜功率密度分档（调研 §3.7，G1）", "internal note"),
        ("Catalog record; BIS rules", "internal note"),
        ("目录记录；调研 hardware-site-facts §4.5", "internal note"),
        ("Issue 4: anything expiring within 90 days is a warning", "internal note"),
        ("需求第 4 项：90 天内到期的一律给出警告", "internal note"),
        ("Research china-costs-policy §6.2: prices go stale after 90 days", "internal note"),
        ("The source article asks for 15 s", "source article"),
        ("GB 50174-2017; source article", "source article"),
        ("Vendor practice", "names no public document"),
    ],
)
def test_the_rule_itself(citation, problem):
    problems = check_citation(citation)
    if problem is None:
        assert problems == []
    else:
        assert any(problem in text for text in problems), problems


@pytest.mark.parametrize(("where", "citation"), shown_citations(), ids=lambda v: str(v)[:60])
def test_every_citation_shown_names_public_documents_in_both_languages(where, citation):
    assert check_citation(citation) == [], where
    chinese = CHINESE.get(citation)
    assert chinese, f"{where}: no Chinese translation"
    assert check_citation(chinese) == [], f"{where} (zh): {chinese}"


def test_chinese_citations_give_chinese_titles_and_english_ones_a_gloss():
    # A Chinese law or standard keeps its Chinese title in both languages; the English text
    # glosses it in parentheses right after the title.
    for where, citation in shown_citations():
        for title in re.findall(r"《[^》]+》", citation):
            after = citation.split(title, 1)[1]
            assert after.startswith(" (") or after.startswith("("), (where, title)
            assert title in CHINESE[citation], (where, title)


@pytest.mark.parametrize("path", PO_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_translation_cites_an_internal_note(path):
    hits = [
        f"{entry.linenum}: {text[:100]}"
        for entry in polib.pofile(str(path))
        if not entry.obsolete
        for text in (entry.msgid, entry.msgstr)
        if text and INTERNAL_NOTE.search(text)
    ]
    assert not hits, "\n".join(hits)


def _fixture_sources():
    for path in sorted((ROOT / "fixtures").rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        stack = [data]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                for key, value in item.items():
                    if isinstance(value, str) and (key == "source" or key.endswith("_source")):
                        yield path, key, value
                    else:
                        stack.append(value)
            elif isinstance(item, list):
                stack.extend(item)
        if path.name == "citations.json":
            for key, value in data.items():
                yield path, key, json.dumps(value, ensure_ascii=False)


def test_no_catalog_source_cites_an_internal_note():
    hits = [
        f"{path.relative_to(ROOT)} {key}: {INTERNAL_NOTE.search(text).group(0)}"
        for path, key, text in _fixture_sources()
        if INTERNAL_NOTE.search(text)
    ]
    assert not hits, "\n".join(hits[:20])


# Code that words citations, findings, delivery items and questions, and the templates that
# show them: their string literals (not comments) must not name an internal note.
CODE = [
    *sorted((ROOT / "advisor/domain/compliance").rglob("*.py")),
    *sorted((ROOT / "advisor/domain/delivery").rglob("*.py")),
    *sorted((ROOT / "advisor/domain/questionnaire").rglob("*.py")),
]
TEMPLATES = [
    ROOT / "templates/results/option.html",
    ROOT / "templates/results/compare.html",
    *sorted((ROOT / "advisor/brief/templates").rglob("*.html")),
    *sorted((ROOT / "advisor/questionnaire/templates").rglob("*.html")),
]


def _string_literals(path: Path):
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    for token in tokens:
        if token.type == tokenize.STRING:
            try:
                value = ast.literal_eval(token.string)
            except (ValueError, SyntaxError):
                value = token.string
            yield token.start[0], str(value)


@pytest.mark.parametrize("path", CODE, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_string_in_the_code_cites_an_internal_note(path):
    hits = [
        f"{line}: {text[:80]}"
        for line, text in _string_literals(path)
        if INTERNAL_NOTE.search(text)
    ]
    assert not hits, "\n".join(hits)


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_template_cites_an_internal_note(path):
    text = re.sub(r"{#.*?#}", "", path.read_text(encoding="utf-8"), flags=re.S)
    assert not INTERNAL_NOTE.search(text)
