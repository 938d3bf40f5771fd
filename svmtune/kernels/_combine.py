"""Weighted sums of base kernels: the exp pass and the weighted sum every kernel model shares."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

__all__ = ["scaled_exp", "weighted_exp_sum", "weighted_sum"]


def scaled_exp(
    D: NDArray[np.float64],
    gamma: float,
    *,
    weight: float = 1.0,
    out: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """``weight * exp(-gamma * D)`` in one exp pass; ``out`` may be ``D`` itself or a buffer."""
    res = np.multiply(D, -float(gamma), out=out)
    np.exp(res, out=res)
    if weight != 1.0:
        res *= weight
    return res


def weighted_exp_sum(
    terms: Sequence[tuple[NDArray[np.float64], float, float]],
) -> NDArray[np.float64]:
    """``sum_r w_r exp(-gamma_r D_r)`` over ``terms = [(D_r, gamma_r, w_r), ...]``.

    One exp pass per term and a single scratch buffer; the ``D_r`` are not modified.
    """
    if not terms:
        raise ValueError("weighted_exp_sum needs at least one term")
    D0, g0, w0 = terms[0]
    total = scaled_exp(D0, g0, weight=w0)
    buf = np.empty_like(total) if len(terms) > 1 else total
    for D, g, w in terms[1:]:
        total += scaled_exp(D, g, weight=w, out=buf)
    return total


def weighted_sum(
    terms: Sequence[tuple[NDArray[np.float64], float]],
) -> NDArray[np.float64]:
    """``sum_r w_r B_r`` over ``terms = [(B_r, w_r), ...]`` as a new array."""
    if not terms:
        raise ValueError("weighted_sum needs at least one term")
    B0, w0 = terms[0]
    total = np.multiply(B0, float(w0))
    buf = np.empty_like(total) if len(terms) > 1 else total
    for B, w in terms[1:]:
        total += np.multiply(B, float(w), out=buf)
    return total
