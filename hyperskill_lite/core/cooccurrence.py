"""The structure merging reads (paper §3.5, Eqs. 12-13): the quality-weighted skill
co-occurrence W over the hyperedges (Eq. 12) and the propagation of the skill embeddings
over it (Eq. 13), whose cosines pick the merge pairs (Eq. 14, maintenance.py).

Pure functions on arrays: sparse throughout, no n x n dense array is ever formed.
``merge`` (maintenance.py) maps them onto a ``HypergraphMemory``.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import scipy.sparse as sp

__all__ = ["cooccurrence_matrix", "propagate"]


def cooccurrence_matrix(
    B_s: sp.spmatrix | np.ndarray,
    edge_sizes: np.ndarray,
    gamma: np.ndarray,
    diagonal: Literal["zero", "formula"] = "zero",
) -> sp.csr_matrix:
    """Quality-weighted skill co-occurrence W (Eq. 12), sparse.

    W_ij = min(gamma_i, gamma_j) * sum over hyperedges e containing both i and j of
    ``1/|V_e|``, for i != j. The diagonal is zero by default (the propagation of Eq. 13 adds
    the self-loop as W + I); ``diagonal="formula"`` keeps Eq. 12 for i = j too, W_ii = gamma_i * sum over
    e containing i of ``1/|V_e|`` (``HyperSkillConfig.w_diagonal`` says why zero is ours).

    Parameters
    ----------
    B_s : (n_s, n_e) sparse or dense, skill-by-hyperedge incidence (1.0 where skill i is
        in hyperedge j; any nonzero counts as membership).
    edge_sizes : (n_e,) ``|V_e|``, counting every node of the hyperedge (subtasks too). An
        edge of size 0 holds no skill and contributes nothing.
    gamma : (n_s,) utility of each skill (Eq. 3), in [0, 1].

    Returns
    -------
    W : (n_s, n_s) scipy.sparse.csr_matrix, float64, symmetric, no stored zeros; zero
        diagonal unless ``diagonal="formula"``.

    Examples
    --------
    Two hyperedges: {s0, s1} plus one subtask (``|V_e| = 3``), and {s1, s2} (``|V_e| = 2``).

    >>> B = np.array([[1, 0], [1, 1], [0, 1]])
    >>> W = cooccurrence_matrix(B, np.array([3, 2]), np.array([0.9, 0.6, 0.3]))
    >>> np.round(W.toarray(), 4).tolist()
    [[0.0, 0.2, 0.0], [0.2, 0.0, 0.15], [0.0, 0.15, 0.0]]
    >>> W = cooccurrence_matrix(B, np.array([3, 2]), np.array([0.9, 0.6, 0.3]), "formula")
    >>> np.round(W.diagonal(), 4).tolist()  # 0.9/3, 0.6*(1/3 + 1/2), 0.3/2
    [0.3, 0.5, 0.15]
    """
    if diagonal not in ("zero", "formula"):
        raise ValueError(f"diagonal must be 'zero' or 'formula', got {diagonal!r}")
    B = sp.csr_matrix(B_s, dtype=np.float64, copy=True)  # never modify the caller's matrix
    n_s, n_e = B.shape
    edge_sizes = np.asarray(edge_sizes, dtype=np.float64).reshape(-1)
    gamma = np.asarray(gamma, dtype=np.float64).reshape(-1)
    if edge_sizes.shape[0] != n_e:
        raise ValueError(f"edge_sizes has length {edge_sizes.shape[0]}, B_s has {n_e} columns")
    if gamma.shape[0] != n_s:
        raise ValueError(f"gamma has length {gamma.shape[0]}, B_s has {n_s} rows")
    if np.any(edge_sizes < 0) or not np.all(np.isfinite(edge_sizes)):
        raise ValueError("edge_sizes must be finite and >= 0")
    if not np.all(np.isfinite(gamma)):
        raise ValueError("gamma must be finite")
    B.eliminate_zeros()  # an explicitly stored 0 is no membership
    B.data[:] = 1.0  # any other stored value is
    inv = np.zeros(n_e)
    nonempty = edge_sizes > 0
    inv[nonempty] = 1.0 / edge_sizes[nonempty]
    skills_per_edge = B.getnnz(axis=0)  # (n_e,)
    if np.any(skills_per_edge > edge_sizes):
        raise ValueError("edge_sizes smaller than the skills in an edge: they must count all nodes")
    C = (B @ sp.diags(inv) @ B.T).tocoo()  # (n_s, n_s): sum_e [i in e][j in e] / |V_e|
    keep = C.row != C.col if diagonal == "zero" else np.ones(C.nnz, dtype=bool)
    rows, cols = C.row[keep], C.col[keep]
    data = C.data[keep] * np.minimum(gamma[rows], gamma[cols])  # Eq. 12 weight
    W = sp.csr_matrix((data, (rows, cols)), shape=(n_s, n_s))
    W.eliminate_zeros()
    W.sort_indices()
    return W


def _normalized_adjacency(W: sp.spmatrix) -> sp.csr_matrix:
    """W_hat = D^-1/2 (W + I) D^-1/2 with D the row sums of W + I (Eq. 13)."""
    n = W.shape[0]
    A = sp.csr_matrix(W, dtype=np.float64) + sp.identity(n, format="csr")
    deg = np.asarray(A.sum(axis=1)).reshape(-1)  # (n,) >= 1 since W >= 0
    d = 1.0 / np.sqrt(deg)
    return sp.csr_matrix(sp.diags(d) @ A @ sp.diags(d))


def propagate(
    W: sp.spmatrix | np.ndarray, Z: np.ndarray, alpha: float = 0.5, L: int = 2
) -> np.ndarray:
    """Quality-weighted structural embeddings Z~ = S Z (Eq. 13), by L sparse products.

    S = (1-alpha)^L W_hat^L + alpha * sum_{l<L} (1-alpha)^l W_hat^l, and
    W_hat = D^-1/2 (W + I) D^-1/2 with D the degrees (row sums) of W + I. S is never
    formed: X_0 = Z, X_l = W_hat X_{l-1}, and Z~ accumulates the weighted X_l.
    L = 0 returns Z unchanged (as float64).

    Parameters
    ----------
    W : (n_s, n_s) sparse or dense, nonnegative co-occurrence (``cooccurrence_matrix``).
    Z : (n_s, d) plain skill embeddings.
    alpha : restart weight in [0, 1] (the paper gives none; default 0.5).
    L : propagation depth >= 0 (the paper gives none; default 2).

    Returns
    -------
    Z_tilde : (n_s, d) float64.

    Examples
    --------
    Two skills linked with weight 1: W + I = [[1, 1], [1, 1]], degrees 2, W_hat = 0.5 * ones.

    >>> Zt = propagate(np.array([[0.0, 1.0], [1.0, 0.0]]), np.eye(2), alpha=0.5, L=1)
    >>> Zt.round(4).tolist()
    [[0.75, 0.25], [0.25, 0.75]]
    """
    Z = np.asarray(Z, dtype=np.float64)
    if Z.ndim != 2:
        raise ValueError(f"Z must be 2-D (n_s, d), got shape {Z.shape}")
    if W.shape != (Z.shape[0], Z.shape[0]):
        raise ValueError(f"W has shape {W.shape}, expected ({Z.shape[0]}, {Z.shape[0]}) to match Z")
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be in [0, 1], got {alpha}")
    if int(L) != L or L < 0:
        raise ValueError(f"L must be an integer >= 0, got {L}")
    Wc = sp.csr_matrix(W, dtype=np.float64)
    if Wc.nnz and Wc.data.min() < 0:
        raise ValueError("W must be nonnegative")
    if Z.shape[0] == 0 or L == 0:
        return Z.copy()
    W_hat = _normalized_adjacency(Wc)
    X = Z
    out = alpha * Z  # l = 0 term of the sum
    for step in range(1, L + 1):
        X = W_hat @ X  # X_l = W_hat^l Z, (n_s, d)
        weight = (1.0 - alpha) ** L if step == L else alpha * (1.0 - alpha) ** step
        out = out + weight * X
    return np.asarray(out)
