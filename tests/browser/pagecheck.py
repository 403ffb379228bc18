"""What a reader of the course site would notice, checked in a real Chromium page.

`check_page(page, url)` opens one page and returns its problems, one line each:
- a console error or an uncaught script error;
- a request that failed, answered >= 400, or left the loopback server (the site must not
  load anything from the network);
- an image that does not decode;
- a link to a page of the site that does not exist, or to an anchor that page lacks;
- math left untypeset: a ``$``, ``\\(`` or ``\\[`` in the text a reader sees once MathJax
  has run (code and outputs excepted), or math MathJax could not typeset (its error shown
  in place of an equation);
- an image without alt text, or whose alt text is a file name or hash;
- something cut: an equation, a figure, a code block, an output or a table wider than its
  box where the box hides the rest (overflow hidden or clip) or the page ends, at each of
  `WIDTHS` (a desktop window and a phone). A box that scrolls sideways is not cut;
- an equation number out of view: a numbered display equation whose number is not on
  screen, or hidden by the box that scrolls the equation, at each of `WIDTHS`;
- the same figure shown twice on one page;
- and what a reader on a phone (`PHONE`, 390 px) would meet besides: a figure shown at
  less than `LEGIBLE` of its size (its text then smaller than the plotting library's
  7.5 pt) that is neither shown panel by panel nor zoomable, where zoomable means that a
  tap on it opens it at a legible size, scrollable to every corner, and Esc closes it
  again (each such figure is tapped); a figure the page offers panel by panel
  (``.course-pieces``) that is not shown so; a table that breaks a word to fit (a run of
  letters, digits and ``_`` in a cell split across lines: a break at a space, a hyphen
  or other punctuation is the browser's ordinary line breaking, not a broken word).

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
PHONE = min(WIDTHS)
LEGIBLE = 0.75
"""The smallest share of its own size a figure may be shown at: the notebooks' figures are
drawn at 100 dpi with 10-pt text, and the plotting library wants no text below 7.5 pt as
shown (hyperskill_lite.plots.style.MIN_TEXT_PT)."""

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
    if (e.closest('[data-crop]')) return;  // a deliberate view of part of an image
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

EQUATION_NUMBERS = """() => {
  const vw = document.documentElement.clientWidth;
  const srOnly = e => {  // in a screen reader's copy (reveal.js's aria-status): not shown
    for (let a = e.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      if (getComputedStyle(a).overflowX === 'visible') continue;
      const r = a.getBoundingClientRect();
      if (r.width <= 2 || r.height <= 2) return true;
    }
    return false;
  };
  const shown = e => e.checkVisibility({visibilityProperty: true, opacityProperty: true});
  const inView = e => {  // on screen and not hidden by a box that clips or scrolls it
    const r = e.getBoundingClientRect();
    if (r.width < 1 || r.right > vw + 1 || r.left < -1) return false;
    for (let a = e.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      if (getComputedStyle(a).overflowX === 'visible') continue;
      const ar = a.getBoundingClientRect();
      if (r.right > ar.right + 1 || r.left < ar.left - 1) return false;
    }
    return true;
  };
  const out = [];
  for (const eq of document.querySelectorAll('mjx-container[display="true"]')) {
    const label = eq.querySelector('mjx-labels mjx-mtd');  // MathJax's own "(13)"
    const cell = eq.querySelector('mjx-assistive-mml mlabeledtr > mtd');
    if (!shown(eq) || (!label && !cell) || srOnly(eq)) continue;
    const number = cell ? cell.textContent.trim() : '';
    const box = eq.closest('div.math, .math-wrapper') || eq.parentElement;
    const shownElsewhere = number !== '' && [...box.querySelectorAll('*')].some(e =>
        !eq.contains(e) && e.children.length === 0 && e.textContent.trim() === number
        && shown(e) && inView(e));
    if (!shownElsewhere && !(label && shown(label) && inView(label)))
      out.push(`equation ${number || '(numbered)'}: its number is not in view (the equation `
               + `is ${Math.round(eq.scrollWidth)} px in a ${Math.round(eq.clientWidth)} px box)`);
  }
  for (const no of document.querySelectorAll('span.eqno')) {  // Sphinx's own numbers
    if (shown(no) && !inView(no))
      out.push(`equation ${no.textContent.trim()}: its number is not in view`);
  }
  return out;
}"""

FIGURE_SCALES = """([legible, minWidth]) => {
  const shown = e => e.checkVisibility({visibilityProperty: true, opacityProperty: true});
  const srOnly = e => {  // in a screen reader's copy (reveal.js's aria-status): not shown
    for (let a = e.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      if (getComputedStyle(a).overflowX === 'visible') continue;
      const r = a.getBoundingClientRect();
      if (r.width <= 2 || r.height <= 2) return true;
    }
    return false;
  };
  const out = [];
  const imgs = [...document.querySelectorAll('main img, article img')];
  imgs.forEach((img, i) => {
    if (!shown(img) || img.naturalWidth < minWidth || img.closest('dialog') || srOnly(img))
      return;
    const scale = img.getBoundingClientRect().width / img.naturalWidth;
    const src = img.getAttribute('src') || '';
    out.push({i, scale, key: src, src: src.startsWith('data:') ? src.slice(0, 40) + '…' : src,
              alt: (img.alt || '').slice(0, 50),
              piece: !!img.closest('.course-stack'), crop: !!img.closest('[data-crop]')});
  });
  const pieces = [...document.querySelectorAll('.course-pieces')].map(m => {
    const cell = m.closest('.cell_output') || document.body;
    const stack = cell.querySelector('.course-stack');
    return {size: m.dataset.size, stacked: !!stack && shown(stack)};
  });
  return {figures: out, pieces};
}"""

TAP_OFFSET = """(i) => {
  const img = [...document.querySelectorAll('main img, article img')][i];
  img.scrollIntoView({block: 'center', inline: 'nearest', behavior: 'instant'});
  const r = img.getBoundingClientRect();
  let [left, top, right, bottom] = [r.left, r.top, r.right, r.bottom];
  for (let a = img.parentElement; a && a !== document.documentElement; a = a.parentElement) {
    if (getComputedStyle(a).overflowX === 'visible') continue;  // the part of it in view
    const ar = a.getBoundingClientRect();
    [left, top, right, bottom] = [Math.max(left, ar.left), Math.max(top, ar.top),
                                  Math.min(right, ar.right), Math.min(bottom, ar.bottom)];
  }
  return {x: (left + right) / 2 - r.left, y: (top + bottom) / 2 - r.top};
}"""

OPENED = """(i) => {
  const img = [...document.querySelectorAll('main img, article img')][i];
  const src = new URL(img.getAttribute('src'), location.href).href;
  const opened = [...document.querySelectorAll('img')].find(o => o !== img
      && new URL(o.getAttribute('src') || '', location.href).href === src
      && o.checkVisibility() && !o.closest('.course-stack'));
  if (!opened) return {opened: false};
  const rect = opened.getBoundingClientRect();
  let scroller = opened.parentElement;
  while (scroller && !['auto', 'scroll'].includes(getComputedStyle(scroller).overflowX))
    scroller = scroller.parentElement;
  const vw = document.documentElement.clientWidth, vh = window.innerHeight;
  const fits = rect.width <= vw + 1 && rect.height <= vh + 1;
  const reach = fits || (!!scroller && scroller.scrollWidth >= rect.width - 1
                         && scroller.scrollHeight >= rect.height - 1);
  return {opened: true, scale: rect.width / img.naturalWidth, reach};
}"""

WATCH_POPSTATE = """() => { window.__checkPopstate = new Promise(r =>
  addEventListener('popstate', () => r(true), {once: true})); }"""

POPSTATE = """() => Promise.race([window.__checkPopstate,
                            new Promise(r => setTimeout(() => r(false), 5000))])"""

CLOSED = """(i) => {
  const img = [...document.querySelectorAll('main img, article img')][i];
  const src = new URL(img.getAttribute('src'), location.href).href;
  return ![...document.querySelectorAll('img')].some(o => o !== img
      && new URL(o.getAttribute('src') || '', location.href).href === src
      && o.checkVisibility() && o.closest('dialog, [role=dialog], .course-viewer'));
}"""

BROKEN_WORDS = r"""() => {
  const shown = e => e.checkVisibility({visibilityProperty: true, opacityProperty: true});
  const srOnly = e => {  // in a screen reader's copy (reveal.js's aria-status): not shown
    for (let a = e.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      if (getComputedStyle(a).overflowX === 'visible') continue;
      const r = a.getBoundingClientRect();
      if (r.width <= 2 || r.height <= 2) return true;
    }
    return false;
  };
  const out = [];
  for (const table of document.querySelectorAll('main table, article table')) {
    if (!shown(table) || srOnly(table)) continue;
    const walk = document.createTreeWalker(table, NodeFilter.SHOW_TEXT);
    for (let node = walk.nextNode(); node; node = walk.nextNode()) {
      if (node.parentElement.closest('mjx-container, script, style')) continue;
      for (const m of node.textContent.matchAll(/[\p{L}\p{N}_]{2,}/gu)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter(r => r.width > 0)
                             .map(r => Math.round(r.top / 3)));
        if (tops.size > 1) {
          out.push(`a table breaks the word "${m[0].slice(0, 30)}" across lines`);
          if (out.length >= 5) return out;
        }
      }
    }
  }
  return out;
}"""

DUPLICATES = """() => {
  const srOnly = e => {  // in a screen reader's copy (reveal.js's aria-status): not shown
    for (let a = e.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      if (getComputedStyle(a).overflowX === 'visible') continue;
      const r = a.getBoundingClientRect();
      if (r.width <= 2 || r.height <= 2) return true;
    }
    return false;
  };
  const seen = new Map(), out = [];
  for (const img of document.querySelectorAll('main img, article img')) {
    if (img.closest('.course-stack, dialog') || srOnly(img)) continue;
    const src = img.currentSrc || img.src;
    if (seen.has(src)) out.push(`the same figure shown twice: `
                                + (img.getAttribute('src') || '').slice(0, 80));
    seen.set(src, true);
  }
  return out;
}"""

MATH_ERRORS = """() => [...document.querySelectorAll('mjx-merror')]
  .map(e => (e.getAttribute('data-mjx-error') || e.textContent).slice(0, 80))"""

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


def _settle(page: Any) -> None:
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => "
                  "requestAnimationFrame(r)))")  # laid out, resize handlers run


def figures_on_a_phone(page: Any) -> list[str]:
    """What a reader at `PHONE` px would meet among the open page's figures (module
    docstring): a figure shown below `LEGIBLE` is tapped (once per image) and must open
    legible, every part reachable, and close on Esc."""
    from playwright.sync_api import Error

    found = page.evaluate(FIGURE_SCALES, [LEGIBLE, 64])
    out = [f"a figure of panels ({m['size']}) is not shown panel by panel"
           for m in found["pieces"] if not m["stacked"]]
    tapped: set[str] = set()
    for fig in found["figures"]:
        if fig["scale"] >= LEGIBLE - 0.005 or fig["key"] in tapped:
            continue
        tapped.add(fig["key"])
        what = f"{fig['src']} ({fig['alt']}…)"
        url, entries = page.url, page.evaluate("history.length")
        try:  # a reader's tap (a trusted click), on the part of the figure in view, once
            page.locator("main img, article img").nth(fig["i"]).click(  # when it is still
                position=page.evaluate(TAP_OFFSET, fig["i"]), timeout=5000)
        except Error as e:
            out.append(f"a tap does not reach a figure shown at {fig['scale']:.0%} of its "
                       f"size ({str(e).splitlines()[0]}): {what}")
            continue
        page.wait_for_timeout(150)
        if page.url.split("#")[0] != url.split("#")[0]:  # the tap left the page
            out.append(f"a figure shown at {fig['scale']:.0%} of its size is neither stacked "
                       f"nor zoomable (a tap leaves the page): {what}")
            page.goto(url, wait_until="load")
            page.evaluate(WAIT_FOR_MATH)
            continue
        got = page.evaluate(OPENED, fig["i"])
        if not got["opened"]:
            out.append(f"a figure shown at {fig['scale']:.0%} of its size is neither stacked "
                       f"nor zoomable: {what}")
            continue
        if got["scale"] < LEGIBLE - 0.005 or not got["reach"]:
            out.append(f"a figure opened by a tap shows at {got['scale']:.0%} of its size"
                       + ("" if got["reach"] else ", not all of it reachable") + f": {what}")
        took_entry = page.evaluate("history.length") > entries
        if took_entry:  # a viewer that took a history entry gives it back when it closes
            page.evaluate(WATCH_POPSTATE)
        page.keyboard.press("Escape")
        if took_entry and not page.evaluate(POPSTATE):
            out.append(f"closing the opened figure leaves its history entry behind: {what}")
        _settle(page)
        if not page.evaluate(CLOSED, fig["i"]):
            out.append(f"Esc does not close the opened figure: {what}")
    return out


def cut_at_widths(page: Any, widths: tuple[int, ...] = WIDTHS,
                  phone: list[str] | None = None) -> dict[int, list[str]]:
    """What is cut on the open page at each window width (the `CUT` check, and equation
    numbers out of view); the window gets its first size back afterwards. At `PHONE` the
    figures and tables are checked too (`figures_on_a_phone`, `BROKEN_WORDS`), their
    problems appended to `phone` when it is given."""
    size = page.viewport_size
    out: dict[int, list[str]] = {}
    try:
        for width in widths:
            page.set_viewport_size({"width": width, "height": size["height"]})
            _settle(page)
            out[width] = page.evaluate(CUT) + page.evaluate(EQUATION_NUMBERS)
            if width == PHONE and phone is not None:
                phone.extend(figures_on_a_phone(page))
                phone.extend(page.evaluate(BROKEN_WORDS))
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
        p.extend(page.evaluate(DUPLICATES))
        phone: list[str] = []
        report.cut = cut_at_widths(page, phone=phone)
        for width, cut in report.cut.items():
            p.extend(f"cut at {width} px: {c}" for c in cut)
        p.extend(f"at {PHONE} px: {c}" for c in phone)
        for snippet in raw_math(page.evaluate(VISIBLE_PROSE)):
            p.append(f"untypeset math: {snippet}")
        for error in page.evaluate(MATH_ERRORS):
            p.append(f"math MathJax could not typeset: {error}")
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
