"""Slides of notebooks 01-05: reveal.js decks made from the staged notebooks by nbconvert's
SlidesExporter (``--to slides``), with reveal.js and MathJax served from the site itself
(templates/course_slides: nbconvert's reveal template without its CDN scripts).

A notebook carries no slide metadata, so `slide_notebook` gives it some: a Markdown cell
that opens with a heading starts a new slide, a figure or table starts a sub-slide below
it, other Markdown continues the slide. The code is left out (the slides show the prose,
the equations, the figures and the tables; the code is in the notebook), and so are text
outputs (prints, logs), and the marker of a figure's panels the site's pages use. A long
slide scrolls; a tap on a figure opens it at its own size (the site's course.js). Links to a notebook (``NN_name.ipynb#...``)
and to a heading of this one (``#...``) point at the site's pages, one folder up.

Not here: the slides index page (docs/slides.md), reveal.js itself (npm.py).
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

__all__ = ["SLIDE_NOTEBOOKS", "TEMPLATES", "slide_notebook", "write_slides"]

SLIDE_NOTEBOOKS = ("01", "02", "03", "04", "05")
"""The notebooks that get a deck (by number)."""
TEMPLATES = Path(__file__).parent / "templates"
HEADING = re.compile(r"^\s*#{1,6}\s")
RICH = ("image/png", "text/html")
NOTEBOOK_LINK = re.compile(r"\]\((?![a-z]+:)([^)#\s]*?)\.ipynb")
OWN_ANCHOR = re.compile(r"\]\(#")
PIECES = "course-pieces"
"""The marker of a figure's panels (stage.py): a page shows the panels one under another on
a phone; a slide keeps its figure whole (a tap opens it at its own size)."""


def _text(source: str | list[str]) -> str:
    return source if isinstance(source, str) else "".join(source)


def site_links(markdown: str, name: str) -> str:
    """Links of notebook `name`'s Markdown rewritten for a deck one folder below the site.

    >>> site_links("[map](00_quickstart.ipynb#the-map), [up](#eq-4), [w](https://x.org/a.ipynb)",
    ...            "02_x")
    '[map](../00_quickstart.html#the-map), [up](../02_x.html#eq-4), [w](https://x.org/a.ipynb)'
    """
    markdown = NOTEBOOK_LINK.sub(lambda m: f"](../{m.group(1)}.html", markdown)
    return OWN_ANCHOR.sub(f"](../{name}.html#", markdown)


def slide_notebook(nb: dict[str, Any], name: str = "") -> dict[str, Any]:
    """A copy of `nb` (the notebook `name`) with slide types set, only figure and table
    outputs kept and its links pointing at the site (module docstring).

    >>> md = lambda s: {"cell_type": "markdown", "metadata": {}, "source": s}
    >>> fig = {"cell_type": "code", "metadata": {}, "source": "plot()", "outputs": [
    ...     {"output_type": "stream", "name": "stdout", "text": "log"},
    ...     {"output_type": "display_data", "metadata": {}, "data": {"image/png": "AAA"}}]}
    >>> out = slide_notebook({"metadata": {}, "cells": [md("# 01"), md("text"), fig]})
    >>> [c["metadata"]["slideshow"]["slide_type"] for c in out["cells"]]
    ['slide', '-', 'subslide']
    >>> [o["output_type"] for o in out["cells"][2]["outputs"]]
    ['display_data']
    """
    nb = copy.deepcopy(nb)
    cells = []
    for cell in nb["cells"]:
        meta = cell.setdefault("metadata", {})
        if cell["cell_type"] == "markdown":
            cell["source"] = site_links(_text(cell["source"]), name)
            kind = "slide" if HEADING.match(cell["source"]) else "-"
        elif cell["cell_type"] == "code":
            cell["outputs"] = [o for o in cell.get("outputs", [])
                               if any(k in o.get("data", {}) for k in RICH)
                               and PIECES not in o.get("data", {}).get("text/html", "")]
            if not cell["outputs"]:
                continue
            kind = "subslide"
        else:
            continue
        meta["slideshow"] = {"slide_type": kind}
        cells.append(cell)
    nb["cells"] = cells
    return nb


def write_slides(staged: Path, out: Path, static_url: str = "../_static") -> list[str]:
    """Write ``out/NN_name.slides.html`` for the staged notebooks numbered
    `SLIDE_NOTEBOOKS` in `staged`; reveal.js and MathJax load from `static_url` (relative
    to `out`). Returns the names written."""
    import json

    import nbformat
    from nbconvert import SlidesExporter

    exporter = SlidesExporter(extra_template_basedirs=[str(TEMPLATES)],
                              template_name="course_slides", exclude_input=True,
                              exclude_input_prompt=True, exclude_output_prompt=True,
                              exclude_anchor_links=True)
    exporter.reveal_url_prefix = f"{static_url}/reveal.js"
    exporter.reveal_theme = "white"  # the one theme copied into the site (npm.REVEAL)
    exporter.mathjax_url = f"{static_url}/mathjax/tex-chtml.js"
    out.mkdir(parents=True, exist_ok=True)
    names = []
    for path in sorted(staged.glob("[0-9][0-9]_*.ipynb")):
        if path.name[:2] not in SLIDE_NOTEBOOKS:
            continue
        nb = nbformat.from_dict(slide_notebook(json.loads(path.read_text(encoding="utf-8")),
                                               path.stem))
        body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": path.stem}})
        (out / f"{path.stem}.slides.html").write_text(body, encoding="utf-8")
        names.append(path.stem)
    return names
