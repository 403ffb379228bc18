"""Pages for crawl_page: a URL read from the local corpus or over HTTP, as text, in pages.

`PageReader.read` returns a `Page`: from the `LocalCorpus` when it has the URL, else
over HTTP(S) through `HttpClient` (guarded by `UrlGuard`: no local or private
addresses; bodies inflated under a cap, a deadline for the whole fetch), dispatched on
the content type: HTML through html.py (main content, then links), PDF, office
documents, ZIP and JSON through documents/, both in the converter's limited child
process (documents/service.py), other text as is (cut at `Caps.max_text_chars`);
images and audio are refused with a message naming the tool that reads files. A page
is fetched once and kept (the last `keep` pages), so reading its second half costs
nothing.

`paged` cuts a long text into pages of about `page_chars` characters at line or word
boundaries and renders one page with where it sits ("Page 2 of 5, characters
5,001-9,987 of 23,410"), so the agent reads a long page to its end instead of losing
what an observation limit would cut (our addition: the anchor harness truncates at
60,000 characters).

Not here: the model's summary of a page for a query (toolbox.py), HTTP itself (net.py).
"""

from __future__ import annotations

import urllib.parse
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import PurePosixPath

from hyperskill_lite.agent.tools.corpus import LocalCorpus
from hyperskill_lite.agent.tools.documents.formats import cut
from hyperskill_lite.agent.tools.documents.kinds import (
    AUDIO_SUFFIXES,
    DOCUMENT_SUFFIXES,
    IMAGE_SUFFIXES,
    MIME_SUFFIX,
    Caps,
    DocumentError,
)
from hyperskill_lite.agent.tools.documents.service import Converter, shared_converter
from hyperskill_lite.agent.tools.net import FetchError, HttpClient

__all__ = ["Page", "PageReader", "paged", "page_bounds"]


@dataclass
class Page:
    """A page as the agent reads it: title, final URL, text and where it came from
    ("corpus", "html:trafilatura", "html:stdlib", "document", "text")."""

    title: str
    url: str
    text: str
    source: str
    note: str = ""


def page_bounds(text: str, page_chars: int) -> list[tuple[int, int]]:
    """``(start, end)`` of each page: about `page_chars` long, cut after a line break
    (or a space) in the last fifth of the page when there is one.

    >>> page_bounds("aaaa bbbb\\ncccc dddd", 12)
    [(0, 10), (10, 19)]
    """
    bounds, start, n = [], 0, len(text)
    while start < n:
        end = min(n, start + page_chars)
        if end < n:
            floor = start + int(page_chars * 0.8)
            cut = text.rfind("\n", floor, end)
            if cut < 0:
                cut = text.rfind(" ", floor, end)
            if cut >= 0:
                end = cut + 1
        bounds.append((start, end))
        start = end
    return bounds or [(0, 0)]


def paged(header: str, text: str, page: int, page_chars: int, tool: str) -> str:
    """`header`, then page `page` (1-based) of `text` with its place in the whole.

    >>> print(paged("Title: T", "x" * 12, 2, 5, "crawl_page"))
    Title: T
    Page 2 of 3 (characters 6-10 of 12). Call crawl_page with page=3 to read on.
    <BLANKLINE>
    xxxxx
    """
    bounds = page_bounds(text, page_chars)
    total = len(bounds)
    if not 1 <= page <= total:
        raise ValueError(f"page {page} does not exist: the text has {total} page"
                         f"{'s' if total > 1 else ''} of about {page_chars} characters")
    start, end = bounds[page - 1]
    if total == 1:
        return f"{header}\n\n{text}" if header else text
    where = f"Page {page} of {total} (characters {start + 1:,}-{end:,} of {len(text):,})."
    where += (f" Call {tool} with page={page + 1} to read on." if page < total
              else " This is the last page.")
    return f"{header}\n{where}\n\n{text[start:end]}"


def _name_of(url: str) -> str:
    return PurePosixPath(urllib.parse.urlsplit(url).path).name or "page"


class PageReader:
    """Reads URLs for crawl_page (see the module docstring).

    Parameters
    ----------
    http
        The HTTP client (with its `UrlGuard`); None keeps crawl_page to the corpus.
    corpus
        Pages served without HTTP (matched by URL).
    keep
        Pages kept after reading.
    converter, caps
        The document converter (default: the process's shared one with default limits)
        and what one conversion reads at most.
    """

    def __init__(self, http: HttpClient | None = None, corpus: LocalCorpus | None = None,
                 keep: int = 32, converter: Converter | None = None,
                 caps: Caps | None = None) -> None:
        self.http = http
        self.corpus = corpus
        self.keep = keep
        self.converter = converter if converter is not None else shared_converter()
        self.caps = caps or Caps()
        self._pages: OrderedDict[str, Page] = OrderedDict()

    def read(self, url: str) -> Page:
        """The page at `url`.

        Raises
        ------
        FetchError, DocumentError
            One line each: refused, unreachable, an HTTP error, unreadable content.
        """
        url = url.strip()
        if url in self._pages:
            self._pages.move_to_end(url)
            return self._pages[url]
        page = self._read(url)
        self._pages[url] = page
        while len(self._pages) > self.keep:
            self._pages.popitem(last=False)
        return page

    def _read(self, url: str) -> Page:
        if self.corpus is not None:
            found = self.corpus.page(url)
            if found is not None:
                title, purl, text = found
                return Page(title, purl, text, "corpus")
        if self.http is None:
            where = "in the local corpus" if self.corpus is not None else "readable"
            raise FetchError(f"{url} is not {where} and reading pages over HTTP is off")
        if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
            raise FetchError(f"crawl_page reads http(s) URLs only, got {url!r}")
        got = self.http.request("GET", url, headers={
            "Accept": "text/html,application/xhtml+xml,application/pdf,*/*;q=0.8"})
        if not got.ok:
            raise FetchError(f"HTTP {got.status} from {urllib.parse.urlsplit(got.url).netloc} "
                             f"for {url}")
        notes = [f"(the download was cut at {self.http.max_bytes:,} bytes: max_page_bytes)"
                 if got.truncated else "", got.note]
        note = "\n".join(n for n in notes if n)
        mime, name = got.content_type, _name_of(got.url)
        suffix = PurePosixPath(name).suffix.lower()
        head = got.body[:512].lstrip().lower()
        if mime.startswith("image/") or (not mime and suffix in IMAGE_SUFFIXES):
            raise DocumentError(f"{url} is an image ({mime or suffix}); crawl_page reads web "
                                "pages and documents")
        if mime.startswith(("audio/", "video/")) or (not mime and suffix in AUDIO_SUFFIXES):
            raise DocumentError(f"{url} is audio or video ({mime or suffix}); crawl_page reads "
                                "web pages and documents")
        if mime in ("text/html", "application/xhtml+xml") or (
                not mime and head.startswith((b"<!doctype html", b"<html"))):
            title, text, how = self.converter.html(got.text(), got.url, self.caps)
            return Page(title, got.url, text, f"html:{how}", note)
        doc_suffix = MIME_SUFFIX.get(mime) or (suffix if suffix in DOCUMENT_SUFFIXES else "")
        if doc_suffix:
            if not name.lower().endswith(doc_suffix):
                name += doc_suffix
            title, text = self.converter.document(name, got.body, self.caps)
            return Page(title, got.url, text, "document", note)
        if mime.startswith("text/") or "json" in mime or "xml" in mime or not mime:
            return Page("", got.url, cut(got.text(), self.caps), "text", note)
        # raises for binary content it cannot read
        title, text = self.converter.document(name, got.body, self.caps)
        return Page(title, got.url, text, "document", note)
