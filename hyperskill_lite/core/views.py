"""Views of a HypergraphMemory for people: pandas DataFrames and a HyperNetX hypergraph.

`nodes_frame(memory)` and `edges_frame(memory)` give one row per node / hyperedge with
its stats and gamma (Eq. 3); `to_hypernetx(memory)` gives a `hypernetx.Hypergraph` for
drawings (plots/drawing.py). pandas and HyperNetX are imported inside the functions, so
the core still needs only numpy and scipy.

Not here: files (io/), drawing (plots/).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

    from hyperskill_lite.core.memory import HypergraphMemory

__all__ = ["nodes_frame", "edges_frame", "to_hypernetx"]


def nodes_frame(memory: HypergraphMemory) -> pd.DataFrame:
    """One row per live node, indexed by id: kind, polarity, name, content, sigma, nu,
    mean_steps, gamma (Eq. 3), degree (number of hyperedges), meta."""
    import pandas as pd

    ids = memory.node_ids()
    gam = memory.gammas(ids)
    deg: dict[str, int] = {}
    for kind, store in (("subtask", memory._sub), ("skill", memory._skl)):
        counts = np.diff(memory._inc[kind].csr(store.n, memory._edg.n).indptr)
        deg |= {store.ids[r]: int(counts[r]) for r in store.live()}
    rows = []
    for i, g in zip(ids, gam):
        v = memory.node(i)
        rows.append(
            {
                "id": i,
                "kind": v.kind,
                "polarity": v.polarity,
                "name": v.name,
                "content": v.content,
                "sigma": v.sigma,
                "nu": v.nu,
                "mean_steps": v.mean_steps,
                "gamma": float(g),
                "degree": deg[i],
                "meta": v.meta,
            }
        )
    cols = [
        "kind",
        "polarity",
        "name",
        "content",
        "sigma",
        "nu",
        "mean_steps",
        "gamma",
        "degree",
        "meta",
    ]
    return pd.DataFrame(rows, columns=["id", *cols]).set_index("id")


def edges_frame(memory: HypergraphMemory) -> pd.DataFrame:
    """One row per hyperedge, indexed by id: task, lesson, success, steps, calls,
    n_subtasks, n_skills, node_ids, sigma, nu, mean_steps, gamma (Eq. 3), meta."""
    import pandas as pd

    rows = []
    for e in memory.edge_ids():
        v = memory.edge(e)
        n_sub = sum(1 for i in v.node_ids if i.startswith("u"))
        rows.append(
            {
                "id": e,
                "task": v.task,
                "lesson": v.lesson,
                "success": v.success,
                "steps": v.steps,
                "calls": v.calls,
                "n_subtasks": n_sub,
                "n_skills": len(v.node_ids) - n_sub,
                "node_ids": v.node_ids,
                "sigma": v.sigma,
                "nu": v.nu,
                "mean_steps": v.mean_steps,
                "gamma": v.gamma,
                "meta": v.meta,
            }
        )
    cols = [
        "task",
        "lesson",
        "success",
        "steps",
        "calls",
        "n_subtasks",
        "n_skills",
        "node_ids",
        "sigma",
        "nu",
        "mean_steps",
        "gamma",
        "meta",
    ]
    return pd.DataFrame(rows, columns=["id", *cols]).set_index("id")


def to_hypernetx(memory: HypergraphMemory) -> Any:
    """The memory as a `hypernetx.Hypergraph`: hyperedge id -> its node ids, with node
    properties kind, polarity, name, gamma and edge properties success, steps, task,
    lesson, gamma. Hyperedges left without nodes (after pruning) are omitted, as
    HyperNetX drops empty edges; isolated nodes are omitted likewise."""
    import hypernetx as hnx

    edges = {e: memory.edge(e) for e in memory.edge_ids()}
    setsystem = {e: v.node_ids for e, v in edges.items() if v.node_ids}
    edge_props = {
        e: {
            "success": v.success,
            "steps": v.steps,
            "task": v.task,
            "lesson": v.lesson,
            "gamma": v.gamma,
        }
        for e, v in edges.items()
        if v.node_ids
    }
    node_props = {}
    for i in {i for ids in setsystem.values() for i in ids}:
        v = memory.node(i)
        node_props[i] = {"kind": v.kind, "polarity": v.polarity, "name": v.name, "gamma": v.gamma}
    return hnx.Hypergraph(setsystem, edge_properties=edge_props, node_properties=node_props)
