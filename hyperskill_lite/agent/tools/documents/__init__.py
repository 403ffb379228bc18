"""Documents as text, read within bounds: the conversions (formats.py and the readers it
dispatches to: office.py, sheets.py, archives.py), their caps and error (kinds.py), the
limited child process that runs them (worker.py) and the service that starts, times and
caches it (service.py).

Not here: which files may be read (files.py), pages over HTTP (pages.py).
"""

from hyperskill_lite.agent.tools.documents.formats import convert, decode_text, html_page
from hyperskill_lite.agent.tools.documents.kinds import (
    AUDIO_SUFFIXES,
    DOCUMENT_SUFFIXES,
    IMAGE_SUFFIXES,
    MIME_SUFFIX,
    TEXT_SUFFIXES,
    ZIP_SUFFIXES,
    Caps,
    DocumentError,
)
from hyperskill_lite.agent.tools.documents.service import Converter, shared_converter
from hyperskill_lite.agent.tools.documents.tables import markdown_table

__all__ = ["convert", "decode_text", "html_page", "Caps", "DocumentError", "Converter",
           "shared_converter", "markdown_table", "TEXT_SUFFIXES", "DOCUMENT_SUFFIXES",
           "IMAGE_SUFFIXES", "AUDIO_SUFFIXES", "MIME_SUFFIX", "ZIP_SUFFIXES"]
