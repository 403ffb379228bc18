"""The typed results of the MCP tools: one pydantic model per tool, published as its
``outputSchema`` (the SDK derives it from the tool's return annotation and checks every
result against it), so a client knows each field by name and type.

Every model forbids fields it does not name: a result that drifts from its schema fails
in the server's tests, not in a client. Texts that come from the memory (skill names and
contents, lessons, tasks) are defused before they are put here (service.py,
relevance.py); ``RecallResult.context`` is framed as data.

Not here: what fills them (service.py), the tools' inputs (app.py, bounds.py).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["RecallResult", "LearnResult", "ForgetResult", "MaintainResult", "ExplainResult",
           "ElementResult", "StatsResult", "SkillHit", "TrajectoryHit", "LearnedSkill"]


class _Strict(BaseModel):
    """A result model that refuses fields it does not name."""

    model_config = ConfigDict(extra="forbid")


Notes = Field(description="What was skipped or went wrong, one line each.")


class SkillHit(_Strict):
    """A skill ``recall`` returns: its id, name, polarity, kappa (Eq. 8) and cosine."""

    id: str = Field(description="The skill node's id (pass it in used_ids, or to skill / "
                    "forget).")
    name: str
    polarity: str = Field(description="'success': a strategy to follow; 'failure': a "
                          "mistake to avoid.")
    kappa: int = Field(description="How many retrieved trajectories hold it (Eq. 8).")
    score: float = Field(description="Cosine of the skill to the task.")


class TrajectoryHit(_Strict):
    """A trajectory ``recall`` kept: its id, cosine (Eq. 5) and outcome."""

    id: str = Field(description="The trajectory (hyperedge) id.")
    score: float = Field(description="Cosine of the trajectory to the task (Eq. 5); kept "
                         "when at least the relevance floor.")
    success: bool


class Relevance(_Strict):
    """The relevance floor a recall applied and the closest trajectory's score."""

    best: float | None = Field(description="The closest trajectory's score (None: the "
                               "memory holds none).")
    floor: float = Field(description="The relevance floor this recall applied.")


class RecallResult(_Strict):
    """What ``recall`` returns: the framed context, the skills and trajectories behind it,
    and the handle to pass to ``learn``."""

    context: str = Field(description="Past lessons, relevant skills and mistakes to avoid, "
                         "framed as stored data: put it in front of your work as advice. "
                         "Empty when nothing relevant is stored.")
    skills: list[SkillHit]
    trajectories: list[TrajectoryHit]
    used_ids: list[str] = Field(description="The ids this recall used; the learn that "
                                "passes `handle` credits them.")
    handle: str = Field(description="Pass it to learn(handle=...) after the task: it "
                        "stands for the task text, its plan and used_ids.")
    plan: list[str] = Field(description="The subtask steps the task was decomposed into "
                            "(empty without a memory model).")
    scope: str | None
    relevance: Relevance
    model: str = Field(description="Which model the memory used: model, sampling or none.")
    notes: list[str] = Notes


class LearnedSkill(_Strict):
    """A skill one ``learn`` stored: a new node, or one joined by deduplication."""

    id: str
    name: str
    polarity: str
    dedup: bool = Field(description="True when it joined an existing skill (cosine >= "
                        "delta_dedup).")
    source: str = Field(description="'agent' (from your skills), or the model path that "
                        "extracted it.")


class LearnResult(_Strict):
    """What ``learn`` returns: the new trajectory, its plan and skills, the credit given,
    and the maintenance cycle it ran, if any."""

    edge: str = Field(description="The new trajectory's id.")
    plan: list[str]
    plan_from: str = Field(description="agent, recall, decomposition or none.")
    skills: list[LearnedSkill]
    lesson: str
    credited_ids: int
    scope: str | None
    model: str
    maintenance: dict[str, Any] | None = Field(
        default=None, description="The maintenance cycle this learn ran, if it did.")
    notes: list[str] = Notes


class ForgetResult(_Strict):
    """What ``forget`` returns: every id removed and the ids that were not there."""

    removed: list[str] = Field(description="Every id removed: the ids given, a "
                               "trajectory's subtask steps and the skills only it held.")
    missing: list[str] = Field(description="Ids that were not in the memory.")
    sizes: dict[str, int]
    scope: str | None
    notes: list[str] = Notes


class MaintainResult(_Strict):
    """What ``maintain`` returns: whether a cycle ran, what it pruned and merged, the
    sizes before and after."""

    ran: bool
    why: str | None = None
    reason: str | None = None
    pruned: list[str] | None = None
    merged: list[dict[str, Any]] | None = None
    sizes_before: dict[str, int] | None = None
    sizes_after: dict[str, int] | None = None
    candidates: int | None = None
    scope: str | None
    notes: list[str] = Notes


class ExplainResult(_Strict):
    """What ``explain`` returns: why a recall chose what it chose."""

    explanation: str
    used_ids: list[str]
    edge_scores: dict[str, float]
    floor: float
    scope: str | None
    model: str
    notes: list[str] = Notes


class ElementResult(_Strict):
    """A skill, subtask step or trajectory: the fields of its kind are set."""

    id: str
    kind: str = Field(description="skill, subtask or hyperedge.")
    scope: str | None
    sigma: float
    nu: int
    mean_steps: float
    gamma: float = Field(description="Utility (Eq. 3).")
    meta: dict[str, Any]
    polarity: str | None = None
    name: str | None = None
    content: str | None = None
    hyperedges: list[dict[str, Any]] | None = None
    node_ids: list[str] | None = None
    task: str | None = None
    lesson: str | None = None
    success: bool | None = None
    steps: int | None = None
    calls: int | None = None


class StatsResult(_Strict):
    """What ``stats`` returns: the memory's sizes, its folder, journal and maintenance
    counters."""

    sizes: dict[str, int]
    t_range: list[float] | None
    folder: str
    journal: str
    records_since_checkpoint: int
    learned_since_maintenance: int
    maintenance_cycles: int
    encoder: str
    model: str
    maintain_every: int
    relevance_floor: float
    scope: str | None
    scopes: list[str]
