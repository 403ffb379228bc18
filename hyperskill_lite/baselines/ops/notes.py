"""The units the baselines store and exchange with their model operations: `MemoryNote`
(a ReasoningBank item, an ExpeL insight, an AWM workflow, a Voyager skill, ...),
`InsightOp` (one ExpeL rule operation) and `KnowledgeUpdate` (what PlugMem structures out
of an episode), with the small reply helpers they share."""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass, field
from typing import Any

from hyperskill_lite.types import Polarity

INSIGHT_OPS = ("ADD", "EDIT", "UPVOTE", "DOWNVOTE")
_OP_SYNONYMS = {"AGREE": "UPVOTE", "REMOVE": "DOWNVOTE", "DISAGREE": "DOWNVOTE"}
MAX_NOTE_CHARS = 1500


def _clean(s: Any) -> str:
    return " ".join(str(s).split()) if s is not None else ""


def _count(v: Any) -> int:
    """A count from a reply: an integer in 1..10**6, 1 when unreadable."""
    try:
        return min(10**6, max(1, int(v)))
    except (TypeError, ValueError, OverflowError):
        return 1


def _as_list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else [v] if isinstance(v, str) else []


@dataclass
class MemoryNote:
    """One stored unit of a baseline memory.

    `polarity` is "success" (advice to follow) or "failure" (a mistake to avoid);
    `count` is what the method counts for it (ExpeL importance, cheatsheet usage);
    `meta` is hidden metadata, carried untouched (SkillWorld's latent ids).

    >>> MemoryNote("Rare Clue First", "Search the rarest clue first.").text
    'Rare Clue First: Search the rarest clue first.'
    """

    title: str
    content: str
    description: str = ""
    polarity: Polarity = "success"
    count: int = 1
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """What the agent reads: ``"title: content"`` (or the content alone)."""
        return f"{self.title}: {self.content}" if self.title else self.content

    def to_dict(self) -> dict[str, Any]:
        return copy.deepcopy(asdict(self))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MemoryNote:
        return cls(**copy.deepcopy(d))


@dataclass
class InsightOp:
    """One ExpeL rule operation on the list the model was shown: ``ADD`` a new rule
    (`note`), ``EDIT`` rule `index` into `note`, ``UPVOTE`` or ``DOWNVOTE`` rule `index`
    (0-based)."""

    op: str
    index: int | None = None
    note: MemoryNote | None = None


@dataclass
class KnowledgeUpdate:
    """What PlugMem structures out of one episode: the subgoal `intents` it pursued,
    `prescriptions` (how-to knowledge) as ``(intent index, note)`` and `propositions`
    (facts) as ``(concept, note)``."""

    intents: list[str] = field(default_factory=list)
    prescriptions: list[tuple[int, MemoryNote]] = field(default_factory=list)
    propositions: list[tuple[str, MemoryNote]] = field(default_factory=list)
