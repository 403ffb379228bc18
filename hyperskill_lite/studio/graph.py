"""The hypergraph drawing of a run: which elements are drawn, where, and what each
maintenance checkpoint holds of them.

Every snapshot of the run (history.py) is drawn on one layout, so moving the checkpoint
slider shows nodes appear, merge and disappear in place. A hyperedge (one trajectory) is
drawn as a square joined to its member nodes (the bipartite, or "star", view of a
hypergraph); skill and mistake nodes are dots, and a trajectory's subtask nodes, which
belong to it alone, sit on a small ring around its square. The layout is networkx's
spring layout of the skills and hyperedges of all snapshots, seeded, so a page is the
same every time it is written.

What cannot be drawn is aggregated, and the drawing says so: at most `max_skills` skill
nodes (the most used: the largest degree in any snapshot) and `max_edges` hyperedges (a
sample: the newest holding a drawn skill) are drawn, and a trajectory's subtask ring only
while at most `max_rings` hyperedges are drawn; the counts of everything are always
given. The page keeps the small budgets (`MAX_SKILLS`, `MAX_EDGES`: several runs in one
file), the notebook widget (hyperskill_lite/widget/) the large ones (`WIDGET_BUDGET`).

A component of more than `SPRING_MAX` drawn elements is laid out in two steps, so 5,000
hyperedges take a fraction of a second rather than an (n, n) spring: its skills by the
spring over the skill pairs that share a hyperedge, then each hyperedge at the centroid
of its drawn skills, spread on a small golden-angle spiral where several meet.

Not here: reading snapshots (history.py), the page (render.py, the template).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from hyperskill_lite.studio.history import Snapshot, counts, lookup, node_degrees

__all__ = ["graph_data", "Budget", "MAX_SKILLS", "MAX_EDGES", "MAX_RINGS", "WIDGET_BUDGET",
           "SPRING_MAX", "LABEL_CHARS"]

MAX_SKILLS = 300
"""Skill nodes the page draws at most (largest degree in any snapshot first)."""
MAX_EDGES = 400
"""Hyperedges the page draws at most (the newest holding a drawn skill first)."""
MAX_RINGS = 400
"""Subtask rings are drawn while at most this many hyperedges are (the page's default)."""
SPRING_MAX = 600
"""Components up to this many drawn elements get the (n, n) spring layout; larger ones
the two-step layout (module docstring)."""


@dataclass(frozen=True)
class Budget:
    """What one drawing holds at most: `skills` skill nodes (the most used), `edges`
    hyperedges (a sample beyond), subtask rings while at most `rings` hyperedges are
    drawn."""

    skills: int = MAX_SKILLS
    edges: int = MAX_EDGES
    rings: int = MAX_RINGS


WIDGET_BUDGET = Budget(skills=1500, edges=5000, rings=1000)
"""The notebook widget's budget: 5,000 hyperedges (its aggregation threshold: a larger
memory is drawn as its 1,500 most used skills and a sample of 5,000 trajectories, and the
widget says so), subtask rings up to 1,000 hyperedges (beyond, a trajectory's subtasks
are listed when it is clicked)."""
LABEL_CHARS = 28
"""Characters of a node's text shown as its label."""


def _short(text: str, n: int = LABEL_CHARS) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "\u2026"


def _choose(snaps: Sequence[Snapshot], budget: Budget
            ) -> tuple[list[str], list[str], dict[str, int]]:
    """(skill ids, hyperedge ids) drawn, and how many of each the run ever held."""
    best: dict[str, int] = {}
    for snap in snaps:
        S = snap.memory.columns("skill")
        rows = S.live()
        deg = node_degrees(snap.memory, "skill")[rows]
        for sid, d in zip(map(S.ids.__getitem__, rows.tolist()), deg.tolist()):
            if d >= best.get(sid, -1):
                best[sid] = d
    skills = sorted(best, key=lambda s: (-best[s], int(s[1:])))[:budget.skills]
    last = snaps[-1].memory  # hyperedges are never removed: the last snapshot has all
    all_edges = list(last.columns("hyperedge").ids)
    if len(all_edges) <= budget.edges:
        return skills, all_edges, {"skills": len(best), "hyperedges": len(all_edges)}
    holding = np.zeros(len(all_edges), dtype=bool)
    for snap in snaps:
        m = snap.memory
        S = m.columns("skill")
        rows = np.array([S.row[s] for s in skills if s in S.row], dtype=np.int64)
        node, edge = m.memberships("skill")
        hit = edge[_mask(S.n, rows)[node]]
        holding[hit[hit < len(all_edges)]] = True
    chosen = np.flatnonzero(holding)[-budget.edges:]
    return skills, [all_edges[j] for j in chosen.tolist()], {
        "skills": len(best), "hyperedges": len(all_edges)}


def _mask(n: int, rows: np.ndarray) -> np.ndarray:
    """(n,) bool, True at `rows`: membership tests by indexing, O(n) with no sort."""
    mask = np.zeros(n, dtype=bool)
    mask[rows] = True
    return mask


def _members(snaps: Sequence[Snapshot], edges: list[str], skills: set[str], rings: bool = True
             ) -> tuple[dict[str, list[str]], dict[str, str], list[tuple[str, str]]]:
    """(subtask ids of each drawn edge, subtask id -> its text, the (edge, node) links
    of any snapshot between drawn elements, in first-seen order). Only the memberships
    of drawn hyperedges are visited (one vectorised filter per snapshot); `rings` False
    leaves the subtask nodes out."""
    subtasks: dict[str, list[str]] = {}
    text: dict[str, str] = {}
    links: dict[tuple[str, str], None] = {}
    for snap in snaps:
        m = snap.memory
        E = m.columns("hyperedge")
        cols = _mask(E.n, np.array([E.row[e] for e in edges if e in E.row], dtype=np.int64))
        for kind in ("subtask", "skill")[0 if rings else 1:]:
            st = m.columns(kind)
            node, edge = m.memberships(kind)
            sel = cols[edge]
            for n, e in zip(node[sel].tolist(), edge[sel].tolist()):
                eid, nid = E.ids[e], st.ids[n]
                if kind == "skill" and nid not in skills:
                    continue
                links[(eid, nid)] = None
                if kind == "subtask" and nid not in text:
                    subtasks.setdefault(eid, []).append(nid)
                    text[nid] = st.text["content"][n]
    return subtasks, text, list(links)


def _spring(n: int, edges: np.ndarray, seed: int, iterations: int = 50) -> np.ndarray:
    """Fruchterman-Reingold positions (n, 2) in [-1, 1] of a connected graph with the
    (m, 2) index pairs `edges`, all pairs at once in float32 (the dense form of the
    algorithm networkx's spring_layout runs below 500 nodes; its sparse form above that
    loops over the nodes in Python and took 20 s for 700 here)."""
    rng = np.random.default_rng(seed)
    x, y = rng.uniform(-1, 1, (2, n)).astype(np.float32)
    k2 = np.float32(1.0 / n)
    A = np.zeros((n, n), dtype=np.float32)
    A[edges[:, 0], edges[:, 1]] = A[edges[:, 1], edges[:, 0]] = np.float32(math.sqrt(n))
    t = np.float32(0.1)
    for _ in range(iterations):
        dx, dy = x[:, None] - x[None, :], y[:, None] - y[None, :]  # (n, n) each
        d2 = np.maximum(dx * dx + dy * dy, np.float32(1e-4))
        force = k2 / d2 - A * np.sqrt(d2)  # repulsion k^2/d, attraction d^2/k, over d
        fx, fy = (dx * force).sum(axis=1), (dy * force).sum(axis=1)
        step = t / np.maximum(np.sqrt(fx * fx + fy * fy), np.float32(0.01))
        x += fx * step
        y += fy * step
        t -= np.float32(0.1 / (iterations + 1))
    pos = np.stack([x, y], axis=1)
    pos -= pos.mean(axis=0)
    return pos / (np.abs(pos).max() or 1.0)


def _components(n: int, pairs: np.ndarray) -> np.ndarray:
    """Connected component labels (n,) of the graph with the (m, 2) index pairs, each
    component labelled by its smallest member (a few hundred drawn elements: union-find
    with path halving, no graph library to import).

    >>> _components(5, np.array([[0, 2], [3, 4], [2, 1]])).tolist()
    [0, 0, 0, 3, 3]
    """
    parent = list(range(n))

    def root(v: int) -> int:
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    for a, b in pairs.tolist():
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    return np.array([root(v) for v in range(n)], dtype=np.int64)


def _layout(skills: list[str], edges: list[str], links: list[tuple[str, str]],
            seed: int) -> dict[str, tuple[float, float]]:
    """Positions (px) of the drawn skills and hyperedges: each connected component
    (`_components`) laid out by `_spring` (or `_two_step` beyond `SPRING_MAX` elements),
    scaled to its size, the components packed in rows (largest first) about twice as
    wide as high."""
    names = list(edges) + list(skills)
    at = {v: i for i, v in enumerate(names)}
    pairs = np.array([(at[e], at[n]) for e, n in dict.fromkeys(links) if n in at and e in at
                      and n[:1] == "s"], dtype=np.int64).reshape(-1, 2)
    label = _components(len(names), pairs)
    order = np.argsort(label, kind="stable")
    bounds = np.flatnonzero(np.diff(label[order])) + 1
    comps = sorted(np.split(order, bounds) if len(order) else [],
                   key=lambda c: (-len(c), int(c[0])))
    pair_label = label[pairs[:, 0]] if len(pairs) else np.zeros(0, dtype=np.int64)
    p_order = np.argsort(pair_label, kind="stable")
    p_starts = {int(pair_label[p_order[i]]): i for i in
                ([0] + (np.flatnonzero(np.diff(pair_label[p_order])) + 1).tolist()
                 if len(pairs) else [])}
    p_counts = np.bincount(pair_label, minlength=len(names)) if len(pairs) else None
    blocks = []
    is_skill = np.array([v[:1] == "s" for v in names], dtype=bool)
    for comp in comps:
        radius = 38.0 * math.sqrt(len(comp))
        if len(comp) == 1:
            blocks.append((comp, np.zeros((1, 2)), radius))
            continue
        c = int(label[comp[0]])
        mine = pairs[p_order[p_starts[c]:p_starts[c] + int(p_counts[c])]]
        local = np.full(len(names), -1, dtype=np.int64)
        local[comp] = np.arange(len(comp))
        inside = local[mine]
        if len(comp) <= SPRING_MAX:
            xy = _spring(len(comp), inside, seed)
        else:
            radius = 30.0 * math.sqrt(len(comp))
            xy = _two_step(is_skill[comp], inside, seed)
        blocks.append((comp, xy * radius, radius))
    total = sum((2 * r + 30) ** 2 for _, _, r in blocks)
    width = max(2 * blocks[0][2] + 30, math.sqrt(2.0 * total)) if blocks else 0
    out: dict[str, tuple[float, float]] = {}
    x = y = row_h = 0.0
    for comp, xy, r in blocks:
        size = 2 * r + 30
        if x > 0 and x + size > width:
            x, y, row_h = 0.0, y + row_h, 0.0
        for v, (a, b) in zip(comp.tolist(), np.asarray(xy, dtype=float).tolist()):
            out[names[v]] = (round(x + size / 2 + a, 1), round(y + size / 2 + b, 1))
        x += size
        row_h = max(row_h, size)
    return out


GOLDEN = math.pi * (3.0 - math.sqrt(5.0))
"""The golden angle (radians): successive points of a spiral at this angle never line up."""


def _two_step(is_skill: np.ndarray, pairs: np.ndarray, seed: int) -> np.ndarray:
    """Positions (n, 2) in about [-1, 1] of a large component whose elements are skills
    (`is_skill`) and hyperedges, with (hyperedge, skill) index `pairs`: the skills by
    `_spring` over the skill pairs that share a hyperedge, then each hyperedge at the
    centroid of its skills, spread on a golden-angle spiral around it where several
    meet (O(n + pairs) after the skills' spring)."""
    n = len(is_skill)
    sk = np.flatnonzero(is_skill)
    sk_local = np.full(n, -1, dtype=np.int64)
    sk_local[sk] = np.arange(len(sk))
    order = np.lexsort((pairs[:, 1], pairs[:, 0]))
    e_col, s_col = pairs[order, 0], sk_local[pairs[order, 1]]
    starts = np.flatnonzero(np.r_[True, np.diff(e_col) != 0])
    ss: list[tuple[int, int]] = []
    for a, b in zip(starts.tolist(), np.r_[starts[1:], len(e_col)].tolist()):
        members = s_col[a:b].tolist()
        ss += [(members[i], members[j]) for i in range(len(members))
               for j in range(i + 1, min(len(members), i + 4))]  # a chain: O(size) pairs
    sp = np.array(sorted(set(ss)), dtype=np.int64).reshape(-1, 2)
    pos = np.zeros((n, 2))
    pos[sk] = _spring(len(sk), sp, seed) if len(sk) > 1 else 0.0
    sums = np.zeros((n, 2))
    np.add.at(sums, e_col, pos[pairs[order, 1]])
    cnt = np.bincount(e_col, minlength=n)
    edges = np.flatnonzero(~is_skill)
    centre = sums[edges] / np.maximum(cnt[edges], 1)[:, None]
    cell = np.round(centre * 40).astype(np.int64)  # hyperedges meeting in one cell: a spiral
    key = cell[:, 0] * 1_000_003 + cell[:, 1]
    rank = np.zeros(len(edges), dtype=np.int64)
    srt = np.argsort(key, kind="stable")
    first = np.r_[0, np.flatnonzero(np.diff(key[srt])) + 1]
    rank[srt] = np.arange(len(srt)) - np.repeat(first, np.diff(np.r_[first, len(srt)]))
    r = 0.012 * np.sqrt(rank + 1.0)
    pos[edges, 0] = centre[:, 0] + r * np.cos(rank * GOLDEN)
    pos[edges, 1] = centre[:, 1] + r * np.sin(rank * GOLDEN)
    return pos


def _texts(snaps: Sequence[Snapshot], skills: list[str], edges: list[str]
           ) -> dict[str, tuple[str, int]]:
    """The latest label text (a skill's name, a trajectory's task) and code (a skill's
    polarity, a trajectory's outcome: 0 success, 1 failure) of each drawn element."""
    texts: dict[str, tuple[str, int]] = {}
    for snap in snaps:
        S, E = snap.memory.columns("skill"), snap.memory.columns("hyperedge")
        for s in skills:
            if s in S.row:
                r = S.row[s]
                texts[s] = (S.text["name"][r], int(S.polarity[r]))
        for e in edges:
            if e in E.row:
                r = E.row[e]
                texts[e] = (E.text["task"][r], 0 if E.success[r] else 1)
    return texts


def _nodes(skills: list[str], edges: list[str], subtasks: dict[str, list[str]],
           sub_text: dict[str, str], pos: dict[str, tuple[float, float]],
           texts: dict[str, tuple[str, int]]) -> list[list[Any]]:
    nodes: list[list[Any]] = []
    for e in edges:
        x, y = pos.get(e, (0.0, 0.0))
        task, outcome = texts.get(e, ("", 0))
        nodes.append([e, "e", x, y, _short(task), outcome])
        ring = subtasks.get(e, [])
        for a, u in enumerate(ring):
            ang = 2 * math.pi * a / max(len(ring), 1)
            nodes.append([u, "u", round(x + 22 * math.cos(ang), 1),
                          round(y + 22 * math.sin(ang), 1), _short(sub_text[u]), -1])
    for s in skills:
        x, y = pos.get(s, (0.0, 0.0))
        name, pol = texts.get(s, ("", 0))
        nodes.append([s, "s", x, y, _short(name), pol])
    return nodes


def graph_data(snaps: Sequence[Snapshot], seed: int = 0,
               budget: Budget | None = None) -> dict[str, Any]:
    """What the page and the widget draw: {"nodes": [[id, kind "u"/"s"/"e", x, y, label,
    code]] (code: a skill's polarity or a trajectory's outcome, 0 success / 1 failure; -1
    subtask), "links": [[hyperedge's node index, member's node index]], "checkpoints":
    [{"after", "label", "present": node indices, "gamma", "nu", "degree": aligned with
    "present", "links": link indices, "counts": live elements by kind}], "totals",
    "note": what was aggregated, "" when nothing}; {} when the run has no snapshot.
    `budget`: what is drawn at most (`Budget()`, the page's, by default)."""
    if not snaps:
        return {}
    budget = budget or Budget()
    skills, edges, seen = _choose(snaps, budget)
    rings = len(edges) <= budget.rings
    subtasks, sub_text, links = _members(snaps, edges, set(skills), rings)
    pos = _layout(skills, edges, links, seed)
    nodes = _nodes(skills, edges, subtasks, sub_text, pos, _texts(snaps, skills, edges))
    index = {n[0]: i for i, n in enumerate(nodes)}
    ids = [n[0] for n in nodes]
    link_index = {lk: i for i, lk in enumerate(links)}
    out_links = [[index[e], index[n]] for e, n in links]
    link_arr = np.array(out_links, dtype=np.int64).reshape(-1, 2)
    cks = []
    for snap in snaps:
        st = lookup(snap.memory, ids)
        present = np.zeros(len(nodes), dtype=bool)
        present[st["present"]] = True
        lk = np.array(_present_links(snap, links, link_index, edges, rings), dtype=np.int64)
        keep = lk[present[link_arr[lk, 0]] & present[link_arr[lk, 1]]] if len(lk) else lk
        cks.append({
            "after": snap.after, "label": snap.label,
            "present": st["present"].tolist(),
            "gamma": np.round(st["gamma"], 3).tolist(),
            "nu": st["nu"].tolist(), "degree": st["degree"].tolist(),
            "links": keep.tolist(),
            "counts": counts(snap.memory),
        })
    notes = []
    if len(skills) < seen["skills"] or len(edges) < seen["hyperedges"]:
        notes.append(f"Aggregated: the {len(skills)} most used of {seen['skills']} skill "
                     f"nodes (largest degree first) and a sample of {len(edges)} of "
                     f"{seen['hyperedges']} hyperedges (the newest holding a drawn skill) "
                     "are drawn; the counts and tables cover everything.")
    if not rings:
        notes.append(f"Subtask nodes are drawn up to {budget.rings} hyperedges: here a "
                     "trajectory's subtasks are listed when it is clicked.")
    return {"nodes": nodes, "links": out_links, "checkpoints": cks,
            "totals": {"skills_ever": seen["skills"], "hyperedges": seen["hyperedges"],
                       "drawn_skills": len(skills), "drawn_hyperedges": len(edges),
                       "rings": rings},
            "note": " ".join(notes)}


def _present_links(snap: Snapshot, links: list[tuple[str, str]],
                   link_index: dict[tuple[str, str], int], edges: list[str],
                   rings: bool = True) -> list[int]:
    """Indices of the drawn links that are memberships in this snapshot."""
    m = snap.memory
    E = m.columns("hyperedge")
    cols = _mask(E.n, np.array([E.row[e] for e in edges if e in E.row], dtype=np.int64))
    out = []
    for kind in ("subtask", "skill")[0 if rings else 1:]:
        st = m.columns(kind)
        node, edge = m.memberships(kind)
        sel = cols[edge]
        for n, e in zip(node[sel].tolist(), edge[sel].tolist()):
            i = link_index.get((E.ids[e], st.ids[n]))
            if i is not None:
                out.append(i)
    return sorted(out)
