"""The widget's static copy: what a notebook shows of the memory where no kernel runs the
widget (a notebook opened without a kernel, GitHub, the course site) and what nbval
compares.

`static_bundle` gives one display output: a PNG of the drawing the widget opens on (the
same layout, colours and sizes: one snapshot of the data model, drawn by matplotlib)
and a text line that says what the memory holds and what was aggregated. The PNG is
written without matplotlib's version tag, so it is the same bytes on every run with the
same matplotlib; nbval compares the text and leaves images aside.

Not here: the interactive widget (model.py).
"""

from __future__ import annotations

import base64
import io
from typing import Any

__all__ = ["static_bundle", "summary", "draw_png", "COLORS"]

COLORS = {"s0": "#1e63c8", "s1": "#e57373", "e0": "#2e7d32", "e1": "#c62828",
          "u": "#9ecae1", "link": "#b8c0cc"}
"""The drawing's colours, as view.js draws them: strategies, mistakes, successful and
failed trajectories, subtask nodes, memberships."""


def summary(view: dict[str, Any], checkpoint: int) -> str:
    """One line: the run or memory, the checkpoint shown, what it holds, what is drawn."""
    g = view.get("graph") or {}
    if not g:
        return (f"{view.get('name', 'run')}: this method ({view.get('method')}) stores no "
                "hypergraph; the widget shows its tasks' retrievals.")
    ck = g["checkpoints"][checkpoint]
    c, t = ck["counts"], g["totals"]
    where = ("the memory" if view.get("kind") == "memory" else
             f"{view.get('name')}, {'the final memory' if ck['label'] == 'final' else ck['label']}"
             f" after episode {ck['after']} ({checkpoint + 1} of {len(g['checkpoints'])} checkpoints)")
    drawn = ("all drawn" if t["drawn_skills"] == t["skills_ever"]
             and t["drawn_hyperedges"] == t["hyperedges"] else
             f"drawn: the {t['drawn_skills']} most used of {t['skills_ever']} skill nodes and "
             f"{t['drawn_hyperedges']} of {t['hyperedges']} trajectories")
    tasks = len(view.get("tasks") or [])
    return (f"Memory widget: {where}: {c['skill']} strategies, {c['mistake']} mistakes, "
            f"{c['subtask']} subtask nodes, {c['hyperedge']} trajectories; {drawn}; "
            f"{tasks} task(s) to explain. The picture is the widget's static copy; run the "
            "notebook for the interactive view.")


def draw_png(view: dict[str, Any], checkpoint: int, width_px: int = 900,
             height_px: int = 520) -> bytes | None:
    """PNG bytes of the drawing at `checkpoint` (None for a run with no hypergraph)."""
    g = view.get("graph") or {}
    if not g:
        return None
    from matplotlib.collections import LineCollection  # lazy: matplotlib for the PNG only
    from matplotlib.figure import Figure

    nodes, ck = g["nodes"], g["checkpoints"][checkpoint]
    gamma = dict(zip(ck["present"], ck["gamma"]))
    fig = Figure(figsize=(width_px / 100, height_px / 100), dpi=100)
    ax = fig.add_axes((0.01, 0.0, 0.98, 0.91))
    ax.set_axis_off()
    ax.invert_yaxis()  # screen coordinates, as vis-network draws them
    segs = [(nodes[a][2:4], nodes[b][2:4]) for a, b in (g["links"][k] for k in ck["links"])]
    if segs:
        ax.add_collection(LineCollection(segs, colors=COLORS["link"], linewidths=0.4, zorder=1))
    for kind, marker, base, scale, z in (("u", "o", 3, 6, 2), ("e", "s", 6, 12, 3),
                                         ("s", "o", 12, 40, 4)):
        pick = [i for i in ck["present"] if nodes[i][1] == kind]
        if not pick:
            continue
        color = [COLORS["u"] if kind == "u" else COLORS[kind + ("1" if nodes[i][5] else "0")]
                 for i in pick]
        ax.scatter([nodes[i][2] for i in pick], [nodes[i][3] for i in pick], marker=marker,
                   s=[base + scale * (gamma.get(i) or 0.0) for i in pick], c=color,
                   linewidths=0, zorder=z)
    ax.autoscale_view()
    ax.set_aspect("equal", adjustable="datalim")
    label = "the memory" if view.get("kind") == "memory" else (
        f"{view.get('name')} after episode {ck['after']}")
    fig.suptitle(f"{label}\ndots: strategies (blue), mistakes (red), subtasks (light blue); "
                 "squares: trajectories (green success, red failure); size: utility γ",
                 fontsize=8, y=0.99)
    out = io.BytesIO()
    fig.savefig(out, format="png", dpi=100, metadata={  # no version tag; the site's alt text
        "Software": None, "Title": f"The memory widget's static copy: {label}",
        "Description": summary(view, checkpoint).split(". The picture")[0]})
    return out.getvalue()


def static_bundle(view: dict[str, Any], checkpoint: int) -> dict[str, Any]:
    """The static output's MIME bundle: ``image/png`` (base64, as Jupyter stores it) when
    there is a drawing, and ``text/plain`` (`summary`)."""
    data: dict[str, Any] = {"text/plain": summary(view, checkpoint)}
    png = draw_png(view, checkpoint)
    if png is not None:
        data["image/png"] = base64.b64encode(png).decode("ascii")
    return data
