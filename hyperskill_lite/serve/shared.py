"""One memory folder shared by many clients and many server processes: `SharedMemory`.

The design (docs/guide/mcp.md, "Many clients, one memory"):

- The folder ``DIR`` is a saved memory (core/io), the *checkpoint*. Beside it,
  ``DIR.journal`` (journal.py) holds every update since that checkpoint, one line per
  update: a ``learn`` record (task, plan P_0, the extracted skills and lesson, outcome,
  steps, the ids the client used, and the embeddings of its texts), a ``maintain``
  record (the nodes pruned and the pairs merged by one cycle, with the merged skills) or
  a ``forget`` record (the skills and trajectories a client took back, forget.py; a
  checkpoint follows at once so their texts leave the folder and the journal).
- A process holds the memory in RAM = checkpoint + the journal's records applied in
  journal order. Applying a record is deterministic (the embeddings travel in the
  record, so no text is embedded twice and every process builds the same ids), so every
  process that has read the journal to the same line holds the same memory.
- ``learn``: the model calls run first, with no lock held; then, under the writers'
  lock (``flock`` on the journal, waited for), the process reads the records other
  processes appended, appends its own (fsynced before the call returns) and applies it.
  Every learn is exactly one record, hence one hyperedge; a process killed at any
  instant loses at most the call it was serving (a torn last line is cut off by the
  next writer).
- Reads (``recall``, ``explain``, ...) take no file lock and never wait on a model call:
  they read the records appended since their last look (complete lines only) and then
  the memory under a short in-process lock that only the apply of one record (ms) holds.
- A *checkpoint* (every `checkpoint_every` records, after each maintenance cycle, and at
  shutdown) saves a snapshot with the crash-safe `save_memory` and starts a new journal
  whose header names the saved state (``base``); a crash between the two leaves a
  journal whose records the folder already holds: on opening, learn records already
  present (their ``learn_id`` in a hyperedge's meta) are skipped, and so are maintain
  records.
- Maintenance is planned on a snapshot (its model calls need no lock) and committed as
  one record; a plan made while another process committed a cycle is dropped.

Not here: the file format (journal.py), the records and how one is applied
(records.py), model calls (models.py), the tools (service.py).
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hyperskill_lite.core.config import HyperSkillConfig
from hyperskill_lite.core.confined import check_tree
from hyperskill_lite.core.embed import Encoder, default_encoder
from hyperskill_lite.core.io.layout import MANIFEST, MemoryLockedError
from hyperskill_lite.core.io.read import load_memory
from hyperskill_lite.core.io.state import from_state, to_state
from hyperskill_lite.core.io.write import memory_lock, save_memory
from hyperskill_lite.core.memory import HypergraphMemory
from hyperskill_lite.serve import journal as jr
from hyperskill_lite.serve.records import (
    LEARN_ID,
    OPS,
    LearnItem,
    MergeItem,
    RecordError,
    apply_forget,
    apply_learn,
    apply_maintain,
    forget_record,
    learn_record,
    maintain_record,
)

__all__ = ["SharedMemory", "HISTORY"]

log = logging.getLogger(__name__)

HISTORY = 50_000
"""Learn records whose health figures a process keeps (the newest)."""


def _same_encoder(path: Path, memory: HypergraphMemory, given: Encoder | None) -> None:
    """Refuse an encoder other than the one the memory was built with: its vectors would
    not be comparable with the stored ones (load_memory only checks the dimension)."""
    if given is None:
        return
    try:
        recorded = json.loads((path / MANIFEST).read_bytes())["encoder"].get("name", "")
    except (OSError, ValueError, KeyError):
        return  # load_memory read a sibling copy after a crash; it checked the dimension
    if recorded and getattr(given, "name", recorded) != recorded:
        raise ValueError(f"{path}: the memory was built with the encoder {recorded!r}, not "
                         f"{given.name!r}; leave --encoder out for an existing memory")


def _is_run_state(path: Path) -> bool:
    """A run folder's saved state (``OUT/state/memory``): the runner owns it."""
    return path.name == "memory" and (path.parent / "progress.json").exists()


class SharedMemory:
    """A memory folder served to many clients (module docstring).

    Parameters
    ----------
    path
        The memory folder. A missing or empty folder starts an empty memory (with
        `encoder` and `config`); an existing one keeps its recorded encoder and config.
    encoder, config
        For a new memory (None: `default_encoder()`, the paper's defaults); for an
        existing one `encoder` must match its recorded dimension.
    checkpoint_every
        Records after which a learn also writes a checkpoint (0: only after maintenance
        and at `close`).
    lock_timeout
        Seconds a writer waits for the journal's lock before `JournalBusy`.
    readonly
        Read the folder and its journal, write nothing, take no lock (export-skills).
    """

    def __init__(self, path: str | Path, encoder: Encoder | None = None,
                 config: HyperSkillConfig | None = None, *, checkpoint_every: int = 100,
                 lock_timeout: float = 60.0, readonly: bool = False) -> None:
        self.path = Path(path).absolute()
        self.journal = jr.journal_path(self.path)
        self.checkpoint_every = int(checkpoint_every)
        self.lock_timeout = float(lock_timeout)
        self.readonly = readonly
        self._write = threading.Lock()  # this process's writers, one at a time
        self._sync = threading.RLock()  # the read position in the journal
        self._mem = threading.Lock()  # the memory object: applies and reads
        self._fd, self._ino, self._offset = -1, -1, 0
        self._header: dict[str, Any] = {}
        self._seq = 0  # records of this journal generation applied
        self.since_maintain = 0
        """Learn records since the last maintenance cycle (the schedule's count)."""
        self.cycles = 0
        """Maintenance cycles committed to this memory since the journal began."""
        self._learned = 0
        self.history: list[dict[str, Any]] = []
        """One run-record-like dict per learn record applied by this process, the last
        `HISTORY` of them (the health resource reads them with runner/health.py)."""
        self.memory: HypergraphMemory
        self._closed = False
        check_tree(self.path)  # issue 46: no file of the folder is a link leading out of it,
        for sibling in (self.journal, self.path.with_name(self.path.name + ".lock")):
            if sibling.is_symlink():  # nor are its journal and lock links to elsewhere
                raise PermissionError(f"{sibling}: a link to {os.path.realpath(sibling)}; "
                                      "a memory's journal and lock are not followed through "
                                      "a link (replace it by the file)")
        if _is_run_state(self.path) and not readonly:
            raise ValueError(f"{self.path}: is a run folder's saved state (the runner owns "
                             "it); copy it (cp -r) and serve the copy")
        if readonly:
            self._open_readonly(encoder, config)
        else:
            self._bootstrap(encoder, config)
            with self._writer() as lock:
                self._load(lock, encoder)

    # ------------------------------------------------------------------ opening
    def _bootstrap(self, encoder: Encoder | None, config: HyperSkillConfig | None) -> None:
        """Create the memory (when missing or empty) and its journal, once, under the
        memory's own lock (two servers starting together: the second finds them made)."""
        if self.journal.exists():
            if not (self.path / MANIFEST).is_file() and not self.path.with_name(
                    self.path.name + ".tmp").exists() and not self.path.with_name(
                    self.path.name + ".old").exists():
                raise FileNotFoundError(
                    f"{self.path}: missing, but its journal {self.journal} exists; restore "
                    "the folder, or move the journal away to start an empty memory")
            return
        deadline = time.monotonic() + self.lock_timeout
        while True:
            try:
                with memory_lock(self.path):
                    if self.journal.exists():
                        return
                    if not (self.path / MANIFEST).is_file():
                        enc = encoder if encoder is not None else default_encoder()
                        save_memory(HypergraphMemory(enc, config or HyperSkillConfig()), self.path)
                        log.info("new memory at %s (encoder %s)", self.path, enc.name)
                    mem = load_memory(self.path, encoder=encoder)
                    fd = jr.write_fresh(self.journal, jr.new_header(
                        jr.manifest_hash(self.path), mem.stats()))
                    os.close(fd)
                    return
            except MemoryLockedError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def _load(self, lock: jr.JournalLock, encoder: Encoder | None) -> None:
        """Read the checkpoint and apply the journal (holding the writers' lock)."""
        if not (self.path / MANIFEST).is_file():  # a save killed between its two renames:
            save_memory(load_memory(self.path, encoder=encoder), self.path)  # put it back
        self.memory = load_memory(self.path, encoder=encoder)
        _same_encoder(self.path, self.memory, encoder)
        self._fd = os.open(self.journal, os.O_RDONLY)
        self._ino = os.fstat(self._fd).st_ino
        header, records, torn = self._read_all(self._fd)
        base_ok = header["base"] == jr.manifest_hash(self.path)
        self._adopt_header(header)
        for rec in records:
            if base_ok:
                self._apply(rec)
            else:
                self._reconcile(rec)
        if torn:
            log.warning("%s: a torn last record (a server killed mid-write) was cut off",
                        self.journal)
            os.ftruncate(lock.fd, self._offset)
        if not base_ok:
            log.warning("%s: the folder was saved after this journal began (a checkpoint "
                        "interrupted); applied only the learn records it lacks", self.journal)
            self._checkpoint(lock)

    def _open_readonly(self, encoder: Encoder | None, config: HyperSkillConfig | None) -> None:
        for _ in range(5):  # a checkpoint may swap the folder and journal under us: retry
            self.memory = load_memory(self.path, encoder=encoder, config=config)
            if not self.journal.exists():
                return
            fd = os.open(self.journal, os.O_RDONLY)
            try:
                header, records, _torn = self._read_all(fd)
            finally:
                os.close(fd)
            try:
                same = header["base"] == jr.manifest_hash(self.path)
            except FileNotFoundError:  # a save between its renames: load took a sibling
                same = False
            if same:
                self._adopt_header(header)
                for rec in records:
                    self._apply(rec)
                return
            time.sleep(0.05)
        self._adopt_header(header)
        for rec in records:
            self._reconcile(rec)

    def _read_all(self, fd: int) -> tuple[dict[str, Any], list[dict[str, Any]], bool]:
        records, end, torn = jr.read_lines(fd, 0, self.journal)
        header = jr.check_header(records[0] if records else None, self.journal)
        self._offset = end
        return header, records[1:], torn

    def _adopt_header(self, header: dict[str, Any]) -> None:
        self._header, self._seq = header, 0
        self.since_maintain = int(header.get("learned_since_maintain", 0))
        self.cycles = int(header.get("cycles", 0))

    def _reconcile(self, rec: dict[str, Any]) -> None:
        """Apply `rec` to a folder that may already hold it (module docstring)."""
        if rec.get("op") == "forget" or (
                rec.get("op") == "learn" and not self.memory.edge_ids_where(LEARN_ID, rec["id"])):
            self._apply(rec)  # a forget is idempotent: ids already gone are skipped
        else:
            self._seq = int(rec.get("seq", self._seq))

    # ------------------------------------------------------------------ applying
    def _apply(self, rec: dict[str, Any]) -> dict[str, Any]:
        op = rec.get("op")
        if op not in OPS:
            raise RecordError(f"{self.journal}: record {rec.get('seq')} has operation {op!r}, "
                              "unknown to this release")
        with self._mem:
            if op == "forget":
                self.memory, out = apply_forget(self.memory, rec)
            else:
                out = (apply_learn if op == "learn" else apply_maintain)(self.memory, rec)
        if op == "learn":
            self.since_maintain += 1
            self._remember({"index": self._learned, **{k: out[k] for k in (
                "update", "sizes", "injected", "success")}})
        elif op == "maintain":
            self.since_maintain, self.cycles = 0, self.cycles + 1
            self._remember_cycle(len(out["pruned"]), len(out["merged"]), out["sizes_after"])
        self._seq = int(rec["seq"])
        return out

    def _remember(self, row: dict[str, Any]) -> None:
        self._learned += 1
        self.history.append(row)
        if len(self.history) > HISTORY:
            del self.history[: len(self.history) - HISTORY]

    def _remember_cycle(self, pruned: int, merged: int, sizes: dict[str, int]) -> None:
        """A cycle is recorded on the learn it followed, as the runner records it."""
        if not self.history:
            self._remember({"index": 0, "sizes": sizes, "injected": 0})
        last = self.history[-1].setdefault("maintenance", {"pruned": 0, "merged": 0})
        last["pruned"] += pruned
        last["merged"] += merged

    # ------------------------------------------------------------------ reading
    def sync(self) -> int:
        """Apply the records other processes appended since the last look (no file lock;
        complete lines only). Returns how many were applied."""
        if self.readonly:
            return 0
        with self._sync:
            n, diverged = self._catch_up()
        if diverged:
            self.reload()
        return n

    def _catch_up(self) -> tuple[int, bool]:
        """With `_sync` held: follow a new journal generation, then apply new records.
        Returns (applied, diverged): diverged when this process's memory does not match
        the checkpoint another process wrote (then `reload`)."""
        n = 0
        try:
            ino = os.stat(self.journal).st_ino
        except FileNotFoundError:
            raise FileNotFoundError(f"{self.journal}: removed while serving; restart the "
                                    "server") from None
        if ino != self._ino:
            records, _end, _torn = jr.read_lines(self._fd, self._offset, self.journal)
            for rec in records:  # the old generation's last records, then its successor
                self._apply(rec)
                n += 1
            fd = os.open(self.journal, os.O_RDONLY)
            header, new_records, _torn = self._read_all(fd)
            os.close(self._fd)
            self._fd, self._ino = fd, os.fstat(fd).st_ino
            with self._mem:
                sizes = self.memory.stats()
            if header.get("previous") != self._header.get("generation"):
                log.info("%s: two checkpoints since this process last read the journal; "
                         "reloading the folder", self.path)
                return n, True
            if header.get("sizes") != sizes:
                log.warning("%s: this process's memory differs from the checkpoint another "
                            "process wrote; reloading the folder", self.path)
                return n, True
            self._adopt_header(header)
            for rec in new_records:
                self._apply(rec)
                n += 1
            return n, False
        records, end, _torn = jr.read_lines(self._fd, self._offset, self.journal)
        for rec in records:
            self._apply(rec)
            n += 1
        self._offset = end
        return n, False

    def reload(self) -> None:
        """Read the checkpoint and the journal afresh (this process's memory was found
        to differ from a checkpoint another process wrote)."""
        with self._writer() as lock, self._sync:
            os.close(self._fd)
            self._load(lock, self.memory.encoder)

    @contextmanager
    def read(self) -> Iterator[HypergraphMemory]:
        """The memory, current with the journal, for reading only (holds the short
        in-process lock: do not call a model inside)."""
        self.sync()
        with self._mem:
            yield self.memory

    # ------------------------------------------------------------------ writing
    @contextmanager
    def _writer(self) -> Iterator[jr.JournalLock]:
        """This process's writer slot, then the journal's lock (the writers' lock)."""
        if self.readonly:
            raise PermissionError(f"{self.path}: opened read-only")
        with self._write, jr.JournalLock(self.journal, self.lock_timeout) as lock:
            yield lock

    def _catch_up_locked(self, lock: jr.JournalLock) -> None:
        """With the writers' lock and `_sync`: catch up, reloading when diverged."""
        _n, diverged = self._catch_up()
        if diverged:
            os.close(self._fd)
            self._load(lock, self.memory.encoder)

    def _append(self, lock: jr.JournalLock, rec: dict[str, Any]) -> dict[str, Any]:
        """With the writers' lock and `_sync`: append `rec` durably, then apply it."""
        rec["seq"] = self._seq + 1
        self._offset = jr.append(lock.fd, [rec], self._offset)
        return self._apply(rec)

    def learn(self, item: LearnItem) -> dict[str, Any]:
        """Add `item` as one hyperedge (one journal record, fsynced before this returns).
        Embeds its texts before taking any lock. Returns {"edge", "update", "seq"}."""
        rec = learn_record(item, self.memory.encoder)
        with self._writer() as lock:
            with self._sync:
                self._catch_up_locked(lock)
                out = self._append(lock, rec)
            out["seq"] = rec["seq"]
            if self.checkpoint_every and self._seq >= self.checkpoint_every:
                self._checkpoint(lock)
        return out

    def snapshot(self) -> tuple[HypergraphMemory, int]:
        """A private copy of the memory (to plan a maintenance cycle on, model calls and
        all, without a lock) and the cycle count it was taken at."""
        self.sync()
        with self._sync, self._mem:
            state, cycles = to_state(self.memory), self.cycles
        return from_state(state, self.memory.encoder), cycles

    def commit_maintenance(self, base_cycles: int, prune: Sequence[str],
                           merges: Sequence[MergeItem]) -> dict[str, Any] | None:
        """Commit a cycle planned on `snapshot` as one record and checkpoint. None when
        another cycle was committed since the snapshot (the plan is dropped); else what
        was applied ({"pruned", "merged", "sizes_before", "sizes_after"}): nodes removed
        or merged meanwhile are skipped."""
        rec = maintain_record(prune, merges, self.memory.encoder)
        with self._writer() as lock:
            with self._sync:
                self._catch_up_locked(lock)
                if self.cycles != base_cycles:
                    return None
                out = self._append(lock, rec)
            self._checkpoint(lock)
        return out

    def forget(self, ids: Sequence[str]) -> dict[str, Any]:
        """Remove skills and trajectories (forget.py) as one journal record, then save a
        checkpoint so that their texts leave the folder and the journal at once (a
        checkpoint the folder's lock refuses is retried at the next one; the record is
        durable either way). Returns {"removed", "missing", "sizes_after", "seq",
        "checkpointed"}."""
        rec = forget_record(ids)
        with self._writer() as lock:
            with self._sync:
                self._catch_up_locked(lock)
                out = self._append(lock, rec)
            out["seq"] = rec["seq"]
            out["checkpointed"] = self._checkpoint(lock)
        return out

    def checkpoint(self) -> bool:
        """Save the memory and start a new journal now. False when the folder's lock is
        held by another program (a warning says so; nothing is lost: the journal keeps
        every record)."""
        with self._writer() as lock:
            with self._sync:
                self._catch_up_locked(lock)
            return self._checkpoint(lock)

    def _checkpoint(self, lock: jr.JournalLock) -> bool:
        """With the writers' lock (the journal cannot grow): save a snapshot with the
        crash-safe `save_memory`, then start a new journal naming it."""
        with self._sync, self._mem:
            state, sizes = to_state(self.memory), self.memory.stats()
            since, cycles = self.since_maintain, self.cycles
        snap = from_state(state, self.memory.encoder)
        try:
            save_memory(snap, self.path)
        except MemoryLockedError as exc:
            log.warning("checkpoint skipped: %s (the journal keeps every record)", exc)
            return False
        header = jr.new_header(jr.manifest_hash(self.path), sizes, since, cycles,
                               previous=self._header.get("generation"))
        fd = jr.write_fresh(self.journal, header)
        with self._sync:
            os.close(self._fd)
            self._fd = os.open(self.journal, os.O_RDONLY)
            self._ino = os.fstat(self._fd).st_ino
            self._offset = os.fstat(self._fd).st_size
            self._adopt_header(header)
        lock.swap(fd)
        return True

    @property
    def pending(self) -> int:
        """Records in the journal since the last checkpoint (this generation)."""
        return self._seq

    def info(self) -> dict[str, Any]:
        """The memory folder's and journal's names (not their paths: a client need not
        learn the server's file system) and the journal's state, for `stats`."""
        return {"folder": self.path.name, "journal": self.journal.name,
                "records_since_checkpoint": self._seq,
                "learned_since_maintenance": self.since_maintain,
                "maintenance_cycles": self.cycles,
                "encoder": getattr(self.memory.encoder, "name", "?")}

    def close(self) -> None:
        """Checkpoint what the journal holds (unless read-only) and release files."""
        if self._closed:
            return
        self._closed = True
        if not self.readonly and self._seq:
            try:
                self.checkpoint()
            except (OSError, jr.JournalBusy) as exc:
                log.warning("no checkpoint at shutdown (%s); the journal keeps every record",
                            exc)
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
