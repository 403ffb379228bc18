"""The structural edits of memory evolution (paper §3.5), as methods `HypergraphMemory`
inherits: what maintenance.py reads (B_s and the hyperedge sizes ``|V_e|`` of Eq. 12, the skill
embeddings Eq. 13 propagates, the hyperedges two skills share) and the two changes it
makes (`remove_nodes`, pruning by Eq. 11; `merge_nodes`, one merge of an Eq. 14 pair).

They work on the memory's columnar storage (store.py), which `HypergraphMemory.__init__`
sets up (memory.py); the policy deciding what to prune and merge is maintenance.py's.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from hyperskill_lite.core.elements import POLARITIES
from hyperskill_lite.core.embed import Encoder
from hyperskill_lite.core.meta import merge_meta
from hyperskill_lite.core.records import Skill, skill_text
from hyperskill_lite.core.store import Incidence, Rows

__all__ = ["MemoryEdits"]


class MemoryEdits:
    """The maintenance side of `HypergraphMemory` (module docstring): B_s, skill
    embeddings, shared hyperedges, node removal and merging. Not used on its own."""

    _encoder: Encoder
    _sub: Rows  # subtask nodes
    _skl: Rows  # skill nodes
    _edg: Rows  # hyperedges
    _inc: dict[str, Incidence]  # "subtask" / "skill" memberships

    if TYPE_CHECKING:  # defined by HypergraphMemory (memory.py)

        def _store(self, id: str) -> Rows: ...
        def _incidence(self, kind: str) -> sp.csc_matrix: ...
        def edge_ids(self) -> list[str]: ...

    def skill_incidence(self) -> tuple[sp.csr_matrix, list[str], list[str], np.ndarray]:
        """B_s over live skills: (csr (n_s, n_e) with 1.0 where skill i is in hyperedge
        j, skill ids by row, edge ids by column, edge_sizes (n_e,) int = ``|V_e|`` counting
        subtask and skill nodes), the inputs of Eq. 12."""
        rows = self._skl.live()
        B = self._inc["skill"].csr(self._skl.n, self._edg.n)[rows]
        sizes = np.diff(self._incidence("subtask").indptr) + np.diff(
            self._incidence("skill").indptr
        )
        return B, [self._skl.ids[r] for r in rows], self.edge_ids(), sizes.astype(np.int64)

    def skill_embeddings(self, ids: Sequence[str]) -> np.ndarray:
        """Embeddings of skill nodes, rows in the order of `ids`: (n, d) float32 copy."""
        rows = [self._skill_row(i) for i in ids]
        return self._skl.emb[np.array(rows, dtype=np.int64)]

    def shared_edges(self, a: str, b: str) -> list[str]:
        """Ids of the hyperedges holding both skill nodes `a` and `b`, in insertion order
        (their shared trajectory fragments, §3.5)."""
        ra, rb = self._skill_row(a), self._skill_row(b)
        B = self._inc["skill"].csr(self._skl.n, self._edg.n)
        cols = np.intersect1d(B.indices[B.indptr[ra] : B.indptr[ra + 1]],
                              B.indices[B.indptr[rb] : B.indptr[rb + 1]])
        return [self._edg.ids[c] for c in cols.tolist()]

    def _skill_row(self, id: str) -> int:
        if id not in self._skl.row:
            raise KeyError(f"no skill node with id {id!r} in this memory")
        return self._skl.row[id]

    def remove_nodes(self, ids: Sequence[str]) -> None:
        """Delete nodes from V and from every hyperedge (Eq. 11); a hyperedge left
        without nodes stays, with its task and lesson."""
        ids = list(dict.fromkeys(ids))
        for i in ids:
            if self._store(i) is self._edg:
                raise ValueError(f"remove_nodes: {i!r} is a hyperedge, not a node")
        for kind, store in (("subtask", self._sub), ("skill", self._skl)):
            rows = [store.row[i] for i in ids if i[:1] == store.prefix]
            if rows:
                store.kill(rows)
                node, edge = self._inc[kind].pairs()
                keep = ~np.isin(node, rows)
                self._inc[kind].set_pairs(node[keep], edge[keep])

    def merge_nodes(self, a: str, b: str, skill: Skill, polarity: str | None = None) -> str:
        """Replace skills a and b by one new node with `skill`'s name and content (Eq. 14
        candidates, LLM-Merge): sigma and nu summed, T_bar weighted by nu, meta =
        merge_meta(a, b) updated by skill.meta; every membership of a or b moves to the
        new node without duplicates. Only the new text is embedded.

        The new node has the polarity of a and b; two skills of different polarity
        (a strategy and a mistake, possible under ``merge_scope="all"``) merge only with
        an explicit `polarity` for the new node."""
        ra, rb = self._skill_row(a), self._skill_row(b)
        if a == b:
            raise ValueError(f"merge_nodes: cannot merge {a!r} with itself")
        S = self._skl
        if polarity is not None and polarity not in POLARITIES:
            raise ValueError(f"merge_nodes: polarity must be one of {POLARITIES}, got {polarity!r}")
        if S.polarity[ra] != S.polarity[rb] and polarity is None:
            raise ValueError(
                f"merge_nodes: {a!r} is a {POLARITIES[S.polarity[ra]]} skill and {b!r} a "
                f"{POLARITIES[S.polarity[rb]]} skill; give the merged node's polarity to "
                "merge across polarities"
            )
        code = S.polarity[ra] if polarity is None else POLARITIES.index(polarity)
        vec = self._encoder.encode([skill_text(skill.name, skill.content)])[0]
        meta = merge_meta(S.meta[ra], S.meta[rb])
        meta.update(copy.deepcopy(skill.meta))
        r = S.add(vec, meta, name=skill.name, content=skill.content, polarity=code)
        nu = S.nu[ra] + S.nu[rb]
        S.nu[r], S.sigma[r] = nu, S.sigma[ra] + S.sigma[rb]
        S.tbar[r] = (
            (S.nu[ra] * S.tbar[ra] + S.nu[rb] * S.tbar[rb]) / nu
            if nu
            else (S.tbar[ra] + S.tbar[rb]) / 2
        )
        self._inc["skill"].replace_nodes((ra, rb), r)  # an edge holding a and b: r once
        S.kill([ra, rb])
        return S.ids[r]
