"""Plots and HyperNetX drawings used by the notebooks and `make demo`.

Everything here reads run records (runner.py), a `HypergraphMemory` or arrays the core
computed, and draws with matplotlib (lazily imported; HyperNetX only in
`draw_hypergraph`, styled like the paper's hypergraph figure). The helpers that compute
are small plot-adjacent reshapings: a subgraph to draw, a dense incidence table, a cosine
matrix, the gamma grid of Eq. 3, two rankings side by side, maintenance totals, spread
over seeds. The hypergraph drawings live in drawing.py and are re-exported here. Not
here: any computation the library needs (retrieval, utility and
maintenance live in their modules).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from hyperskill_lite.plots.drawing import (  # re-exported: `viz` is the notebooks' one import
    carry_layout,
    draw_hypergraph,
    hypergraph_layout,
    hypergraph_legend_handles,
    incidence_table,
    node_role,
    plot_incidence,
    representative_edges,
)
from hyperskill_lite.plots.labels import place_labels
from hyperskill_lite.plots.palette import COLORS, METHOD_COLORS, OP_COLORS, method_color

if TYPE_CHECKING:
    from hyperskill_lite.core.retrieval import Retrieval

__all__ = [
    "cumulative_sr", "plot_cumulative_sr", "plot_memory_growth", "demo_figures",
    "report_figures", "COLORS",
    "node_role", "representative_edges", "draw_hypergraph", "incidence_table", "plot_incidence",
    "cosine_matrix", "plot_heatmap", "gamma_grid", "plot_gamma_surface", "plot_prune_map",
    "rank_comparison", "plot_rank_comparison", "maintenance_totals", "plot_maintenance_ops",
    "mean_spread", "plot_sweep", "plot_method_bars", "save_figure", "METHOD_COLORS",
    "method_color", "place_labels", "plot_cost_bubbles", "OP_COLORS", "hypergraph_layout",
    "carry_layout", "hypergraph_legend_handles", "MAX_FIGURE_PX", "plot_paired_differences",
]

Records = Sequence[Mapping[str, Any]]

def _ax(ax, figsize: tuple[float, float]):
    """`ax`, or the axes of a new figure of `figsize`."""
    import matplotlib.pyplot as plt

    return ax if ax is not None else plt.subplots(figsize=figsize)[1]


def _finish(ax, xlabel: str, ylabel: str, title: str, legend: bool = True):
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if legend:
        ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return ax


# ---------------------------------------------------------------------------- runs
def cumulative_sr(records: Records) -> np.ndarray:
    """Cumulative success rate (%) after each episode, shape (n,).

    >>> cumulative_sr([{"success": True}, {"success": False}, {"success": True}]).round(1)
    array([100. ,  50. ,  66.7])
    """
    s = np.array([bool(r["success"]) for r in records], dtype=float)
    return 100.0 * np.cumsum(s) / np.arange(1, len(s) + 1)


def plot_cumulative_sr(runs: Mapping[str, Records], ax=None, title: str = ""):
    """One line per method: cumulative SR over episode index (paper Fig. self-evolving)."""
    ax = _ax(ax, (7, 4))
    for name, records in runs.items():
        ax.plot(np.arange(1, len(records) + 1), cumulative_sr(records), label=name,
                lw=2.2 if name == "hyperskill" else 1.3, color=method_color(name))
    return _finish(ax, "episode", "cumulative SR (%)", title or "Cumulative success rate")


def plot_memory_growth(records: Records, ax=None, title: str = ""):
    """Memory size by node type over episodes, with maintenance marked (paper Fig.
    growth). Lines take the node-type colours of the drawings (`COLORS`)."""
    ax = _ax(ax, (7, 4))
    x = np.arange(1, len(records) + 1)
    series = [("subtask_nodes", "subtask nodes", "subtask"),
              ("success_skills", "skills", "skill"),
              ("failure_skills", "mistakes", "mistake"),
              ("hyperedges", "hyperedges", "hyperedge")]
    keys = {k for r in records for k in r.get("sizes", {})} - {"incidences"}
    if not keys:  # no memory (or none reported)
        ax.text(0.5, 0.5, "this method keeps no memory", transform=ax.transAxes,
                ha="center", va="center", color="dimgrey")
        return _finish(ax, "episode", "count", title or "Memory growth", legend=False)
    if not keys & {k for k, _, _ in series}:  # another memory: each size it reports
        for key in sorted(keys):
            ax.plot(x, [r["sizes"].get(key, 0) for r in records], label=key.replace("_", " "),
                    lw=1.5)
        series = []
    for key, label, role in series:
        ax.plot(x, [r["sizes"].get(key, 0) for r in records], label=label, color=COLORS[role],
                lw=2.0 if role == "subtask" else 1.5)
    for r in records:
        if r.get("maintenance"):
            ax.axvline(r["index"] + 1, color="grey", lw=0.6, ls=":")
    return _finish(ax, "episode", "count", title or "Memory growth (dotted: maintenance)")


def maintenance_totals(records: Records) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative pruned and merged node counts after each episode: two (n,) int arrays.

    >>> recs = [{}, {"maintenance": {"pruned": 2, "merged": 1}}, {},
    ...         {"maintenance": {"pruned": 0, "merged": 3}}]
    >>> [a.tolist() for a in maintenance_totals(recs)]
    [[0, 2, 2, 2], [0, 1, 1, 4]]
    """
    pruned = np.array([(r.get("maintenance") or {}).get("pruned", 0) for r in records], int)
    merged = np.array([(r.get("maintenance") or {}).get("merged", 0) for r in records], int)
    return np.cumsum(pruned), np.cumsum(merged)


def plot_maintenance_ops(runs: Mapping[str, Records], ax=None, title: str = ""):
    """Cumulative maintenance operations over episodes (paper Fig. memory growth, bottom
    row): colour = operation (`OP_COLORS`: pruned, merged), line style = run (solid,
    dashed, dotted, ...). A series that stays at zero throughout is not drawn (it would
    hide under the others); a note in the corner names it."""
    ax = _ax(ax, (7, 4))
    styles = ["-", "--", ":", "-."]
    silent = []
    for k, (name, records) in enumerate(runs.items()):
        pruned, merged = maintenance_totals(records)
        x = np.arange(1, len(records) + 1)
        for op, y in (("pruned", pruned), ("merged", merged)):
            if len(y) == 0 or y[-1] == 0:
                silent.append(f"{name}: {op}")
                continue
            ax.step(x, y, where="post", color=OP_COLORS[op], ls=styles[k % len(styles)],
                    lw=1.6, label=f"{name}: {op}")
    if silent:
        ax.text(0.99, 0.02, "zero throughout (not drawn):\n" + "\n".join(silent),
                transform=ax.transAxes, ha="right", va="bottom", fontsize=7, color="dimgrey")
    ax.set_ylim(bottom=0)
    return _finish(ax, "episode", "cumulative operations", title or "Maintenance operations over time",
                   legend=len(silent) < 2 * len(runs))


def demo_figures(runs: Mapping[str, Records], figdir: Path, title: str = "") -> list[Path]:
    """Write demo_cumulative_sr.png and demo_memory_growth.png into `figdir`."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    figdir = Path(figdir)
    jobs = [("demo_cumulative_sr.png", lambda ax: plot_cumulative_sr(
        runs, ax, title=f"{title}: cumulative SR (offline simulation)"))]
    if "hyperskill" in runs:
        jobs.append(("demo_memory_growth.png", lambda ax: plot_memory_growth(
            runs["hyperskill"], ax, title=f"{title}: HyperSkill memory growth")))
    paths = []
    for name, draw in jobs:
        fig, ax = plt.subplots(figsize=(7, 4))
        draw(ax)
        paths.append(figdir / name)
        fig.tight_layout()
        save_figure(fig, paths[-1])
        plt.close(fig)
    return paths


def report_figures(runs: Mapping[str, Records], figdir: Path, title: str = "") -> list[Path]:
    """Figures of finished runs (``python -m hyperskill_lite report``), written into
    `figdir`: cumulative_sr.png (a line per run), memory_growth.png (a panel per run,
    at most three across) and maintenance.png (cumulative pruned and merged). Returns the
    paths written."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    figdir = Path(figdir)
    prefix = f"{title}: " if title else ""
    paths = []
    fig, ax = plt.subplots(figsize=(8, 4.2))
    plot_cumulative_sr(runs, ax, title=f"{prefix}cumulative success rate")
    paths.append(figdir / "cumulative_sr.png")
    fig.tight_layout()
    save_figure(fig, paths[-1])
    plt.close(fig)
    cols = min(3, len(runs))
    rows = -(-len(runs) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.1 * cols, 3.2 * rows), squeeze=False)
    for ax, (name, records) in zip(axes.flat, runs.items()):
        plot_memory_growth(records, ax, title=f"{prefix}{name}")
    for ax in list(axes.flat)[len(runs):]:
        ax.set_visible(False)
    paths.append(figdir / "memory_growth.png")
    fig.tight_layout()
    save_figure(fig, paths[-1])
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(8, 4.2))
    plot_maintenance_ops(runs, ax, title=f"{prefix}maintenance operations over time")
    paths.append(figdir / "maintenance.png")
    fig.tight_layout()
    save_figure(fig, paths[-1])
    plt.close(fig)
    return paths


MAX_FIGURE_PX = 1400
"""Widest PNG `save_figure` writes: wider figures are shrunk to fit a notebook column
or a GitHub page, where their text becomes unreadable."""


def save_figure(fig, path: str | Path, dpi: int = 110, max_px: int = MAX_FIGURE_PX) -> None:
    """Save `fig` as PNG at `path` (parents created), tight, without a software tag so
    re-running a notebook rewrites byte-identical files when the drawing is unchanged.

    Refuses (ValueError, nothing written) a figure whose saved width would exceed
    `max_px` pixels: draw it narrower (a smaller figsize, more rows) rather than let
    a viewer shrink its text."""
    path = Path(path)
    fig.canvas.draw()
    width_px = fig.get_tightbbox(fig.canvas.get_renderer()).width * dpi
    if width_px > max_px + 0.5:
        raise ValueError(f"save_figure: {path.name} would be {width_px:.0f} px wide at dpi {dpi}, "
                         f"over the {max_px} px cap; use a figure at most "
                         f"{max_px / dpi:.1f} in wide (or more rows)")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi, bbox_inches="tight", metadata={"Software": None})


def cosine_matrix(Z: np.ndarray) -> np.ndarray:
    """Pairwise cosine similarities of the rows of Z (n, d) -> (n, n) float64; a zero
    row has cosine 0 with everything.

    >>> cosine_matrix(np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 0.0]])).round(3).tolist()
    [[1.0, 0.707, 0.0], [0.707, 1.0, 0.0], [0.0, 0.0, 0.0]]
    """
    Z = np.asarray(Z, dtype=np.float64)
    if Z.ndim != 2:
        raise ValueError(f"cosine_matrix: Z must be 2-D (n, d), got shape {Z.shape}")
    norms = np.linalg.norm(Z, axis=1, keepdims=True)
    Zn = np.divide(Z, norms, out=np.zeros_like(Z), where=norms > 0)
    return Zn @ Zn.T


def plot_heatmap(
    M: np.ndarray,
    labels: Sequence[str],
    ax=None,
    title: str = "",
    vmin: float | None = None,
    vmax: float | None = None,
    cmap: str = "viridis",
    annotate: bool = True,
    col_labels: Sequence[str] | None = None,
    wrap: int = 18,
    colorbar: bool = True,
    show_ylabels: bool = True,
):
    """A labelled heatmap of M (n, m) with a colourbar; values written in the cells
    (2 decimals) when `annotate` and the matrix is at most 14 x 14. Labels longer than
    `wrap` characters are wrapped at word boundaries onto two lines (never cut
    mid-word; a longer rest ends in an ellipsis). `colorbar=False` leaves the colour
    bar to the caller; `show_ylabels=False` drops the row labels (a panel beside one
    that has them). Returns the axes; the image is `ax.images[0]`."""
    import textwrap

    import matplotlib.pyplot as plt

    def fold(text: str) -> str:
        lines = textwrap.wrap(str(text), wrap) or [""]
        if len(lines) > 2:
            lines = [lines[0], textwrap.shorten(" ".join(lines[1:]), wrap, placeholder="…")]
        return "\n".join(lines)

    M = np.asarray(M, dtype=float)
    col_labels = list(labels if col_labels is None else col_labels)
    if M.shape != (len(labels), len(col_labels)):
        raise ValueError(f"plot_heatmap: M has shape {M.shape}, labels give "
                         f"({len(labels)}, {len(col_labels)})")
    ax = ax or plt.subplots(figsize=(6, 5))[1]
    im = ax.imshow(M, cmap=cmap, vmin=vmin, vmax=vmax)
    if colorbar:
        ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    ax.set_xticks(range(M.shape[1]), [fold(c) for c in col_labels], rotation=60, ha="right",
                  rotation_mode="anchor", fontsize=7)
    ax.set_yticks(range(M.shape[0]), [fold(r) for r in labels] if show_ylabels else [],
                  fontsize=7)
    if annotate and max(M.shape) <= 14:
        for (i, j), v in np.ndenumerate(M):
            r, g, b, _ = im.cmap(im.norm(v))
            dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.5  # luminance of the cell colour
            ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=6,
                    color="white" if dark else "black")
    if title:
        ax.set_title(title)
    return ax


# ---------------------------------------------------------------------------- utility
def gamma_grid(
    rates: Sequence[float],
    steps: Sequence[float],
    t_min: float,
    t_max: float,
    beta: float = 0.7,
    nu: int = 10,
) -> np.ndarray:
    """gamma (Eq. 3) over a grid: rows mean steps T_bar, columns success rate sigma/nu,
    for elements retrieved `nu` times; (len(steps), len(rates)) float64.

    >>> gamma_grid([0.0, 1.0], [2.0, 8.0], t_min=2, t_max=8).round(2).tolist()
    [[0.3, 1.0], [0.0, 0.7]]
    """
    from hyperskill_lite.core.utility import utility

    r = np.asarray(rates, dtype=float)
    s = np.asarray(steps, dtype=float)
    R, S = np.meshgrid(r, s)  # (len(steps), len(rates))
    N = np.full(R.shape, float(nu))
    return utility((R * N).ravel(), N.ravel(), S.ravel(), t_min, t_max, beta=beta).reshape(R.shape)


def plot_gamma_surface(
    rates: Sequence[float],
    steps: Sequence[float],
    G: np.ndarray,
    tau: float | None = 0.2,
    ax=None,
    title: str = "",
    colorbar: bool = True,
):
    """Filled contours of gamma over (success rate, mean steps), with the pruning
    threshold tau drawn as a thick contour (everything left of it is prunable once
    nu >= N_min). `colorbar=False` leaves one shared bar to the caller (the contour
    set is `ax.collections[0]`, levels 0, 0.1, ..., 1)."""
    ax = _ax(ax, (6, 4.5))
    cs = ax.contourf(rates, steps, G, levels=np.linspace(0, 1, 11), cmap="RdYlGn")
    if colorbar:
        ax.figure.colorbar(cs, ax=ax, label="gamma")
    if tau is not None and G.min() < tau < G.max():
        line = ax.contour(rates, steps, G, levels=[tau], colors="black", linewidths=2)
        ax.clabel(line, fmt={tau: f"tau={tau}"}, fontsize=8)
    ax.set_xlabel("success rate sigma / nu")
    ax.set_ylabel("mean steps T_bar")
    ax.set_title(title or "Utility gamma (Eq. 3)")
    return ax


def plot_prune_map(
    nu: Sequence[int],
    gamma: Sequence[float],
    pruned: Sequence[bool],
    n_min: int = 3,
    tau: float | None = 0.2,
    roles: Sequence[str] | None = None,
    ax=None,
    seed: int = 0,
    title: str = "",
):
    """Nodes in the (nu, gamma) plane, kept ones coloured by role (`COLORS`: skill,
    mistake, subtask), pruned ones crossed out; the eligibility line nu = N_min and, if
    given, the threshold gamma = tau, all named in the legend. nu gets a small
    horizontal jitter (drawn from `seed`) so equal counts do not hide each other."""
    nu = np.asarray(nu, dtype=float)
    gamma = np.asarray(gamma, dtype=float)
    pruned = np.asarray(pruned, dtype=bool)
    if not (nu.shape == gamma.shape == pruned.shape):
        raise ValueError("plot_prune_map: nu, gamma and pruned must have one length")
    roles = list(roles) if roles is not None else ["skill"] * len(nu)
    ax = _ax(ax, (6, 4))
    x = nu + np.random.default_rng(seed).uniform(-0.18, 0.18, len(nu))
    role_arr = np.array(roles, dtype=object)
    order = [r for r in ("skill", "mistake", "subtask") if (role_arr == r).any()]
    order += sorted({str(r) for r in roles} - set(order))
    for r in order:
        keep = (role_arr == r) & ~pruned
        if keep.any():
            ax.scatter(x[keep], gamma[keep], color=COLORS.get(r, "grey"), s=28,
                       edgecolors="black", linewidths=0.3, label=f"kept {r}")
    ax.scatter(x[pruned], gamma[pruned], c="black", marker="x", s=40, label="pruned")
    ax.axvline(n_min - 0.5, color="grey", ls=":", lw=1, label=f"N_min = {n_min} (eligible right)")
    if tau is not None:
        ax.axhline(tau, color="black", ls="--", lw=1, label=f"tau = {tau}")
    ax.set_ylim(-0.03, 1.03)
    return _finish(ax, "retrievals nu (jittered)", "utility gamma",
                   title or "Which nodes pruning removes")


# ---------------------------------------------------------------------------- ranking
def rank_comparison(
    retrieval: Retrieval, names: Mapping[str, str] | None = None
) -> list[dict[str, Any]]:
    """The candidate skills R_s of a retrieval with both rankings side by side.

    One row per candidate, in Eq. 9 order: {"id", "name", "kappa", "cosine",
    "rank_kappa" (Eq. 9: kappa desc, cosine desc, creation), "rank_cosine" (cosine
    desc, creation), "in_S_q"}. Ranks start at 1. Flat-mode retrievals (no kappa) are
    refused.
    """
    if retrieval.mode == "flat" or (retrieval.skill_ids and not retrieval.kappa):
        raise ValueError("rank_comparison: needs a hypergraph retrieval (kappa), not flat mode")
    ids = list(retrieval.kappa)  # Eq. 9 order
    cos = retrieval.skill_scores
    by_cos = sorted(ids, key=lambda i: (-cos[i], int(i[1:])))
    rank_cos = {i: k for k, i in enumerate(by_cos, 1)}
    chosen = set(retrieval.skill_ids)
    names = names or {}
    return [{"id": i, "name": names.get(i, ""), "kappa": retrieval.kappa[i], "cosine": cos[i],
             "rank_kappa": k, "rank_cosine": rank_cos[i], "in_S_q": i in chosen}
            for k, i in enumerate(ids, 1)]


def plot_rank_comparison(rows: Sequence[Mapping[str, Any]], k: int, ax=None, title: str = ""):
    """Slope chart: each candidate skill's rank by plain cosine (left) and by Eq. 9
    (right); lines of skills that enter or leave the top-k are gold (the highlight
    colour), skills in the top-k both ways skill blue, the rest grey."""
    ax = _ax(ax, (6, 0.35 * len(rows) + 1.5))
    for r in rows:
        a, b = r["rank_cosine"], r["rank_kappa"]
        changed = (a <= k) != (b <= k)
        color = COLORS["highlight"] if changed else (COLORS["skill"] if b <= k else "grey")
        ax.plot([0, 1], [a, b], color=color, lw=2.2 if changed else 1.0, marker="o")
        label = f"{r['id']} {r['name']}".strip()
        ax.text(-0.04, a, label, ha="right", va="center", fontsize=7)
        ax.text(1.04, b, f"{label} (kappa={r['kappa']})", ha="left", va="center", fontsize=7)
    ax.axhline(k + 0.5, color="black", ls="--", lw=0.8)
    from matplotlib.lines import Line2D

    ax.legend(handles=[Line2D([], [], color=c, lw=w, marker="o", label=lab) for c, w, lab in (
        (COLORS["highlight"], 2.2, f"enters or leaves the top-{k} when ranked by kappa (Eq. 9)"),
        (COLORS["skill"], 1.0, f"in the top-{k} both ways"),
        ("grey", 1.0, f"outside the top-{k} both ways"))],
        loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=3, fontsize=7, frameon=False)
    ax.set_xlim(-0.9, 1.9)
    ax.set_ylim(len(rows) + 0.7, 0.3)
    ax.set_xticks([0, 1], ["rank by cosine", "rank by kappa (Eq. 9)"])
    ax.set_yticks([])
    for side in ("left", "right", "top"):
        ax.spines[side].set_visible(False)
    ax.set_title(title or f"Top-{k} by cosine vs by co-occurrence (dashed: cut-off)")
    return ax


# ---------------------------------------------------------------------------- sweeps
def mean_spread(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Mean, sample std (0 with one seed), min and max over the last axis (seeds).

    >>> [a.tolist() for a in mean_spread(np.array([[40.0, 50.0], [60.0, 60.0]]))]
    [[45.0, 60.0], [7.0710678118654755, 0.0], [40.0, 60.0], [50.0, 60.0]]
    """
    v = np.asarray(values, dtype=float)
    if v.ndim != 2 or v.shape[1] == 0:
        raise ValueError(f"mean_spread: values must be (n_settings, n_seeds), got {v.shape}")
    std = v.std(axis=1, ddof=1) if v.shape[1] > 1 else np.zeros(v.shape[0])
    return v.mean(axis=1), std, v.min(axis=1), v.max(axis=1)


def plot_sweep(
    x: Sequence[float],
    values: np.ndarray,
    ax=None,
    label: str = "",
    xlabel: str = "",
    ylabel: str = "SR (%)",
    title: str = "",
):
    """Mean over seeds (line) with the min-max band shaded and each seed as a dot.
    values: (len(x), n_seeds)."""
    v = np.asarray(values, dtype=float)
    xs = np.asarray(x, dtype=float)
    mean, _, lo, hi = mean_spread(v)
    ax = _ax(ax, (5, 3.5))
    line = ax.plot(xs, mean, marker="o", lw=2, label=label or None)[0]
    ax.fill_between(xs, lo, hi, color=line.get_color(), alpha=0.15)
    for j in range(v.shape[1]):
        ax.scatter(xs, v[:, j], color=line.get_color(), s=10, alpha=0.6)
    ax.set_xticks(xs)
    return _finish(ax, xlabel, ylabel, title, legend=bool(label))


def plot_method_bars(
    names: Sequence[str], values: np.ndarray, ax=None, ylabel: str = "SR (%)",
    title: str = "", highlight: str = "hyperskill", colors: Sequence[str] | None = None,
):
    """One bar per method: mean over seeds, error bar min-max, seeds as dots.
    values: (len(names), n_seeds). Bars take `colors`, else `method_color` of each
    name; the `highlight` method has a thick edge."""
    v = np.asarray(values, dtype=float)
    mean, _, lo, hi = mean_spread(v)
    ax = _ax(ax, (max(5, 0.6 * len(names) + 2), 3.8))
    x = np.arange(len(names))
    ax.bar(x, mean, color=list(colors) if colors is not None else [method_color(n) for n in names],
           edgecolor="black", lw=[2.0 if n == highlight else 0.5 for n in names])
    ax.errorbar(x, mean, yerr=[mean - lo, hi - mean], fmt="none", ecolor="black", capsize=3)
    for j in range(v.shape[1]):
        ax.scatter(x, v[:, j], color="black", s=8, zorder=3)
    ax.set_xticks(x, names, rotation=40, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)
    if title:
        ax.set_title(title)
    return ax


def plot_paired_differences(
    labels: Sequence[str], diffs: np.ndarray, ax=None, xlabel: str = "SR difference (points)",
    title: str = "", colors: Sequence[str] | None = None,
):
    """Paired differences, one row per setting: each seed's difference as a dot, the
    mean as a bar, the min-max range as a line, and a zero line, so a reader sees at
    once whether every seed agrees on the sign. diffs: (len(labels), n_seeds), e.g.
    full model minus ablation on the same tasks and draws. Row colours: `colors`, else
    `method_color` of each label."""
    d = np.asarray(diffs, dtype=float)
    if d.ndim != 2 or d.shape[0] != len(labels):
        raise ValueError(f"plot_paired_differences: diffs must be (len(labels)={len(labels)}, "
                         f"n_seeds), got {d.shape}")
    mean, _, lo, hi = mean_spread(d)
    ax = _ax(ax, (6, 0.5 * len(labels) + 1.5))
    y = np.arange(len(labels))[::-1]
    cols = list(colors) if colors is not None else [method_color(n) for n in labels]
    ax.barh(y, mean, color=cols, alpha=0.45, height=0.55, label="mean over seeds")
    ax.hlines(y, lo, hi, color="black", lw=1)
    for j in range(d.shape[1]):
        ax.scatter(d[:, j], y, color="black", s=14, zorder=3, label="one seed" if j == 0 else None)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, frameon=False)
    if title:
        ax.set_title(title)
    return ax


def plot_cost_bubbles(
    names: Sequence[str], sr: Sequence[float], tokens: Sequence[float], ax=None,
    title: str = "", highlight: str = "hyperskill",
):
    """The paper's cost figure (§4, "Performance vs. average tokens per task"): one
    bubble per method at (tokens per task in thousands, SR), its area proportional to the
    performance-to-token ratio SR / tokens as in the paper, colour `method_color`,
    labels placed without overlap. The `highlight` method gets a black edge. The legend
    gives the ratio two reference bubbles stand for."""
    sr_a, tok = np.asarray(sr, dtype=float), np.asarray(tokens, dtype=float)
    if len(names) != len(sr_a) or len(sr_a) != len(tok):
        raise ValueError(f"plot_cost_bubbles: {len(names)} names, {len(sr_a)} SRs and "
                         f"{len(tok)} token counts; give one of each per method")
    if (tok <= 0).any():
        raise ValueError("plot_cost_bubbles: tokens per task must be > 0 (the bubble is SR / tokens)")
    ax = _ax(ax, (7, 4.5))
    ratio = sr_a / (tok / 1000.0)  # SR points per thousand tokens
    scale = 450.0 / ratio.max() if ratio.max() > 0 else 0.0
    for n, x, y, r in zip(names, tok / 1000.0, sr_a, ratio):
        hl = n == highlight
        ax.scatter(x, y, s=max(scale * r, 12.0), color=method_color(n), alpha=0.75,
                   edgecolors="black" if hl else "white", linewidths=1.5 if hl else 0.5, zorder=3)
    pad = 0.08 * (np.ptp(tok) / 1000.0 or 1.0)
    ax.set_xlim(tok.min() / 1000.0 - pad, tok.max() / 1000.0 + 3 * pad)
    ypad = 0.12 * (np.ptp(sr_a) or 1.0)
    ax.set_ylim(sr_a.min() - ypad, sr_a.max() + ypad)
    sizes = np.maximum(scale * ratio, 12.0)
    place_labels(ax, tok / 1000.0, sr_a, list(names), radii_pt=np.sqrt(sizes / np.pi),
                 fontsize=7.5)
    for r in (ratio.max(), ratio.max() / 2):
        ax.scatter([], [], s=scale * r, color="lightgrey", edgecolors="grey",
                   label=f"{r:.1f} SR points\nper 1K tokens")
    ax.legend(fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1.0), labelspacing=1.8,
              borderpad=1.0, title="bubble area:\nSR / tokens", title_fontsize=7.5,
              frameon=False)
    ax.set_xlabel("tokens per task (K): agent + memory model")
    ax.set_ylabel("SR (%)")
    ax.grid(alpha=0.3)
    if title:
        ax.set_title(title)
    return ax
