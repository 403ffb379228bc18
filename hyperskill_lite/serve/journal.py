"""The journal beside a served memory: an append-only file of what the memory learned
since its last checkpoint, shared by every server process on that memory.

``<DIR>.journal`` (a sibling of the memory folder ``DIR``, like its ``<DIR>.lock``) is
a text file of lines ``<xxh3-64 hex> <JSON>\\n``. The first line is the header::

    {"format": "hyperskill-serve-journal", "version": 1, "generation": "<hex>",
     "previous": "<the generation it replaced>", "base": "<xxh3-128 of DIR/manifest.json>",
     "sizes": {"hyperedges": 2, ...}, "learned_since_maintain": 4, "cycles": 1}

(``base`` names the checkpoint the records apply to, ``sizes`` its `stats()`,
``learned_since_maintain`` and ``cycles`` the maintenance schedule's counts carried over,
and ``previous`` lets a reader notice that it missed a whole generation); every later
line is one
record (``{"seq": 1, "op": "learn", ...}``, see shared.py). The checksum covers the JSON
bytes of its line, so a line torn by a crash (SIGKILL mid-write) is recognised and cut
off by the next writer; a bad line with good lines after it is corruption, named in a
`JournalError`.

Writers hold `JournalLock`: ``flock`` on the journal file, waited for (a process killed
while holding it releases it at once). A checkpoint starts a new journal by writing
``<DIR>.journal.tmp`` and renaming it over the old one, so the lock is taken on whatever
file the name points to and re-taken when a rename moved it meanwhile (the inode is
compared, as core/dirlock.py does). Readers take no lock: they read complete lines only.

Not here: what the records mean and how they are applied (shared.py), the memory's own
files and lock (core/io).
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import xxhash

from hyperskill_lite.core.dirlock import fsync_dir

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["JournalError", "JournalBusy", "journal_path", "encode_line", "decode_line",
           "read_lines", "new_header", "write_fresh", "append", "JournalLock", "FORMAT",
           "VERSION", "manifest_hash"]

FORMAT = "hyperskill-serve-journal"
VERSION = 1


class JournalError(ValueError):
    """A journal that cannot be read: foreign, newer, or corrupt (names file and line)."""


class JournalBusy(TimeoutError):
    """The journal's lock was not free within the wait allowed."""


def journal_path(memory_dir: str | Path) -> Path:
    """The journal of memory folder `memory_dir`: its sibling ``<name>.journal``.

    >>> journal_path("/data/skills").name
    'skills.journal'
    """
    p = Path(memory_dir)
    return p.with_name(p.name + ".journal")


def manifest_hash(memory_dir: Path) -> str:
    """XXH3-128 of the memory's manifest (which holds every file's checksum): names one
    saved state of the folder."""
    return xxhash.xxh3_128_hexdigest((memory_dir / "manifest.json").read_bytes())


def encode_line(obj: dict[str, Any]) -> bytes:
    """One journal line: checksum, space, compact ASCII JSON, newline.

    >>> encode_line({"seq": 1})
    b'd43428a58b1a3e09 {"seq":1}\\n'
    """
    body = json.dumps(obj, ensure_ascii=True, separators=(",", ":"), allow_nan=False).encode()
    return xxhash.xxh3_64_hexdigest(body).encode() + b" " + body + b"\n"


def decode_line(line: bytes) -> dict[str, Any] | None:
    """The record of one line (without its newline), or None when its checksum or JSON is
    bad (a torn or damaged line).

    >>> decode_line(encode_line({"seq": 2})[:-1])
    {'seq': 2}
    >>> decode_line(b"0000000000000000 {}") is None
    True
    """
    head, sep, body = line.partition(b" ")
    if not sep or xxhash.xxh3_64_hexdigest(body).encode() != head:
        return None
    try:
        obj = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
    return obj if isinstance(obj, dict) else None


def read_lines(fd: int, offset: int, path: Path) -> tuple[list[dict[str, Any]], int, bool]:
    """The complete records from byte `offset` of the open journal `fd` to its end:
    (records, offset after the last good one, torn). An incomplete last line is left for
    later (a writer may be in the middle of it); bad lines at the end set `torn` (a
    writer killed mid-line: the next writer cuts them off); a bad line followed by good
    ones raises `JournalError`."""
    size = os.fstat(fd).st_size
    if size <= offset:
        return [], offset, False
    data = os.pread(fd, size - offset, offset)
    out: list[dict[str, Any]] = []
    pos, good_end, bad_at = 0, offset, None
    while True:
        nl = data.find(b"\n", pos)
        if nl < 0:
            break
        rec = decode_line(data[pos:nl])
        if rec is None:
            if bad_at is None:
                bad_at = offset + pos
        elif bad_at is not None:
            raise JournalError(
                f"{path}: damaged line at byte {bad_at} before good ones (corrupt); move the "
                "journal away to serve the memory as of its last checkpoint")
        else:
            out.append(rec)
            good_end = offset + nl + 1
        pos = nl + 1
    return out, good_end, bad_at is not None


def new_header(base: str, sizes: dict[str, int], learned_since_maintain: int = 0,
               cycles: int = 0, previous: str | None = None) -> dict[str, Any]:
    """The header of a journal whose records apply to the checkpoint named `base` (whose
    `HypergraphMemory.stats` are `sizes`), replacing the journal `previous` (its
    generation; None for the first)."""
    return {"format": FORMAT, "version": VERSION, "generation": uuid.uuid4().hex,
            "previous": previous, "base": base, "sizes": dict(sizes),
            "learned_since_maintain": int(learned_since_maintain), "cycles": int(cycles)}


def check_header(rec: dict[str, Any] | None, path: Path) -> dict[str, Any]:
    """`rec` if it is a header this code reads, else `JournalError` naming the file."""
    if rec is None or rec.get("format") != FORMAT:
        raise JournalError(f"{path}: not a HyperSkill server journal (first line); move it "
                           "away or serve another folder")
    if rec.get("version") != VERSION:
        raise JournalError(f"{path}: journal version {rec.get('version')!r} is not {VERSION} "
                           "(written by another release)")
    return rec


def write_fresh(path: Path, header: dict[str, Any]) -> int:
    """Start a new journal at `path` holding only `header`: written to ``<path>.tmp``,
    locked, fsynced, renamed over `path`. Returns the new file's descriptor, locked (the
    caller keeps the lock until it releases the old one)."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, encode_line(header))
        os.fsync(fd)
        os.replace(tmp, path)
        fsync_dir(path.parent)
    except BaseException:
        os.close(fd)
        raise
    return fd


def append(fd: int, records: list[dict[str, Any]], good_end: int) -> int:
    """Append `records` at `good_end` (cutting off a torn tail first), fsynced; returns
    the new end offset. The caller holds the lock."""
    if os.fstat(fd).st_size != good_end:
        os.ftruncate(fd, good_end)
    data = b"".join(encode_line(r) for r in records)
    written = 0
    while written < len(data):
        written += os.pwrite(fd, data[written:], good_end + written)
    os.fsync(fd)
    return good_end + len(data)


class JournalLock:
    """The writers' lock on `path` (module docstring):
    ``with JournalLock(path, timeout) as lock:`` holds ``flock`` on the file the name
    points to (its descriptor is ``lock.fd``). Waits up to `timeout` seconds, then
    raises `JournalBusy`."""

    def __init__(self, path: Path, timeout: float = 60.0) -> None:
        self.path, self.timeout = path, timeout
        self.fd = -1

    def __enter__(self) -> JournalLock:
        deadline = time.monotonic() + self.timeout
        wait = 0.0005
        while True:
            fd = os.open(self.path, os.O_RDWR)
            if fcntl is None:  # pragma: no cover
                self.fd = fd
                return self
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                if time.monotonic() > deadline:
                    raise JournalBusy(f"{self.path}: another server process kept the journal "
                                      f"locked for {self.timeout:g} s") from None
                time.sleep(wait)
                wait = min(2 * wait, 0.02)
                continue
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                self.fd = fd
                return self
            os.close(fd)  # a checkpoint renamed a new journal in meanwhile: lock that one

    def __exit__(self, *exc: Any) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing drops the flock
            self.fd = -1

    def swap(self, fd: int) -> None:
        """After `write_fresh`: hold the new journal's descriptor (already locked) and
        release the old one."""
        old, self.fd = self.fd, fd
        if old >= 0:
            os.close(old)


@contextmanager
def opened(path: Path) -> Iterator[int]:
    """A read-only descriptor of the journal file, closed afterwards."""
    fd = os.open(path, os.O_RDONLY)
    try:
        yield fd
    finally:
        os.close(fd)
