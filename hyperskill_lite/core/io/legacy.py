"""Format 1 (one JSON record per element), read only: its records become a memory,
checked id by id; saving such a memory writes the current format.

Not here: reading format 1's files (read.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hyperskill_lite.core.config import HyperSkillConfig
from hyperskill_lite.core.elements import POLARITIES
from hyperskill_lite.core.embed import Encoder
from hyperskill_lite.core.io.layout import (
    MANIFEST,
    MemoryFormatError,
)
from hyperskill_lite.core.io.state import _fail
from hyperskill_lite.core.memory import HypergraphMemory


def _from_records_v1(state: dict[str, Any], encoder: Encoder, config: HyperSkillConfig | None,
                     path: Path) -> HypergraphMemory:
    """A memory from format-1 records (nodes.json, edges.json, two embedding arrays)."""
    man = state["manifest"]
    try:
        cfg = config or HyperSkillConfig.from_dict(man["config"])
    except (KeyError, TypeError, ValueError) as exc:
        raise _fail(path, MANIFEST, f"unreadable config ({exc})") from exc
    memory = HypergraphMemory(encoder, cfg)
    U, S, E = memory._sub, memory._skl, memory._edg
    try:
        for rec, vec in zip(state["nodes"], state["node_emb"]):
            store = {"skill": S, "subtask": U}.get(rec["kind"])
            if store is None:
                raise _fail(path, "nodes.json", f"node {rec['id']!r} has kind {rec['kind']!r}")
            _check_id_v1(path, "nodes.json", rec["id"], store)
            texts = {"content": rec["content"]}
            if store is S:
                texts |= {"name": rec["name"], "polarity": POLARITIES.index(rec["polarity"])}
            _check_text_v1(path, "nodes.json", rec, ("name", "content") if store is S else ("content",))
            r = store.add(vec, rec["meta"], rid=rec["id"], **texts)
            store.sigma[r], store.nu[r], store.tbar[r] = rec["sigma"], rec["nu"], rec["mean_steps"]
    except MemoryFormatError:
        raise
    except (KeyError, ValueError, TypeError) as exc:
        raise _fail(path, "nodes.json", f"malformed node record ({exc!r})") from exc
    try:
        for rec, vec in zip(state["edges"], state["edge_emb"]):
            _check_id_v1(path, "edges.json", rec["id"], E)
            _check_text_v1(path, "edges.json", rec, ("task", "lesson"))
            node_ids = rec["node_ids"]
            if not isinstance(node_ids, list) or not all(isinstance(i, str) for i in node_ids):
                raise _fail(path, "edges.json", f"hyperedge {rec['id']} node_ids is not a list of ids")
            missing = [i for i in node_ids if i not in U.row and i not in S.row]
            if missing:
                raise _fail(path, "edges.json", f"hyperedge {rec['id']} lists unknown node(s) {missing}")
            if len(set(node_ids)) != len(node_ids):
                raise _fail(path, "edges.json", f"hyperedge {rec['id']} lists a node twice")
            j = E.add(vec, rec["meta"], rid=rec["id"], task=rec["task"], lesson=rec["lesson"],
                      success=rec["success"], steps=rec["steps"], calls=rec["calls"])
            E.sigma[j], E.nu[j], E.tbar[j] = rec["sigma"], rec["nu"], rec["mean_steps"]
            for kind, store in (("subtask", U), ("skill", S)):
                memory._inc[kind].extend([store.row[i] for i in node_ids if i[:1] == store.prefix], j)
    except MemoryFormatError:
        raise
    except (KeyError, ValueError, TypeError) as exc:
        raise _fail(path, "edges.json", f"malformed hyperedge record ({exc!r})") from exc
    for store in (U, S, E):
        store.next_id = int(man["counters"][store.prefix])
    if man["t_range"] is not None:
        memory._t_min, memory._t_max = (float(t) for t in man["t_range"])
    try:
        memory.validate()
    except AssertionError as exc:
        raise _fail(path, MANIFEST, f"the saved memory is inconsistent: {exc}") from exc
    return memory


def _check_id_v1(path: Path, fname: str, rid: Any, store: Any) -> None:
    """An id must be a str of the store's kind ("u", "s", "e" + a number), seen once."""
    if not (isinstance(rid, str) and rid[:1] == store.prefix and rid[1:].isdigit()):
        raise _fail(path, fname, f"id {rid!r} is not a {store.prefix!r} id")
    if rid in store.row:
        raise _fail(path, fname, f"id {rid!r} appears twice")


def _check_text_v1(path: Path, fname: str, rec: dict[str, Any], keys: tuple[str, ...]) -> None:
    bad = [k for k in keys if not isinstance(rec[k], str)]
    if bad:
        raise _fail(path, fname, f"record {rec['id']!r} has non-text {bad}")
