"""Dual-path hyperedge retrieval and co-occurrence skill ranking (paper §3.3 and §3.4, Eqs. 4-9).

Subtask path: R_u = top-k_u subtask nodes by cos(phi("\\n".join(P_0)), h_v) (Eq. 4),
E_sub = hyperedges incident to R_u. Trajectory path: E_traj = top-k_e hyperedges by
cos(phi(d_q), h_e) (Eq. 5). E* = E_traj u E_sub (Eq. 6); R_s = skills of E* (Eq. 7);
kappa(v) = |{e in E* : v in e}| (Eq. 8); S_q = top-k_s of R_s by kappa, ties broken by
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

Not here: the decomposition P_0 (an LLM call; callers pass the plan), the stats update
after the episode (memory.add_trajectory), re-ranking by utility (the paper has none).
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from hyperskill_lite.core.records import ContextItem

if TYPE_CHECKING:
    from hyperskill_lite.core.memory import HypergraphMemory

__all__ = ["Retrieval", "retrieve", "top_k", "kappa_counts", "rank_skills", "format_context",
           "MODES"]

MODES = ("full", "no-subtask", "no-trajectory", "flat")


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


def format_context(
    lessons: Sequence[tuple[str, bool]],
    skills: Sequence[tuple[str, str]],
    mistakes: Sequence[tuple[str, str]],
) -> str:
    """The paper's "Retrieved Memory Format": numbered "## Past Experience" lessons
    tagged [success]/[failure], "## Relevant Skills" and "## Mistakes to Avoid" as
    "**Name**: content"; empty sections are left out.

    >>> print(format_context([("Check the archive.", True)], [("Source First", "Read it.")], []))
    ## Past Experience
    1. [success] Check the archive.
    <BLANKLINE>
    ## Relevant Skills
    1. **Source First**: Read it.
    """
    sections = []
    if lessons:
        lines = [f"{i}. {_lesson_line(t, ok)}" for i, (t, ok) in enumerate(lessons, 1)]
        sections.append("## Past Experience\n" + "\n".join(lines))
    for title, items in (("Relevant Skills", skills), ("Mistakes to Avoid", mistakes)):
        if items:
            lines = [f"{i}. {_skill_line(n, c)}" for i, (n, c) in enumerate(items, 1)]
            sections.append(f"## {title}\n" + "\n".join(lines))
    return "\n\n".join(sections)


def _lesson_line(text: str, success: bool) -> str:
    return f"[{'success' if success else 'failure'}] {text}"


def _skill_line(name: str, content: str) -> str:
    return f"**{name}**: {content}" if name else content


@dataclass
class Retrieval:
    """What one retrieval found (Eq. 4-9) and the context built from it.

    Ids: `subtask_ids` R_u (rank order), `subtask_edge_ids` E_sub (by R_u rank, then
    creation), `trajectory_edge_ids` E_traj (rank order), `edge_ids` E* (E_traj then the
    rest of E_sub), `kappa` skill id -> count over R_s (in rank order), `skill_ids` S_q.
    `lessons`: (edge id, lesson, success) for E*. `context_items` carry the element's
    meta; their text is the context line without its number. Scores: `subtask_scores`
    cos to phi(plan) of R_u, `edge_scores` cos to phi(task) of E*, `skill_scores` cos to
    phi(task) of R_s (all of the ranked skills in flat mode).
    """

    task: str = ""
    plan: list[str] = field(default_factory=list)
    mode: str = "full"
    subtask_ids: list[str] = field(default_factory=list)
    subtask_edge_ids: list[str] = field(default_factory=list)
    trajectory_edge_ids: list[str] = field(default_factory=list)
    edge_ids: list[str] = field(default_factory=list)
    kappa: dict[str, int] = field(default_factory=dict)
    skill_ids: list[str] = field(default_factory=list)
    lessons: list[tuple[str, str, bool]] = field(default_factory=list)
    context: str = ""
    context_items: list[ContextItem] = field(default_factory=list)
    subtask_scores: dict[str, float] = field(default_factory=dict)
    edge_scores: dict[str, float] = field(default_factory=dict)
    skill_scores: dict[str, float] = field(default_factory=dict)
    skill_edges: dict[str, list[str]] = field(default_factory=dict)
    skill_labels: dict[str, str] = field(default_factory=dict)
    excluded_edge_ids: list[str] = field(default_factory=list)
    """Hyperedges left out by ``exclude_edges`` (own-task exclusion), present in memory."""

    def to_record(self) -> dict[str, Any]:
        """The retrieval as plain JSON data: every field except `context_items` (whose
        meta may hold a world's hidden metadata), lessons as [edge id, lesson, success]
        lists. `from_record` rebuilds it, so a run's records can show later what a task
        saw (``Retrieval.from_record(record["explain"]).explain()``); our addition.

        >>> r = Retrieval(task="t", skill_ids=["s1"], kappa={"s1": 2}, lessons=[("e1", "L", True)])
        >>> Retrieval.from_record(r.to_record()) == Retrieval(
        ...     task="t", skill_ids=["s1"], kappa={"s1": 2}, lessons=[("e1", "L", True)])
        True
        """
        doc = {f.name: copy.deepcopy(getattr(self, f.name)) for f in fields(self)
               if f.name != "context_items"}
        doc["lessons"] = [[e, text, bool(ok)] for e, text, ok in self.lessons]
        return doc

    @classmethod
    def from_record(cls, doc: dict[str, Any]) -> Retrieval:
        """A `Retrieval` from `to_record` data (`context_items` empty); keys it does not
        know are ignored, missing ones take their defaults."""
        known = {f.name for f in fields(cls)} - {"context_items"}
        kw = {k: copy.deepcopy(v) for k, v in doc.items() if k in known}
        kw["lessons"] = [(str(e), str(text), bool(ok)) for e, text, ok in doc.get("lessons", [])]
        return cls(**kw)

    @property
    def retrieved_ids(self) -> list[str]:
        """R_u + S_q + E*: the elements whose stats the episode updates (Eq. 3)."""
        return [*self.subtask_ids, *self.skill_ids, *self.edge_ids]

    def explain(self) -> str:
        """A readable account: both paths, E*, and for each skill of S_q its kappa,
        cosine to the task, and which path(s) and hyperedges brought it."""
        f = "{:.3f}".format
        out = [f"Retrieval [{self.mode}] for task: {self.task!r}"]
        if self.plan:
            out.append("Plan P_0: " + " | ".join(self.plan))
        if self.mode != "flat":
            r_u = ", ".join(f"{u} ({f(self.subtask_scores[u])})" for u in self.subtask_ids)
            out.append(
                f"Subtask path (Eq. 4): R_u = [{r_u}] -> E_sub = [{', '.join(self.subtask_edge_ids)}]"
            )
            e_t = ", ".join(f"{e} ({f(self.edge_scores[e])})" for e in self.trajectory_edge_ids)
            out.append(f"Trajectory path (Eq. 5): E_traj = [{e_t}]")
            out.append(f"E* (Eq. 6) = [{', '.join(self.edge_ids)}]")
            out.append(
                f"S_q (Eq. 9): top-{len(self.skill_ids)} of {len(self.kappa)} candidates "
                "by kappa, then cosine to the task"
            )
        else:
            out.append(
                f"S_q (flat, w/o hypergraph): top-{len(self.skill_ids)} skills by cosine to the task"
            )
        sub, traj = set(self.subtask_edge_ids), set(self.trajectory_edge_ids)
        for i, s in enumerate(self.skill_ids, 1):
            line = f"  {i}. {s} {self.skill_labels.get(s, '')}: cos={f(self.skill_scores[s])}"
            if self.mode != "flat":
                via = []
                for e in self.skill_edges.get(s, []):
                    paths = [p for p, es in (("subtask", sub), ("trajectory", traj)) if e in es]
                    via.append(f"{e} ({'+'.join(paths)})")
                line += f", kappa={self.kappa[s]}, via " + ", ".join(via)
            out.append(line)
        if not self.skill_ids:
            out.append("  (no skills)")
        return "\n".join(out)


def _copy(meta: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of an element's meta for a context item ({} is common: no copy work)."""
    return copy.deepcopy(meta) if meta else {}


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
    k_u, k_e, k_s = ks["k_u"], ks["k_e"], ks["k_s"]
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
        s_u = _rounded(U.emb[: U.n] @ q[1])  # (n_u,) cos(h_P0, h_v)
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
        out.subtask_scores = dict(zip([U.ids[r] for r in r_u.tolist()], s_u[r_u].tolist()))
    if use_traj:
        s_e = _rounded(E.emb[: E.n] @ q_task)  # (n_e,) cos(h_dq, h_e)
        s_e[ex] = -np.inf
        e_traj = top_k(s_e, min(k_e, E.n - len(ex)))  # Eq. 5
    e_star = _distinct(np.concatenate([e_traj, e_sub]))  # Eq. 6

    if mode == "flat":
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
    else:
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

    ru, es, sq = r_u.tolist(), e_star.tolist(), s_q.tolist()  # python ints from here on
    out.subtask_ids = [U.ids[r] for r in ru]
    out.subtask_edge_ids = [E.ids[j] for j in e_sub.tolist()]
    out.trajectory_edge_ids = [E.ids[j] for j in e_traj.tolist()]
    out.edge_ids = [E.ids[j] for j in es]
    out.edge_scores = dict(zip(out.edge_ids, (E.emb[e_star] @ q_task).tolist()))
    out.skill_ids = [S.ids[r] for r in sq]
    lesson, success = E.text["lesson"], E.success[e_star].tolist()
    out.lessons = [(E.ids[j], lesson[j], ok) for j, ok in zip(es, success)]

    shown = [(j, ok) for j, ok in zip(es, success) if lesson[j]]
    items = [
        ContextItem("lesson", _lesson_line(lesson[j], ok), _copy(E.meta[j])) for j, ok in shown
    ]
    lines: dict[str, list[tuple[str, str]]] = {"skill": [], "mistake": []}
    pol = S.polarity[s_q].tolist()
    for kind, code in (("skill", 0), ("mistake", 1)):
        for r in (r for r, c in zip(sq, pol) if c == code):
            name, content = S.text["name"][r], S.text["content"][r]
            lines[kind].append((name, content))
            items.append(ContextItem(kind, _skill_line(name, content), _copy(S.meta[r])))
    out.skill_labels = {
        S.ids[r]: f"{S.text['name'][r]!r} [{'success' if c == 0 else 'failure'}]"
        for r, c in zip(sq, pol)
    }
    out.context_items = items
    out.context = format_context(
        [(lesson[j], ok) for j, ok in shown], lines["skill"], lines["mistake"]
    )
    return out
