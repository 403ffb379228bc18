"""Skill ranking over the fused hyperedges (paper §3.4, Eqs. 6-9): E* = E_traj u E_sub
(Eq. 6); candidates R_s = skills of E* (Eq. 7); ``kappa(v) = |{e in E* : v in e}|``
(Eq. 8); S_q = top-k_s of R_s by kappa, ties broken by cos(phi(d_q), h_v), then creation
order (Eq. 9), one ranking over both polarities. The "flat" ablation (w/o hypergraph)
ranks every skill by its cosine to the task instead.

Not here: the two paths that give E* (subtask.py, trajectory.py), the context text
(context.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from hyperskill_lite.core.retrieval.scores import _columns, _distinct, _rounded, top_k

if TYPE_CHECKING:
    from hyperskill_lite.core.memory import HypergraphMemory
    from hyperskill_lite.core.retrieval.result import Retrieval

__all__ = ["fuse", "kappa_counts", "rank_skills", "rank_by_kappa", "rank_flat"]


def fuse(e_traj: np.ndarray, e_sub: np.ndarray) -> np.ndarray:
    """E* = E_traj u E_sub (Eq. 6): E_traj in rank order, then the rest of E_sub.

    >>> fuse(np.array([4, 1]), np.array([1, 7])).tolist()
    [4, 1, 7]
    """
    return _distinct(np.concatenate([e_traj, e_sub]))


def kappa_counts(incidence: Any, edge_cols: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Candidate skills R_s (Eq. 7) and their co-occurrence counts kappa (Eq. 8).

    Parameters
    ----------
    incidence : (n_s, n_e) array or scipy.sparse matrix
        1 where skill row i belongs to hyperedge column j.
    edge_cols : (m,) distinct column indices, the fused set E*.

    Returns
    -------
    rows : (r,) int64, skill rows in at least one hyperedge of E*, ascending
    kappa : (r,) int64, number of hyperedges of E* containing each

    >>> B = np.array([[1, 1, 0], [0, 1, 1], [0, 0, 1]])  # 3 skills x 3 hyperedges
    >>> kappa_counts(B, [0, 1])
    (array([0, 1]), array([2, 1]))
    """
    cols = np.asarray(edge_cols, dtype=np.int64)
    if len(np.unique(cols)) != len(cols):
        raise ValueError("kappa_counts: edge_cols must be distinct (E* is a set)")
    sub = sp.csc_matrix(incidence)[:, cols]
    sub.eliminate_zeros()
    rows, kappa = np.unique(sub.indices, return_counts=True)
    return rows.astype(np.int64), kappa.astype(np.int64)


def rank_skills(kappa: np.ndarray, sim: np.ndarray) -> np.ndarray:
    """The order of Eq. 9 over the candidates R_s: kappa descending, then the cosine to
    the task descending (rounded to `SCORE_DECIMALS`), then position (the candidates come
    in creation order). S_q is the first k_s. kappa, sim: (r,) -> (r,) int64 indices.

    >>> rank_skills(np.array([1, 2, 1]), np.array([0.3, 0.1, 0.9]))
    array([1, 2, 0])
    """
    kappa = np.asarray(kappa)
    sim = _rounded(np.asarray(sim, dtype=np.float64))
    return np.lexsort((np.arange(len(kappa)), -sim, -kappa)).astype(np.int64)


def rank_by_kappa(memory: HypergraphMemory, e_star: np.ndarray, q_task: np.ndarray, k_s: int,
                  out: Retrieval) -> np.ndarray:
    """S_q over the skills of E* (Eqs. 7-9): candidates R_s and their kappa, ranked by
    kappa, cosine to the task, creation order; fills `out`'s kappa, skill_scores and
    skill_edges. Returns S_q as skill rows, (<= k_s,) int64."""
    S, E = memory._skl, memory._edg
    members, via = _columns(*memory._inc["skill"].pairs(), e_star)  # skills of E*
    r_s, kappa = np.unique(members, return_counts=True)  # Eq. 7-8
    sim = _rounded(S.emb[r_s] @ q_task)  # (r,) cos(h_dq, h_v), the tie-breaker
    order = rank_skills(kappa, sim)  # Eq. 9: kappa desc, cos desc, creation order
    s_q = r_s[order[:k_s]]
    ranked = [S.ids[r] for r in r_s[order].tolist()]
    out.kappa = dict(zip(ranked, kappa[order].tolist()))
    out.skill_scores = dict(zip(ranked, sim[order].tolist()))
    out.skill_edges = {
        S.ids[r]: [E.ids[j] for j in np.sort(via[members == r]).tolist()] for r in s_q.tolist()
    }
    return s_q


def rank_flat(memory: HypergraphMemory, q_task: np.ndarray, k_s: int, ex: np.ndarray,
              out: Retrieval) -> np.ndarray:
    """The "flat" ablation (w/o hypergraph): top-k_s skills by cosine to the task, those
    held only by excluded hyperedges `ex` left out; fills `out.skill_scores`. Returns
    S_q as skill rows, (<= k_s,) int64."""
    S = memory._skl
    s_s = _rounded(S.emb[: S.n] @ q_task)  # (n_s,) cos(h_dq, h_v)
    if len(S.row) < S.n:
        s_s[~S.alive[: S.n]] = -np.inf
    if len(ex):  # skills held only by excluded trajectories
        node_s, edge_s = memory._inc["skill"].pairs()
        inside = np.isin(edge_s, ex)
        only = np.setdiff1d(node_s[inside], node_s[~inside])
        s_s[only] = -np.inf
    s_q = top_k(s_s, min(k_s, int(np.isfinite(s_s).sum())))
    out.skill_scores = {S.ids[r]: float(s_s[r]) for r in s_q}
    return s_q
