"""Translation markers for the pure-Python domain (see docs/decisions/0002).

The domain must not import Django, yet its messages are user-facing. ``N_`` marks a
string for extraction (``makemessages --keyword=N_``) and returns it unchanged; the
views, templates and PDF brief call Django's ``gettext`` on it when rendering, in the
reader's language. Messages with figures are kept as a template plus parameters
(:class:`Message`) so the template is translated first and the figures filled in after.
"""

from __future__ import annotations

from dataclasses import dataclass, field


def N_(text: str) -> str:  # noqa: N802 - the conventional gettext_noop name
    """Mark ``text`` for translation without translating it."""
    return text


def Nn_(singular: str, plural: str) -> tuple[str, str]:  # noqa: N802 - like ngettext_noop
    """Mark a message's singular and plural English forms for translation (``makemessages
    --keyword=Nn_:1,2``); :meth:`Message.counted` makes the message, and the presentation picks
    the form with ``ngettext`` for the reader's language (Chinese has one form)."""
    return singular, plural


@dataclass(frozen=True)
class Message:
    """A translatable message template with its parameters.

    ``template`` uses ``str.format`` named fields, e.g. ``"needs {need} GiB"``. A message
    with a count has its English plural form too (``plural``) and names the parameter whose
    number picks the form (``count``): "1 other site", "2 other sites".
    """

    template: str
    params: dict = field(default_factory=dict)
    plural: str = ""
    count: str = ""

    @classmethod
    def counted(cls, forms: tuple[str, str], count: str, params: dict) -> Message:
        """A message in the singular and plural ``forms`` (:func:`Nn_`), its form picked by
        the number in ``params[count]``."""
        singular, plural = forms
        return cls(singular, params, plural=plural, count=count)

    def english_template(self) -> str:
        """The English form for this message's count (the singular when it has no plural)."""
        if not self.plural:
            return self.template
        return self.template if plural_number(self.params.get(self.count)) == 1 else self.plural

    def render(self, translate=lambda s: s, language: str | None = None) -> str:
        """Translate the template with ``translate`` and fill in the parameters; a parameter
        that is itself a :class:`Message` is rendered the same way. With ``language``, the
        parameters are those a reader of that language reads (:func:`localised`). A counted
        message is rendered in its English form for the count (the presentation's
        ``render_text`` translates both forms with ``ngettext``)."""
        params = {
            key: value.render(translate, language) if isinstance(value, Message) else value
            for key, value in localised(self.params, language).items()
        }
        return translate(self.english_template()).format(**params)

    def __str__(self) -> str:
        return self.render()


@dataclass(frozen=True)
class Code:
    """A coded value inside a message (a parallelism strategy, a cooling kind): the
    presentation words it from its label group (``advisor.presentation.labels.LABELS``)."""

    group: str
    value: str

    def __str__(self) -> str:
        return self.value


def plural_number(value) -> int:
    """The whole number that picks a counted message's form (a count stored as text in a
    snapshot, a Decimal, a float); 0 for one that is not a number."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0
    return int(number) if number == int(number) else 2  # "1.5 hours" reads as a plural


ZH_SUFFIX = "_zh"


def localised(params: dict, language: str | None) -> dict:
    """A message's parameters for a reader of ``language``.

    A parameter ``p`` may come with ``p_zh``, the same value as a Chinese reader reads it (a
    site's Chinese name): on a Chinese page ``p_zh`` stands in for ``p``.
    """
    if not (language or "").lower().startswith("zh"):
        return params
    out = dict(params)
    for key, value in params.items():
        if key.endswith(ZH_SUFFIX) and value:
            out[key[: -len(ZH_SUFFIX)]] = value
    return out


def local_name(record, language: str | None, field: str = "name") -> str:
    """``record``'s ``field`` (a name or a city) as a reader of ``language`` reads it.

    Catalog records a person reads (data centers, operators, policy zones, accelerators, server
    models) carry an English ``name`` and a Chinese ``name_zh`` (likewise ``city`` and
    ``city_zh``, an accelerator's or server's ``maker`` and ``maker_zh``). A Chinese page
    shows the Chinese one when the record has it; every other page, and a record without it,
    shows ``field`` itself. ``record`` is a domain dataclass, a model row, a stored snapshot's
    dict, a plain string (snapshots stored before the Chinese names) or ``None`` (→ "").
    """
    if record is None:
        return ""
    if isinstance(record, str):
        return record
    get = record.get if isinstance(record, dict) else lambda key: getattr(record, key, None)
    if (language or "").lower().startswith("zh"):
        chinese = get(f"{field}_zh")
        if chinese:
            return str(chinese)
    value = get(field)
    return "" if value is None else str(value)
