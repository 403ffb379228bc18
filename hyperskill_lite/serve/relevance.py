"""The relevance floor of ``recall``, and recall's context framed as data.

The paper's retrieval always fills its budgets: with k_e = 2 the two nearest
trajectories come back however far they are, and their skills with them (an
exchange-rate task got the census skill). A served memory is asked about anything, so
`recall` keeps only what clears a floor: a trajectory of E* (Eq. 6) is kept when the
cosine of its embedding phi(task + lesson) to phi(d_q) (the trajectory path's score,
Eq. 5) is at least the floor, a skill of S_q (Eq. 9) when a kept trajectory holds it.
When nothing clears it, recall returns no skill and says why (the best score and the
floor). Our addition: the paper has no floor.

The default floor is measured, per encoder (``benchmarks/bench_serve.py --relevance``,
``benchmarks/results/relevance.json``, docs/guide/mcp.md): SkillWorld memories learned
from the tasks of half the domains of each profile, queried with held-out tasks of the
same domains (related) and with every task of the other domains (unrelated); the floor
is the threshold that maximises (related kept + unrelated dropped), Youden's J, rounded
to 0.01. ``recall(min_score=...)`` sets another floor for one call (-1 keeps
everything, the paper's behaviour).

The context is the paper's "Retrieved Memory Format" (core/retrieval/context.py) over
what was kept, framed by `agent.framing.frame_memory`: fenced as stored data, chat
template tokens, fence tags and role lines defused, the same defence the agent's tool
observations get.

Not here: retrieval itself (core/retrieval/), the tools (service.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hyperskill_lite.agent.framing import defuse, frame_memory
from hyperskill_lite.core.memory import HypergraphMemory
from hyperskill_lite.core.retrieval.context import format_context
from hyperskill_lite.core.retrieval.result import Retrieval

__all__ = ["FLOORS", "default_floor", "Relevant", "keep_relevant"]

FLOORS = {"minilm": 0.47, "hashing": 0.41}
"""The default floor per encoder family (module docstring; the measurement is in
benchmarks/results/relevance.json)."""


def default_floor(encoder_name: str) -> float:
    """The measured floor for an encoder's name (its family: "minilm(...)" -> minilm);
    MiniLM's for an encoder not measured.

    >>> default_floor("hashing(dim=384,seed=0)"), default_floor("minilm(all-MiniLM-L6-v2)")
    (0.41, 0.47)
    """
    family = encoder_name.split("(", 1)[0].strip().lower()
    return FLOORS.get(family, FLOORS["minilm"])


@dataclass
class Relevant:
    """What recall returns of one retrieval after the floor: kept trajectories (with
    their scores) and skills, the ids to credit, the framed context, and why things
    were dropped."""

    edges: list[str] = field(default_factory=list)
    skills: list[dict[str, Any]] = field(default_factory=list)
    used_ids: list[str] = field(default_factory=list)
    context: str = ""
    best: float | None = None
    dropped_edges: int = 0
    dropped_skills: int = 0
    trajectories: list[dict[str, Any]] = field(default_factory=list)


def keep_relevant(memory: HypergraphMemory, r: Retrieval, floor: float, source: str
                  ) -> Relevant:
    """Apply the floor to retrieval `r` over `memory` (module docstring); the context
    framed with `source` named as the memory it comes from."""
    scores = r.edge_scores
    out = Relevant(best=max(scores.values()) if scores else None)
    kept = [e for e in r.edge_ids if scores.get(e, -2.0) >= floor]
    out.edges, out.dropped_edges = kept, len(r.edge_ids) - len(kept)
    keep_set = set(kept)
    skills = [s for s in r.skill_ids if keep_set & set(r.skill_edges.get(s, []))]
    out.dropped_skills = len(r.skill_ids) - len(skills)
    if not kept:
        return out
    views = memory.nodes(skills)
    lessons = [(text, ok) for e, text, ok in r.lessons if e in keep_set and text]
    strategies = [(v.name, v.content) for v in views if v.polarity == "success"]
    mistakes = [(v.name, v.content) for v in views if v.polarity == "failure"]
    out.context = frame_memory(format_context(lessons, strategies, mistakes), source)
    out.skills = [{"id": v.id, "name": defuse(v.name), "polarity": v.polarity,
                   "kappa": int(r.kappa.get(v.id, 0)),
                   "score": round(float(r.skill_scores.get(v.id, 0.0)), 4)} for v in views]
    success = {e: ok for e, _text, ok in r.lessons}
    out.trajectories = [{"id": e, "score": round(float(scores[e]), 4),
                         "success": bool(success.get(e, False))} for e in kept]
    # a step of R_u (Eq. 4) is credited when a kept trajectory holds it
    held = {n for e in kept for n in memory.edge(e).node_ids if n.startswith("u")}
    steps = [u for u in r.subtask_ids if u in held]
    out.used_ids = [*steps, *(v.id for v in views), *kept]
    return out
