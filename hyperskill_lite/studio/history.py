"""A run's memory over time: its maintenance checkpoints and its final state, read as
`HypergraphMemory` snapshots, and what the studio needs of each.

A run folder keeps the memory after every maintenance cycle
(``checkpoints/maint-NNNN``: after episode NNNN) and after the last episode
(``state/memory``). `memory_history` lists them in order as `Snapshot`s; a method that
stores no hypergraph (a baseline, no memory) has none, which the studio says. Each
snapshot is loaded with ``mmap=True``: embeddings are mapped, not read, until something
asks for them (hygiene reads the skill rows of the final memory only). Nothing is ever
embedded here, so the snapshots get `RecordedEncoder`, the recorded encoder's name and
dim standing in for it: no model is loaded, and no encoder cache is filled with every
stored text (which a real encoder's load does, and the studio never uses). A snapshot
holding a link that leads out of the run folder is left out with a warning
(core/confined.py), like one that cannot be read.

Not here: what is drawn (graph.py), lineage and provenance (provenance.py).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hyperskill_lite.core.confined import LinkOutside, check_tree, leads_out, read_json
from hyperskill_lite.core.io.layout import FORMAT, MANIFEST, MemoryFormatError
from hyperskill_lite.core.io.read import load_memory
from hyperskill_lite.core.memory import HypergraphMemory
from hyperskill_lite.runner.files import checkpoints, find_state

__all__ = ["Snapshot", "memory_history", "is_hypergraph", "node_degrees", "edge_sizes",
           "counts", "lookup", "RecordedEncoder"]

log = logging.getLogger("hyperskill_lite.studio")


@dataclass
class Snapshot:
    """The memory after episode `after` (1-based count of finished episodes): `label`
    is "maint-NNNN" for a maintenance checkpoint, "final" for the state after the last
    episode."""

    after: int
    label: str
    memory: HypergraphMemory


MANIFEST_BYTES = 16 * 2**20
"""A manifest larger than this is not one `save_memory` wrote; it is not read."""


def _manifest(run: Path, folder: Path) -> Any:
    return read_json(run, folder / MANIFEST, limit=MANIFEST_BYTES)


def is_hypergraph(folder: Path, run: Path | None = None) -> bool:
    """Whether `folder` holds a saved HypergraphMemory (its manifest's format); read inside
    `run` (default: `folder`) only."""
    try:
        man = _manifest(run if run is not None else folder, folder)
    except (OSError, ValueError):
        return False
    return isinstance(man, dict) and man.get("format") == FORMAT


def _load(run: Path, folder: Path, encoder: Any) -> HypergraphMemory | None:
    try:
        check_tree(run, folder)  # no file of it is a link leading out of the run folder
        if encoder is None:
            enc = _manifest(run, folder)["encoder"]
            encoder = RecordedEncoder(str(enc.get("name", "")), int(enc["dim"]))
        return load_memory(folder, encoder=encoder, mmap=True)
    except (MemoryFormatError, OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        why = str(exc) if isinstance(exc, LinkOutside) else exc
        log.warning("studio: %s cannot be read (%s); it is left out", folder, why)
        return None


class RecordedEncoder:
    """A saved memory's encoder by name and dim only, for snapshots that are read and
    never added to: `encode` refuses (a studio view that embedded a text would be a bug,
    and the recorded model may not be installed here)."""

    def __init__(self, name: str, dim: int):
        self.name, self.dim = name, int(dim)

    def encode(self, texts: Any) -> np.ndarray:
        raise RuntimeError(f"the studio reads snapshots only; it embeds nothing "
                           f"({self.name} is a stand-in)")


def memory_history(run: Path, n_records: int, encoder: Any = None) -> list[Snapshot]:
    """The run's hypergraph snapshots in episode order: every maintenance checkpoint,
    then the final state when it follows the last checkpoint. [] for a method that
    stores no hypergraph. `encoder` None gives each snapshot a `RecordedEncoder` of its
    recorded name and dim (nothing is embedded here: the vectors are read from the
    files); one that cannot be read is left out with a warning."""
    found: list[tuple[int, str, Path]] = [
        (k, p.name, p) for k, p in checkpoints(run).items() if p.name.startswith("maint-")]
    state = find_state(run)
    if state is not None and (state / "memory").is_dir():
        found.append((n_records, "final", state / "memory"))
    for f in [f for f in found if leads_out(run, f[2])]:  # state/memory linking out
        log.warning("%s: a link to %s, outside %s; skipped (looking for snapshots)", f[2],
                    os.path.realpath(f[2]), os.path.realpath(run))
    found = [f for f in found if not leads_out(run, f[2]) and is_hypergraph(f[2], run)]
    if not found:
        return []
    out: list[Snapshot] = []
    for k, label, folder in found:
        if out and out[-1].after == k:  # the final state is the last checkpoint
            continue
        mem = _load(run, folder, encoder)
        if mem is not None:
            out.append(Snapshot(k, label, mem))
    return out


def node_degrees(memory: HypergraphMemory, kind: str) -> np.ndarray:
    """Hyperedges each row of one node kind ("subtask" | "skill") is in: (n_rows,) int64
    (tombstoned rows 0)."""
    node, _ = memory.memberships(kind)
    return np.bincount(node, minlength=memory.columns(kind).n).astype(np.int64)


def edge_sizes(memory: HypergraphMemory) -> np.ndarray:
    """Members (subtask and skill nodes) of each hyperedge row: (n_edges,) int64."""
    n = memory.columns("hyperedge").n
    size = np.zeros(n, dtype=np.int64)
    for kind in ("subtask", "skill"):
        size += np.bincount(memory.memberships(kind)[1], minlength=n)
    return size


def counts(memory: HypergraphMemory) -> dict[str, int]:
    """Live subtask nodes, strategies, mistakes and hyperedges of a snapshot."""
    s = memory.stats()
    return {"subtask": s["subtask_nodes"], "skill": s["success_skills"],
            "mistake": s["failure_skills"], "hyperedge": s["hyperedges"]}


def lookup(memory: HypergraphMemory, ids: list[str]) -> dict[str, Any]:
    """Stats of the given ids in a snapshot, vectorised per kind: {"present": positions
    in `ids` of the ids alive here, "gamma", "nu", "degree": aligned with "present"}
    (degree: a node's hyperedges, a hyperedge's members)."""
    pos_all, gam, nus, degs = [], [], [], []
    for prefix, kind in (("u", "subtask"), ("s", "skill"), ("e", "hyperedge")):
        st = memory.columns(kind)
        pos = [i for i, x in enumerate(ids) if x[:1] == prefix and x in st.row]
        if not pos:
            continue
        rows = np.array([st.row[ids[i]] for i in pos], dtype=np.int64)
        if prefix == "e":
            deg = edge_sizes(memory)[rows]
        else:
            deg = node_degrees(memory, "subtask" if prefix == "u" else "skill")[rows]
        pos_all += pos
        gam.append(memory.row_gammas(kind, rows))
        nus.append(st.nu[rows])
        degs.append(deg)
    order = np.argsort(pos_all, kind="stable")
    cat = (lambda xs, t: np.concatenate(xs)[order] if xs else np.zeros(0, dtype=t))  # noqa: E731
    return {"present": np.array(pos_all, dtype=np.int64)[order],
            "gamma": cat(gam, float), "nu": cat(nus, np.int64), "degree": cat(degs, np.int64)}
