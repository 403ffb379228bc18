"""`Retrieval`: what one retrieval found (Eqs. 4-9), the context built from it, its JSON
record for the run's records and a readable account (`explain`).

Not here: computing it (`retrieve`, the paths and the ranking).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields
from typing import Any

from hyperskill_lite.core.records import ContextItem

__all__ = ["Retrieval"]


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
