"""A Chinese brief shows the catalog's notes and sources in Chinese or as labelled originals
(buyer review NM10, decision 0148): notes the translation memory holds are in Chinese, a source
titled in English keeps its title marked "英文原文", a Chinese original keeps its own title, a
cloud's provider and region appear once, in Chinese; the English brief shows them as recorded."""

import json
import re

import pytest
from django.utils import translation

from advisor.brief.generation import meta
from advisor.brief.render import catalog_rows, render_html
from advisor.brief.services import issue_brief
from advisor.presentation.catalog_text import MEMORY, catalog_text
from advisor.recommendation.run import run_recommendation
from advisor.roles import PROCUREMENT_STAFF
from advisor.templatetags.domain_text import cite
from tests.support.scenarios import QWEN_7B_LORA, scenario
from tests.support.users import make_user

pytestmark = pytest.mark.django_db

# Job A of the review, one-off: the 7B LoRA at a Guiyang data center; its top options are
# Ascend cloud offers and it names the H800 bought at a dealer's price reported by Caixin.
JOB = scenario(QWEN_7B_LORA, site={"data_centers": ["cmcc-guizhou-dc"]})


@pytest.fixture
def briefs(brief_ready, django_capture_on_commit_callbacks):
    from tests.support.catalog import load_catalog

    load_catalog()
    buyer = make_user("buyer-catalog-text", PROCUREMENT_STAFF, password="pw")
    options = run_recommendation(JOB).recommendation.rankings["recommended"]
    ascend = next(o for o in options if o.hardware.accelerator.key.startswith("ascend"))
    made = {}
    for language in ("zh-hans", "en"):
        brief = issue_brief(user=buyer, document=JOB, option_key=ascend.key, language=language)
        made[language] = brief
    return made


def text(html: str) -> str:
    html = re.sub(r"<(style|script)[^>]*>.*?</\1>", " ", html, flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_notes_in_chinese_and_english_titles_marked(briefs):
    brief = briefs["zh-hans"]
    page = text(render_html(brief.snapshot, meta(brief, approved=False)))
    assert "国产产品（不属于美国出口管制物项）。" in page
    assert "Domestic Chinese product" not in page
    assert "8 卡 HCCS 基板上的 NPU 模组（Atlas 800T A2）" in page
    assert "英文原文：" in page  # an English-titled source, kept and marked
    assert "来源按原始资料的原题著录" in page
    # Names inside the sizing and compliance sentences are the Chinese ones too.
    assert "Shengsuan Cloud" not in page and "(910B1-B3" not in page
    assert "昇腾 910B 64GB" in page
    with translation.override("zh-hans"):
        rows = catalog_rows(brief.snapshot)
    names = [name for row in rows for name, _value, _kind in row["figures"]]
    assert not [n for n in names if n.endswith("（中文）")], "a provider or region twice"
    for row in rows:
        for name, value, kind in row["figures"]:
            if kind != "quote":
                continue
            with translation.override("zh-hans"):
                _kind, shown, english = catalog_text(value)
                rendered = str(cite(value))
            assert not english or "英文原文" in rendered, (name, value)


def test_the_english_brief_shows_the_catalog_as_recorded(briefs):
    brief = briefs["en"]
    page = text(render_html(brief.snapshot, meta(brief, approved=False)))
    assert "Domestic Chinese product (not a US export item)." in page
    assert "英文原文" not in page and "English original" not in page


@pytest.mark.parametrize(
    ("line", "marked"),
    [
        ("[official] Implementation of Additional Export Controls. BIS, 2023.", True),
        ("[blog] GPU 进阶笔记（二）：华为昇腾 910B GPU 相关（2023）. Arthur Chiao, blog.", False),
        (
            "[vendor] 胜算云 compute price list, observed 2026-07-15: https://www.shengsuanyun.com/hashrate",
            False,
        ),
        ("HBM3", False),
    ],
)
def test_a_source_line_is_judged_by_its_title(line, marked):
    with translation.override("zh-hans"):
        kind, shown, english = catalog_text(line)
    assert english is marked
    assert kind == "" or not kind.startswith("[")  # the tag is worded, not printed raw
    with translation.override("en"):
        assert catalog_text(line) == ("", line, False)


def test_the_memory_keeps_every_figure_and_address():
    """A translation says what the note says: the same numbers and web addresses."""
    memory = json.loads(MEMORY.read_text(encoding="utf-8"))
    number = re.compile(r"\d+(?:[.,]\d+)*")
    address = re.compile(r"https?://[\x21-\x7e]+")
    for english, chinese in memory.items():
        assert re.search(r"[\u4e00-\u9fff]", chinese), english
        ends = ").;,'\""
        assert {a.rstrip(ends) for a in address.findall(english)} == {
            a.rstrip(ends) for a in address.findall(chinese)
        }, english
        figures = {n.replace(",", "") for n in number.findall(english)}
        missing = {n for n in figures if n not in chinese.replace(",", "")}
        assert not missing, (english, missing)


def test_provinces_read_in_the_readers_language():
    from advisor.templatetags.domain_text import province

    with translation.override("zh-hans"):
        assert province("Guizhou") == "贵州省" and province("Inner Mongolia") == "内蒙古自治区"
        assert province("Atlantis") == "Atlantis" and province(None) == ""
    with translation.override("en"):
        assert province("Guizhou") == "Guizhou"
