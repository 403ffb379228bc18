"""The unit most baselines store and exchange with their model operations: `MemoryNote`
(a ReasoningBank item, an ExpeL insight, an AWM workflow, a Voyager skill, ...), with the
small reply helpers they share. A record only one baseline's operation returns lives in
its module (ExpeL's `InsightOp`, PlugMem's `KnowledgeUpdate`)."""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass, field
from typing import Any

from hyperskill_lite.core.records import Polarity

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
