"""The notebooks adapted for a static page, for one edition of the site.

`stage_notebook` returns the page's copy of one notebook:
- an ipywidgets panel's output becomes a note to open the notebook in JupyterLab and its
  static default figure (the figure its own cell shows beside it, as the memory widget's
  static copy, else the figure drawn by a cell before it); when that figure is the
  output of the cell right above, the page already shows it and the note points to it
  instead of showing it twice; the notebook's saved widget state is dropped (a widget in a
  static page would load its JavaScript from a CDN);
- a cell tagged ``remove-cell`` is left out of the page;
- on the student edition, every solution cell is left out (tag ``solution`` or metadata
  ``exercise.role == "solution"``), and a solution region that a student copy still holds
  (nbgrader's ``### BEGIN SOLUTION`` or ``### BEGIN HIDDEN TESTS``) stops the build; on the
  instructor edition a collapsed solution cell stays collapsed (myst-nb's ``hide-input``);
- nbval's ``# NBVAL_...`` markers are left out of the code shown;
- every figure gets alt text that says what it shows (alt.py), and a figure of panels side
  by side is followed by a hidden marker (`PIECES_CLASS`) with where its panels are
  (panels.py), from which the site shows it panel by panel on a narrow screen (course.js);
- links to JupyterLab-style heading anchors are rewritten to the site's anchors;
- the home page (notebook 00) gets the site's table of contents appended (pages.py).

Not here: writing the student copies (``python -m hyperskill_lite.course student``), the
Markdown pages (pages.py).
"""

from __future__ import annotations

import base64
import binascii
import copy
import json
import re
from pathlib import Path
from typing import Any

from coursebook.alt import figure_alt
from coursebook.npm import BookError
from coursebook.panels import figure_pieces, pieces_json, png_size

__all__ = ["WIDGET_VIEW", "HOME", "PANEL_NOTE", "PANEL_NOTE_ABOVE", "PIECES_CLASS", "EDITIONS",
           "default_figure", "github_anchors", "is_solution", "pieces_output", "stage_notebook",
           "course_notebooks", "stage"]

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
HOME = "00_quickstart"
PANEL_NOTE = ("Interactive panel: open this notebook in JupyterLab (`make lab`) and run it to "
              "turn the knobs. On this page, the figure for its default setting:")
PANEL_NOTE_ABOVE = ("Interactive panel: open this notebook in JupyterLab (`make lab`) and run "
                    "it to turn the knobs. On this page, the figure above is its default "
                    "setting.")
PIECES_CLASS = "course-pieces"
"""The class of the hidden marker that follows a figure of side-by-side panels."""
EDITIONS = ("student", "instructor")
SOLUTION_REGION = re.compile(r"^\s*#+\s*BEGIN (SOLUTION|HIDDEN TESTS)\b", re.MULTILINE)


def default_figure(cells: list[dict[str, Any]], before: int) -> dict[str, Any] | None:
    """The last ``image/png`` output of a code cell above cell `before` (the static
    default figure each panel has beside it), or None.

    >>> png = {"output_type": "display_data", "data": {"image/png": "AAA"}, "metadata": {}}
    >>> cells = [{"cell_type": "code", "outputs": [png]}, {"cell_type": "markdown"}]
    >>> default_figure(cells, 2)["data"]["image/png"]
    'AAA'
    >>> default_figure(cells, 0) is None
    True
    """
    for cell in reversed(cells[:before]):
        if cell["cell_type"] != "code":
            continue
        for out in reversed(cell.get("outputs", [])):
            if "image/png" in out.get("data", {}):
                return out
    return None


def _strip_markers(source: str) -> str:
    """The code without nbval's ``# NBVAL_...`` marker lines.

    >>> _strip_markers("# NBVAL_IGNORE_OUTPUT\\npanel(draw)")
    'panel(draw)'
    """
    lines = [ln for ln in source.splitlines(keepends=True)
             if not re.match(r"\s*#\s*NBVAL_[A-Z_]+\s*$", ln)]
    return "".join(lines)


ANCHOR_LINK = re.compile(r"\]\(([^)#\s]*\.ipynb)?#([^)\s]+)\)")


def github_anchors(markdown: str) -> str:
    """Links to JupyterLab-style heading anchors (``#The-course-map``: the heading with
    spaces as hyphens) rewritten to the site's GitHub-style anchors (``#the-course-map``).

    >>> github_anchors("[map](00_quickstart.ipynb#The-course-map), [4](#4.-Turn-the-world)")
    '[map](00_quickstart.ipynb#the-course-map), [4](#4-turn-the-world)'
    """
    def slug(m: re.Match[str]) -> str:
        anchor = re.sub(r"[^\w\- ]", "", m.group(2).lower())
        return f"]({m.group(1) or ''}#{anchor})"

    return ANCHOR_LINK.sub(slug, markdown)


def _text(source: str | list[str]) -> str:
    return source if isinstance(source, str) else "".join(source)


def is_solution(cell: dict[str, Any]) -> bool:
    """A solution cell: tagged ``solution`` or marked ``exercise.role == "solution"``.

    >>> is_solution({"metadata": {"exercise": {"id": "01.1", "role": "solution"}}})
    True
    >>> is_solution({"metadata": {"tags": ["solution"]}}), is_solution({"metadata": {}})
    (True, False)
    """
    meta = cell.get("metadata", {})
    exercise = meta.get("exercise")
    return "solution" in meta.get("tags", []) or (
        isinstance(exercise, dict) and exercise.get("role") == "solution")


HEADING = re.compile(r"^#{1,3}\s+(.+?)\s*$", re.MULTILINE)


def _png(out: dict[str, Any]) -> str:
    png = out["data"]["image/png"]
    return png if isinstance(png, str) else "".join(png)


def pieces_output(png_b64: str) -> dict[str, Any] | None:
    """The hidden marker that follows a figure of side-by-side panels: an HTML output
    whose ``data-pieces`` say where each panel, and each segment of a title or legend that
    spans them, sits in the PNG (panels.py); None for any other figure.

    >>> pieces_output("") is None
    True
    """
    try:
        png = base64.b64decode(png_b64)
    except (binascii.Error, ValueError):
        return None
    pieces = figure_pieces(png)
    if not pieces:
        return None
    width, height = png_size(png)
    marker = (f'<div class="{PIECES_CLASS}" hidden data-size="{width}x{height}" '
              f"data-pieces='{pieces_json(pieces)}'></div>")
    return {"output_type": "display_data", "metadata": {},
            "data": {"text/html": marker, "text/plain": ""}}


def _with_pieces(outputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`outputs` with the pieces marker after each figure of side-by-side panels."""
    out = []
    for o in outputs:
        out.append(o)
        if "image/png" in o.get("data", {}):
            marker = pieces_output(_png(o))
            if marker is not None:
                out.append(marker)
    return out


def _drawn_above(cells: list[dict[str, Any]], i: int, figure: dict[str, Any]) -> bool:
    """Whether `figure` is an output of the nearest code cell above cell `i` (the page
    shows it just before the panel)."""
    above = next((c for c in reversed(cells[:i]) if c["cell_type"] == "code"), None)
    return above is not None and any(o is figure for o in above.get("outputs", []))


def _panel_outputs(cells: list[dict[str, Any]], i: int) -> list[dict[str, Any]]:
    own = default_figure(cells, i + 1) if any(
        "image/png" in o.get("data", {}) for o in cells[i].get("outputs", [])) else None
    figure = own if own is not None else default_figure(cells, i)
    if own is None and figure is not None and _drawn_above(cells, i, figure):
        return [{"output_type": "display_data", "metadata": {},
                 "data": {"text/markdown": PANEL_NOTE_ABOVE}}]
    outputs: list[dict[str, Any]] = [{"output_type": "display_data", "metadata": {},
                                      "data": {"text/markdown": PANEL_NOTE}}]
    if figure is not None:
        outputs.append({"output_type": "display_data", "metadata": {},
                        "data": {"image/png": _png(figure),
                                 "text/plain": "the panel's default figure"}})
    return _with_pieces(outputs)


def _set_alt(cell: dict[str, Any], source: str, figures: Path | None, section: str) -> None:
    """myst-nb's image option ``alt`` for the cell's figures (one text per cell)."""
    pngs = [_png(o) for o in cell.get("outputs", []) if "image/png" in o.get("data", {})]
    if not pngs:
        return
    alt = figure_alt(pngs[-1], source, figures, section)
    cell["metadata"].setdefault("mystnb", {}).setdefault("image", {})["alt"] = alt


def stage_notebook(nb: dict[str, Any], toc: str = "", edition: str = "instructor",
                   figures: Path | None = None) -> dict[str, Any]:
    """A copy of notebook `nb` adapted for a static page of the `edition` (module
    docstring); `toc` (Markdown: the site's toctrees) is appended as a last cell;
    `figures` is the folder of saved figures the alt texts are read from.

    >>> panel = {"cell_type": "code", "metadata": {}, "source": "# NBVAL_IGNORE_OUTPUT\\npanel()",
    ...          "outputs": [{"output_type": "execute_result", "metadata": {},
    ...                       "data": {WIDGET_VIEW: {"model_id": "x"}, "text/plain": "VBox()"}}]}
    >>> fig = {"cell_type": "code", "metadata": {}, "source": "ax.set_title('SR')", "outputs": [
    ...     {"output_type": "display_data", "metadata": {}, "data": {"image/png": "AAA"}}]}
    >>> sol = {"cell_type": "code", "metadata": {"tags": ["solution"]}, "source": "x = 1",
    ...        "outputs": []}
    >>> out = stage_notebook({"metadata": {"widgets": {}}, "cells": [fig, panel, sol]},
    ...                      edition="student")
    >>> "widgets" in out["metadata"], len(out["cells"]), out["cells"][1]["source"]
    (False, 2, 'panel()')
    >>> out["cells"][1]["outputs"][0]["data"]["text/markdown"] == PANEL_NOTE_ABOVE
    True
    >>> out["cells"][0]["metadata"]["mystnb"]["image"]["alt"]
    'Figure: SR'
    >>> log = {"cell_type": "code", "metadata": {}, "source": "print(1)", "outputs": []}
    >>> out = stage_notebook({"metadata": {}, "cells": [fig, log, panel]})
    >>> [sorted(o.get("data", {})) for o in out["cells"][2]["outputs"]]
    [['text/markdown'], ['image/png', 'text/plain']]
    """
    if edition not in EDITIONS:
        raise ValueError(f"edition must be one of {EDITIONS}, got {edition!r}")
    nb = copy.deepcopy(nb)
    nb.get("metadata", {}).pop("widgets", None)
    original = nb["cells"]
    cells = []
    section = ""
    for i, cell in enumerate(original):
        meta = cell.setdefault("metadata", {})
        source = _text(cell.get("source", ""))
        if "remove-cell" in meta.get("tags", []):
            continue
        if edition == "student" and is_solution(cell):
            continue
        if edition == "student" and SOLUTION_REGION.search(source):
            raise BookError(f"the student copy still holds a solution region (cell {i}: "
                            f"{SOLUTION_REGION.search(source).group(0).strip()}); fix the "
                            "course command's student copies before building the student site")
        if cell["cell_type"] == "markdown":
            cell["source"] = github_anchors(source)
            headings = HEADING.findall(source)
            section = headings[-1] if headings else section
        if cell["cell_type"] != "code":
            cells.append(cell)
            continue
        cell["source"] = _strip_markers(source)
        if edition == "instructor" and meta.get("jupyter", {}).get("source_hidden"):
            tags = meta.setdefault("tags", [])
            if "hide-input" not in tags:
                tags.append("hide-input")
        if any(WIDGET_VIEW in o.get("data", {}) for o in cell.get("outputs", [])):
            _stage_panel(cell, original, i, figures, section)
        else:
            _set_alt(cell, source, figures, section)
            cell["outputs"] = _with_pieces(cell.get("outputs", []))
        cells.append(cell)
    nb["cells"] = cells
    if toc:
        cells.append({"cell_type": "markdown", "metadata": {}, "id": "book-toc", "source": toc})
    return nb


def _stage_panel(cell: dict[str, Any], cells: list[dict[str, Any]], i: int,
                 figures: Path | None, section: str) -> None:
    """Cell `i` (a panel) shows its static default figure, described as the figure of the
    cell that drew it (or, when that cell is right above, points to it); a panel that
    shows its own static copy (the memory widget's) is described by its own code."""
    own = any("image/png" in o.get("data", {}) for o in cell.get("outputs", []))
    cell["outputs"] = _panel_outputs(cells, i)
    if not any("image/png" in o.get("data", {}) for o in cell["outputs"]):
        return
    for j in range(i if own else i - 1, -1, -1):  # the code cell the figure came from
        drawn = [_png(o) for o in cells[j].get("outputs", [])
                 if cells[j]["cell_type"] == "code" and "image/png" in o.get("data", {})]
        if drawn:
            alt = figure_alt(drawn[-1], _text(cells[j]["source"]), figures, section)
            cell["metadata"].setdefault("mystnb", {}).setdefault("image", {})["alt"] = (
                f"The panel's default figure. {alt}")
            return


def course_notebooks(notebooks: Path) -> list[Path]:
    """The course's ``NN_*.ipynb`` in `notebooks`, in order; a folder without them is the
    user's first mistake to hear about, before any missing tool."""
    paths = sorted(notebooks.glob("[0-9][0-9]_*.ipynb"))
    if not paths:
        raise BookError(f"no notebooks NN_*.ipynb in {notebooks}: run from the repository root "
                        "or pass --notebooks")
    return paths


def read(path: Path) -> dict[str, Any]:
    """A notebook as JSON, or a `BookError` naming what to do."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise BookError(f"{path} is not a readable notebook ({e}); restore it from git") from e


def stage(notebooks: Path, src: Path, toc: str = "", edition: str = "instructor",
          figures: Path | None = None) -> list[str]:
    """Write the staged copies of ``notebooks/NN_*.ipynb`` into `src` (the home page with
    `toc`); return their names in course order."""
    paths = course_notebooks(notebooks)
    names = [p.stem for p in paths]
    if HOME not in names:
        raise BookError(f"{notebooks} has no {HOME}.ipynb, the course map the site opens with")
    for path in paths:
        staged = stage_notebook(read(path), toc if path.stem == HOME else "", edition, figures)
        (src / path.name).write_text(json.dumps(staged, indent=1, ensure_ascii=False) + "\n",
                                     encoding="utf-8")
    return names
