"""Columnar storage under `HypergraphMemory`: growable row arrays and the incidence store.

`Rows` holds one kind of element (subtask nodes, skill nodes or hyperedges) as columns:
string ids, an embedding matrix (capacity, d) float32, the Eq. 3 stats sigma / nu /
T_bar, an `alive` mask for tombstoned rows, and extra text and numeric columns. Capacity
doubles when full, so an append is amortised O(d). `Incidence` holds the memberships of
one node kind as (node row, edge row) pairs sorted by edge row (so a hyperedge's members
are found by binary search, which retrieval does) and builds the sparse incidence matrix
B (n_nodes, n_edges) from them lazily, cached until the next change. Each can list its
own broken invariants (`problem`), which `HypergraphMemory.validate` reports.

Both are private to the memory (memory.py, retrieval/, io/ read them as friends; every
other reader uses the memory's public read API, reads.py).

Not here: ids across kinds, dedup, stats updates or any equation beyond storing its inputs
(memory.py), and any file format (io/).

>>> rows = Rows("s", 4, ("name",), {})
>>> rows.add(np.array([1.0, 0, 0, 0]), {}, name="a"), rows.add(np.eye(4)[1], {}, name="b")
(0, 1)
>>> rows.ids, rows.live().tolist()
(['s1', 's2'], [0, 1])
>>> inc = Incidence()
>>> inc.extend([0, 1], 0); inc.extend([1], 1)
>>> inc.csc(2, 2).toarray().tolist()
[[1.0, 0.0], [1.0, 1.0]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["Rows", "Incidence"]


class Rows:
    """Growable columnar rows of one kind: ids, embeddings emb (capacity, d) float32,
    stats sigma / nu / tbar, `alive` mask, extra text and numeric columns. Rows are
    appended and never reordered; capacity doubles when full."""

    def __init__(
        self, prefix: str, dim: int, text_cols: Sequence[str], num_cols: dict[str, Any]
    ) -> None:
        cap = 16
        self.prefix = prefix
        self.n = 0  # rows used (alive or tombstoned)
        self.next_id = 1  # ids are f"{prefix}{next_id}", never reused
        self.ids: list[str] = []  # row -> id
        self.row: dict[str, int] = {}  # alive id -> row
        self.meta: list[dict[str, Any]] = []
        self.text: dict[str, list[str]] = {c: [] for c in text_cols}
        self.emb = np.zeros((cap, dim), dtype=np.float32)  # (capacity, d)
        self.num: dict[str, np.ndarray] = {
            "sigma": np.zeros(cap),  # successes, float64
            "nu": np.zeros(cap, dtype=np.int64),  # retrievals
            "tbar": np.zeros(cap),  # running mean steps
            "alive": np.zeros(cap, dtype=bool),
            **{c: np.zeros(cap, dtype=t) for c, t in num_cols.items()},
        }

    def __getattr__(self, name: str) -> np.ndarray:  # sigma, nu, tbar, alive, extras
        try:
            return self.__dict__["num"][name]
        except KeyError:
            raise AttributeError(name) from None

    def add(
        self, vec: np.ndarray, meta: dict[str, Any], rid: str | None = None, **cols: Any
    ) -> int:
        if self.n == len(self.emb):
            cap = max(16, 2 * len(self.emb))
            emb = np.zeros((cap, self.emb.shape[1]), dtype=np.float32)
            emb[: self.n] = self.emb[: self.n]
            self.emb = emb
            for c, a in self.num.items():
                grown = np.zeros(cap, dtype=a.dtype)
                grown[: self.n] = a[: self.n]
                self.num[c] = grown
        r = self.n
        self.n += 1
        if rid is None:
            rid = f"{self.prefix}{self.next_id}"
            self.next_id += 1
        self.ids.append(rid)
        self.row[rid] = r
        self.meta.append(meta)
        self.emb[r] = vec
        self.num["alive"][r] = True
        for c, values in self.text.items():
            values.append(cols.pop(c))
        for c, v in cols.items():
            self.num[c][r] = v
        return r

    @classmethod
    def from_columns(
        cls,
        prefix: str,
        emb: np.ndarray,
        nums: np.ndarray,
        next_id: int,
        text: dict[str, list[str]],
        meta: list[dict[str, Any]],
        num: dict[str, np.ndarray],
    ) -> Rows:
        """Rows built in bulk from columns (what a memory file holds): `emb` (n, d)
        float32 (may be read-only: the first append copies it into a growable array),
        `nums` (n,) int64 the numeric part of the ids, `text` column -> n strings,
        `meta` n dicts, `num` column -> (n,) array (sigma, nu, tbar and the extras). All
        rows are alive. The caller has checked the columns (io/)."""
        self = cls(prefix, emb.shape[1], tuple(text), {})
        n = emb.shape[0]
        self.n = n
        self.next_id = int(next_id)
        self.ids = [f"{prefix}{k}" for k in nums.tolist()]
        self.row = dict(zip(self.ids, range(n)))
        self.meta = meta
        self.text = {c: list(v) for c, v in text.items()}
        self.emb = emb
        self.num = {c: np.asarray(a).copy() for c, a in num.items()}
        self.num["alive"] = np.ones(n, dtype=bool)
        return self

    def kill(self, rows: Sequence[int]) -> None:
        for r in rows:
            self.num["alive"][r] = False
            del self.row[self.ids[r]]

    def live(self) -> np.ndarray:
        """Alive rows, ascending (insertion order)."""
        return np.flatnonzero(self.num["alive"][: self.n])

    def _ids_ok(self) -> bool:
        """Every id is the prefix and a number under the counter."""
        p, ids = self.prefix, self.ids
        if not all(map(str.startswith, ids, [p] * len(ids))):
            return False
        return max(map(int, (i[1:] for i in ids)), default=0) < self.next_id

    def problem(self, dim: int) -> str | None:
        """The first broken invariant of these rows, or None: columns aligned, embedding
        width `dim`, ids unique with this prefix and under the counter, the id -> row map
        equal to the alive rows, live embeddings unit, 0 <= sigma <= nu, T_bar finite >= 0."""
        n, live, ids = self.n, self.live(), self.ids

        def aligned() -> bool:
            cols = [len(ids), len(self.meta), *(len(v) for v in self.text.values())]
            return all(c == n for c in cols) and all(len(a) >= n for a in self.num.values())

        def stats_ok() -> bool:
            nu, sigma = self.nu[live], self.sigma[live]
            return bool(np.all(nu >= 0) and np.all((sigma >= 0) & (sigma <= nu)))

        checks = (
            (aligned, "columns not aligned"),
            (lambda: self.emb.shape[1] == dim, f"embedding width {self.emb.shape[1]} != dim {dim}"),
            (lambda: len(set(ids)) == n and self._ids_ok(), "bad ids/counter"),
            (lambda: sorted(self.row.values()) == live.tolist(), "id->row map != alive rows"),
            (lambda: all(ids[r] == i for i, r in self.row.items()), "id->row map wrong"),
            (
                lambda: np.allclose(np.linalg.norm(self.emb[live], axis=1), 1.0, atol=1e-3),
                "embedding not finite and unit",
            ),
            (stats_ok, "0<=sigma<=nu"),
            (
                lambda: np.all(np.isfinite(self.tbar[live]) & (self.tbar[live] >= 0)),
                "mean steps not finite >= 0",
            ),
        )
        return next((what for ok, what in checks if not ok()), None)


class Incidence:
    """Membership pairs (node row, edge row) of one node kind, sorted by edge row (COO,
    growable); the CSC matrix (n_nodes, n_edges) is built lazily and cached."""

    def __init__(self) -> None:
        self.node = np.zeros(64, dtype=np.int64)
        self.edge = np.zeros(64, dtype=np.int64)
        self.n = 0
        self._cache: dict[str, Any] = {}

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        return self.node[: self.n], self.edge[: self.n]

    def extend(self, node_rows: Sequence[int], edge_row: int) -> None:
        m = len(node_rows)
        if self.n + m > len(self.node):
            cap = max(2 * len(self.node), self.n + m)
            self.node = np.resize(self.node, cap)
            self.edge = np.resize(self.edge, cap)
        self.node[self.n : self.n + m] = node_rows
        self.edge[self.n : self.n + m] = edge_row
        self.n += m
        self._cache.clear()

    def replace_nodes(self, old: Sequence[int], new: int) -> None:
        """Every membership of a node row in `old` moves to row `new`, keeping its place;
        where an edge then holds `new` twice, its first membership stays (no duplicates).
        One vectorised pass over the pairs; in place unless a duplicate must go."""
        node, edge = self.pairs()
        hit = np.flatnonzero(np.isin(node, np.asarray(old, dtype=np.int64)))  # by edge
        node[hit] = new
        _, first = np.unique(edge[hit], return_index=True)  # first of each edge's hits
        drop = np.setdiff1d(hit, hit[first])
        if len(drop):
            keep = np.ones(self.n, dtype=bool)
            keep[drop] = False
            self.set_pairs(node[keep], edge[keep])
        self._cache.clear()

    def set_pairs(self, node: np.ndarray, edge: np.ndarray) -> None:
        self.node, self.edge, self.n = node.astype(np.int64), edge.astype(np.int64), len(node)
        self._cache.clear()

    def csc(self, n_nodes: int, n_edges: int) -> sp.csc_matrix:
        """B (n_nodes, n_edges) float64, 1.0 where node row i is in edge row j; rows
        inside a column keep membership order."""
        key = ("csc", n_nodes, n_edges)
        if key not in self._cache:
            node, edge = self.pairs()
            indptr = np.zeros(n_edges + 1, dtype=np.int64)
            np.cumsum(np.bincount(edge, minlength=n_edges), out=indptr[1:])
            self._cache[key] = sp.csc_matrix(
                (np.ones(self.n), node.copy(), indptr), shape=(n_nodes, n_edges)
            )
        return self._cache[key]

    def problem(self, n_nodes: int, n_edges: int, alive: np.ndarray) -> str | None:
        """The first broken invariant, or None: node rows in range and alive (`alive`:
        (>= n_nodes,) bool), edge rows in range, pairs sorted by edge (retrieval's binary
        search needs it), no duplicate pair, cached matrices equal to fresh ones."""
        node, edge = self.pairs()
        if not (np.all((node >= 0) & (node < n_nodes)) and np.all(alive[node])):
            return "dangling node row"
        if not np.all((edge >= 0) & (edge < n_edges)):
            return "dangling edge row"
        if not np.all(np.diff(edge) >= 0):
            return "membership not sorted by edge"
        if len(np.unique(edge * max(n_nodes, 1) + node)) != len(node):
            return "duplicate membership"
        fresh = Incidence()
        fresh.set_pairs(node.copy(), edge.copy())
        for (fmt, n, m), cached in self._cache.items():
            want = fresh.csc(n, m) if fmt == "csc" else fresh.csr(n, m)
            same = cached.shape == want.shape and np.array_equal(cached.indptr, want.indptr)
            if not (same and np.array_equal(cached.indices, want.indices)):
                return "cached incidence stale"
        return None

    def csr(self, n_nodes: int, n_edges: int) -> sp.csr_matrix:
        key = ("csr", n_nodes, n_edges)
        if key not in self._cache:
            self._cache[key] = self.csc(n_nodes, n_edges).tocsr()
        return self._cache[key]
