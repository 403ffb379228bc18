"""Which files the agent may open, and where an attachment may point.

`FileAccess` resolves a path the agent names (symlinks followed) and reads it only when
it is one of the current task's attachments, or, in the "folder" scope, inside the
allowed root folder; a member of such a ZIP archive is read as ``archive.zip/member``
(from the archive, never extracted, at most `max_bytes`). Anything else is refused with
one line that names no other path: ``..``, an absolute path, ``~``, a symlink leading
out, ``/proc/self/environ``. A live run uses the "attachments" scope: the agent reads
the files its task names and nothing beside them (not the benchmark's metadata with its
answers, not a ``.env`` next to ``tasks.jsonl``).

`contained(base, name, boundary)` is the check the loaders make for every attachment a
data file names (bench/gaia.py, bench/loaders.py): relative to `base`, no ``..`` out of
it, not absolute, and, symlinks followed, inside `boundary`.

Converting the bytes to text: documents/ (`convert`, `DocumentError` and the suffix
tables).

Not here: answering a question about a file (toolbox.py), images and audio (media.py).
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterable
from pathlib import Path, PurePath

from hyperskill_lite.agent.tools.documents.kinds import (
    DocumentError,
)

__all__ = ["FileAccess", "contained",
           "OutsideFolder", "hf_boundary", "FILE_SCOPES", "ATTACHMENT_KEYS"]

FILE_SCOPES = ("attachments", "folder")
"""What the file tools may read: the task's attachments only, or anything in the root."""
ATTACHMENT_KEYS = ("file", "file_path", "attachment")
"""Fields of ``Task.meta`` that name a task's attached file."""


class OutsideFolder(PermissionError):
    """A path leads outside the folder it must stay in; one line saying how."""


def hf_boundary(folder: Path) -> Path:
    """The folder attachments under `folder` may point into: a Hugging Face cache entry
    (``datasets--ORG--NAME`` holding ``snapshots/`` and ``blobs/``, whose snapshot files
    are symlinks into ``blobs/``) when `folder` is inside one, else `folder` itself.

    >>> hf_boundary(Path("/d/datasets--g--GAIA/snapshots/abc/2023/validation")).name
    'datasets--g--GAIA'
    >>> hf_boundary(Path("/data/gaia")).name
    'gaia'
    """
    for p in (folder, *folder.parents):
        if p.name == "snapshots" and p.parent.name.startswith("datasets--"):
            return p.parent
    return folder


def contained(base: Path, name: str | PurePath, boundary: Path | None = None) -> Path:
    """`name` (a path relative to `base`) as an absolute path, symlinks followed, when it
    stays inside `boundary` (default `base`).

    >>> contained(Path("/data"), "../etc/passwd")
    Traceback (most recent call last):
    ...
    hyperskill_lite.agent.tools.files.OutsideFolder: '../etc/passwd' leads out of /data through '..'

    Raises
    ------
    OutsideFolder
        For an absolute path, a ``..`` that leaves `base`, or a symlink whose target is
        outside `boundary`.
    """
    text = str(name)
    rel = PurePath(text)
    if rel.is_absolute() or text.startswith("~"):
        raise OutsideFolder(f"{text!r} is an absolute path; attachments are named relative "
                            f"to {base}")
    depth = 0
    for part in rel.parts:
        depth += -1 if part == ".." else (0 if part in ("", ".") else 1)
        if depth < 0:
            raise OutsideFolder(f"{text!r} leads out of {base} through '..'")
    boundary = (boundary or base).resolve()
    target = (base / rel).resolve()
    if not target.is_relative_to(boundary):
        raise OutsideFolder(f"{text!r} is a symlink (or lies under one) that leads out of "
                            f"{boundary}")
    return target


class FileAccess:
    """Which files the agent may open (module docstring).

    Parameters
    ----------
    root
        Relative names are taken from here; in the "folder" scope, anything inside it may
        be read.
    attachments
        The current task's files (resolved paths; the loaders checked where they point).
    max_bytes
        Largest file or ZIP member read.
    scope
        "folder" (attachments and the root's files) or "attachments" (attachments only).
    """

    def __init__(self, root: str | Path | None = None, attachments: Iterable[Path] = (),
                 max_bytes: int = 25_000_000, scope: str = "folder") -> None:
        if scope not in FILE_SCOPES:
            raise ValueError(f"scope must be one of {', '.join(FILE_SCOPES)}, got {scope!r}")
        self.root = Path(root).resolve() if root is not None else None
        self.attachments: set[Path] = set(attachments)
        self.max_bytes = max_bytes
        self.scope = scope

    def _allowed(self, p: Path) -> bool:
        if p in self.attachments:
            return True
        return (self.scope == "folder" and self.root is not None
                and p.is_relative_to(self.root))

    def _path(self, name: str) -> Path:
        p = Path(name).expanduser()
        if not p.is_absolute():
            named = [a for a in self.attachments if a.name == p.name and len(p.parts) == 1]
            if named and (self.root is None or not (self.root / p).exists()):
                return named[0]  # a bare name the task's attachment has
            if self.root is not None:
                p = self.root / p
        try:
            return p.resolve()
        except (OSError, RuntimeError):  # a symlink loop
            raise OutsideFolder(f"{name} is outside the files this agent may read") from None

    def _refuse(self, name: str) -> OutsideFolder:
        what = "the files of this task" if self.scope == "attachments" else \
            "the folders this agent may read"
        return OutsideFolder(f"{name} is outside {what}")

    def read(self, name: str) -> tuple[str, bytes]:
        """``(file name, bytes)`` of an allowed file or ZIP member; the file name is the
        one the agent used (a Hugging Face cache's files are symlinks to hash names).

        Raises
        ------
        PermissionError, FileNotFoundError, DocumentError
            One line each: outside the allowed files, missing, too large.
        """
        p = self._path(name)
        shown = Path(name).name or p.name
        if p.is_file():
            if not self._allowed(p):
                raise self._refuse(name)
            size = p.stat().st_size
            if size > self.max_bytes:
                raise DocumentError(f"{name} is {size:,} bytes, over the limit of "
                                    f"{self.max_bytes:,} (max_file_bytes)")
            with p.open("rb") as f:
                return (shown if Path(shown).suffix else p.name), f.read(self.max_bytes)
        for parent in p.parents:  # archive.zip/member
            if parent.suffix.lower() == ".zip" and parent.is_file():
                if not self._allowed(parent):
                    raise self._refuse(name)
                return self._member(parent, p.relative_to(parent).as_posix(), name)
        if not self._allowed(p):
            raise self._refuse(name)
        raise FileNotFoundError(f"no such file: {name}")

    def _member(self, archive: Path, member: str, name: str) -> tuple[str, bytes]:
        try:
            with zipfile.ZipFile(archive) as z:
                info = z.getinfo(member)
                if info.file_size > self.max_bytes:
                    raise DocumentError(f"{name} is {info.file_size:,} bytes once inflated, "
                                        f"over the limit of {self.max_bytes:,} (max_file_bytes)")
                with z.open(info) as f:
                    return Path(member).name, f.read(self.max_bytes + 1)[: self.max_bytes]
        except KeyError:
            raise FileNotFoundError(f"no member {member!r} in {archive.name}") from None
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError) as e:
            raise DocumentError(f"{archive.name} is not a readable ZIP archive ({e})") from None
