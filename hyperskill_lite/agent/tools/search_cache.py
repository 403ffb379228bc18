"""SearchCache: search results kept on disk, so a rerun is reproducible and free.

One SQLite file, ``search.sqlite`` in the toolkit's cache folder (`core.cache.cache_dir`,
shared with the embedding cache), keyed by provider, endpoint, query and result count.
``HYPERSKILL_CACHE=off`` (the CLI's ``--no-cache``) bypasses it; a damaged or unwritable
file turns it off for the process with a one-line warning, never an error. Entries do
not expire (a rerun sees what the first run saw); delete the file to search afresh.

>>> import tempfile, pathlib
>>> c = SearchCache(pathlib.Path(tempfile.mkdtemp()) / "s.sqlite")
>>> c.put("serper", "https://x", "q", 5, [SearchHit("T", "https://a.org/", "S")])
>>> [h.url for h in c.get("serper", "https://x", "q", 5)]
['https://a.org/']
>>> c.get("serper", "https://x", "q", 3) is None
True

Not here: the providers (providers/).
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
import time
from pathlib import Path

from hyperskill_lite.agent.tools.hits import SearchBackend, SearchHit
from hyperskill_lite.core.cache import cache_dir, cache_enabled

__all__ = ["SearchCache", "CachedSearch"]

log = logging.getLogger(__name__)


class SearchCache:
    """Search hits on disk (see the module docstring)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._disabled = False
        self.hits = self.misses = 0

    @classmethod
    def default(cls) -> SearchCache | None:
        """The cache in the toolkit's cache folder, or None when HYPERSKILL_CACHE=off."""
        return cls(cache_dir() / "search.sqlite") if cache_enabled() else None

    def _conn(self) -> sqlite3.Connection | None:
        if self._db is None and not self._disabled:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("CREATE TABLE IF NOT EXISTS hits (key TEXT PRIMARY KEY, provider TEXT, "
                           "query TEXT, k INTEGER, hits TEXT, created REAL)")
                self._db = db
            except (sqlite3.Error, OSError) as e:
                self._off(e)
        return self._db

    def _off(self, e: Exception) -> None:
        log.warning("search cache %s is unusable (%s); searching without it", self.path, e)
        self._db = None
        self._disabled = True

    @staticmethod
    def _key(provider: str, endpoint: str, query: str, k: int) -> str:
        blob = json.dumps([provider, endpoint, query, k], ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()

    def get(self, provider: str, endpoint: str, query: str, k: int) -> list[SearchHit] | None:
        """The cached hits, or None."""
        with self._lock:
            db = self._conn()
            if db is None:
                return None
            try:
                row = db.execute("SELECT hits FROM hits WHERE key = ?",
                                 (self._key(provider, endpoint, query, k),)).fetchone()
            except sqlite3.Error as e:
                self._off(e)
                return None
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        return [SearchHit(**h) for h in json.loads(row[0])]

    def put(self, provider: str, endpoint: str, query: str, k: int,
            hits: list[SearchHit]) -> None:
        """Keep `hits` for this provider, endpoint, query and count."""
        with self._lock:
            db = self._conn()
            if db is None:
                return
            try:
                with db:
                    db.execute("INSERT OR REPLACE INTO hits VALUES (?, ?, ?, ?, ?, ?)",
                               (self._key(provider, endpoint, query, k), provider, query, k,
                                json.dumps([h.to_dict() for h in hits], ensure_ascii=False),
                                time.time()))
            except sqlite3.Error as e:
                self._off(e)


class CachedSearch:
    """A search backend whose results go through a `SearchCache` (errors are not kept)."""

    def __init__(self, backend: SearchBackend, cache: SearchCache, endpoint: str = "") -> None:
        self.backend, self.cache, self.endpoint = backend, cache, endpoint
        self.name = backend.name

    def __repr__(self) -> str:
        return f"CachedSearch({self.backend!r})"

    def search(self, query: str, k: int = 5) -> list[SearchHit]:
        hits = self.cache.get(self.name, self.endpoint, query, k)
        if hits is None:
            hits = self.backend.search(query, k)
            self.cache.put(self.name, self.endpoint, query, k, hits)
        return hits
