"""Dual-path hyperedge retrieval and co-occurrence skill ranking (paper §3.3 and §3.4, Eqs. 4-9).

Subtask path: R_u = top-k_u subtask nodes by cos(phi("\\n".join(P_0)), h_v) (Eq. 4),
E_sub = hyperedges incident to R_u. Trajectory path: E_traj = top-k_e hyperedges by
cos(phi(d_q), h_e) (Eq. 5). E* = E_traj u E_sub (Eq. 6); R_s = skills of E* (Eq. 7);
``kappa(v) = |{e in E* : v in e}|`` (Eq. 8); S_q = top-k_s of R_s by kappa, ties broken by
cos(phi(d_q), h_v), then creation order (Eq. 9), one ranking over both polarities.
The context is the paper's "Retrieved Memory Format" (Prompts appendix).

Each query costs two matvecs, a top-k partition, one vectorised pass over the subtask
memberships and a binary search into the skill memberships (sorted by hyperedge); no
loop over the memory in Python and no matrix rebuilt after an insertion. Ablation modes: "no-subtask" (E* = E_traj), "no-trajectory"
(E* = E_sub), "flat" (w/o hypergraph: top-k_s skills by cos to phi(d_q), no lessons).

Own-task exclusion (our addition, for multi-pass runs): ``exclude_edges`` leaves the
given hyperedges out of both paths, with the subtask nodes they hold (out of R_u, each
subtask node belonging to one trajectory) and, in flat mode, the skills found in no
other hyperedge; budgets are filled from the rest.

The folder holds one module per step: subtask.py (Eq. 4, E_sub), trajectory.py (Eq. 5),
ranking.py (Eqs. 6-9 and the flat ablation), context.py (the context text), result.py
(`Retrieval`), scores.py (rounded cosines and top-k); `retrieve` here composes them. Every
public name is importable from ``hyperskill_lite.core.retrieval``.

Not here: the decomposition P_0 (an LLM call; callers pass the plan), the stats update
after the episode (memory.add_trajectory), re-ranking by utility (the paper has none).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

import numpy as np

from hyperskill_lite.core.retrieval.context import fill_context, format_context
from hyperskill_lite.core.retrieval.ranking import (
    fuse,
    kappa_counts,
    rank_by_kappa,
    rank_flat,
    rank_skills,
)
from hyperskill_lite.core.retrieval.result import Retrieval
from hyperskill_lite.core.retrieval.scores import SCORE_DECIMALS, top_k
from hyperskill_lite.core.retrieval.subtask import subtask_path
from hyperskill_lite.core.retrieval.trajectory import trajectory_path

if TYPE_CHECKING:
    from hyperskill_lite.core.memory import HypergraphMemory

__all__ = ["Retrieval", "retrieve", "top_k", "kappa_counts", "rank_skills", "format_context",
           "MODES", "SCORE_DECIMALS", "subtask_path", "trajectory_path", "fuse"]

MODES = ("full", "no-subtask", "no-trajectory", "flat")


def retrieve(
    memory: HypergraphMemory,
    task: str,
    plan: Sequence[str] = (),
    mode: str = "full",
    k_u: int | None = None,
    k_e: int | None = None,
    k_s: int | None = None,
    exclude_edges: Collection[str] = (),
) -> Retrieval:
    """Retrieve context for task d_q with decomposition `plan` = P_0 (Eq. 4-9).

    Budgets default to the memory's config. An empty plan makes the subtask path
    contribute nothing (a failed decomposition: E* = E_traj from d_q alone); an empty
    memory gives an empty Retrieval with context "". `exclude_edges`: hyperedge ids
    neither path may return (module docstring; ids not in the memory are ignored).
    Reads the memory's arrays directly (a friend of memory.py).
    """
    k_u, k_e, k_s = _budgets(memory, mode, task, plan, k_u, k_e, k_s)
    plan = list(plan)
    U, S, E = memory._sub, memory._skl, memory._edg
    out = Retrieval(task=task, plan=plan, mode=mode)
    if not E.n and not S.row:
        return out
    ex = np.array(sorted({E.row[e] for e in exclude_edges if e in E.row}), dtype=np.int64)
    out.excluded_edge_ids = [E.ids[j] for j in ex.tolist()]
    use_sub = mode in ("full", "no-trajectory") and bool(plan) and k_u > 0 and bool(U.row)
    use_traj = mode in ("full", "no-subtask") and k_e > 0 and E.n > 0
    q = memory.encoder.encode([task, "\n".join(plan)] if use_sub else [task])  # (1|2, d)
    q_task = q[0]

    r_u = e_sub = e_traj = np.zeros(0, dtype=np.int64)
    if use_sub:
        r_u, e_sub, out.subtask_scores = subtask_path(memory, q[1], k_u, ex)  # Eq. 4
    if use_traj:
        e_traj = trajectory_path(memory, q_task, k_e, ex)  # Eq. 5
    e_star = fuse(e_traj, e_sub)  # Eq. 6
    if mode == "flat":
        s_q = rank_flat(memory, q_task, k_s, ex, out)
    else:
        s_q = rank_by_kappa(memory, e_star, q_task, k_s, out)  # Eqs. 7-9

    out.subtask_ids = [U.ids[r] for r in r_u.tolist()]
    out.subtask_edge_ids = [E.ids[j] for j in e_sub.tolist()]
    out.trajectory_edge_ids = [E.ids[j] for j in e_traj.tolist()]
    out.edge_ids = [E.ids[j] for j in e_star.tolist()]
    out.edge_scores = dict(zip(out.edge_ids, (E.emb[e_star] @ q_task).tolist()))
    out.skill_ids = [S.ids[r] for r in s_q.tolist()]
    fill_context(memory, out, e_star, s_q)
    return out


def _budgets(memory: HypergraphMemory, mode: str, task: str, plan: Sequence[str],
             k_u: int | None, k_e: int | None, k_s: int | None) -> tuple[int, int, int]:
    """Check `retrieve`'s arguments; the budgets (k_u, k_e, k_s), the config's by default."""
    if mode not in MODES:
        raise ValueError(f"retrieve: mode must be one of {MODES}, got {mode!r}")
    if not isinstance(task, str):
        raise TypeError(f"retrieve: task must be a str, got {type(task).__name__}")
    if isinstance(plan, str) or not all(isinstance(p, str) for p in plan):
        raise TypeError("retrieve: plan must be a list of str (one per subtask step)")
    cfg = memory.config
    ks = {
        "k_u": cfg.k_u if k_u is None else k_u,
        "k_e": cfg.k_e if k_e is None else k_e,
        "k_s": cfg.k_s if k_s is None else k_s,
    }
    for name, v in ks.items():
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 0:
            raise ValueError(f"retrieve: {name} must be an int >= 0, got {v!r}")
    return ks["k_u"], ks["k_e"], ks["k_s"]
