"""File kinds by suffix and content type, the converter's error, and its caps.

`Caps` holds the limits a conversion honours (from `ToolSettings`: pages of a PDF,
rows and columns of a sheet, members of a ZIP listing, the inflated size of a ZIP-based
document, the characters of text kept); `DocumentError` is a file that cannot be read
as text, with one line saying why.

>>> Caps().max_sheet_rows, Caps.from_settings(type("S", (), {"max_sheet_rows": 5})()).max_sheet_rows
(10000, 5)

Not here: the converters (formats.py and the modules it dispatches to).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

__all__ = ["Caps", "DocumentError", "TEXT_SUFFIXES", "DOCUMENT_SUFFIXES", "IMAGE_SUFFIXES",
           "AUDIO_SUFFIXES", "MIME_SUFFIX", "ZIP_SUFFIXES"]

TEXT_SUFFIXES = {
    ".txt", ".md", ".csv", ".tsv", ".jsonl", ".xml", ".py", ".log", ".yaml", ".yml", ".pdb",
    ".ini", ".cfg", ".toml", ".tex", ".srt", ".vtt", ".sql", ".r", ".js", ".ts", ".c", ".h",
    ".cpp", ".java", ".sh", ".rst",
}
DOCUMENT_SUFFIXES = {".pdf", ".docx", ".pptx", ".xlsx", ".xlsm", ".xls", ".html", ".htm",
                     ".json", ".jsonld", ".zip"}
ZIP_SUFFIXES = {".docx", ".pptx", ".xlsx", ".xlsm", ".zip"}
"""Documents that are ZIP archives (their members' sizes are checked before parsing)."""
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


@dataclass(frozen=True)
class Caps:
    """What one conversion reads at most (the `ToolSettings` fields of the same names)."""

    max_inflated_bytes: int = 100_000_000
    max_text_chars: int = 2_000_000
    max_pdf_pages: int = 500
    max_sheet_rows: int = 10_000
    max_sheet_cols: int = 200
    max_zip_members: int = 1000

    @classmethod
    def from_settings(cls, settings: Any) -> Caps:
        """The caps of a `ToolSettings` (or any object with some of these attributes)."""
        return cls(**{f.name: getattr(settings, f.name) for f in fields(cls)
                      if hasattr(settings, f.name)})

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Caps:
        return cls(**{f.name: int(d[f.name]) for f in fields(cls) if f.name in d})

    def to_dict(self) -> dict[str, int]:
        return asdict(self)
