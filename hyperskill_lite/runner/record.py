"""An episode's record (one line of ``OUT/episodes.jsonl``) as a typed dataclass.

`EpisodeRecord` names every field a record can hold (README, "Runs, records and the
evaluation protocol"): the ones every record has (index, task_id, success, ...), and the
ones it has only sometimes, which are None when absent and then not written: what the
episode itself adds (errored, retrieval, explain, update, reasoning, tools_used,
tool_errors, setup_seconds, judge, learn_judge, usage, memory_tokens; episode.py) and
what the loop adds after it (phase, maintenance, sizes, health_warning; loop.py).

``to_dict(version)`` gives the JSON object of a record format: version 1 is the format
every earlier run folder holds (no version key is written, so old and new folders read
alike; the keys come in the order earlier versions wrote them, and the lines are written
with sorted keys, so the bytes are today's). `EpisodeRecord.from_dict` reads any record
back, an old one that lacks fields or a newer one with fields this version does not know
(kept in `extra` and written again as they were).

>>> r = EpisodeRecord(index=0, task_id="t1", success=True, learned_success=True)
>>> sorted(r.to_dict())[:4], r.to_dict()["retrieved"], "phase" in r.to_dict()
(['answer', 'calls', 'context_tokens', 'error'], [], False)
>>> r.phase = "eval"
>>> EpisodeRecord.from_dict(r.to_dict()) == r
True

Not here: running an episode (episode.py), the loop that adds its own fields (loop.py),
writing and reading the lines (files.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

__all__ = ["EpisodeRecord", "RECORD_VERSION", "OPTIONAL_FIELDS"]

RECORD_VERSION = 1
"""The record format `EpisodeRecord.to_dict` writes by default (today's keys)."""


@dataclass
class EpisodeRecord:
    """Every field of an episode record, by its JSON name; see the module docstring.

    The fields from `index` to `error` are in every record; those from `errored` to
    `health_warning` only when set (None means absent), in the order they were added.
    """

    index: int
    task_id: str
    success: bool
    learned_success: bool | None
    """The outcome the memory learned from; None when nothing was learned (a frozen
    memory, an errored or crashed episode)."""
    steps: int = 0
    calls: int = 0
    tokens: int = 0
    context_tokens: int = 0
    injected: int = 0
    """How many context items the memory gave the agent."""
    memory_llm_calls: int = 0
    memory_seconds: float = 0.0
    seconds: float = 0.0
    retrieved: list[Any] = field(default_factory=list)
    answer: str | None = None
    error: str | None = None
    # -- the episode's optional fields (episode.py) --
    errored: str | None = None
    """``"exception"`` (an unexpected exception failed the episode) or ``"crash"`` (the
    process died during it)."""
    retrieval: dict[str, Any] | None = None
    """What the retrieval did when it fell back or excluded something."""
    explain: Any = None
    """The whole retrieval, for the memory studio."""
    update: dict[str, Any] | None = None
    """What the memory's update (`end`) did, as it reported it."""
    reasoning: Any = None
    """A reasoning server's reasoning_content, per step."""
    tools_used: list[Any] | None = None
    """The live agent's tool calls, in order (an empty list when it called none)."""
    tool_errors: list[Any] | None = None
    setup_seconds: float | None = None
    """One-off setup (a lazily loaded encoder) left out of `seconds`."""
    judge: dict[str, Any] | None = None
    """The scoring judge's verdict (``{"kind", "correct", "reason"}``)."""
    learn_judge: dict[str, Any] | None = None
    """The verdict the memory learned from, when a learn judge was given."""
    usage: dict[str, int] | None = None
    """This episode's model usage (differences of the cumulative counters)."""
    memory_tokens: int | None = None
    # -- the loop's fields (loop.py) --
    phase: str | None = None
    """``"learn"`` or ``"eval"`` in a run split by the evaluation protocol."""
    maintenance: dict[str, Any] | None = None
    """What the maintenance cycle after this episode did (health.maintenance_record)."""
    sizes: dict[str, int] | None = None
    """The memory's sizes after this episode (`MemorySystem.stats`)."""
    health_warning: dict[str, Any] | None = None
    """Once per run: the warning that a memory method had stored nothing."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Fields this version does not know (a record from a newer one), written back as read."""

    def to_dict(self, version: int = RECORD_VERSION) -> dict[str, Any]:
        """The record's JSON object in format `version` (only 1 exists)."""
        if version != 1:
            raise ValueError(f"episode record format {version} is unknown; this version "
                             f"writes format {RECORD_VERSION}")
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name == "extra":
                continue
            value = getattr(self, f.name)
            if f.name in OPTIONAL_FIELDS and value is None:
                continue
            out[f.name] = value
        return {**out, **self.extra}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> EpisodeRecord:
        """A record read back from its JSON object, of this format or an earlier one (a
        missing field takes its default, `learned_success` its outcome's absence)."""
        known = {f.name for f in fields(cls)} - {"extra"}
        kw = {k: v for k, v in d.items() if k in known}
        kw.setdefault("index", 0)
        kw.setdefault("task_id", "")
        kw.setdefault("success", False)
        kw.setdefault("learned_success", None)
        return cls(**kw, extra={k: v for k, v in d.items() if k not in known})


OPTIONAL_FIELDS = frozenset(f.name for f in fields(EpisodeRecord)
                            if f.name not in ("extra", "answer", "error", "learned_success")
                            and f.default is None)
"""The fields a record holds only sometimes (written only when not None)."""
