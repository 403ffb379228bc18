"""What every plotting module shares: the records type, a new axes when none is given,
and the axes' finishing touches (labels, title, legend, grid).

Not here: any plot (runs.py, matrices.py, comparisons.py, drawing.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["Records", "new_axes", "finish"]

Records = Sequence[Mapping[str, Any]]

def new_axes(ax, figsize: tuple[float, float]):
    """`ax`, or the axes of a new figure of `figsize`."""
    import matplotlib.pyplot as plt

    return ax if ax is not None else plt.subplots(figsize=figsize)[1]


def finish(ax, xlabel: str, ylabel: str, title: str, legend: bool = True):
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if legend:
        ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return ax
