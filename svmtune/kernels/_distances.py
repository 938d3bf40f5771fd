"""Squared Euclidean distances and inner products, the statistics the kernels share."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["inner_products", "squared_distances"]


def squared_distances(
    X: NDArray[np.float64], Z: NDArray[np.float64] | None = None
) -> NDArray[np.float64]:
    """``D[i, j] = ||X[i] - Z[j]||^2`` (``Z = X`` when omitted), clipped at 0.

    Uses the expansion ``|x|^2 + |z|^2 - 2 x.z`` (one matrix product); when ``Z`` is omitted the
    result is exactly symmetric with an exactly zero diagonal.
    """
    same = Z is None
    Zm = X if Z is None else Z
    xx = np.einsum("ij,ij->i", X, X)
    zz = xx if same else np.einsum("ij,ij->i", Zm, Zm)
    D = X @ Zm.T
    D *= -2.0
    D += xx[:, None]
    D += zz[None, :]
    np.maximum(D, 0.0, out=D)
    if same:
        np.fill_diagonal(D, 0.0)
        D = 0.5 * (D + D.T)
    return D


def inner_products(
    X: NDArray[np.float64], Z: NDArray[np.float64] | None = None
) -> NDArray[np.float64]:
    """``G[i, j] = X[i] . Z[j]`` (``Z = X`` when omitted; then the result is exactly symmetric)."""
    if Z is None:
        G = X @ X.T
        G += G.T
        G *= 0.5
        return G
    return X @ Z.T
