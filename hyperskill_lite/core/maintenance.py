"""Memory evolution (paper §3.5, Algorithm "Periodic Memory Evolution"): quality-driven
pruning and structure-informed merging of skill nodes.

One maintenance cycle is ``prune`` then ``merge``:

1. prune (Eq. 11 and rho): among the low-utility nodes v (subtask or skill) with
   nu(v) >= N_min and gamma(v) < tau_prune, remove the ceil(rho x count) with the lowest
   gamma ("ratio", the default; "threshold" removes all of them, "fraction" reads rho as
   a fraction of all nodes with nu >= N_min). Removed nodes leave every hyperedge; an
   emptied hyperedge keeps its task and lesson.
2. merge: build the quality-weighted co-occurrence W over skill nodes (Eq. 12), propagate
   the plain skill embeddings Z over it (Eq. 13), pick the pairs whose propagated
   embeddings have cosine >= delta_merge (Eq. 14), greedily, best pair first, each node
   at most once per cycle, and ask a merger (``MemoryLLM.merge``) for the consolidated
   skill, giving it the pair's shared trajectory fragments (task and lesson of up to
   ``config.merge_fragments`` hyperedges holding both). Eq. 14 compares every pair; by
   default only pairs of one polarity are compared (strategy with strategy, mistake with
   mistake): that restriction is our addition, ``config.merge_scope="all"`` lifts it.

The pure parts (``cooccurrence_matrix``, ``propagate``, ``merge_candidates``,
``prune_selection``; the first two, Eqs. 12-13, in ``core/cooccurrence.py``) work on
arrays and indices only, stay sparse or
blockwise, and never form an n x n dense array; ``prune``, ``merge`` and ``maintain``
map them onto a ``HypergraphMemory`` through its public methods. ``TemplateMerger``
(``core/template_merger.py``) condenses two skills without a model so maintenance runs
offline. The notebook on
memory evolution walks through all of it.

Merging runs one greedy round
per cycle (a merged node is not merged again in the same cycle). The schedule helper only
answers "is maintenance due"; the runner calls ``maintain`` and checkpoints.
"""

from __future__ import annotations

import inspect
import math
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol

import numpy as np

from hyperskill_lite.core.cooccurrence import cooccurrence_matrix, propagate
from hyperskill_lite.core.records import Fragment, MaintenanceReport, Skill

if TYPE_CHECKING:
    from hyperskill_lite.core.memory import HypergraphMemory

__all__ = [
    "Merger",
    "merge_candidates",
    "prune_selection",
    "shared_fragments",
    "prune",
    "merge",
    "maintain",
]


class Merger(Protocol):
    """The one model operation merging needs: ``MemoryLLM.merge`` (types.py)."""

    def merge(self, a: Skill, b: Skill, fragments: Sequence[Fragment] = ()) -> Skill: ...


# ---------------------------------------------------------------------------------------
# Pure functions on arrays
# ---------------------------------------------------------------------------------------


def merge_candidates(
    Z_tilde: np.ndarray, polarity: Sequence[Any] | np.ndarray, delta: float, block: int = 1024
) -> list[tuple[int, int, float]]:
    """Greedy merge pairs: cosine(z~_i, z~_j) >= delta (Eq. 14), compared only within
    groups of equal `polarity` label. Eq. 14 itself compares every pair: give one label
    to all rows for that (``merge_scope="all"``); the per-polarity grouping is our
    addition, the default of `merge`.

    Cosines are computed blockwise (``block`` rows against the later rows of their
    polarity group, the upper triangle only), so no n x n array is formed; the cost is
    O(m^2 d / 2) per group of m skills, and memory grows with the qualifying pairs. The
    blocks are float32, a screen with a safety margin; the similarities returned are the
    exact float64 cosines, and only pairs whose exact cosine reaches delta count. Pairs
    are then taken best first (ties by (i, j)), a pair only when neither node is taken
    yet, so each node is in at most one pair. Zero rows have no direction and are never
    paired.

    Parameters
    ----------
    Z_tilde : (n, d) propagated embeddings.
    polarity : (n,) group labels ("success"/"failure", or one label for all); only
        equal labels are compared.
    delta : threshold delta_merge.
    block : rows per block.

    Returns
    -------
    list of (i, j, sim) with i < j, python int/int/float, in the order taken.

    Examples
    --------
    >>> Z = np.array([[1.0, 0.0], [0.99, 0.1], [1.0, 0.01], [1.0, 0.0]])
    >>> pairs = merge_candidates(Z, ["success", "success", "success", "failure"], 0.9)
    >>> [(i, j, round(sim, 5)) for i, j, sim in pairs]
    [(0, 2, 0.99995)]
    """
    Z = np.asarray(Z_tilde, dtype=np.float64)
    if Z.ndim != 2:
        raise ValueError(f"Z_tilde must be 2-D (n, d), got shape {Z.shape}")
    pol = np.asarray(polarity, dtype=object).reshape(-1)
    if pol.shape[0] != Z.shape[0]:
        raise ValueError(f"polarity has length {pol.shape[0]}, Z_tilde has {Z.shape[0]} rows")
    if block < 1:
        raise ValueError(f"block must be >= 1, got {block}")
    norms = np.linalg.norm(Z, axis=1)
    Zn = np.divide(Z, norms[:, None], out=np.zeros_like(Z), where=norms[:, None] > 0)
    i_parts: list[np.ndarray] = []
    j_parts: list[np.ndarray] = []
    s_parts: list[np.ndarray] = []
    # Screen in float32 (half the time and memory of float64 blocks), then keep the pairs
    # whose exact float64 cosine reaches delta. A float32 dot of unit d-vectors is off by
    # at most ~d * 2^-24 (< 3e-5 for d = 384), so the margin never loses a pair.
    margin = max(1e-4, 4.0 * Z.shape[1] * 2.0**-24)
    Z32 = Zn.astype(np.float32)
    for label in dict.fromkeys(pol.tolist()):  # groups in first-seen order
        idx = np.flatnonzero((pol == label) & (norms > 0))  # ascending; zero rows never pair
        G, G32 = Zn[idx], Z32[idx]  # (m, d) float64, float32
        m = idx.shape[0]
        for start in range(0, m, block):
            # (b, m - start) block of cosines, upper triangle only: rows start.., cols start..
            sims = G32[start : start + block] @ G32[start:].T
            r, c = np.nonzero(sims >= delta - margin)
            upper = c > r  # i < j within the group
            r, c = r[upper] + start, c[upper] + start
            exact = np.einsum("ij,ij->i", G[r], G[c])  # float64 cosines of the survivors
            keep = exact >= delta
            i_parts.append(idx[r[keep]].astype(np.int64))
            j_parts.append(idx[c[keep]].astype(np.int64))
            s_parts.append(exact[keep])
    if not i_parts:
        return []
    return _take_greedily(
        np.concatenate(i_parts), np.concatenate(j_parts), np.concatenate(s_parts), Z.shape[0]
    )


def _take_greedily(
    rows_i: np.ndarray, cols_j: np.ndarray, sims: np.ndarray, n: int
) -> list[tuple[int, int, float]]:
    """The qualifying pairs (i, j, sim) taken best first (ties by (i, j)), a pair only
    when neither of its n nodes is taken yet: the greedy round of ``merge_candidates``."""
    order = np.lexsort((cols_j, rows_i, -sims))  # sim desc, then i, then j
    taken = np.zeros(n, dtype=bool)
    pairs: list[tuple[int, int, float]] = []
    for k in order:
        i, j = int(rows_i[k]), int(cols_j[k])
        if taken[i] or taken[j]:
            continue
        taken[i] = taken[j] = True
        pairs.append((i, j, float(sims[k])))
    return pairs


def prune_selection(
    nu: np.ndarray,
    gamma: np.ndarray,
    *,
    mode: Literal["ratio", "threshold", "fraction"] = "ratio",
    n_min: int = 3,
    tau: float = 0.2,
    rho: float = 0.1,
) -> np.ndarray:
    """Indices of the nodes to prune (Eq. 11 and the maintenance ratio rho), ascending.

    "ratio": the low-utility entries of Eq. 11 (nu_i >= n_min and gamma_i < tau), of
    which the ceil(rho * count) with the lowest gamma (§4.3: rho "controls the fraction
    of low-utility entries pruned during each maintenance cycle"); ceil, so any rho > 0
    prunes at least one low-utility entry when there is one (a floor would make
    rho = 0.1 and rho = 0 identical until ten entries are low-utility); rho = 0 prunes
    nothing and rho = 1 is "threshold".
    "threshold": every low-utility entry (Eq. 11 alone, no rho: prune them all).
    "fraction": among all entries with nu_i >= n_min, the floor(rho * count) with the
    lowest gamma, whatever tau says (floor: never more than the fraction).
    Ties in gamma go to the lower index (insertion order).

    Parameters
    ----------
    nu : (n,) retrieval counts.
    gamma : (n,) utilities.

    Returns
    -------
    (k,) int64 indices into nu/gamma.

    Examples
    --------
    >>> nu, g = np.array([5, 1, 3, 4]), np.array([0.1, 0.0, 0.5, 0.15])
    >>> prune_selection(nu, g, mode="threshold").tolist()
    [0, 3]
    >>> prune_selection(nu, g, mode="ratio", rho=0.1).tolist()  # ceil(0.1 * 2) = 1
    [0]
    >>> prune_selection(nu, g, mode="fraction", rho=0.5).tolist()  # floor(0.5 * 3) = 1
    [0]
    """
    nu = np.asarray(nu).reshape(-1)
    gamma = np.asarray(gamma, dtype=np.float64).reshape(-1)
    if nu.shape != gamma.shape:
        raise ValueError(f"nu has length {nu.shape[0]} but gamma has length {gamma.shape[0]}")
    if mode not in ("ratio", "threshold", "fraction"):
        raise ValueError(f"prune mode must be 'ratio', 'threshold' or 'fraction', got {mode!r}")
    if mode != "threshold" and not 0.0 <= rho <= 1.0:
        raise ValueError(f"rho must be in [0, 1], got {rho}")
    eligible = nu >= n_min
    if mode == "threshold":
        return np.flatnonzero(eligible & (gamma < tau)).astype(np.int64)
    if mode == "ratio":
        idx = np.flatnonzero(eligible & (gamma < tau))
        k = math.ceil(rho * idx.shape[0] - 1e-12)  # 0.1 * 30 is 3.0000000000000004
    else:
        idx = np.flatnonzero(eligible)
        k = math.floor(rho * idx.shape[0] + 1e-12)
    order = np.argsort(gamma[idx], kind="stable")[:k]
    return np.sort(idx[order]).astype(np.int64)


# ---------------------------------------------------------------------------------------
# On a HypergraphMemory
# ---------------------------------------------------------------------------------------


def prune(memory: HypergraphMemory) -> list[dict[str, Any]]:
    """Quality-driven pruning (Eq. 11) over all nodes V (subtasks and skills).

    The rule is ``config.prune_mode`` ("ratio", the default: the ceil(rho x count)
    lowest-gamma of the low-utility entries nu >= N_min and gamma < tau_prune;
    "threshold": all of them; "fraction": the rho-fraction of all entries with
    nu >= N_min; see ``prune_selection``). Gammas are read once, before any removal, so removing nodes
    does not change who is pruned in the same cycle; ties in gamma go to the earlier
    node in ``memory.node_ids()`` order. Removed nodes leave every hyperedge; an emptied
    hyperedge keeps its task and lesson.

    Cost: ids, gammas and retrieval counts come in one vectorised read
    (``memory.node_stats``); NodeViews are built, in one call, only for the nodes
    removed (their report rows).

    Returns
    -------
    One row per removed node: {"id", "kind", "polarity", "name", "content", "nu", "gamma"}.
    """
    cfg = memory.config
    if cfg.prune_mode != "threshold" and cfg.rho == 0.0:
        return []
    ids, gamma, nu = memory.node_stats()  # (n,) ids, gamma (Eq. 3), nu: one read
    if not ids:
        return []
    sel = prune_selection(
        nu, gamma, mode=cfg.prune_mode, n_min=cfg.n_min, tau=cfg.tau_prune, rho=cfg.rho
    )
    views = memory.nodes([ids[k] for k in sel])  # snapshots of the removed nodes only
    rows = [
        {
            "id": v.id,
            "kind": v.kind,
            "polarity": v.polarity,
            "name": v.name,
            "content": v.content,
            "nu": int(nu[k]),
            "gamma": float(gamma[k]),
        }
        for k, v in zip(sel, views)
    ]
    if rows:
        memory.remove_nodes([r["id"] for r in rows])
    return rows


def shared_fragments(
    memory: HypergraphMemory, a: str, b: str, limit: int = 3
) -> list[Fragment]:
    """The shared trajectory fragments of skills `a` and `b` (§3.5): task, lesson,
    outcome and meta of the hyperedges holding both, newest first, at most `limit`.

    >>> from hyperskill_lite.core.embed import HashingEncoder
    >>> from hyperskill_lite.core.memory import HypergraphMemory
    >>> m = HypergraphMemory(HashingEncoder(dim=64))
    >>> x, y = Skill("Check Units", "Convert first."), Skill("Cite Sources", "Link it.")
    >>> _ = m.add_trajectory("T1", ["s"], [x, y], "L1", True, 2)
    >>> _ = m.add_trajectory("T2", ["s"], [x], "L2", True, 2)
    >>> a, b = m.node_ids(kind="skill")
    >>> [(f.task, f.lesson) for f in shared_fragments(m, a, b)]
    [('T1', 'L1')]
    """
    if limit <= 0:
        return []
    out = []
    for e in reversed(memory.shared_edges(a, b)[-limit:]):  # newest (last added) first
        v = memory.edge(e)
        out.append(Fragment(v.task, v.lesson, v.success, v.meta))
    return out


def _takes_fragments(llm: Any) -> bool:
    try:
        params = inspect.signature(llm.merge).parameters
    except (TypeError, ValueError):  # a builtin or C callable: assume the protocol
        return True
    return "fragments" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def merge(memory: HypergraphMemory, llm: Merger) -> list[dict[str, Any]]:
    """One cycle of structure-informed merging (Eqs. 12-14) on the skill nodes.

    W from the current gammas (Eq. 12, diagonal per ``config.w_diagonal``), Z the plain
    skill embeddings, Z~ by propagation with ``config.alpha`` and ``config.L`` (Eq. 13),
    greedy pairs with cosine >= ``config.delta_merge`` (Eq. 14) among the pairs
    ``config.merge_scope`` allows ("same_polarity", the default and our addition, or
    "all", Eq. 14 literally); for each pair, best first, ``llm.merge(a, b,
    fragments=...)`` writes the merged skill from the two skills and their shared
    trajectory fragments (``shared_fragments``, at most ``config.merge_fragments``; with 0
    the merger is called as ``merge(a, b)``), and ``memory.merge_nodes`` replaces the two
    nodes with it (stats summed, memberships reassigned, only the new node embedded).
    The merged node keeps the pair's polarity whatever the merger returns; a
    strategy-mistake pair (only under "all") takes the polarity of the node retrieved
    more often (nu; ties: the older node), and the merger sees both as that kind (the
    merge prompt merges two items of one kind).

    Returns
    -------
    One row per merge: {"a", "b", "a_name", "b_name", "a_content", "b_content",
    "polarity", "similarity" (the propagated cosine of Eq. 14), "plain_similarity" (the
    cosine of the plain embeddings, for comparison), "new_id", "name", "content",
    "fragments", "cross_polarity"} (fragments: how many the merger saw; cross_polarity:
    a strategy-mistake pair).
    """
    cfg = memory.config
    B_s, skill_ids, _edge_ids, edge_sizes = memory.skill_incidence()
    if len(skill_ids) < 2:
        return []
    if cfg.merge_fragments and not _takes_fragments(llm):
        raise TypeError(
            f"{type(llm).__name__}.merge must accept fragments= (the pair's shared trajectory "
            "fragments, §3.5); set HyperSkillConfig.merge_fragments=0 to call merge(a, b)"
        )
    gamma = np.asarray(memory.gammas(skill_ids), dtype=np.float64)
    W = cooccurrence_matrix(B_s, edge_sizes, gamma, diagonal=cfg.w_diagonal)  # Eq. 12
    Z = np.asarray(memory.skill_embeddings(skill_ids))
    Z_tilde = propagate(W, Z, alpha=cfg.alpha, L=cfg.L)  # Eq. 13
    if cfg.merge_scope == "all":  # Eq. 14 as written: every pair is compared
        groups = np.full(len(skill_ids), "skill", dtype=object)
    else:  # our addition: strategies with strategies, mistakes with mistakes
        failure = set(memory.node_ids(kind="skill", polarity="failure"))
        groups = np.array(["failure" if s in failure else "success" for s in skill_ids],
                          dtype=object)
    pairs = merge_candidates(Z_tilde, groups, cfg.delta_merge)  # Eq. 14
    rows: list[dict[str, Any]] = []
    for i, j, sim in pairs:
        va, vb = memory.node(skill_ids[i]), memory.node(skill_ids[j])
        cross = va.polarity != vb.polarity
        kept = va.polarity if not cross or va.nu >= vb.nu else vb.polarity  # i < j: a older
        a = Skill(va.name, va.content, kept, dict(va.meta))
        b = Skill(vb.name, vb.content, kept, dict(vb.meta))
        if cfg.merge_fragments:
            frags = shared_fragments(memory, va.id, vb.id, cfg.merge_fragments)
            merged = llm.merge(a, b, fragments=frags)
        else:
            frags = []
            merged = llm.merge(a, b)
        if merged.polarity != kept:
            merged = Skill(merged.name, merged.content, kept, dict(merged.meta))
        new_id = memory.merge_nodes(va.id, vb.id, merged, polarity=kept if cross else None)
        rows.append(
            {
                "a": va.id,
                "b": vb.id,
                "a_name": va.name,
                "b_name": vb.name,
                "polarity": kept,
                "similarity": sim,
                "plain_similarity": float(np.dot(Z[i].astype(np.float64), Z[j])),
                "a_content": va.content,
                "b_content": vb.content,
                "new_id": new_id,
                "name": merged.name,
                "content": merged.content,
                "fragments": len(frags),
                "cross_polarity": cross,
            }
        )
    return rows


_prune, _merge = prune, merge  # reachable inside maintain(), whose flags share the names


def maintain(
    memory: HypergraphMemory, llm: Merger | None, *, prune: bool = True, merge: bool = True
) -> MaintenanceReport:
    """One maintenance cycle (Algorithm "Periodic Memory Evolution"): ``prune`` then
    ``merge``, timed, with the memory's ``stats()`` before and after.

    ``prune=False`` / ``merge=False`` skip a step (e.g. a flat store that has no
    co-occurrence to merge on); ``llm`` may be None only when ``merge`` is False.
    ``pd.DataFrame(report.rows())`` shows the cycle as a memory diff.
    """
    if merge and llm is None:
        raise ValueError("maintain: merging needs a merger (llm), got None")
    t0 = time.perf_counter()
    before = dict(memory.stats())
    pruned = _prune(memory) if prune else []
    merged = _merge(memory, llm) if merge and llm is not None else []
    return MaintenanceReport(
        pruned=pruned,
        merged=merged,
        sizes_before=before,
        sizes_after=dict(memory.stats()),
        seconds=time.perf_counter() - t0,
    )
