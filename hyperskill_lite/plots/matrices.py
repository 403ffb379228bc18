"""Plots of what the core computes on one memory: cosine matrices and heatmaps, the
utility surface of Eq. 3 and the prune map of Eq. 11, and the two rankings of a
retrieval (cosine against Eq. 9's co-occurrence) side by side.

Not here: run records (runs.py), comparisons (comparisons.py), drawings (drawing.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from hyperskill_lite.core.utility import utility
from hyperskill_lite.plots.common import finish, new_axes
from hyperskill_lite.plots.palette import COLORS
from hyperskill_lite.plots.style import COLUMN_IN, MIN_TEXT_PT, number, shown_pt

if TYPE_CHECKING:
    from hyperskill_lite.core.retrieval.result import Retrieval

__all__ = ["cosine_matrix", "plot_heatmap", "annotation_size", "plot_similarity_change",
           "gamma_grid", "plot_gamma_surface", "plot_prune_map", "rank_comparison",
           "plot_rank_comparison"]


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
    annotate: bool | None = None,
    col_labels: Sequence[str] | None = None,
    wrap: int = 18,
    colorbar: bool = True,
    show_ylabels: bool = True,
    fontsize: float = 9,
):
    """A labelled heatmap of M (n, m) with a colourbar; NaN cells are left blank. Cells
    are coloured by their values rounded to 3 decimals, so that float noise in M never
    changes a pixel of the figure.

    Cell values (2 decimals, never a signed zero: `number`) are written where they stay
    legible: with `annotate` None (the default) only when the value's text fits its cell
    at a size that reads as at least `MIN_TEXT_PT` once the site shrinks the figure to
    its column (`shown_pt`); the text takes the largest size up to `fontsize` that fits.
    ``annotate=True`` writes them whenever they fit the cell at all, False never. Tick
    labels are `fontsize` points; labels longer than `wrap` characters are wrapped at word
    boundaries onto two lines (never cut mid-word; a longer rest ends in an ellipsis).
    `colorbar=False` leaves the colour bar to the caller; `show_ylabels=False` drops the
    row labels (a panel beside one that has them). Lay the figure out (its size, the
    axes' place) before calling: the cell size is measured when this runs. Returns the
    axes; the image is `ax.images[0]`."""
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
    ax = ax or plt.subplots(figsize=(COLUMN_IN, COLUMN_IN * 0.8))[1]
    colours = plt.get_cmap(cmap).with_extremes(bad="white")
    snapped = np.round(M, 3) + 0.0  # float noise (+-1e-16 about 0) never changes a colour
    im = ax.imshow(np.ma.masked_invalid(snapped), cmap=colours, vmin=vmin, vmax=vmax)
    if colorbar:
        ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    ax.set_xticks(range(M.shape[1]), [fold(c) for c in col_labels], rotation=60, ha="right",
                  rotation_mode="anchor", fontsize=fontsize)
    ax.set_yticks(range(M.shape[0]), [fold(r) for r in labels] if show_ylabels else [],
                  fontsize=fontsize)
    size = annotation_size(ax, M.shape, fontsize)
    if annotate is not False and size is not None and (annotate or shown_pt(
            ax.figure, size) >= MIN_TEXT_PT):
        for (i, j), v in np.ndenumerate(M):
            if not np.isfinite(v):
                continue
            r, g, b, _ = im.cmap(im.norm(v))
            dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.5  # luminance of the cell colour
            ax.text(j, i, number(v), ha="center", va="center", fontsize=size,
                    color="white" if dark else "black")
    if title:
        ax.set_title(title)
    return ax


def annotation_size(ax, shape: tuple[int, int], largest: float = 9) -> float | None:
    """The largest font size (points, at most `largest`, at least 4) at which a value
    such as "-0.26" fits one cell of an image of `shape` (rows, columns) in `ax` as the
    axes stand now; None when not even 4 points fit."""
    fig = ax.figure
    if fig.get_layout_engine() is not None:  # constrained layout places the axes at draw
        fig.draw_without_rendering()
    ax.apply_aspect()
    box = ax.get_position()
    w_pt = box.width * fig.get_size_inches()[0] * 72.0 / shape[1]
    h_pt = box.height * fig.get_size_inches()[1] * 72.0 / shape[0]
    size = min(largest, w_pt / 3.2, h_pt / 1.6)  # "-0.26": about 3 em wide, 1.2 em high
    return size if size >= 4 else None


def plot_similarity_change(
    before: np.ndarray, after: np.ndarray, labels: Sequence[str],
    names: tuple[str, str] = ("plain embeddings Z", "after propagation Z~"),
    title: str = "", wrap: int = 18,
):
    """Two similarity matrices of the same items and their change, as one figure designed
    for the site's column (`COLUMN_IN` wide, two panels one above the other). Top: one
    matrix whose lower triangle is `before` and upper triangle `after` (the matrices are
    symmetric, so each pair appears once per side: read a cell and its mirror image);
    bottom: ``after - before`` on the lower triangle, on a diverging scale centred on
    zero (both scales in steps of 0.05, the change's at least +-0.05). Every value is written in its cell where it reads (`plot_heatmap`). before,
    after: (n, n). Returns the figure."""
    import matplotlib.pyplot as plt

    before, after = np.asarray(before, dtype=float), np.asarray(after, dtype=float)
    n = len(labels)
    if before.shape != (n, n) or after.shape != (n, n):
        raise ValueError(f"plot_similarity_change: before {before.shape} and after "
                         f"{after.shape} must both be ({n}, {n}) for {n} labels")
    lower = np.tril(np.ones((n, n), dtype=bool), k=-1)
    both = np.where(lower, before, np.where(lower.T, after, np.nan))
    change = np.where(lower, after - before, np.nan)
    side = min(4.3, 0.55 * n + 1.0)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(COLUMN_IN, 2 * side + 2.6),
                                      layout="constrained")
    # colour scales in steps of 0.05: float noise in the data must not move them
    low = float(np.floor(round(min(0.0, float(np.nanmin(both))) * 20, 6)) / 20)
    plot_heatmap(both, labels, ax=top, vmin=low, vmax=1.0, wrap=wrap,
                 title=f"below the diagonal: {names[0]}\nabove the diagonal: {names[1]}")
    spread = float(np.nanmax(np.abs(change))) if np.isfinite(change).any() else 0.0
    reach = max(0.05, float(np.ceil(round(spread * 20, 6)) / 20))
    plot_heatmap(change, labels, ax=bottom, vmin=-reach, vmax=reach, cmap="RdBu_r", wrap=wrap,
                 title=f"change: {names[1]} minus {names[0]}")
    if title:
        fig.suptitle(title)
    return fig


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
    ax = new_axes(ax, (6, 4.5))
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
    ax = new_axes(ax, (6, 4))
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
    return finish(ax, "retrievals nu (jittered)", "utility gamma",
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
    ax = new_axes(ax, (6, 0.35 * len(rows) + 1.5))
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
