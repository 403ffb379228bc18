"""The memory's public read API over its rows: what studio/, serve/, plots/, the
benchmarks and every other reader outside core/ use instead of the private columns.

`HypergraphMemory` inherits `MemoryReads`. Per-element reads by id are on the memory
itself (`node`, `nodes`, `edge`, `node_ids`, `edge_ids`, `gammas`, `retrieval_counts`,
`embedding`, `stats`); the reads here are vectorised, by row, for readers that walk a
whole memory (a studio page of thousands of skills, a benchmark):

- `columns(kind)`: a read-only view of one kind's rows (`Columns`: ids, the id -> row map,
  live rows, texts, numeric columns, embeddings, meta);
- `row_gammas(kind, rows)`: gamma (Eq. 3) of those rows, from the current step range;
- `memberships(kind)`: the (node row, hyperedge row) pairs of B_u or B_s;
- `incidence(kind, layout)`: B_u or B_s as a sparse matrix over all rows.

Kinds are "subtask", "skill" and "hyperedge" (`KINDS`). Rows are never reordered and a
removed node keeps its row (tombstoned: not in `Columns.row`, not in `live()`), so a row
index read here stays valid while the memory lives. A view shows the memory as it is
when taken: take a new one after the memory changes (a growing column is reallocated).
Views are read-only (numpy arrays with ``writeable=False``; lists and mappings by
contract): the memory changes only through its own methods.

>>> from hyperskill_lite.core.embed import HashingEncoder
>>> from hyperskill_lite.core.memory import HypergraphMemory
>>> from hyperskill_lite.core.records import Skill
>>> mem = HypergraphMemory(HashingEncoder(dim=32))
>>> _ = mem.add_trajectory("Find the GDP", ["search the office"],
...                        [Skill("Official Source First", "Prefer the office.")],
...                        "Tables beat news.", success=True, steps=4)
>>> S = mem.columns("skill")
>>> S.ids, S.text["name"], S.live().tolist(), mem.row_gammas("skill", S.live()).tolist()
(['s1'], ['Official Source First'], [0], [0.5])
>>> [r.tolist() for r in mem.memberships("skill")], mem.incidence("skill").shape
([[0], [0]], (1, 1))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import numpy as np
import scipy.sparse as sp

from hyperskill_lite.core.store import Incidence, Rows

__all__ = ["Columns", "MemoryReads", "KINDS"]

KINDS = ("subtask", "skill", "hyperedge")
"""The memory's three kinds of element: subtask nodes, skill nodes, hyperedges."""


def _read_only(a: np.ndarray) -> np.ndarray:
    view = a.view()
    view.flags.writeable = False
    return view


class Columns:
    """A read-only view of one kind's rows (module docstring).

    Attributes: `kind`; `n` (rows used, tombstoned included); `ids` (row -> id, every
    row); `row` (live id -> row); `text` (column name -> list by row: a subtask's
    "content", a skill's "name" and "content", a hyperedge's "task" and "lesson");
    `meta` (list by row); `emb` ((n, d) float32); and each numeric column by name, (n,)
    arrays: "sigma", "nu", "tbar", "alive", a skill's "polarity" (0 success, 1 failure),
    a hyperedge's "success", "steps" and "calls".
    """

    def __init__(self, kind: str, rows: Rows) -> None:
        self.kind = kind
        self.n = int(rows.n)
        self.ids: Sequence[str] = rows.ids
        self.row: Mapping[str, int] = MappingProxyType(rows.row)
        self.text: Mapping[str, Sequence[str]] = MappingProxyType(rows.text)
        self.meta: Sequence[dict[str, Any]] = rows.meta
        self.emb = _read_only(rows.emb[: self.n])
        self._num = {name: _read_only(a[: self.n]) for name, a in rows.num.items()}

    def __getattr__(self, name: str) -> np.ndarray:
        num = self.__dict__.get("_num", {})
        if name in num:
            return num[name]
        raise AttributeError(f"{self.kind} rows have no column {name!r}")

    @property
    def columns(self) -> tuple[str, ...]:
        """The numeric columns' names."""
        return tuple(self._num)

    def live(self) -> np.ndarray:
        """The live rows, ascending: (k,) int64."""
        return np.flatnonzero(self._num["alive"]).astype(np.int64)

    def __repr__(self) -> str:
        return f"Columns({self.kind!r}, n={self.n}, live={int(self._num['alive'].sum())})"


class MemoryReads:
    """The vectorised read API `HypergraphMemory` inherits (module docstring)."""

    _sub: Rows  # provided by HypergraphMemory
    _skl: Rows
    _edg: Rows
    _inc: dict[str, Incidence]
    _gamma: Any

    def _rows_of(self, kind: str) -> Rows:
        rows = {"subtask": self._sub, "skill": self._skl, "hyperedge": self._edg}.get(kind)
        if rows is None:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        return rows

    def columns(self, kind: str) -> Columns:
        """A read-only view of the rows of `kind` ("subtask", "skill", "hyperedge")."""
        return Columns(kind, self._rows_of(kind))

    def row_gammas(self, kind: str, rows: np.ndarray | Sequence[int]) -> np.ndarray:
        """gamma (Eq. 3) of `rows` of `kind`, from the current T_min / T_max: (len,)."""
        return self._gamma(self._rows_of(kind), np.asarray(rows, dtype=np.int64))

    def memberships(self, kind: str) -> tuple[np.ndarray, np.ndarray]:
        """(node rows, hyperedge rows) of every membership of a node kind ("subtask":
        B_u, "skill": B_s), sorted by hyperedge row: two (m,) int64 arrays."""
        if kind not in ("subtask", "skill"):
            raise ValueError(f"memberships are of a node kind, 'subtask' or 'skill'; got {kind!r}")
        node, edge = self._inc[kind].pairs()
        return _read_only(node), _read_only(edge)

    def incidence(self, kind: str, layout: str = "csc") -> sp.spmatrix:
        """B_u ("subtask") or B_s ("skill") over all rows, (n node rows, n hyperedge rows),
        as a "csc" or "csr" matrix (cached until the memory changes; do not modify it)."""
        if kind not in ("subtask", "skill") or layout not in ("csc", "csr"):
            raise ValueError(f"incidence(kind in ('subtask', 'skill'), layout in ('csc', "
                             f"'csr')); got {kind!r}, {layout!r}")
        inc, n_nodes, n_edges = self._inc[kind], self._rows_of(kind).n, self._edg.n
        return inc.csc(n_nodes, n_edges) if layout == "csc" else inc.csr(n_nodes, n_edges)
