"""Kept for the notebooks of version 0.2.0, which read their plots through ``from
hyperskill_lite.plots import viz``: each name they used is read from its home with a
DeprecationWarning. Import from `hyperskill_lite.plots` instead (the notebooks now write
``from hyperskill_lite import plots as viz``)."""

from __future__ import annotations

import importlib
import warnings
from typing import Any

__all__: list[str] = []

_MOVED = {
    "COLORS": "hyperskill_lite.plots.palette",
    "OP_COLORS": "hyperskill_lite.plots.palette",
    "column_figsize": "hyperskill_lite.plots.style",
    "cosine_matrix": "hyperskill_lite.plots.matrices",
    "cumulative_sr": "hyperskill_lite.plots.runs",
    "draw_before_after": "hyperskill_lite.plots.drawing",
    "draw_hypergraph": "hyperskill_lite.plots.drawing",
    "gamma_grid": "hyperskill_lite.plots.matrices",
    "hypergraph_figure": "hyperskill_lite.plots.drawing",
    "incidence_table": "hyperskill_lite.plots.drawing",
    "maintenance_totals": "hyperskill_lite.plots.runs",
    "method_color": "hyperskill_lite.plots.palette",
    "node_role": "hyperskill_lite.plots.drawing",
    "plot_cost_bubbles": "hyperskill_lite.plots.comparisons",
    "plot_cumulative_sr": "hyperskill_lite.plots.runs",
    "plot_gamma_surface": "hyperskill_lite.plots.matrices",
    "plot_heatmap": "hyperskill_lite.plots.matrices",
    "plot_incidence": "hyperskill_lite.plots.drawing",
    "plot_maintenance_ops": "hyperskill_lite.plots.runs",
    "plot_memory_growth": "hyperskill_lite.plots.runs",
    "plot_method_bars": "hyperskill_lite.plots.comparisons",
    "plot_method_dots": "hyperskill_lite.plots.comparisons",
    "plot_paired_differences": "hyperskill_lite.plots.comparisons",
    "plot_prune_map": "hyperskill_lite.plots.matrices",
    "plot_rank_comparison": "hyperskill_lite.plots.matrices",
    "plot_similarity_change": "hyperskill_lite.plots.matrices",
    "plot_sweep": "hyperskill_lite.plots.comparisons",
    "rank_comparison": "hyperskill_lite.plots.matrices",
    "representative_edges": "hyperskill_lite.plots.drawing",
    "save_figure": "hyperskill_lite.plots.runs",
}
"""Name -> the module that defines it (each is also in `hyperskill_lite.plots`)."""


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        warnings.warn(f"hyperskill_lite.plots.viz.{name} is deprecated: import it from "
                      f"hyperskill_lite.plots", DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(_MOVED[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
