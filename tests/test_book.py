"""tools/build_book.py and tools/coursebook/: how the notebooks and pages are staged for the
two editions of the course site (the build itself and every page are checked in a browser
by tests/browser/, `make browser-test`)."""

from __future__ import annotations

import base64
import doctest
import importlib
import importlib.util
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("build_book", ROOT / "tools" / "build_book.py")
book = importlib.util.module_from_spec(_spec)
sys.modules["build_book"] = book
_spec.loader.exec_module(book)  # puts tools/ on sys.path: the coursebook package imports
from coursebook import alt, pages, slides, stage  # noqa: E402

PANELS = ["03_cooccurrence_ranking", "05_propagation_merging", "08_ablations_and_sensitivity"]


@pytest.mark.parametrize("module", [alt, pages, slides, stage])
def test_the_doctests_of_the_builder(module):
    result = doctest.testmod(module)
    assert result.attempted >= 1 and result.failed == 0


@pytest.fixture(scope="module")
def staged(tmp_path_factory) -> dict[str, dict]:
    src = tmp_path_factory.mktemp("src")
    toc = pages.toctree([p.stem for p in stage.course_notebooks(ROOT / "notebooks")][1:],
                        ["syllabus"], {})
    names = book.stage(ROOT / "notebooks", src, toc, "instructor", ROOT / "figures")
    return {n: json.loads((src / f"{n}.ipynb").read_text(encoding="utf-8")) for n in names}


def test_every_notebook_is_staged_in_course_order_with_the_map_first(staged):
    names = list(staged)
    assert names == sorted(names) and names[0] == book.HOME and len(names) >= 10
    toc = staged[book.HOME]["cells"][-1]["source"]
    first, teaching = toc.split("```{toctree}\n")[1:3]
    assert first.startswith(":hidden:") and ":caption: Notebooks" in first
    assert first.split("\n\n", 1)[1].split("```")[0].split() == names[1:]
    assert ":caption: Teaching" in teaching and "syllabus" in teaching


@pytest.mark.parametrize("name", PANELS)
def test_a_panel_becomes_its_static_default_figure(name, staged):
    original = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))
    nb = staged[name]
    assert "widgets" not in nb["metadata"]
    dumped = json.dumps(nb)
    assert book.WIDGET_VIEW not in dumped and "NBVAL_" not in dumped
    i = next(i for i, c in enumerate(original["cells"]) if c["cell_type"] == "code"
             and any(book.WIDGET_VIEW in o.get("data", {}) for o in c["outputs"]))
    cell = next(c for c in nb["cells"] if c.get("id") == original["cells"][i].get("id"))
    assert cell["outputs"][0]["data"]["text/markdown"] == book.PANEL_NOTE
    assert cell["outputs"][1]["data"]["image/png"] == book.default_figure(
        original["cells"], i)["data"]["image/png"]
    assert cell["metadata"]["mystnb"]["image"]["alt"].startswith("The panel's default figure")


def test_instructor_solutions_stay_collapsed_and_math_and_prose_are_untouched(staged):
    for name, nb in staged.items():
        original = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))
        kept = {c.get("id"): c for c in nb["cells"]}
        for before in original["cells"]:
            if "remove-cell" in before["metadata"].get("tags", []):  # hidden tests: left out
                assert before.get("id") not in kept
                continue
            after = kept[before.get("id")]
            if before["metadata"].get("jupyter", {}).get("source_hidden"):
                assert "hide-input" in after["metadata"]["tags"]
            if before["cell_type"] == "markdown":
                src = "".join(before["source"])
                assert after["source"] == book.github_anchors(src)
                assert after["source"].count("$") == src.count("$")


def test_every_figure_gets_alt_text_that_is_not_a_file_name(staged):
    figures = 0
    for nb in staged.values():
        for cell in nb["cells"]:
            if any("image/png" in o.get("data", {}) for o in cell.get("outputs", [])):
                text = cell["metadata"]["mystnb"]["image"]["alt"]
                assert len(text) > 12 and not text.endswith(".png"), text
                figures += 1
    assert figures >= 20


def _cell(kind: str, source: str, **meta) -> dict:
    cell = {"cell_type": kind, "metadata": meta, "source": source}
    if kind == "code":
        cell.update(outputs=[], execution_count=None)
    return cell


def test_the_student_edition_leaves_out_solutions_and_removed_cells():
    nb = {"metadata": {}, "cells": [
        _cell("markdown", "# 01 · x"),
        _cell("code", "answer = None  # your answer here",
              exercise={"id": "01.1", "role": "answer"}),
        _cell("code", "answer = 42", exercise={"id": "01.1", "role": "solution"},
              jupyter={"source_hidden": True}),
        _cell("code", "secret = 1", tags=["solution"]),
        _cell("code", "setup()", tags=["remove-cell"]),
    ]}
    student = stage.stage_notebook(nb, edition="student")
    assert [c["source"] for c in student["cells"]] == ["# 01 · x",
                                                       "answer = None  # your answer here"]
    instructor = stage.stage_notebook(nb, edition="instructor")
    assert [c["source"] for c in instructor["cells"]][2:] == ["answer = 42", "secret = 1"]
    assert "hide-input" in instructor["cells"][2]["metadata"]["tags"]
    with pytest.raises(ValueError, match="edition must be one of"):
        stage.stage_notebook(nb, edition="teacher")


def test_a_student_copy_that_still_holds_a_solution_region_stops_the_build():
    nb = {"metadata": {}, "cells": [_cell(
        "code", "def gamma(s, n):\n    ### BEGIN SOLUTION\n    return s / n\n    ### END SOLUTION")]}
    with pytest.raises(book.BookError, match="still holds a solution region"):
        stage.stage_notebook(nb, edition="student")
    assert stage.stage_notebook(nb, edition="instructor")["cells"]


def test_the_student_copies_come_from_the_course_command(tmp_path):
    out = book.student_copies(ROOT / "notebooks", tmp_path / "copies")
    names = sorted(p.name for p in out.glob("[0-9][0-9]_*.ipynb"))
    assert names == sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    for path in out.glob("[0-9][0-9]_*.ipynb"):
        nb = json.loads(path.read_text(encoding="utf-8"))
        assert not any(stage.is_solution(c) for c in nb["cells"]), path.name
        stage.stage_notebook(nb, edition="student")  # no solution region left either


def test_alt_text_reads_the_png_description_first(tmp_path):
    from PIL import Image
    from PIL.PngImagePlugin import PngInfo

    def png(description: str) -> bytes:
        info = PngInfo()
        info.add_text("Description", description)
        buf = io.BytesIO()
        Image.new("RGB", (2, 2)).save(buf, "PNG", pnginfo=info)
        return buf.getvalue()

    (tmp_path / "05_x.png").write_bytes(png("W: co-occurrence (Eq. 12)"))
    own = base64.b64encode(png("the output's own description")).decode()
    saves = 'viz.save_figure(fig, FIGURES / "05_x.png")\nax.set_title("code title")'
    assert alt.figure_alt(own, saves, tmp_path, "s") == "Figure: the output's own description"
    assert alt.figure_alt("", saves, tmp_path, "s") == "Figure: W: co-occurrence (Eq. 12)"
    assert alt.figure_alt("", saves, tmp_path / "none", "s") == "Figure: code title"


def test_the_header_fields_feed_the_syllabus():
    headers = [pages.header(p.stem, json.loads(p.read_text(encoding="utf-8")))
               for p in stage.course_notebooks(ROOT / "notebooks")]
    for h in headers:
        assert h.title.startswith(h.name[:2]) and h.objectives and h.compute, h
    table = pages.study_table(headers[1:]).splitlines()
    assert len(table) == 2 + len(headers[1:]) + 1
    for h, row in zip(headers[1:], table[2:]):
        assert f"]({h.name}.ipynb)" in row
        assert (" ".join(h.study.split()) or pages.NOT_GIVEN) in row
        assert " ".join(h.compute.split()) in row


def test_every_page_of_docs_guide_and_course_is_copied_and_listed(tmp_path):
    docs, src = tmp_path / "docs", tmp_path / "src"
    (docs / "guide").mkdir(parents=True)
    src.mkdir()
    for name in ("syllabus", "slides"):
        (docs / f"{name}.md").write_text(f"# {name}\n")
    (docs / "guide" / "studio.md").write_text("# Studio\n")
    (docs / "guide" / "mcp.md").write_text("# MCP\n")
    found = pages.copy_pages(docs, src)
    assert found == {"guide": ["mcp", "studio"]}
    assert (src / "guide" / "studio.md").is_file() and (src / "syllabus.md").is_file()
    toc = pages.toctree(["01_a"], ["syllabus", "slides"], found)
    assert ":caption: User guide\n:glob:\n\nguide/*" in toc
    assert ":caption: Course" not in toc


def test_the_slides_keep_prose_figures_and_tables_and_drop_the_code():
    nb = json.loads((ROOT / "notebooks" / "05_propagation_merging.ipynb").read_text())
    deck = slides.slide_notebook(nb)
    kinds = [c["metadata"]["slideshow"]["slide_type"] for c in deck["cells"]]
    assert kinds.count("slide") >= 5 and kinds.count("subslide") >= 3
    for cell in deck["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] and all(
                any(k in o.get("data", {}) for k in slides.RICH) for o in cell["outputs"])


def test_links_to_notebook_headings_point_at_the_site_anchors():
    assert book.github_anchors("[map](00_quickstart.ipynb#The-course-map)") == \
        "[map](00_quickstart.ipynb#the-course-map)"
    assert book.github_anchors("[x](https://example.org/a#B)") == "[x](https://example.org/a#B)"


def test_without_npm_or_notebooks_the_build_says_what_to_do_in_one_line(tmp_path):
    env = {"PATH": str(tmp_path / "bin"), "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path)}
    (tmp_path / "bin").mkdir()
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "build_book.py"), "--out",
                        str(tmp_path / "book"), "--edition", "instructor"],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 1 and r.stdout == ""
    have_sphinx = all(importlib.util.find_spec(m) for m in ("sphinx", "myst_nb",
                                                            "sphinx_book_theme", "nbconvert"))
    expected = "npm was not found" if have_sphinx else "make book needs sphinx"
    assert r.stderr.count("\n") == 1 and expected in r.stderr, r.stderr
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "build_book.py"), "--out",
                        str(tmp_path / "book"), "--notebooks", str(tmp_path)],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 1 and "no notebooks NN_*.ipynb" in r.stderr
