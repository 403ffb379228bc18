"""The course's figure style: figures designed for the course site's column, text that stays
legible there, numbers without signed zeros, and a description of each figure (the alt text
of the site's images and the PNG's ``Description``).

The site's content column is about 688 px wide at a 1280 px window (sphinx-book-theme), and
a notebook's inline figure is drawn at 100 dpi, so a figure `COLUMN_IN` inches wide is
shown unscaled; a wider one is shrunk by ``COLUMN_IN / width`` and its text with it.
`shown_pt` says how large a font ends up there, and the drawings choose their font sizes
so that it stays at least `MIN_TEXT_PT`. Fonts are matplotlib's defaults (its bundled
DejaVu Sans, 10 pt), the same glyphs on every machine.

Not here: any plot (runs.py, matrices.py, comparisons.py, drawing.py); the site's own
styling (docs/_static/course.css).
"""

from __future__ import annotations

import re

__all__ = ["COLUMN_IN", "MIN_TEXT_PT", "shown_scale", "shown_pt", "column_figsize", "number",
           "one_line", "describe_figure"]

COLUMN_IN = 6.8
"""Width (inches at 100 dpi) of a figure shown unscaled in the site's column (680 px)."""

MIN_TEXT_PT = 7.5
"""Smallest text, in points as displayed in the column, that a figure may rely on (about
10 px); a cell value that would be smaller is left out (the colour bar still reads)."""

def shown_scale(fig) -> float:
    """How much the site shrinks `fig`: 1 for a figure at most `COLUMN_IN` wide, else
    ``COLUMN_IN / width``."""
    width = float(fig.get_size_inches()[0])
    return min(1.0, COLUMN_IN / width) if width > 0 else 1.0


def shown_pt(fig, pt: float) -> float:
    """The size, as displayed in the site's column, of `pt`-point text in `fig`."""
    return pt * shown_scale(fig)


def column_figsize(height_ratio: float = 0.62) -> tuple[float, float]:
    """A figure size for the column: `COLUMN_IN` wide, `height_ratio` times as high.

    >>> column_figsize(0.5)
    (6.8, 3.4)
    """
    return COLUMN_IN, round(COLUMN_IN * height_ratio, 2)


def number(value: float, digits: int = 2) -> str:
    """`value` with `digits` decimals and never a signed zero: a value that rounds to zero
    reads "0.00" whatever its sign, so float noise of either sign draws the same label
    (a re-run that flips -1e-17 to +1e-17 must not change a figure).

    >>> number(-0.001), number(0.004), number(-0.26), number(float("nan"))
    ('0.00', '0.00', '-0.26', 'nan')
    """
    rounded = round(float(value), digits)
    return f"{rounded + 0.0:.{digits}f}"  # -0.0 + 0.0 is +0.0


def one_line(text: str) -> str:
    """A title's lines as one: after a colon or comma a space, else a comma.

    >>> one_line("below: plain Z\\nabove: Z~"), one_line("SkillWorld:\\nsix trajectories")
    ('below: plain Z, above: Z~', 'SkillWorld: six trajectories')
    """
    text = re.sub(r"(?<=[:;,.])[ \t]*\n\s*", " ", text)
    return " ".join(re.sub(r"\s*\n\s*", ", ", text).split())


def _axes_text(ax) -> str:
    title = one_line(ax.get_title() or ax.get_title("left") or ax.get_title("right"))
    labels = [s for s in (ax.get_xlabel(), ax.get_ylabel()) if s]
    parts = [title] if title else []
    if labels:
        parts.append("axes: " + " / ".join(labels))
    return " (".join(parts) + (")" if len(parts) > 1 else "")


def describe_figure(fig, limit: int = 400) -> str:
    """A one-line description of `fig` from its own text: the figure title, then each
    panel's title and axis labels (colour bars left out), cut to `limit` characters. The
    site uses it as the image's alt text; `save_figure` writes it into the PNG.

    >>> import matplotlib.pyplot as plt
    >>> fig, (a, b) = plt.subplots(1, 2)
    >>> _ = a.set(title="cumulative SR", xlabel="episode", ylabel="SR (%)"); _ = b.set_title("growth")
    >>> _ = fig.suptitle("SkillWorld xbench")
    >>> describe_figure(fig)
    'SkillWorld xbench. Panels: cumulative SR (axes: episode / SR (%)); growth'
    >>> plt.close(fig)
    """
    head = one_line(fig._suptitle.get_text()) if getattr(fig, "_suptitle", None) else ""
    panels = [_axes_text(ax) for ax in fig.axes
              if ax.get_label() != "<colorbar>" and ax.get_visible()]
    panels = [p for p in panels if p]
    if len(panels) == 1 and not head:
        text = panels[0]
    elif panels:
        text = (f"{head}. " if head else "") + ("Panels: " if len(panels) > 1 else "") \
            + "; ".join(panels)
    else:
        text = head or "a figure without a title"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
