"""Checks of a Gram matrix SMO is given (:func:`check_gram`) and the one layout its compiled
loop reads (:func:`as_f8_2d`)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from svmtune._lazy import lazy_module

if TYPE_CHECKING:
    from svmtune.solvers.smo import _gram_scan
else:  # compiled code: loaded on first use (svmtune._lazy)
    _gram_scan = lazy_module("svmtune.solvers.smo._gram_scan")

__all__ = ["as_f8_2d", "check_gram"]


def check_gram(K: ArrayLike, *, name: str = "Gram matrix", rtol: float = 1e-8) -> None:
    """Raise ValueError if ``K`` cannot be an SVM kernel matrix.

    Checks, in one pass: square, finite (no NaN/inf), non-negative diagonal, symmetric, and every
    2x2 principal minor non-negative (``K_ij^2 <= K_ii K_jj``), all up to ``rtol`` relative to
    the largest diagonal entry. The last two are necessary conditions for positive
    semidefiniteness that cost ``O(n^2)``; a full eigenvalue test (``O(n^3)``) is not made.

    Examples
    --------
    >>> import numpy as np
    >>> check_gram(np.array([[1.0, 0.5], [0.5, 1.0]]))
    >>> check_gram(np.array([[1.0, 2.0], [2.0, 1.0]]))
    Traceback (most recent call last):
    ...
    ValueError: Gram matrix is not positive semidefinite: |K[0, 1]| = 2 > sqrt(K[0, 0] K[1, 1]) = 1
    """
    Ka = np.asarray(K)
    if Ka.ndim != 2 or Ka.shape[0] != Ka.shape[1]:
        raise ValueError(f"{name} must be square; got shape {Ka.shape}")
    Kc = as_f8_2d(Ka)
    code, i, j = _gram_scan.scan_gram(Kc, float(rtol))
    if code == 0:
        return
    if code == 1:
        raise ValueError(
            f"{name} contains a non-finite value (NaN or inf) at [{i}, {j}]: {float(Kc[i, j])!r}"
        )
    if code == 2:
        raise ValueError(
            f"{name} has a negative diagonal entry K[{i}, {i}] = {Kc[i, i]:g}; "
            "the kernel is not positive semidefinite"
        )
    if code == 3:
        raise ValueError(
            f"{name} is not symmetric: K[{i}, {j}] = {float(Kc[i, j])!r} but "
            f"K[{j}, {i}] = {float(Kc[j, i])!r}"
        )
    raise ValueError(
        f"{name} is not positive semidefinite: |K[{i}, {j}]| = {abs(Kc[i, j]):g} > "
        f"sqrt(K[{i}, {i}] K[{j}, {j}]) = {math.sqrt(Kc[i, i] * Kc[j, j]):g}"
    )


def as_f8_2d(K: ArrayLike) -> NDArray[np.float64]:
    """C-contiguous, writeable float64 (the one layout the compiled loop is built for)."""
    arr = np.asarray(K, dtype=np.float64)
    if not arr.flags.c_contiguous or not arr.flags.writeable:
        arr = np.array(arr, dtype=np.float64, order="C")
    return arr
