"""Every docstring of the package reads as reStructuredText the way the course site's API
reference renders it (sphinx-autoapi: napoleon, then docutils), so a malformed table, an
inline literal left open on a summary line or a broken indentation fails here, in the unit
loop, and not forty minutes later in `make book` (whose ``sphinx-build -W`` refuses it).
A public class has a docstring of its own: without one, autoapi shows its base class's
(pydantic's `BaseModel` docstring is not valid reStructuredText in a page of ours)."""

from __future__ import annotations

import ast
import io
from pathlib import Path

import pytest

napoleon = pytest.importorskip("sphinx.ext.napoleon")
docutils_core = pytest.importorskip("docutils.core")
docutils_utils = pytest.importorskip("docutils.utils")

PACKAGE = Path(__file__).resolve().parents[1] / "hyperskill_lite"
SPHINX_ONLY = ("Unknown interpreted text role", "Unknown directive type",
               'No role entry for', 'No directive entry for')
"""Messages about Sphinx's own roles and directives (``:func:``, ``.. math::``), which plain
docutils does not know; everything else docutils says at warning level or above fails."""


def rst_problems(text: str) -> list[str]:
    """docutils' warnings and errors on `text` (after napoleon), one line each, without
    the ones about roles and directives only Sphinx defines."""
    config = napoleon.Config(napoleon_google_docstring=True, napoleon_numpy_docstring=True)
    lines = text.splitlines()
    lines = napoleon.NumpyDocstring(lines, config).lines()
    text = "\n".join(napoleon.GoogleDocstring(lines, config).lines())
    stream = io.StringIO()
    docutils_core.publish_doctree(text, settings_overrides={
        "report_level": docutils_utils.Reporter.WARNING_LEVEL, "halt_level": 5,
        "warning_stream": stream, "file_insertion_enabled": False, "raw_enabled": False})
    out = []
    for line in stream.getvalue().splitlines():
        if "(WARNING/" in line or "(ERROR/" in line or "(SEVERE/" in line:
            message = line.split(") ", 1)[-1]
            if not message.startswith(SPHINX_ONLY):
                out.append(line.replace("<string>", "").strip())
    return out


def _docstrings(path: Path):
    """(line, name, docstring, summarised) of the module and of each class, function and
    method in it; `summarised` for the public classes and functions at module level, whose
    first line autoapi shows on its own in the module's summary table."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if (doc := ast.get_docstring(tree, clean=True)) is not None:
        yield 1, "(module)", doc, False
    top = {id(n) for n in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=True)
            if doc is not None:
                yield (node.lineno, node.name, doc,
                       id(node) in top and not node.name.startswith("_"))


def _modules() -> list[Path]:
    """The modules autoapi documents: every one but ``__main__`` (a command, not an API)."""
    return sorted(p for p in PACKAGE.rglob("*.py")
                  if "__pycache__" not in p.parts and p.name != "__main__.py")


def test_every_docstring_is_valid_restructuredtext():
    bad = []
    for path in _modules():
        rel = path.relative_to(PACKAGE.parent)
        for line, name, doc, summarised in _docstrings(path):
            texts = [("", doc)]
            if summarised and doc:
                texts.append((" (its first line, alone in the summary table)",
                              doc.splitlines()[0]))
            for label, text in texts:
                bad += [f"{rel}:{line} {name}{label}: {p}" for p in rst_problems(text)]
    assert not bad, "docstrings the API reference cannot render:\n" + "\n".join(bad)


def test_every_public_class_has_a_docstring_of_its_own():
    missing = []
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if (isinstance(node, ast.ClassDef) and not node.name.startswith("_")
                    and ast.get_docstring(node) is None):
                missing.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {node.name}")
    assert not missing, "public classes without a docstring:\n" + "\n".join(missing)


def test_the_checker_finds_what_sphinx_refused_and_passes_sphinx_roles():
    assert rst_problems("A ``literal``, :func:`a role` and :math:`x^2`.\n\nArgs:\n"
                        "    x: a Google-style argument.") == []
    assert "Inline literal start-string" in rst_problems('One case (``{"ok":')[0]
    table = "====  ====\nab    cd\n====  ====\nabcdef  x\n====  ===="  # text in the margin
    assert any("Malformed table" in p for p in rst_problems(table))
