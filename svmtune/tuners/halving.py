"""Successive halving on data: every grid point on a small subsample, the best on larger ones."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from svmtune._options import Flag, Integer, check_value
from svmtune.objectives import BoundObjective, Evaluation, FrozenParams, Stopwatch
from svmtune.space import SearchSpace
from svmtune.tuners._base import Evaluator, Tuner
from svmtune.tuners.grid import MAX_UNBUDGETED_POINTS, Grid

__all__ = ["Rung", "SuccessiveHalving"]

#: Grid size per parameter when neither ``n_points`` nor ``max_evals`` says otherwise.
DEFAULT_N_POINTS = 5


@dataclass(frozen=True)
class Rung:
    """One rung of a successive-halving schedule: how many candidates on how many points."""

    rung: int
    n_candidates: int
    n_samples: int


def _check_int(value: object, name: str, low: int) -> int:
    check_value(value, name, Integer(low=low, what=f"an integer >= {low}"))
    return int(value)  # type: ignore[call-overload]


def nested_stratified_order(
    y: NDArray[np.float64], rng: np.random.Generator, *, min_each: int = 0
) -> NDArray[np.intp]:
    """A random order of the points whose every prefix holds each class in its share of ``y``
    (up to one point), after ``min_each`` points of each class first (so that a small subsample
    can still be split into folds): the subsample of ``m`` points is the first ``m``, so the
    subsamples of the rungs are nested."""
    key = np.empty(y.shape[0])
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        perm = rng.permutation(idx)
        first, rest = perm[:min_each], perm[min_each:]
        # the j-th point of class c after its first ones sits at (j + u) / n_rest: a prefix
        # holds ~ its share of c
        key[rest] = (np.arange(rest.size) + rng.uniform(0.05, 0.95)) / max(rest.size, 1)
        key[first] = -1.0 + (np.arange(first.size) + 0.5) / (first.size + 1)
    return np.argsort(key, kind="stable")


class SuccessiveHalving(Tuner):
    """Successive halving on data (Jamieson and Talwalkar; Karnin, Koren and Somekh), as
    scikit-learn's ``HalvingGridSearchCV`` with ``resource="n_samples"``.

    The candidates are the points of a grid in the search box (as :class:`Grid` makes it:
    ``n_points`` values per parameter, or explicit ``values``). Rung 0 evaluates every candidate
    with the objective bound to a stratified random subsample of ``min_resources`` training
    points (holding at least ``n_folds`` points of each class, so that it can be split into
    folds); each later rung keeps the best ``ceil(n / factor)`` candidates of the one before
    and evaluates them on ``factor`` times as many points (the subsamples are nested: each
    holds the one before). The answer is the best candidate of the last rung (the first in
    rung order among equal values), and the final classifier is trained on all the training
    data at it.

    The schedule is scikit-learn's: ``n_required = 1 + floor(log_factor(n_candidates))`` rungs
    bring the candidates down to fewer than ``factor``; ``min_resources="exhaust"`` starts at
    ``max(smallest, n // factor**(n_required - 1))`` points so that the last rung uses as many
    points as possible, ``"smallest"`` at ``2 * n_folds * n_classes`` points (``n_folds`` is
    the objective's ``k``, 5 for an objective without folds); ``n_possible = 1 +
    floor(log_factor(n // min_resources))`` rungs fit the data, and ``min(n_required,
    n_possible)`` are run (every ``n_required`` with ``aggressive_elimination``, repeating the
    first rung's size while candidates must still be eliminated). Rung ``i`` uses
    ``min(n, factor**i * min_resources)`` points (:meth:`schedule` lists them).

    One evaluation is one candidate evaluated on one rung's subsample (a k-fold CV of that
    subsample for ``KFoldCV``, the default objective of a study's method). ``max_evals`` caps
    their number over all rungs: without ``n_points`` or ``values`` the grid is the largest
    ``n_points`` per parameter whose whole schedule fits ``max_evals``; a schedule longer than
    the budget stops when it is spent, and the answer is then the best of the last rung
    reached. The cost of every evaluation (kernel evaluations, SMO iterations, CPU seconds) is
    the real cost of that rung's evaluation; the first evaluation of a rung also carries the
    cost of binding the objective to the rung's subsample. Each record of the trace has its
    ``rung`` and ``n_samples``; the trace's ``best_value`` counts only the evaluations on all
    the training points (NaN before the first, and throughout when the last rung is a
    subsample: a subsample's CV error is not the objective on the training data, and it may be
    lower than any full evaluation's), while the cumulative cost counts every rung.

    Warm starts: with ``KFoldCV(seeding=True)`` (alpha seeding), each fold of a rung starts from
    the solution of the nearest setting evaluated before on the same subsample; the first
    evaluation of a rung starts cold. With ``carry_seeds=True`` it starts from the fold
    solutions of the rung before instead, carried over to the larger subsample (zero on the new
    points; :func:`~svmtune.solvers.feasible_start` makes them feasible for the new folds, which
    are not the old ones grown): this cost more SMO iterations than the cold start on the
    Fischetti study's data sets (``python benchmarks/halving.py`` prints both), so it is off by
    default. Seeding changes where SMO starts, never the problem solved. Objectives without
    seeding (``KFoldCV``'s default) start cold on every rung.

    Parameters
    ----------
    n_points : int, optional
        Grid values per parameter (default: the largest that fits ``max_evals``, else 5).
    values : mapping name -> sequence of float, optional
        Explicit grid values for some parameters (as :class:`Grid`).
    bounds : mapping name -> (low, high), optional
        The tuner's own box (narrows the study's and the default box).
    factor : int, default 3
        The proportion of candidates kept from one rung to the next is ``1 / factor``, and each
        rung has ``factor`` times the points of the one before (an integer >= 2).
    min_resources : {"exhaust", "smallest"} or int, default "exhaust"
        Points of rung 0.
    max_resources : int, optional
        Points of the largest rung (default: all training points).
    aggressive_elimination : bool, default False
        Run rungs at the first rung's size until few enough candidates remain that the last
        rung has fewer than ``factor``.
    carry_seeds : bool, default False
        Warm-start each rung from the solutions of the rung before (objectives that keep
        solutions: ``KFoldCV(seeding=True)``, refused with ``KFoldCV``'s default
        ``seeding=False``; see above).
    max_evals, max_seconds : optional budget (see :class:`~svmtune.tuners.Tuner`)

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import KFoldCV
    >>> from svmtune.tuners import SuccessiveHalving
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-1, 1, (60, 2)), rng.normal(1, 1, (60, 2))])
    >>> y = np.repeat([-1.0, 1.0], 60)
    >>> sh = SuccessiveHalving(n_points=3)
    >>> [(r.n_candidates, r.n_samples) for r in sh.schedule(9, y)]
    [(9, 20), (3, 60)]
    >>> res = sh.tune(KFoldCV(k=5), X, y, kernel=RBF(), random_state=0)
    >>> res.trace.groupby("rung")["n_samples"].agg(["size", "max"]).values.tolist()
    [[9, 20], [3, 60]]
    >>> [round(g, 12) for g in res.trace["param_gamma"].tolist()[-3:]]  # last rung: one gamma
    [0.1, 0.1, 0.1]
    >>> # a Gram matrix per evaluation, but for one at the gamma of the one before (kept)
    >>> res.total_cost.kernel_evals == 9 * 20**2 + 60**2
    True
    """

    def __init__(
        self,
        *,
        n_points: int | None = None,
        values: Mapping[str, Sequence[float]] | None = None,
        bounds: Mapping[str, tuple[float, float]] | None = None,
        factor: int = 3,
        min_resources: Literal["exhaust", "smallest"] | int = "exhaust",
        max_resources: int | None = None,
        aggressive_elimination: bool = False,
        carry_seeds: bool = False,
        max_evals: int | None = None,
        max_seconds: float | None = None,
    ) -> None:
        super().__init__(max_evals=max_evals, max_seconds=max_seconds)
        self.n_points = n_points
        self.values = values
        self.bounds = bounds
        self.factor = factor
        self.min_resources = min_resources
        self.max_resources = max_resources
        self.aggressive_elimination = aggressive_elimination
        self.carry_seeds = carry_seeds

    # -- options ------------------------------------------------------------------------------
    _option_constraints = {
        "n_points": Integer(low=1, none=True, what="an integer >= 1"),
        "factor": Integer(low=2),
        "max_resources": Integer(low=2, none=True, what="an integer >= 2"),
        "aggressive_elimination": Flag(),
        "carry_seeds": Flag(),
    }

    def _check_options(self) -> None:
        super()._check_options()
        mr = self.min_resources
        if isinstance(mr, str):
            if mr not in ("exhaust", "smallest"):
                raise ValueError(
                    f"min_resources must be 'exhaust', 'smallest' or an integer >= 2; got {mr!r}"
                )
        else:
            check_value(mr, "min_resources", Integer(low=2))

    def _grid(self, space: SearchSpace | None = None) -> Grid:
        """The grid of candidates (its ``n_points`` chosen to fit ``max_evals`` if not given)."""
        self._check_options()
        n_points = self.n_points
        if n_points is None:
            n_points = DEFAULT_N_POINTS
            if self.max_evals is not None and space is not None:
                n_points = self._fitting_points(space)
        return Grid(
            n_points=int(n_points),
            values=self.values,
            bounds=self.bounds,
            max_points=MAX_UNBUDGETED_POINTS,
        )

    def _fitting_points(self, space: SearchSpace) -> int:
        """The largest ``n_points`` whose schedule's evaluations fit ``max_evals`` (at least 1).

        The count of a schedule depends only on the number of candidates as long as the data
        allow every required rung; it is computed here without the data (no rung limit)."""
        budget = int(self.max_evals)  # type: ignore[arg-type]
        best = 1
        for n_points in range(1, 1000):
            size = Grid(n_points=n_points, values=self.values, bounds=self.bounds).size(space)
            if self._evaluations_without_data(size) > budget:
                break
            best = n_points
            if size >= budget:
                break
        return best

    def _evaluations_without_data(self, n_candidates: int) -> int:
        total, n = 0, n_candidates
        for _ in range(1 + math.floor(math.log(n_candidates, self.factor))):
            total += n
            n = math.ceil(n / self.factor)
        return total

    def search_box(
        self, space: SearchSpace, *, bounds: Mapping[str, tuple[float, float]] | None = None
    ) -> SearchSpace:
        """The box searched (as :meth:`Grid.search_box`: explicit ``values`` span their box)."""
        return self._grid().search_box(space, bounds=bounds)

    def _check_space(self, space: SearchSpace) -> None:
        self._grid(space)._check_space(space)

    def candidates(self, space: SearchSpace) -> list[dict[str, float]]:
        """The grid points of rung 0, in grid order (the first parameter varies slowest)."""
        return list(self._grid(space).candidates(space))

    # -- the schedule -------------------------------------------------------------------------
    def _smallest(self, y: NDArray[np.float64], n_folds: int) -> int:
        return 2 * n_folds * int(np.unique(y).size)

    def schedule(self, n_candidates: int, y: ArrayLike, *, n_folds: int = 5) -> list[Rung]:
        """The rungs run on ``n_candidates`` candidates and labels ``y`` (scikit-learn's
        schedule, see the class docstring); ``n_folds`` sets the ``"smallest"`` rung."""
        self._check_options()
        n_candidates = _check_int(n_candidates, "n_candidates", 1)
        yy = np.asarray(y, dtype=np.float64)
        n = yy.shape[0]
        factor = int(self.factor)
        max_res = n if self.max_resources is None else int(self.max_resources)
        if max_res > n:
            raise ValueError(f"max_resources={max_res} is more than the {n} training points")
        smallest = self._smallest(yy, n_folds)
        mr = self.min_resources
        min_res = smallest if isinstance(mr, str) else int(mr)
        n_required = 1 + math.floor(math.log(n_candidates, factor))
        if mr == "exhaust":
            min_res = max(min_res, max_res // factor ** (n_required - 1))
        if min_res > max_res:
            raise ValueError(
                f"min_resources={min_res} is more than max_resources={max_res} "
                f"(the training points: {n})"
            )
        n_possible = 1 + math.floor(math.log(max_res // min_res, factor))
        n_rungs = n_required if self.aggressive_elimination else min(n_possible, n_required)
        rungs = []
        n_cand = n_candidates
        for i in range(n_rungs):
            power = max(0, i - n_required + n_possible) if self.aggressive_elimination else i
            rungs.append(Rung(i, n_cand, int(min(factor**power * min_res, max_res))))
            n_cand = math.ceil(n_cand / factor)
        return rungs

    # -- the search ---------------------------------------------------------------------------
    def _run_search(
        self,
        evaluate: Evaluator,
        space: SearchSpace,
        rng: np.random.Generator,
        start: dict[str, float] | None,
    ) -> None:
        full = evaluate.bound
        if self.carry_seeds and getattr(full.objective, "seeding", None) is False:
            raise ValueError(
                f"SuccessiveHalving(carry_seeds=True) warm-starts rungs from kept solutions, but "
                f"{full.objective!r} keeps none (seeding=False, KFoldCV's default): pass "
                "KFoldCV(seeding=True), or carry_seeds=False"
            )
        cands = self.candidates(space)
        n_folds = int(getattr(full.objective, "k", 5))
        rungs = self.schedule(len(cands), full.y, n_folds=n_folds)
        # every subsample holds n_folds points of each class (fewer if the rung is smaller)
        order = nested_stratified_order(full.y, rng, min_each=n_folds)
        previous: BoundObjective | None = None
        previous_idx: NDArray[np.intp] | None = None
        for rung in rungs:
            m = rung.n_samples
            watch = Stopwatch()
            if m >= full.n_samples:
                idx = np.arange(full.n_samples)
                bound = full
            else:
                idx = np.sort(order[:m])
                try:
                    bound = full.objective.bind(full.X[idx], full.y[idx], kernel=full.kernel)
                except ValueError as exc:
                    raise ValueError(
                        f"SuccessiveHalving cannot bind {full.objective!r} to the subsample of "
                        f"rung {rung.rung} ({m} points; min_resources={self.min_resources!r}): "
                        f"{exc}"
                    ) from None
            if self.carry_seeds and previous is not None and previous_idx is not None:
                _carry_seeds(previous, previous_idx, bound, idx)
            setup = watch.cost() if bound is not full else None
            scored: list[tuple[float, int, dict[str, float], Evaluation]] = []
            for pos, params in enumerate(cands):
                evaluate.check_budget()
                ev = bound.evaluate(params)
                info = {**ev.info, "rung": rung.rung, "n_samples": m}
                cost = ev.cost if setup is None else ev.cost + setup
                setup = None
                ev = replace(ev, cost=cost, info=FrozenParams(info))
                evaluate.record(ev)
                score = ev.value if ev.ok and math.isfinite(ev.value) else math.inf
                scored.append((score, pos, params, ev))
                best = min(scored, key=lambda s: (s[0], s[1]))
                if best[3].ok:
                    evaluate.set_incumbent(best[3], final=True)
            scored.sort(key=lambda s: (s[0], s[1]))
            cands = [s[2] for s in scored[: math.ceil(len(cands) / int(self.factor))]]
            previous, previous_idx = bound, idx


def _carry_seeds(
    before: BoundObjective,
    before_idx: NDArray[np.intp],
    after: BoundObjective,
    after_idx: NDArray[np.intp],
) -> None:
    """Warm-start ``after`` (bound to a larger, nested subsample) from ``before``'s solutions,
    where the objective keeps any (:meth:`seed_from`)."""
    seed_from = getattr(after, "seed_from", None)
    if seed_from is None or before is after:
        return
    positions = np.searchsorted(after_idx, before_idx)
    seed_from(before, positions)
