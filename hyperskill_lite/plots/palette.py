"""The toolkit's one colour scheme: every plot and drawing takes its colours from here.

Three families, each colour meaning one thing wherever it appears:

- `COLORS`, the memory's elements (the paper's hypergraph figure): success/failure
  trajectory hyperedges green/red, skill nodes blue, mistake (failure-polarity) nodes
  light red, subtask nodes light blue; `COLORS["highlight"]` rings a node a figure
  points at (e.g. the node a merge created).
- `OP_COLORS`, the memory's operations: insertion dedup, maintenance merge, maintenance
  prune.
- `METHOD_COLORS`, one colour per method: HyperSkill blue (the skill blue), its
  ablations in the same family but clearly apart (a paler and a greyer blue and a dark
  slate, each with its own line style and bar hatch, `method_style`), no memory grey,
  each baseline its own hue. HyperSkill is drawn last, thickest, on top.

Node-type colours and method colours live in different kinds of figure (drawings and
memory-size plots versus per-method curves and bars), so the skill blue doubling as
HyperSkill's colour never meets a subtask or mistake colour in one legend.
"""

from __future__ import annotations

__all__ = ["COLORS", "OP_COLORS", "METHOD_COLORS", "METHOD_STYLES", "method_color",
           "method_style", "drawing_order"]

COLORS: dict[str, str] = {
    "success_edge": "#2e7d32",  # green: successful trajectory hyperedge
    "failure_edge": "#c62828",  # red: failed trajectory hyperedge
    "skill": "#1e63c8",  # blue circle: success skill (strategy)
    "mistake": "#e57373",  # red circle: failure skill (mistake to avoid)
    "subtask": "#9ecae1",  # light-blue dot: subtask node
    "hyperedge": "#555555",  # a hyperedge count, either outcome (memory-size plots)
    "highlight": "#f2a900",  # gold ring: the node a figure points at
}
"""The palette of the paper's hypergraph figure, by element role (plus a count of
hyperedges of either outcome and a highlight ring)."""

OP_COLORS: dict[str, str] = {
    "dedup": "#1b9e77",  # teal: a new skill joined an existing node at insertion
    "merged": "#7b3294",  # purple: maintenance merged a pair (Eq. 14)
    "pruned": "#a6611a",  # brown: maintenance pruned a node (Eq. 11)
}
"""One colour per memory operation, used by every plot that counts operations."""

METHOD_COLORS: dict[str, str] = {
    "hyperskill": "#1e63c8",  # the method itself: the skill blue of the drawings
    "hyperskill-no-subtask": "#7fa9d9",  # ablations: the same family, paler / greyer /
    "hyperskill-no-trajectory": "#8a9bb4",  # darker, and told apart by line style
    "flat": "#2d3e63",
    "no-memory": "#7f7f7f",
    "reasoningbank": "#ff7f0e",
    "expel": "#2ca02c",
    "awm": "#d62728",
    "generative": "#9467bd",
    "voyager": "#8c564b",
    "dilu": "#e377c2",
    "cheatsheet": "#bcbd22",
    "memp": "#17becf",
    "memevolve": "#ad494a",
    "plugmem": "#637939",
    "generative-agents": "#c5b0d5",
    "cheatsheet-cu": "#dbdb8d",
    "memevolve-longterm": "#e7969c",
}
"""One colour per method, used by every per-method plot: HyperSkill and its variants in
blues, no memory in grey, a baseline's variant in a lighter shade of the baseline."""


METHOD_STYLES: dict[str, dict[str, object]] = {
    "hyperskill": {"ls": "-", "lw": 2.6, "zorder": 5, "hatch": None},
    "hyperskill-no-subtask": {"ls": (0, (5, 2)), "lw": 1.5, "zorder": 3, "hatch": "//"},
    "hyperskill-no-trajectory": {"ls": (0, (6, 2, 1.5, 2)), "lw": 1.5, "zorder": 3,
                                 "hatch": "\\\\"},
    "flat": {"ls": (0, (1.5, 1.5)), "lw": 1.7, "zorder": 3, "hatch": ".."},
}
"""Line style, width, drawing order and bar hatch of the methods that need more than a
colour: HyperSkill solid, thickest and on top; its ablations dashed, dash-dotted and
dotted (hatched as bars). Every other method: a solid 1.3-point line."""


def method_style(name: str) -> dict[str, object]:
    """`METHOD_STYLES` of a method, or the plain style.

    >>> method_style("hyperskill")["zorder"] > method_style("memp")["zorder"]
    True
    """
    return METHOD_STYLES.get(name, {"ls": "-", "lw": 1.3, "zorder": 2, "hatch": None})


def drawing_order(names) -> list[str]:
    """`names` in the order to draw them: HyperSkill last, so nothing hides it.

    >>> drawing_order(["hyperskill", "flat", "no-memory"])
    ['flat', 'no-memory', 'hyperskill']
    """
    return sorted(names, key=lambda n: method_style(n)["zorder"] == 5)


def method_color(name: str) -> str:
    """The method's colour in `METHOD_COLORS`; an unknown name gets a stable colour of
    its own from matplotlib's tab20 (chosen by a hash of the name, not by plot order).

    >>> method_color("hyperskill"), method_color("no-memory")
    ('#1e63c8', '#7f7f7f')
    >>> method_color("my-method") == method_color("my-method")
    True
    """
    if name in METHOD_COLORS:
        return METHOD_COLORS[name]
    import zlib

    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    return to_hex(colormaps["tab20"](zlib.crc32(name.encode()) % 20))
