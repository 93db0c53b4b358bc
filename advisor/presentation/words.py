"""The words of one page, translated once (docs/decisions/0083-one-page-words.md).

A results page asks for the same words hundreds of times: each row's labels, units and amount
pattern, each finding's template. Django's ``gettext`` and ``get_language`` read the active
translation through a context-local store on every call (about 3 µs each on a 2-core host),
more than the lookup itself. Inside :func:`one_page` the language is read once and each word
translated once; outside it, these are Django's own functions. The page's words live in a
context variable, so concurrent requests (threads, tasks) never see each other's.

Within ``one_page`` the language must not change: code that switches it
(``translation.override``) calls Django's functions, not these.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar

from django.utils import translation


class _Page:
    __slots__ = ("language", "words")

    def __init__(self, language: str | None):
        self.language = language
        self.words: dict = {}


_PAGE: ContextVar[_Page | None] = ContextVar("advisor_page_words", default=None)


@contextmanager
def one_page():
    """Within: the active language is read once and each word translated once."""
    token = _PAGE.set(_Page(translation.get_language()))
    try:
        yield
    finally:
        _PAGE.reset(token)


def get_language() -> str | None:
    page = _PAGE.get()
    return translation.get_language() if page is None else page.language


def gettext(message: str) -> str:
    page = _PAGE.get()
    if page is None or type(message) is not str:  # a safe or lazy string keeps Django's way
        return translation.gettext(message)
    return _kept(page, message, translation.gettext, message)


def ngettext(singular: str, plural: str, number: int) -> str:
    page = _PAGE.get()
    if page is None or type(singular) is not str or type(number) is not int:
        return translation.ngettext(singular, plural, number)
    return _kept(page, (singular, plural, number), translation.ngettext, singular, plural, number)


def remembered(key, make):
    """``make()``, made once per page for ``key`` (a word that takes more than one lookup, e.g.
    a lazy label); made each time outside a page."""
    page = _PAGE.get()
    return make() if page is None else _kept(page, key, make)


def _kept(page: _Page, key, make, *args):
    """The page's word for ``key``, made by ``make(*args)`` the first time."""
    found = page.words.get(key)
    if found is None:
        found = page.words[key] = make(*args)
    return found
