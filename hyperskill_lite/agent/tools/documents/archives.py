"""ZIP archives read within bounds: members' inflated sizes checked before anything is
parsed, and a listing of at most `Caps.max_zip_members` members.

DOCX, PPTX and XLSX files are ZIP archives too: `check_zip` refuses one whose members
declare more than `Caps.max_inflated_bytes` inflated bytes in total (a 600 MB
``document.xml`` compressed to a few hundred kilobytes is refused in milliseconds, never
inflated). The declared size is also what a member can inflate to: Python's `zipfile`
stops a member at its declared size and fails its checksum when the data is longer, so
a member that lies about its size cannot inflate past the check either.

>>> import io, zipfile
>>> buf = io.BytesIO()
>>> with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
...     z.writestr("big.xml", b"0" * 5000)
>>> check_zip("a.docx", buf.getvalue(), Caps(max_inflated_bytes=1000))
Traceback (most recent call last):
...
hyperskill_lite.agent.tools.documents.kinds.DocumentError: a.docx declares 5,000 inflated bytes (big.xml: 5,000), over the limit of 1,000 (max_inflated_bytes): refused before reading

Not here: reading one member for the agent (files.py `FileAccess`).
"""

from __future__ import annotations

import io
import zipfile

from hyperskill_lite.agent.tools.documents.kinds import Caps, DocumentError
from hyperskill_lite.agent.tools.documents.tables import markdown_table

__all__ = ["check_zip", "zip_listing"]


def _infos(name: str, data: bytes) -> list[zipfile.ZipInfo]:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            return z.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as e:
        raise DocumentError(f"{name} is not a readable ZIP archive ({e})") from None


def check_zip(name: str, data: bytes, caps: Caps) -> list[zipfile.ZipInfo]:
    """The members of the archive `data`, after checking that their declared inflated
    sizes stay under ``caps.max_inflated_bytes`` in total.

    Raises
    ------
    DocumentError
        Not a ZIP archive, or too large once inflated (one line naming the largest member).
    """
    infos = _infos(name, data)
    total = sum(i.file_size for i in infos)
    if total > caps.max_inflated_bytes:
        big = max(infos, key=lambda i: i.file_size)
        raise DocumentError(
            f"{name} declares {total:,} inflated bytes ({big.filename[:80]}: "
            f"{big.file_size:,}), over the limit of {caps.max_inflated_bytes:,} "
            "(max_inflated_bytes): refused before reading")
    return infos


def zip_listing(name: str, data: bytes, caps: Caps) -> str:
    """A listing of an archive's files (at most ``caps.max_zip_members``) and how to
    read one (``archive.zip/member``); only the central directory is read."""
    infos = [i for i in _infos(name, data) if not i.is_dir()]
    shown = infos[: caps.max_zip_members]
    rows = [[i.filename, i.file_size] for i in shown]
    more = len(infos) - len(shown)
    tail = (f"\n({more:,} more members not listed: max_zip_members is "
            f"{caps.max_zip_members:,})" if more > 0 else "")
    return (f"ZIP archive with {len(infos)} files; read one with the path "
            f"'{name}/<member>':\n" + markdown_table(rows, ["member", "bytes"]) + tail)
