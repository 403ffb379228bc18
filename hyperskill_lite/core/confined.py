"""Files read and written inside a folder, never through a link that leads out of it.

A run folder, a memory folder, a checkpoint or an export target may come from someone
else (a colleague's run, an archive, a shared drive), and a symbolic link inside it can
point anywhere: ``figures/summary.txt`` at the user's ``~/.bashrc``, ``run.json`` at a
credential file. Every command that reads or writes such a folder (``report``,
``inspect``, ``export-skills``, ``serve``, a resumed ``run``, ``restore``) goes through
these helpers, with the folder as the *root*:

- a link whose target stays inside the root is followed (a folder may link its own files);
- a link leading out of the root (or dangling towards the outside) is refused with
  `LinkOutside`, a `PermissionError` whose message names the link, where it leads and the
  folder: the command line prints it as its one ``error:`` line;
- where a listing meets such a link (`entries`: the run folders of a sweep, the
  checkpoints of a run) it is skipped with one warning instead.

Reads (`open_read`, `read_bytes`, `read_text`, `read_json`) check the path first, open it
without following a link in its last component, and then check what was really opened
(``/proc/self/fd`` on Linux), so a link swapped in between is caught too. Writes
(`write_bytes`, `write_text`) go to a fresh temporary file in the resolved folder, opened
relative to that folder's descriptor, and are renamed over the target: a rename replaces
a link, it never writes through one. `open_append` appends without following a link.
`check_tree` walks a whole folder (a memory, a checkpoint, a run folder) before it is
loaded or copied, and refuses the first link leading out.

What it does not cover: a folder someone changes while a command walks it (a component
above the last one swapped for a link between `check_tree` and a later read of a file
whose path was not opened through these helpers). The root itself is the user's choice:
a root given as a link is resolved once and used as the folder it names.

Standard library only (core/ imports nothing else of the package).

>>> import tempfile; root = Path(tempfile.mkdtemp())
>>> write_text(root, root / "figures" / "a.txt", "ok")
>>> read_text(root, root / "figures" / "a.txt")
'ok'
>>> os.symlink("/etc/hostname", root / "figures" / "b.txt")
>>> read_text(root, root / "figures" / "b.txt")
Traceback (most recent call last):
...
hyperskill_lite.core.confined.LinkOutside: .../figures/b.txt: a link to /etc/hostname, outside the folder ...; links leading out of it are not followed (replace the link by a copy of what it points to)
"""

from __future__ import annotations

import errno
import json
import logging
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

__all__ = ["LinkOutside", "TooLarge", "inside", "leads_out", "check_tree", "entries",
           "open_read", "read_bytes", "read_text", "read_json", "write_bytes", "write_text",
           "open_append", "make_dirs", "is_file", "is_dir"]

log = logging.getLogger("hyperskill_lite.confined")

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_PROC_FD = Path("/proc/self/fd")


class LinkOutside(PermissionError):
    """A symbolic link inside a folder leads out of it (the message names the link, its
    target and the folder)."""

    def __init__(self, link: Path | str, target: Path | str, root: Path | str,
                 what: str = "") -> None:
        self.link, self.target, self.root = Path(link), Path(target), Path(root)
        super().__init__(
            f"{link}: a link to {target}, outside the folder {root}{what}; links leading "
            "out of it are not followed (replace the link by a copy of what it points to)")


class TooLarge(ValueError):
    """A file bigger than the reader's bound (the message names it and the bound)."""


def _real(path: Path | str) -> Path:
    return Path(os.path.realpath(path))


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _first_link_out(root: Path, path: Path) -> tuple[Path, Path]:
    """(the first component of `path` that is a link leading out of `root`, its real
    target); (`path`, its real path) when no single link does (a ``..`` walk)."""
    root_real = _real(root)
    root_abs = Path(root).absolute()
    try:  # only the components below the root (the root's own path is the user's)
        parts, probe = path.relative_to(root_abs).parts, root_abs
    except ValueError:
        parts, probe = path.parts[1:], Path(path.anchor)
    for part in parts:
        probe = probe / part
        if os.path.islink(probe):
            target = _real(probe)
            if not _within(target, root_real):
                return probe, target
    return path, _real(path)


def inside(root: Path | str, path: Path | str) -> Path:
    """The real path of `path`, checked to lie inside `root`'s real path; `LinkOutside`
    naming the link otherwise. The path need not exist (a file about to be written).

    >>> import tempfile; r = Path(tempfile.mkdtemp()); inside(r, r / "a/b") == r.resolve() / "a/b"
    True
    """
    root = Path(root)
    path = Path(path).absolute()
    root_real = _real(root)
    real = _real(path)
    if not _within(real, root_real):
        link, target = _first_link_out(root, path)
        raise LinkOutside(link, target, root_real)
    return real


def leads_out(root: Path | str, path: Path | str) -> bool:
    """Whether `path` (inside `root` by name) resolves outside `root`."""
    try:
        inside(root, path)
    except LinkOutside:
        return True
    return False


def _opened_inside(fd: int, root_real: Path, path: Path) -> None:
    """Check, after opening, that descriptor `fd` is a file inside `root_real` (Linux:
    its /proc/self/fd link); closes it and raises `LinkOutside` otherwise."""
    try:
        opened = Path(os.readlink(_PROC_FD / str(fd)))
    except OSError:
        return  # no /proc here: the path check before opening stands alone
    if opened.is_absolute() and not _within(opened, root_real):
        os.close(fd)
        raise LinkOutside(path, opened, root_real, " (it changed while being opened)")


def open_read(root: Path | str, path: Path | str) -> IO[bytes]:
    """`path` opened for reading in binary, after checking that it lies inside `root`
    (module docstring). FileNotFoundError when it is missing, IsADirectoryError for a
    folder."""
    root_real = _real(root)
    real = inside(root, path)
    try:
        fd = os.open(real, os.O_RDONLY | _NOFOLLOW | _CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # the last component became a link after the check
            raise LinkOutside(path, _real(real), root_real,
                              " (it changed while being opened)") from None
        raise
    _opened_inside(fd, root_real, Path(path))
    if stat.S_ISDIR(os.fstat(fd).st_mode):
        os.close(fd)
        raise IsADirectoryError(f"{path}: is a folder, not a file")
    return os.fdopen(fd, "rb")


def read_bytes(root: Path | str, path: Path | str, limit: int | None = None) -> bytes:
    """The bytes of `path` inside `root`; `TooLarge` past `limit` bytes (None: no bound)."""
    with open_read(root, path) as f:
        if limit is None:
            return f.read()
        data = f.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(f"{path}: larger than {limit:,} bytes; not a file this command reads")
    return data


def read_text(root: Path | str, path: Path | str, limit: int | None = None) -> str:
    """`read_bytes` decoded as UTF-8 (UnicodeDecodeError for other bytes)."""
    return read_bytes(root, path, limit).decode("utf-8")


def read_json(root: Path | str, path: Path | str, limit: int | None = None) -> Any:
    """`read_bytes` parsed as JSON (ValueError for what is not JSON)."""
    return json.loads(read_bytes(root, path, limit))


def is_file(root: Path | str, path: Path | str) -> bool:
    """Whether `path` is a file inside `root` (a link leading out is not, wherever it
    points: a listing skips it)."""
    return not leads_out(root, path) and os.path.isfile(path)


def is_dir(root: Path | str, path: Path | str) -> bool:
    """Whether `path` is a folder inside `root` (a link leading out is not)."""
    return not leads_out(root, path) and os.path.isdir(path)


def make_dirs(root: Path | str, path: Path | str) -> Path:
    """Create the folder `path` inside `root` and its missing parents, each checked so
    that none is a link leading out; returns its real path."""
    root_real = _real(root)
    real = inside(root, path)
    missing = []
    p = real
    while not p.exists() and _within(p, root_real) and p != root_real:
        missing.append(p)
        p = p.parent
    for d in reversed(missing):
        try:
            d.mkdir()
        except FileExistsError:
            pass
        inside(root, d)  # made by someone else meanwhile: still inside?
    if not real.is_dir():
        raise NotADirectoryError(f"{path}: is not a folder")
    return real


def _dir_fd(root_real: Path, folder: Path, shown: Path) -> int:
    fd = os.open(folder, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC)
    _opened_inside(fd, root_real, shown)
    return fd


def write_bytes(root: Path | str, path: Path | str, data: bytes, *, durable: bool = True,
                mode: int = 0o644) -> None:
    """Write `data` to `path` inside `root`, atomically: a fresh temporary file in the
    same (resolved) folder, fsynced when `durable`, renamed over `path`. A link at `path`
    that stays inside is written through to its target; one leading out is refused; the
    folders are made as `make_dirs` makes them."""
    root_real = _real(root)
    real = inside(root, path)
    make_dirs(root, real.parent)
    fd = _dir_fd(root_real, real.parent, Path(path).parent)
    tmp = f".{real.name}.{secrets.token_hex(4)}.tmp"
    try:
        out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, mode,
                      dir_fd=fd)
        try:
            with os.fdopen(out, "wb") as f:
                f.write(data)
                if durable:
                    f.flush()
                    os.fsync(f.fileno())
            os.replace(tmp, real.name, src_dir_fd=fd, dst_dir_fd=fd)
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=fd)
            except OSError:
                pass
            raise
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)


def write_text(root: Path | str, path: Path | str, text: str, *, durable: bool = True) -> None:
    """`write_bytes` of `text` as UTF-8."""
    write_bytes(root, path, text.encode("utf-8"), durable=durable)


def open_append(root: Path | str, path: Path | str, *, binary: bool = False) -> IO[Any]:
    """`path` inside `root` opened for appending (created when missing), never through a
    link leading out; text files are UTF-8."""
    root_real = _real(root)
    real = inside(root, path)
    try:
        fd = os.open(real, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW | _CLOEXEC,
                     0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise LinkOutside(path, _real(real), root_real,
                              " (it changed while being opened)") from None
        raise
    _opened_inside(fd, root_real, Path(path))
    return os.fdopen(fd, "ab") if binary else os.fdopen(fd, "a", encoding="utf-8")


def _walk(root_real: Path, top: Path) -> Iterator[Path]:
    """Every entry below `top` (not following links), links included."""
    stack = [top]
    while stack:
        d = stack.pop()
        try:
            with os.scandir(d) as it:
                for e in it:
                    p = Path(e.path)
                    yield p
                    if e.is_dir(follow_symlinks=False):
                        stack.append(p)
        except (FileNotFoundError, NotADirectoryError):
            continue


def check_tree(root: Path | str, top: Path | str | None = None) -> None:
    """Refuse (`LinkOutside`, naming it) the first link below `top` (default: `root`
    itself) that leads out of `root`; `top` itself must be inside `root`. Links that stay
    inside are allowed. Missing `top`: nothing to check."""
    root_real = _real(root)
    top_path = Path(top) if top is not None else Path(root)
    top_real = inside(root, top_path)
    if not top_real.is_dir():
        return
    for p in _walk(root_real, top_real):
        if p.is_symlink():
            target = _real(p)
            if not _within(target, root_real):
                shown = top_path / p.relative_to(top_real)
                raise LinkOutside(shown, target, root_real)


def entries(root: Path | str, folder: Path | str, what: str = "") -> list[Path]:
    """The entries of `folder` (inside `root`), sorted by name, without those that are
    links leading out of `root`: each of those is skipped with one warning naming it
    (`what` says what the listing looks for). [] when the folder cannot be listed."""
    folder = Path(folder)
    try:
        inside(root, folder)
        names = sorted(os.listdir(folder))
    except (OSError, LinkOutside):
        return []
    out = []
    for name in names:
        p = folder / name
        if os.path.islink(p) and leads_out(root, p):
            log.warning("%s: a link to %s, outside %s; skipped%s", p, _real(p), _real(root),
                        f" (looking for {what})" if what else "")
            continue
        out.append(p)
    return out
