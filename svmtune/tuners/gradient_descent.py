"""Projected gradient descent in the search space, for objectives with a gradient."""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from svmtune.objectives._base import BoundObjective
from svmtune.objectives._evaluation import Evaluation
from svmtune.space import SearchSpace
from svmtune.tuners._base import Evaluator, Tuner, TuningResult

__all__ = ["GradientDescent", "NonFiniteGradient"]

METHODS = ("armijo", "scipy")


class NonFiniteGradient(RuntimeWarning):
    """A gradient with a NaN or infinite entry: the descent stops at the best point so far."""


class SearchCoordinates:
    """A search space in the coordinates gradients are given in: ``ln v`` for a log-scaled
    parameter, ``v`` otherwise; the box is the parameters' bounds."""

    def __init__(self, space: SearchSpace) -> None:
        self.space = space
        self.names = list(space.names)
        self.lo = np.array([math.log(p.low) if p.log else p.low for p in space])
        self.hi = np.array([math.log(p.high) if p.log else p.high for p in space])

    def to_x(self, params: Mapping[str, float]) -> NDArray[np.float64]:
        return np.array([math.log(params[p.name]) if p.log else params[p.name] for p in self.space])

    def to_params(self, x: NDArray[np.float64]) -> dict[str, float]:
        x = self.project(x)
        out = {}
        for p, v in zip(self.space, x, strict=True):
            val = math.exp(v) if p.log else float(v)
            out[p.name] = min(max(val, p.low), p.high)
        return out

    def project(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.clip(x, self.lo, self.hi)

    def grad(self, g: Mapping[str, float]) -> NDArray[np.float64]:
        return np.array([float(g.get(n, math.nan)) for n in self.names])


def start_point(
    space: SearchSpace, start: Mapping[str, float] | None, option: Mapping[str, float] | None
) -> dict[str, float]:
    """The start: ``tune_bound``'s ``start``, else the tuner's ``start`` option (missing names
    at the centre of the box), else the centre of the box."""
    if start is not None:
        return space.check(start)
    point = space.center()
    if option is not None:
        unknown = [n for n in option if n not in space]
        if unknown:
            raise ValueError(f"start names parameters {unknown} not in the space {space.names}")
        point.update({n: float(v) for n, v in option.items()})
    return space.check(point)


class _Stop(Exception):
    pass


class GradientDescent(Tuner):
    """Projected gradient descent with a backtracking (Armijo) line search.

    Works in the search coordinates (``ln`` of log-scaled parameters, where the objective's
    gradient is given) inside the box of the bounds; a step is projected back into the box. The
    first trial step of each line search moves the largest coordinate by ``max_step`` (or less,
    when the previous accepted step was shorter, doubled); it is halved until ``E(x_new) <= E(x)
    + c1 g'(x_new - x)`` (Armijo). The descent stops when the projected gradient's norm is below
    ``gtol``, an accepted step moves no coordinate by more than ``xtol`` or lowers the value by
    less than ``ftol``, the line search fails ``max_backtracks`` times, or after ``max_iter``
    steps. The trace has a ``grad_norm`` column. A non-finite gradient warns
    (:class:`NonFiniteGradient`) and stops the descent, keeping the best point so far.

    ``method="scipy"`` hands the problem to ``scipy.optimize.minimize`` with L-BFGS-B and the
    bounds instead (value and gradient from the objective, ``max_iter`` iterations, ``gtol``),
    which is what a user would reach for.

    Parameters
    ----------
    start : mapping, optional
        Starting values of some or all parameters (the rest at the centre of the box); a
        ``start`` given to :meth:`tune_bound` wins.
    method : {"armijo", "scipy"}, default "armijo"
    max_iter : int, default 30
        Descent steps (L-BFGS-B iterations).
    max_step : float, default 1.0
        Largest first move of a coordinate in a line search (``ln`` units: a factor ``e``).
    gtol : float, default 1e-5
    xtol : float, default 1e-2
        Smallest move of an accepted step (largest coordinate, ``ln`` units: 1%).
    ftol : float, default 1e-3
        Smallest decrease of the value by an accepted step. The empirical error is only piecewise
        smooth (the support vectors change), so a descent without it crawls along a crease
        for little gain.
    c1 : float, default 1e-4
        Armijo's sufficient-decrease constant.
    max_backtracks : int, default 8
    max_evals, max_seconds : optional budget (see :class:`~svmtune.tuners.Tuner`)

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import PlattError
    >>> from svmtune.tuners import GradientDescent
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-1, 1, (40, 2)), rng.normal(1, 1, (40, 2))])
    >>> y = np.repeat([-1.0, 1.0], 40)
    >>> res = GradientDescent(max_iter=5).tune(PlattError(), X, y, kernel=RBF())
    >>> bool(res.best_value <= res.trace["value"].iloc[0]), "grad_norm" in res.trace
    (True, True)
    """

    def __init__(
        self,
        *,
        start: Mapping[str, float] | None = None,
        method: str = "armijo",
        max_iter: int = 30,
        max_step: float = 1.0,
        gtol: float = 1e-5,
        xtol: float = 1e-2,
        ftol: float = 1e-3,
        c1: float = 1e-4,
        max_backtracks: int = 8,
        max_evals: int | None = None,
        max_seconds: float | None = None,
    ) -> None:
        super().__init__(max_evals=max_evals, max_seconds=max_seconds)
        self.ftol = ftol
        self.start = start
        self.method = method
        self.max_iter = max_iter
        self.max_step = max_step
        self.gtol = gtol
        self.xtol = xtol
        self.c1 = c1
        self.max_backtracks = max_backtracks

    # -- checks ---------------------------------------------------------------------------------
    def _check_options(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}; got {self.method!r}")
        for name in ("max_iter", "max_backtracks"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < 1:
                raise ValueError(f"{name} must be a positive integer; got {v!r}")
        for name in ("max_step", "gtol", "xtol", "ftol", "c1"):
            v = getattr(self, name)
            if not (isinstance(v, int | float) and math.isfinite(v) and v > 0):
                raise ValueError(f"{name} must be a positive number; got {v!r}")

    def _check_space(self, space: SearchSpace) -> None:
        self._check_options()
        if self.start is not None:
            unknown = [n for n in self.start if n not in space]
            if unknown:
                raise ValueError(
                    f"start names parameters {unknown} not in the space {list(space.names)}"
                )

    def tune_bound(
        self,
        bound: BoundObjective,
        *,
        random_state: int | np.random.Generator | None = None,
        start: Mapping[str, float] | None = None,
    ) -> TuningResult:
        if not getattr(bound.objective, "has_gradient", False):
            raise ValueError(
                f"{self.name} needs an objective with a gradient (has_gradient); "
                f"{bound.objective!r} has none"
            )
        self._check_options()
        return super().tune_bound(bound, random_state=random_state, start=start)

    # -- the search -----------------------------------------------------------------------------
    def _gradient(
        self, evaluate: Evaluator, coords: SearchCoordinates, x: NDArray[np.float64]
    ) -> tuple[Evaluation, NDArray[np.float64]]:
        ev, g = evaluate.gradient(coords.to_params(x))
        gx = coords.grad(g)
        if not ev.ok or not np.all(np.isfinite(gx)):
            warnings.warn(
                f"{self.name}: non-finite gradient at {dict(ev.params)} ({dict(g)}); "
                "stopping the descent at the best point so far",
                NonFiniteGradient,
                stacklevel=3,
            )
            raise _Stop
        return ev, gx

    def _run_search(
        self,
        evaluate: Evaluator,
        space: SearchSpace,
        rng: np.random.Generator,
        start: dict[str, float] | None,
    ) -> None:
        coords = SearchCoordinates(space)
        x0 = coords.to_x(start_point(space, start, self.start))
        try:
            if self.method == "scipy":
                self._scipy(evaluate, coords, x0)
            else:
                self._armijo(evaluate, coords, x0)
        except _Stop:
            pass

    def _armijo(
        self, evaluate: Evaluator, coords: SearchCoordinates, x: NDArray[np.float64]
    ) -> None:
        ev, g = self._gradient(evaluate, coords, x)
        t_prev: float | None = None
        for _ in range(int(self.max_iter)):
            x, ev, g, t_prev, done = self.line_search(
                lambda p: evaluate([p])[0], coords, x, ev, g, t_prev
            )
            if done:
                return
            ev, g = self._gradient(evaluate, coords, x)

    def line_search(
        self,
        value: Any,
        coords: SearchCoordinates,
        x: NDArray[np.float64],
        ev: Evaluation,
        g: NDArray[np.float64],
        t_prev: float | None,
    ) -> tuple[NDArray[np.float64], Evaluation, NDArray[np.float64], float | None, bool]:
        """One projected Armijo step from ``x``; ``value(params) -> Evaluation``.

        Returns ``(x, evaluation, g, step, done)``: done when converged or stuck.
        """
        pg = x - coords.project(x - g)
        if float(np.linalg.norm(pg)) < self.gtol:
            return x, ev, g, t_prev, True
        ginf = float(np.max(np.abs(g)))
        t = float(self.max_step) / ginf
        if t_prev is not None:
            t = min(t, 2.0 * t_prev)
        for _ in range(int(self.max_backtracks)):
            xn = coords.project(x - t * g)
            d = xn - x
            if float(np.max(np.abs(d))) < self.xtol:
                return x, ev, g, t, True
            evn = value(coords.to_params(xn))
            if evn.ok and evn.value <= ev.value + self.c1 * float(g @ d):
                moved = float(np.max(np.abs(d)))
                return xn, evn, g, t, moved < self.xtol or ev.value - evn.value < self.ftol
            t *= 0.5
        return x, ev, g, t, True

    def _scipy(
        self, evaluate: Evaluator, coords: SearchCoordinates, x0: NDArray[np.float64]
    ) -> None:
        from scipy.optimize import minimize

        def fun(x: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
            ev, g = self._gradient(evaluate, coords, x)
            return ev.value, g

        minimize(
            fun,
            x0,
            jac=True,
            method="L-BFGS-B",
            bounds=list(zip(coords.lo, coords.hi, strict=True)),
            options={"maxiter": int(self.max_iter), "gtol": float(self.gtol)},
        )

    def __repr__(self) -> str:
        return f"GradientDescent(method={self.method!r}, max_iter={self.max_iter})"
