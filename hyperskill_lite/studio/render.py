"""The studio's HTML file: the template, its script and style, vis-network and the data,
all in one self-contained page (no server, no CDN, nothing fetched when it opens).

The drawing library is vis-network 9.1.2, the standalone bundle the pyvis package ships
(469 kB minified, dual Apache-2.0 / MIT, its licence header kept). It was chosen over
plotly.js (4.8 MB in the plotly wheel) for size: the page draws one network, and its
charts are a few lines, axes and bars that the page's own script draws as inline SVG
from the numbers (charts.py), so no chart library is needed. Two scripts: the drawing,
its filters and checkpoint slider, the details of a clicked element and a task's
retrieval are ``templates/view.js`` (with its style ``view.css``), which the notebook
widget (hyperskill_lite/widget/) loads too; ``templates/studio.js`` is the page's glue
(tabs, the charts, the tables and their CSV export). `widget_module` puts the same
view.js, vis-network and the widget's glue ``templates/widget.js`` into one ES module.

The data goes in a ``<script type="application/json">`` element, with ``<``, ``>`` and
``&`` escaped as JSON unicode escapes so no text of a run (hostile or not) can close the
element; the script puts every text into the page with ``textContent``, never as HTML.

Not here: what the data holds (build.py).
"""

from __future__ import annotations

import html
import importlib.util
import json
import math
import os
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

try:  # optional speed-up (the studio extra); json otherwise
    import orjson
except ImportError:  # pragma: no cover - exercised where orjson is not installed
    orjson = None

__all__ = ["render", "write_studio", "vis_network_js", "is_studio_page", "json_safe", "VIS_NETWORK",
           "GENERATOR", "StudioDependencyError", "widget_module", "view_css"]

VIS_NETWORK = "templates/lib/vis-9.1.2/vis-network.min.js"
"""Where the pyvis package keeps the vis-network bundle."""
GENERATOR = '<meta name="generator" content="hyperskill_lite memory studio">'
"""The mark in a page's head by which a later `inspect` knows the file is its own."""


class StudioDependencyError(ValueError):
    """A package the studio page is built from is not installed (the message says
    which and how to install it)."""


def vis_network_js() -> str:
    """The vis-network bundle from the installed pyvis package (found without importing
    pyvis, whose import loads Jinja2, networkx and IPython)."""
    spec = importlib.util.find_spec("pyvis")
    try:
        if spec is None or not spec.submodule_search_locations:
            raise ModuleNotFoundError("pyvis")
        return (Path(list(spec.submodule_search_locations)[0]) / VIS_NETWORK).read_text(
            encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError) as exc:
        raise StudioDependencyError(
            "the memory studio draws with vis-network from the pyvis package, which is "
            "not installed (or has no vis-network 9.1.2): pip install "
            "'hyperskill_lite[studio]'") from exc


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("hyperskill_lite")
    except PackageNotFoundError:
        return "0+unknown"


def _asset(name: str) -> str:
    return (resources.files("hyperskill_lite.studio") / "templates" / name).read_text(
        encoding="utf-8")


def json_safe(v: Any) -> Any:
    """`v` with NaN and infinities as None and numpy scalars as Python numbers.

    >>> json_safe({"a": float("nan"), "b": [np.float64(1.5), np.int64(2)]})
    {'a': None, 'b': [1.5, 2]}
    """
    if isinstance(v, dict):
        return {str(k): json_safe(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [json_safe(x) for x in v]
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _json_for_script(data: Any) -> str:
    """Compact JSON of the page's data: orjson when installed (several times faster on a
    page of MBs; it writes NaN and infinities as null, as `json_safe` does), the json
    module otherwise and for what orjson refuses (a numpy number, a key that is not a
    string), after `json_safe`."""
    try:
        if orjson is None:
            raise TypeError("no orjson")
        text = orjson.dumps(data).decode("utf-8")
    except TypeError:
        try:
            text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError):  # a NaN or a numpy number left somewhere: clean it
            text = json.dumps(json_safe(data), ensure_ascii=False, separators=(",", ":"),
                              allow_nan=False)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def render(data: dict[str, Any]) -> str:
    """The whole page for `data` (`build.studio_data`)."""
    page = _asset("studio.html")
    page = page.replace("@TITLE@", html.escape(str(data.get("title", "Memory studio"))))
    page = page.replace("@VERSION@", html.escape(_version()), 1)
    page = page.replace("/*@CSS@*/", _asset("studio.css") + _asset("view.css"), 1)
    page = page.replace("/*@VIS@*/", vis_network_js().replace("</script", "<\\/script"), 1)
    page = page.replace("/*@APP@*/", (_asset("view.js") + "\n" + _asset("studio.js")).replace(
        "</script", "<\\/script"), 1)
    return page.replace("@DATA@", _json_for_script(data), 1)


def widget_module() -> str:
    """The notebook widget's ES module (anywidget's ``_esm``): vis-network, scoped to the
    module (its UMD wrapper is handed an ``exports`` object, so it neither looks for an
    AMD loader nor sets a global), then view.js and widget.js, which exports
    ``render``."""
    bundle = "\n".join(line for line in vis_network_js().split("\n")  # not splitlines():
                       if not line.startswith("//# sourceMappingURL="))  # U+2028 is in strings
    return ("const vis = (() => { const exports = {}; const module = { exports };\n"
            + bundle + "\nreturn module.exports; })();\n"
            + _asset("view.js") + "\n" + _asset("widget.js"))


def view_css() -> str:
    """The style of the drawing and its panels (view.css: scoped to ``.hsl``)."""
    return _asset("view.css")


def write_studio(data: dict[str, Any], out: Path | str) -> Path:
    """Write `render(data)` to `out` (an .html file, replaced by a rename so a crash
    leaves the old file or the new one whole); returns its path."""
    out = Path(out)
    text = render(data)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, out)
    return out


def is_studio_page(path: Path | str) -> bool:
    """Whether the file `path` is a page this module wrote (its head has `GENERATOR`):
    `inspect` replaces only those, never another file of the user's."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    return GENERATOR.encode() in head
