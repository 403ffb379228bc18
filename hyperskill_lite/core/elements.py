"""A memory's elements as the rest of the code sees them (paper §3.2): `NodeView` and
`EdgeView`, frozen snapshots of one node or hyperedge with its Eq. 3 stats and gamma; the
skill polarities and their codes (`POLARITIES`); and `Retrieved`, what the stats update
(§3.4) needs from a retrieval.

`HypergraphMemory` (memory.py) builds the snapshots and takes a `Retrieved`. Not here: the memory itself and its storage (memory.py, store.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = ["NodeView", "EdgeView", "Retrieved", "POLARITIES"]

POLARITIES = ("success", "failure")  # skill polarity code 0, 1


class Retrieved(Protocol):
    """What the stats update needs from a retrieval: the ids of the elements it used
    (R_u, S_q and E*). `retrieval.Retrieval` has it; so does anything with the attribute."""

    retrieved_ids: list[str]


@dataclass(frozen=True)
class NodeView:
    """A snapshot of one node. `polarity` is None and `name` "" for subtask nodes;
    `content` is the skill content or the subtask step text; `gamma` is Eq. 3 now."""

    id: str
    kind: str
    polarity: str | None
    name: str
    content: str
    sigma: float
    nu: int
    mean_steps: float
    gamma: float
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class EdgeView:
    """A snapshot of one hyperedge: `node_ids` lists its subtask nodes then its skill
    nodes, each in insertion order; `gamma` is Eq. 3 now."""

    id: str
    node_ids: list[str]
    task: str
    lesson: str
    success: bool
    steps: int
    calls: int
    sigma: float
    nu: int
    mean_steps: float
    gamma: float
    meta: dict[str, Any] = field(default_factory=dict)
