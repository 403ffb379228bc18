"""Which readers the tools have: the HTML extractor (trafilatura, or the standard
library's parser as a fallback) and the document converters, with their versions and,
for each one missing, why and the pip command that installs it.

`reader_report()` is what ``python -m hyperskill_lite check`` prints and a live run
records in run.json (its ``observed`` list); `warn_degraded()` logs ONE warning per
process when a reader is missing (the toolbox calls it when it is built), so a broken
optional dependency (a venv whose old pip left ``lxml_html_clean`` out of
``pip install .[live]``, so ``import trafilatura`` fails) is never a silent fallback:
without trafilatura a page is read with the standard library's parser, menus first,
and the article may land pages later.

>>> r = reader_report()
>>> sorted(r), r["html"]["extractor"] in ("trafilatura", "stdlib")
(['converters', 'html', 'missing'], True)

Not here: the readers themselves (html.py, documents/).
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import logging
from typing import Any

__all__ = ["reader_report", "reader_lines", "warn_degraded", "CONVERTERS", "INSTALL"]

log = logging.getLogger(__name__)

INSTALL = "pip install 'hyperskill_lite[live]'"
CONVERTERS: dict[str, tuple[str, str]] = {
    "html": ("trafilatura", "trafilatura"),
    "pdf": ("pypdf", "pypdf"),
    "docx": ("docx", "python-docx"),
    "pptx": ("pptx", "python-pptx"),
    "xlsx": ("openpyxl", "openpyxl"),
    "xls": ("xlrd", "xlrd"),
}
"""Format -> (module to import, distribution to install)."""
_DISTRIBUTION = {"lxml": "lxml", "docx": "python-docx", "pptx": "python-pptx"}


def _install_for(e: ImportError, module: str, dist: str) -> str:
    """The pip command that brings back what `e` says is missing."""
    if "lxml_html_clean" in str(e) or (e.name or "").startswith("lxml.html.clean"):
        return "pip install lxml_html_clean"  # trafilatura needs it (lxml split it off)
    name = (e.name or module).split(".")[0]
    return f"pip install {dist if name == module else _DISTRIBUTION.get(name, name)}"


def _probe(module: str, dist: str) -> dict[str, Any]:
    try:
        importlib.import_module(module)
    except ImportError as e:
        return {"available": False, "error": " ".join(str(e).split())[:200],
                "install": _install_for(e, module, dist)}
    except Exception as e:  # a broken install: say so, never crash the check
        return {"available": False, "error": f"{type(e).__name__}: {e}"[:200],
                "install": f"pip install --force-reinstall {dist}"}
    try:
        version = importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        version = "?"
    return {"available": True, "version": version, "package": dist}


@functools.lru_cache(maxsize=1)
def _report() -> tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]:
    return tuple((fmt, tuple(_probe(mod, dist).items()))
                 for fmt, (mod, dist) in CONVERTERS.items())


def reader_report() -> dict[str, Any]:
    """The readers this environment has (module docstring), as plain data:
    ``{"html": {"extractor", ...}, "converters": {format: {...}}, "missing": [...]}``."""
    conv = {fmt: dict(items) for fmt, items in _report()}
    html = dict(conv["html"])
    html["extractor"] = "trafilatura" if html["available"] else "stdlib"
    missing = [f"{fmt}: {c['install']}" for fmt, c in conv.items() if not c["available"]]
    return {"html": html, "converters": {k: v for k, v in conv.items() if k != "html"},
            "missing": missing}


def reader_lines(report: dict[str, Any] | None = None) -> list[str]:
    """The report as the lines ``check`` prints."""
    r = report or reader_report()
    h = r["html"]
    if h["available"]:
        lines = [f"page reader trafilatura {h['version']} (main content, then links)"]
    else:
        lines = [f"page reader the standard library's parser: trafilatura is missing "
                 f"({h['error']}; {h['install']})"]
    have = [f"{fmt} ({c['package']} {c['version']})" for fmt, c in r["converters"].items()
            if c["available"]]
    lines.append("documents   " + (", ".join(have) or "none")
                 + " in a limited child process")
    for fmt, c in r["converters"].items():
        if not c["available"]:
            lines.append(f"            {fmt}: not readable ({c['error']}; {c['install']})")
    return lines


@functools.lru_cache(maxsize=1)
def warn_degraded() -> list[str]:
    """Log one warning (once per process) naming each missing reader and how to install
    it; returns what was missing."""
    r = reader_report()
    if not r["missing"]:
        return []
    h = r["html"]
    what = []
    if not h["available"]:
        what.append(f"trafilatura cannot be imported ({h['error']}), so pages are read with "
                    f"the standard library's parser (menus included, the article may come "
                    f"pages later): {h['install']}")
    what += [f"{fmt} files cannot be read ({c['error']}): {c['install']}"
             for fmt, c in r["converters"].items() if not c["available"]]
    log.warning("degraded readers: %s (or %s)", "; ".join(what), INSTALL)
    return list(r["missing"])
