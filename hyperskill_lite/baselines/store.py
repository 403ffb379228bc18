"""A growable embedding store for the baselines: rows of (key text, unit vector, payload).

`VectorStore` keeps an (capacity, d) float32 matrix whose row r is the embedding of
row r's *key* text, the key texts themselves, one JSON-ready payload per row and an
`alive` mask. `topk(q, k)` ranks the live rows by cosine (a dot product of unit
vectors), best first, ties broken by insertion order. Capacity doubles when full, so an
append is amortised O(d). Rows are never reordered: a row number is a stable id.
`save`/`load` write ``<name>.npz`` (vectors, alive mask) and ``<name>.json`` (format
line, keys, payloads); `load` checks the format and the shapes.

>>> s = VectorStore(2)
>>> s.add("north", np.array([0.0, 1.0]), {"n": 1}), s.add("east", np.array([1.0, 0.0]), {})
(0, 1)
>>> [(r, round(c, 2)) for r, c in s.topk(np.array([0.6, 0.8]), 2)]
[(0, 0.8), (1, 0.6)]

Not here: embedding (each method embeds a text once with the shared encoder), what a
payload means (the methods), approximate search.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["VectorStore", "STORE_FORMAT"]

STORE_FORMAT = "hyperskill_lite.vectorstore/1"


class VectorStore:
    """Rows of (key text, (d,) float32 unit vector, payload dict); see the module doc."""

    def __init__(self, dim: int) -> None:
        if int(dim) < 1:
            raise ValueError(f"VectorStore: dim must be >= 1, got {dim}")
        self.dim = int(dim)
        self._emb = np.zeros((16, self.dim), dtype=np.float32)  # (capacity, d)
        self._alive = np.zeros(16, dtype=bool)  # (capacity,)
        self.n = 0  # rows used, alive or removed
        self.keys: list[str] = []  # row -> key text
        self.payloads: list[dict[str, Any]] = []  # row -> payload

    def __len__(self) -> int:
        return int(self._alive[: self.n].sum())

    def _check_vec(self, vec: np.ndarray, what: str) -> np.ndarray:
        v = np.asarray(vec, dtype=np.float32)
        if v.shape != (self.dim,):
            raise ValueError(
                f"VectorStore.{what}: vector has shape {v.shape}, expected ({self.dim},)"
            )
        return v

    def _check_row(self, row: int) -> int:
        if not (0 <= row < self.n) or not self._alive[row]:
            raise KeyError(f"VectorStore: row {row} does not exist or was removed")
        return row

    def add(self, key: str, vec: np.ndarray, payload: dict[str, Any]) -> int:
        """Append a row keyed by `key` (its embedding `vec`, shape (d,)); returns its row."""
        v = self._check_vec(vec, "add")
        if self.n == len(self._emb):
            grown = np.zeros((2 * len(self._emb), self.dim), dtype=np.float32)
            grown[: self.n] = self._emb[: self.n]
            alive = np.zeros(len(grown), dtype=bool)
            alive[: self.n] = self._alive[: self.n]
            self._emb, self._alive = grown, alive
        r = self.n
        self._emb[r] = v
        self._alive[r] = True
        self.keys.append(key)
        self.payloads.append(payload)
        self.n += 1
        return r

    def update(
        self,
        row: int,
        payload: dict[str, Any] | None = None,
        key: str | None = None,
        vec: np.ndarray | None = None,
    ) -> None:
        """Replace a live row's payload and/or its key (a new key needs its vector)."""
        self._check_row(row)
        if (key is None) != (vec is None):
            raise ValueError("VectorStore.update: a new key needs its vector, and a vector its key")
        if key is not None:
            self._emb[row] = self._check_vec(vec, "update")  # type: ignore[arg-type]
            self.keys[row] = key
        if payload is not None:
            self.payloads[row] = payload

    def remove(self, row: int) -> None:
        """Drop a live row from retrieval (its row number is never reused)."""
        self._alive[self._check_row(row)] = False

    def rows(self) -> list[int]:
        """Live rows, in insertion order."""
        return np.flatnonzero(self._alive[: self.n]).tolist()

    def vector(self, row: int) -> np.ndarray:
        """The key embedding of a live row, shape (d,) (a copy)."""
        return self._emb[self._check_row(row)].copy()

    def matrix(self) -> np.ndarray:
        """Key embeddings of every row ever added (removed ones too), (n, d) (a copy)."""
        return self._emb[: self.n].copy()

    def cosine(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(live rows (m,) int, their cosine to `q` (m,) float64)."""
        q = self._check_vec(q, "cosine")
        rows = np.flatnonzero(self._alive[: self.n])
        return rows, (self._emb[rows] @ q).astype(np.float64)

    def topk(
        self, q: np.ndarray, k: int, where: Callable[[dict[str, Any]], bool] | None = None
    ) -> list[tuple[int, float]]:
        """The `k` live rows most similar to `q` (shape (d,)) whose payload passes
        `where`: [(row, cosine)], best first, ties by insertion order."""
        if k < 0:
            raise ValueError(f"VectorStore.topk: k must be >= 0, got {k}")
        rows, sims = self.cosine(q)
        if where is not None:
            keep = np.array([bool(where(self.payloads[r])) for r in rows], dtype=bool)
            rows, sims = rows[keep], sims[keep]
        order = np.argsort(-sims, kind="stable")[:k]
        return [(int(rows[i]), float(sims[i])) for i in order]

    # ------------------------------------------------------------------ persistence
    def save(self, directory: Path, name: str) -> None:
        """Write ``directory/name.npz`` and ``directory/name.json``."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        np.savez(d / f"{name}.npz", emb=self._emb[: self.n], alive=self._alive[: self.n])
        doc = {
            "format": STORE_FORMAT,
            "dim": self.dim,
            "keys": self.keys,
            "payloads": self.payloads,
        }
        tmp = d / f"{name}.json.tmp"
        tmp.write_text(json.dumps(doc, sort_keys=True), encoding="utf-8")
        os.replace(tmp, d / f"{name}.json")

    @classmethod
    def load(cls, directory: Path, name: str) -> VectorStore:
        """Read a store written by `save`; a clear error for a missing or foreign file."""
        d = Path(directory)
        jpath, npath = d / f"{name}.json", d / f"{name}.npz"
        for p in (jpath, npath):
            if not p.is_file():
                raise FileNotFoundError(f"VectorStore: {p} is missing")
        doc = json.loads(jpath.read_text(encoding="utf-8"))
        if not isinstance(doc, dict) or doc.get("format") != STORE_FORMAT:
            got = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
            raise ValueError(f"VectorStore: {jpath} has format {got!r}, expected {STORE_FORMAT!r}")
        with np.load(npath) as z:
            emb, alive = z["emb"], z["alive"]
        n = len(doc["keys"])
        if emb.shape != (n, doc["dim"]) or alive.shape != (n,) or len(doc["payloads"]) != n:
            raise ValueError(
                f"VectorStore: {npath} holds {emb.shape} vectors for {n} keys of dim {doc['dim']}"
            )
        s = cls(doc["dim"])
        cap = max(16, n)
        s._emb = np.zeros((cap, s.dim), dtype=np.float32)
        s._emb[:n] = emb
        s._alive = np.zeros(cap, dtype=bool)
        s._alive[:n] = alive
        s.n, s.keys, s.payloads = n, list(doc["keys"]), copy.deepcopy(doc["payloads"])
        return s
