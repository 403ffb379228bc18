"""HTML to text for the agent: the page's main content first, then its links.

`page_text` is what crawl_page and inspect_file_as_text show for an HTML page: the main
content extracted by trafilatura (Markdown with links and tables; navigation menus,
footers, cookie banners and sidebars left out), then a "Links on this page" list of
every other link (the navigation the agent needs to walk a site, e.g. WebWalkerQA's
"crawl the root URL to find the navigation menu"). Without trafilatura, or when it finds
no main content (a home page that is all menus), the stdlib parser's full text
(`html_to_text`) is used; a missing trafilatura is said once, in a warning naming the
pip command (readers.py). The anchor harness reads pages through a reader service
(Jina) or crawl4ai; a local extractor is our choice (no third-party service, no browser).

Not here: fetching pages (pages.py, net.py), JavaScript rendering.
"""

from __future__ import annotations

import urllib.parse
from html.parser import HTMLParser

__all__ = ["html_to_text", "page_links", "page_text", "MAX_LINKS"]

MAX_LINKS = 150
"""Links listed after the main content, at most."""


class _TextParser(HTMLParser):
    _BLOCK = {
        "p", "div", "br", "li", "tr", "table", "section", "article", "header", "footer",
        "nav", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "title", "dd", "dt", "pre",
    }
    _SKIP = {"script", "style", "noscript", "template", "svg"}

    def __init__(self, base_url: str = "") -> None:
        super().__init__(convert_charrefs=True)
        self.base, self.parts, self.title = base_url, [], ""
        self._skip, self._in_title, self._href = 0, False, None
        self._link_text: list[str] = []
        self.links: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._SKIP:
            self._skip += 1
        elif tag == "title":
            self._in_title = True
        elif tag == "a":
            href = dict(attrs).get("href")
            if href and not href.strip().lower().startswith(("javascript:", "#", "mailto:", "tel:")):
                self._href = urllib.parse.urljoin(self.base, href.strip()) if self.base else href
                self._link_text = []
        if tag in self._BLOCK:
            self.parts.append("\n- " if tag == "li" else "\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP:
            self._skip = max(0, self._skip - 1)
        elif tag == "title":
            self._in_title = False
        elif tag == "a" and self._href is not None:
            text = " ".join(" ".join(self._link_text).split())
            self.parts.append(f" [{text or 'link'}]({self._href})")
            self.links.append((text, self._href))
            self._href = None
        if tag in self._BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        if self._in_title:
            self.title += data
            return
        if self._href is not None:
            self._link_text.append(data)
        else:
            self.parts.append(data)


def _parse(html: str, base_url: str) -> _TextParser:
    p = _TextParser(base_url)
    p.feed(html)
    p.close()
    return p


def html_to_text(html: str, base_url: str = "") -> tuple[str, str]:
    """``(title, text)`` of an HTML page with the standard library alone: scripts and
    styles dropped, blocks on their own lines, links kept as ``[text](url)`` (resolved
    against `base_url`), everything in page order (menus included).

    >>> html_to_text('<title>T</title><p>Hi <a href="/x">there</a></p><script>no</script>',
    ...              "https://a.org/")
    ('T', 'Hi [there](https://a.org/x)')
    """
    p = _parse(html, base_url)
    lines = (" ".join(ln.split()) for ln in "".join(p.parts).splitlines())
    text = "\n".join(ln for ln in lines if ln and ln != "-")
    return " ".join(p.title.split()), text


def page_links(html: str, base_url: str = "") -> list[tuple[str, str]]:
    """``(text, url)`` of every link of a page, in page order, each URL once.

    >>> page_links('<a href="/a">A</a> <a href="/a">again</a> <a href="#top">top</a>',
    ...            "https://s.org/")
    [('A', 'https://s.org/a')]
    """
    seen: set[str] = set()
    out = []
    for text, url in _parse(html, base_url).links:
        if url not in seen:
            seen.add(url)
            out.append((text, url))
    return out


def _trafilatura_main(html: str, url: str) -> str | None:
    try:
        import trafilatura
    except ImportError:
        # lazy: readers.py loads importlib.metadata (about 40 ms), needed only when
        # trafilatura is missing; the converter's child process imports this module
        from hyperskill_lite.agent.tools.readers import warn_degraded

        warn_degraded()  # once per process: what is missing and the pip command
        return None
    try:
        text = trafilatura.extract(html, url=url or None, output_format="markdown",
                                   include_links=True, include_tables=True,
                                   include_comments=False, favor_recall=True)
    except Exception:  # a page that breaks the extractor falls back to the stdlib parser
        return None
    return text.strip() if text and text.strip() else None


def page_text(html: str, url: str = "", *, max_links: int = MAX_LINKS) -> tuple[str, str, str]:
    """``(title, text, extractor)`` of an HTML page for the agent: the main content, then
    the page's other links. `extractor` is "trafilatura" or "stdlib" (the fallback)."""
    title, full = html_to_text(html, url)
    main = _trafilatura_main(html, url)
    extractor = "trafilatura" if main else "stdlib"
    body = main or full
    rest = [(t, u) for t, u in page_links(html, url) if u not in body]
    if main and rest:
        lines = [f"- [{t or 'link'}]({u})" for t, u in rest[:max_links]]
        more = len(rest) - max_links
        if more > 0:
            lines.append(f"- ... {more} more links")
        body += "\n\nLinks on this page:\n" + "\n".join(lines)
    return title, body, extractor
