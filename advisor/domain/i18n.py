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

    def render(self, translate=lambda s: s) -> str:
        """Translate the template with ``translate`` and fill in the parameters."""
        return translate(self.template).format(**self.params)

    def __str__(self) -> str:
        return self.render()
