"""The words of one page translated once (advisor/presentation/words.py, decision 0083): the
same words as Django's functions give, each looked up once inside a page, Django's own way
outside one, and a results page written byte for byte as without it, in both languages."""

import contextlib

import pytest
from django.core.cache import cache
from django.urls import reverse
from django.utils import translation
from django.utils.safestring import SafeString, mark_safe

from advisor.presentation import words
from advisor.results import pages
from advisor.roles import PROCUREMENT_STAFF
from tests.support.assessments import finished_assessment
from tests.support.catalog import load_catalog
from tests.support.users import make_user

LANGUAGES = ("en", "zh-hans")


class Counted:
    """Django's gettext and ngettext, counting the lookups."""

    def __init__(self, monkeypatch):
        self.calls = 0
        self._gettext, self._ngettext = translation.gettext, translation.ngettext
        monkeypatch.setattr(translation, "gettext", self.gettext)
        monkeypatch.setattr(translation, "ngettext", self.ngettext)

    def gettext(self, message):
        self.calls += 1
        return self._gettext(message)

    def ngettext(self, singular, plural, number):
        self.calls += 1
        return self._ngettext(singular, plural, number)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_page_gives_the_words_django_gives(language):
    messages = ["Compare", "Rank", "%(n)s GiB", "not a message of the catalog", ""]
    with translation.override(language):
        expected = [translation.gettext(m) for m in messages]
        plural = [
            translation.ngettext("%(n)s GPU idle, paid for", "%(n)s GPUs idle, paid for", n)
            for n in (1, 2)
        ]
        with words.one_page():
            assert [words.gettext(m) for m in messages] == expected
            assert [words.gettext(m) for m in messages] == expected  # kept
            assert [
                words.ngettext("%(n)s GPU idle, paid for", "%(n)s GPUs idle, paid for", n)
                for n in (1, 2)
            ] == plural
            assert words.get_language() == translation.get_language()


def test_inside_a_page_each_word_is_looked_up_once(monkeypatch):
    counted = Counted(monkeypatch)
    with translation.override("zh-hans"), words.one_page():
        for _ in range(5):
            words.gettext("Compare")
            words.ngettext("%(n)s equivalent option", "%(n)s equivalent options", 3)
            words.remembered(("label", 1, "buy"), lambda: words.gettext("Rank"))
    assert counted.calls == 3


def test_outside_a_page_every_call_is_djangos(monkeypatch):
    counted = Counted(monkeypatch)
    with translation.override("zh-hans"):
        for _ in range(3):
            words.gettext("Compare")
            words.ngettext("%(n)s equivalent option", "%(n)s equivalent options", 3)
        assert words.get_language() == "zh-hans"
        made = [words.remembered("key", lambda: words.gettext("Rank")) for _ in range(2)]
    assert counted.calls == 8
    assert made[0] == made[1]


def test_a_safe_string_keeps_djangos_way():
    with translation.override("en"), words.one_page():
        plain = words.gettext("Compare")
        safe = words.gettext(mark_safe("Compare"))
    assert type(plain) is str and isinstance(safe, SafeString) and safe == plain


def test_the_page_ends_with_its_block():
    with translation.override("zh-hans"):
        with words.one_page():
            assert words.get_language() == "zh-hans"
        with translation.override("en"):
            assert words.get_language() == "en"
            assert words.gettext("Compare") == "Compare"


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_results_page_is_written_as_without_it(client, monkeypatch, language):
    load_catalog()
    user = make_user("page-words-buyer", PROCUREMENT_STAFF, password="pw")
    client.force_login(user)
    url = reverse("results:list", args=[finished_assessment(user).pk])
    with_page = results_body(client.get(url, HTTP_ACCEPT_LANGUAGE=language))
    pages.forget_local()
    cache.clear()
    monkeypatch.setattr(pages, "one_page", contextlib.nullcontext)
    without = results_body(client.get(url, HTTP_ACCEPT_LANGUAGE=language))
    assert "<tbody>" in with_page and 'id="row-1"' in with_page
    assert with_page == without


def results_body(response) -> str:
    """The page below its heading (the kept words; the rest carries per-request tokens)."""
    assert response.status_code == 200
    page = response.content.decode()
    return page[page.index('id="decision"') : page.index('id="after-options"')]
