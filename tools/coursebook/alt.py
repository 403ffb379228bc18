"""What a figure shows, in words: the alt text of each image on the course site.

A notebook's figure output carries no description, so `figure_alt` looks, in order, at:
1. the PNG itself: a ``Description`` text chunk, where one was written;
2. the figure file the cell saves (``viz.save_figure(fig, FIGURES / "NAME.png")``), whose
   ``Description`` is the figure's own text: its title, each panel's title and axis labels
   (hyperskill_lite.plots.style.describe_figure);
3. the titles written in the cell's code (``title="..."``, ``set_title(...)``,
   ``suptitle(...)``, an f-string's fields elided);
4. the section the figure is in ("A figure of section 4. Merge candidates").
Never the file hash myst-nb names the image by.

Not here: placing the text on the page (stage.py sets myst-nb's cell option).
"""

from __future__ import annotations

import base64
import binascii
import io
import re
from pathlib import Path

__all__ = ["png_description", "saved_figure", "code_titles", "figure_alt"]

SAVED = re.compile(r"save_figure\(\s*\w+\s*,\s*FIGURES\s*/\s*[\"']([^\"']+\.png)[\"']")
TITLE = re.compile(r"""(?:\btitle\s*=\s*|set_title\(\s*|suptitle\(\s*)f?(["'])(.+?)(?<!\\)\1""")
LIMIT = 400


def png_description(png: bytes) -> str:
    """The ``Description`` (else ``Title``) text chunk of a PNG, or "".

    >>> png_description(b"not a png")
    ''
    """
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(png)) as im:
            text = getattr(im, "text", {}) or {}
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError):
        return ""
    return " ".join(str(text.get("Description") or text.get("Title") or "").split())


def saved_figure(source: str) -> str | None:
    """The file name a cell's code saves its figure to, or None.

    >>> saved_figure('viz.save_figure(fig, FIGURES / "05_cost.png")\\nplt.show()')
    '05_cost.png'
    """
    m = SAVED.search(source)
    return m.group(1) if m else None


def code_titles(source: str) -> list[str]:
    """The titles written in a cell's code, f-string fields elided.

    >>> code_titles('ax.set_title("W: co-occurrence (Eq. 12)")\\nviz.f(x, title=f"k = {k} runs")')
    ['W: co-occurrence (Eq. 12)', 'k = … runs']
    """
    out = []
    for m in TITLE.finditer(source):
        text = re.sub(r"\{[^{}]*\}", "…", m.group(2)).replace("\\n", " ")
        text = " ".join(text.split())
        if text.strip("… "):
            out.append(text)
    return out


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= LIMIT else text[: LIMIT - 1].rstrip() + "…"


def figure_alt(png_b64: str, source: str, figures: Path | None, section: str) -> str:
    """The alt text of a figure output (module docstring): `png_b64` is the output's
    base64 PNG, `source` its cell's code, `figures` the folder of saved figures and
    `section` the heading the figure sits under.

    >>> figure_alt("", 'ax.set_title("Memory growth")', None, "2. Runs")
    'Figure: Memory growth'
    >>> figure_alt("", "plt.show()", None, "2. Runs")
    'A figure of section 2. Runs'
    """
    try:
        own = png_description(base64.b64decode(png_b64)) if png_b64 else ""
    except (binascii.Error, ValueError):
        own = ""
    if own:
        return _cut(f"Figure: {own}")
    name = saved_figure(source)
    if name and figures is not None and (figures / name).is_file():
        saved = png_description((figures / name).read_bytes())
        if saved:
            return _cut(f"Figure: {saved}")
    titles = code_titles(source)
    if titles:
        return _cut("Figure: " + "; ".join(titles))
    return _cut(f"A figure of section {section}" if section else "A figure of this notebook")
