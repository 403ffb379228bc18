"""The utility score gamma of nodes and hyperedges (paper Eq. 3), vectorised.

gamma = beta * sigma / nu + (1 - beta) * (1 - (T_bar - T_min) / (T_max - T_min)),

with sigma the successes and nu the retrievals of an element, T_bar its running mean
step count, and T_min / T_max the smallest / largest step count over all episodes seen.
Decisions where the paper is silent (README, "The paper, mapped to code"): an element never retrieved (nu = 0)
gets the neutral prior; when T_max == T_min (or no episode yet) the efficiency term is
1.0; the result is clipped to [0, 1].

Not here: keeping sigma, nu and T_bar up to date (memory.py does that on each update).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["utility"]


def utility(
    sigma: ArrayLike,
    nu: ArrayLike,
    t_bar: ArrayLike,
    t_min: float | None,
    t_max: float | None,
    beta: float = 0.7,
    prior: float = 0.5,
) -> np.ndarray:
    """Utility gamma of each element (Eq. 3).

    Parameters
    ----------
    sigma : array (n,)
        Success counts sigma(.), 0 <= sigma <= nu.
    nu : array (n,)
        Retrieval counts nu(.) >= 0.
    t_bar : array (n,)
        Running mean step counts T_bar(.) (ignored where nu == 0).
    t_min, t_max : float or None
        Smallest and largest step count over all episodes so far; None before the
        first episode (efficiency term 1.0).
    beta : float
        Weight of the success rate against step efficiency, in [0, 1].
    prior : float
        gamma of an element with nu == 0.

    Returns
    -------
    gamma : ndarray (n,) float64 in [0, 1]

    Examples
    --------
    Two successes in three retrievals, mean 5 steps, steps seen in [2, 8]:
    0.7 * 2/3 + 0.3 * (1 - 3/6) = 0.6167. Never retrieved: the prior.

    >>> utility([2, 0], [3, 0], [5.0, 0.0], 2, 8).round(4)
    array([0.6167, 0.5   ])
    >>> utility([1], [1], [4.0], 4, 4)  # T_max == T_min: efficiency 1.0
    array([1.])
    """
    sigma = np.asarray(sigma, dtype=np.float64)
    nu = np.asarray(nu, dtype=np.float64)
    t_bar = np.asarray(t_bar, dtype=np.float64)
    if not (sigma.shape == nu.shape == t_bar.shape):
        raise ValueError(
            f"utility: sigma, nu and t_bar must have one shape, got "
            f"{sigma.shape}, {nu.shape}, {t_bar.shape}"
        )
    if not 0.0 <= beta <= 1.0:
        raise ValueError(f"utility: beta must be in [0, 1], got {beta}")
    if np.any(nu < 0):
        raise ValueError("utility: nu (retrieval count) must be >= 0")
    if np.any((sigma < 0) | (sigma > nu)):
        raise ValueError("utility: sigma (success count) must satisfy 0 <= sigma <= nu")
    if t_min is not None and t_max is not None and t_max < t_min:
        raise ValueError(f"utility: t_max ({t_max}) must be >= t_min ({t_min})")
    seen = nu > 0
    rate = np.divide(sigma, nu, out=np.zeros_like(sigma), where=seen)  # sigma / nu
    if t_min is None or t_max is None or t_max == t_min:
        eff = np.ones_like(t_bar)
    else:
        eff = 1.0 - (t_bar - t_min) / (t_max - t_min)
    gamma = beta * rate + (1.0 - beta) * eff  # Eq. 3
    gamma = np.where(seen, gamma, prior)
    return np.clip(gamma, 0.0, 1.0)
