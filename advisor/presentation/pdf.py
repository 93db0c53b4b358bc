"""HTML to PDF with WeasyPrint, for every PDF we write (briefs, questionnaire letters).

Nothing is fetched (no network, no file: our PDFs are self-contained) and a character no
embedded font can draw stops the render instead of printing as an empty box. WeasyPrint is
imported on first use (docs/decisions/0037-pdf-libraries-on-first-use.md).
"""

from __future__ import annotations

import functools
import logging


class MissingGlyphs(RuntimeError):
    """WeasyPrint had to draw a character no embedded font has (it would print as a box)."""


class _GlyphWatch(logging.Handler):
    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.problems: list[str] = []

    def emit(self, record):
        text = record.getMessage()
        if "notdef" in text.lower() or "glyph" in text.lower():
            self.problems.append(text)


class ExternalResource(RuntimeError):
    """The document asked for a resource by URL: our PDFs are self-contained."""


@functools.cache
def _no_fetching_class() -> type:
    from weasyprint.urls import URLFetcher  # on first use (decision 0037)

    class NoFetching(URLFetcher):
        """A URL fetcher that fetches nothing and stops the render if asked to.

        Everything a brief or a questionnaire letter shows is in its HTML (styles, SVG charts,
        the QR code), so a URL in one is a bug, or text a user typed that got through: the
        render fails rather than reaching the network or the file system. WeasyPrint's own
        fetcher also builds an HTTPS context per document (~35 ms of CPU, twice per brief).
        """

        def __init__(self):  # no handlers, so no HTTPS context to build
            self._fail_on_errors = True

        def fetch(self, url, headers=None):
            raise ExternalResource(f"a PDF of ours fetches nothing (asked for {url[:80]})")

    return NoFetching


def no_fetching():
    """WeasyPrint's ``url_fetcher`` for our PDFs: refuses every URL (see NoFetching)."""
    return _no_fetching_class()()


def write_pdf_checked(html: str, **options) -> bytes:
    """WeasyPrint's PDF for ``html``; raises :class:`MissingGlyphs` when any character had
    no glyph in the available fonts (it would print as an empty box). Nothing is fetched."""
    import weasyprint  # on first use (docs/decisions/0037-pdf-libraries-on-first-use.md)

    watch = _GlyphWatch()
    logger = logging.getLogger("weasyprint")
    logger.addHandler(watch)
    try:
        document = weasyprint.HTML(string=html, base_url=None, url_fetcher=no_fetching())
        pdf = document.write_pdf(**options)
    except weasyprint.urls.FatalURLFetchingError as error:  # a BaseException: made ordinary
        raise ExternalResource(str(error.__cause__ or error)) from None
    finally:
        logger.removeHandler(watch)
    if watch.problems:
        raise MissingGlyphs("; ".join(watch.problems))
    return pdf
