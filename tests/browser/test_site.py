"""The course site (`make book`) in Chromium, both editions.

Every page of the student site, its slides, and every notebook page of the instructor site
opens clean (pagecheck.py: no console error, nothing from the network, every image decoded
and described by its alt text, no broken link, no raw math, no figure shown twice, nothing
cut and no equation number out of view at 1280 px or at 390 px; and at 390 px no figure
shown below a legible size that is neither shown panel by panel nor zoomable, each such
figure tapped open and closed again, and no table that breaks a word). The course map is
the home page, the notebooks come in order with prev/next links, the equations are
typeset, each ipywidgets panel points to its static default figure right above it, the
".ipynb" download button gives the notebook (the student copy on the student site), the
student site shows no solution and the instructor site every one, the syllabus's
study-time table lists every notebook, the user guide lists every docs/guide page, and
the slides run offline. On a phone, notebook 07's figures read panel by panel, a tap opens
a figure at full size (closed by Esc and by the browser's back), Eqs. 12 and 13 keep
their numbers in view and the course map's table scrolls with its words whole:
screenshots of each at 390 px (and at 1280 px) land in the run's output folder.

The checker itself is tested on a small site written here, with one fault per page, so
a console error, a broken image or link, raw ``$$``, a missing alt text, a cut box, an
equation number out of view, a figure too small to read that does not open, a figure
shown twice or a table that breaks a word in the real site is known to fail.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from pagecheck import EQUATION_NUMBERS, LEGIBLE, PHONE, WIDTHS, LinkChecker, check_page
from support import ROOT, instructor_dir, serve, site_dir

NOTEBOOK_PAGE = re.compile(r"\d\d_.+\.html")
NOTEBOOKS = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


FOLDERS = ("course", "guide", "api", "slides")
"""The site's folders of pages: docs/course/ and docs/guide/ (the user guide), the API
reference sphinx-autoapi writes (one page per module, nested), the slides."""


def _pages(html: Path, notebooks_only: bool = False) -> list[str]:
    pattern = "[0-9][0-9]_*.html" if notebooks_only else "*.html"
    pages = sorted(p.relative_to(html).as_posix() for p in html.glob(pattern))
    if not notebooks_only:
        for folder in FOLDERS:
            pages += sorted(p.relative_to(html).as_posix() for p in html.glob(f"{folder}/**/*.html"))
    return pages or ["(no site built: run make book)"]


def _solutions(name: str) -> list[str]:
    """For each solution cell of notebook `name` (notebooks/), its longest code line that
    no other cell of the notebook has (a line only the solution shows)."""
    nb = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))

    def lines(cell: dict) -> list[str]:
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        return [ln.strip() for ln in source.splitlines() if len(ln.strip()) > 12]

    def solution_lines(cell: dict) -> list[str]:
        """An answer cell in nbgrader's form: only what its solution region holds (the
        stub around it, a function's signature and docstring, is the student's too)."""
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        begin, end = "### BEGIN " + "SOLUTION", "### END " + "SOLUTION"
        if begin not in source:
            return lines(cell)
        region = source.split(begin, 1)[1].split(end, 1)[0]
        return lines({"source": region})

    def shown_as_written(cell: dict) -> list[str]:
        """A markdown answer's lines that the page shows character for character: none
        with math, code, emphasis or a link, which the site renders differently."""
        found = solution_lines(cell)
        if cell.get("cell_type") != "markdown":
            return found
        return [ln for ln in found if not any(ch in ln for ch in "$`*_[<\\")]

    def is_solution(cell: dict) -> bool:
        meta = cell.get("metadata", {})
        exercise = meta.get("exercise") if isinstance(meta.get("exercise"), dict) else {}
        return exercise.get("role") == "solution" or "solution" in meta.get("tags", [])

    elsewhere = {ln for c in nb["cells"] if not is_solution(c) for ln in lines(c)}
    out = []
    for cell in filter(is_solution, nb["cells"]):
        own = [ln for ln in shown_as_written(cell) if ln not in elsewhere]
        if own:
            out.append(max(own, key=len))
    return out


SMART = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})
"""Sphinx's smart quotes, back to the typewriter quotes a notebook is written with."""


def _text(browser, url: str) -> str:
    """The text of a page as a reader would copy it (tags dropped, entities decoded,
    quotes as the notebook writes them)."""
    return _plain(html.unescape(re.sub(r"<[^>]+>", "", browser.request.get(url).text())))


def _plain(text: str) -> str:
    """`text` with Sphinx's typography undone (smart quotes, dashes, ellipsis), so a line
    of a notebook and the page that shows it compare equal."""
    return text.translate(SMART).replace("\u2026", "...").replace("\u2014", "---").replace(
        "\u2013", "--")


@pytest.fixture(scope="module")
def page(browser):
    p = browser.new_page()
    yield p
    p.close()


@pytest.fixture(scope="module")
def links(browser):
    return LinkChecker(browser.request)


def _report(report, name: str) -> str:
    return f"{name}:\n  " + "\n  ".join(report.problems)


@pytest.mark.parametrize("name", _pages(site_dir()))
def test_every_page_opens_clean(name, site, page, links, shots):
    report = check_page(page, site + name, links)
    if name.startswith("api/"):  # reStructuredText has no $-math: a $ there is literal text
        report.problems = [p for p in report.problems if not p.startswith("untypeset math")]
    else:  # the reference's ~190 pages look alike: no screenshots
        page.screenshot(path=shots / f"site-{name.removesuffix('.html').replace('/', '-')}.png")
    assert set(report.cut) == set(WIDTHS), report.problems  # checked at both widths
    assert not report.problems, _report(report, name)


def _with_solutions(html: Path) -> list[str]:
    """The instructor site's notebook pages that differ from the student site's: those
    whose notebook has a solution cell."""
    pages = [p for p in _pages(html, notebooks_only=True) if Path(p).stem not in NOTEBOOKS
             or _solutions(Path(p).stem)]
    return pages or ["(no notebook with solutions)"]


@pytest.mark.parametrize("name", _with_solutions(instructor_dir()))
def test_every_instructor_notebook_page_opens_clean(name, instructor_site, page, links):
    report = check_page(page, instructor_site + name, links)
    assert not report.problems, _report(report, f"instructor {name}")


def test_the_course_map_is_the_home_page_and_the_notebooks_come_in_order(site, page, shots):
    page.goto(site, wait_until="load")
    page.wait_for_url(re.compile(r"00_quickstart\.html$"))
    course_map = page.get_by_role("heading", name=re.compile("The course map"))
    assert course_map.count() == 1
    page.evaluate("MathJax.startup.promise")
    page.screenshot(path=shots / "site-home.png")
    course_map.evaluate("h => window.scrollTo(0, h.getBoundingClientRect().top + scrollY - 70)")
    page.wait_for_timeout(300)
    page.screenshot(path=shots / "site-course-map.png")
    searches = page.locator(".search-button-field, .search-button").evaluate_all(
        "es => es.filter(e => e.checkVisibility()).length")
    assert searches == 1, f"{searches} search boxes show on the home page"
    sidebar = [a.get_attribute("href") for a in page.locator("nav.bd-links a").all()]
    notebooks = sorted(p.name for p in site_dir().glob("[0-9][0-9]_*.html"))
    assert [h for h in sidebar if NOTEBOOK_PAGE.fullmatch(h or "")] == notebooks[1:]
    for i, name in enumerate(notebooks):
        page.goto(site + name, wait_until="load")
        nxt, prev = page.locator("a.right-next"), page.locator("a.left-prev")
        expected_next = notebooks[i + 1] if i + 1 < len(notebooks) else "syllabus.html"
        assert nxt.get_attribute("href") == expected_next, name
        if i > 0:
            assert prev.get_attribute("href") == notebooks[i - 1], name


def test_equations_are_typeset_offline(site, page):
    page.goto(site + "00_quickstart.html", wait_until="load")
    page.evaluate("MathJax.startup.promise")
    assert page.locator("mjx-container").count() >= 20  # the glossary's symbols
    src = page.evaluate("[...document.scripts].map(s => s.src).filter(s => /mathjax/i.test(s))")
    assert src and all(s.startswith(site) for s in src), src


@pytest.mark.parametrize("name", ["03_cooccurrence_ranking", "05_propagation_merging",
                                  "08_ablations_and_sensitivity"])
def test_a_panel_points_to_its_static_default_figure_shown_once(name, site, page, shots):
    """The panel's default figure is the output of the cell above it: the page shows it
    there, once, and the panel's note points to it."""
    page.goto(site + f"{name}.html", wait_until="load")
    notes = page.get_by_text("Interactive panel: open this notebook in JupyterLab")
    assert notes.count() >= 1, f"{name}: the panel's note is missing"
    pointing = 0
    for i in range(notes.count()):  # a knob panel points up; a widget carries its picture
        note = notes.nth(i)
        panel = note.locator("xpath=ancestor::div[contains(@class, 'cell_output')][1]")
        if "the figure for its default setting" in note.inner_text():
            assert panel.locator("img").count() == 1, f"{name}: the widget's picture is missing"
            continue
        assert "the figure above is its default setting" in note.inner_text()
        pointing += 1
        assert panel.locator("img").count() == 0, f"{name}: the panel repeats its figure"
        cell = panel.locator("xpath=ancestor::div[contains(@class, 'cell')][1]")
        above = cell.locator("xpath=preceding-sibling::div[contains(@class, 'cell')][1]")
        figure = above.locator("div.cell_output img").first
        assert figure.evaluate("img => img.naturalWidth") > 100
    assert pointing == 1, f"{name}: {pointing} panels point to the figure above, not one"
    srcs = page.locator("article div.cell_output img").evaluate_all(
        "is => is.filter(i => !i.closest('.course-stack')).map(i => i.getAttribute('src'))")
    assert len(srcs) == len(set(srcs)), f"{name}: a figure is shown twice"
    assert "VBox(" not in page.content() and "widget-view" not in page.content()
    figure.scroll_into_view_if_needed()
    page.screenshot(path=shots / f"site-{name}-panel.png")


def _shot(loc, path: Path) -> None:
    """A screenshot of one element, the page's sticky bars hidden so they do not cover it
    (a reader scrolling sees it whole)."""
    loc.page.add_style_tag(content="#pst-header, .bd-header-article, .skip-link "
                                   "{ visibility: hidden !important; }")
    loc.screenshot(path=path)


def _at_width(page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": page.viewport_size["height"]})
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => "
                  "requestAnimationFrame(r)))")  # laid out, the site's resize handlers run


def test_05_heatmaps_and_eqs_12_and_13_read_at_both_widths(site, page, shots):
    """Eqs. 12 and 13 keep their numbers in view at both widths (a wide equation scrolls
    beside its number); the heatmaps fit the column. Screenshots of each at 1280 px and
    390 px for a reader to look at."""
    page.goto(site + "05_propagation_merging.html", wait_until="load")
    page.evaluate("MathJax.startup.promise")
    heatmaps = page.locator("div.cell_output img[alt*='plain embeddings']").first
    size = page.viewport_size
    try:
        for width in WIDTHS:
            _at_width(page, width)
            assert page.evaluate(EQUATION_NUMBERS) == [], width
            for n in (12, 13):
                eq = page.locator("div.math").filter(has=page.locator(
                    ".course-eqno", has_text=f"({n})"))
                assert eq.count() == 1, (width, n)
                inside = eq.evaluate(
                    "d => { const r = d.getBoundingClientRect(), n = d.querySelector("
                    "'.course-eqno').getBoundingClientRect(); return [n.width > 0, "
                    "n.left >= r.left - 1, n.right <= r.right + 1, "
                    "n.right <= document.documentElement.clientWidth]; }")
                assert all(inside), (width, n, inside)
                _shot(eq, shots / f"site-05-eq{n}-{width}.png")
            _shot(heatmaps, shots / f"site-05-heatmaps-{width}.png")
            img = heatmaps.evaluate("i => [i.getBoundingClientRect().right, "
                                    "i.closest('article').getBoundingClientRect().right]")
            assert img[0] <= img[1] + 1, (width, img)
    finally:
        page.set_viewport_size(size)


def test_07_figures_read_panel_by_panel_on_a_phone(site, page, shots):
    """At 390 px each of notebook 07's wide figures (plots side by side, 1,249 px) shows
    as its panels one under another, each at a legible size, its legend reflowed under
    them; at 1280 px the figure is whole. A tap on a panel opens the figure at its own
    size in the viewer, scrollable to the rest; Esc closes it, and so does the back
    button."""
    page.goto(site + "07_self_evolving_curves.html", wait_until="load")
    stacks = page.locator("div.course-stack")
    assert stacks.count() == 4  # the four figures of side-by-side panels
    first = page.locator("a.course-figure").first
    size = page.viewport_size
    try:
        _at_width(page, 1280)
        assert stacks.evaluate_all("ss => ss.every(s => !s.checkVisibility())")
        assert first.is_visible()
        _shot(first, shots / "site-07-figure-1280.png")
        _at_width(page, PHONE)
        assert not first.is_visible()  # the whole figure gives way to its panels
        whole = first.evaluate("a => a.querySelector('img').naturalWidth")
        assert whole > 1200  # shrunk whole to a phone's column it read at under 30 %
        scales = stacks.first.locator(".course-crop[data-panel='1'] img").evaluate_all(
            "is => is.map(i => i.getBoundingClientRect().width / i.naturalWidth)")
        assert len(scales) == 3 and min(scales) >= LEGIBLE, scales
        _shot(stacks.first, shots / "site-07-panels-390.png")
        viewer = page.locator("dialog.course-viewer")
        panel = stacks.first.locator(".course-crop[data-panel='1']").nth(1)
        panel.scroll_into_view_if_needed()
        panel.click()
        assert viewer.evaluate("d => d.open")
        shown = viewer.locator("img").evaluate(
            "i => [i.getBoundingClientRect().width, i.naturalWidth]")
        assert abs(shown[0] - shown[1]) <= 1, shown  # at its own size: its text as drawn
        assert viewer.locator(".course-viewer-body").evaluate(
            "b => b.scrollWidth > b.clientWidth && getComputedStyle(b).overflowX === 'auto'")
        page.screenshot(path=shots / "site-07-viewer-390.png")
        page.keyboard.press("Escape")
        assert not viewer.evaluate("d => d.open")
        panel.click()
        assert viewer.evaluate("d => d.open")
        page.go_back()
        page.wait_for_function("() => !document.querySelector('dialog.course-viewer').open")
        assert page.url.endswith("07_self_evolving_curves.html")  # the back closed it only
    finally:
        page.set_viewport_size(size)


def test_the_course_map_table_scrolls_with_its_words_whole_on_a_phone(site, page, shots):
    """At 390 px the course map's table is wider than the column: it scrolls sideways in
    its box (which fades where more is hidden) and no header or cell is broken letter by
    letter."""
    page.goto(site + "00_quickstart.html", wait_until="load")
    page.evaluate("MathJax.startup.promise")
    table = page.locator("article table").filter(has_text="merge candidates").first
    box = table.locator("xpath=..")
    size = page.viewport_size
    try:
        _at_width(page, PHONE)
        got = box.evaluate("b => [b.scrollWidth, b.clientWidth, getComputedStyle(b).overflowX,"
                           " b.classList.contains('course-more-right')]")
        assert got[0] > got[1] and got[2] in ("auto", "scroll") and got[3], got
        header = table.locator("th").filter(has_text="notebook")
        lines = header.evaluate(
            "th => { const t = document.createTreeWalker(th, NodeFilter.SHOW_TEXT).nextNode(); "
            "const r = document.createRange(); r.selectNodeContents(t); return new Set("
            "[...r.getClientRects()].map(x => Math.round(x.top))).size; }")
        assert lines == 1, f"the header 'notebook' takes {lines} lines"
        _shot(table, shots / "site-00-course-map-table-390.png")
        box.evaluate("b => b.scrollTo(b.scrollWidth, 0)")
        page.wait_for_function("b => !b.classList.contains('course-more-right')",
                               arg=box.element_handle())
        _shot(table, shots / "site-00-course-map-table-390-scrolled.png")
    finally:
        page.set_viewport_size(size)


@pytest.mark.parametrize("edition", ["student", "instructor"])
def test_the_download_button_gives_the_notebook(edition, site, instructor_site, browser):
    import nbformat

    base, folder = (site, site_dir()) if edition == "student" else (instructor_site,
                                                                    instructor_dir())
    for name in NOTEBOOKS:
        body = browser.request.get(f"{base}{name}.html").text()
        hrefs = re.findall(r'href="([^"]+\.ipynb)"[^>]*download-source-button', body) or \
            re.findall(r'href="(_sources/[^"]+\.ipynb)"', body)
        assert hrefs == [f"_sources/{name}.ipynb"], (edition, name, hrefs)
        r = browser.request.get(base + hrefs[0])
        assert r.ok, (edition, name, r.status)
        nb = nbformat.reads(r.text(), as_version=4)
        nbformat.validate(nb)
        served = json.loads(r.text())
        if edition == "student":
            assert served == json.loads((folder.parent / "notebooks" / f"{name}.ipynb")
                                        .read_text(encoding="utf-8"))  # the student copy
            assert not any((c["metadata"].get("exercise") or {}).get("role") == "solution"
                           or "solution" in c["metadata"].get("tags", [])
                           for c in served["cells"]), f"{name}: a solution in the student copy"
        else:
            assert r.body() == (ROOT / "notebooks" / f"{name}.ipynb").read_bytes()


def test_solutions_show_only_on_the_instructor_site(site, instructor_site, browser):
    solutions = {n: _solutions(n) for n in NOTEBOOKS}
    assert any(solutions.values()), "no notebook has a solution cell to check"
    for name, lines in solutions.items():
        if not lines:
            continue
        student = _text(browser, f"{site}{name}.html")
        instructor = _text(browser, f"{instructor_site}{name}.html")
        for line in map(_plain, lines):
            assert line in instructor, f"{name}: the instructor site lacks {line!r}"
            assert line not in student, f"{name}: the student site shows {line!r}"


def test_the_teaching_pages_list_every_notebook_and_guide_page(site, page):
    page.goto(site + "syllabus.html", wait_until="load")
    table = page.locator("table").filter(has_text="study time")
    assert table.count() == 1
    linked = {h.split("#")[0] for h in table.locator("a").evaluate_all(
        "as => as.map(a => a.getAttribute('href'))")}
    assert linked == {f"{n}.html" for n in NOTEBOOKS if n != "00_quickstart"}
    guide = sorted(p.stem for p in (ROOT / "docs" / "guide").glob("*.md"))
    page.goto(site + "00_quickstart.html", wait_until="load")
    sidebar = [a.get_attribute("href") for a in page.locator("nav.bd-links a").all()]
    assert sorted(Path(h).stem for h in sidebar if h.startswith("guide/")) == guide
    for teaching in ("syllabus.html", "instructor-guide.html", "slides.html"):
        assert teaching in sidebar
    assert "api/hyperskill_lite/index.html" in sidebar  # the API reference


def test_the_api_reference_documents_every_module(site, page):
    """One reference page per module of the package, each with its docstring's text."""
    html = site_dir()
    modules = sorted(p for p in (ROOT / "hyperskill_lite").rglob("*.py")
                     if "__pycache__" not in p.parts and not p.name.startswith("_")
                     or p.name == "__init__.py")
    missing = []
    for path in modules:
        rel = path.relative_to(ROOT).with_suffix("")
        rel = rel.parent if rel.name == "__init__" else rel
        if not (html / "api" / rel / "index.html").is_file():
            missing.append(str(rel))
    assert not missing, f"no reference page for {missing}"
    page.goto(site + "api/hyperskill_lite/core/utility/index.html", wait_until="load")
    assert "gamma" in page.inner_text("article").lower()  # Eq. 3's docstring, rendered


@pytest.mark.parametrize("name", ["01_hypergraph_memory", "05_propagation_merging"])
def test_the_slides_run_offline(name, site, page, shots):
    page.goto(f"{site}slides/{name}.slides.html", wait_until="load")
    page.wait_for_function("document.body.dataset.slides === 'ready'")
    page.evaluate("MathJax.startup.promise")
    assert page.locator(".reveal .slides > section").count() >= 4
    assert page.locator("mjx-container").count() >= 1
    page.keyboard.press("ArrowRight")
    page.wait_for_timeout(800)
    page.screenshot(path=shots / f"slides-{name}.png")
    assert page.evaluate("Reveal.getIndices().h") == 1


# --- the checker, on a site with one fault per page -------------------------------------

FAULTS = {
    "ok.html": "<p>plain prose, an image <img src='dot.svg' alt='a black square dot'> and "
               "<a href='ok.html#top'>a link</a><div style='overflow-x:auto;width:100px'>"
               "<pre style='width:600px'>a wide box that scrolls</pre></div>",
    "raw_math.html": "<p>the utility $$\\gamma_i = \\beta s$$ by hand</p>",
    "math_error.html": "<div><mjx-container display='true'><mjx-merror "
                       "data-mjx-error='\\tag not allowed in split environment'>\\tag not "
                       "allowed in split environment</mjx-merror></mjx-container></div>",
    "broken_image.html": "<p><img src='missing.png' alt='a picture that is not there'></p>",
    "broken_link.html": "<p><a href='nowhere.html'>gone</a> <a href='ok.html#nope'>bad anchor</a>",
    "console_error.html": "<script>console.error('boom')</script>",
    "hash_alt.html": "<p><img src='dot.svg' alt='4d18c58f894f7713d06514d2bbe98061.png'></p>",
    "clipped.html": "<div style='overflow:hidden;width:200px'><pre style='width:500px'>wide"
                    "</pre></div>",
    "phone.html": "<table style='width:700px'><tr><td>a table wider than a phone</td></tr>"
                  "</table>",
    "unreachable.html": "<div style='display:flex;flex-direction:row-reverse;overflow-x:auto;"
                        "width:200px'><pre style='min-width:500px;margin:0'>wide</pre></div>",
    "wide_figure.html": "<p><img src='wide.png' alt='three plots side by side, drawn wide' "
                        "style='max-width:100%'></p>",
    "zoomable.html": "<p><img id='f' src='wide.png' alt='three plots side by side, drawn wide'"
                     " style='max-width:100%'></p><dialog id='v' style='width:100vw;height:100vh;"
                     "max-width:none;max-height:none;margin:0;padding:0;overflow:auto'>"
                     "<img src='wide.png' alt='the same figure at its own size' "
                     "style='max-width:none'></dialog><script>document.getElementById('f')"
                     ".onclick = () => document.getElementById('v').showModal();</script>",
    "hidden_number.html": "<div class='math' style='overflow-x:auto;width:300px'>"
                          "<mjx-container display='true' style='display:block;position:relative;"
                          "width:800px;height:2em'>a wide equation<mjx-labels style='position:"
                          "absolute;right:0;top:0'><mjx-mtd>(13)</mjx-mtd></mjx-labels>"
                          "<mjx-assistive-mml style='position:absolute;width:1px;height:1px;"
                          "overflow:hidden;clip:rect(0 0 0 0)'><math><mlabeledtr><mtd><mtext>(13)"
                          "</mtext></mtd></mlabeledtr></math></mjx-assistive-mml>"
                          "</mjx-container></div>",
    "shown_twice.html": "<p><img src='small.png' alt='a small figure of one plot'></p>"
                        "<p><img src='small.png' alt='a small figure of one plot'></p>",
    "broken_word.html": "<table><tr><td style='width:60px;max-width:60px;overflow-wrap:anywhere'>"
                        "incomprehensibilities</td></tr></table>",
    "not_stacked.html": "<div class='cell_output'><img src='small.png' alt='two plots side by "
                        "side'><div class='course-pieces' hidden data-size='100x50' "
                        "data-pieces='[]'></div></div>",
}
EXPECTED = {
    "raw_math.html": "untypeset math: …utility $$",
    "math_error.html": "math MathJax could not typeset: \\tag not allowed in split",
    "broken_image.html": "broken image: missing.png",
    "broken_link.html": "the page has no anchor #nope",
    "console_error.html": "console error: boom",
    "hash_alt.html": "image without alt text that says what it shows: dot.svg",
    "clipped.html": "cut at 1280 px: pre",
    "phone.html": "cut at 390 px: table",
    "unreachable.html": "where scrolling never reaches",
    "wide_figure.html": "of its size is neither stacked nor zoomable: wide.png",
    "hidden_number.html": "cut at 390 px: equation (13): its number is not in view",
    "shown_twice.html": "the same figure shown twice: small.png",
    "broken_word.html": 'at 390 px: a table breaks the word "incomprehensibilities"',
    "not_stacked.html": "at 390 px: a figure of panels (100x50) is not shown panel by panel",
}
CLEAN = ("ok.html", "zoomable.html")
"""Pages the checker must pass: the second has a figure too wide to read that a tap opens
at its own size (a dialog that scrolls) and Esc closes."""


def test_the_checker_flags_each_fault(tmp_path, browser, page):
    from PIL import Image, ImageDraw

    (tmp_path / "dot.svg").write_text(
        "<svg xmlns='http://www.w3.org/2000/svg' width='4' height='4'><rect width='4' "
        "height='4'/></svg>")
    for name, size in (("wide.png", (1200, 300)), ("small.png", (100, 50))):
        im = Image.new("RGB", size, "white")
        ImageDraw.Draw(im).rectangle([10, 10, size[0] - 10, size[1] - 10], outline="black")
        im.save(tmp_path / name)
    for name, body in FAULTS.items():
        (tmp_path / name).write_text(
            f"<!DOCTYPE html><html><head><link rel='icon' href='dot.svg'></head>"
            f"<body id='top'><main>{body}</main></body></html>")
    server, url = serve(tmp_path)
    try:
        links = LinkChecker(browser.request)
        reports = {name: check_page(page, url + name, links) for name in FAULTS}
    finally:
        server.shutdown()
    for name in CLEAN:
        assert reports[name].problems == [], (name, reports[name].problems)
    for name, expected in EXPECTED.items():
        assert any(expected in p for p in reports[name].problems), (name, reports[name])
    assert any("nowhere.html (HTTP 404)" in p for p in reports["broken_link.html"].problems)
    assert not any("cut at 1280" in p for p in reports["phone.html"].problems)
    assert any("cut at 1280 px: equation (13)" in p for p in reports["hidden_number.html"].problems)
