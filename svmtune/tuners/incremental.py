"""Gradient descent with incremental learning (Adankon, Cheriet, Ayat: Fig. 7-8)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from svmtune._options import Either, Integer, Real
from svmtune.objectives import BoundObjective, Evaluation
from svmtune.space import SearchSpace
from svmtune.tuners._base import Evaluator
from svmtune.tuners._coordinates import SearchCoordinates
from svmtune.tuners.gradient_descent import GradientDescent, NonFiniteGradient, _Stop, start_point

__all__ = ["IncrementalGradient"]


class _Fraction(Real):
    """A float in (0, 1] (an int is a number of points, not a fraction)."""

    def __init__(self) -> None:
        super().__init__(low=0.0, high=1.0, closed="right")

    def accepts(self, value: object) -> bool:
        return isinstance(value, float | np.floating) and super().accepts(value)


class IncrementalGradient(GradientDescent):
    """Gradient descent on a growing working set of the training part (their Fig. 8).

    Needs an objective that can train on a subset (:class:`~svmtune.objectives.PlattError`
    with a held-out validation part). Each step:

    1. train the SVM on the working set ``S`` (warm-started from the previous ``alpha``), fit
       the sigmoid on the validation part, take the gradient of the empirical error;
    2. a projected Armijo step on the error of ``S`` (as :class:`GradientDescent`);
    3. drop from ``S`` the points far from the new margin (``y f(x) > 1 + margin``, hence
       ``alpha = 0``);
    4. add ``Delta S`` points of the training part not used yet, ``|Delta S| = ceil(delta *
       n_train * exp(-|g| / g_0))`` with ``g_0`` the first gradient's norm: few points while
       the gradient is large (the parameters are far from the optimum), more as it vanishes
       (their Fig. 7).

    When the descent converges on ``S`` before every point has been used, all the remaining
    points join at once. Once every training point has been used, the descent goes on with the
    working set as it stands until it converges (``gtol``, ``xtol``) or ``max_iter`` steps. The
    answer is the last point accepted (values on different working sets are not comparable, so
    the lowest one is not the answer); its value is the error with the SVM trained on the last
    working set, and the final classifier is trained on all the data, as for every tuner. Trace
    columns ``working_set`` and ``grad_norm`` show the run.

    Parameters
    ----------
    initial_size : float or int, default 0.2
        The first working set: a fraction of the training part, or a number of points
        (stratified at random; at least 2 per class).
    delta : float, default 0.2
        Largest ``Delta S`` as a fraction of the training part.
    margin : float, default 1.0
        Points with ``y f(x) > 1 + margin`` leave the working set.
    start, bounds, max_iter, max_step, gtol, xtol, ftol, c1, max_backtracks, max_evals,
    max_seconds
        As for :class:`GradientDescent` (``method`` is always Armijo, no restarts).

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import PlattError
    >>> from svmtune.tuners import IncrementalGradient
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-1, 1, (60, 2)), rng.normal(1, 1, (60, 2))])
    >>> y = np.repeat([-1.0, 1.0], 60)
    >>> res = IncrementalGradient(max_iter=6).tune(
    ...     PlattError(C=1.0, gradient="approx"), X, y, kernel=RBF(), random_state=0)
    >>> int(res.trace["working_set"].iloc[0]) < int(res.trace["working_set"].max())
    True
    """

    def __init__(
        self,
        *,
        initial_size: float | int = 0.2,
        delta: float = 0.2,
        margin: float = 1.0,
        start: Mapping[str, float] | None = None,
        bounds: Mapping[str, tuple[float, float]] | None = None,
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
        super().__init__(
            start=start,
            bounds=bounds,
            restarts=0,
            max_iter=max_iter,
            max_step=max_step,
            gtol=gtol,
            xtol=xtol,
            ftol=ftol,
            c1=c1,
            max_backtracks=max_backtracks,
            max_evals=max_evals,
            max_seconds=max_seconds,
        )
        self.initial_size = initial_size
        self.delta = delta
        self.margin = margin

    _option_constraints = {
        "initial_size": Either(
            (_Fraction(), Integer(low=4)), "a fraction in (0, 1] or a number of points >= 4"
        ),
        "delta": Real(low=0.0, high=1.0, closed="right", what="a fraction in (0, 1]"),
        "margin": Real(low=0.0, closed="left"),
    }

    def _check_bound(self, bound: BoundObjective) -> None:
        if not hasattr(bound, "evaluate_on") or len(getattr(bound, "folds", ())) != 1:
            raise ValueError(
                f"{self.name} needs an objective that trains on a working set with a held-out "
                f"validation part (PlattError with validation a fraction or indices); "
                f"got {bound.objective!r}"
            )
        super()._check_bound(bound)

    def _run_search(
        self,
        evaluate: Evaluator,
        space: SearchSpace,
        rng: np.random.Generator,
        start: dict[str, float] | None,
    ) -> None:
        bound: Any = evaluate.bound
        coords = SearchCoordinates(space)
        x = coords.to_x(start_point(space, start, self.start, int(bound.X.shape[1])))
        train = np.asarray(bound.folds[0][0])
        y = bound.y
        n = train.size
        S, queue = _first_working_set(train, y, self.initial_size, rng)
        used = 0  # how much of the queue has entered S

        def value(S_: NDArray[np.intp]) -> Any:
            def f(params: dict[str, float]) -> Evaluation:
                evaluate.check_budget()
                ev, _ = bound.evaluate_on(params, working_set=S_)
                evaluate.record(ev)
                return ev

            return f

        def gradient(S_: NDArray[np.intp], x_: NDArray[np.float64]) -> tuple[Evaluation, Any]:
            evaluate.check_budget()
            ev, g = bound.evaluate_on(coords.to_params(x_), working_set=S_, gradient=True)
            evaluate.record(ev)
            gx = coords.grad(g)
            if not ev.ok or not np.all(np.isfinite(gx)):
                warnings.warn(
                    f"{self.name}: non-finite gradient at {dict(ev.params)}; stopping the "
                    "descent at the last point",
                    NonFiniteGradient,
                    stacklevel=3,
                )
                raise _Stop
            return ev, gx

        g0: float | None = None
        last: Evaluation | None = None
        try:
            ev, g = gradient(S, x)
            last = ev
            t_prev: float | None = None
            for _ in range(int(self.max_iter)):
                gnorm = float(np.linalg.norm(g))
                g0 = gnorm if g0 is None or g0 == 0.0 else g0
                x, ev, g, t_prev, done = self.line_search(value(S), coords, x, ev, g, t_prev)
                last = ev
                finished = used >= queue.size
                if done and finished:
                    break
                # 3.5: drop the points far from the (new) margin; 3.6: add Delta S
                bound.evaluate_on(coords.to_params(x), working_set=S)  # cached solve at x
                rows, f = bound.decision_values()
                yf = dict(zip(rows.tolist(), (y[rows] * f).tolist(), strict=True))
                keep = np.array([yf[i] <= 1.0 + self.margin for i in S.tolist()], dtype=bool)
                add = int(math.ceil(self.delta * n * math.exp(-gnorm / g0))) if g0 else 0
                if done:  # converged on S: the rest of the training part joins at once
                    add = queue.size - used
                new = queue[used : used + add]
                used += new.size
                S = _next_working_set(S, keep, new, y)
                ev, g = gradient(S, x)
                last = ev
        except _Stop:
            pass
        # the answer: the last point (its value is on the last working set)
        if last is not None and last.ok:
            evaluate.set_incumbent(last, final=True)


def _first_working_set(
    train: NDArray[np.intp], y: NDArray[np.float64], size: float | int, rng: np.random.Generator
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """The first working set (``size``: a fraction of the training points or a count, at least
    4), stratified, at least 2 points of each class; and the other training points in the
    random order they join it."""
    n = train.size
    n0 = int(round(size * n)) if isinstance(size, float) else int(size)
    n0 = min(max(n0, 4), n)
    order = rng.permutation(train)
    pos, neg = order[y[order] > 0], order[y[order] < 0]
    k_pos = min(max(2, int(round(n0 * pos.size / n))), pos.size)
    k_neg = min(max(2, n0 - k_pos), neg.size)
    S = np.concatenate([pos[:k_pos], neg[:k_neg]])
    queue = np.setdiff1d(order, S, assume_unique=True)
    return S, order[np.isin(order, queue)]


def _next_working_set(
    S: NDArray[np.intp], keep: NDArray[np.bool_], new: NDArray[np.intp], y: NDArray[np.float64]
) -> NDArray[np.intp]:
    """The points of ``S`` kept (near the margin) and the ``new`` ones; if that would leave a
    class with fewer than 2 points, nothing is dropped."""
    S_next = np.concatenate([S[keep], new])
    counts = np.bincount((y[S_next] > 0).astype(int), minlength=2)
    if np.all(counts >= 2):
        return S_next
    return np.concatenate([S, new]) if new.size else S
