"""Forgetting: skills and trajectories taken out of a memory for good (the ``forget`` tool).

A skill node is removed with `HypergraphMemory.remove_nodes` (it leaves every hyperedge
it was in; the hyperedges stay, as pruning leaves them, Eq. 11). A trajectory (a
hyperedge) is removed with its subtask steps (each belongs to one trajectory) and with
the skills that no other trajectory holds (they came from it alone); the skills it
shares with other trajectories stay. The memory has no operation that removes a
hyperedge (the paper never removes one), so a trajectory is dropped from the memory's
columns (`to_state`, the saved format's arrays and texts), its row and memberships cut
and the later hyperedges renumbered by position, and the memory rebuilt from them
(`from_state`, which checks every column); ids are never reused, the counters keep
counting. Nothing is embedded again.

Applied from a journal record in every server process on the folder (records.py), so
it is deterministic; ids already gone are reported, not an error. Once the next
checkpoint is saved (the ``forget`` tool saves one at once) the texts are gone from the
folder and its journal.

>>> from hyperskill_lite.core.embed import HashingEncoder
>>> from hyperskill_lite.core.memory import HypergraphMemory
>>> from hyperskill_lite.core.records import Skill
>>> m = HypergraphMemory(HashingEncoder(dim=16))
>>> e1 = m.add_trajectory("t1", ["step"], [Skill("A", "a"), Skill("B", "b")], "l1", True, 2)
>>> e2 = m.add_trajectory("t2", [], [Skill("A", "a")], "l2", True, 2)
>>> m, out = forget(m, ["e1", "s9"])
>>> out["removed"], out["missing"], m.edge_ids(), m.node_ids()
(['e1', 'u1', 's2'], ['s9'], ['e2'], ['s1'])

Not here: the journal record (records.py), who may forget what (service.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hyperskill_lite.core.io.layout import TEXT_COLUMNS
from hyperskill_lite.core.io.state import from_state, to_state
from hyperskill_lite.core.memory import HypergraphMemory

__all__ = ["forget"]


def _alive(memory: HypergraphMemory, id: str) -> bool:
    try:
        memory.edge(id) if id.startswith("e") else memory.node(id)
    except KeyError:
        return False
    return True


def forget(memory: HypergraphMemory, ids: Sequence[str]
           ) -> tuple[HypergraphMemory, dict[str, Any]]:
    """Remove skills (``s…``) and trajectories (``e…``) from `memory` (module docstring).
    Returns the memory (a new object when a trajectory went) and {"removed": every id
    removed, the trajectories' steps and sole skills included, "missing": ids that were
    not there}."""
    edges = [i for i in ids if i.startswith("e") and _alive(memory, i)]
    skills = [i for i in ids if i.startswith("s") and _alive(memory, i)]
    missing = [i for i in ids if i not in edges and i not in skills]
    gone = set(edges)
    steps: list[str] = []
    for e in edges:
        for node in memory.edge(e).node_ids:
            if node.startswith("u"):
                steps.append(node)
            elif node not in skills and set(memory.shared_edges(node, node)) <= gone:
                skills.append(node)
    if steps or skills:
        memory.remove_nodes([*steps, *skills])
    if edges:
        memory = _without_edges(memory, edges)
    removed = [*edges, *steps, *skills]
    return memory, {"removed": removed, "missing": missing}


def _without_edges(memory: HypergraphMemory, edges: Sequence[str]) -> HypergraphMemory:
    """`memory` rebuilt without the hyperedges `edges` (none of them holds a node any
    more): their rows cut from the columns, the memberships of later hyperedges shifted
    down."""
    state = to_state(memory)
    arrays, text, man = state["arrays"], state["text"], state["manifest"]
    order = memory.edge_ids()  # saved order: live rows in insertion order
    drop = np.array(sorted(order.index(e) for e in edges), dtype=np.int64)
    keep = np.setdiff1d(np.arange(len(order)), drop)
    new_index = np.full(len(order), -1, dtype=np.int64)
    new_index[keep] = np.arange(keep.size)
    arrays["e_rows.npy"] = arrays["e_rows.npy"][keep]
    arrays["e_emb.npy"] = arrays["e_emb.npy"][keep]
    for col in TEXT_COLUMNS["e"]:
        text["e"][col] = [text["e"][col][i] for i in keep.tolist()]
    meta = text["meta"].get("e", {})
    text["meta"]["e"] = {str(int(new_index[int(i)])): m for i, m in meta.items()
                         if new_index[int(i)] >= 0}
    for k in ("u", "s"):
        inc = arrays[f"inc_{k}.npy"]
        inc = inc[np.isin(inc[:, 1], drop, invert=True)]
        arrays[f"inc_{k}.npy"] = np.stack([inc[:, 0], new_index[inc[:, 1]]], axis=1
                                          ).astype(np.int64).reshape(-1, 2)
        man["counts"][f"inc_{k}"] = int(arrays[f"inc_{k}.npy"].shape[0])
    man["counts"]["e"] = int(keep.size)
    return from_state(state, memory.encoder, memory.config)
