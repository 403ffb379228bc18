"""The toolkit's one colour scheme: every plot and drawing takes its colours from here.

Three families, each colour meaning one thing wherever it appears:

- `COLORS`, the memory's elements (the paper's hypergraph figure): success/failure
  trajectory hyperedges green/red, skill nodes blue, mistake (failure-polarity) nodes
  light red, subtask nodes light blue; `COLORS["highlight"]` rings a node a figure
  points at (e.g. the node a merge created).
- `OP_COLORS`, the memory's operations: insertion dedup, maintenance merge, maintenance
  prune.
- `METHOD_COLORS`, one colour per method: HyperSkill blue (the skill blue) and its
  variants in lighter blues, no memory grey, each baseline its own hue.

Node-type colours and method colours live in different kinds of figure (drawings and
memory-size plots versus per-method curves and bars), so the skill blue doubling as
HyperSkill's colour never meets a subtask or mistake colour in one legend.
"""

from __future__ import annotations

__all__ = ["COLORS", "OP_COLORS", "METHOD_COLORS", "method_color"]

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
    "hyperskill-no-subtask": "#6baed6",
    "hyperskill-no-trajectory": "#9ecae1",
    "flat": "#08306b",
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
