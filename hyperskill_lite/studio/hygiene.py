"""Memory hygiene: the lists a maintainer reads to keep a memory clean.

On the run's final memory (our addition; the paper reports none of these):

- near-duplicates: skill pairs whose plain cosine lies just under delta_dedup
  (``[delta_dedup - window, delta_dedup)``): insertion kept them apart, and a reader may
  not have;
- contradictions: a strategy and a mistake with high cosine (>= `CONTRADICTION`): two
  nodes that say opposite things about the same situation;
- never retrieved: skill nodes with nu = 0 (no task was shown them), with their age;
- the utility distribution: gamma (Eq. 3) of every node, by kind, as a histogram, and a
  table of the skills.

Cosines are computed blockwise in float32 (`BLOCK` rows at a time against the later
rows), never as an n x n array. Lists are cut to `MAX_ROWS`, largest cosine first; the
counts are always given.

Not here: co-occurrence significance (cooccurrence.py), the page (render.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hyperskill_lite.core.memory import HypergraphMemory

__all__ = ["hygiene", "similar_pairs", "WINDOW", "CONTRADICTION", "MAX_ROWS", "BLOCK"]

WINDOW = 0.05
"""How far under delta_dedup a pair still counts as a near-duplicate."""
CONTRADICTION = 0.75
"""The cosine from which a strategy and a mistake are listed as contradicting."""
MAX_ROWS = 500
"""Rows per list at most."""
BLOCK = 2048
"""Rows per block of the blockwise cosines."""


def similar_pairs(Z: np.ndarray, lo: float, hi: float = np.inf, group: np.ndarray | None = None,
                  opposite: bool = False, limit: int | None = MAX_ROWS
                  ) -> tuple[np.ndarray, int]:
    """Pairs (i < j) of unit rows of `Z` (n, d) with lo <= cosine < hi: ((k, 3) array of
    [i, j, cosine] with the `limit` largest cosines first (None: all of them), total
    count). With `group` (n,) labels, only pairs of equal labels, or of different labels
    when `opposite`.

    >>> Z = np.array([[1.0, 0.0], [0.96, 0.28], [0.0, 1.0]])
    >>> pairs, n = similar_pairs(Z, 0.9)
    >>> pairs.round(2).tolist(), n
    ([[0.0, 1.0, 0.96]], 1)
    """
    Z = np.asarray(Z, dtype=np.float32)
    n = Z.shape[0]
    parts: list[np.ndarray] = []
    total = 0
    for start in range(0, n, BLOCK):
        sims = Z[start:start + BLOCK] @ Z[start:].T  # (b, n - start)
        r, c = np.nonzero((sims >= lo) & (sims < hi))
        keep = c > r
        r, c = r[keep], c[keep]
        i, j = r + start, c + start
        if group is not None:
            same = group[i] == group[j]
            sel = ~same if opposite else same
            i, j, r, c = i[sel], j[sel], r[sel], c[sel]
        total += i.size
        parts.append(np.stack([i, j, sims[r, c]], axis=1).astype(np.float64))
        if limit is not None and sum(p.shape[0] for p in parts) > 4 * limit:  # bounded
            cat = np.concatenate(parts)
            parts = [cat[np.argsort(-cat[:, 2], kind="stable")[:limit]]]
    if not parts:
        return np.zeros((0, 3)), 0
    cat = np.concatenate(parts)
    order = np.lexsort((cat[:, 1], cat[:, 0], -cat[:, 2]))[:limit]  # [:None]: all
    return cat[order], total


def _top(parts: list[np.ndarray], limit: int) -> np.ndarray:
    cat = np.concatenate(parts) if parts else np.zeros((0, 3))
    return cat[np.lexsort((cat[:, 1], cat[:, 0], -cat[:, 2]))[:limit]]


def _two_lists(Z: np.ndarray, pol: np.ndarray, near_lo: float, near_hi: float,
               contra_lo: float) -> tuple[tuple[np.ndarray, int], tuple[np.ndarray, int]]:
    """Near-duplicates (near_lo <= cos < near_hi) and contradictions (cos >= contra_lo,
    opposite polarity) in one blockwise pass (`similar_pairs`'s output for each, cut
    to `MAX_ROWS`, with the exact counts)."""
    Z = np.asarray(Z, dtype=np.float32)
    lists: list[list[np.ndarray]] = [[], []]
    counts = [0, 0]
    for start in range(0, Z.shape[0], BLOCK):
        sims = Z[start:start + BLOCK] @ Z[start:].T
        r, c = np.nonzero(sims >= min(near_lo, contra_lo))
        keep = c > r
        r, c = r[keep], c[keep]
        i, j, v = r + start, c + start, sims[r, c].astype(np.float64)
        for k, sel in enumerate(((v >= near_lo) & (v < near_hi),
                                 (v >= contra_lo) & (pol[i] != pol[j]))):
            counts[k] += int(sel.sum())
            lists[k].append(np.stack([i[sel], j[sel], v[sel]], axis=1).astype(np.float64))
            if sum(x.shape[0] for x in lists[k]) > 4 * MAX_ROWS:  # keep memory bounded
                lists[k] = [_top(lists[k], MAX_ROWS)]
    return (_top(lists[0], MAX_ROWS), counts[0]), (_top(lists[1], MAX_ROWS), counts[1])


def _histogram(values: np.ndarray, bins: int = 20) -> list[int]:
    counts, _ = np.histogram(values, bins=bins, range=(0.0, 1.0))
    return counts.tolist()


def hygiene(memory: HypergraphMemory, born: dict[str, int] | None = None,
            window: float = WINDOW, contradiction: float = CONTRADICTION) -> dict[str, Any]:
    """The hygiene lists of `memory` (module docstring). `born`: skill id -> the episode
    that created it (provenance), for the age of never-retrieved skills. Rows are lists
    (the page turns each list into a table and a CSV)."""
    S = memory.columns("skill")
    rows = S.live()
    ids = [S.ids[r] for r in rows.tolist()]
    names = [S.text["name"][r] for r in rows.tolist()]
    pol = S.polarity[rows].astype(np.int8)
    Z = np.asarray(S.emb[rows], dtype=np.float32)
    dd = memory.config.delta_dedup
    (near, n_near), (contra, n_contra) = _two_lists(Z, pol, dd - window, dd, contradiction)
    gamma = memory.row_gammas("skill", rows)
    nu = S.nu[rows]
    node, _ = memory.memberships("skill")
    degree = np.bincount(node, minlength=S.n)[rows]
    label = {0: "strategy", 1: "mistake"}

    def pair_rows(pairs: np.ndarray) -> list[list[Any]]:
        out = []
        for i, j, c in pairs.tolist():
            a, b = int(i), int(j)
            out.append([ids[a], names[a], label[int(pol[a])], ids[b], names[b],
                        label[int(pol[b])], round(c, 4)])
        return out

    never = [[ids[k], names[k], label[int(pol[k])], (born or {}).get(ids[k]), int(degree[k]),
              round(float(gamma[k]), 3)] for k in np.flatnonzero(nu == 0).tolist()]
    table = [[ids[k], names[k], label[int(pol[k])], round(float(gamma[k]), 3), int(nu[k]),
              int(degree[k])] for k in range(len(ids))]
    order = sorted(range(len(table)), key=lambda k: (table[k][3], table[k][0]))
    hist = {"skill": _histogram(gamma[pol == 0]), "mistake": _histogram(gamma[pol == 1])}
    for kind in ("subtask", "hyperedge"):
        hist[kind] = _histogram(memory.row_gammas(kind, memory.columns(kind).live()))
    return {
        "window": [round(dd - window, 4), dd], "contradiction": contradiction,
        "near_duplicates": pair_rows(near), "n_near_duplicates": n_near,
        "contradictions": pair_rows(contra), "n_contradictions": n_contra,
        "never_retrieved": never[:MAX_ROWS], "n_never_retrieved": len(never),
        "utility": [table[k] for k in order[:5 * MAX_ROWS]], "n_skills": len(table),
        "histogram": hist,
    }
