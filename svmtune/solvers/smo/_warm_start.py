"""Warm starts of SMO: a feasible start from any guess, and the check of a given one."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["BOUND_SNAP", "check_warm_start", "feasible_start", "snap_to_bounds"]

BOUND_SNAP = 1e-14
"""Relative distance to a bound (times ``C``) within which a variable is on it: the compiled
loop clips a step that ends this close to a bound onto it (``_pair_step.SNAP``, the same
value), and a warm start is snapped the same way (:func:`snap_to_bounds`), so that a variable
left at ``C - 1e-16`` by the round-off of a rescaling is at ``C``, as a cold solve would have
it, and not counted as a free support vector (which would move the bias off LIBSVM's midpoint
when no support vector is free)."""


def snap_to_bounds(alpha: NDArray[np.float64], C: NDArray[np.float64]) -> NDArray[np.float64]:
    """``alpha`` clipped to ``[0, C]`` with the entries within :data:`BOUND_SNAP` ``* C`` of a
    bound moved onto it (a new array).

    Examples
    --------
    >>> import numpy as np
    >>> C = np.full(3, 0.1)
    >>> snap_to_bounds(np.array([0.1 - 1e-17, 0.05, 1e-18]), C).tolist()
    [0.1, 0.05, 0.0]
    """
    a = np.clip(alpha, 0.0, C)
    slack = BOUND_SNAP * C
    a[a <= slack] = 0.0
    top = a >= C - slack
    a[top] = C[top]
    return a


def feasible_start(
    alpha: ArrayLike,
    y: ArrayLike,
    C: float | ArrayLike,
    *,
    active: ArrayLike | None = None,
    scale: float = 1.0,
) -> NDArray[np.float64]:
    """Turn a guess into a feasible warm start: ``0 <= a <= C``, ``y'a = 0``, zero off ``active``.

    The guess is multiplied by ``scale`` (e.g. ``C_new / C_old`` when seeding from a solution at
    another ``C``), clipped to the box, and the heavier class is shrunk proportionally until both
    classes carry the same weight (to round-off). A variable that the shrinking leaves within
    round-off of a bound (:data:`BOUND_SNAP` ``* C``: a class shrunk by a factor of
    ``1 - 1e-16``) is put on it: it is at its bound, as in a solve from zero.

    Examples
    --------
    >>> import numpy as np
    >>> a = feasible_start([2.0, 1.0, 1.0], [1.0, -1.0, 1.0], 1.5)
    >>> a.round(6).tolist()
    [0.6, 1.0, 0.4]
    """
    yy = np.asarray(y, dtype=np.float64).ravel()
    a = np.array(alpha, dtype=np.float64).ravel() * float(scale)
    if a.shape != yy.shape:
        raise ValueError(f"alpha has shape {a.shape} but y has shape {yy.shape}")
    Cv = np.broadcast_to(np.asarray(C, dtype=np.float64), yy.shape)
    if active is not None:
        keep = np.zeros(yy.shape[0], dtype=bool)
        keep[np.asarray(active, dtype=np.int64)] = True
        a[~keep] = 0.0
    a = np.clip(np.nan_to_num(a, nan=0.0), 0.0, Cv)
    pos = yy > 0
    P = float(a[pos].sum())
    N = float(a[~pos].sum())
    if P <= 0.0 or N <= 0.0:
        return np.zeros_like(a)
    if P > N:
        a[pos] *= N / P
    elif N > P:
        a[~pos] *= P / N
    return snap_to_bounds(a, np.asarray(Cv, dtype=np.float64))


def check_warm_start(
    alpha0: ArrayLike | None,
    y: NDArray[np.float64],
    C: NDArray[np.float64],
    active: NDArray[np.int64],
) -> NDArray[np.float64]:
    """``alpha0`` checked as a warm start (zeros when None): finite, in the box ``[0, C]`` (up to
    ``1e-10 C``, then clipped), zero off ``active``, ``y'alpha0 = 0``; ValueError naming the
    bad entry otherwise. Entries within :data:`BOUND_SNAP` ``* C`` of a bound are put on it
    (:func:`snap_to_bounds`): the solve starts with the variables a cold solve would count as
    bound counted as bound, so it solves the same problem under the same bias rule.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([1.0, -1.0])
    >>> check_warm_start([0.5, 0.5], y, np.ones(2), np.arange(2)).tolist()
    [0.5, 0.5]
    """
    n = y.shape[0]
    if alpha0 is None:
        return np.zeros(n)
    a = np.array(alpha0, dtype=np.float64).ravel()
    if a.shape != (n,):
        raise ValueError(f"alpha0 must have shape ({n},); got {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError("alpha0 contains a non-finite value (NaN or inf)")
    slack = 1e-10 * C
    bad = (a < -slack) | (a > C + slack)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"alpha0 is outside the box [0, C]: alpha0[{i}] = {float(a[i])!r}, "
            f"C = {float(C[i])!r} "
            "(feasible_start() makes a feasible warm start from any guess)"
        )
    a = snap_to_bounds(a, C)
    outside = np.ones(n, dtype=bool)
    outside[active] = False
    if np.any(a[outside] != 0.0):
        i = int(np.flatnonzero(outside & (a != 0.0))[0])
        raise ValueError(f"alpha0 must be zero off the active set; alpha0[{i}] = {float(a[i])!r}")
    s = float(y @ a)
    if abs(s) > 1e-9 * max(1.0, float(a.sum())):
        raise ValueError(
            f"alpha0 violates y'alpha = 0: y'alpha0 = {s:.3g} "
            "(feasible_start() makes a feasible warm start from any guess)"
        )
    return np.ascontiguousarray(a)
