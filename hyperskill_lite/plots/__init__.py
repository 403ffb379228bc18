"""Plots and HyperNetX drawings for the notebooks and `make demo`.

`viz.py` draws run records (cumulative SR, memory growth, maintenance operations,
sweeps, method bars), heatmaps, the gamma surface and rank comparisons; `drawing.py`
draws a memory as a hypergraph styled like the paper's figure. matplotlib and
HyperNetX are imported inside the functions. The notebooks use ``from
hyperskill_lite.plots import viz`` (viz re-exports the drawings).

May import: `core/`, `types.py`. Must not import: `agent/`, `baselines/`, `world/`,
`bench/`, or the top-level runner, registry and CLI.
"""

from hyperskill_lite.plots import drawing, viz

__all__ = ["viz", "drawing"]
