"""Scopes: memories kept apart inside one served folder, and the recall handles.

A scope is a label (`bounds.SCOPE_PATTERN`) a client gives to ``learn``, ``recall`` and
the other tools. The folder ``DIR`` itself is the unscoped memory; scope ``X`` is a
memory of its own in ``DIR.scopes/X`` (with its journal ``DIR.scopes/X.journal``),
opened on first use with the folder's encoder and configuration, and shared by every
server process on the folder like ``DIR`` is (shared.py). A scope is a partition, not a
filter: recall sees only its scope's trajectories and skills, a learn deduplicates only
into its scope's skills (so no text of one scope ever reaches another's context), and
utility, co-occurrence, pruning and merging are counted within the scope. Node and
hyperedge ids are per scope (``s3`` of two scopes are two skills). A bearer token can
be bound to one scope (httpd.py): its clients then see and change that scope only.

`Handles` keeps what a recall found (task, plan, ids, scope, caller) under a short
handle for the ``learn`` that follows it, so the agent need not repeat the task text or
carry the ids: the newest `HANDLES` per server process, each usable only by the caller
that made it.

Not here: one memory's files (shared.py), the tools (service.py).
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from hyperskill_lite.serve.bounds import SCOPE_PATTERN
from hyperskill_lite.serve.shared import SharedMemory

__all__ = ["Scopes", "ScopeError", "scope_folder", "Handles", "Recalled", "HANDLES",
           "MAX_SCOPES"]

HANDLES = 1024
"""Recall handles kept per server process (the oldest dropped first)."""
MAX_SCOPES = 64
"""Scopes a folder may hold unless ``serve --max-scopes`` says otherwise."""


class ScopeError(ValueError):
    """A scope that cannot be used (the message says why and what to do)."""


def scope_folder(root: Path, scope: str) -> Path:
    """The memory folder of `scope` beside the served folder `root`.

    >>> scope_folder(Path("/data/skills"), "team-a").as_posix()
    '/data/skills.scopes/team-a'
    """
    if not SCOPE_PATTERN.match(scope):
        raise ScopeError(f"not a scope label: {scope!r}")
    return root.with_name(root.name + ".scopes") / scope


class Scopes:
    """The served folder's memory (`root`) and its scopes' memories, opened on first use
    (module docstring). At most `max_scopes` scopes exist; using a new one beyond that
    is refused."""

    def __init__(self, root: SharedMemory, max_scopes: int = MAX_SCOPES) -> None:
        self.root, self.max_scopes = root, int(max_scopes)
        self.folder = root.path.with_name(root.path.name + ".scopes")
        self._open: dict[str, SharedMemory] = {}
        self._lock = threading.Lock()

    def names(self) -> list[str]:
        """The scopes the folder holds (made by any server on it), sorted."""
        if not self.folder.is_dir():
            return []
        return sorted(p.name for p in self.folder.iterdir()
                      if p.is_dir() and SCOPE_PATTERN.match(p.name))

    def get(self, scope: str | None, create: bool = True) -> SharedMemory | None:
        """The memory of `scope` (None: the folder's own), opened on first use; made when
        missing if `create`, else None (a read of a scope nobody wrote to)."""
        if scope is None:
            return self.root
        with self._lock:
            if scope in self._open:
                return self._open[scope]
            path = scope_folder(self.root.path, scope)
            if not path.exists() and not create:
                return None
            if not path.exists() and len(self.names()) >= self.max_scopes:
                raise ScopeError(f"scope {scope!r}: the folder holds {self.max_scopes} scopes "
                                 "already (serve --max-scopes); use one of them")
            self.folder.mkdir(exist_ok=True)
            with self.root.read() as memory:
                encoder, config = memory.encoder, memory.config
            sm = SharedMemory(path, encoder, config, checkpoint_every=self.root.checkpoint_every,
                              lock_timeout=self.root.lock_timeout)
            self._open[scope] = sm
            return sm

    def opened(self) -> list[tuple[str | None, SharedMemory]]:
        """The memories open in this process: the folder's own first."""
        with self._lock:
            return [(None, self.root), *sorted(self._open.items())]

    def close(self) -> None:
        """Checkpoint and close every scope opened here, then the folder's own memory."""
        with self._lock:
            opened, self._open = list(self._open.values()), {}
        for sm in opened:
            sm.close()
        self.root.close()


@dataclass
class Recalled:
    """What one recall found, for the learn that follows it."""

    scope: str | None
    task: str
    plan: list[str]
    used_ids: list[str]
    caller: str = ""
    notes: list[str] = field(default_factory=list)


class Handles:
    """Recall handles (module docstring): at most `size`, the oldest dropped first."""

    def __init__(self, size: int = HANDLES) -> None:
        self.size = int(size)
        self._items: OrderedDict[str, Recalled] = OrderedDict()
        self._lock = threading.Lock()

    def new(self, recalled: Recalled) -> str:
        handle = "h" + secrets.token_hex(12)
        with self._lock:
            self._items[handle] = recalled
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return handle

    def get(self, handle: str) -> Recalled | None:
        with self._lock:
            return self._items.get(handle)
