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
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("build_book", ROOT / "tools" / "build_book.py")
book = importlib.util.module_from_spec(_spec)
sys.modules["build_book"] = book
_spec.loader.exec_module(book)  # puts tools/ on sys.path: the coursebook package imports
from coursebook import alt, counts, pages, panels, slides, stage  # noqa: E402

PANELS = ["03_cooccurrence_ranking", "05_propagation_merging", "08_ablations_and_sensitivity"]


@pytest.mark.parametrize("module", [alt, counts, pages, panels, slides, stage])
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
def test_a_panel_points_to_its_static_default_figure_shown_once(name, staged):
    """The panel's default figure is drawn by the cell above it: the page shows it there,
    and the panel's output is a note pointing to it (not the same figure a second time)."""
    original = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))
    nb = staged[name]
    assert "widgets" not in nb["metadata"]
    dumped = json.dumps(nb)
    assert book.WIDGET_VIEW not in dumped and "NBVAL_" not in dumped
    i = next(i for i, c in enumerate(original["cells"]) if c["cell_type"] == "code"
             and any(book.WIDGET_VIEW in o.get("data", {}) for o in c["outputs"]))
    ids = [c.get("id") for c in nb["cells"]]
    at = ids.index(original["cells"][i].get("id"))
    cell, above = nb["cells"][at], nb["cells"][at - 1]
    assert [o["data"] for o in cell["outputs"]] == [{"text/markdown": stage.PANEL_NOTE_ABOVE}]
    shown = [o["data"]["image/png"] for o in above["outputs"] if "image/png" in o["data"]]
    assert shown[-1] == book.default_figure(original["cells"], i)["data"]["image/png"]
    pngs = [o["data"]["image/png"] for c in nb["cells"] for o in c.get("outputs", [])
            if "image/png" in o.get("data", {})]
    assert len(pngs) == len(set(pngs)), f"{name}: a figure is shown twice"


def test_a_panel_whose_figure_is_further_up_shows_it_with_the_note():
    png = base64.b64encode(_png_of(_figure(1))).decode()
    fig = {"cell_type": "code", "metadata": {}, "source": "ax.set_title('SR')", "outputs": [
        {"output_type": "display_data", "metadata": {}, "data": {"image/png": png}}]}
    log = _cell("code", "print(1)")
    panel = {"cell_type": "code", "metadata": {}, "source": "panel(draw)", "outputs": [
        {"output_type": "display_data", "metadata": {},
         "data": {book.WIDGET_VIEW: {"model_id": "x"}, "text/plain": "VBox()"}}]}
    out = stage.stage_notebook({"metadata": {}, "cells": [fig, log, panel]})
    data = [o["data"] for o in out["cells"][2]["outputs"]]
    assert data[0] == {"text/markdown": book.PANEL_NOTE}
    assert data[1]["image/png"] == png
    assert out["cells"][2]["metadata"]["mystnb"]["image"]["alt"] == \
        "The panel's default figure. Figure: SR"


# --- figures of side-by-side panels: found in the PNG, shown panel by panel on a phone --

def _figure(columns: int, *, legend: bool = False, suptitle: str = "", colorbar: bool = False,
            axis_off: bool = False, rows: int = 1):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.6 * rows), squeeze=False)
    for k, ax in enumerate(axes.flat):
        if colorbar:
            im = ax.imshow(np.arange(16.0).reshape(4, 4))
            fig.colorbar(im, ax=ax)
        else:
            ax.plot([0, 1, 2], [k, 2 * k + 1, k], label=f"method {k}")
            ax.plot([0, 1, 2], [1, 0, 1], "--", label=f"baseline {k}")
        ax.set(title=f"panel {k} of the figure", xlabel="episode", ylabel="cumulative SR (%)")
        if axis_off:
            ax.set_axis_off()
    if suptitle:
        fig.suptitle(suptitle)
    fig.tight_layout(rect=(0, 0.1 if legend else 0, 1, 1))
    if legend:
        fig.legend(*axes.flat[0].get_legend_handles_labels(), loc="lower center", ncol=4,
                   fontsize=8, frameon=False)
    return fig


def _png_of(fig) -> bytes:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


@pytest.mark.parametrize("columns", [2, 3])
def test_side_by_side_panels_are_found_and_cut_between_them(columns):
    png = _png_of(_figure(columns, legend=True, suptitle="a title over all the panels"))
    pieces = panels.figure_pieces(png)
    shown = [p for p in pieces if p.panel]
    assert len(shown) == columns
    width, height = panels.png_size(png)
    for a, b in zip(shown, shown[1:]):  # side by side, in order, not overlapping
        assert a.x + a.w <= b.x and a.y == b.y
    for p in pieces:
        assert 0 <= p.x and p.x + p.w <= width and 0 <= p.y and p.y + p.h <= height
        assert p.w >= 8 and p.h >= 8
    rows = [p.row for p in pieces]
    assert rows == sorted(rows)
    title = [p for p in pieces if p.row == 0]
    assert len(title) == 1 and not title[0].panel and title[0].y + title[0].h <= shown[0].y
    legend = [p for p in pieces if p.row == max(rows)]
    assert len(legend) == 2 and not any(p.panel for p in legend)  # two entries, reflowed
    assert all(p.y >= shown[0].y + shown[0].h for p in legend)


def test_a_colour_bar_stays_with_its_panel_and_one_plot_is_not_cut():
    pieces = panels.figure_pieces(_png_of(_figure(2, colorbar=True)))
    assert sum(p.panel for p in pieces) == 2
    assert panels.figure_pieces(_png_of(_figure(1, legend=True))) == []
    assert panels.figure_pieces(_png_of(_figure(3, axis_off=True))) == []  # drawings
    assert panels.figure_pieces(_png_of(_figure(2, rows=2))) == []  # a grid: zoomable
    assert panels.figure_pieces(b"\x89PNG broken") == []


def test_the_staged_pages_mark_the_figures_of_side_by_side_panels(staged):
    """Notebook 07's wide figures carry the pieces marker after them; a hypergraph
    drawing (00) does not."""
    marked = {}
    for name, nb in staged.items():
        for cell in nb["cells"]:
            outs = cell.get("outputs", [])
            for k, o in enumerate(outs):
                html = o.get("data", {}).get("text/html", "")
                if stage.PIECES_CLASS not in html:
                    continue
                assert "image/png" in outs[k - 1]["data"], name  # right after its figure
                png = base64.b64decode(outs[k - 1]["data"]["image/png"])
                width, height = panels.png_size(png)
                assert f'data-size="{width}x{height}"' in html
                boxes = json.loads(html.split("data-pieces='")[1].split("'")[0])
                assert sum(b[5] for b in boxes) >= 2
                assert all(0 <= x and x + w <= width and 0 <= y and y + h <= height
                           for x, y, w, h, _, _ in boxes)
                marked[name] = marked.get(name, 0) + 1
    assert marked.get("07_self_evolving_curves", 0) == 4
    assert "00_quickstart" in marked and "01_hypergraph_memory" not in marked


def test_instructor_solutions_stay_collapsed_and_math_and_prose_are_untouched(staged):
    for name, nb in staged.items():
        original = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))
        kept = {c.get("id"): c for c in nb["cells"]}
        for before in original["cells"]:
            if "remove-cell" in before["metadata"].get("tags", []):  # hidden tests: not shown
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
    # an empty cache of its own: build/cache/ from an earlier `make book` would hold MathJax
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "build_book.py"), "--out",
                        str(tmp_path / "book"), "--edition", "instructor",
                        "--cache", str(tmp_path / "cache")],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 1 and r.stdout == ""
    have_sphinx = all(importlib.util.find_spec(m) for m in ("sphinx", "myst_nb",
                                                            "sphinx_book_theme", "nbconvert"))
    expected = "npm was not found" if have_sphinx else "make book needs sphinx"
    assert r.stderr.count("\n") == 1 and expected in r.stderr, r.stderr
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "build_book.py"), "--out",
                        str(tmp_path / "book"), "--notebooks", str(tmp_path),
                        "--cache", str(tmp_path / "cache")],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 1 and "no notebooks NN_*.ipynb" in r.stderr


# --- the course's counts: computed from the course, never written by hand -------------

def _readme_tool():
    spec = importlib.util.spec_from_file_location("readme_tool", ROOT / "tools" / "readme.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


COURSE_BLOCKS = ("course-summary", "course-exercises", "course-exercises-grading")


def test_every_course_count_block_is_what_the_course_gives():
    """Each generated block of counts (the user guide's notebooks and teaching pages, the
    grading page) equals what tools/readme.py computes from the notebooks and the
    exercise catalog now: a new exercise or notebook makes this fail until
    ``tools/readme.py`` is run."""
    tool = _readme_tool()
    found = {}
    for page in tool.pages():
        for name, body in tool.blocks(page.read_text(encoding="utf-8")).items():
            if name.startswith("course-"):
                found[name] = page
                assert body == tool.GENERATORS[name](), (
                    f"{page.relative_to(ROOT)}: block {name!r} is stale: run tools/readme.py")
    assert set(found) == set(COURSE_BLOCKS), found


def test_the_counts_come_from_the_catalog_and_the_notebooks_folder():
    from hyperskill_lite.course.catalog import catalog

    exercises = counts.course_exercises(ROOT / "notebooks")
    assert [e.id for e in exercises] == sorted(catalog())
    names = counts.notebook_names(ROOT / "notebooks")
    assert names == sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    summary = counts.exercise_summary(ROOT / "notebooks")
    assert f"The course has {len(names)} notebooks ({names[0][:2]}-{names[-1][:2]})" in summary
    assert f" with {len(exercises)} exercises: " in summary
    coding = [e for e in catalog().values() if e.kind == "function"]
    assert f"{len(coding)} coding exercises" in summary
    table = counts.exercise_table(ROOT / "notebooks").splitlines()
    assert table[-1].startswith(f"| **all** | **{len(exercises)}** |")
    for ex in coding:  # each coding exercise named, with the function written
        assert any(f"{ex.id} `{ex.name}`" in row for row in table), ex.id


def test_a_new_kind_or_notebook_changes_the_counts(tmp_path):
    """The counts follow the course: a catalog with a written question (a kind the pages
    have not met) and one more notebook give new numbers and a new column."""
    from types import SimpleNamespace as Ex

    for name in ("00_map", "01_a", "02_b", "03_c"):
        cells = [] if name != "02_b" else [_cell(
            "markdown", "**Exercise 02.2.** *Predict, then run.* Will it rise?")]
        (tmp_path / f"{name}.ipynb").write_text(json.dumps({"cells": cells}))
    cat = {"01.1": Ex(kind="int", name=""), "02.1": Ex(kind="function", name="gamma"),
           "02.2": Ex(kind="choice", name=""), "03.1": Ex(kind="written", name="")}
    summary = counts.exercise_summary(tmp_path, cat)
    assert summary.startswith("The course has 4 notebooks (00-03). Notebooks 01-03 end with "
                              "4 exercises: 1 coding exercise")
    assert "1 prediction (" in summary and "1 value (" in summary
    assert summary.endswith("and 1 written question (explain why, graded by hand against a rubric).")
    table = counts.exercise_table(tmp_path, cat).splitlines()
    assert table[0] == ("| notebook | exercises | coding | prediction | value | written | "
                        "the coding exercises |")
    assert table[-1] == "| **all** | **4** | **1** | **1** | **1** | **1** | |"
    fields = counts.count_fields(tmp_path, cat)
    assert fields["notebook_count"] == "4" and fields["exercise_count"] == "4"


NUMBER = (r"(?:\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|"
          r"fourteen|fifteen|sixteen|twenty|thirty)")
HAND_COUNT = re.compile(rf"(?<![\d.])\b{NUMBER}\s+(?:coding\s+|written\s+|numbered\s+|course\s+)?"
                        r"(?:exercises|notebooks|predictions|read-offs)\b(?!\s+at\s+(?:a\s+time|once))",
                        re.I)


def test_no_page_states_a_course_count_by_hand():
    """Outside the generated blocks and the code, no page of the README or docs/ says
    "32 exercises" or "ten notebooks": such a count is a block tools/readme.py writes, or
    a ``{{ ... }}`` field the site build fills (tools/coursebook/counts.py)."""
    tool = _readme_tool()
    fence = re.compile(r"```.*?```", re.S)
    found = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        text = fence.sub("", tool.BLOCK.sub("", page.read_text(encoding="utf-8")))
        found += [f"{page.relative_to(ROOT)}: {m.group(0)!r}" for m in HAND_COUNT.finditer(text)]
    assert not found, found


def test_the_site_fields_the_pages_use_are_all_filled(tmp_path):
    """Every ``{{ field }}`` of the teaching pages is a value the build writes (so none
    shows raw), the counts among them."""
    used = set()
    for name in pages.TEACHING:
        used |= set(re.findall(r"\{\{\s*(\w+)\s*\}\}",
                               (ROOT / "docs" / f"{name}.md").read_text(encoding="utf-8")))
    headers = [pages.header(p.stem, json.loads(p.read_text(encoding="utf-8")))
               for p in stage.course_notebooks(ROOT / "notebooks")]
    filled = {**pages.substitutions(headers, "student", []),
              **counts.count_fields(ROOT / "notebooks"), "grading_link": "", "package": ""}
    assert {"notebook_range", "exercise_summary", "exercise_table"} <= used
    assert used <= set(filled), used - set(filled)


def test_a_guide_page_image_of_panels_gets_the_marker_too(tmp_path):
    """docs/guide/notebooks.md shows notebook 07's saved figure (plots side by side): the
    copy the site builds from carries the pieces marker after it; one plot does not."""
    docs, src = tmp_path / "docs", tmp_path / "src"
    (docs / "guide").mkdir(parents=True)
    src.mkdir()
    figures = ROOT / "figures"
    (docs / "guide" / "page.md").write_text(
        f"# Page\n\n![curves]({figures / '07_cumulative_sr.png'})\n\n"
        f"![one drawing]({figures / '01_skillworld_subgraph.png'})\n")
    pages.copy_pages(docs, src)
    text = (src / "guide" / "page.md").read_text()
    assert text.count('<span class="course-pieces" hidden') == 1
    width, height = panels.png_size((figures / "07_cumulative_sr.png").read_bytes())
    assert f"07_cumulative_sr.png)<span class=\"course-pieces\" hidden data-size=\"{width}x{height}\"" in text
    assert (docs / "guide" / "page.md").read_text().count("course-pieces") == 0  # docs/ untouched
