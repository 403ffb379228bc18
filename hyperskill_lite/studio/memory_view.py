"""One memory, without a run around it, in the studio's data model: `memory_view`.

A run's view (build.py `run_view`) is made from its records and snapshots; a memory built
or loaded in a notebook has neither records nor checkpoints, only itself. `memory_view`
gives it the same shape, so the page's script and the notebook widget draw it alike: one
snapshot (the memory as it is), every skill's provenance that the memory itself holds
(its trajectories, gamma, nu and sigma; no birth or merge history: that is in a run's
records), and, for each task given, its retrieval as `Retrieval.explain()` prints it.

`details` answers the widget's question about one element the data does not carry (a
trajectory's task, lesson and subtasks), read from the memory on demand.

Not here: run folders (build.py), the drawing (graph.py), the widget (widget/).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hyperskill_lite.core.memory import HypergraphMemory
from hyperskill_lite.core.retrieval import retrieve
from hyperskill_lite.core.retrieval.result import Retrieval
from hyperskill_lite.studio.explain import task_views
from hyperskill_lite.studio.graph import Budget, graph_data
from hyperskill_lite.studio.history import Snapshot
from hyperskill_lite.studio.provenance import TEXT_CHARS, edge_info, provenance

__all__ = ["memory_view", "details", "TaskLike", "MAX_PROVENANCE"]

TaskLike = Any
"""A task for `memory_view`: its text (str), a `types.Task` (its id and text), a
`Retrieval` already made, or a (task id, `Retrieval`) pair."""
MAX_PROVENANCE = 2000
"""Up to this many skill nodes, every one gets its provenance; beyond, the drawn ones."""


def _retrieval(memory: HypergraphMemory, task: TaskLike) -> tuple[str, Retrieval]:
    """(task id, its retrieval on `memory`) of one task given to `memory_view`."""
    if isinstance(task, Retrieval):
        return "", task
    if isinstance(task, tuple) and len(task) == 2 and isinstance(task[1], Retrieval):
        return str(task[0]), task[1]
    if isinstance(task, str):
        return "", retrieve(memory, task)
    text = getattr(task, "text", None)
    if isinstance(text, str):
        return str(getattr(task, "id", "")), retrieve(memory, text)
    raise TypeError(f"memory_view: a task is a str, a Task, a Retrieval or (id, Retrieval), got "
                    f"{type(task).__name__}")


def memory_view(memory: HypergraphMemory, tasks: Iterable[TaskLike] = (), name: str = "memory",
                seed: int = 0, budget: Budget | None = None) -> dict[str, Any]:
    """The studio's run view (build.py `run_view`: "name", "graph", "provenance",
    "edges", "tasks", "cycles", ...) of `memory` alone: one snapshot labelled "memory",
    no records. Each of `tasks` (a text, a `Task`, a `Retrieval` or (id, `Retrieval`))
    is retrieved on the memory (`retrieve`, no plan: the trajectory path alone) and shown as `explain()`
    prints it; a task without an id is named ``q1``, ``q2``, ..."""
    snap = Snapshot(0, "memory", memory)
    graph = graph_data([snap], seed=seed, budget=budget)
    skills = memory.node_ids(kind="skill")
    wanted = None if len(skills) <= MAX_PROVENANCE else {
        n[0] for n in graph["nodes"] if n[1] == "s"}
    records = []
    for i, t in enumerate(tasks):
        tid, r = _retrieval(memory, t)
        records.append({"index": i, "task_id": tid or f"q{i + 1}", "success": None,
                        "explain": r.to_record(), "retrieved": r.retrieved_ids})
    tv = task_views(records)
    for t in tv["tasks"]:
        t["success"] = None  # a question asked of the memory, not an episode
    prov = provenance([], [snap], wanted)
    edges = {e for p in prov.values() for e in p["trajectories"]}
    edges |= {e for t in tv["tasks"] for e in t["E_star"]}
    return {
        "name": name, "folder": "", "method": None, "world": None, "protocol": "",
        "hypergraph": True, "graph": graph, "provenance": prov,
        "edges": edge_info([], [snap], edges), "cycles": [],
        "tasks": tv["tasks"], "tasks_note": tv["note"],
        "provenance_note": "" if wanted is None else (
            f"Provenance is kept for the {len(prov)} drawn of {len(skills)} skill nodes."),
        "kind": "memory",
    }


def details(memory: HypergraphMemory, element: str, episode: int | None = None,
            task_id: str | None = None) -> dict[str, Any]:
    """What the widget shows of one hyperedge its data does not carry: {"id", "edge":
    [episode, task id, success, task, lesson], "subtasks": [[id, text]]}, or {"id"}
    alone when `memory` has no such hyperedge. `episode` and `task_id`: the run's, when
    known."""
    E = memory.columns("hyperedge")
    r = E.row.get(element)
    if r is None:
        return {"id": element}
    info = edge_info([], [Snapshot(0, "memory", memory)], [element]).get(element)
    if info is not None and episode is not None:
        info[0] = episode
    if info is not None and task_id is not None:
        info[1] = task_id
    edge = memory.edge(element)
    subs = [[u, memory.node(u).content[:TEXT_CHARS]] for u in edge.node_ids if u[:1] == "u"]
    return {"id": element, "edge": info, "subtasks": subs}
