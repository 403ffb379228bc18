"""The trajectory path (paper §3.3, Eq. 5): E_traj = top-k_e hyperedges by
cos(phi(d_q), h_e).

One matvec and a top-k partition per query. Own-task exclusion (our addition): the
excluded hyperedges are left out and the budget is filled from the rest.

Not here: the subtask path (subtask.py), the fusion and ranking (ranking.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from hyperskill_lite.core.retrieval.scores import _rounded, top_k

if TYPE_CHECKING:
    from hyperskill_lite.core.memory import HypergraphMemory

__all__ = ["trajectory_path"]


def trajectory_path(memory: HypergraphMemory, q_task: np.ndarray, k_e: int, ex: np.ndarray,
                    ) -> np.ndarray:
    """E_traj (Eq. 5) for the task's embedding `q_task` (d,): hyperedge columns in rank
    order, (<= k_e,) int64, none of the excluded columns `ex`."""
    E = memory._edg
    s_e = _rounded(E.emb[: E.n] @ q_task)  # (n_e,) cos(h_dq, h_e)
    s_e[ex] = -np.inf
    return top_k(s_e, min(k_e, E.n - len(ex)))  # Eq. 5: the trajectory path
