"""A cascade: screen with a cheap objective, spend the accurate one only around what it found."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping

import numpy as np
from numpy.typing import NDArray

from svmtune._options import Choice, Labelled, Real
from svmtune._validation import as_rng, check_positive_int
from svmtune.kernels import KernelModel
from svmtune.objectives import BoundObjective, Cost, Evaluation, Objective
from svmtune.space import SearchSpace
from svmtune.tuners._base import BudgetExhausted, Evaluator, Tuner, TuningResult, tuning_result
from svmtune.tuners._billing import RunClock
from svmtune.tuners._box import narrow, search_box
from svmtune.tuners._trace import SCREEN
from svmtune.tuners.bisection import Bisection
from svmtune.tuners.grid import Grid
from svmtune.tuners.vns import VNS

__all__ = ["Cascade", "stratified_subsample"]

#: The screens :class:`Cascade` knows.
SCREENS = ("subsample", "loo2")
#: Defaults of :class:`Cascade`, measured in ``benchmarks/cascade.py`` (docs/defaults.md).
DEFAULT_SUBSAMPLE = 0.25
DEFAULT_SCREEN_POINTS = 4
#: ``log2`` of a factor ``sqrt(10)``: half a decade on each side of the screen's best point.
DEFAULT_RADIUS = 1.66
DEFAULT_REFINE_EVALS = 3
#: Fewest points of a class in a subsample (when the class has that many).
MIN_CLASS_POINTS = 10


def stratified_subsample(
    y: NDArray[np.float64], fraction: float, rng: np.random.Generator
) -> NDArray[np.intp]:
    """Sorted indices of a stratified subsample: ``ceil(fraction * n_c)`` points of each class
    (at least :data:`MIN_CLASS_POINTS`, or the whole class if it is smaller).

    Examples
    --------
    >>> import numpy as np
    >>> y = np.repeat([-1.0, 1.0], [60, 100])
    >>> idx = stratified_subsample(y, 0.25, np.random.default_rng(0))
    >>> int((y[idx] < 0).sum()), int((y[idx] > 0).sum())
    (15, 25)
    """
    out = []
    for label in np.unique(y):
        members = np.flatnonzero(y == label)
        m = min(members.size, max(math.ceil(fraction * members.size), MIN_CLASS_POINTS))
        out.append(rng.choice(members, size=m, replace=False))
    return np.sort(np.concatenate(out))


def _is_width(name: str) -> bool:
    return name == "gamma" or name.startswith("gamma_")


class Cascade(Tuner):
    """Screen with a cheap objective, then spend the run's objective only around what it found.

    A run has two stages, both inside the search box:

    1. **screen**: the first level of the kernel model's nested sequence
       (:meth:`~svmtune.kernels.KernelModel.nested`: ``RBF`` for an ``AnisotropicRBF``, one
       common weight and width for a ``MultipleKernel``; the model itself otherwise) is
       searched with a cheap objective:

       - ``"subsample"`` (default): the run's own objective on a stratified subsample
         (``subsample`` of each class, :func:`stratified_subsample`), on a grid of
         ``screen_points`` values per parameter (:class:`~svmtune.tuners.Grid`). One
         evaluation costs about ``subsample**2`` of a full one: the default 4 x 4 grid on a
         quarter of the data costs about 16/16 = 1 full evaluation.
       - ``"loo2"``: Fischetti's LOO_2 estimate (:class:`~svmtune.objectives.LOOEstimate`) on
         all the data, the width ``gamma`` by three-point bisection on a log scale over the
         box (:class:`~svmtune.tuners.Bisection`, ``tol=screen_tol`` in ``ln gamma``); LOO_2
         has no ``C`` and does not depend on a common kernel weight. One evaluation costs about
         what one full k-fold CV evaluation costs, so this screen alone costs several of them.

    2. **refine**: the run's objective on all the data, by the ``refine`` tuner (default
       ``VNS(max_evals=3, step=radius / 2, k_max=2)``) from the screen's best point embedded
       in the full model (:meth:`~svmtune.kernels.KernelModel.embed`: every width of an
       anisotropic RBF starts at the screened ``gamma``; ``C`` carried over), in the
       neighbourhood of that point: ``radius`` in search coordinates (``log2``) on each side
       for the screened parameters (with ``"loo2"``: the kernel widths), the whole box for the
       others (``C`` after a LOO_2 screen), intersected with the box.

    The answer is the refine stage's best point (the screen's values are on another scale and
    never answer). The trace holds both stages in order with a ``stage`` column
    (``"screen"``/``"refine"``); a screen row that succeeded has the status ``"screen"`` (its
    value is the screen's), its parameters embedded in the full model (``C`` is NaN in a LOO_2
    row). The screen's cost (its binding, every evaluation) is part of the run's cost and of the
    trace's cumulative columns; ``best_value`` counts only the refine rows.

    Parameters
    ----------
    screen : {"subsample", "loo2"}, default "subsample"
    refine : Tuner, optional
        The search of the refine stage (e.g. ``Grid(n_points=3)``, a 3 x 3 grid over the
        neighbourhood, or ``VNS(max_evals=6)``). It must not have a ``bounds`` option of its own
        (the neighbourhood is its box); its ``max_evals`` is the stage's budget.
    subsample : float, default 0.25
        Fraction of each class in the ``"subsample"`` screen, in (0, 1).
    screen_points : int, default 4
        Grid values per parameter of the ``"subsample"`` screen (at least 2).
    screen_tol : float, default 1.0
        Bisection's stop of the ``"loo2"`` screen, in ``ln gamma`` (1.0: a factor e).
    radius : float, default 1.66
        Half-width of the refine neighbourhood in ``log2`` units (1.66: a factor ``sqrt(10)``,
        half a decade, on each side).
    bounds : mapping name -> (low, high), optional
        The search box of some parameters (inside the search space's bounds; default
        :data:`~svmtune.tuners.DEFAULT_BOX`); both stages stay inside it.
    max_evals : int, optional
        Distinct evaluations of the whole run, the screen's included (at least 2: the screen
        keeps one for the refine stage).
    max_seconds : float, optional
        Stop starting new evaluations after this many wall-clock seconds (the refine stage
        always evaluates its start point).

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import KFoldCV
    >>> from svmtune.tuners import Cascade
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-1, 1, (60, 2)), rng.normal(1, 1, (60, 2))])
    >>> y = np.repeat([-1.0, 1.0], 60)
    >>> res = Cascade().tune(KFoldCV(k=5), X, y, kernel=RBF(), random_state=0)
    >>> res.trace["stage"].value_counts().to_dict()
    {'screen': 16, 'refine': 3}
    >>> res.best_value < 0.3
    True
    """

    def __init__(
        self,
        *,
        screen: str = "subsample",
        refine: Tuner | None = None,
        subsample: float = DEFAULT_SUBSAMPLE,
        screen_points: int = DEFAULT_SCREEN_POINTS,
        screen_tol: float = 1.0,
        radius: float = DEFAULT_RADIUS,
        bounds: Mapping[str, tuple[float, float]] | None = None,
        max_evals: int | None = None,
        max_seconds: float | None = None,
    ) -> None:
        super().__init__(max_evals=max_evals, max_seconds=max_seconds)
        self.screen = screen
        self.refine = refine
        self.subsample = subsample
        self.screen_points = screen_points
        self.screen_tol = screen_tol
        self.radius = radius
        self.bounds = bounds

    # -- checks ----------------------------------------------------------------------------------

    def refiner(self) -> Tuner:
        """The refine stage's tuner (``refine``, or the default VNS)."""
        if self.refine is not None:
            return self.refine
        return VNS(max_evals=DEFAULT_REFINE_EVALS, step=float(self.radius) / 2, k_max=2)

    _option_constraints = {
        "screen": Labelled(Choice(SCREENS), "Cascade "),
        "subsample": Labelled(Real(0.0, 1.0, what="a fraction in (0, 1)"), "Cascade "),
        "screen_tol": Labelled(Real(low=0.0), "Cascade "),
        "radius": Labelled(Real(low=0.0), "Cascade "),
    }

    def _check_options(self) -> None:
        super()._check_options()
        check_positive_int(self.screen_points, "screen_points")
        if self.screen_points < 2:
            raise ValueError(f"screen_points must be at least 2; got {self.screen_points!r}")
        if self.max_evals is not None and not isinstance(self.max_evals, bool):
            if isinstance(self.max_evals, int | np.integer) and self.max_evals < 2:
                raise ValueError(
                    f"Cascade max_evals must be at least 2 (screen and refine); "
                    f"got {self.max_evals!r}"
                )
        r = self.refine
        if r is None:
            return
        if not isinstance(r, Tuner) or isinstance(r, Cascade) or type(r).__name__ == "NestedVNS":
            raise ValueError(
                "Cascade refine must be a svmtune Tuner that searches one box (Grid, VNS, TPE, "
                f"RandomSearch, ...; not a Cascade or NestedVNS); got {r!r}"
            )
        own = getattr(r, "bounds", None)
        if own is not None:
            raise ValueError(
                f"Cascade refine {r.name} has bounds={own!r}; the refine stage "
                "searches the screen's neighbourhood: give the box to Cascade(bounds=...)"
            )
        r._check_budget()

    def _check_space(self, space: SearchSpace) -> None:
        self._check_options()
        try:  # the neighbourhood is a smaller box of the same parameters
            self.refiner().check(space)
        except ValueError as exc:
            raise ValueError(f"Cascade refine {self.refiner().name}: {exc}") from None

    def check_objective(self, objective: Objective) -> None:
        """ValueError if the refine tuner cannot work with ``objective`` (e.g. a pruner and an
        objective without per-fold values), naming both."""
        super().check_objective(objective)
        self._check_options()
        try:
            self.refiner().check_objective(objective)
        except ValueError as exc:
            raise ValueError(f"Cascade refine {self.refiner().name}: {exc}") from None

    def check_kernel(self, kernel: KernelModel) -> None:
        """ValueError if the screen cannot tune ``kernel``'s first nested level (the LOO_2
        screen needs a width ``gamma`` there), naming both."""
        self._check_options()
        inner = kernel.nested()[0]
        if self.screen == "loo2" and "gamma" not in inner.space.names:
            where = "" if inner == kernel else f" (the first nested level of {kernel!r})"
            raise ValueError(
                f"Cascade(screen='loo2') screens the kernel width 'gamma' by Fischetti's LOO_2, "
                f"and {inner!r}{where} has none (its parameters: {list(inner.space.names)}); "
                "use screen='subsample'"
            )

    # -- the run ---------------------------------------------------------------------------------

    def tune_bound(
        self,
        bound: BoundObjective,
        *,
        random_state: int | np.random.Generator | None = None,
        start: Mapping[str, float] | None = None,
        bounds: Mapping[str, tuple[float, float]] | None = None,
    ) -> TuningResult:
        """Screen, then refine around the screen's best point (``start`` is not used: the
        screen chooses where the refine stage starts)."""
        clock = RunClock.start(bound)
        box = self.prepare(bound, bounds=bounds)
        rng = as_rng(random_state, name="random_state")
        t0 = time.perf_counter()
        sb, screen_run = self._screen(bound, box, rng)
        screened = [_embedded(ev, sb, bound) for ev in screen_run.evaluations]
        try:
            centre = _embed_point(screen_run.best().params, sb, bound, box)
        except RuntimeError as exc:
            raise RuntimeError(f"{self.name} screen: {exc}") from None
        names = [n for n in box.names if self.screen == "subsample" or _is_width(n)]
        refine_box = narrow(box, _neighbourhood(box, centre, names, float(self.radius)))
        first = {n: centre[n] if n in names else _middle(refine_box, n) for n in box.names}
        refiner = self.refiner()
        refine_box = refiner.check(refine_box)
        budget = refiner._budget()
        if self.max_evals is not None:
            left = int(self.max_evals) - len(screened)
            budget = left if budget is None else min(budget, left)
        seconds = None
        if self.max_seconds is not None:
            seconds = float(self.max_seconds) - (time.perf_counter() - t0)
        if seconds is not None and seconds <= 0:  # out of time: evaluate the start point only
            budget, seconds = 1, None
        run = Evaluator(bound, budget, seconds)
        try:
            refiner._run_search(run, refine_box, rng, refine_box.check(first))
        except BudgetExhausted:
            pass
        stopped = run.stopped_by if run.stopped_by != "converged" else screen_run.stopped_by
        return _finish(self.name, bound, box, screened, run, sb.setup_cost, stopped, clock)

    def _run_search(
        self,
        evaluate: Evaluator,
        space: SearchSpace,
        rng: np.random.Generator,
        start: dict[str, float] | None,
    ) -> None:  # pragma: no cover - tune_bound drives the two stages itself
        raise NotImplementedError

    def _screen(
        self, bound: BoundObjective, box: SearchSpace, rng: np.random.Generator
    ) -> tuple[BoundObjective, Evaluator]:
        """Bind the screen objective on the first nested level and run the screen search."""
        inner = bound.kernel.nested()[0]
        if self.screen == "subsample":
            idx = stratified_subsample(bound.y, float(self.subsample), rng)
            sb = bound.objective.bind(bound.X[idx], bound.y[idx], kernel=inner)
        else:
            from svmtune.objectives.loo_estimate import LOOEstimate

            sb = LOOEstimate(model="loo2").bind(bound.X, bound.y, kernel=inner)
        sbox = search_box(sb.space, _inner_box(box, sb, bound))
        searcher: Tuner
        if self.screen == "subsample":
            searcher = Grid(n_points=int(self.screen_points))
        else:
            g = sbox["gamma"]
            fixed = {n: _middle(sbox, n) for n in sbox.names if n != "gamma"}
            searcher = Bisection(
                low=g.low, high=g.high, log=True, tol=float(self.screen_tol), fixed=fixed
            )
        sbox = searcher.check(sbox)
        cap = None if self.max_evals is None else int(self.max_evals) - 1
        run = Evaluator(sb, cap, self.max_seconds)
        try:
            searcher._run_search(run, sbox, rng, None)
        except BudgetExhausted:
            pass
        return sb, run


def _middle(space: SearchSpace, name: str) -> float:
    p = space[name]
    return math.sqrt(p.low * p.high) if p.log else 0.5 * (p.low + p.high)


def _inner_box(
    box: SearchSpace, sb: BoundObjective, bound: BoundObjective
) -> dict[str, tuple[float, float]]:
    """The screen level's box from the run's box: ``C`` as it is; a width ``gamma`` or a weight
    ``mu`` spans the run's ``gamma_*`` or ``mu_*`` bounds (their hull)."""
    out = {}
    for p in sb.space:
        if p.name in box.names:
            q = box[p.name]
            out[p.name] = (max(p.low, q.low), min(p.high, q.high))
            continue
        family = [q for q in box if q.name.startswith(p.name + "_")]
        if family:
            lo = max(p.low, min(q.low for q in family))
            hi = min(p.high, max(q.high for q in family))
            if lo < hi:
                out[p.name] = (lo, hi)
    return out


def _embed_point(
    params: Mapping[str, float], src: BoundObjective, dst: BoundObjective, box: SearchSpace
) -> dict[str, float]:
    """``src``'s parameters in ``dst``'s full box: the kernel part embedded, ``C`` carried over
    (the box centre when ``src`` has none), clipped to the box."""
    out = dict(_partial_embed(params, src, dst))
    for p in box:
        v = out.get(p.name, _middle(box, p.name))
        out[p.name] = min(max(float(v), p.low), p.high)
    return out


def _partial_embed(
    params: Mapping[str, float], src: BoundObjective, dst: BoundObjective
) -> dict[str, float]:
    kernel = dst.kernel.embed(src.kernel_params(params), src.kernel)
    out = {n: float(params[n]) for n in dst.space.names if n not in kernel and n in params}
    out.update(kernel)
    return out


def _embedded(ev: Evaluation, src: BoundObjective, dst: BoundObjective) -> Evaluation:
    """A screen evaluation with its parameters in the full model (missing ones left out)."""
    return Evaluation(
        _partial_embed(ev.params, src, dst), ev.value, ev.status, ev.cost, ev.info, ev.error
    )


def _neighbourhood(
    box: SearchSpace, centre: Mapping[str, float], names: list[str], radius: float
) -> dict[str, tuple[float, float]]:
    """``radius`` (``log2`` units for a log-scaled parameter) on each side of ``centre`` for
    ``names``, inside the box."""
    out = {}
    for name in names:
        p = box[name]
        c = float(centre[name])
        lo, hi = (c * 2.0**-radius, c * 2.0**radius) if p.log else (c - radius, c + radius)
        out[name] = (max(lo, p.low), min(hi, p.high))
    return out


def _finish(
    name: str,
    bound: BoundObjective,
    box: SearchSpace,
    screened: list[Evaluation],
    run: Evaluator,
    screen_setup: Cost,
    stopped_by: str,
    clock: RunClock,
) -> TuningResult:
    if not run.evaluations:
        raise RuntimeError(f"{name} made no refine evaluation (budget too small?)")
    try:
        best = run.best()
    except RuntimeError as exc:
        raise RuntimeError(f"{name}: {exc}") from None
    evaluations = screened + run.evaluations
    stages = [SCREEN] * len(screened) + ["refine"] * len(run.evaluations)
    setup = bound.setup_cost + screen_setup
    return tuning_result(
        bound, box, evaluations, best, stopped_by, setup=setup, stages=stages, clock=clock
    )
