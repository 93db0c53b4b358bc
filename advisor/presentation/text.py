"""Render the domain's translatable messages and catalog names in the reader's language.

The domain returns ``Message(template, params)`` objects, or their JSON form
``{"template": ..., "params": {...}}`` in stored snapshots, and bare ``N_()`` strings for
titles (docs/decisions/0002). :func:`render_text` translates the template first and fills in
the figures after; :func:`local_name` picks a catalog record's name for the reader.
"""

from __future__ import annotations

from decimal import Decimal
from functools import lru_cache
from string import Formatter

from django.utils.translation import get_language, gettext, ngettext

from advisor.domain.compliance.base import evidence_sentence
from advisor.domain.compliance.engine import rule_name
from advisor.domain.i18n import Code, Message, localised, plural_number
from advisor.domain.i18n import local_name as domain_local_name
from advisor.presentation.catalog_text import translated as catalog_translated
from advisor.presentation.labels import LABELS, label


def render_text(value) -> str:
    """A message, its stored JSON form or a bare ``N_`` string, in the active language."""
    if value is None:
        return ""
    if isinstance(value, Message):
        template_text, params = value.template, value.params
        forms = (value.plural, value.count) if value.plural else None
    elif isinstance(value, dict) and "template" in value:
        template_text, params = value["template"], value.get("params") or {}
        forms = (value["plural"], value.get("count") or "") if value.get("plural") else None
    else:
        return gettext(str(value)) if value != "" else ""
    language = get_language()
    key = _cache_key(language, template_text, params)
    if key is not None and forms is not None:
        key = (*key, forms)
    if key is None:
        return _rendered(language, template_text, params, forms)
    text = _RENDERED.get(key)
    if text is None:
        text = _rendered(language, template_text, params, forms)
        if len(_RENDERED) >= _RENDERED_KEPT:
            _RENDERED.clear()
        _RENDERED[key] = text
    return text


# The same message (a rule's finding on the same server at another site) is rendered once per
# language and process: a recommendation over every site words ~20,000 findings, most of them
# alike.
_RENDERED: dict = {}
_RENDERED_KEPT = 20_000


def _cache_key(language, template_text: str, params: dict) -> tuple | None:
    """Equal only for messages that render alike: each parameter by its type and ``repr`` (so
    ``True`` and ``1``, or ``Decimal("1.0")`` and ``Decimal("1.00")``, stay apart). None for a
    message with a nested message or another structured parameter: it is rendered each time
    (describing it would cost about as much)."""
    items = []
    for name, value in sorted(params.items()):
        kind = type(value)
        if kind is Code:
            items.append((name, kind, value.group, value.value))
        elif kind in _KEYABLE:
            items.append((name, kind, repr(value)))
        else:
            return None
    return (language, template_text, tuple(items))


_KEYABLE = frozenset({str, int, float, bool, Decimal, type(None)})


def _rendered(language, template_text: str, params: dict, forms=None) -> str:
    """``forms``: a counted message's English plural form and the name of its count."""
    english = template_text
    if forms is None:
        translated = gettext(template_text)
    else:
        plural, count = forms
        number = plural_number(params.get(count))
        translated = ngettext(template_text, plural, number)
        english = template_text if number == 1 else plural
    params = {key: _nested(value) for key, value in localised(dict(params), language).items()}
    params = _numbers_worded(translated, _numbers_read(english, params))
    try:
        return translated.format(**params)
    except (KeyError, IndexError, ValueError):
        # A translation that lost a placeholder must not hide the figures: fall back.
        return english.format(**params)


def _nested(value):
    """A parameter that is itself a message (e.g. the reason inside "In this config, …") or a
    coded value (a strategy) is rendered in the reader's language too."""
    if isinstance(value, Message) or (isinstance(value, dict) and "template" in value):
        return render_text(value)
    if isinstance(value, Code) or (isinstance(value, dict) and set(value) == {"group", "value"}):
        group, code = (value.group, value.value) if isinstance(value, Code) else value.values()
        return _coded(group, code)
    if isinstance(value, str):  # a catalog note or source named in it, as the reader reads it
        return catalog_translated(value)
    return value


def _coded(group: str, code: str) -> str:
    labels = LABELS.get(group)
    return label(labels, code) if labels is not None else str(code)


def _numbers_read(template_text: str, params: dict) -> dict:
    """A number stored as text (a stored snapshot keeps Decimals as strings) read back as a
    number where the template formats it as one (``{cost:,.0f}``)."""
    specs = _number_specs(template_text)
    if not specs:
        return params
    read = dict(params)
    for name, kind in specs.items():
        value = read.get(name)
        if isinstance(value, str):
            try:
                number = Decimal(value)
            except ArithmeticError:
                continue
            read[name] = int(number) if kind == "d" and number == int(number) else number
    return read


@lru_cache(maxsize=4096)
def _number_specs(template_text: str) -> dict:
    """``{name: format type}`` of the placeholders a template formats as numbers."""
    try:
        fields = list(Formatter().parse(template_text))
    except ValueError:
        return {}
    return {
        name: spec[-1] for _, name, spec, _ in fields if name and spec and spec[-1] in "dfFeEgGn%"
    }


def _numbers_worded(template_text: str, params: dict) -> dict:
    """Numbers a template places without a format spec, grouped for the reader: ``12,888``,
    ``0.6099``, ``1.25`` (Decimals keep their places, floats up to two). A placeholder with a
    spec (``{hours:,.0f}``) formats its number itself."""
    bare = _bare_fields(template_text)
    if bare is None:
        return params
    return {k: worded_number(v) if k in bare else v for k, v in params.items()}


@lru_cache(maxsize=4096)
def _bare_fields(template_text: str) -> frozenset | None:
    """The names a template places without a format spec (None: not a valid template)."""
    try:
        return frozenset(
            name for _, name, spec, _ in Formatter().parse(template_text) if name and not spec
        )
    except ValueError:
        return None


def worded_number(value):
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        return value
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, Decimal):
        if not value.is_finite():
            return str(value)
        value = value.normalize()
        places = max(0, -value.as_tuple().exponent)
        return f"{value:,.{places}f}"
    text = f"{value:,.2f}".rstrip("0").rstrip(".")
    return text if text not in ("-0", "") else "0"


def local_name(record, field: str = "name") -> str:
    """A catalog record's name (or ``field``, e.g. "city") in the active language."""
    return domain_local_name(record, get_language(), field)


def evidence_text(item) -> str:
    """One piece of a finding's evidence (an ``Evidence`` or its stored dict) as a sentence in
    the active language, e.g. "数据中心的 PUE 值未记录；所在政策区域要求不超过 1.2。"."""
    return render_text(evidence_sentence(item))


def rule_text(rule_id) -> str:
    """A compliance rule named in words in the active language (rule ids are for the brief's
    technical annex and the CLI's JSON only)."""
    return render_text(rule_name(str(rule_id)))


def _has_han(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf" for ch in text)


def other_language(text: str) -> str | None:
    """The ``lang`` of a text written in the language the reader does not read, else None: a
    Chinese document's title on an English page is "zh-Hans"; an English source line on a Chinese
    page is "en" (WCAG 3.1.2, language of parts). Text with any Han character counts as Chinese."""
    if not text or not any(ch.isalpha() for ch in text):
        return None
    reader_reads_chinese = (get_language() or "").lower().startswith("zh")
    chinese = _has_han(text)
    if chinese and not reader_reads_chinese:
        return "zh-Hans"
    if not chinese and reader_reads_chinese:
        return "en"
    return None
