"""Scores and top-k selection shared by both paths and the ranking: cosines rounded to
`SCORE_DECIMALS`, a deterministic `top_k`, and membership lookups over pairs sorted by
hyperedge (no matrix rebuilt after an insertion).

Not here: the paths (subtask.py, trajectory.py), the ranking (ranking.py).
"""

from __future__ import annotations

import numpy as np

__all__ = ["SCORE_DECIMALS", "top_k"]

SCORE_DECIMALS = 6
"""Cosines are ranked after rounding to this many decimals. A float32 matvec can score
identical embeddings one rounding step apart depending on their row position (BLAS
kernels block rows), so without rounding a tie between duplicate texts would be broken by
memory layout and could change after a save/load; rounded, it is broken by creation
order, as documented."""


def _rounded(scores: np.ndarray) -> np.ndarray:
    return np.round(scores, SCORE_DECIMALS)


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k largest scores, by score descending then index ascending, so
    ties are resolved the same way every time. scores: (n,) -> (min(k, n),) int64.

    >>> top_k(np.array([0.2, 0.9, 0.5, 0.9]), 3)
    array([1, 3, 2])
    """
    n = len(scores)
    k = min(int(k), n)
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if k < n:
        idx = np.argpartition(scores, n - k)[n - k :]  # some k largest
        thr = scores[idx].min()  # the k-th largest score
        if np.count_nonzero(scores >= thr) > k:  # a tie straddles the cut: lowest index wins
            above = np.flatnonzero(scores > thr)
            tied = np.flatnonzero(scores == thr)[: k - len(above)]
            idx = np.concatenate([above, tied])
    else:
        idx = np.arange(n)
    return idx[np.lexsort((idx, -scores[idx]))].astype(np.int64)


def _distinct(rows: np.ndarray) -> np.ndarray:
    """rows without repeats, first occurrence order kept (a few entries: a dict is
    faster than np.unique here)."""
    return np.fromiter(dict.fromkeys(rows.tolist()), dtype=np.int64)


def _columns(node: np.ndarray, edge: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Members of hyperedge columns `cols` from membership pairs sorted by edge, by
    binary search (no matrix is built, so nothing waits on a cache rebuilt after an
    insertion). node, edge: (nnz,) int64; cols: (m,) int64. Returns (member node rows,
    their column) as two (r,) int64 arrays, in the order of `cols`."""
    lo = np.searchsorted(edge, cols, side="left")
    hi = np.searchsorted(edge, cols, side="right")
    if len(cols) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    members = np.concatenate([node[a:b] for a, b in zip(lo.tolist(), hi.tolist())])
    return members, np.repeat(cols, hi - lo)


