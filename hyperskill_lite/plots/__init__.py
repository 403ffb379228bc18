"""Plots and HyperNetX drawings for the notebooks, ``make demo`` and ``report``: this
package's ``__init__`` is their one public import (``from hyperskill_lite import plots``;
the notebooks write ``from hyperskill_lite import plots as viz``).

Each module is one concern: `runs` (cumulative SR, memory growth, maintenance, the
demo's and `report`'s figures, `save_figure`), `matrices` (heatmaps, the gamma surface,
the prune map, rank comparisons), `comparisons` (sweeps, SR per method, paired
differences, the cost figure), `drawing` (HyperNetX drawings styled like the paper's
figure), `labels` (overlap-free labels), `palette` (the one colour scheme and the
methods' line styles), `style` (figures designed for the course site's column, numbers
without signed zeros, a figure's description) and `common`. Each reads run records, a
`HypergraphMemory` or arrays the core computed, and draws with matplotlib and HyperNetX,
imported inside the functions. `viz` keeps the names the notebooks of version 0.2.0 read
from it, with a DeprecationWarning.

May import: `core/`, `types.py`. Must not import: `agent/`, `baselines/`, `world/`,
`bench/`, or the top-level runner, registry and CLI.
"""

from hyperskill_lite.plots.comparisons import (
    BUBBLE_AREA,
    bubble_areas,
    mean_spread,
    plot_cost,
    plot_cost_bubbles,
    plot_method_bars,
    plot_method_dots,
    plot_paired_differences,
    plot_sweep,
)
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
from hyperskill_lite.plots.labels import (
    place_labels,
    short_labels,
    wrap_label,
)
from hyperskill_lite.plots.matrices import (
    annotation_size,
    cosine_matrix,
    gamma_grid,
    plot_gamma_surface,
    plot_heatmap,
    plot_prune_map,
    plot_rank_comparison,
    plot_similarity_change,
    rank_comparison,
)
from hyperskill_lite.plots.palette import (
    COLORS,
    METHOD_COLORS,
    METHOD_STYLES,
    OP_COLORS,
    drawing_order,
    method_color,
    method_style,
)
from hyperskill_lite.plots.runs import (
    MAX_FIGURE_PX,
    cumulative_sr,
    demo_figures,
    figure_metadata,
    maintenance_totals,
    plot_cumulative_sr,
    plot_maintenance_ops,
    plot_memory_growth,
    report_figures,
    save_figure,
)
from hyperskill_lite.plots.style import (
    COLUMN_IN,
    MIN_TEXT_PT,
    column_figsize,
    describe_figure,
    number,
    one_line,
    shown_pt,
    shown_scale,
)

__all__ = [
    "BUBBLE_AREA",
    "bubble_areas",
    "mean_spread",
    "plot_cost",
    "plot_cost_bubbles",
    "plot_method_bars",
    "plot_method_dots",
    "plot_paired_differences",
    "plot_sweep",
    "carry_layout",
    "draw_before_after",
    "draw_hypergraph",
    "hypergraph_figure",
    "hypergraph_layout",
    "hypergraph_legend_handles",
    "incidence_table",
    "node_role",
    "plot_incidence",
    "representative_edges",
    "place_labels",
    "short_labels",
    "wrap_label",
    "annotation_size",
    "cosine_matrix",
    "gamma_grid",
    "plot_gamma_surface",
    "plot_heatmap",
    "plot_prune_map",
    "plot_rank_comparison",
    "plot_similarity_change",
    "rank_comparison",
    "COLORS",
    "METHOD_COLORS",
    "METHOD_STYLES",
    "OP_COLORS",
    "drawing_order",
    "method_color",
    "method_style",
    "MAX_FIGURE_PX",
    "cumulative_sr",
    "demo_figures",
    "figure_metadata",
    "maintenance_totals",
    "plot_cumulative_sr",
    "plot_maintenance_ops",
    "plot_memory_growth",
    "report_figures",
    "save_figure",
    "COLUMN_IN",
    "MIN_TEXT_PT",
    "column_figsize",
    "describe_figure",
    "number",
    "one_line",
    "shown_pt",
    "shown_scale",
]
