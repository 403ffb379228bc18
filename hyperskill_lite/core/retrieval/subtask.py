"""The subtask path (paper §3.3, Eq. 4): R_u = top-k_u subtask nodes by
cos(phi("\\n".join(P_0)), h_v), and E_sub = the hyperedges incident to R_u.

One matvec, a top-k partition and one vectorised pass over the subtask memberships per
query. Own-task exclusion (our addition): the subtask nodes of excluded hyperedges are
left out of R_u (each subtask node belongs to one trajectory).

Not here: the decomposition P_0 (an LLM call; callers pass the plan), the trajectory
path (trajectory.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from hyperskill_lite.core.retrieval.scores import _distinct, _rounded, top_k

if TYPE_CHECKING:
    from hyperskill_lite.core.memory import HypergraphMemory

__all__ = ["subtask_path"]


def subtask_path(memory: HypergraphMemory, q_plan: np.ndarray, k_u: int, ex: np.ndarray,
                 ) -> tuple[np.ndarray, np.ndarray, dict[str, float]]:
    """R_u (Eq. 4) and E_sub for the plan's embedding `q_plan` (d,), leaving out the
    subtask nodes of the excluded hyperedge columns `ex`.

    Returns (R_u subtask rows in rank order, E_sub hyperedge columns by R_u rank then
    creation, {subtask id: cos to phi(plan)} of R_u).
    """
    U = memory._sub
    s_u = _rounded(U.emb[: U.n] @ q_plan)  # (n_u,) cos(h_P0, h_v)
    if len(U.row) < U.n:
        s_u[~U.alive[: U.n]] = -np.inf
    node, edge = memory._inc["subtask"].pairs()
    if len(ex):  # subtask nodes of excluded trajectories
        s_u[node[np.isin(edge, ex)]] = -np.inf
    r_u = top_k(s_u, min(k_u, int(np.isfinite(s_u).sum())))  # Eq. 4
    mask = np.zeros(len(node), dtype=bool)  # memberships of R_u: k_u vectorised
    for r in r_u:  # passes (k_u is small)
        mask |= node == r
    hit = np.flatnonzero(mask)
    rank = {r: i for i, r in enumerate(r_u.tolist())}
    pairs = sorted(
        zip(node[hit].tolist(), edge[hit].tolist()), key=lambda p: (rank[p[0]], p[1])
    )
    e_sub = _distinct(np.array([e for _, e in pairs], dtype=np.int64))  # E_sub, by R_u rank
    scores = dict(zip([U.ids[r] for r in r_u.tolist()], s_u[r_u].tolist()))
    return r_u, e_sub, scores
