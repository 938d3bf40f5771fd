"""What an SMO solve returns (:class:`SMOResult`), and what follows from a dual gradient."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["SMOResult", "decision_from_gradient", "default_max_iter"]


@dataclass(frozen=True)
class SMOResult:
    """The outcome of one SMO solve.

    Attributes
    ----------
    alpha : ndarray of shape (n,)
        The dual solution (zero outside the active set).
    b : float
        The bias: decision ``f(x) = sum_i alpha_i y_i k(x, x_i) + b``. Mean of ``-y_i G_i`` over
        the free support vectors (``0 < alpha_i < C_i``); the middle of the feasible interval
        when there is none.
    iterations : int
        SMO iterations (pair updates) made by this solve.
    kernel_evals : int
        Kernel entries computed by this solve: ``n * n`` for a full Gram matrix it built, ``n``
        per kernel row computed on demand (the number of active variables for a row computed
        while some are shrunk), ``n`` for the diagonal, and the entries computed to recompute
        the gradient of shrunk or left-out points; zero for a Gram matrix the caller passed.
    gradient : ndarray of shape (n,)
        ``G = Q alpha - e`` at the solution, for every point (active or not).
    converged : bool
        The KKT gap fell below ``tol``.
    objective : float
        The dual objective ``1/2 alpha'Q alpha - e'alpha`` (minimised, so at most 0).
    gap : float
        The last KKT gap ``max_{I_up} -y G - min_{I_low} -y G`` (``-inf`` when a side is empty).
    """

    alpha: NDArray[np.float64]
    b: float
    iterations: int
    kernel_evals: int
    gradient: NDArray[np.float64]
    converged: bool
    objective: float
    gap: float = math.nan

    @property
    def support(self) -> NDArray[np.intp]:
        """Indices of the support vectors (``alpha > 0``), increasing."""
        return np.flatnonzero(self.alpha > 0.0)


def default_max_iter(n: int) -> int:
    """The default iteration limit of an SMO solve on ``n`` variables: ``max(10**7, 1000 n)``.

    LIBSVM's floor of ten million, and beyond it 1,000 iterations per variable (LIBSVM allows
    100): SMO needs a number of iterations that grows with ``n`` and with ``C`` (measured with
    benchmarks/smo.py: banana, 2,000 points, C = 1e4: 551 n; 300 noisy points, C = 1e5: 4.6
    million), so a limit that does not grow with ``n`` stops large hard problems short.

    Examples
    --------
    >>> default_max_iter(500), default_max_iter(50_000)
    (10000000, 50000000)
    """
    return max(10_000_000, 1_000 * int(n))


def decision_from_gradient(gradient: ArrayLike, y: ArrayLike, b: float) -> NDArray[np.float64]:
    """Decision values at the training points from the gradient: ``y_t (G_t + 1) + b``.

    Since ``G_t = y_t sum_s alpha_s y_s K_ts - 1``, this is ``f(x_t)`` without another kernel
    pass, for the active points and for the points held out of the solve alike.

    Examples
    --------
    >>> decision_from_gradient([-1.5, 0.0], [1.0, -1.0], 0.25).tolist()
    [-0.25, -0.75]
    """
    G = np.asarray(gradient, dtype=np.float64)
    yy = np.asarray(y, dtype=np.float64)
    return yy * (G + 1.0) + float(b)
