"""China's provinces as licence numbers, filing numbers and the catalog write them.

A licence or filing number starts with the province's one-character abbreviation (``豫B2-…``,
``黔ICP备…``); the catalog records a data center's province in English ("Guizhou") or in
Chinese ("贵州", "贵州省"). :func:`province_names` gives both names, so a message can show the
Chinese one on a Chinese page (the ``_zh`` parameter convention, advisor/domain/i18n.py).
"""

from __future__ import annotations

# One-character province abbreviations used in licence and filing numbers.
PROVINCES = {
    "京": ("北京", "beijing"),
    "津": ("天津", "tianjin"),
    "冀": ("河北", "hebei"),
    "晋": ("山西", "shanxi"),
    "蒙": ("内蒙古", "inner mongolia"),
    "辽": ("辽宁", "liaoning"),
    "吉": ("吉林", "jilin"),
    "黑": ("黑龙江", "heilongjiang"),
    "沪": ("上海", "shanghai"),
    "苏": ("江苏", "jiangsu"),
    "浙": ("浙江", "zhejiang"),
    "皖": ("安徽", "anhui"),
    "闽": ("福建", "fujian"),
    "赣": ("江西", "jiangxi"),
    "鲁": ("山东", "shandong"),
    "豫": ("河南", "henan"),
    "鄂": ("湖北", "hubei"),
    "湘": ("湖南", "hunan"),
    "粤": ("广东", "guangdong"),
    "桂": ("广西", "guangxi"),
    "琼": ("海南", "hainan"),
    "渝": ("重庆", "chongqing"),
    "川": ("四川", "sichuan"),
    "黔": ("贵州", "guizhou"),
    "滇": ("云南", "yunnan"),
    "藏": ("西藏", "tibet"),
    "陕": ("陕西", "shaanxi"),
    "甘": ("甘肃", "gansu"),
    "青": ("青海", "qinghai"),
    "宁": ("宁夏", "ningxia"),
    "新": ("新疆", "xinjiang"),
}


def same_province(abbreviation: str, province: str) -> bool:
    """Whether ``province`` (abbreviation, Chinese or English name) is ``abbreviation``'s."""
    text = province.strip().lower()
    if abbreviation not in PROVINCES:
        return False
    chinese, english = PROVINCES[abbreviation]
    return text in (abbreviation, english) or text.startswith(chinese)


def province_names(province: str | None) -> tuple[str, str] | None:
    """(English name, Chinese name) of ``province`` (abbreviation, Chinese or English name)."""
    text = (province or "").strip()
    for abbreviation, (chinese, english) in PROVINCES.items():
        if same_province(abbreviation, text):
            return english.title(), chinese
    return None
