import pytest
from django.utils import translation

from advisor.domain.i18n import Message
from advisor.presentation.text import render_text


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
            Message("fails a blocking check: {rule}", {"rule": "SITE-PUE"}),
            "fails a blocking check: SITE-PUE",
            "未通过否决项检查：SITE-PUE",
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
