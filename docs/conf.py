"""Sphinx configuration of the course site (`make book`; built by tools/build_book.py).

Why Sphinx + myst-nb + sphinx-book-theme and not Jupyter Book: Jupyter Book 1 is this same
stack behind a config file, and Jupyter Book 2 is built on the Node.js ``mystmd`` tool,
which fetches its site theme from the web when it builds; this machine and CI reach only
the package registries. Sphinx renders the committed notebooks with their stored outputs
(``nb_execution_mode = "off"``: nothing is re-executed) and everything the pages load is
copied into the site: the theme's assets come with its wheel and MathJax with the npm
package ``mathjax`` (tools/build_book.py copies it into ``_static/mathjax``), so the site
typesets its equations with no network.

The build (tools/build_book.py) runs this configuration twice, once per edition (the
student site without solutions, the instructor site with them), and leaves beside it a
``_course.json`` with the edition and the values of the pages' ``{{ ... }}`` fields (MyST
substitutions: the study-time table read from the notebooks' headers, the slide decks).

The API reference (``api/``) is generated from the package's docstrings by sphinx-autoapi
(it reads the source, imports nothing, so it builds offline with no extra installed) with
napoleon reading the numpydoc sections. A docstring's markup slip (a table docutils cannot
parse, a ``|x|`` read as a substitution) fails the build under ``-W`` like a slip on any
other page: the message names the module's page and line.

Our addition (not from the paper): the course itself is ours; the paper has no course.
Not here: the staging of the notebooks (widget outputs, solutions, alt text, the table of
contents; see tools/coursebook/) and the checks of the built pages (tests/browser/).
"""

from __future__ import annotations

import json
from pathlib import Path

_COURSE = Path(__file__).with_name("_course.json")
course: dict = json.loads(_COURSE.read_text(encoding="utf-8")) if _COURSE.is_file() else {}
"""What the build says about this edition ({} when Sphinx is run by hand)."""
edition = course.get("edition", "instructor")

project = "hyperskill_lite"
author = "hyperskill_lite contributors"
copyright = "hyperskill_lite contributors (MIT)"
html_title = "HyperSkill, step by step: the hyperskill_lite course" + (
    " (instructor edition)" if edition == "instructor" else "")

root_doc = "00_quickstart"
"""The course map opens notebook 00, so notebook 00 is the home page (index.html
redirects to it)."""

extensions = ["myst_nb", "sphinx.ext.napoleon"]
exclude_patterns = ["_build", "_extra", "**.ipynb_checkpoints", "README.md"]
html_extra_path = ["_extra"] if Path(__file__).with_name("_extra").is_dir() else []
"""The slides (reveal.js pages made by nbconvert), copied into the site as they are."""

# --- the API reference: sphinx-autoapi over the package's source ---------------------
_PACKAGE = Path(course.get("package") or Path(__file__).resolve().parents[1] / "hyperskill_lite")
"""The package whose docstrings make the reference (the build names it; by hand, beside
docs/)."""
if _PACKAGE.is_dir():
    extensions.append("autoapi.extension")
autoapi_type = "python"
autoapi_dirs = [str(_PACKAGE)]
autoapi_root = "api"
autoapi_add_toctree_entry = False
"""The build lists ``api/index`` in the home page's tables of contents (the home page is
notebook 00, where autoapi cannot add it)."""
autoapi_options = ["members", "show-inheritance", "show-module-summary"]
"""Public, documented names only (no private or undocumented members, no re-exports
twice: each name on the page of the module that defines it)."""
autoapi_keep_files = False
napoleon_numpy_docstring = True
napoleon_google_docstring = False
suppress_warnings = ["autoapi.python_import_resolution"]
"""autoapi cannot follow a few imports of module constants (``ENV_API_KEY`` ...); the
names are still documented where they are defined."""


# --- notebooks: render what is committed, run nothing --------------------------------
nb_execution_mode = "off"
nb_ipywidgets_js: dict = {}
"""No widget JavaScript: it would come from a CDN; the panels' outputs are replaced by a
note and their static default figure (or a pointer to it, right above) when the notebooks
are staged."""
nb_output_stderr = "show"
nb_merge_streams = True

# --- MyST: the notebooks' own Markdown, as JupyterLab reads it ------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "substitution"]
myst_substitutions = {k: v for k, v in course.items() if isinstance(v, str)}
"""``{{ study_table }}``, ``{{ outcomes }}``, ``{{ slide_decks }}``, ``{{ edition_note }}``,
``{{ grading_link }}`` in the Markdown pages (written by the build)."""
myst_dmath_double_inline = True
"""``$$...$$`` inside a paragraph (a list item, say) is display math, as JupyterLab shows it;
without this it stays raw ``$`` around an inline formula."""
myst_heading_anchors = 3
"""Anchors for headings down to ###, GitHub-style (``#the-course-map``); the staging step
rewrites the notebooks' JupyterLab-style anchors (``#The-course-map``) to match."""

# --- math: MathJax 3 from the site itself --------------------------------------------
mathjax_path = "mathjax/tex-chtml.js"
"""Relative to ``_static``: the copy tools/build_book.py puts there (never a CDN)."""

# --- theme ----------------------------------------------------------------------------
html_theme = "sphinx_book_theme"
html_static_path = ["_static"]
html_favicon = "_static/favicon.svg"
"""Without an icon the browser asks for /favicon.ico and logs a 404 as a console error."""
# no Python module index: the API reference (sphinx-autoapi) has its own, one page per
# module, and the module index's collapse toggles are images without alt text
html_domain_indices = False
html_css_files = ["course.css"]
html_js_files = ["course.js"]
"""Reading on any screen (docs/guide/course-site.md, "Reading on a phone"): wide math,
code, outputs and tables scroll inside their box (which fades where more is hidden)
instead of being cut, a table keeps its words whole, an equation keeps its number in
view; a monospace diagram or an equation a little too wide is set smaller to fit; a
figure opens at its own size in a viewer, and on a narrow screen a figure of panels side
by side shows panel by panel."""
html_theme_options = {
    "navbar_persistent": [],
    "home_page_in_toc": True,
    "show_navbar_depth": 1,
    "show_toc_level": 2,
    "use_download_button": True,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "navigation_with_keys": False,
}
"""``navbar_persistent: []``: one search box, the sidebar's (pydata-sphinx-theme's header
would show a second one above it on a wide window)."""
html_context = {"default_mode": "auto"}
"""The theme's light/dark mode; unset, its script logs a console error on a first visit."""
html_last_updated_fmt = None
html_copy_source = True
html_sourcelink_suffix = ""
"""The theme's ".ipynb" download button links to ``_sources/NAME.ipynb``; the build puts
the notebook itself there (the student copy on the student site)."""
html_show_sourcelink = False
