"""HyperNetX drawings of a `HypergraphMemory`, styled like the paper's hypergraph figure.

Success/failure trajectory hyperedges (green diamond / red square), skill and mistake
nodes (blue / red circles), subtask nodes (light-blue dots); a representative subgraph
picker and the incidence matrix as a picture. matplotlib, networkx and HyperNetX are
imported inside the functions. Not here: run plots and heatmaps (runs.py, matrices.py;
the package's ``__init__`` is the public import of both).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from hyperskill_lite.plots.labels import place_labels, short_labels, wrap_label
from hyperskill_lite.plots.palette import COLORS
from hyperskill_lite.plots.style import COLUMN_IN, column_figsize

if TYPE_CHECKING:
    from hyperskill_lite.core.memory import HypergraphMemory

__all__ = [
    "node_role", "representative_edges", "hypergraph_layout", "carry_layout",
    "hypergraph_legend_handles", "draw_hypergraph", "draw_before_after", "incidence_table",
    "plot_incidence", "hypergraph_figure",
]

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


def _spread(xy: np.ndarray, d_min: float, rounds: int = 60) -> np.ndarray:
    """Push apart points closer than `d_min` (pairs sharing one spot move along a fixed
    direction), a few rounds of pairwise repulsion; deterministic."""
    xy = xy.copy()
    n = len(xy)
    if n < 2:
        return xy
    for _ in range(rounds):
        diff = xy[:, None, :] - xy[None, :, :]
        dist = np.linalg.norm(diff, axis=-1)
        np.fill_diagonal(dist, np.inf)
        close = dist < d_min
        if not close.any():
            break
        i, j = np.nonzero(np.triu(close))
        for a, b in zip(i, j):
            d = xy[a] - xy[b]
            norm = float(np.hypot(*d))
            u = d / norm if norm > 1e-9 else np.array([np.cos(a + b), np.sin(a + b)])
            step = 0.5 * (d_min - norm) + 1e-6
            xy[a] += u * step
            xy[b] -= u * step
    return xy


def _component_layout(B: Any, seed: int, aspect: float = 1.5) -> dict[str, np.ndarray]:
    """Spring layout of each connected component of the bipartite graph B, scaled by
    its size, points closer than a tenth of the typical spacing pushed apart, and the
    components packed in rows (largest first), the row width chosen so the whole block
    comes closest to `aspect` (width / height): a drawing fills its axes."""
    import networkx as nx

    comps = sorted(nx.connected_components(B), key=lambda c: (-len(c), min(c)))
    blocks = []
    for comp in comps:
        sub = nx.Graph()  # rebuilt in sorted order: the layout must not depend on set order
        sub.add_nodes_from(sorted(comp))
        sub.add_edges_from(sorted(tuple(sorted(e)) for e in B.subgraph(comp).edges))
        radius = 0.5 * np.sqrt(len(comp))
        p = nx.spring_layout(sub, seed=seed, iterations=300, k=1.6 / np.sqrt(len(comp)))
        xy = np.array([p[v] for v in sub.nodes]) if len(comp) > 1 else np.zeros((1, 2))
        xy = xy - xy.mean(axis=0)
        span = np.abs(xy).max() or 1.0
        xy = _spread(xy / span * radius, d_min=0.45)
        xy = xy - (xy.min(axis=0) + xy.max(axis=0)) / 2
        blocks.append((list(sub.nodes), xy, np.maximum(xy.max(axis=0), 0.3)))
    gap = 0.8

    def pack(width: float) -> tuple[dict[str, np.ndarray], float]:
        """Shelf packing into rows at most `width` wide; the block's aspect error."""
        out: dict[str, np.ndarray] = {}
        x = y = row_h = right = 0.0
        for names, xy, half in blocks:
            if x > 0 and x + 2 * half[0] > width + 1e-9:
                x, y, row_h = 0.0, y - row_h - gap, 0.0
            for v, c in zip(names, xy):
                out[v] = c + np.array([x + half[0], y - half[1]])
            x += 2 * half[0] + gap
            row_h = max(row_h, 2 * half[1])
            right = max(right, x - gap)
        height = row_h - y
        return out, abs(np.log(right / height) - np.log(aspect))

    widths = np.cumsum([2 * h[0] + gap for _, _, h in blocks]) - gap  # each possible first row
    pos = min((pack(w) for w in widths), key=lambda p: p[1])[0]
    return pos


def _setsystem(memory: HypergraphMemory, edge_ids: Sequence[str] | None) -> dict[str, list[str]]:
    ids = list(memory.edge_ids() if edge_ids is None else edge_ids)
    setsystem = {e: list(memory.edge(e).node_ids) for e in ids}
    return {e: v for e, v in setsystem.items() if v}


def hypergraph_layout(
    memory: HypergraphMemory, edge_ids: Sequence[str] | None = None, seed: int = 0,
    aspect: float = 1.5,
) -> dict[str, np.ndarray]:
    """Positions of every node and hyperedge id for `draw_hypergraph` of the memory (or
    the hyperedges `edge_ids`): a spring layout of the bipartite node-hyperedge graph
    with `seed`, connected components packed in rows into a block about `aspect` times
    as wide as high. Pass it as `pos=` to draw two memories on one layout (before and
    after maintenance)."""
    import networkx as nx

    setsystem = _setsystem(memory, edge_ids)
    if not setsystem:
        raise ValueError("hypergraph_layout: no hyperedge with nodes to lay out")
    B = nx.Graph()
    for e, members in setsystem.items():
        B.add_node(e)
        B.add_edges_from((e, v) for v in members)
    return _component_layout(B, seed, aspect)


def carry_layout(pos: dict[str, np.ndarray], merged: Sequence[dict]) -> dict[str, np.ndarray]:
    """`pos` (a `hypergraph_layout` of the memory before maintenance) extended to the
    memory after it: each merged node (a row of `MaintenanceReport.merged`, with "a",
    "b" and "new_id") sits midway between the two skills it replaced. Rows whose skills
    were not drawn are skipped. Returns a new dict.

    >>> pos = {"s1": np.array([0.0, 0.0]), "s2": np.array([2.0, 4.0])}
    >>> carry_layout(pos, [{"a": "s1", "b": "s2", "new_id": "s9"}])["s9"].tolist()
    [1.0, 2.0]
    """
    out = dict(pos)
    for row in merged:
        ends = [out[k] for k in (row["a"], row["b"]) if k in out]
        if ends:
            out[row["new_id"]] = np.mean(ends, axis=0)
    return out


def hypergraph_legend_handles(highlight_label: str | None = None) -> list:
    """Legend entries of `draw_hypergraph` (trajectory outcomes, node types and, when
    `highlight_label` is given, the highlight ring), for a figure-level legend."""
    from matplotlib.lines import Line2D

    rows = [("D", "white", COLORS["success_edge"], 2, 7, "success trajectory"),
            ("s", "white", COLORS["failure_edge"], 2, 7, "failure trajectory"),
            ("o", COLORS["skill"], "black", 1, 9, "skill (success)"),
            ("o", COLORS["mistake"], "black", 1, 9, "mistake (failure)"),
            ("o", COLORS["subtask"], "white", 1, 6, "subtask")]
    if highlight_label:
        rows.append(("o", "white", COLORS["highlight"], 3, 11, highlight_label))
    return [Line2D([], [], ls="", marker=m, mfc=fc, mec=ec, mew=w, ms=ms, label=label)
            for m, fc, ec, w, ms, label in rows]


def hypergraph_figure(height_ratio: float = 0.75):
    """A figure and axes for one `draw_hypergraph` drawing, designed for the site's column:
    `COLUMN_IN` wide, `height_ratio` times as high, the axes filling it but for room for
    a two-line title above and the legend below. Returns (fig, ax)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=column_figsize(height_ratio))
    fig.subplots_adjust(left=0.01, right=0.99, top=0.9, bottom=0.1)
    return fig, ax


def draw_hypergraph(
    memory: HypergraphMemory,
    edge_ids: Sequence[str] | None = None,
    ax=None,
    seed: int = 0,
    label_width: int = 36,
    subtask_labels: bool = False,
    title: str = "",
    pos: dict[str, np.ndarray] | None = None,
    highlight: Sequence[str] = (),
    highlight_label: str = "highlighted node",
    legend: bool = True,
    fontsize: float = 9,
    label_wrap: int = 18,
):
    """HyperNetX rubber-band drawing of the memory (or of the hyperedges `edge_ids`),
    styled like the paper's hypergraph figure.

    Hyperedges: filled hulls, green for successful and red for failed trajectories,
    with a diamond (success) or square (failure) marker and the edge id at the
    hyperedge's place in the layout. Nodes: skills blue circles, mistakes red circles
    (both labelled with their names, cut to `label_width` characters and wrapped onto two
    lines of about `label_wrap` characters: `wrap_label`), subtasks small
    light-blue dots (labelled with their ids if `subtask_labels`). Node labels are
    placed by `place_labels`: no label overlaps another label, a node or a hyperedge
    marker where a free spot exists; far-placed labels get a leader line.

    Layout: `pos` if given (see `hypergraph_layout`, `carry_layout`), else the spring
    layout of the bipartite node-edge graph with `seed`, shaped to the axes; a node missing from `pos` sits
    at the mean position of the drawn hyperedges holding it. Nodes in `highlight` get a
    gold ring, named `highlight_label` in the legend. `legend=False` leaves the legend
    to the caller (`hypergraph_legend_handles`). Returns the axes.

    Labels are placed for the axes' size when the function runs: arrange the figure
    first (`fig.subplots_adjust`) and do not call `fig.tight_layout()` afterwards, which
    would rescale the drawing under labels already placed (`save_figure` crops without
    rescaling).
    """
    import hypernetx as hnx
    import matplotlib.pyplot as plt
    from hypernetx.drawing.rubber_band import get_default_radius

    setsystem = _setsystem(memory, edge_ids)
    if not setsystem:
        raise ValueError("draw_hypergraph: no hyperedge with nodes to draw")
    ax = ax or plt.subplots(figsize=(COLUMN_IN, 0.8 * COLUMN_IN))[1]
    views = {e: memory.edge(e) for e in setsystem}
    H = hnx.Hypergraph(setsystem)
    nodes = {i: memory.node(i) for i in H.nodes}
    role = {i: node_role(i, v.polarity) for i, v in nodes.items()}
    edge_color = {e: COLORS["success_edge" if views[e].success else "failure_edge"]
                  for e in setsystem}
    pos = _drawing_pos(memory, ax, setsystem, H.nodes, seed, pos)
    radius = {i: (0.55 if role[i] == "subtask" else 1.25) for i in nodes}
    _draw_bands(H, pos, ax, radius, role, edge_color)
    r0 = get_default_radius(H, pos)
    node_ids = list(H.nodes)
    _frame(ax, np.array([pos[i] for i in node_ids] + [pos[e] for e in setsystem]), r0)
    for i in highlight:
        if i in pos:
            ax.add_patch(plt.Circle(pos[i], 1.9 * r0 * radius.get(i, 1.25), fill=False,
                                    ec=COLORS["highlight"], lw=3, zorder=5))
    for e in setsystem:
        x, y = pos[e]
        ok = views[e].success
        ax.plot(x, y, marker="D" if ok else "s", ms=8, mfc="white", mec=edge_color[e], mew=2)
        ax.annotate(e, (x, y), xytext=(0, -12), textcoords="offset points", ha="center",
                    fontsize=fontsize - 1, color=edge_color[e])
    if title:
        ax.set_title(title)
    labels = _node_labels(nodes, role, node_ids, label_width, label_wrap, subtask_labels)
    _place_node_labels(ax, pos, node_ids, labels, [r0 * radius[i] for i in node_ids],
                       [pos[e] for e in setsystem], fontsize)
    if legend:
        handles = hypergraph_legend_handles(highlight_label if len(highlight) else None)
        wide = ax.figure.get_size_inches()[0] > 1.4 * COLUMN_IN  # else two rows of entries
        ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0),
                  ncol=len(handles) if wide else 3, fontsize=fontsize, frameon=False)
    return ax


def _drawing_pos(memory: HypergraphMemory, ax, setsystem: dict[str, list[str]], node_ids: Any,
                 seed: int, pos: dict[str, np.ndarray] | None) -> dict[str, np.ndarray]:
    """The positions `draw_hypergraph` draws at: without `pos`, `hypergraph_layout` shaped
    to the axes; else a copy of `pos` where a hyperedge it misses sits at the mean of its
    placed nodes (ValueError if none is placed), then a node it misses at the mean of the
    hyperedges holding it."""
    if pos is None:
        box = ax.get_position()
        fw, fh = ax.figure.get_size_inches()
        return hypergraph_layout(memory, list(setsystem), seed,
                                 aspect=float(np.clip(box.width * fw / (box.height * fh), 0.8, 2.5)))
    pos = {k: np.asarray(v, dtype=float) for k, v in pos.items()}
    for e, members in setsystem.items():
        if e not in pos:
            known = [pos[i] for i in members if i in pos]
            if not known:
                raise ValueError(f"draw_hypergraph: pos places neither hyperedge {e} "
                                 "nor any of its nodes")
            pos[e] = np.mean(known, axis=0)
    for i in node_ids:
        if i not in pos:
            pos[i] = np.mean([pos[e] for e, m in setsystem.items() if i in m], axis=0)
    return pos


def _draw_bands(H: Any, pos: dict[str, np.ndarray], ax, radius: dict[str, float],
                role: dict[str, str], edge_color: dict[str, str]) -> None:
    """HyperNetX's rubber bands for `draw_hypergraph`: hulls filled faintly in each
    hyperedge's colour, nodes coloured by role, no labels (placed afterwards)."""
    import hypernetx as hnx
    from matplotlib.colors import to_rgba

    hnx.draw(
        H,
        pos=pos,
        ax=ax,
        node_radius=radius,
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
        with_node_labels=False,
        with_edge_labels=False,
    )


def _place_node_labels(ax, pos: dict[str, np.ndarray], node_ids: list[str], labels: list[str],
                       radii: list[float], edge_xy: list[np.ndarray], fontsize: float) -> None:
    """Place the node labels of `draw_hypergraph` (`place_labels`) clear of the nodes (radii
    in data units) and of each hyperedge's marker at `edge_xy` and its id below it."""
    fig = ax.figure
    fig.canvas.draw()  # fixes the equal-aspect limits before labels are measured
    pt_per_data = (ax.transData.transform((1.0, 0.0))[0] - ax.transData.transform((0.0, 0.0))[0]) \
        * 72.0 / fig.dpi
    markers = [(x, y - dy / pt_per_data, 8.0) for x, y in edge_xy
               for dy in (0.0, 12.0)]  # the hyperedge's marker and its id below it
    place_labels(ax, [pos[i][0] for i in node_ids], [pos[i][1] for i in node_ids], labels,
                 radii_pt=[r * pt_per_data for r in radii], fontsize=fontsize,
                 avoid=markers, bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none",
                                      "alpha": 0.7})


def _frame(ax, xy: np.ndarray, r0: float) -> None:
    """Equal aspect and limits around the drawn points `xy` (n, 2), with room for labels."""
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    span = np.maximum(hi - lo, 1e-9)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlim(lo[0] - 0.3 * span[0] - 4 * r0, hi[0] + 0.3 * span[0] + 4 * r0)
    ax.set_ylim(lo[1] - 0.22 * span[1] - 4 * r0, hi[1] + 0.22 * span[1] + 4 * r0)


def _node_labels(nodes: dict, role: dict[str, str], node_ids: list[str], label_width: int,
                 label_wrap: int, subtask_labels: bool) -> list[str]:
    """The label of each of `node_ids`: skills and mistakes by name (`short_labels`,
    `wrap_label`), subtasks by id if `subtask_labels`, else empty."""
    named = [i for i in node_ids if role[i] != "subtask"]
    cut = dict(zip(named, (wrap_label(t, label_wrap) for t in short_labels(
        [nodes[i].name or nodes[i].content for i in named], label_width, ids=named))))
    return [cut[i] if role[i] != "subtask" else (i if subtask_labels else "")
            for i in node_ids]


def draw_before_after(
    before: HypergraphMemory,
    after: HypergraphMemory,
    merged: Sequence[dict],
    edge_ids: Sequence[str] | None = None,
    seed: int = 0,
    highlight: Sequence[str] = (),
    highlight_after: Sequence[str] | None = None,
    titles: tuple[str, str] = ("before maintenance", "after maintenance"),
    highlight_label: str = "merged pair / merged skill",
    fontsize: float = 9,
    panel_height: float = 4.6,
):
    """A memory before and after maintenance as one figure designed for the site's column:
    two `draw_hypergraph` panels one above the other (`COLUMN_IN` wide, each
    `panel_height` inches high) on one layout, the merged node of each row of `merged`
    (``MaintenanceReport.merged``) midway between the pair it replaced (`carry_layout`),
    and one legend below both. `edge_ids` limits both panels to those hyperedges;
    `highlight` rings nodes before (the pair), `highlight_after` after (default: every
    merged node drawn). Returns the figure."""
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(COLUMN_IN, 2 * panel_height + 0.7))
    legend_in = 0.7 / (2 * panel_height + 0.7)
    fig.subplots_adjust(left=0.01, right=0.99, top=0.96, bottom=legend_in, hspace=0.1)
    box = top.get_position()
    aspect = box.width * COLUMN_IN / (box.height * fig.get_size_inches()[1])
    pos = hypergraph_layout(before, edge_ids, seed=seed, aspect=aspect)
    carried = carry_layout(pos, merged)
    drawn = set(_setsystem(after, edge_ids))
    members = {i for e in drawn for i in after.edge(e).node_ids}
    if highlight_after is None:
        highlight_after = [r["new_id"] for r in merged if r["new_id"] in members]
    draw_hypergraph(before, edge_ids, ax=top, pos=pos, highlight=highlight, legend=False,
                    title=titles[0], fontsize=fontsize)
    draw_hypergraph(after, edge_ids, ax=bottom, pos=carried, highlight=highlight_after,
                    legend=False, title=titles[1], fontsize=fontsize)
    handles = hypergraph_legend_handles(highlight_label)
    fig.legend(handles=handles, loc="lower center", ncol=3, fontsize=fontsize, frameon=False)
    return fig


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
