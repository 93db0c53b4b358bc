import pytest
from django.utils import translation

from advisor.domain.compliance.engine import RULE_NAMES, rule_name
from advisor.domain.i18n import Message
from advisor.presentation.text import other_language, render_text
from advisor.templatetags.domain_text import cite

ZH_PUE = "PUE 与政策区域限值"


@pytest.mark.parametrize(
    ("value", "en", "zh"),
    [
        (Message("Spare parts"), "Spare parts", "备品备件"),
        (
            {"template": "not a domestic accelerator", "params": {}},
            "not a domestic accelerator",
            "不是国产加速卡",
        ),
        (
            Message("fails a veto check: {rule}", {"rule": rule_name("SITE-PUE")}),
            "fails a veto check: " + RULE_NAMES["SITE-PUE"],
            "未通过否决项检查：" + ZH_PUE,
        ),
        ("Thermal throttling", "Thermal throttling", "过热降频"),
        (None, "", ""),
    ],
)
def test_messages_render_in_both_languages(value, en, zh):
    with translation.override("en"):
        assert render_text(value) == en
    with translation.override("zh-hans"):
        assert render_text(value) == zh


def test_untranslated_template_still_shows_its_figures():
    message = {"template": "An unknown sentence with {n} items", "params": {"n": 3}}
    with translation.override("zh-hans"):
        assert render_text(message) == "An unknown sentence with 3 items"


@pytest.mark.parametrize(
    ("kind", "flag", "en", "zh", "low"),
    [
        ("aggregator", "LOW", "aggregator or repost", "聚合网站或转载", True),
        ("blog", "LOW", "blog", "博客", True),
        ("press", "PRESS", "press report", "新闻报道", False),
        ("official", "OFF-T", "official document or price list", "官方文件或价目表", False),
    ],
)
def test_figure_basis_shows_the_source_kind_and_marks_low_quality(kind, flag, en, zh, low):
    from django.template.loader import render_to_string

    figure = {"basis_label": "example price, not a quote", "flag": flag, "kind": kind}
    with translation.override("en"):
        html = render_to_string("includes/figure_basis.html", {"a": figure})
        assert en in html
        assert ("low-quality source" in html) is low
    with translation.override("zh-hans"):
        html = render_to_string("includes/figure_basis.html", {"a": figure})
        assert zh in html
        assert ("低质量来源" in html) is low


def test_figure_basis_without_a_kind_shows_none():
    from django.template.loader import render_to_string

    with translation.override("en"):
        html = render_to_string("includes/figure_basis.html", {"a": {"basis_label": "your figure"}})
    assert html.strip() == "your figure"


@pytest.mark.parametrize(
    ("text", "en", "zh"),
    [
        ("GB 40879-2021《数据中心能效限定值及能效等级》", "zh-Hans", None),
        ("[official] Guizhou DRC tariff notice, 2023-06", None, "en"),
        ("https://www.gov.cn/zhengce/", None, "en"),
        ("2024-07", None, None),  # no letters: no language of its own
        ("", None, None),
    ],
)
def test_a_citation_in_the_other_language_carries_its_lang(text, en, zh):
    """WCAG 3.1.2: a part in the language the page is not written in says which it is."""
    with translation.override("en"):
        assert other_language(text) == en
        assert (f'lang="{en}"' in cite(text)) is bool(en)
    with translation.override("zh-hans"):
        assert other_language(text) == zh
        assert (f'lang="{zh}"' in cite(text)) is bool(zh)
