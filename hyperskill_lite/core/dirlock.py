"""An exclusive, process-level write lock on a directory, and directory fsync.

`directory_lock(path)` holds ``fcntl.flock`` on the sibling file ``<path>.lock`` for the
duration of a ``with`` block: the kernel drops the lock when its holder dies (SIGKILL
included), so a crash never leaves a directory locked. The file holds the holder's pid
(named in the error a second writer gets) and is removed on release; the inode locked
is checked against the named file, so a writer that raced a release retries on the new
file rather than locking a removed one. The lock is re-entrant in the thread holding it,
and refused to other threads of the same process.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp()) / "memory"
>>> with directory_lock(d) as lock:
...     with directory_lock(d):  # re-entrant in this thread
...         lock.read_text() == str(os.getpid())
True
>>> lock.exists()
False

Not here: what is written under the lock (io/), waiting for a lock (a second writer
is refused at once), locks across machines (flock over NFS is unreliable), and Windows
(no ``fcntl``: the block runs unlocked).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["directory_lock", "lock_path", "fsync_dir"]

_HELD: dict[str, list[Any]] = {}  # lock file -> [fd, depth, thread id], held by this process
_GUARD = threading.Lock()


def lock_path(path: str | Path) -> Path:
    """The lock file of directory `path`: its sibling ``<name>.lock``."""
    path = Path(path)
    return path.with_name(path.name + ".lock")


def fsync_dir(path: str | Path) -> None:
    """fsync directory `path`, so the names in it (new files, renames) are on disk."""
    if os.name == "posix":
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextmanager
def directory_lock(path: str | Path, error: type[Exception] = BlockingIOError) -> Iterator[Path]:
    """Hold the exclusive write lock of directory `path`; yields the lock file path.

    Raises `error` (a message naming `path` and the holder's pid) when another process,
    or another thread of this one, holds it. The directory itself need not exist; its
    parent is created.
    """
    path = Path(path).absolute()
    lock = lock_path(path)
    key, me = str(lock), threading.get_ident()
    # `_GUARD` covers the table only; the file is locked and released outside it, so
    # threads saving different directories (a threaded sweep's streams) never queue
    # behind one another's system calls. A thread's entry is in the table from before
    # its flock until after its unlock, so another thread asking meanwhile is refused
    # here and never races the file lock of its own process.
    with _GUARD:
        held = _HELD.get(key)
        if held is not None and held[2] != me:
            raise error(f"{path}: another thread of this process (pid {os.getpid()}) is saving it")
        first = held is None
        if first:
            held = _HELD[key] = [-1, 1, me]
        else:
            held[1] += 1
    if first:
        try:
            held[0] = _acquire(path, lock, error)
        except BaseException:
            with _GUARD:
                del _HELD[key]
            raise
    try:
        yield lock
    finally:
        with _GUARD:
            held[1] -= 1
            last = held[1] == 0
        if last:
            try:
                _release(lock, held[0])
            finally:
                with _GUARD:
                    del _HELD[key]


def _acquire(path: Path, lock: Path, error: type[Exception]) -> int:
    """Open and flock `lock` without waiting; the fd."""
    lock.parent.mkdir(parents=True, exist_ok=True)
    if fcntl is None:  # pragma: no cover
        return -1
    for _ in range(100):
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise error(
                f"{path}: locked by another process (pid {holder}) that is writing it; "
                f"wait for it to finish or use another directory (lock file {lock})"
            ) from None
        try:
            same = os.fstat(fd).st_ino == os.stat(lock).st_ino
        except FileNotFoundError:
            same = False
        if same:
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
            return fd
        os.close(fd)  # we locked a file its holder had just removed: open the new one
    raise error(f"{path}: the lock file {lock} keeps changing; try again")


def _release(lock: Path, fd: int) -> None:
    if fd < 0:  # pragma: no cover
        return
    try:
        lock.unlink(missing_ok=True)  # before unlocking, so no one can lock a removed file
    finally:
        os.close(fd)  # closing the last descriptor drops the flock
