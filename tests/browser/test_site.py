"""The course site (`make book`) in Chromium: every page opens clean (pagecheck.py), the
course map is the home page, the notebooks come in order with prev/next links, the
equations are typeset and each ipywidgets panel shows its static default figure.

The checker itself is tested on a small site written here, with one fault per page, so
a console error, a broken image or link, or raw ``$$`` in the real site is known to fail.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pagecheck import LinkChecker, check_page
from support import serve, site_dir

NOTEBOOK_PAGE = re.compile(r"\d\d_.+\.html")


def _pages() -> list[str]:
    html = site_dir()
    pages = sorted(p.relative_to(html).as_posix() for p in html.glob("*.html"))
    return pages or ["(no site built: run make book)"]


@pytest.fixture(scope="module")
def page(browser):
    p = browser.new_page()
    yield p
    p.close()


@pytest.fixture(scope="module")
def links(browser):
    return LinkChecker(browser.request)


@pytest.mark.parametrize("name", _pages())
def test_every_page_opens_clean(name, site, page, links, shots):
    report = check_page(page, site + name, links)
    page.screenshot(path=shots / f"site-{Path(name).stem}.png")
    assert not report.problems, f"{name}:\n  " + "\n  ".join(report.problems)


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
    sidebar = [a.get_attribute("href") for a in page.locator("nav.bd-links a").all()]
    notebooks = sorted(p.name for p in site_dir().glob("[0-9][0-9]_*.html"))
    assert [h for h in sidebar if NOTEBOOK_PAGE.fullmatch(h or "")] == notebooks[1:]
    for i, name in enumerate(notebooks):
        page.goto(site + name, wait_until="load")
        nxt, prev = page.locator("a.right-next"), page.locator("a.left-prev")
        if i + 1 < len(notebooks):
            assert nxt.get_attribute("href") == notebooks[i + 1], name
        else:
            assert nxt.count() == 0, name
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
    assert "VBox(" not in page.content() and "widget-view" not in page.content()
    figure.scroll_into_view_if_needed()
    page.screenshot(path=shots / f"site-{name}-panel.png")


# --- the checker, on a site with one fault per page -------------------------------------

FAULTS = {
    "ok.html": "<p>plain prose, an image <img src='dot.svg'> and <a href='ok.html#top'>a link</a>",
    "raw_math.html": "<p>the utility $$\\gamma_i = \\beta s$$ by hand</p>",
    "broken_image.html": "<p><img src='missing.png'></p>",
    "broken_link.html": "<p><a href='nowhere.html'>gone</a> <a href='ok.html#nope'>bad anchor</a>",
    "console_error.html": "<script>console.error('boom')</script>",
}
EXPECTED = {
    "raw_math.html": "untypeset math: …utility $$",
    "broken_image.html": "broken image: missing.png",
    "broken_link.html": "the page has no anchor #nope",
    "console_error.html": "console error: boom",
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
