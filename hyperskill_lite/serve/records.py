"""The journal's records: what one update of a served memory is, and how it is applied.

A ``learn`` record is one `LearnItem` (paper §3.4: task, plan P_0, extracted skills and
lesson, outcome, steps, the ids its retrieval used) plus the embeddings of its texts; a
``maintain`` record is one maintenance cycle (the nodes pruned, Eq. 11, and the pairs
merged with their merged skills, Eq. 14) plus the merged skills' embeddings; a
``forget`` record names the skills and trajectories a client took back (forget.py, our
addition). Applying a record only calls `HypergraphMemory.add_trajectory`,
`remove_nodes` and `merge_nodes` (and forget.py's rebuild without a hyperedge), with
the embeddings put in the encoder's cache first: the same records in the same order give
the same memory, ids included, in every process, and nothing is embedded twice.

>>> from hyperskill_lite.core.embed import HashingEncoder
>>> from hyperskill_lite.core.memory import HypergraphMemory
>>> enc = HashingEncoder(dim=32)
>>> rec = learn_record(LearnItem("Find X", ["search X"], [Skill("Look Up", "Search.")],
...                              "Search first.", True, 3), enc)
>>> rec["seq"] = 1
>>> out = apply_learn(HypergraphMemory(enc), rec)
>>> out["edge"], out["update"]["skills"][0]["node"]
('e1', 's1')

Not here: the file the records live in (journal.py), who applies them when (shared.py).
"""

from __future__ import annotations

import base64
import copy
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hyperskill_lite.core.embed import Encoder
from hyperskill_lite.core.memory import HypergraphMemory
from hyperskill_lite.core.records import Skill, skill_text
from hyperskill_lite.serve.forget import forget

__all__ = ["LearnItem", "MergeItem", "LEARN_ID", "RecordError", "learn_texts",
           "learn_record", "maintain_record", "forget_record", "apply_learn",
           "apply_maintain", "apply_forget", "OPS"]

OPS = ("learn", "maintain", "forget")
"""The record operations this release applies."""

LEARN_ID = "learn_id"
"""The hyperedge meta key holding the id of the learn record that made it."""


class RecordError(ValueError):
    """A record this release cannot apply (names the record)."""


@dataclass
class LearnItem:
    """What one ``learn`` adds (paper §3.4): the task d_q, its plan P_0 (subtask steps),
    the extracted skills and lesson l_e, the outcome r_i and steps T_i, and the ids of
    the elements its retrieval used (R_u, S_q, E*: their Eq. 3 stats are updated)."""

    task: str
    plan: list[str]
    skills: list[Skill]
    lesson: str
    success: bool
    steps: int
    calls: int = 0
    used_ids: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class MergeItem:
    """One merge of a maintenance cycle: skill nodes `a` and `b` become `skill`;
    `cross` when they differ in polarity (only under ``merge_scope="all"``)."""

    a: str
    b: str
    skill: Skill
    cross: bool = False


@dataclass
class _Used:
    retrieved_ids: list[str]


def learn_texts(item: LearnItem) -> list[str]:
    """The texts `HypergraphMemory.add_trajectory` embeds for `item`, in its order."""
    return [f"{item.task}\n{item.lesson}", *item.plan,
            *(skill_text(s.name, s.content) for s in item.skills)]


def _pack(vectors: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(vectors, dtype="<f4").tobytes()).decode()


def _unpack(rec: dict[str, Any], n: int, dim: int) -> np.ndarray:
    arr = np.frombuffer(base64.b64decode(rec.get("vectors") or ""), dtype="<f4")
    if arr.size != n * dim:
        raise RecordError(f"record {rec.get('seq')} carries {arr.size} vector values, "
                          f"expected {n} x {dim} (another encoder?)")
    return arr.reshape(n, dim).astype(np.float32)


def _skill_dict(s: Skill) -> dict[str, Any]:
    return {"name": s.name, "content": s.content, "polarity": s.polarity, "meta": s.meta}


def _skill(d: dict[str, Any]) -> Skill:
    return Skill(d["name"], d["content"], d["polarity"], dict(d.get("meta") or {}))


def _seed(encoder: Encoder, texts: list[str], vectors: np.ndarray) -> None:
    if hasattr(encoder, "seed_cache"):
        encoder.seed_cache(texts, vectors)


def learn_record(item: LearnItem, encoder: Encoder) -> dict[str, Any]:
    """The record of `item`, its texts embedded by `encoder` (no ``seq`` yet: the journal
    gives it)."""
    vectors = encoder.encode(learn_texts(item))
    return {"op": "learn", "id": uuid.uuid4().hex, "task": item.task, "plan": item.plan,
            "skills": [_skill_dict(s) for s in item.skills], "lesson": item.lesson,
            "success": bool(item.success), "steps": int(item.steps), "calls": int(item.calls),
            "used_ids": list(item.used_ids), "meta": item.meta, "vectors": _pack(vectors)}


def maintain_record(prune: Sequence[str], merges: Sequence[MergeItem], encoder: Encoder
                    ) -> dict[str, Any]:
    """The record of one maintenance cycle, the merged skills embedded by `encoder`."""
    texts = [m.skill.text for m in merges]
    return {"op": "maintain", "id": uuid.uuid4().hex, "prune": list(prune),
            "merges": [{"a": m.a, "b": m.b, "skill": _skill_dict(m.skill),
                        "cross": bool(m.cross)} for m in merges],
            "vectors": _pack(encoder.encode(texts)) if texts else ""}


def forget_record(ids: Sequence[str]) -> dict[str, Any]:
    """The record of one ``forget`` call: the skill and trajectory ids to remove."""
    return {"op": "forget", "id": uuid.uuid4().hex, "ids": list(ids)}


def learn_item(rec: dict[str, Any]) -> LearnItem:
    """The `LearnItem` a learn record holds."""
    return LearnItem(rec["task"], list(rec["plan"]), [_skill(s) for s in rec["skills"]],
                     rec["lesson"], bool(rec["success"]), int(rec["steps"]),
                     int(rec.get("calls", 0)), list(rec.get("used_ids", [])),
                     dict(rec.get("meta") or {}))


def apply_learn(memory: HypergraphMemory, rec: dict[str, Any]) -> dict[str, Any]:
    """Add a learn record's hyperedge to `memory` (the caller holds its lock). Returns
    {"edge", "update" (`last_update`), "sizes", "injected" (used skills and
    hyperedges), "success"}."""
    item = learn_item(rec)
    texts = learn_texts(item)
    _seed(memory.encoder, texts, _unpack(rec, len(texts), int(memory.encoder.dim)))
    edge = memory.add_trajectory(
        item.task, item.plan, item.skills, item.lesson, item.success, item.steps,
        item.calls, retrieval=_Used(item.used_ids), meta={**item.meta, LEARN_ID: rec["id"]})
    return {"edge": edge, "update": copy.deepcopy(memory.last_update),
            "sizes": memory.stats(), "injected": sum(i[:1] in ("s", "e")
                                                     for i in item.used_ids),
            "success": item.success}


def _alive(memory: HypergraphMemory, id: str) -> bool:
    try:
        memory.node(id)
    except KeyError:
        return False
    return True


def apply_maintain(memory: HypergraphMemory, rec: dict[str, Any]) -> dict[str, Any]:
    """Apply a maintenance record to `memory` (the caller holds its lock): prune the
    listed nodes still present, then merge each pair whose two nodes are both still
    present. Returns {"pruned", "merged", "sizes_before", "sizes_after"}."""
    merges = rec.get("merges", [])
    if merges:
        texts = [skill_text(m["skill"]["name"], m["skill"]["content"]) for m in merges]
        _seed(memory.encoder, texts, _unpack(rec, len(texts), int(memory.encoder.dim)))
    before = memory.stats()
    pruned = [i for i in rec.get("prune", []) if _alive(memory, i)]
    if pruned:
        memory.remove_nodes(pruned)
    merged = []
    for m in merges:
        if not (_alive(memory, m["a"]) and _alive(memory, m["b"])):
            continue
        s = _skill(m["skill"])
        new = memory.merge_nodes(m["a"], m["b"], s,
                                 polarity=s.polarity if m.get("cross") else None)
        merged.append({"a": m["a"], "b": m["b"], "new_id": new, "name": s.name})
    return {"pruned": pruned, "merged": merged, "sizes_before": before,
            "sizes_after": memory.stats()}


def apply_forget(memory: HypergraphMemory, rec: dict[str, Any]
                 ) -> tuple[HypergraphMemory, dict[str, Any]]:
    """Apply a forget record (the caller holds the memory's lock): the memory (a new
    object when a trajectory went) and {"removed", "missing", "sizes_after"}."""
    ids = [str(i) for i in rec.get("ids", [])]
    memory, out = forget(memory, ids)
    return memory, {**out, "sizes_after": memory.stats()}
