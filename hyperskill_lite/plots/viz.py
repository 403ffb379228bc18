"""The notebooks' one import for plots: ``from hyperskill_lite.plots import viz``.

Everything here is re-exported from the plotting modules, each one concern: `runs`
(cumulative SR, memory growth, maintenance, the demo's and `report`'s figures,
`save_figure`), `matrices` (heatmaps, the gamma surface, the prune map, rank
comparisons), `comparisons` (sweeps, SR per method, paired differences, the cost
figure), `drawing` (HyperNetX drawings styled like the paper's figure), `labels`
(overlap-free labels), `palette` (the one colour scheme) and `style` (figures designed for
the course site's column, numbers without signed zeros, a figure's description). Each reads run records, a
`HypergraphMemory` or arrays the core computed, and draws with matplotlib (imported
lazily). Not here: any computation the library needs.
"""

from __future__ import annotations

from hyperskill_lite.plots.comparisons import *  # noqa: F403
from hyperskill_lite.plots.comparisons import __all__ as _comparisons
from hyperskill_lite.plots.drawing import (
    carry_layout,
    draw_before_after,
    draw_hypergraph,
    hypergraph_figure,
    hypergraph_layout,
    hypergraph_legend_handles,
    incidence_table,
    node_role,
    plot_incidence,
    representative_edges,
)
from hyperskill_lite.plots.labels import place_labels, short_labels, wrap_label
from hyperskill_lite.plots.matrices import *  # noqa: F403
from hyperskill_lite.plots.matrices import __all__ as _matrices
from hyperskill_lite.plots.palette import (
    COLORS,
    METHOD_COLORS,
    METHOD_STYLES,
    OP_COLORS,
    drawing_order,
    method_color,
    method_style,
)
from hyperskill_lite.plots.runs import *  # noqa: F403
from hyperskill_lite.plots.runs import __all__ as _runs
from hyperskill_lite.plots.style import *  # noqa: F403
from hyperskill_lite.plots.style import __all__ as _style

__all__ = [*_runs, *_matrices, *_comparisons, *_style,
           "carry_layout", "draw_before_after", "draw_hypergraph", "hypergraph_figure",
           "hypergraph_layout", "hypergraph_legend_handles",
           "incidence_table", "node_role", "plot_incidence", "representative_edges",
           "short_labels", "wrap_label", "place_labels", "COLORS", "METHOD_COLORS",
           "METHOD_STYLES", "OP_COLORS", "drawing_order", "method_color", "method_style"]
