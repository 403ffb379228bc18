"""Writing a memory: every file into a sibling `.tmp` folder (fsynced, the manifest
last), then swapped in by renames under the directory's write lock, so a process
killed at any instant leaves the previous or the new complete memory.

Not here: reading (read.py).
"""

from __future__ import annotations

import json
import os
import shutil
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import numpy as np

from hyperskill_lite.core.dirlock import directory_lock, fsync_dir
from hyperskill_lite.core.io.checksums import ChecksumWriter, file_checksum
from hyperskill_lite.core.io.layout import (
    MANIFEST,
    TEXT,
    MemoryLockedError,
)
from hyperskill_lite.core.io.read import _complete, _siblings
from hyperskill_lite.core.io.state import to_state
from hyperskill_lite.core.memory import HypergraphMemory


def _write(path: Path, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _write_array(path: Path, arr: np.ndarray) -> dict[str, Any]:
    """Write `arr` as a ``.npy`` file, fsynced; its manifest entry (size, checksum),
    hashed as it is written (reading the file back cost a memmap, a realpath and their
    system calls per array: the bulk of a save's time when 32 streams share the GIL)."""
    with open(path, "wb") as f:
        out = ChecksumWriter(f)
        np.save(out, np.ascontiguousarray(arr), allow_pickle=False)
        f.flush()
        os.fsync(f.fileno())
    return {"bytes": out.bytes, "checksum": out.checksum}


def _text_bytes(text: dict[str, Any]) -> bytes:
    try:
        s = json.dumps(text, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{TEXT}: a meta value is not JSON-serialisable ({exc})") from exc
    # a lone surrogate (e.g. from a "\ud800" escape in a model reply) becomes the JSON
    # escape "\ud800" again, so the text round-trips exactly and the file stays UTF-8
    return s.encode("utf-8", "backslashreplace")



def _crash_point(where: str) -> None:
    """Fault injection for the crash tests: with HYPERSKILL_CRASH_AT="<where>:<k>" the
    k-th `save_memory` of this process (from 0) SIGKILLs itself at `where`
    ("memory_save_files": the new copy written, nothing swapped; "memory_save_swap":
    between the two renames)."""
    spec = os.environ.get("HYPERSKILL_CRASH_AT")
    if spec and spec == f"{where}:{_SAVES[0] - 1}":
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


_SAVES = [0]  # saves started by this process, for `_crash_point`


def memory_lock(path: str | Path) -> AbstractContextManager[Path]:
    """The write lock `save_memory` holds on memory directory `path`, for a ``with``
    block that spans several steps (`save_memory` inside it does not wait for itself):
    ``fcntl.flock`` on ``<path>.lock`` (dirlock.py). Raises `MemoryLockedError`, naming
    the directory and the holder's pid, when another process or thread holds it."""
    return directory_lock(path, MemoryLockedError)



def _recover(path: Path) -> None:
    """After a crash between the renames of an earlier save (`path` missing), move the
    newest complete copy (`.tmp`, else `.old`) back to `path`."""
    if path.exists():
        return
    for candidate in _siblings(path):
        if candidate.is_dir() and _complete(candidate):
            os.replace(candidate, path)
            fsync_dir(path.parent)
            return


def save_memory(memory: HypergraphMemory, path: str | Path, dtype: str = "float32") -> None:
    """Write `memory` to directory `path`, atomically and under the write lock (see the
    module docstring). ``dtype="float16"`` stores the embeddings in half the space; they
    load back as float32 (re-normalised), and retrieval agrees with float32 on nearly
    every query (measured by ``make bench``).

    Raises
    ------
    MemoryLockedError
        Another process is saving to `path` at this moment.
    FileExistsError
        `path` is a non-empty directory (or a file) that is not a saved memory.
    """
    path = Path(path)
    _SAVES[0] += 1
    with memory_lock(path):
        _save_locked(memory, path, dtype)


def _save_locked(memory: HypergraphMemory, path: Path, dtype: str) -> None:
    tmp, old = _siblings(path)
    _recover(path)
    if path.exists() and not (
        path.is_dir() and ((path / MANIFEST).is_file() or not any(path.iterdir()))
    ):
        raise FileExistsError(f"{path}: exists and is not a saved memory; refusing to replace it")
    state = to_state(memory, dtype)
    text = _text_bytes(state["text"])
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    files: dict[str, dict[str, Any]] = {}
    for name, arr in state["arrays"].items():
        files[name] = _write_array(tmp / name, arr)
    _write(tmp / TEXT, text)
    files[TEXT] = {"bytes": len(text), "checksum": file_checksum(text)}
    manifest = state["manifest"] | {"files": files}
    _write(tmp / MANIFEST, json.dumps(manifest, indent=1).encode())  # last: marks completeness
    fsync_dir(tmp)
    fsync_dir(path.parent)
    _crash_point("memory_save_files")
    if path.exists():
        if old.exists():
            shutil.rmtree(old)
        os.replace(path, old)
        fsync_dir(path.parent)
        _crash_point("memory_save_swap")
    os.replace(tmp, path)
    fsync_dir(path.parent)
    if old.exists():
        shutil.rmtree(old)
