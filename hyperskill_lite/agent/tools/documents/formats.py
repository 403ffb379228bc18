"""A file's bytes as ``(title, text)``, by its suffix, within `Caps`: the conversion
itself, as it runs inside the converter's child process (service.py, worker.py).

- PDF, DOCX, PPTX (office.py); XLSX and XLS as one table per sheet (sheets.py); ZIP as a
  listing of members (archives.py); DOCX, PPTX and XLSX are size-checked as archives
  first (`archives.check_zip`);
- HTML through html.py (the main content, then links); JSON and JSON-LD pretty-printed;
  CSV, TSV and other text as is;
- images and audio get an error naming the tool that reads them.

Text past ``caps.max_text_chars`` is cut, with a line saying so. The anchor harness
converts files with a Markdown converter (MarkItDown-like: pdfminer, mammoth, pandas);
these maintained libraries read the same formats for about a ninth of the install
(measured: 17 MB against 152 MB, most of it onnxruntime and magika). Differs from the
anchor: spreadsheet cell colours are not shown; PDB files are read as text (no
Biopython distance summary).

>>> convert("t.csv", b"a,b\\n1,2\\n")
('t.csv', 'a,b\\n1,2\\n')

Not here: the child process and its limits (worker.py, service.py), which files may be
read (files.py).
"""

from __future__ import annotations

import json
from pathlib import Path

from hyperskill_lite.agent.tools.documents.archives import check_zip, zip_listing
from hyperskill_lite.agent.tools.documents.kinds import (
    AUDIO_SUFFIXES,
    DOCUMENT_SUFFIXES,
    IMAGE_SUFFIXES,
    TEXT_SUFFIXES,
    ZIP_SUFFIXES,
    Caps,
    DocumentError,
)
from hyperskill_lite.agent.tools.documents.office import docx_text, pdf_text, pptx_text
from hyperskill_lite.agent.tools.documents.sheets import xls_text, xlsx_text
from hyperskill_lite.agent.tools.html import page_text

__all__ = ["convert", "html_page", "decode_text", "cut"]


def decode_text(data: bytes) -> str:
    """Bytes as text: UTF-16 by its byte-order mark, else UTF-8, else Latin-1."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return data.decode("utf-16", "replace")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def cut(text: str, caps: Caps) -> str:
    """`text` cut at ``caps.max_text_chars`` characters, saying so.

    >>> cut("abcdef", Caps(max_text_chars=3))
    'abc\\n\\n(the text was cut at 3 characters: max_text_chars)'
    """
    if len(text) <= caps.max_text_chars:
        return text
    return (text[: caps.max_text_chars]
            + f"\n\n(the text was cut at {caps.max_text_chars:,} characters: max_text_chars)")


def html_page(html: str, url: str, caps: Caps) -> tuple[str, str, str]:
    """``(title, text, extractor)`` of an HTML page (html.py `page_text`), cut."""
    title, text, how = page_text(html, url)
    return title, cut(text, caps), how


def _convert(name: str, suffix: str, data: bytes, caps: Caps) -> tuple[str, str] | None:
    if suffix in ZIP_SUFFIXES - {".zip"}:
        check_zip(name, data, caps)
    if suffix == ".pdf":
        return pdf_text(data, caps)
    if suffix == ".docx":
        return docx_text(data, caps)
    if suffix == ".pptx":
        return pptx_text(data, caps)
    if suffix in (".xlsx", ".xlsm"):
        return "", xlsx_text(data, caps)
    if suffix == ".xls":
        return "", xls_text(data, caps)
    if suffix == ".zip":
        return "", zip_listing(name, data, caps)
    if suffix in (".html", ".htm"):
        title, text, _ = page_text(decode_text(data))
        return title, text
    if suffix in (".json", ".jsonld"):
        text = decode_text(data)
        try:
            return "", json.dumps(json.loads(text), indent=1, ensure_ascii=False)
        except json.JSONDecodeError:
            return "", text
    return None


def convert(name: str, data: bytes, caps: Caps | None = None) -> tuple[str, str]:
    """``(title, text)`` of a file's bytes, by the suffix of `name` (module docstring),
    in this process: the toolbox runs it in the converter's child process
    (service.py `Converter`), with memory, CPU and time limits.

    Raises
    ------
    DocumentError
        An image or audio file, an unsupported binary format, a damaged document, or
        one over a cap checked before parsing.
    """
    caps = caps or Caps()
    suffix = Path(name).suffix.lower()
    if suffix in IMAGE_SUFFIXES:
        raise DocumentError(f"{name} is an image: read it with inspect_file_as_image")
    if suffix in AUDIO_SUFFIXES:
        raise DocumentError(f"{name} is audio: read it with inspect_file_as_audio")
    try:
        got = _convert(name, suffix, data, caps)
    except DocumentError:
        raise
    except ImportError as e:
        raise DocumentError(f"reading {suffix} files needs the package {e.name}: "
                            "pip install 'hyperskill_lite[live]'") from None
    except MemoryError:
        raise  # the worker names the memory limit
    except Exception as e:  # a damaged document: one line, never a traceback
        raise DocumentError(f"{name} could not be read as {suffix[1:].upper()} "
                            f"({type(e).__name__}: {' '.join(str(e).split())[:160]})") from None
    if got is not None:
        title, text = got
        return title or name, cut(text, caps)
    if suffix in TEXT_SUFFIXES or (b"\x00" not in data[:4096]):
        return name, cut(decode_text(data), caps)
    kinds = ", ".join(sorted(DOCUMENT_SUFFIXES | {".txt", ".csv", ".md"}))
    raise DocumentError(f"cannot read {suffix or 'extension-less'} files as text; "
                        f"supported: {kinds} and other text files")
