"""Spreadsheets as tables, read cell by cell within caps: XLSX (openpyxl, read-only,
cached values) and XLS (xlrd, ragged rows), one Markdown table per sheet with column
letters and row numbers (so "cell B3" can be found).

A sheet is read by its cells, never by the size it declares: openpyxl's read-only rows
stop at `Caps.max_sheet_rows` rows and `Caps.max_sheet_cols` columns, so a 4.8 kB XLSX
whose one cell sits at XFD1048576 yields a small table and a note, not a 1M x 16k grid.
Trailing empty rows and columns are dropped as the rows stream by (only trimmed rows are
kept).

Not here: the other formats (office.py, archives.py), the caps' defaults (kinds.py).
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any

from hyperskill_lite.agent.tools.documents.kinds import Caps
from hyperskill_lite.agent.tools.documents.tables import cell_text, markdown_table

__all__ = ["xlsx_text", "xls_text", "sheet_table", "column_letter"]


def column_letter(j: int) -> str:
    """Spreadsheet column name of 1-based column `j`.

    >>> column_letter(1), column_letter(28), column_letter(16384)
    ('A', 'AB', 'XFD')
    """
    out = ""
    while j > 0:
        j, r = divmod(j - 1, 26)
        out = chr(65 + r) + out
    return out


def _trimmed(row: Iterable[Any], width: int) -> list[Any]:
    cells = tuple(row)[:width]
    if cells.count(None) == len(cells):  # an empty row, checked at C speed
        return []
    cells = list(cells)
    while cells and cell_text(cells[-1]) == "":
        cells.pop()
    return cells


def sheet_table(title: str, rows: Iterable[Iterable[Any]], caps: Caps,
                declared: tuple[int | None, int | None] = (None, None)) -> str:
    """One sheet as ``## Sheet: title (R rows x C columns)`` and a table; `rows` is read
    up to ``caps.max_sheet_rows`` rows of at most ``caps.max_sheet_cols`` cells, and
    `declared` (the sheet's own claim of its size) only names what was left out.

    >>> print(sheet_table("S", [["a", None], [None, 2.0], [None, None]], Caps()))
    ## Sheet: S (2 rows x 2 columns)
    |  | A | B |
    |---|---|---|
    | 1 | a |  |
    | 2 |  | 2 |
    """
    kept: list[list[Any]] = []
    for i, row in enumerate(rows):
        if i >= caps.max_sheet_rows:
            break
        kept.append(_trimmed(row, caps.max_sheet_cols))
    while kept and not kept[-1]:
        kept.pop()
    width = max((len(r) for r in kept), default=0)
    body = [[str(i)] + [cell_text(c) for c in r] for i, r in enumerate(kept, 1)]
    header = [""] + [column_letter(j) for j in range(1, width + 1)]
    text = (f"## Sheet: {title} ({len(kept)} rows x {width} columns)\n"
            + (markdown_table(body, header) if kept and width else "(empty)"))
    d_rows, d_cols = declared
    if (d_rows or 0) > caps.max_sheet_rows or (d_cols or 0) > caps.max_sheet_cols:
        text += (f"\n(the sheet declares {d_rows or '?'} rows x {d_cols or '?'} columns; "
                 f"only rows 1-{caps.max_sheet_rows:,} and columns A-"
                 f"{column_letter(caps.max_sheet_cols)} are read: max_sheet_rows, "
                 "max_sheet_cols)")
    return text


def xlsx_text(data: bytes, caps: Caps) -> str:
    """Every sheet of an XLSX workbook (openpyxl read-only, cached values)."""
    import openpyxl

    wb = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    try:
        out = []
        for ws in wb.worksheets:
            rows = ws.iter_rows(min_row=1, max_row=caps.max_sheet_rows, min_col=1,
                                max_col=caps.max_sheet_cols, values_only=True)
            declared = (getattr(ws, "max_row", None), getattr(ws, "max_column", None))
            out.append(sheet_table(ws.title, rows, caps, declared))
        return "\n\n".join(out)
    finally:
        wb.close()


def xls_text(data: bytes, caps: Caps) -> str:
    """Every sheet of a legacy XLS workbook (xlrd, ragged rows: no padding to the widest
    row)."""
    import xlrd

    book = xlrd.open_workbook(file_contents=data, ragged_rows=True, on_demand=True)
    out = []
    try:
        for k in range(book.nsheets):
            sh = book.sheet_by_index(k)

            def rows(sh: Any = sh) -> Iterable[list[Any]]:
                for i in range(min(sh.nrows, caps.max_sheet_rows)):
                    n = min(sh.row_len(i), caps.max_sheet_cols)
                    row = []
                    for c in sh.row_slice(i, 0, n):
                        if c.ctype == xlrd.XL_CELL_DATE:
                            row.append(xlrd.xldate_as_datetime(c.value, book.datemode))
                        else:
                            row.append(c.value if c.value != "" else None)
                    yield row

            out.append(sheet_table(sh.name, rows(), caps, (sh.nrows, sh.ncols)))
            book.unload_sheet(k)
    finally:
        book.release_resources()
    return "\n\n".join(out)
