#!/usr/bin/env python
"""Build the course site (`make book`) from the committed, executed notebooks, in two
editions: the student site (no solutions) and the instructor site (with them).

Nothing is re-executed: the notebooks' stored outputs are rendered by Sphinx + myst-nb with
sphinx-book-theme (docs/conf.py says why this stack and not Jupyter Book). For each edition:

1. the notebooks: the instructor edition stages ``notebooks/NN_*.ipynb``; the student
   edition stages the student copies that ``python -m hyperskill_lite.course student``
   writes (exercise cells with the task and an empty answer, no solutions); staging adapts
   them for a static page (tools/coursebook/stage.py: panels, solutions, removed cells,
   alt text, anchors);
2. the pages: docs/syllabus.md, docs/instructor-guide.md, docs/slides.md and every page of
   docs/course/ and docs/guide/ (tools/coursebook/pages.py), the API reference that
   sphinx-autoapi generates from the package's docstrings (``api/``, docs/conf.py), the study-time table read from
   the notebooks' headers, the course's counts (notebooks, exercises per notebook by
   kind: tools/coursebook/counts.py, from the notebooks and the exercise catalog) and the
   table of contents on the home page (notebook 00); the
   figures folder sits beside the source folder, where a notebook's ``../figures/NAME.png``
   (and a guide page's ``../../figures/NAME.png``) finds it, as in the repository;
3. slides of notebooks 01-05 (reveal.js via nbconvert, tools/coursebook/slides.py);
4. MathJax 3 and reveal.js from the npm registry (``npm pack``), kept in ``--cache``
   (default ``build/cache/``, with npm's own download cache; nothing goes into the home
   folder, and the build prints where) and copied into the site's ``_static``: the site
   typesets math and shows slides offline;
5. ``sphinx-build -W`` into ``OUT/EDITION/html`` (a warning fails the build), each page's
   ".ipynb" download (the theme's button, ``_sources/NAME.ipynb``) replaced by the notebook
   itself (the student copy on the student site), and an ``index.html`` that redirects to
   the home page.

Usage: ``python tools/build_book.py [--out build/book] [--notebooks notebooks]
[--edition both|student|instructor] [--cache build/cache]``. Every failure the user can
meet (no notebooks, npm missing, Sphinx missing, a warning) is one line naming what to do,
exit code 1.

Our addition: the paper ships no course. Not here: the page checks (tests/browser/).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the coursebook package
from coursebook.counts import count_fields  # noqa: E402
from coursebook.npm import CACHE, MATHJAX, REVEAL, BookError, cache_dir, copy_parts, fetch  # noqa: E402
from coursebook.pages import (  # noqa: E402
    TEACHING,
    copy_pages,
    header,
    substitutions,
    toctree,
)
from coursebook.slides import write_slides  # noqa: E402
from coursebook.stage import (  # noqa: E402
    EDITIONS,
    HOME,
    PANEL_NOTE,
    WIDGET_VIEW,
    course_notebooks,
    default_figure,
    github_anchors,
    read,
    stage,
    stage_notebook,
)

__all__ = ["BookError", "EDITIONS", "HOME", "PANEL_NOTE", "WIDGET_VIEW", "build",
           "build_edition", "course_notebooks", "default_figure", "github_anchors", "stage",
           "stage_notebook", "student_copies", "main"]

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "hyperskill_lite"
"""The package whose docstrings make the API reference (sphinx-autoapi, docs/conf.py)."""

REDIRECT = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>hyperskill_lite course</title>
<link rel="icon" href="_static/favicon.svg">
<meta http-equiv="refresh" content="0; url={home}.html">
<link rel="canonical" href="{home}.html">
</head><body><p><a href="{home}.html">The course starts here.</a></p></body></html>
"""


def student_copies(notebooks: Path, out: Path) -> Path:
    """The student copies of `notebooks`, written into the new folder `out` by the course
    command (``python -m hyperskill_lite.course student OUT --notebooks DIR``)."""
    if out.exists():
        shutil.rmtree(out)
    r = subprocess.run([sys.executable, "-m", "hyperskill_lite.course", "student", str(out),
                        "--notebooks", str(notebooks)], capture_output=True, text=True)
    if r.returncode != 0 or not any(out.glob("[0-9][0-9]_*.ipynb")):
        detail = (r.stderr.strip().splitlines() or [f"exit code {r.returncode}"])[-1]
        raise BookError(f"make book: the student copies could not be written ({detail}); "
                        "run python -m hyperskill_lite.course student to see why")
    return out


def _has_autoapi() -> bool:
    try:
        import autoapi  # noqa: F401
    except ImportError:
        return False
    return PACKAGE.is_dir()


def _grading_link(src: Path) -> str:
    if (src / "course" / "grading.md").is_file():
        return "[the grading workflow](course/grading.md)"
    return "the grading workflow (docs/course/grading.md, written with the grader)"


def _sphinx(src: Path, html: Path, doctrees: Path, log: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going",
                        "-q", "-d", str(doctrees), str(src), str(html)],
                       capture_output=True, text=True)
    log.write_text(r.stdout + r.stderr, encoding="utf-8")
    if r.returncode != 0:
        warnings = [ln for ln in (r.stderr or r.stdout).splitlines() if ln.strip()]
        first = warnings[0] if warnings else f"exit code {r.returncode}"
        raise BookError(f"sphinx-build failed ({len(warnings)} message(s); the first: {first}); "
                        f"all of them in {log}")


def build_edition(edition: str, out: Path, notebooks: Path, docs: Path,
                  figures: Path | None = None, cache: Path = CACHE) -> Path:
    """Build one edition into ``out/EDITION/html`` (module docstring); return that folder."""
    base = out / edition
    src, html, doctrees = base / "src", base / "html", base / "doctrees"
    for d in (src, html, doctrees):  # Sphinx's saved doctrees too: a page copied with its
        if d.exists():               # mtime, edited while the last build ran, looked unchanged
            shutil.rmtree(d)
    src.mkdir(parents=True)
    source = student_copies(notebooks, base / "notebooks") if edition == "student" else notebooks
    if figures is not None and figures.is_dir():  # Markdown's ../figures/NAME.png resolves
        shutil.copytree(figures, base / "figures", dirs_exist_ok=True)
    shutil.copy2(docs / "conf.py", src / "conf.py")
    static = src / "_static"
    if (docs / "_static").is_dir():
        shutil.copytree(docs / "_static", static)
    static.mkdir(exist_ok=True)
    sections = copy_pages(docs, src)
    teaching = [n for n in TEACHING if (src / f"{n}.md").is_file()]
    paths = course_notebooks(source)
    names = [p.stem for p in paths]
    api = _has_autoapi()
    stage(source, src, toctree([n for n in names if n != HOME], teaching, sections, api),
          edition, figures)
    copy_parts(MATHJAX, fetch(MATHJAX, cache_dir(MATHJAX, cache)), static / "mathjax")
    copy_parts(REVEAL, fetch(REVEAL, cache_dir(REVEAL, cache)), static / "reveal.js")
    slides = write_slides(src, src / "_extra" / "slides")
    headers = [header(p.stem, read(p)) for p in paths if p.stem != HOME]
    values = substitutions(headers, edition, slides)
    values.update(count_fields(notebooks))
    values["grading_link"] = _grading_link(src)
    values["package"] = str(PACKAGE) if api else ""
    (src / "_course.json").write_text(json.dumps(values, indent=1) + "\n", encoding="utf-8")
    _sphinx(src, html, doctrees, base / "sphinx.log")
    downloads = html / "_sources"
    downloads.mkdir(exist_ok=True)
    for path in paths:  # the theme's ".ipynb" button: the notebook itself
        shutil.copy2(path, downloads / path.name)
    (html / "index.html").write_text(REDIRECT.format(home=HOME), encoding="utf-8")
    return html


def build(out: Path, notebooks: Path, docs: Path, editions: tuple[str, ...] = EDITIONS,
          figures: Path | None = None, cache: Path = CACHE) -> dict[str, Path]:
    """Build each of `editions`, side by side (each edition's Sphinx runs in its own
    process), with MathJax and reveal.js from `cache` (fetched there once); return
    {edition: its html folder}."""
    course_notebooks(notebooks)
    try:
        import autoapi  # noqa: F401
        import myst_nb  # noqa: F401
        import nbconvert  # noqa: F401
        import sphinx  # noqa: F401
        import sphinx_book_theme  # noqa: F401
    except ImportError as e:
        raise BookError(f"make book needs sphinx, myst-nb, sphinx-book-theme, sphinx-autoapi "
                        f"and nbconvert "
                        f"({e.name} is missing): run make book, which installs them") from e
    for pkg in (MATHJAX, REVEAL):  # into the cache once, before the editions share it
        fetch(pkg, cache_dir(pkg, cache))
    with ThreadPoolExecutor(max_workers=len(editions)) as pool:  # two Sphinx processes
        jobs = {e: pool.submit(build_edition, e, out, notebooks, docs, figures, cache)
                for e in editions}
        return {e: job.result() for e, job in jobs.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "book")
    parser.add_argument("--notebooks", type=Path, default=ROOT / "notebooks")
    parser.add_argument("--docs", type=Path, default=ROOT / "docs")
    parser.add_argument("--figures", type=Path, default=ROOT / "figures",
                        help="the saved figures the alt texts are read from")
    parser.add_argument("--cache", type=Path, default=CACHE,
                        help="where MathJax and reveal.js (and npm's download cache) are "
                        "kept between builds (default: build/cache)")
    parser.add_argument("--edition", choices=("both", *EDITIONS), default="both")
    args = parser.parse_args(argv)
    editions = EDITIONS if args.edition == "both" else (args.edition,)
    try:
        sites = build(args.out.resolve(), args.notebooks.resolve(), args.docs.resolve(),
                      editions, args.figures.resolve(), args.cache.resolve())
    except BookError as e:
        print(e, file=sys.stderr)
        return 1
    for edition, html in sites.items():
        pages = [p for p in html.rglob("*.html") if "_static" not in p.relative_to(html).parts]
        print(f"{edition} site: {html}/index.html ({len(pages)} pages)")
    print(f"MathJax and reveal.js: kept in {args.cache.resolve()} for the next build "
          "(delete it to fetch them again)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
