"""Projected gradient descent in the search space, for objectives with a gradient."""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from svmtune._options import Choice, Flag, Integer, Real
from svmtune.objectives import BoundObjective, Evaluation
from svmtune.space import SearchSpace
from svmtune.tuners._base import Evaluator, Tuner
from svmtune.tuners._coordinates import SearchCoordinates, TiedCoordinates

__all__ = ["GradientDescent", "NonFiniteGradient"]

METHODS = ("armijo", "scipy")


class NonFiniteGradient(RuntimeWarning):
    """A gradient with a NaN or infinite entry: the descent stops at the best point so far."""


def default_start(space: SearchSpace, n_features: int) -> dict[str, float]:
    """The start of a descent on standardized data of any width: ``C = 1`` and every kernel
    width ``gamma`` (``gamma_<i>``) at ``1 / n_features`` (scikit-learn's ``gamma="scale"``
    on standardized data), clipped into the box; other parameters at the box's centre.

    Examples
    --------
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import PlattError
    >>> from svmtune.tuners import GradientDescent
    >>> box = GradientDescent().search_box(PlattError().search_space(RBF()))
    >>> default_start(box, n_features=20)
    {'C': 1.0, 'gamma': 0.05}
    """
    point = space.center()
    for p in space:
        if p.name == "C":
            v = 1.0
        elif p.name == "gamma" or p.name.startswith("gamma_"):
            v = 1.0 / max(int(n_features), 1)
        else:
            continue
        point[p.name] = min(max(v, p.low), p.high)
    return point


def start_point(
    space: SearchSpace,
    start: Mapping[str, float] | None,
    option: Mapping[str, float] | None,
    n_features: int = 1,
) -> dict[str, float]:
    """The start: ``tune_bound``'s ``start``, else the tuner's ``start`` option (missing names
    at their :func:`default_start`), else :func:`default_start`."""
    if start is not None:
        return space.check(start)
    point = default_start(space, n_features)
    if option is not None:
        unknown = [n for n in option if n not in space]
        if unknown:
            raise ValueError(f"start names parameters {unknown} not in the space {space.names}")
        point.update({n: float(v) for n, v in option.items()})
    try:
        return space.check(point)
    except ValueError as exc:
        raise ValueError(f"start point is not in the search box: {exc}") from None


#: A descent whose value fell by less than this fraction of its starting value ended on a
#: plateau of the objective: :class:`GradientDescent` restarts from a pre-scan point.
PLATEAU_RTOL = 0.01

#: Factors applied to every kernel width (and to ``C``) of the default start
#: (:func:`default_start`) to get the pre-scan points of a restart: the default start itself,
#: wider and narrower kernels, a harder margin.
PRESCAN_FACTORS = ((1.0, 1.0), (1 / 10, 1.0), (10.0, 1.0), (1.0, 100.0))


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
    less than ``ftol`` times the value (a relative rule: error rates of 0.3 and of 0.03 stop
    alike), the line search fails ``max_backtracks`` times, or after ``max_iter`` steps. The
    trace has a ``grad_norm`` column. A non-finite gradient warns (:class:`NonFiniteGradient`)
    and stops the descent, keeping the best point so far.

    The default start suits standardized data of any width: ``C = 1`` and every kernel width at
    ``1 / n_features`` (:func:`default_start`), in the default box of every tuner
    (:data:`~svmtune.tuners.DEFAULT_BOX`). A descent that lowers the value by less than 1 % of
    it has stopped on a plateau (a region where the empirical error barely moves, e.g. kernels
    so narrow that the Gram matrix is nearly the identity): then, within the budget, the values
    at four pre-scan points (the default start, its widths / 10 and x 10, its ``C`` x 100) are
    computed and up to ``restarts`` more descents start from the best of them. The answer is
    the best point of all descents.

    ``method="scipy"`` hands the problem to ``scipy.optimize.minimize`` with L-BFGS-B and the
    bounds instead (value and gradient from the objective, ``max_iter`` iterations, ``gtol``),
    which is what a user would reach for.

    Parameters
    ----------
    start : mapping, optional
        Starting values of some or all parameters (inside the box; the rest at their default
        start); a ``start`` given to :meth:`tune_bound` wins.
    bounds : mapping name -> (low, high), optional
        The search box of some parameters (inside the search space's bounds; default
        :data:`~svmtune.tuners.DEFAULT_BOX`).
    restarts : int, default 2
        Further descents after one that ended on a plateau (0: none).
    tie_widths : bool, default True
        With several kernel widths (``AnisotropicRBF``'s ``gamma_<i>``), each descent first
        moves them together (one common scale, as an RBF's), then each on its own.
    free_steps : int, default 5
        Most steps of that second, free phase: dozens of widths fitted to one validation part
        overfit it (measured in ``benchmarks/platt_defaults.py``: 30 free steps cost 1-3
        points of test error on heart and sonar).
    method : {"armijo", "scipy"}, default "armijo"
    max_iter : int, default 30
        Descent steps (L-BFGS-B iterations).
    max_step : float, default 1.0
        Largest first move of a coordinate in a line search (``ln`` units: a factor ``e``).
    gtol : float, default 1e-5
    xtol : float, default 1e-2
        Smallest move of an accepted step (largest coordinate, ``ln`` units: 1%).
    ftol : float, default 5e-3
        Smallest decrease of the value by an accepted step, relative to the value. The empirical
        error is only piecewise smooth (the support vectors change), so a descent without it
        crawls along a crease for little gain.
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

    needs_gradient = True

    def __init__(
        self,
        *,
        start: Mapping[str, float] | None = None,
        bounds: Mapping[str, tuple[float, float]] | None = None,
        restarts: int = 2,
        tie_widths: bool = True,
        free_steps: int = 5,
        method: str = "armijo",
        max_iter: int = 30,
        max_step: float = 1.0,
        gtol: float = 1e-5,
        xtol: float = 1e-2,
        ftol: float = 5e-3,
        c1: float = 1e-4,
        max_backtracks: int = 8,
        max_evals: int | None = None,
        max_seconds: float | None = None,
    ) -> None:
        super().__init__(max_evals=max_evals, max_seconds=max_seconds)
        self.ftol = ftol
        self.start = start
        self.bounds = bounds
        self.restarts = restarts
        self.tie_widths = tie_widths
        self.free_steps = free_steps
        self.method = method
        self.max_iter = max_iter
        self.max_step = max_step
        self.gtol = gtol
        self.xtol = xtol
        self.c1 = c1
        self.max_backtracks = max_backtracks

    # -- checks ---------------------------------------------------------------------------------
    _option_constraints = {
        "method": Choice(METHODS, what=f"one of {METHODS}"),
        "max_iter": Integer(low=1),
        "max_backtracks": Integer(low=1),
        "free_steps": Integer(low=1),
        "tie_widths": Flag(),
        "restarts": Integer(low=0),
        **{name: Real(low=0.0) for name in ("max_step", "gtol", "xtol", "ftol", "c1")},
    }

    def _check_space(self, space: SearchSpace) -> None:
        self._check_options()
        if self.start is not None:
            if not isinstance(self.start, Mapping):
                raise ValueError(f"start must be a mapping name -> value; got {self.start!r}")
            unknown = [n for n in self.start if n not in space]
            if unknown:
                raise ValueError(
                    f"start names parameters {unknown} not in the space {list(space.names)}"
                )
            for n, v in self.start.items():
                try:
                    space[n].check(v)
                except ValueError as exc:
                    raise ValueError(f"start point is not in the search box: {exc}") from None

    def _check_bound(self, bound: BoundObjective) -> None:
        self._check_options()

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
        n_features = int(evaluate.bound.X.shape[1])
        x0 = coords.to_x(start_point(space, start, self.start, n_features))
        descend = self._descend
        first = len(evaluate.evaluations)
        try:
            descend(evaluate, coords, x0)
        except _Stop:
            return
        if not self._on_plateau(evaluate.evaluations[first:]) or int(self.restarts) < 1:
            return
        # a pre-scan of values (no gradient) around the default start, then descents from the
        # best of its points
        base = coords.to_x(default_start(space, n_features))
        scan = [self._scaled(coords, base, fw, fc) for fw, fc in PRESCAN_FACTORS]
        evs = evaluate([coords.to_params(x) for x in scan])
        order = sorted((i for i, e in enumerate(evs) if e.ok), key=lambda i: (evs[i].value, i))
        for i in order[: int(self.restarts)]:
            first = len(evaluate.evaluations)
            try:
                descend(evaluate, coords, scan[i])
            except _Stop:
                return
            if not self._on_plateau([evs[i], *evaluate.evaluations[first:]]):
                return

    def _descend(
        self, evaluate: Evaluator, coords: SearchCoordinates, x: NDArray[np.float64]
    ) -> None:
        """One descent from ``x``: with ``tie_widths`` and several kernel widths, first with
        the widths moving together (one common scale, as an RBF kernel's), then each on its
        own for at most ``free_steps`` steps from the best point of that first phase."""
        descend = self._scipy if self.method == "scipy" else self._armijo
        widths = [i for i, p in enumerate(coords.space) if p.name.startswith("gamma_") and p.log]
        if self.tie_widths and len(widths) > 1:
            tied = TiedCoordinates(coords, widths, x)
            first = len(evaluate.evaluations)
            descend(evaluate, tied, tied.z0)  # type: ignore[arg-type]
            ok = [e for e in evaluate.evaluations[first:] if e.ok]
            if ok:
                x = coords.to_x(min(ok, key=lambda e: e.value).params)
            descend(evaluate, coords, x, min(int(self.max_iter), int(self.free_steps)))
            return
        descend(evaluate, coords, x)

    @staticmethod
    def _on_plateau(evaluations: list[Evaluation]) -> bool:
        """The descent whose start and evaluations are ``evaluations`` lowered the value by
        less than :data:`PLATEAU_RTOL` of its starting value."""
        ok = [e.value for e in evaluations if e.ok]
        if not ok:
            return True
        return bool(ok[0] - min(ok) < PLATEAU_RTOL * max(abs(ok[0]), 1e-12))

    @staticmethod
    def _scaled(
        coords: SearchCoordinates, x: NDArray[np.float64], width: float, c: float
    ) -> NDArray[np.float64]:
        """``x`` with every kernel width times ``width`` and ``C`` times ``c`` (in the box)."""
        out = np.array(x, dtype=np.float64)
        for i, p in enumerate(coords.space):
            f = c if p.name == "C" else width if p.name.startswith("gamma") else 1.0
            if f != 1.0:
                out[i] = out[i] + math.log(f) if p.log else out[i] * f
        return coords.project(out)

    def _armijo(
        self,
        evaluate: Evaluator,
        coords: SearchCoordinates,
        x: NDArray[np.float64],
        max_iter: int | None = None,
    ) -> None:
        ev, g = self._gradient(evaluate, coords, x)
        t_prev: float | None = None
        for _ in range(int(self.max_iter if max_iter is None else max_iter)):
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
                small = ev.value - evn.value < self.ftol * max(abs(ev.value), 1e-12)
                return xn, evn, g, t, moved < self.xtol or small
            t *= 0.5
        return x, ev, g, t, True

    def _scipy(
        self,
        evaluate: Evaluator,
        coords: SearchCoordinates,
        x0: NDArray[np.float64],
        max_iter: int | None = None,
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
            options={
                "maxiter": int(self.max_iter if max_iter is None else max_iter),
                "gtol": float(self.gtol),
            },
        )
