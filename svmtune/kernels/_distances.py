"""Squared Euclidean distances and inner products, the statistics the kernels share."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["DISTANCE_ROUNDOFF", "inner_products", "squared_distances", "squared_norms"]

DISTANCE_ROUNDOFF = 8.0 * float(np.finfo(np.float64).eps)
"""``|x|^2 + |z|^2 - 2 x.z`` is round-off below ``DISTANCE_ROUNDOFF (|x|^2 + |z|^2)``: such a
squared distance is taken as 0, so duplicated rows are at distance 0 (a kernel value of
exactly 1, not ``1 - gamma 1e-16``), wherever a distance is computed this way."""

#: Beyond this squared norm, ``sq_i + sq_j - 2 x_i.x_j`` may overflow float64.
_MAX_SQUARED_NORM = np.finfo(np.float64).max / 8


def _check_finite(
    M: NDArray[np.float64], what: str, X: NDArray[np.float64], Z: NDArray[np.float64] | None
) -> None:
    """Raise ValueError if float64 overflowed while computing ``M`` from finite points."""
    if np.isfinite(M).all():
        return
    i, j = np.argwhere(~np.isfinite(M))[0]
    big = max(float(np.max(np.abs(X))), 0.0 if Z is None else float(np.max(np.abs(Z))))
    raise ValueError(
        f"{what} overflow float64 (NaN or inf at [{i}, {j}]; the data has values up to "
        f"{big:.3g} in absolute value), so the Gram matrix would not be finite: rescale or "
        "standardize the features (svmtune.datasets.standardize)"
    )


def _zero_roundoff(
    D: NDArray[np.float64], xx: NDArray[np.float64], zz: NDArray[np.float64]
) -> None:
    """``D[i, j] = 0`` where it is at most ``DISTANCE_ROUNDOFF (xx_i + zz_j)``, in place, row
    block by row block (no temporary the size of ``D``)."""
    step = max(1, (1 << 16) // max(zz.size, 1))
    for lo in range(0, D.shape[0], step):
        block = D[lo : lo + step]
        limit = xx[lo : lo + step, None] + zz[None, :]
        limit *= DISTANCE_ROUNDOFF
        block[block <= limit] = 0.0


def squared_distances(
    X: NDArray[np.float64], Z: NDArray[np.float64] | None = None
) -> NDArray[np.float64]:
    """``D[i, j] = ||X[i] - Z[j]||^2`` (``Z = X`` when omitted); round-off is 0
    (:data:`DISTANCE_ROUNDOFF`).

    Uses the expansion ``|x|^2 + |z|^2 - 2 x.z`` (one matrix product); when ``Z`` is omitted the
    result is exactly symmetric with an exactly zero diagonal. ValueError if float64 overflows
    (features near 1e154 or beyond): a kernel of such distances would be NaN, or silently 0.
    """
    same = Z is None
    Zm = X if Z is None else Z
    with np.errstate(over="ignore", invalid="ignore"):
        xx = np.einsum("ij,ij->i", X, X)
        zz = xx if same else np.einsum("ij,ij->i", Zm, Zm)
        D = X @ Zm.T
        D *= -2.0
        D += xx[:, None]
        D += zz[None, :]
    _check_finite(D, "squared distances", X, Z)
    _zero_roundoff(D, xx, zz)
    if same:
        np.fill_diagonal(D, 0.0)
        D = 0.5 * (D + D.T)
    return D


def inner_products(
    X: NDArray[np.float64], Z: NDArray[np.float64] | None = None
) -> NDArray[np.float64]:
    """``G[i, j] = X[i] . Z[j]`` (``Z = X`` when omitted; then the result is exactly symmetric)."""
    with np.errstate(over="ignore", invalid="ignore"):
        if Z is None:
            G = X @ X.T
            G += G.T
            G *= 0.5
        else:
            G = X @ Z.T
    _check_finite(G, "inner products", X, Z)
    return G


def squared_norms(X: NDArray[np.float64]) -> NDArray[np.float64]:
    """``|x_i|^2`` of the rows of ``X`` (C-contiguous float64); ValueError, as
    :func:`squared_distances` gives, when distances or inner products
    of such rows could overflow float64 (features near 1e154 or beyond)."""
    with np.errstate(over="ignore", invalid="ignore"):
        sq = np.ascontiguousarray(np.einsum("ij,ij->i", X, X))
    if sq.size and not (np.isfinite(sq).all() and sq.max() <= _MAX_SQUARED_NORM):
        # |x_i - x_j|^2 <= 2 (|x_i|^2 + |x_j|^2) may overflow: the distances say so clearly
        big = int(np.argmax(np.where(np.isfinite(sq), sq, np.inf)))
        squared_distances(X[[big]])
        raise ValueError(
            "squared distances overflow float64 (the data has values up to "
            f"{float(np.max(np.abs(X))):.3g} in absolute value), so the Gram matrix would not "
            "be finite: rescale or standardize the features (svmtune.datasets.standardize)"
        )
    return sq
