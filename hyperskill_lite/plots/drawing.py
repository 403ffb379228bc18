"""HyperNetX drawings of a `HypergraphMemory`, styled like the paper's hypergraph figure.

Success/failure trajectory hyperedges (green diamond / red square), skill and mistake
nodes (blue / red circles), subtask nodes (light-blue dots); a representative subgraph
picker and the incidence matrix as a picture. matplotlib, networkx and HyperNetX are
imported inside the functions. Not here: run plots and heatmaps (viz.py, which
re-exports everything below).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from hyperskill_lite.core.memory import HypergraphMemory

__all__ = [
    "COLORS", "node_role", "representative_edges", "draw_hypergraph", "incidence_table",
    "plot_incidence",
]

COLORS: dict[str, str] = {
    "success_edge": "#2e7d32",  # green: successful trajectory hyperedge
    "failure_edge": "#c62828",  # red: failed trajectory hyperedge
    "skill": "#1e63c8",  # blue circle: success skill (strategy)
    "mistake": "#e57373",  # red circle: failure skill (mistake to avoid)
    "subtask": "#9ecae1",  # light-blue dot: subtask node
}
"""The palette of the paper's hypergraph figure, by element role."""


def node_role(node_id: str, polarity: str | None) -> str:
    """Drawing role of a node: "subtask", "skill" (success polarity) or "mistake".

    >>> node_role("u3", None), node_role("s1", "success"), node_role("s2", "failure")
    ('subtask', 'skill', 'mistake')
    """
    if node_id.startswith("u"):
        return "subtask"
    return "mistake" if polarity == "failure" else "skill"


def representative_edges(memory: HypergraphMemory, n: int = 6) -> list[str]:
    """Pick `n` hyperedges that share skills, for a readable subgraph drawing (the
    paper draws "a representative subgraph of six trajectories").

    Greedy: start from the hyperedge whose skills have the most memberships overall;
    then repeatedly add the hyperedge sharing the most skill nodes with those chosen
    (ties: more skills, then earlier id). If no failed trajectory was chosen and one
    exists, the last pick is swapped for the failed one sharing the most skills.
    Hyperedges without skills are never picked. Returns ids in pick order.
    """
    if n < 1:
        raise ValueError(f"representative_edges: n must be >= 1, got {n}")
    skills = {}  # edge id -> set of skill ids
    success = {}
    for e in memory.edge_ids():
        v = memory.edge(e)
        s = {i for i in v.node_ids if i.startswith("s")}
        if s:
            skills[e], success[e] = s, v.success
    if not skills:
        return []
    degree: dict[str, int] = {}
    for s in skills.values():
        for i in s:
            degree[i] = degree.get(i, 0) + 1
    order = list(skills)  # creation order, the final tie-breaker
    first = max(order, key=lambda e: (sum(degree[i] for i in skills[e]), -order.index(e)))
    chosen, covered = [first], set(skills[first])

    def best(pool: list[str]) -> str:
        return max(pool, key=lambda e: (len(skills[e] & covered), len(skills[e]), -order.index(e)))

    while len(chosen) < min(n, len(order)):
        e = best([x for x in order if x not in chosen])
        chosen.append(e)
        covered |= skills[e]
    failed = [e for e in order if not success[e] and e not in chosen]
    if len(chosen) > 1 and failed and all(success[e] for e in chosen):
        covered = set().union(*(skills[e] for e in chosen[:-1]))
        chosen[-1] = best(failed)
    return chosen


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def _component_layout(B: Any, seed: int) -> dict[str, np.ndarray]:
    """Spring layout of each connected component of the bipartite graph B, scaled by
    its size and placed left to right (largest first), so components stay close."""
    import networkx as nx

    comps = sorted(nx.connected_components(B), key=lambda c: (-len(c), min(c)))
    pos: dict[str, np.ndarray] = {}
    x0 = 0.0
    for comp in comps:
        sub = nx.Graph()  # rebuilt in sorted order: the layout must not depend on set order
        sub.add_nodes_from(sorted(comp))
        sub.add_edges_from(sorted(tuple(sorted(e)) for e in B.subgraph(comp).edges))
        radius = 0.5 * np.sqrt(len(comp))
        p = nx.spring_layout(sub, seed=seed, iterations=300, k=1.6 / np.sqrt(len(comp)))
        xy = np.array([p[v] for v in sub.nodes]) if len(comp) > 1 else np.zeros((1, 2))
        xy = xy - xy.mean(axis=0)
        span = np.abs(xy).max() or 1.0
        xy = xy / span * radius
        for v, c in zip(sub.nodes, xy):
            pos[v] = c + np.array([x0 + radius, 0.0])
        x0 += 2 * radius + 0.8
    return pos


def draw_hypergraph(
    memory: HypergraphMemory,
    edge_ids: Sequence[str] | None = None,
    ax=None,
    seed: int = 0,
    label_width: int = 26,
    subtask_labels: bool = False,
    title: str = "",
):
    """HyperNetX rubber-band drawing of the memory (or of the hyperedges `edge_ids`),
    styled like the paper's hypergraph figure.

    Hyperedges: filled hulls, green for successful and red for failed trajectories,
    with a diamond (success) or square (failure) marker and the edge id at the
    hyperedge's place in the layout. Nodes: skills blue circles, mistakes red circles
    (both labelled with their names, cut to `label_width` characters), subtasks small
    light-blue dots (labelled with their ids if `subtask_labels`). Layout: networkx
    spring layout of the bipartite node-edge graph with `seed`. Returns the axes.
    """
    import hypernetx as hnx
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_rgba
    from matplotlib.lines import Line2D

    ids = list(memory.edge_ids() if edge_ids is None else edge_ids)
    views = {e: memory.edge(e) for e in ids}
    setsystem = {e: v.node_ids for e, v in views.items() if v.node_ids}
    if not setsystem:
        raise ValueError("draw_hypergraph: no hyperedge with nodes to draw")
    ax = ax or plt.subplots(figsize=(9, 7))[1]
    H = hnx.Hypergraph(setsystem)
    nodes = {i: memory.node(i) for i in H.nodes}
    role = {i: node_role(i, v.polarity) for i, v in nodes.items()}
    edge_color = {e: COLORS["success_edge" if views[e].success else "failure_edge"]
                  for e in setsystem}
    pos = _component_layout(H.bipartite(), seed)
    labels = {
        i: (_short(v.name or v.content, label_width) if role[i] != "subtask"
            else (i if subtask_labels else ""))
        for i, v in nodes.items()
    }
    hnx.draw(
        H,
        pos=pos,
        ax=ax,
        node_radius={i: (0.55 if role[i] == "subtask" else 1.25) for i in nodes},
        edges_kwargs={
            "edgecolors": edge_color,
            "facecolors": {e: to_rgba(c, 0.10) for e, c in edge_color.items()},
            "linewidth": 1.8,
        },
        nodes_kwargs={
            "facecolors": {i: COLORS[r] for i, r in role.items()},
            "edgecolors": {i: ("white" if r == "subtask" else "black") for i, r in role.items()},
            "linewidth": 0.6,
        },
        node_labels=labels,
        node_labels_kwargs={"fontsize": 8},
        with_edge_labels=False,
    )
    for e in setsystem:
        x, y = pos[e]
        ok = views[e].success
        ax.plot(x, y, marker="D" if ok else "s", ms=8, mfc="white", mec=edge_color[e], mew=2)
        ax.annotate(e, (x, y), xytext=(0, -12), textcoords="offset points", ha="center",
                    fontsize=7, color=edge_color[e])
    handles = [Line2D([], [], ls="", marker=m, mfc=fc, mec=ec, mew=w, ms=ms, label=label)
               for m, fc, ec, w, ms, label in (
                   ("D", "white", COLORS["success_edge"], 2, 7, "success trajectory"),
                   ("s", "white", COLORS["failure_edge"], 2, 7, "failure trajectory"),
                   ("o", COLORS["skill"], "black", 1, 9, "skill (success)"),
                   ("o", COLORS["mistake"], "black", 1, 9, "mistake (failure)"),
                   ("o", COLORS["subtask"], "white", 1, 6, "subtask"))]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=5,
              fontsize=8, frameon=False)
    if title:
        ax.set_title(title)
    return ax


def incidence_table(
    memory: HypergraphMemory, edge_ids: Sequence[str] | None = None
) -> tuple[np.ndarray, list[str], list[str]]:
    """Dense incidence matrix of the memory (or of `edge_ids`): (B, node_ids, edge_ids)
    with B (n_nodes, n_edges) int8, 1 where the node is in the hyperedge; rows are the
    member nodes, subtasks then skills, each in creation order.

    >>> from hyperskill_lite.core.embed import HashingEncoder
    >>> from hyperskill_lite.core.memory import HypergraphMemory
    >>> from hyperskill_lite.types import Skill
    >>> mem = HypergraphMemory(HashingEncoder(dim=32))
    >>> sk = Skill("Check Sources", "Read the primary page.")
    >>> _ = mem.add_trajectory("task A", ["find page"], [sk], "ok", success=True, steps=3)
    >>> _ = mem.add_trajectory("task B", ["find page"], [sk], "ok", success=True, steps=4)
    >>> B, rows, cols = incidence_table(mem)
    >>> rows, cols, B.tolist()
    (['u1', 'u2', 's1'], ['e1', 'e2'], [[1, 0], [0, 1], [1, 1]])
    """
    cols = list(memory.edge_ids() if edge_ids is None else edge_ids)
    members = {e: memory.edge(e).node_ids for e in cols}
    present = {i for ids in members.values() for i in ids}
    rows = [i for i in memory.node_ids() if i in present]
    index = {i: k for k, i in enumerate(rows)}
    B = np.zeros((len(rows), len(cols)), dtype=np.int8)
    for j, e in enumerate(cols):
        B[[index[i] for i in members[e]], j] = 1
    return B, rows, cols


def plot_incidence(memory: HypergraphMemory, edge_ids: Sequence[str] | None = None, ax=None):
    """The incidence matrix as a grid: rows nodes (coloured by role), columns hyperedges
    (coloured by outcome), a filled cell per membership."""
    import matplotlib.pyplot as plt

    B, rows, cols = incidence_table(memory, edge_ids)
    ax = ax or plt.subplots(figsize=(0.5 * len(cols) + 3, 0.28 * len(rows) + 1.5))[1]
    roles = [node_role(i, memory.node(i).polarity) for i in rows]
    ok = [memory.edge(e).success for e in cols]
    r, c = np.nonzero(B)
    ax.scatter(c, r, marker="s", s=90, c=[COLORS[roles[k]] for k in r], edgecolors="black",
               linewidths=0.4)
    ax.set_xticks(range(len(cols)), cols)
    ax.set_yticks(range(len(rows)), rows, fontsize=7)
    for tick, good in zip(ax.get_xticklabels(), ok):
        tick.set_color(COLORS["success_edge" if good else "failure_edge"])
    for tick, role in zip(ax.get_yticklabels(), roles):
        tick.set_color(COLORS[role] if role != "subtask" else "#4a7fa8")
    ax.set_xlim(-0.6, len(cols) - 0.4)
    ax.set_ylim(len(rows) - 0.4, -0.6)
    ax.grid(alpha=0.25)
    ax.set_xlabel("hyperedge (green: success, red: failure)")
    ax.set_title("Incidence matrix B (nodes x hyperedges)")
    return ax


# ---------------------------------------------------------------------------- matrices
