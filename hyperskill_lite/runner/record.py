"""An episode's record (one line of ``OUT/episodes.jsonl``) as a typed dataclass.

`EpisodeRecord` holds the fields every record has; the optional ones (retrieval,
explain, update, reasoning, tools_used, tool_errors, setup_seconds, judge, learn_judge,
usage, memory_tokens, errored) sit in `optional` under their JSON names and are written
only when present. ``to_dict(version)`` gives the JSON object of a record format:
version 1 is the format every earlier run folder holds (no version key is written, so
old and new folders read alike; the lines are written with sorted keys, so the bytes do
not depend on field order).

>>> r = EpisodeRecord(index=0, task_id="t1", success=True, learned_success=True)
>>> sorted(r.to_dict())[:4], r.to_dict()["retrieved"]
(['answer', 'calls', 'context_tokens', 'error'], [])

Not here: running an episode (episode.py), writing and reading records (files.py).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["EpisodeRecord", "RECORD_VERSION"]

RECORD_VERSION = 1
"""The record format `EpisodeRecord.to_dict` writes by default (today's keys)."""


@dataclass
class EpisodeRecord:
    """The fields of every episode record (their JSON names); see the module docstring."""

    index: int
    task_id: str
    success: bool
    learned_success: bool | None
    steps: int = 0
    calls: int = 0
    tokens: int = 0
    context_tokens: int = 0
    injected: int = 0
    memory_llm_calls: int = 0
    memory_seconds: float = 0.0
    seconds: float = 0.0
    retrieved: list[Any] = field(default_factory=list)
    answer: str | None = None
    error: str | None = None
    optional: dict[str, Any] = field(default_factory=dict)
    """Fields a record has only sometimes, by JSON name (e.g. "errored", "usage")."""

    def to_dict(self, version: int = RECORD_VERSION) -> dict[str, Any]:
        """The record's JSON object in format `version` (only 1 exists)."""
        if version != 1:
            raise ValueError(f"episode record format {version} is unknown; this version "
                             f"writes format {RECORD_VERSION}")
        out = asdict(self)
        optional = out.pop("optional")
        return {**out, **optional}
