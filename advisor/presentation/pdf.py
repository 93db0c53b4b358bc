"""HTML to PDF with WeasyPrint, for every PDF we write (briefs, questionnaire letters).

Nothing is fetched (no network, no file: our PDFs are self-contained) and a character no
embedded font can draw stops the render instead of printing as an empty box. WeasyPrint is
imported on first use (docs/decisions/0037-pdf-libraries-on-first-use.md).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterable
from pathlib import Path


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
    # on first use (decision 0037)
    from weasyprint.urls import URLFetcher, URLFetcherResponse

    class NoFetching(URLFetcher):
        """A URL fetcher that fetches nothing and stops the render if asked to.

        Everything a brief or a questionnaire letter shows is in its HTML (styles, SVG charts,
        the QR code), so a URL in one is a bug, or text a user typed that got through: the
        render fails rather than reaching the network or the file system. The one exception
        is ``served``: files of our own (the brief's fonts) given by their exact ``file:`` URL.
        WeasyPrint's own fetcher also builds an HTTPS context per document (~35 ms of CPU,
        twice per brief).
        """

        def __init__(self, served):  # no handlers, so no HTTPS context to build
            self._fail_on_errors = True
            self._served = served

        def fetch(self, url, headers=None):
            path = self._served.get(url)
            if path is None:
                raise ExternalResource(f"a PDF of ours fetches nothing (asked for {url[:80]})")
            return URLFetcherResponse(url, path.read_bytes())

    return NoFetching


def no_fetching(served_files: Iterable[Path] = ()):
    """WeasyPrint's ``url_fetcher`` for our PDFs: refuses every URL but the ``file:`` URLs of
    ``served_files`` (see NoFetching)."""
    return _no_fetching_class()({path.as_uri(): path for path in served_files})


def write_pdf_checked(html: str, served_files: Iterable[Path] = (), **options) -> bytes:
    """WeasyPrint's PDF for ``html``; raises :class:`MissingGlyphs` when any character had
    no glyph in the available fonts (it would print as an empty box). Nothing is fetched but
    ``served_files`` (our own files, named by their ``file:`` URL)."""
    import weasyprint  # on first use (docs/decisions/0037-pdf-libraries-on-first-use.md)

    watch = _GlyphWatch()
    logger = logging.getLogger("weasyprint")
    logger.addHandler(watch)
    try:
        document = weasyprint.HTML(
            string=html, base_url=None, url_fetcher=no_fetching(served_files)
        )
        pdf = document.write_pdf(**options)
    except weasyprint.urls.FatalURLFetchingError as error:  # a BaseException: made ordinary
        raise ExternalResource(str(error.__cause__ or error)) from None
    finally:
        logger.removeHandler(watch)
    if watch.problems:
        raise MissingGlyphs("; ".join(watch.problems))
    return pdf
