"""What a reader of the course site would notice, checked in a real Chromium page.

`check_page(page, url)` opens one page and returns its problems, one line each:
- a console error or an uncaught script error;
- a request that failed, answered >= 400, or left the loopback server (the site must not
  load anything from the network);
- an image that does not decode;
- a link to a page of the site that does not exist, or to an anchor that page lacks;
- math left untypeset: a ``$``, ``\\(`` or ``\\[`` in the text a reader sees once MathJax
  has run (code and outputs excepted);
- an image without alt text, or whose alt text is a file name or hash;
- something cut: an equation, a figure, a code block, an output or a table wider than its
  box where the box hides the rest (overflow hidden or clip) or the page ends, at each of
  `WIDTHS` (a desktop window and a phone). A box that scrolls sideways is not cut.

Links to other hosts are not followed (the network is closed); they are returned apart.
Not here: starting the browser or the server (conftest.py).
"""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

WAIT_FOR_MATH = """async () => {
  if (!document.querySelector('.math') && !window.MathJax) return 'no math';
  const t0 = Date.now();
  while (!(window.MathJax && MathJax.startup && MathJax.startup.promise)) {
    if (Date.now() - t0 > 15000) return 'MathJax did not load';
    await new Promise(r => setTimeout(r, 100));
  }
  await MathJax.startup.promise;
  return 'typeset';
}"""

BROKEN_IMAGES = """async () => {
  const broken = [];
  for (const img of document.images) {
    const probe = new Image();
    probe.src = img.currentSrc || img.src;
    try { await probe.decode(); } catch (e) { broken.push(img.getAttribute('src')); }
  }
  return broken;
}"""

VISIBLE_PROSE = """() => {
  const root = (document.querySelector('main') || document.body).cloneNode(true);
  root.querySelectorAll('pre, code, script, style, textarea, mjx-container, .MathJax, '
      + '.cell_output, .output, .highlight').forEach(e => e.remove());
  return root.textContent;
}"""

LINKS = "() => [...document.querySelectorAll('a[href]')].map(a => a.href)"

WIDTHS = (1280, 390)
"""The window widths every page is checked at: a desktop browser and a phone (390 px)."""

NO_ALT = """() => [...document.querySelectorAll('main img, article img')]
  .filter(img => { const alt = (img.getAttribute('alt') || '').trim();
                   return alt.length < 8 || /^[0-9a-f]{16,}(\\.\\w+)?$/i.test(alt)
                          || /\\.(png|svg|jpe?g)$/i.test(alt); })
  .map(img => img.getAttribute('src'))"""

CUT = """() => {
  const vw = document.documentElement.clientWidth;
  const WATCH = 'mjx-container[display="true"], img, pre, table, div.cell_output .output, '
      + 'div.math, iframe, video';
  const shown = e => e.checkVisibility({visibilityProperty: true, opacityProperty: true});
  const name = e => (e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')
      + (e.classList.length ? '.' + [...e.classList].slice(0, 2).join('.') : ''));
  const what = e => ((e.getAttribute && (e.getAttribute('alt') || e.getAttribute('src')))
      || e.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 40);
  const cut = [];
  const check = e => {
    const r = e.getBoundingClientRect();
    if (r.width < 1 || r.height < 1 || !shown(e)) return;
    const own = getComputedStyle(e).overflowX;
    if ((own === 'hidden' || own === 'clip') && e.scrollWidth > e.clientWidth + 1) {
      cut.push(`${name(e)} "${what(e)}": ${e.scrollWidth} px of content in a `
               + `${e.clientWidth} px box that hides the rest`);
      return;
    }
    for (let a = e.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      const ox = getComputedStyle(a).overflowX;
      if (ox === 'auto' || ox === 'scroll') {  // it scrolls, but only to the right
        const ar = a.getBoundingClientRect();
        if (r.left < ar.left - 1 - a.scrollLeft)
          cut.push(`${name(e)} "${what(e)}": starts ${Math.round(ar.left - r.left)} px left `
                   + `of ${name(a)}, where scrolling never reaches`);
        return;
      }
      if (ox === 'hidden' || ox === 'clip') {
        const ar = a.getBoundingClientRect();
        if (ar.width <= 2 || ar.height <= 2) return;  // a screen reader's copy, not shown
        if (r.right > ar.right + 1 || r.left < ar.left - 1)
          cut.push(`${name(e)} "${what(e)}": ${Math.round(r.width)} px wide, cut by `
                   + `${name(a)} (${Math.round(ar.width)} px, overflow ${ox})`);
        return;
      }
    }
    if (r.right > vw + 1 || r.left < -1)
      cut.push(`${name(e)} "${what(e)}": reaches ${Math.round(r.right)} px in a `
               + `${vw} px window`);
  };
  document.querySelectorAll(WATCH).forEach(check);
  if (document.scrollingElement.scrollWidth > vw + 1)  // what else widens the page
    for (const e of document.querySelectorAll('body *')) {
      const p = e.parentElement;
      if (e.getBoundingClientRect().right > vw + 1
          && !(p && p.getBoundingClientRect().right > vw + 1)) check(e);
    }
  return [...new Set(cut)];
}"""

RAW_MATH = re.compile(r"\$\$?|\\\(|\\\[")


@dataclass
class PageReport:
    """One page's problems, and the links to other hosts it holds."""

    url: str
    problems: list[str] = field(default_factory=list)
    external: set[str] = field(default_factory=set)
    cut: dict[int, list[str]] = field(default_factory=dict)
    """What was cut at each window width (also among `problems`)."""


def _same_origin(a: str, b: str) -> bool:
    pa, pb = urllib.parse.urlsplit(a), urllib.parse.urlsplit(b)
    return (pa.scheme, pa.netloc) == (pb.scheme, pb.netloc)


def raw_math(text: str) -> list[str]:
    """Snippets of `text` around untypeset math delimiters.

    >>> raw_math("typeset fine")
    []
    >>> raw_math("the utility $$\\\\gamma$$ by hand")
    ['…utility $$\\\\gamma$$ by…']
    """
    out: list[str] = []
    shown_to = -1
    for m in RAW_MATH.finditer(text):
        if m.start() < shown_to:  # already inside the last snippet
            continue
        shown_to = m.end() + 12
        out.append("…" + " ".join(text[max(0, m.start() - 8): shown_to].split()) + "…")
    return out[:5]


class LinkChecker:
    """Checks links within the site, fetching each target page once."""

    def __init__(self, request: Any) -> None:
        self.request = request
        self._pages: dict[str, tuple[int, str]] = {}

    def _fetch(self, url: str) -> tuple[int, str]:
        if url not in self._pages:
            r = self.request.get(url)
            body = r.text() if r.ok and "html" in r.headers.get("content-type", "") else ""
            self._pages[url] = (r.status, body)
        return self._pages[url]

    def problem(self, href: str) -> str | None:
        """Why a same-origin link is broken, or None."""
        target, _, anchor = href.partition("#")
        status, body = self._fetch(target)
        if status >= 400:
            return f"broken link {href} (HTTP {status})"
        anchor = urllib.parse.unquote(anchor)
        if anchor and body and not re.search(rf"""\bid=["']{re.escape(anchor)}["']""", body):
            return f"broken link {href} (the page has no anchor #{anchor})"
        return None


def cut_at_widths(page: Any, widths: tuple[int, ...] = WIDTHS) -> dict[int, list[str]]:
    """What is cut on the open page at each window width (the `CUT` check); the window
    gets its first size back afterwards."""
    size = page.viewport_size
    out: dict[int, list[str]] = {}
    try:
        for width in widths:
            page.set_viewport_size({"width": width, "height": size["height"]})
            page.evaluate("() => new Promise(r => requestAnimationFrame(() => "
                          "requestAnimationFrame(r)))")  # laid out, resize handlers run
            out[width] = page.evaluate(CUT)
    finally:
        page.set_viewport_size(size)
    return out


def check_page(page: Any, url: str, links: LinkChecker) -> PageReport:
    """Open `url` in `page` and return what is wrong with it (module docstring)."""
    report = PageReport(url)
    p = report.problems
    listeners = {
        "console": lambda m: m.type == "error" and p.append(
            f"console error: {m.text} ({m.location.get('url', '')})"),
        "pageerror": lambda e: p.append(f"script error: {e}"),
        "requestfailed": lambda r: p.append(f"request failed: {r.url} ({r.failure})"),
        "response": lambda r: r.status >= 400 and p.append(f"HTTP {r.status}: {r.url}"),
        "request": lambda r: not _same_origin(r.url, url) and not r.url.startswith("data:")
        and p.append(f"loads from outside the site: {r.url}"),
    }
    for event, fn in listeners.items():
        page.on(event, fn)
    try:
        page.goto(url, wait_until="load")
        if page.url == url and page.locator("meta[http-equiv='refresh']").count():
            page.wait_for_url(lambda u: u != url)  # index.html redirects to the home page
        page.wait_for_load_state("load")
        state = page.evaluate(WAIT_FOR_MATH)
        if state == "MathJax did not load":
            p.append("MathJax did not load: the page's math stays raw")
        for src in page.evaluate(BROKEN_IMAGES):
            p.append(f"broken image: {src}")
        for src in page.evaluate(NO_ALT):
            p.append(f"image without alt text that says what it shows: {src}")
        report.cut = cut_at_widths(page)
        for width, cut in report.cut.items():
            p.extend(f"cut at {width} px: {c}" for c in cut)
        for snippet in raw_math(page.evaluate(VISIBLE_PROSE)):
            p.append(f"untypeset math: {snippet}")
        for href in sorted(set(page.evaluate(LINKS))):
            if href.startswith(("mailto:", "javascript:")):
                continue
            if not _same_origin(href, url):
                report.external.add(href)
                continue
            why = links.problem(href)
            if why:
                p.append(why)
    finally:
        for event, fn in listeners.items():
            page.remove_listener(event, fn)
    return report
