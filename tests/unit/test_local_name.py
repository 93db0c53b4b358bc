"""One helper picks the name a reader sees: Chinese on Chinese pages, English elsewhere."""

from dataclasses import dataclass

import pytest

from advisor.domain.compliance.facts import DataCenterFacts, VendorFacts
from advisor.domain.i18n import Message, local_name, localised


@dataclass
class Row:
    name: str
    name_zh: str = ""
    city: str = ""
    city_zh: str = ""


SITE = DataCenterFacts(
    key="ctc", name="China Telecom Park", name_zh="中国电信信息园", city="Gui'an", city_zh="贵安"
)
NO_ZH = VendorFacts(key="x", name="简米科技")
SNAPSHOT = {"name": "China Mobile", "name_zh": "中国移动"}
OLD_SNAPSHOT = {"name": "VNET"}  # stored before the Chinese names


@pytest.mark.parametrize(
    ("record", "language", "field", "expected"),
    [
        (SITE, "zh-hans", "name", "中国电信信息园"),
        (SITE, "zh", "name", "中国电信信息园"),
        (SITE, "en", "name", "China Telecom Park"),
        (SITE, None, "name", "China Telecom Park"),
        (SITE, "zh-hans", "city", "贵安"),
        (SITE, "en", "city", "Gui'an"),
        (NO_ZH, "zh-hans", "name", "简米科技"),  # no Chinese name: the name
        (NO_ZH, "en", "name", "简米科技"),
        (SNAPSHOT, "zh-hans", "name", "中国移动"),
        (SNAPSHOT, "en", "name", "China Mobile"),
        (OLD_SNAPSHOT, "zh-hans", "name", "VNET"),
        ("酷番云", "en", "name", "酷番云"),  # a plain string is shown as it is
        (None, "zh-hans", "name", ""),
        (Row("Chindata", "秦淮数据"), "zh-hans", "name", "秦淮数据"),
        (Row("Chindata", ""), "zh-hans", "name", "Chindata"),
        (Row("Chindata", "秦淮数据"), "en-us", "name", "Chindata"),
        (DataCenterFacts(), "zh-hans", "name", ""),  # nothing known: empty, never "None"
    ],
)
def test_local_name(record, language, field, expected):
    assert local_name(record, language, field) == expected


SITE_PARAMS = {"other": "DEMO: Shanghai", "other_zh": "演示:上海", "base": "Gui'an", "base_zh": ""}


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("zh-hans", "演示:上海 / Gui'an"),  # an empty Chinese value leaves the name as it is
        ("en", "DEMO: Shanghai / Gui'an"),
        (None, "DEMO: Shanghai / Gui'an"),
    ],
)
def test_message_parameters_in_the_readers_language(language, expected):
    message = Message("{other} / {base}", SITE_PARAMS)
    assert message.template.format(**localised(message.params, language)) == expected
    assert localised(SITE_PARAMS, "en") is SITE_PARAMS  # nothing copied for other readers
