"""Cells and rows as Markdown: the table format every converter writes.

>>> print(markdown_table([["a", 1.0], ["b", 2.5]], header=["name", "value"]))
| name | value |
|---|---|
| a | 1 |
| b | 2.5 |

Not here: reading sheets (sheets.py) or documents (office.py).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from typing import Any

__all__ = ["markdown_table", "cell_text"]


def cell_text(v: Any) -> str:
    """A cell's value as table text (whole floats without ".0", dates in ISO form).

    >>> cell_text(3.0), cell_text(None), cell_text("a|b")
    ('3', '', 'a\\\\|b')
    """
    if v is None:
        return ""
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    if isinstance(v, (_dt.datetime, _dt.date, _dt.time)):
        return v.isoformat()
    return " ".join(str(v).replace("|", "\\|").split())


def markdown_table(rows: Sequence[Sequence[Any]], header: Sequence[str] | None = None) -> str:
    """Rows as a Markdown table (the first row is the header unless `header` is given)."""
    rows = [[cell_text(c) for c in r] for r in rows]
    if header is None:
        if not rows:
            return ""
        header, rows = rows[0], rows[1:]
    width = max([len(header), *(len(r) for r in rows)])
    head = list(header) + [""] * (width - len(header))
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(r + [""] * (width - len(r))) + " |" for r in rows]
    return "\n".join(lines)
