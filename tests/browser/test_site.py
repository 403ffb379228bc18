"""The course site (`make book`) in Chromium, both editions.

Every page of the student site, its slides, and every notebook page of the instructor site
opens clean (pagecheck.py: no console error, nothing from the network, every image decoded
and described by its alt text, no broken link, no raw math, and nothing cut at 1280 px or
at 390 px). The course map is the home page, the notebooks come in order with prev/next
links, the equations are typeset, each ipywidgets panel shows its static default figure,
the ".ipynb" download button gives the notebook (the student copy on the student site),
the student site shows no solution and the instructor site every one, the syllabus's
study-time table lists every notebook, the user guide lists every docs/guide page, and
the slides run offline. Screenshots of notebook 05's heatmaps and Eq. 13 at both widths
land in the run's output folder.

The checker itself is tested on a small site written here, with one fault per page, so
a console error, a broken image or link, raw ``$$``, a missing alt text or a cut box in
the real site is known to fail.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from pagecheck import WIDTHS, LinkChecker, check_page
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

    def is_solution(cell: dict) -> bool:
        meta = cell.get("metadata", {})
        exercise = meta.get("exercise") if isinstance(meta.get("exercise"), dict) else {}
        return exercise.get("role") == "solution" or "solution" in meta.get("tags", [])

    elsewhere = {ln for c in nb["cells"] if not is_solution(c) for ln in lines(c)}
    out = []
    for cell in filter(is_solution, nb["cells"]):
        own = [ln for ln in solution_lines(cell) if ln not in elsewhere]
        if own:
            out.append(max(own, key=len))
    return out


def _text(browser, url: str) -> str:
    """The text of a page as a reader would copy it (tags dropped, entities decoded)."""
    return html.unescape(re.sub(r"<[^>]+>", "", browser.request.get(url).text()))


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
def test_a_panel_shows_its_static_default_figure(name, site, page, shots):
    page.goto(site + f"{name}.html", wait_until="load")
    note = page.get_by_text("Interactive panel: open this notebook in JupyterLab")
    assert note.count() == 1, f"{name}: the panel's note is missing"
    figure = note.locator("xpath=ancestor::div[contains(@class, 'cell_output')][1]//img")
    assert figure.count() == 1, f"{name}: the panel's default figure is missing"
    assert figure.evaluate("img => img.naturalWidth") > 100
    assert figure.get_attribute("alt").startswith("The panel's default figure")
    assert "VBox(" not in page.content() and "widget-view" not in page.content()
    figure.scroll_into_view_if_needed()
    page.screenshot(path=shots / f"site-{name}-panel.png")


def _shot(loc, path: Path) -> None:
    """A screenshot of one element, the page's sticky bars hidden so they do not cover it
    (a reader scrolling sees it whole)."""
    loc.page.add_style_tag(content="#pst-header, .bd-header-article, .skip-link "
                                   "{ visibility: hidden !important; }")
    loc.screenshot(path=path)


def test_05_heatmaps_and_eq_13_read_at_both_widths(site, page, shots):
    """Eq. 13 scrolls inside its box (it is wider than a phone); the heatmaps fit the
    column. Screenshots of both at 1280 px and 390 px for a reader to look at."""
    page.goto(site + "05_propagation_merging.html", wait_until="load")
    page.evaluate("MathJax.startup.promise")
    eq13 = page.locator("mjx-container[display='true']").filter(has_text="(13)")
    heatmaps = page.locator("div.cell_output img[alt*='plain embeddings']").first
    assert eq13.count() == 1 and heatmaps.count() == 1
    size = page.viewport_size
    try:
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": size["height"]})
            for what, loc in (("eq13", eq13), ("heatmaps", heatmaps)):
                _shot(loc, shots / f"site-05-{what}-{width}.png")
            box = eq13.evaluate("e => [e.scrollWidth, e.clientWidth, getComputedStyle(e).overflowX]")
            assert box[0] <= box[1] + 1 or box[2] in ("auto", "scroll"), (width, box)
            img = heatmaps.evaluate("i => [i.getBoundingClientRect().right, "
                                    "i.closest('article').getBoundingClientRect().right]")
            assert img[0] <= img[1] + 1, (width, img)
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
        for line in lines:
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
}
EXPECTED = {
    "raw_math.html": "untypeset math: …utility $$",
    "broken_image.html": "broken image: missing.png",
    "broken_link.html": "the page has no anchor #nope",
    "console_error.html": "console error: boom",
    "hash_alt.html": "image without alt text that says what it shows: dot.svg",
    "clipped.html": "cut at 1280 px: pre",
    "phone.html": "cut at 390 px: table",
    "unreachable.html": "where scrolling never reaches",
}


def test_the_checker_flags_each_fault(tmp_path, browser, page):
    (tmp_path / "dot.svg").write_text(
        "<svg xmlns='http://www.w3.org/2000/svg' width='4' height='4'><rect width='4' "
        "height='4'/></svg>")
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
    assert reports["ok.html"].problems == []
    for name, expected in EXPECTED.items():
        assert any(expected in p for p in reports[name].problems), (name, reports[name])
    assert any("nowhere.html (HTTP 404)" in p for p in reports["broken_link.html"].problems)
    assert not any("cut at 1280" in p for p in reports["phone.html"].problems)
