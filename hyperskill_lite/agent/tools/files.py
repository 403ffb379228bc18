"""Attached files as text: which files the agent may open, and documents converted to
Markdown-like text.

`FileAccess` resolves a path the agent names: inside the allowed root folder, or one of
the task's attachments, and a member of an allowed ZIP archive as ``archive.zip/member``
(read from the archive, never extracted); anything else is refused. `convert` turns a
file's bytes into ``(title, text)`` by its suffix:

- PDF (pypdf; text per page), DOCX (python-docx; paragraphs, headings and tables in
  document order), PPTX (python-pptx; text, tables and notes per slide), XLSX (openpyxl,
  cached values) and XLS (xlrd) as one table per sheet with column letters and row
  numbers (so "cell B3" can be found), CSV/TSV and other text as is, HTML (html.py: the
  main content, then links), JSON/JSON-LD pretty-printed, ZIP as a listing of members;
- images and audio get an error naming the tool that reads them.

The anchor harness converts files with a Markdown converter (MarkItDown-like: pdfminer,
mammoth, pandas); these four maintained libraries read the same formats for about a
ninth of the install (measured: 17 MB against 152 MB, most of it onnxruntime and magika).
Differs from the anchor: spreadsheet cell colours are not shown; PDB files are read as
text (no Biopython distance summary).

Not here: answering a question about a file (toolbox.py), images and audio (media.py).
"""

from __future__ import annotations

import datetime as _dt
import io
import json
import zipfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from hyperskill_lite.agent.tools.html import page_text

__all__ = ["FileAccess", "DocumentError", "convert", "markdown_table", "TEXT_SUFFIXES",
           "DOCUMENT_SUFFIXES", "IMAGE_SUFFIXES", "AUDIO_SUFFIXES", "MIME_SUFFIX"]

TEXT_SUFFIXES = {
    ".txt", ".md", ".csv", ".tsv", ".jsonl", ".xml", ".py", ".log", ".yaml", ".yml", ".pdb",
    ".ini", ".cfg", ".toml", ".tex", ".srt", ".vtt", ".sql", ".r", ".js", ".ts", ".c", ".h",
    ".cpp", ".java", ".sh", ".rst",
}
DOCUMENT_SUFFIXES = {".pdf", ".docx", ".pptx", ".xlsx", ".xlsm", ".xls", ".html", ".htm",
                     ".json", ".jsonld", ".zip"}
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".bmp", ".webp"}
AUDIO_SUFFIXES = {".mp3", ".m4a", ".wav", ".ogg", ".flac", ".webm", ".mpga", ".mpeg"}
MIME_SUFFIX = {
    "application/pdf": ".pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": ".pptx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ".xlsx",
    "application/vnd.ms-excel": ".xls",
    "application/zip": ".zip",
    "application/json": ".json",
    "application/ld+json": ".jsonld",
    "text/csv": ".csv",
}
"""Content types of documents a web page may be, and the suffix that reads them."""


class DocumentError(ValueError):
    """A file cannot be read as text; the message is one line saying why and what to do."""


class FileAccess:
    """Which files the agent may open: inside `root` (relative paths are taken from
    there) or listed in `attachments`, and members of such ZIP archives."""

    def __init__(self, root: str | Path | None = None, attachments: Iterable[Path] = (),
                 max_bytes: int = 25_000_000) -> None:
        self.root = Path(root).resolve() if root is not None else None
        self.attachments: set[Path] = set(attachments)
        self.max_bytes = max_bytes

    def _allowed(self, p: Path) -> bool:
        return p in self.attachments or (self.root is not None and p.is_relative_to(self.root))

    def _path(self, name: str) -> Path:
        p = Path(name).expanduser()
        if not p.is_absolute() and self.root is not None:
            p = self.root / p
        return p.resolve()

    def read(self, name: str) -> tuple[str, bytes]:
        """``(file name, bytes)`` of an allowed file or ZIP member.

        Raises
        ------
        PermissionError, FileNotFoundError, DocumentError
            One line each: outside the allowed folders, missing, too large.
        """
        p = self._path(name)
        if p.is_file():
            if not self._allowed(p):
                raise PermissionError(f"{name} is outside the folders this agent may read")
            size = p.stat().st_size
            if size > self.max_bytes:
                raise DocumentError(f"{name} is {size} bytes, over the limit of {self.max_bytes}")
            return p.name, p.read_bytes()
        for parent in p.parents:  # archive.zip/member
            if parent.suffix.lower() == ".zip" and parent.is_file():
                if not self._allowed(parent):
                    raise PermissionError(f"{name} is outside the folders this agent may read")
                return self._member(parent, p.relative_to(parent).as_posix(), name)
        if not self._allowed(p) and not (self.root is not None and self.root in p.parents):
            raise PermissionError(f"{name} is outside the folders this agent may read")
        raise FileNotFoundError(f"no such file: {name}")

    def _member(self, archive: Path, member: str, name: str) -> tuple[str, bytes]:
        try:
            with zipfile.ZipFile(archive) as z:
                info = z.getinfo(member)
                if info.file_size > self.max_bytes:
                    raise DocumentError(f"{name} is {info.file_size} bytes, over the limit of "
                                        f"{self.max_bytes}")
                with z.open(info) as f:
                    return Path(member).name, f.read(self.max_bytes + 1)[: self.max_bytes]
        except KeyError:
            raise FileNotFoundError(f"no member {member!r} in {archive.name}") from None
        except zipfile.BadZipFile as e:
            raise DocumentError(f"{archive.name} is not a readable ZIP archive ({e})") from None


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    if isinstance(v, (_dt.datetime, _dt.date, _dt.time)):
        return v.isoformat()
    return " ".join(str(v).replace("|", "\\|").split())


def markdown_table(rows: Sequence[Sequence[Any]], header: Sequence[str] | None = None) -> str:
    """Rows as a Markdown table (the first row is the header unless `header` is given).

    >>> print(markdown_table([["a", 1.0], ["b", 2.5]], header=["name", "value"]))
    | name | value |
    |---|---|
    | a | 1 |
    | b | 2.5 |
    """
    rows = [[_cell(c) for c in r] for r in rows]
    if header is None:
        if not rows:
            return ""
        header, rows = rows[0], rows[1:]
    width = max([len(header), *(len(r) for r in rows)])
    head = list(header) + [""] * (width - len(header))
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(r + [""] * (width - len(r))) + " |" for r in rows]
    return "\n".join(lines)


def _sheet(title: str, rows: list[list[Any]]) -> str:
    from openpyxl.utils import get_column_letter

    while rows and all(_cell(c) == "" for c in rows[-1]):
        rows.pop()
    width = max((len(r) for r in rows), default=0)
    while width and all(len(r) < width or _cell(r[width - 1]) == "" for r in rows):
        width -= 1
    body = [[str(i)] + [_cell(c) for c in r[:width]] for i, r in enumerate(rows, 1)]
    header = [""] + [get_column_letter(j) for j in range(1, width + 1)]
    return (f"## Sheet: {title} ({len(rows)} rows x {width} columns)\n"
            + (markdown_table(body, header) if rows and width else "(empty)"))


def _xlsx(data: bytes) -> str:
    import openpyxl

    wb = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    try:
        return "\n\n".join(_sheet(ws.title, [list(r) for r in ws.iter_rows(values_only=True)])
                           for ws in wb.worksheets)
    finally:
        wb.close()


def _xls(data: bytes) -> str:
    import xlrd

    book = xlrd.open_workbook(file_contents=data)
    out = []
    for sh in book.sheets():
        rows = []
        for i in range(sh.nrows):
            row = []
            for c in sh.row(i):
                if c.ctype == xlrd.XL_CELL_DATE:
                    row.append(xlrd.xldate_as_datetime(c.value, book.datemode))
                else:
                    row.append(c.value if c.value != "" else None)
            rows.append(row)
        out.append(_sheet(sh.name, rows))
    return "\n\n".join(out)


def _pdf(data: bytes) -> tuple[str, str]:
    import pypdf

    reader = pypdf.PdfReader(io.BytesIO(data))
    if reader.is_encrypted and not reader.decrypt(""):
        raise DocumentError("the PDF is encrypted with a password")
    title = ""
    try:
        title = str((reader.metadata or {}).get("/Title") or "")
    except Exception:  # broken metadata never stops the text
        title = ""
    pages = [f"## Page {i}\n{(p.extract_text() or '').strip()}" for i, p in
             enumerate(reader.pages, 1)]
    return title, "\n\n".join(pages)


def _docx(data: bytes) -> tuple[str, str]:
    import docx
    from docx.table import Table

    d = docx.Document(io.BytesIO(data))
    parts = []
    for block in d.iter_inner_content():
        if isinstance(block, Table):
            parts.append(markdown_table([[c.text for c in row.cells] for row in block.rows]))
            continue
        text = block.text.strip()
        if not text:
            continue
        style = (block.style.name if block.style is not None else "") or ""
        if style.startswith("Heading") and style[-1:].isdigit():
            text = "#" * int(style[-1]) + " " + text
        elif style == "Title":
            text = "# " + text
        parts.append(text)
    return d.core_properties.title or "", "\n\n".join(parts)


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


def _pptx(data: bytes) -> tuple[str, str]:
    import pptx

    pres = pptx.Presentation(io.BytesIO(data))
    slides = []
    for i, slide in enumerate(pres.slides, 1):
        parts = [f"## Slide {i}"]
        for shape in slide.shapes:
            parts += _shape_text(shape)
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame.text.strip():
            parts.append("Notes: " + slide.notes_slide.notes_text_frame.text.strip())
        slides.append("\n".join(parts))
    return pres.core_properties.title or "", "\n\n".join(slides)


def _zip_listing(name: str, data: bytes) -> str:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            infos = [i for i in z.infolist() if not i.is_dir()]
    except zipfile.BadZipFile as e:
        raise DocumentError(f"{name} is not a readable ZIP archive ({e})") from None
    rows = [[i.filename, i.file_size] for i in infos]
    return (f"ZIP archive with {len(infos)} files; read one with the path "
            f"'{name}/<member>':\n" + markdown_table(rows, ["member", "bytes"]))


def _decode(data: bytes) -> str:
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return data.decode("utf-16", "replace")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def convert(name: str, data: bytes) -> tuple[str, str]:
    """``(title, text)`` of a file's bytes, by the suffix of `name` (module docstring).

    >>> convert("t.csv", b"a,b\\n1,2\\n")
    ('t.csv', 'a,b\\n1,2\\n')

    Raises
    ------
    DocumentError
        An image or audio file, an unsupported binary format, or a damaged document.
    """
    suffix = Path(name).suffix.lower()
    if suffix in IMAGE_SUFFIXES:
        raise DocumentError(f"{name} is an image: read it with inspect_file_as_image")
    if suffix in AUDIO_SUFFIXES:
        raise DocumentError(f"{name} is audio: read it with inspect_file_as_audio")
    try:
        if suffix == ".pdf":
            title, text = _pdf(data)
            return title or name, text
        if suffix == ".docx":
            title, text = _docx(data)
            return title or name, text
        if suffix == ".pptx":
            title, text = _pptx(data)
            return title or name, text
        if suffix in (".xlsx", ".xlsm"):
            return name, _xlsx(data)
        if suffix == ".xls":
            return name, _xls(data)
        if suffix == ".zip":
            return name, _zip_listing(name, data)
        if suffix in (".html", ".htm"):
            title, text, _ = page_text(_decode(data))
            return title or name, text
        if suffix in (".json", ".jsonld"):
            text = _decode(data)
            try:
                return name, json.dumps(json.loads(text), indent=1, ensure_ascii=False)
            except json.JSONDecodeError:
                return name, text
    except DocumentError:
        raise
    except ImportError as e:
        raise DocumentError(f"reading {suffix} files needs the package {e.name}: "
                            "pip install 'hyperskill_lite[live]'") from None
    except Exception as e:  # a damaged document: one line, never a traceback
        raise DocumentError(f"{name} could not be read as {suffix[1:].upper()} "
                            f"({type(e).__name__}: {' '.join(str(e).split())[:160]})") from None
    if suffix in TEXT_SUFFIXES or (b"\x00" not in data[:4096]):
        return name, _decode(data)
    kinds = ", ".join(sorted(DOCUMENT_SUFFIXES | {".txt", ".csv", ".md"}))
    raise DocumentError(f"cannot read {suffix or 'extension-less'} files as text; "
                        f"supported: {kinds} and other text files")
