"""The site's Markdown pages and its table of contents.

- docs/*.md (the syllabus, the instructor guide, the slides index) are copied into the
  source folder; their ``{{ ... }}`` fields are MyST substitutions the build fills
  (`substitutions`): the study-time table is read from the notebooks' own headers at build
  time, so the syllabus can never disagree with them;
- every docs/guide/*.md (the user guide) and docs/course/*.md (grading and other course
  pages) is copied too and listed by a glob toctree: a page added there appears on the site
  without editing anything else; a Markdown image of side-by-side panels (a saved figure
  of figures/) gets the hidden marker a notebook figure gets (stage.py, panels.py), so a
  phone shows it panel by panel too;
- `toctree` is the Markdown appended to the home page (notebook 00): the notebooks in
  order, then the teaching pages, the course pages and the user guide.

A notebook header is the notebook's first Markdown cell, a block quote of ``**Field:**
text`` lines (Objectives, Prerequisites, Study time, Compute time / Run time).

Not here: the notebooks themselves (stage.py), the slides (slides.py).
"""

from __future__ import annotations

import html
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Header", "header", "minutes", "study_table", "outcomes_list", "copy_pages",
           "mark_panels", "toctree", "substitutions", "TEACHING", "SECTIONS"]

TEACHING = ("syllabus", "instructor-guide", "slides")
"""The teaching pages under docs/, in the order the sidebar lists them."""
SECTIONS = (("course", "Course"), ("guide", "User guide"))
"""Folders of docs/ listed by a glob toctree each, with their sidebar caption."""

FIELD = re.compile(r"^\s*>?\s*\*\*([^*:\n]+?):\*\*\s*(.*?)\s*$", re.MULTILINE)
DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(h|hours?|min|minutes?)\b", re.IGNORECASE)
NOT_GIVEN = "not given in the notebook's header yet"


@dataclass(frozen=True)
class Header:
    """What a notebook's header says (empty strings where it says nothing)."""

    name: str
    title: str
    objectives: str
    prerequisites: str
    study: str
    compute: str


def _text(source: str | list[str]) -> str:
    return source if isinstance(source, str) else "".join(source)


def header(name: str, nb: dict[str, Any]) -> Header:
    """The header fields of notebook `nb` (module docstring).

    >>> cell = {"cell_type": "markdown", "source": "# 01 · Memory\\n\\n> **Objectives:** read "
    ...         "B.  \\n> **Study time:** about 60 minutes.  \\n> **Run time:** about 5 s."}
    >>> h = header("01_memory", {"cells": [cell]})
    >>> h.title, h.objectives, h.study, h.compute
    ('01 · Memory', 'read B.', 'about 60 minutes.', 'about 5 s.')
    """
    first = next((c for c in nb.get("cells", []) if c.get("cell_type") == "markdown"), None)
    text = _text(first["source"]) if first else ""
    title = next((ln.lstrip("#").strip() for ln in text.splitlines() if ln.startswith("# ")),
                 name)
    fields = [(k.strip().lower(), v) for k, v in FIELD.findall(text)]

    def pick(*prefixes: str) -> str:
        """The first field whose name starts with one of `prefixes` ("Run time (alone)")."""
        return next((v for k, v in fields if v and k.startswith(prefixes)), "")

    return Header(name, title, pick("objectives", "learning outcomes"), pick("prerequisites"),
                  pick("study time", "study hours", "time to study"),
                  pick("compute time", "run time"))


def minutes(text: str) -> float | None:
    """The first duration in `text`, in minutes, or None.

    >>> minutes("about 60 minutes"), minutes("1.5 h of study"), minutes("not yet")
    (60.0, 90.0, None)
    """
    m = DURATION.search(text)
    if not m:
        return None
    value = float(m.group(1))
    return value * 60 if m.group(2).lower().startswith("h") else value


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def study_table(headers: list[Header]) -> str:
    """The syllabus's table: one row per notebook with its study and compute time as its
    header gives them, and the total study time of the notebooks that give one.

    >>> h = Header("01_memory", "01 · Memory", "", "", "about 60 minutes", "5 s")
    >>> print(study_table([h]))
    | notebook | study time | compute time |
    |---|---|---|
    | [01 · Memory](01_memory.ipynb) | about 60 minutes | 5 s |
    | **total** | **about 1.0 h** (1 of 1 notebooks give one) | |
    """
    rows = ["| notebook | study time | compute time |", "|---|---|---|"]
    total, counted = 0.0, 0
    for h in headers:
        study = minutes(h.study)
        if study is not None:
            total, counted = total + study, counted + 1
        rows.append(f"| [{_cell(h.title)}]({h.name}.ipynb) | {_cell(h.study) or NOT_GIVEN} | "
                    f"{_cell(h.compute) or NOT_GIVEN} |")
    rows.append(f"| **total** | **about {total / 60:.1f} h** ({counted} of {len(headers)} "
                "notebooks give one) | |")
    return "\n".join(rows)


def outcomes_list(headers: list[Header]) -> str:
    """The learning outcomes: each notebook's objectives and prerequisites, as its header
    states them.

    >>> print(outcomes_list([Header("01_m", "01 · M", "read B.", "notebook 00.", "", "")]))
    - **[01 · M](01_m.ipynb)**: read B. *Prerequisites:* notebook 00.
    """
    lines = []
    for h in headers:
        line = f"- **[{h.title}]({h.name}.ipynb)**: {h.objectives or NOT_GIVEN}"
        if h.prerequisites:
            line += f" *Prerequisites:* {h.prerequisites}"
        lines.append(line)
    return "\n".join(lines)


def substitutions(headers: list[Header], edition: str, slides: list[str]) -> dict[str, str]:
    """The values of the pages' ``{{ ... }}`` fields (MyST substitutions). The slide decks
    are raw HTML links: they are pages Sphinx does not know (html_extra_path)."""
    deck = "\n".join(f'- <a href="slides/{h.name}.slides.html">{html.escape(h.title)}</a>'
                     for h in headers if h.name in slides) or "- (no slides were built)"
    other = "instructor" if edition == "student" else "student"
    return {
        "study_table": study_table(headers),
        "outcomes": outcomes_list(headers),
        "slide_decks": deck,
        "edition": edition,
        "edition_note": (
            "This is the **student edition** of the site: exercise cells show the task and an "
            "empty answer, and the solutions are left out; the download button gives the "
            "student copy of each notebook." if edition == "student" else
            "This is the **instructor edition** of the site: every exercise's solution is "
            "shown (collapsed under its answer cell), and the download button gives the "
            f"notebook with its solutions. The {other} edition leaves them out."),
    }


IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+\.png)\)")


def mark_panels(markdown: str, folder: Path) -> str:
    """`markdown` (a page of `folder`) with the pieces marker after each image of
    side-by-side panels (panels.py), as an inline ``<span>`` the site's script reads.

    >>> mark_panels("![x](missing.png) text", Path("."))
    '![x](missing.png) text'
    """
    from coursebook.panels import figure_pieces, pieces_json, png_size

    def mark(m: re.Match[str]) -> str:
        path = (folder / m.group(1)).resolve()
        if not path.is_file():
            return m.group(0)
        png = path.read_bytes()
        pieces = figure_pieces(png)
        if not pieces:
            return m.group(0)
        w, h = png_size(png)
        return (m.group(0) + f'<span class="course-pieces" hidden data-size="{w}x{h}" '
                f"data-pieces='{pieces_json(pieces)}'></span>")

    return IMAGE.sub(mark, markdown)


def copy_pages(docs: Path, src: Path) -> dict[str, list[str]]:
    """Copy the teaching pages and the pages of each folder of `SECTIONS` from `docs` into
    `src`; returns {folder: its page names} for the folders that have pages."""
    for name in TEACHING:
        page = docs / f"{name}.md"
        if page.is_file():
            shutil.copy2(page, src / page.name)
    found: dict[str, list[str]] = {}
    for folder, _ in SECTIONS:
        pages = sorted((docs / folder).glob("*.md")) if (docs / folder).is_dir() else []
        if pages:
            shutil.copytree(docs / folder, src / folder, dirs_exist_ok=True)
            for page in pages:
                text = page.read_text(encoding="utf-8")
                marked = mark_panels(text, page.parent)
                if marked != text:
                    (src / folder / page.name).write_text(marked, encoding="utf-8")
            found[folder] = [p.stem for p in pages]
    return found


def toctree(notebooks: list[str], teaching: list[str], sections: dict[str, list[str]],
            api: bool = False) -> str:
    """The home page's tables of contents, all hidden (they make the sidebar and the
    prev/next links): the notebooks after the home page, the teaching pages, then one glob
    toctree per folder of `SECTIONS` that has pages, then (`api`) the API reference that
    sphinx-autoapi writes into ``api/``.

    >>> print(toctree(["01_a"], ["syllabus"], {"guide": ["x"]}))
    ```{toctree}
    :hidden:
    :maxdepth: 1
    :caption: Notebooks
    <BLANKLINE>
    01_a
    ```
    <BLANKLINE>
    ```{toctree}
    :hidden:
    :maxdepth: 1
    :caption: Teaching
    <BLANKLINE>
    syllabus
    ```
    <BLANKLINE>
    ```{toctree}
    :hidden:
    :maxdepth: 1
    :caption: User guide
    :glob:
    <BLANKLINE>
    guide/*
    ```
    <BLANKLINE>
    """
    def block(caption: str, entries: list[str], glob: bool = False) -> str:
        opts = ":hidden:\n:maxdepth: 1\n" + f":caption: {caption}\n" + (":glob:\n" if glob else "")
        return "```{toctree}\n" + opts + "\n" + "\n".join(entries) + "\n```\n"

    parts = [block("Notebooks", notebooks)]
    if teaching:
        parts.append(block("Teaching", teaching))
    for folder, caption in SECTIONS:
        if sections.get(folder):
            parts.append(block(caption, [f"{folder}/*"], glob=True))
    if api:
        parts.append(block("API reference", ["api/hyperskill_lite/index"]))
    return "\n".join(parts)
