"""PDF, DOCX and PPTX as text: pypdf (text per page, at most `Caps.max_pdf_pages`
pages), python-docx (paragraphs, headings and tables in document order) and python-pptx
(text, tables and notes per slide). Each stops adding text once it holds
`Caps.max_text_chars` characters. The ZIP-based formats are size-checked by
formats.py before they reach these readers (archives.py).

Not here: sheets (sheets.py), the dispatch by suffix (formats.py).
"""

from __future__ import annotations

import io
from typing import Any

from hyperskill_lite.agent.tools.documents.kinds import Caps, DocumentError
from hyperskill_lite.agent.tools.documents.tables import markdown_table

__all__ = ["pdf_text", "docx_text", "pptx_text"]


class _Text:
    """Parts of a text, until `limit` characters are held."""

    def __init__(self, limit: int) -> None:
        self.parts: list[str] = []
        self.size, self.limit = 0, limit

    def add(self, part: str) -> bool:
        """Keep `part`; False once the text is full."""
        self.parts.append(part)
        self.size += len(part) + 2
        return self.size < self.limit

    def join(self, sep: str = "\n\n") -> str:
        return sep.join(self.parts)


def pdf_text(data: bytes, caps: Caps) -> tuple[str, str]:
    """``(title, text)`` of a PDF: ``## Page i`` and its text, page by page."""
    import pypdf

    reader = pypdf.PdfReader(io.BytesIO(data))
    if reader.is_encrypted and not reader.decrypt(""):
        raise DocumentError("the PDF is encrypted with a password")
    title = ""
    try:
        title = str((reader.metadata or {}).get("/Title") or "")
    except Exception:  # broken metadata never stops the text
        title = ""
    n = len(reader.pages)
    out = _Text(caps.max_text_chars)
    for i in range(min(n, caps.max_pdf_pages)):
        if not out.add(f"## Page {i + 1}\n{(reader.pages[i].extract_text() or '').strip()}"):
            break
    if n > caps.max_pdf_pages:
        out.add(f"(the PDF has {n:,} pages; pages past {caps.max_pdf_pages:,} are not "
                "read: max_pdf_pages)")
    return title, out.join()


def docx_text(data: bytes, caps: Caps) -> tuple[str, str]:
    """``(title, text)`` of a DOCX: headings as Markdown, tables as Markdown tables."""
    import docx
    from docx.table import Table

    d = docx.Document(io.BytesIO(data))
    out = _Text(caps.max_text_chars)
    for block in d.iter_inner_content():
        if isinstance(block, Table):
            if not out.add(markdown_table([[c.text for c in row.cells] for row in block.rows])):
                break
            continue
        text = block.text.strip()
        if not text:
            continue
        style = (block.style.name if block.style is not None else "") or ""
        if style.startswith("Heading") and style[-1:].isdigit():
            text = "#" * int(style[-1]) + " " + text
        elif style == "Title":
            text = "# " + text
        if not out.add(text):
            break
    return d.core_properties.title or "", out.join()


def _shape_text(shape: Any) -> list[str]:
    out = []
    if getattr(shape, "shape_type", None) == 6 and hasattr(shape, "shapes"):  # a group
        for s in shape.shapes:
            out += _shape_text(s)
    if getattr(shape, "has_table", False) and shape.has_table:
        out.append(markdown_table([[c.text for c in row.cells] for row in shape.table.rows]))
    elif getattr(shape, "has_text_frame", False) and shape.text_frame.text.strip():
        out.append(shape.text_frame.text.strip())
    return out


def pptx_text(data: bytes, caps: Caps) -> tuple[str, str]:
    """``(title, text)`` of a PPTX: ``## Slide i``, its shapes' text and its notes."""
    import pptx

    pres = pptx.Presentation(io.BytesIO(data))
    out = _Text(caps.max_text_chars)
    for i, slide in enumerate(pres.slides, 1):
        parts = [f"## Slide {i}"]
        for shape in slide.shapes:
            parts += _shape_text(shape)
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame.text.strip():
            parts.append("Notes: " + slide.notes_slide.notes_text_frame.text.strip())
        if not out.add("\n".join(parts)):
            break
    return pres.core_properties.title or "", out.join()
