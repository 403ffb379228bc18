"""The python tool's temporary folders (``hsl-py-*``): owned while in use, removed even
after kill -9 of the run that made them.

Every call of the python tool gets a fresh folder in the system's temporary folder. Its
owner holds an exclusive ``flock`` on the folder's ``.owner.lock`` for as long as the
folder is in use; the lock dies with the process, whatever kills it. `clean_leftovers`
(called once per process, before the first call) removes every ``hsl-py-*`` folder whose
lock it can take, that is whose owner is dead; a folder whose owner is alive is never
touched. A folder without a lock (a run killed in the microseconds between making the
folder and locking it, or one left by an older version) is removed once it is an hour
old.

>>> import tempfile
>>> root = Path(tempfile.mkdtemp())
>>> folder = WorkFolder(root)
>>> clean_leftovers(root), folder.path.is_dir()  # its owner (this process) is alive
(0, True)
>>> folder.release(remove=False)  # as if the owner had died
>>> clean_leftovers(root), folder.path.exists()
(1, False)

Not here: what runs in the folder (sandbox.py, sandbox_supervisor.py).
"""

from __future__ import annotations

import fcntl
import os
import secrets
import shutil
import tempfile
import time
from pathlib import Path

__all__ = ["WorkFolder", "clean_leftovers", "PREFIX", "LOCK"]

PREFIX = "hsl-py-"
LOCK = ".owner.lock"
UNLOCKED_GRACE = 3600.0
"""Seconds after which a folder without a lock is taken for a leftover."""


class WorkFolder:
    """A fresh ``hsl-py-*`` folder under `root` (default: the temporary folder), locked by
    this process until `release`."""

    def __init__(self, root: Path | str | None = None) -> None:
        self.path = Path(tempfile.mkdtemp(prefix=PREFIX, dir=root))
        tmp = self.path / f".lock-{secrets.token_hex(4)}"
        self._fd: int | None = os.open(tmp, os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
        fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.write(self._fd, f"{os.getpid()}\n".encode())
        os.rename(tmp, self.path / LOCK)  # a cleaner only ever sees a locked lock file

    def release(self, remove: bool = True) -> None:
        """Remove the folder (unless `remove` is False) and drop the lock."""
        if remove:
            shutil.rmtree(self.path, ignore_errors=True)
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> WorkFolder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _dead_owner(folder: Path) -> bool:
    """Take the folder's lock when its owner is gone (then remove it while holding it)."""
    lock = folder / LOCK
    try:
        fd = os.open(lock, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        try:
            return time.time() - folder.stat().st_mtime > UNLOCKED_GRACE
        except OSError:
            return False
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return False  # held: the owner is alive
    try:
        shutil.rmtree(folder, ignore_errors=True)
    finally:
        os.close(fd)
    return not folder.exists()


def clean_leftovers(root: Path | str | None = None) -> int:
    """Remove the ``hsl-py-*`` folders of dead owners under `root` (default: the
    temporary folder); how many were removed."""
    root = Path(root if root is not None else tempfile.gettempdir())
    removed = 0
    try:
        entries = list(root.iterdir())
    except OSError:
        return 0
    for p in entries:
        if p.name.startswith(PREFIX) and p.is_dir() and not p.is_symlink():
            if _dead_owner(p):
                if p.exists():
                    shutil.rmtree(p, ignore_errors=True)
                removed += not p.exists()
    return removed
