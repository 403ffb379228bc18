#!/usr/bin/env python
"""Build the course site (`make book`) from the committed, executed notebooks.

Nothing is re-executed: the notebooks' stored outputs are rendered by Sphinx + myst-nb with
sphinx-book-theme (docs/conf.py says why this stack and not Jupyter Book). Steps:

1. stage: copy ``notebooks/NN_*.ipynb`` into ``OUT/src`` and adapt the copies for a static
   page (`stage_notebook`): an ipywidgets panel's output becomes its static default figure
   (the figure drawn by the cell before it) with a note to open the notebook in JupyterLab,
   and the notebook's saved widget state is dropped (a widget in a static page would load
   its JavaScript from a CDN); a collapsed solution cell stays collapsed (myst-nb's
   ``hide-input``); nbval's ``# NBVAL_...`` markers are left out of the code shown;
   notebook 00, whose opening is the course map, is the home page and lists the others in
   order (a hidden table of contents, which gives the sidebar and prev/next links); links
   to JupyterLab-style heading anchors are rewritten to the site's anchors;
2. MathJax 3 (`MATHJAX_VERSION`) from the npm registry (``npm pack``), kept in a cache
   folder and copied into the site's ``_static/mathjax``: the site typesets math offline;
3. ``sphinx-build -W`` into ``OUT/html`` (a warning fails the build) and an ``index.html``
   that redirects to the home page.

Usage: ``python tools/build_book.py [--out build/book] [--notebooks notebooks]``.
Every failure the user can meet (no notebooks, npm missing, Sphinx missing, a warning) is
one line naming what to do, exit code 1.

Our addition: the paper ships no course. Not here: the page checks (tests/browser/).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MATHJAX_VERSION = "3.2.2"
"""The MathJax release copied into the site (npm package ``mathjax``)."""
MATHJAX_PARTS = ("tex-chtml.js", "input", "output/chtml.js", "output/chtml", "ui", "a11y",
                 "sre", "adaptors")
"""What the site needs of MathJax's ``es5/`` folder: the TeX-to-CHTML bundle, the TeX
extensions it autoloads, its fonts, the menu and the accessibility parts it loads on
demand."""
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
HOME = "00_quickstart"
PANEL_NOTE = ("Interactive panel: open this notebook in JupyterLab (`make lab`) and run it to "
              "turn the knobs. On this page, the figure for its default setting:")


class BookError(Exception):
    """A failure with a one-line message for the user."""


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


def stage_notebook(nb: dict[str, Any], toc: list[str] | None = None) -> dict[str, Any]:
    """A copy of notebook `nb` adapted for a static page (module docstring, step 1); with
    `toc`, a hidden table of contents listing those pages is appended (the home page).

    >>> panel = {"cell_type": "code", "metadata": {}, "source": "# NBVAL_IGNORE_OUTPUT\\npanel()",
    ...          "outputs": [{"output_type": "execute_result", "metadata": {},
    ...                       "data": {WIDGET_VIEW: {"model_id": "x"}, "text/plain": "VBox()"}}]}
    >>> fig = {"cell_type": "code", "metadata": {}, "source": "draw()", "outputs": [
    ...     {"output_type": "display_data", "metadata": {}, "data": {"image/png": "AAA"}}]}
    >>> out = stage_notebook({"metadata": {"widgets": {}}, "cells": [fig, panel]})
    >>> "widgets" in out["metadata"], out["cells"][1]["source"]
    (False, 'panel()')
    >>> [sorted(o.get("data", {})) for o in out["cells"][1]["outputs"]]
    [['text/markdown'], ['image/png', 'text/plain']]
    """
    nb = copy.deepcopy(nb)
    nb.get("metadata", {}).pop("widgets", None)
    cells = nb["cells"]
    for i, cell in enumerate(cells):
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            cell["source"] = github_anchors(source)
        if cell["cell_type"] != "code":
            continue
        cell["source"] = _strip_markers(source)
        meta = cell.setdefault("metadata", {})
        if meta.get("jupyter", {}).get("source_hidden"):
            tags = meta.setdefault("tags", [])
            if "hide-input" not in tags:
                tags.append("hide-input")
        if not any(WIDGET_VIEW in o.get("data", {}) for o in cell.get("outputs", [])):
            continue
        figure = default_figure(cells, i)
        outputs: list[dict[str, Any]] = [{"output_type": "display_data", "metadata": {},
                                          "data": {"text/markdown": PANEL_NOTE}}]
        if figure is not None:
            outputs.append({"output_type": "display_data", "metadata": {},
                            "data": {"image/png": figure["data"]["image/png"],
                                     "text/plain": "the panel's default figure"}})
        cell["outputs"] = outputs
    if toc:
        entries = "\n".join(toc)
        cells.append({"cell_type": "markdown", "metadata": {}, "id": "book-toc",
                      "source": f"```{{toctree}}\n:hidden:\n:maxdepth: 1\n\n{entries}\n```\n"})
    return nb


def course_notebooks(notebooks: Path) -> list[Path]:
    """The course's ``NN_*.ipynb`` in `notebooks`, in order; a folder without them is the
    user's first mistake to hear about, before any missing tool."""
    paths = sorted(notebooks.glob("[0-9][0-9]_*.ipynb"))
    if not paths:
        raise BookError(f"no notebooks NN_*.ipynb in {notebooks}: run from the repository root "
                        "or pass --notebooks")
    return paths


def stage(notebooks: Path, src: Path) -> list[str]:
    """Write the staged copies of ``notebooks/NN_*.ipynb`` into `src`; return their names
    in course order."""
    paths = course_notebooks(notebooks)
    names = [p.stem for p in paths]
    if HOME not in names:
        raise BookError(f"{notebooks} has no {HOME}.ipynb, the course map the site opens with")
    for path in paths:
        try:
            nb = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as e:
            raise BookError(f"{path} is not a readable notebook ({e}); restore it from git") from e
        toc = [n for n in names if n != HOME] if path.stem == HOME else None
        staged = stage_notebook(nb, toc)
        (src / path.name).write_text(json.dumps(staged, indent=1, ensure_ascii=False) + "\n",
                                     encoding="utf-8")
    return names


def mathjax_cache() -> Path:
    """Where the npm package is kept between builds."""
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "hyperskill_lite" / f"mathjax-{MATHJAX_VERSION}"


def fetch_mathjax(cache: Path) -> Path:
    """MathJax's ``es5`` folder, from the cache or else from the npm registry (``npm
    pack``, which checks the package's integrity). Returns the folder."""
    es5 = cache / "es5"
    if (es5 / "tex-chtml.js").is_file():
        return es5
    npm = shutil.which("npm")
    if npm is None:
        raise BookError(f"make book: MathJax {MATHJAX_VERSION} comes from the npm registry and "
                        "npm was not found: install Node.js and npm (Debian: apt-get install "
                        f"npm) or unpack the npm package mathjax@{MATHJAX_VERSION} into {cache}")
    cache.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache.parent) as tmp:
        r = subprocess.run([npm, "pack", f"mathjax@{MATHJAX_VERSION}", "--silent",
                            "--pack-destination", tmp], capture_output=True, text=True)
        tgz = Path(tmp) / f"mathjax-{MATHJAX_VERSION}.tgz"
        if r.returncode != 0 or not tgz.is_file():
            detail = (r.stderr.strip().splitlines() or ["no output"])[-1]
            raise BookError(f"make book: npm pack mathjax@{MATHJAX_VERSION} failed ({detail}); "
                            "check that the npm registry is reachable")
        unpacked = Path(tmp) / "unpacked"
        with tarfile.open(tgz) as tar:
            members = [m for m in tar.getmembers() if m.name.startswith("package/es5/")
                       and (m.isfile() or m.isdir())]
            tar.extractall(unpacked, members=members, filter="data")
        staged = Path(tmp) / "cache"
        staged.mkdir()
        shutil.move(str(unpacked / "package" / "es5"), staged / "es5")
        if cache.exists():
            shutil.rmtree(cache)
        staged.rename(cache)  # atomic: a half-unpacked cache is never seen
    return es5


def copy_mathjax(es5: Path, static: Path) -> None:
    """Copy what the site needs of MathJax (`MATHJAX_PARTS`) into ``static/mathjax``."""
    dest = static / "mathjax"
    for part in MATHJAX_PARTS:
        src = es5 / part
        if src.is_dir():
            shutil.copytree(src, dest / part, dirs_exist_ok=True)
        elif src.is_file():
            (dest / part).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / part)
        else:
            raise BookError(f"the MathJax cache {es5.parent} lacks {part}; delete the folder "
                            "and run make book again")


REDIRECT = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>hyperskill_lite course</title>
<meta http-equiv="refresh" content="0; url={home}.html">
<link rel="canonical" href="{home}.html">
</head><body><p><a href="{home}.html">The course starts here.</a></p></body></html>
"""


def build(out: Path, notebooks: Path, docs: Path) -> Path:
    """Stage, fetch MathJax, run Sphinx; return the site folder ``out/html``."""
    course_notebooks(notebooks)
    try:
        import myst_nb  # noqa: F401
        import sphinx  # noqa: F401
        import sphinx_book_theme  # noqa: F401
    except ImportError as e:
        raise BookError(f"make book needs sphinx, myst-nb and sphinx-book-theme ({e.name} is "
                        "missing): run make book, which installs them") from e
    src, html = out / "src", out / "html"
    for d in (src, html):
        if d.exists():
            shutil.rmtree(d)
    src.mkdir(parents=True)
    shutil.copy2(docs / "conf.py", src / "conf.py")
    static = src / "_static"
    if (docs / "_static").is_dir():
        shutil.copytree(docs / "_static", static)
    static.mkdir(exist_ok=True)
    stage(notebooks, src)
    copy_mathjax(fetch_mathjax(mathjax_cache()), static)
    log = out / "sphinx.log"
    r = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going",
                        "-q", "-d", str(out / "doctrees"), str(src), str(html)],
                       capture_output=True, text=True)
    log.write_text(r.stdout + r.stderr, encoding="utf-8")
    if r.returncode != 0:
        warnings = [ln for ln in (r.stderr or r.stdout).splitlines() if ln.strip()]
        first = warnings[0] if warnings else f"exit code {r.returncode}"
        raise BookError(f"sphinx-build failed ({len(warnings)} message(s); the first: {first}); "
                        f"all of them in {log}")
    (html / "index.html").write_text(REDIRECT.format(home=HOME), encoding="utf-8")
    return html


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "book")
    parser.add_argument("--notebooks", type=Path, default=ROOT / "notebooks")
    parser.add_argument("--docs", type=Path, default=ROOT / "docs")
    args = parser.parse_args(argv)
    try:
        html = build(args.out.resolve(), args.notebooks.resolve(), args.docs.resolve())
    except BookError as e:
        print(e, file=sys.stderr)
        return 1
    pages = sorted(p.name for p in html.glob("[0-9][0-9]_*.html"))
    print(f"course site: {html}/index.html ({len(pages)} notebook pages)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
