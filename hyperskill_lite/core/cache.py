"""A persistent embedding cache on disk: phi(text) computed once per machine, not per run.

`DiskCache` keeps vectors of one encoder (its name and version are the key of the file)
in a SQLite database under the cache folder, keyed by the SHA-256 of the text. SQLite
gives what the cache needs from the standard library alone: several processes can read
and write one file at once (WAL journal, a busy timeout), a write is atomic, and a
damaged file is detected (`sqlite3.DatabaseError`) instead of read as garbage.

- Where: ``$HYPERSKILL_CACHE`` if set, else the platform's cache folder
  (``$XDG_CACHE_HOME`` or ``~/.cache`` on Linux, ``~/Library/Caches`` on macOS,
  ``%LOCALAPPDATA%`` on Windows) + ``hyperskill_lite``. ``HYPERSKILL_CACHE=off`` turns it
  off (the CLI's ``--no-cache`` sets that).
- Size cap: ``$HYPERSKILL_CACHE_MAX_MB`` (default 1024) per encoder file; when a write
  takes it over, the oldest entries (by insertion) are removed down to 90 % of the cap.
- A corrupt or unreadable file is never fatal: it is moved aside (``*.corrupt``) and a
  new one started; if even that fails, the cache is off for the process, with a warning.

>>> import tempfile
>>> c = DiskCache(tempfile.mkdtemp(), "demo", "1", dim=2)
>>> c.put(["a"], np.array([[1.0, 0.0]], dtype=np.float32))
1
>>> c.get(["a", "b"])
{'a': array([1., 0.], dtype=float32)}

Not here: the in-memory cache and the encoders (embed.py).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

__all__ = ["DiskCache", "cache_dir", "cache_enabled", "DEFAULT_MAX_MB"]

log = logging.getLogger(__name__)

DEFAULT_MAX_MB = 1024
_SCHEMA = "hyperskill_lite.embedding_cache/1"
_OFF = {"off", "0", "false", "no", "none", ""}


def cache_enabled() -> bool:
    """False when ``HYPERSKILL_CACHE`` is set to off (or empty)."""
    v = os.environ.get("HYPERSKILL_CACHE")
    return v is None or v.strip().lower() not in _OFF


def cache_dir() -> Path:
    """The cache folder: ``$HYPERSKILL_CACHE``, else the platform's user cache folder
    (platformdirs: ``$XDG_CACHE_HOME/hyperskill_lite`` or ``~/.cache/hyperskill_lite`` on
    Linux, ``~/Library/Caches/hyperskill_lite`` on macOS, ``%LOCALAPPDATA%\\hyperskill_lite\\Cache``
    on Windows)."""
    env = os.environ.get("HYPERSKILL_CACHE")
    if env and env.strip().lower() not in _OFF:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("hyperskill_lite", appauthor=False))


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", s).strip("_")[:80] or "encoder"


def _key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class DiskCache:
    """Vectors of one encoder on disk (see the module docstring).

    Parameters
    ----------
    root : folder of the cache files.
    name, version : the encoder's name and version; together they name the file, so a
        new model version never reads an old one's vectors.
    dim : the vectors' width; rows of another width are ignored.
    max_mb : size cap of this encoder's file (default ``$HYPERSKILL_CACHE_MAX_MB`` or
        1024).
    """

    def __init__(
        self, root: str | Path, name: str, version: str, dim: int, max_mb: float | None = None
    ) -> None:
        self.root = Path(root)
        self.path = self.root / f"{_slug(name)}-{_slug(version)}.sqlite"
        self.dim = int(dim)
        cap = max_mb if max_mb is not None else float(
            os.environ.get("HYPERSKILL_CACHE_MAX_MB", DEFAULT_MAX_MB))
        self.max_rows = max(1, int(cap * 2**20 / (4 * self.dim + 64)))
        self.enabled = True
        self.hits = self.misses = self.writes = 0
        self._conn: sqlite3.Connection | None = None

    # ------------------------------------------------------------------ connection
    def _connect(self) -> sqlite3.Connection | None:
        if not self.enabled:
            return None
        if self._conn is not None:
            return self._conn
        for attempt in range(2):
            try:
                self.root.mkdir(parents=True, exist_ok=True)
                # the encoder's lock serialises every use, so one connection may be used
                # by whichever thread holds it (live sweep cells run as threads)
                conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None,
                                       check_same_thread=False)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute("CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT)")
                conn.execute(
                    "CREATE TABLE IF NOT EXISTS vec (key BLOB PRIMARY KEY, dim INTEGER, v BLOB)"
                )
                conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (_SCHEMA,))
                schema = conn.execute("SELECT v FROM meta WHERE k = 'schema'").fetchone()
                if schema is None or schema[0] != _SCHEMA:
                    raise sqlite3.DatabaseError(f"schema {schema!r} is not {_SCHEMA!r}")
                self._conn = conn
                return conn
            except (sqlite3.Error, OSError) as exc:
                if isinstance(exc, sqlite3.Error) and attempt == 0 and self._set_aside(exc):
                    continue
                self._disable(f"cannot open {self.path} ({exc})")
                return None
        return None

    def _set_aside(self, exc: Exception) -> bool:
        """Move a damaged file aside so a fresh one can start; True if it was moved."""
        if not self.path.exists():
            return False
        aside = self.path.with_name(f"{self.path.name}.corrupt-{int(time.time() * 1000)}")
        try:
            os.replace(self.path, aside)
            for extra in ("-wal", "-shm"):
                Path(str(self.path) + extra).unlink(missing_ok=True)
        except OSError:
            return False
        log.warning("embedding cache %s was unreadable (%s); moved it to %s and started a "
                    "new one", self.path, exc, aside.name)
        return True

    def _disable(self, why: str) -> None:
        self.enabled = False
        log.warning("embedding cache off for this process: %s", why)

    def _retry(self, op, *args):
        """Run a database operation; on corruption start a fresh file once, then give up."""
        for attempt in range(2):
            conn = self._connect()
            if conn is None:
                return None
            try:
                return op(conn, *args)
            except sqlite3.DatabaseError as exc:
                self.close()
                if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                    self._disable(f"{self.path} stayed locked ({exc})")
                    return None
                if attempt == 0 and self._set_aside(exc):
                    continue
                self._disable(f"{self.path}: {exc}")
                return None
        return None

    def close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except sqlite3.Error:
                pass
            self._conn = None

    # ------------------------------------------------------------------ get / put
    def get(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """The cached vectors of those `texts` that are in the cache: text -> (dim,)."""
        if not texts:
            return {}
        keys = {_key(t): t for t in texts}

        def op(conn: sqlite3.Connection) -> dict[str, np.ndarray]:
            out: dict[str, np.ndarray] = {}
            ks = list(keys)
            for start in range(0, len(ks), 500):
                chunk = ks[start : start + 500]
                q = f"SELECT key, dim, v FROM vec WHERE key IN ({','.join('?' * len(chunk))})"
                for k, dim, blob in conn.execute(q, chunk):
                    if dim == self.dim and len(blob) == 4 * dim:
                        v = np.frombuffer(blob, dtype=np.float32).copy()
                        if np.all(np.isfinite(v)):
                            out[keys[k]] = v
            return out

        got = self._retry(op) or {}
        self.hits += len(got)
        self.misses += len(keys) - len(got)
        return got

    def put(self, texts: Sequence[str], vectors: np.ndarray) -> int:
        """Store vectors (n, dim) float32 for `texts`; returns how many were written."""
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.shape != (len(texts), self.dim):
            raise ValueError(f"DiskCache.put: vectors {vectors.shape}, expected "
                             f"{(len(texts), self.dim)}")
        rows = [(_key(t), self.dim, v.tobytes()) for t, v in zip(texts, vectors)]

        def op(conn: sqlite3.Connection) -> int:
            conn.execute("BEGIN IMMEDIATE")
            try:
                before = conn.total_changes
                conn.executemany("INSERT OR IGNORE INTO vec VALUES (?, ?, ?)", rows)
                written = conn.total_changes - before
                n = conn.execute("SELECT COUNT(*) FROM vec").fetchone()[0]
                if n > self.max_rows:  # keep the newest 90 % of the cap
                    drop = n - int(0.9 * self.max_rows)
                    conn.execute(
                        "DELETE FROM vec WHERE rowid IN "
                        "(SELECT rowid FROM vec ORDER BY rowid LIMIT ?)", (drop,))
                conn.execute("COMMIT")
                return written
            except BaseException:
                conn.execute("ROLLBACK")
                raise

        written = self._retry(op) or 0
        self.writes += written
        return written

    def __len__(self) -> int:
        n = self._retry(lambda conn: conn.execute("SELECT COUNT(*) FROM vec").fetchone()[0])
        return int(n or 0)

    def __repr__(self) -> str:
        return f"DiskCache({str(self.path)!r}, enabled={self.enabled})"
