"""The plain records the memory takes and returns: skills, context items, maintenance reports.

These are the parts of the toolkit's vocabulary the paper's core needs (§3): a `Skill`
goes into a skill node (c_s with its polarity), a `Fragment` is what a merger sees of a
hyperedge two merge candidates share, a `ContextItem` is one retrieved piece
shown to the agent, a `MaintenanceReport` says what one cycle of Algorithm "Periodic
Memory Evolution" did. They live in `core/` so the core imports nothing else of the
package; the runner's vocabulary (tasks, episodes, protocols) is `hyperskill_lite.types`.

Not here: anything that computes (memory.py, retrieval/, maintenance.py).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

__all__ = ["Polarity", "Skill", "skill_text", "Fragment", "ContextItem", "MaintenanceReport",
           "MERGE_DETAILS"]

Polarity = Literal["success", "failure"]


@dataclass
class Skill:
    """An extracted unit of reusable knowledge (paper §3.2, skill node content c_s).

    `polarity` is "success" for a strategy to follow (extracted after a success) or
    "failure" for a mistake to avoid (extracted after a failure). `meta` is carried
    through dedup and merge untouched by the memory (SkillWorld hides its latent
    strategy ids there).
    """

    name: str
    content: str
    polarity: Polarity = "success"
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return skill_text(self.name, self.content)


def skill_text(name: str, content: str) -> str:
    """The text embedded for a skill node: ``"name: content"`` (our choice; the paper
    embeds c_s, which it describes as a label plus a description).

    >>> skill_text("Targeted Database Search", "Query the registry first.")
    'Targeted Database Search: Query the registry first.'
    """
    return f"{name}: {content}" if name else content


@dataclass(frozen=True)
class Fragment:
    """One shared trajectory fragment of a merge candidate pair: the task and lesson of
    a hyperedge that holds both skills (§3.5: LLM-Merge "reasons over the contents of
    v_a, v_b, and their shared trajectory fragments"). `meta` is the hyperedge's meta
    (SkillWorld's latent ids of the lesson)."""

    task: str
    lesson: str
    success: bool
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass
class ContextItem:
    """One piece of retrieved memory shown to the agent.

    `kind` is what the item is ("lesson", "skill", "mistake", "workflow", "insight",
    "trajectory", ...); `text` is what the agent reads; `meta` is the hidden metadata of
    the stored text (SkillWorld's latent strategy ids). An executor sees items, never
    which memory system produced them.
    """

    kind: str
    text: str
    meta: dict[str, Any] = field(default_factory=dict)


MERGE_DETAILS = ("a_content", "b_content", "content", "plain_similarity")
"""Keys of a merge row that `MaintenanceReport.rows` leaves out of its table (the texts
before and after, and the plain cosine beside Eq. 14's propagated one)."""


@dataclass
class MaintenanceReport:
    """What one maintenance cycle did (Algorithm "Periodic Memory Evolution").

    `pruned`: one dict per removed node: ``{"id", "kind", "polarity", "content", "nu",
    "gamma"}``. `merged`: one dict per merge: ``{"a", "b", "similarity", "new_id",
    "name", ...}`` with the texts before and after and the plain cosine
    (`maintenance.merge` lists them). `sizes_before` / `sizes_after`: the memory's
    `stats()`.
    """

    pruned: list[dict[str, Any]] = field(default_factory=list)
    merged: list[dict[str, Any]] = field(default_factory=list)
    sizes_before: dict[str, int] = field(default_factory=dict)
    sizes_after: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def n_pruned(self) -> int:
        return len(self.pruned)

    @property
    def n_merged(self) -> int:
        return len(self.merged)

    def rows(self) -> list[dict[str, Any]]:
        """One flat row per operation, for a table (``pd.DataFrame(report.rows())``); the
        merges' texts and plain cosine (`MERGE_DETAILS`) stay in `merged`."""
        out = [{"op": "prune", **p} for p in self.pruned]
        out += [{"op": "merge", **{k: v for k, v in m.items() if k not in MERGE_DETAILS}}
                for m in self.merged]
        return out

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
