"""Exhaustive grid search over any number of parameters."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping, Sequence

import numpy as np
import pandas as pd

from svmtune._options import Integer
from svmtune._validation import check_bounds
from svmtune.space import Param, SearchSpace
from svmtune.tuners._base import Evaluator, Tuner
from svmtune.tuners._box import DEFAULT_BOX, search_box

__all__ = ["DEFAULT_GRID_BOUNDS", "MAX_UNBUDGETED_POINTS", "Grid"]

#: The box of a grid's parameters when neither ``values`` nor ``bounds`` name them: the
#: default box of every tuner (:data:`~svmtune.tuners.DEFAULT_BOX`; kept under this name).
DEFAULT_GRID_BOUNDS: dict[str, tuple[float, float]] = DEFAULT_BOX


#: Largest grid :class:`Grid` runs without a budget (``max_evals`` or ``max_seconds``).
MAX_UNBUDGETED_POINTS = 100_000


def _count(size: int) -> str:
    return str(size) if size < 10**9 else f"about {float(size):.3g}"


class Grid(Tuner):
    """Evaluate every point of a grid (the Cartesian product of per-parameter values).

    Each parameter takes the explicit ``values`` given for it, or else ``n_points`` values spread
    over its search box (``bounds[name]``, else a study's box, else
    :data:`~svmtune.tuners.DEFAULT_BOX`, else the search space's bounds), log-spaced for
    log-scaled parameters. ``Grid(n_points=5)`` on a (C, gamma) space is the 5x5
    grid of the HINGE baseline in Fischetti (2016). The best point is the first one found among
    equal values, in the grid's order (the first parameter varies slowest).

    Evaluated whole (no ``max_seconds``, no ``max_evals`` below its size) for an objective that
    shares kernel work between settings of the same kernel parameters (``KFoldCV``: one Gram
    matrix for every ``C``), the grid is walked with the kernel parameters varying slowest
    instead. The trace lists the evaluations in the order they ran, with the cost each one
    had (its cumulative columns are what a run stopped there, e.g. by a study's CPU budget,
    had spent); the best point is still the first among equal values in the grid's order, as
    scikit-learn's ``GridSearchCV`` picks. A trace row's anytime incumbent takes ties in the
    order the evaluations ran.

    Parameters
    ----------
    n_points : int, default 5
    values : mapping name -> sequence of float, optional
    bounds : mapping name -> (low, high), optional
    max_points : int or None, default 100_000
        Largest grid evaluated when no budget is given: a larger one (e.g. ``n_points=3`` over
        the 60 widths of an ``AnisotropicRBF``, 3**60 points) is refused before anything runs.
        With a budget the points are generated lazily and the search stops when it is spent.
        None evaluates every point however many.
    max_evals, max_seconds : optional budget (see :class:`~svmtune.tuners.Tuner`)

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import LOOEstimate
    >>> from svmtune.tuners import Grid
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-1, 1, (30, 2)), rng.normal(1, 1, (30, 2))])
    >>> y = np.repeat([-1.0, 1.0], 30)
    >>> res = Grid(n_points=5).tune(LOOEstimate(model="loo2"), X, y, kernel=RBF())
    >>> len(res.trace)
    5
    """

    def __init__(
        self,
        *,
        n_points: int = 5,
        values: Mapping[str, Sequence[float]] | None = None,
        bounds: Mapping[str, tuple[float, float]] | None = None,
        max_points: int | None = MAX_UNBUDGETED_POINTS,
        max_evals: int | None = None,
        max_seconds: float | None = None,
    ) -> None:
        super().__init__(max_evals=max_evals, max_seconds=max_seconds)
        self.n_points = n_points
        self.values = values
        self.bounds = bounds
        self.max_points = max_points

    def search_box(
        self, space: SearchSpace, *, bounds: Mapping[str, tuple[float, float]] | None = None
    ) -> SearchSpace:
        """The box searched: as every tuner's, except that a parameter given explicit
        ``values`` spans them (from the smallest to the largest, or its bounds for one value)."""
        self._check_options_in(space)
        values = dict(self.values or {})
        outer = {k: v for k, v in (bounds or {}).items() if k not in values}
        own = {k: v for k, v in (self.bounds or {}).items() if k not in values}
        box = search_box(space, outer, own)
        span = {}
        for name, vals in values.items():
            p = space[name]
            checked = [p.check(v) for v in vals]
            lo, hi = min(checked), max(checked)
            span[name] = (lo, hi) if lo < hi else (p.low, p.high)
        if not span:
            return box
        return SearchSpace(
            tuple(Param(p.name, *span[p.name], p.log) if p.name in span else p for p in box)
        )

    def axes(self, space: SearchSpace) -> dict[str, list[float]]:
        """The grid values of each parameter of ``space`` (the box searched: :meth:`search_box`
        of the objective's space)."""
        self._check_options_in(space)
        values = dict(self.values or {})
        bounds = dict(self.bounds or {})
        out: dict[str, list[float]] = {}
        for p in space:
            if p.name in values:
                out[p.name] = [p.check(v) for v in values[p.name]]
                continue
            lo, hi = bounds.get(p.name, (p.low, p.high))
            lo, hi = max(float(lo), p.low), min(float(hi), p.high)
            if not lo < hi:
                raise ValueError(f"grid bounds for {p.name!r} leave an empty range [{lo}, {hi}]")
            if self.n_points == 1:
                pts = [float(np.sqrt(lo * hi)) if p.log else 0.5 * (lo + hi)]
            elif p.log:
                pts = np.geomspace(lo, hi, self.n_points).tolist()
            else:
                pts = np.linspace(lo, hi, self.n_points).tolist()
            out[p.name] = [p.check(v) for v in pts]
        return out

    _option_constraints = {"n_points": Integer(low=1), "max_points": Integer(low=1, none=True)}

    def _check_options(self) -> None:
        super()._check_options()
        n, mp = self.n_points, self.max_points
        if mp is not None and n > mp:
            raise ValueError(
                f"n_points={n} makes an axis longer than max_points={mp}: use fewer n_points, "
                "explicit values, or max_points=None"
            )
        for key, opt in (("values", self.values), ("bounds", self.bounds)):
            if opt is not None and not isinstance(opt, Mapping):
                raise ValueError(f"Grid {key} must be a mapping name -> {key}; got {opt!r}")

    def _check_options_in(self, space: SearchSpace) -> None:
        """:meth:`_check_options`, then the names and values of ``values`` and ``bounds``
        against the objective's ``space``."""
        self._check_options()
        for key, opt in (("values", self.values), ("bounds", self.bounds)):
            unknown = [n for n in (opt or {}) if n not in space]
            if unknown:
                raise ValueError(
                    f"Grid {key} name parameters {unknown} not in the search space "
                    f"{list(space.names)}"
                )
        for name, vals in (self.values or {}).items():
            if isinstance(vals, str | bytes) or not isinstance(vals, Sequence | np.ndarray):
                raise ValueError(
                    f"Grid values for {name!r} must be a sequence of numbers (e.g. [0.1, 1.0]); "
                    f"got {vals!r}"
                )
            if len(vals) == 0:
                raise ValueError(f"Grid values for {name!r} are empty")
        for name, b in (self.bounds or {}).items():
            check_bounds(b, name=f"Grid bounds for {name!r}", positive=False)

    def _check_space(self, space: SearchSpace) -> None:
        size = self.size(space)
        if self.max_evals is None and self.max_seconds is None and self.max_points is not None:
            if size > self.max_points:
                raise ValueError(
                    f"Grid has {_count(size)} points over {len(space)} parameters, more than "
                    f"max_points={self.max_points}, and no budget was given: set max_evals (or "
                    "max_seconds), fewer n_points, explicit values, or max_points=None to "
                    "evaluate them all"
                )

    def size(self, space: SearchSpace) -> int:
        """The number of grid points on ``space`` (an exact integer, however large), from the
        axis lengths, without building the axes."""
        self._check_options_in(space)
        values = dict(self.values or {})
        return math.prod(
            len(values[p.name]) if p.name in values else int(self.n_points) for p in space
        )

    def in_grid_order(self, trace: pd.DataFrame, space: SearchSpace) -> pd.DataFrame:
        """``trace``'s rows (a run of this grid on ``space``) in the grid's order, as
        scikit-learn's ``GridSearchCV`` lists its candidates; rows of other points (a start
        point) first, in their order. The trace itself lists them in the order they ran.

        Examples
        --------
        >>> import pandas as pd
        >>> from svmtune.space import Param, SearchSpace
        >>> space = SearchSpace([Param("C", 0.1, 10.0, log=True), Param("g", 0.1, 10.0, log=True)])
        >>> grid = Grid(n_points=2)
        >>> t = pd.DataFrame({"param_C": [0.1, 10.0, 0.1, 10.0], "param_g": [0.1, 0.1, 10.0, 10.0]})
        >>> grid.in_grid_order(t, space)[["param_C", "param_g"]].to_numpy().tolist()
        [[0.1, 0.1], [0.1, 10.0], [10.0, 0.1], [10.0, 10.0]]
        """
        names = [p.name for p in space]
        at: dict[tuple[float, ...], int] = {}
        for k, point in enumerate(self.candidates(space)):
            at.setdefault(tuple(float(point[n]) for n in names), k)
        cols = [f"param_{n}" for n in names]
        key = [
            at.get(tuple(float(v) for v in row), -1) for row in trace[cols].itertuples(index=False)
        ]
        return trace.iloc[np.argsort(np.asarray(key, dtype=np.int64), kind="stable")]

    def candidates(self, space: SearchSpace) -> Iterator[dict[str, float]]:
        """Every grid point, in evaluation order, generated lazily (the first parameter varies
        slowest)."""
        axes = self.axes(space)
        names = list(axes)
        for combo in itertools.product(*axes.values()):
            yield dict(zip(names, combo, strict=True))

    def _run_search(
        self,
        evaluate: Evaluator,
        space: SearchSpace,
        rng: np.random.Generator,
        start: dict[str, float] | None,
    ) -> None:
        bound = evaluate.bound
        evals = self.max_evals
        whole = self.max_seconds is None and (evals is None or evals >= self.size(space))
        if not (whole and getattr(bound, "reuses_kernel", False)):
            for point in self.candidates(space):
                evaluate([point])
            return
        # Kernel parameters slowest: consecutive settings share the objective's kernel work
        # (KFoldCV's Gram matrix). The trace keeps the order the evaluations ran in (its
        # cumulative cost is what was spent by each row); the answer takes ties in the grid's
        # order, also when a budget stops the walk part-way.
        points = list(self.candidates(space))
        kernel = [p.name for p in space if p.name in bound.kernel.space.names]
        walk = sorted(range(len(points)), key=lambda i: [points[i][k] for k in kernel])
        first = len(evaluate.evaluations)
        at: dict[int, int] = {}  # evaluation (id) -> its first position in the grid's order
        try:
            for i in walk:
                ev = evaluate([points[i]])[0]
                at[id(ev)] = min(at.get(id(ev), i), i)
        finally:
            # evaluations made before the grid come first on ties, then the grid's order
            pos = {id(e): k - first for k, e in enumerate(evaluate.evaluations[:first])}
            ok = [e for e in evaluate.evaluations if e.ok]
            if ok:
                best = min(ok, key=lambda e: (e.value, pos.get(id(e), at.get(id(e), len(points)))))
                evaluate.set_incumbent(best, final=True)
