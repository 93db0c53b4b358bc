"""Translation markers for the pure-Python domain (see docs/decisions/0002).

The domain must not import Django, yet its messages are user-facing. ``N_`` marks a
string for extraction (``makemessages --keyword=N_``) and returns it unchanged; the
views, templates and PDF brief call Django's ``gettext`` on it when rendering, in the
reader's language. Messages with figures are kept as a template plus parameters
(:class:`Message`) so the template is translated first and the figures filled in after.
"""

from dataclasses import dataclass, field


def N_(text: str) -> str:  # noqa: N802 - the conventional gettext_noop name
    """Mark ``text`` for translation without translating it."""
    return text


@dataclass(frozen=True)
class Message:
    """A translatable message template with its parameters.

    ``template`` uses ``str.format`` named fields, e.g. ``"needs {need} GiB"``.
    """

    template: str
    params: dict = field(default_factory=dict)

    def render(self, translate=lambda s: s, language: str | None = None) -> str:
        """Translate the template with ``translate`` and fill in the parameters; a parameter
        that is itself a :class:`Message` is rendered the same way. With ``language``, the
        parameters are those a reader of that language reads (:func:`localised`)."""
        params = {
            key: value.render(translate, language) if isinstance(value, Message) else value
            for key, value in localised(self.params, language).items()
        }
        return translate(self.template).format(**params)

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
