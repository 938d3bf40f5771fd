"""Fischetti's three-point bisection over one parameter."""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import replace

import numpy as np

from svmtune.objectives import BoundObjective, Evaluation
from svmtune.space import SearchSpace
from svmtune.tuners._base import Evaluator, Tuner, TuningResult
from svmtune.tuners._box import narrow

__all__ = ["Bisection", "BracketEdgeWarning"]


class BracketEdgeWarning(UserWarning):
    """A bisection ended at an edge of its bracket: the minimum may lie outside it."""


class Bisection(Tuner):
    """Three-point bisection for an (approximately) unimodal objective of one parameter.

    Fischetti (2016), Section 4: keep three points ``L < C < R`` with (ideally)
    ``V(C) < min(V(L), V(R))``; halve the larger of ``[L, C]`` and ``[C, R]`` at its midpoint ``M``;
    if ``V(M) < V(C)``, ``M`` becomes the centre and the far end of the other side is dropped,
    else ``M`` replaces the end on its own side. Stop when ``R - L < tol`` and return the centre
    (or an evaluated point with a strictly lower value, if the unimodality assumption failed).
    On ties ``V(M) == V(C)`` the centre is kept.

    The paper's setting is the default: ``gamma`` from ``L = 0.01``, ``R = 1``,
    ``C = (L + R) / 2`` on a linear scale, ``tol = 0.01`` (about 10 iterations). With
    ``log=True`` the midpoints are geometric and ``tol`` applies to ``ln R - ln L``.

    Its search box is ``[low, high]`` for ``param``, unless a study's ``bounds`` name
    ``param``: then it bisects that box, as every tuner searches it (:meth:`search_box`); the
    ``fixed`` values for the others.

    A bisection cannot leave its bracket: when the best point ends within ``tol`` of an edge
    (an objective still falling at ``L`` or ``R``), the result's ``at_edge`` names the edge
    (``{"gamma": "high"}``) and a :class:`BracketEdgeWarning` gives the bracket and the value;
    widen the bracket (``low``/``high``, a study's ``bounds``) or use ``log=True``.

    Parameters
    ----------
    param : str, default "gamma"
        The parameter searched. Every other parameter of the search space must be in ``fixed``.
    low, high : float
        The initial interval ``[L, R]``; inside the parameter's bounds. A study's ``bounds``
        on ``param`` replace it.
    tol : float, default 0.01
    log : bool, default False
    fixed : mapping, optional
        Values of the other parameters (e.g. ``{"C": 1.0}``).
    max_evals, max_seconds : optional budget (see :class:`~svmtune.tuners.Tuner`)

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import LOOEstimate
    >>> from svmtune.tuners import Bisection
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-1, 1, (30, 2)), rng.normal(1, 1, (30, 2))])
    >>> y = np.repeat([-1.0, 1.0], 30)
    >>> res = Bisection().tune(LOOEstimate(model="loo2"), X, y, kernel=RBF())
    >>> 0.01 <= res.best_params["gamma"] <= 1.0
    True
    """

    def __init__(
        self,
        *,
        param: str = "gamma",
        low: float = 0.01,
        high: float = 1.0,
        tol: float = 0.01,
        log: bool = False,
        fixed: Mapping[str, float] | None = None,
        max_evals: int | None = None,
        max_seconds: float | None = None,
    ) -> None:
        super().__init__(max_evals=max_evals, max_seconds=max_seconds)
        self.param = param
        self.low = low
        self.high = high
        self.tol = tol
        self.log = log
        self.fixed = fixed

    def _check_space(self, space: SearchSpace) -> None:
        if self.param not in space:
            raise ValueError(
                f"Bisection param {self.param!r} is not in the search space {list(space.names)}"
            )
        if self.fixed is not None and not isinstance(self.fixed, Mapping):
            raise ValueError(
                f"Bisection fixed must be a mapping name -> value (e.g. {{'C': 1.0}}); "
                f"got {self.fixed!r}"
            )
        fixed = dict(self.fixed or {})
        if self.param in fixed:
            raise ValueError(f"Bisection param {self.param!r} cannot also be fixed")
        unknown = [n for n in fixed if n not in space]
        if unknown:
            raise ValueError(
                f"fixed names {unknown} are not in the search space {list(space.names)}"
            )
        missing = [n for n in space.names if n != self.param and n not in fixed]
        if missing:
            raise ValueError(
                f"Bisection searches one parameter ({self.param!r}); fix the others with "
                f"fixed={{...}}: missing {missing}"
            )
        for name, value in fixed.items():
            space[name].check(value)
        for name, value in (("low", self.low), ("high", self.high)):
            ok = isinstance(value, int | float) and not isinstance(value, bool)
            if not (ok and math.isfinite(value)):
                raise ValueError(f"Bisection {name} must be a finite number; got {value!r}")
        if not self.low < self.high:
            raise ValueError(
                f"Bisection needs low < high; got low={self.low!r}, high={self.high!r}"
            )
        lo = space[self.param].low  # of the box: [low, high] or a study's bounds
        if self.log and min(lo, self.low) <= 0:
            raise ValueError(f"log-scale bisection needs low > 0; got low={min(lo, self.low)!r}")
        if not (isinstance(self.tol, int | float) and math.isfinite(self.tol) and self.tol > 0):
            raise ValueError(f"tol must be a positive number; got {self.tol!r}")

    def search_box(
        self, space: SearchSpace, *, bounds: Mapping[str, tuple[float, float]] | None = None
    ) -> SearchSpace:
        """``param`` narrowed to ``bounds[param]`` when a study's ``bounds`` name it, else to
        ``[low, high]`` (Fischetti's interval by default); the other parameters keep their
        fixed values.

        Examples
        --------
        >>> from svmtune.kernels import RBF
        >>> from svmtune.objectives import LOOEstimate
        >>> space = LOOEstimate(model="loo2").search_space(RBF())
        >>> box = Bisection().search_box(space)
        >>> (box["gamma"].low, box["gamma"].high)
        (0.01, 1.0)
        >>> box = Bisection().search_box(space, bounds={"gamma": (0.001, 10.0)})
        >>> (box["gamma"].low, box["gamma"].high)
        (0.001, 10.0)
        """
        self._check_space(space)
        interval = (bounds or {}).get(self.param, (self.low, self.high))
        return narrow(space, {self.param: (float(interval[0]), float(interval[1]))})

    def tune_bound(
        self,
        bound: BoundObjective,
        *,
        random_state: int | np.random.Generator | None = None,
        start: Mapping[str, float] | None = None,
        bounds: Mapping[str, tuple[float, float]] | None = None,
    ) -> TuningResult:
        """:meth:`Tuner.tune_bound`, then ``at_edge`` and a :class:`BracketEdgeWarning` when
        the best point lies within ``tol`` of the bracket's edge."""
        result = super().tune_bound(bound, random_state=random_state, start=start, bounds=bounds)
        if result.space is None:  # pragma: no cover - tune_bound's result carries its box
            return result
        lo, hi = float(result.space[self.param].low), float(result.space[self.param].high)
        value = float(result.best_params[self.param])
        if self._width(lo, value) < self.tol:
            edge = "low"
        elif self._width(value, hi) < self.tol:
            edge = "high"
        else:
            return result
        warnings.warn(
            f"Bisection ended at the {edge} edge of its bracket [{lo:g}, {hi:g}]: "
            f"{self.param}={value:g} (objective {result.best_value:.4g}), within tol={self.tol:g} "
            f"of {lo if edge == 'low' else hi:g}; the minimum may lie outside the bracket: widen "
            "it (low/high, or a study's bounds) or search on a log scale (log=True)",
            BracketEdgeWarning,
            stacklevel=2,
        )
        return replace(result, at_edge={self.param: edge})

    def _mid(self, a: float, b: float) -> float:
        return math.sqrt(a * b) if self.log else 0.5 * (a + b)

    def _width(self, a: float, b: float) -> float:
        return math.log(b / a) if self.log else b - a

    def _run_search(
        self,
        evaluate: Evaluator,
        space: SearchSpace,
        rng: np.random.Generator,
        start: dict[str, float] | None,
    ) -> None:
        fixed = {n: float(v) for n, v in (self.fixed or {}).items()}

        def V(t: float) -> Evaluation:
            return evaluate([{**fixed, self.param: t}])[0]

        lo, hi = float(space[self.param].low), float(space[self.param].high)
        mid = self._mid(lo, hi)
        V(lo)
        eC = V(mid)
        V(hi)
        evaluate.set_incumbent(eC)
        L, C, R = lo, mid, hi
        while self._width(L, R) >= self.tol:
            right = self._width(C, R) >= self._width(L, C)
            M = self._mid(C, R) if right else self._mid(L, C)
            if M in (L, C, R):  # interval below float resolution
                break
            eM = V(M)
            if eM.score < eC.score:
                if right:
                    L, C, eC = C, M, eM
                else:
                    R, C, eC = C, M, eM
                evaluate.set_incumbent(eC)
            elif right:
                R = M
            else:
                L = M
