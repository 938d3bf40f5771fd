"""Nested variable neighbourhood search (Carrizosa, Martin-Barragan, Romero Morales 2014)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

import numpy as np

from svmtune._validation import check_positive_int
from svmtune.kernels import KernelModel
from svmtune.objectives import BoundObjective, Cost, Evaluation
from svmtune.space import SearchSpace
from svmtune.tuners._base import (
    BudgetExhausted,
    Evaluator,
    Tuner,
    TuningResult,
    tuning_result,
)
from svmtune.tuners._billing import RunClock
from svmtune.tuners._box import Box, search_box
from svmtune.tuners.vns import (
    StartOption,
    check_start_option,
    check_vns_options,
    start_point,
    vns_search,
)

__all__ = ["NestedVNS"]

#: Evaluations of a :class:`NestedVNS` run when neither ``max_evals`` nor ``m`` is given.
DEFAULT_NESTED_EVALS = 600


class NestedVNS(Tuner):
    """VNS through a nested sequence of kernel models (Carrizosa et al. 2014, Algorithm 2).

    The kernel model's :meth:`~svmtune.kernels.KernelModel.nested` sequence
    ``K(1) c K(2) c ... c K(H)`` is searched level by level: :class:`~svmtune.tuners.VNS` on
    level ``h`` for ``m[h]`` iterations, starting from level ``h - 1``'s best point embedded in
    level ``h``'s space (:meth:`~svmtune.kernels.KernelModel.embed`, which gives the same Gram
    matrix; ``C``, if the objective has it, is carried over). So the first evaluation of level
    ``h`` re-evaluates the previous level's best in the larger model. Level 1 starts from
    ``start``. Examples of nested sequences: RBF -> anisotropic RBF; one common weight
    (model (5)/(14)) -> one weight per base kernel (model (7)/(13)); one weight and one width
    (Section 3.3.3) -> one weight and one width per group (model (8)).

    A kernel model with a single level (``nested()`` returns just itself, e.g. ``RBF``) is searched
    as plain VNS with ``m[0]`` iterations; ``m`` must then name one budget.

    The result is one run in the final model's space: every evaluation's parameters are embedded
    in it, the trace has a ``level`` column (1, ..., H), the best point is the lowest value over
    all levels (the first one found on ties), and the objective is bound once per level (each
    binding's set-up cost is counted from the start of the trace's cumulative columns).
    ``max_evals`` and ``max_seconds`` bound the whole run.

    Parameters
    ----------
    m : int or sequence of int, optional
        Iterations per level (the paper's ``m_1, ..., m_H``); an int gives every level the same.
        Default: the run's budget (``max_evals``, default 600) split over the levels, a sixth
        to each level but the last, the rest to the last: the paper's (100, 500) for two levels.
    step, k_max : VNS neighbourhoods (see :class:`~svmtune.tuners.VNS`), defaults 1.0 and 25
    start : dict, "center" or "random", optional
        Level 1's first point (in level 1's space), the centre of its box (default) or a random
        point (the paper's choice).
    bounds : mapping name -> (low, high), optional
        The search box of the parameters of these names at every level that has them (e.g.
        ``C``; default :data:`~svmtune.tuners.DEFAULT_BOX`, whose kernel widths are the same
        at every level, so the embedded start of each level stays in its box). Every name must
        occur at some level.
    max_evals, max_seconds : optional budget of the whole run (``m`` splits it over the levels)

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import AnisotropicRBF
    >>> from svmtune.objectives import LOOEstimate
    >>> from svmtune.tuners import NestedVNS
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-1, 1, (30, 2)), rng.normal(1, 1, (30, 2))])
    >>> y = np.repeat([-1.0, 1.0], 30)
    >>> res = NestedVNS(m=(10, 15)).tune(
    ...     LOOEstimate(model="loo2"), X, y, kernel=AnisotropicRBF(n_features=2), random_state=0
    ... )
    >>> res.trace["level"].value_counts().sort_index().tolist()
    [10, 15]
    """

    def __init__(
        self,
        *,
        m: int | Sequence[int] | None = None,
        step: float = 1.0,
        k_max: int = 25,
        start: StartOption = None,
        bounds: Mapping[str, tuple[float, float]] | None = None,
        max_evals: int | None = None,
        max_seconds: float | None = None,
    ) -> None:
        super().__init__(max_evals=max_evals, max_seconds=max_seconds)
        self.m = m
        self.step = step
        self.k_max = k_max
        self.start = start
        self.bounds = bounds

    def budgets(self, n_levels: int) -> list[int]:
        """The iterations of each of ``n_levels`` levels; ValueError if ``m`` does not fit."""
        if self.m is None:
            total = DEFAULT_NESTED_EVALS if self.max_evals is None else int(self.max_evals)
            early = max(1, total // 6)
            return [early] * (n_levels - 1) + [max(1, total - early * (n_levels - 1))]
        if isinstance(self.m, int | np.integer) and not isinstance(self.m, bool):
            return [check_positive_int(self.m, "m")] * n_levels
        if isinstance(self.m, str) or not isinstance(self.m, Sequence):
            raise ValueError(f"m must be a positive integer or a sequence of them; got {self.m!r}")
        ms = [check_positive_int(v, "every m") for v in self.m]
        if len(ms) != n_levels:
            raise ValueError(
                f"m gives {len(ms)} level budgets {list(ms)}, but the kernel model has "
                f"{n_levels} nested level(s); give one budget per level"
            )
        return ms

    def _check_space(self, space: SearchSpace) -> None:
        check_vns_options(self.step, self.k_max)
        if isinstance(self.m, int | np.integer) and not isinstance(self.m, bool):
            check_positive_int(self.m, "m")

    def _check_levels(self, kernel: KernelModel) -> tuple[KernelModel, ...]:
        levels = tuple(kernel.nested())
        if not levels or levels[-1] != kernel:
            raise ValueError(f"{kernel!r}.nested() must end with the model itself")
        self.budgets(len(levels))
        return levels

    def tune_bound(
        self,
        bound: BoundObjective,
        *,
        random_state: int | np.random.Generator | None = None,
        start: Mapping[str, float] | None = None,
        bounds: Mapping[str, tuple[float, float]] | None = None,
    ) -> TuningResult:
        """Tune through the nested levels of ``bound.kernel``; ``start`` is a level-1 point."""
        clock = RunClock.start(bound)
        final_box = self.prepare(bound, bounds=bounds)
        outer = bounds
        levels = self._check_levels(bound.kernel)
        budgets = self.budgets(len(levels))
        rng = np.random.default_rng(random_state)
        final_space = final_box
        t0 = time.perf_counter()

        bound_levels: list[BoundObjective] = []
        for lvl in levels[:-1]:
            bound_levels.append(bound.objective.bind(bound.X, bound.y, kernel=lvl))
        bound_levels.append(bound)
        setup = Cost()
        for b in bound_levels:
            setup = setup + b.setup_cost
        boxes = self._boxes([b.space for b in bound_levels], outer)
        check_start_option(start if start is not None else self.start, boxes[0].space)

        evaluations: list[Evaluation] = []
        level_of: list[int] = []
        stopped_by = "converged"
        first: StartOption = start if start is not None else self.start
        carry: dict[str, float] | None = None  # previous level's best, in this level's space
        for h, (b, m_h) in enumerate(zip(bound_levels, budgets, strict=True)):
            max_evals = None
            if self.max_evals is not None:
                max_evals = int(self.max_evals) - len(evaluations)
            max_seconds = None
            if self.max_seconds is not None:
                max_seconds = float(self.max_seconds) - (time.perf_counter() - t0)
            if (max_evals is not None and max_evals < 1) or (
                max_seconds is not None and max_seconds <= 0
            ):
                out_of_evals = max_evals is not None and max_evals < 1
                stopped_by = "max_evals" if out_of_evals else "max_seconds"
                break
            run = Evaluator(b, max_evals, max_seconds)
            box = boxes[h]
            x = start_point(box, carry if carry is not None else (first if h == 0 else None), rng)
            try:
                vns_search(run, box, x, rng, m=m_h, step=float(self.step), k_max=self.k_max)
            except BudgetExhausted:
                stopped_by = run.stopped_by
            evaluations += [_embedded(ev, b, bound) for ev in run.evaluations]
            level_of += [h + 1] * len(run.evaluations)
            if stopped_by != "converged":
                break
            if h + 1 < len(bound_levels) and any(ev.ok for ev in run.evaluations):
                carry = _embed(run.best().params, b, bound_levels[h + 1])
        return _finish(
            self.name, bound, final_space, evaluations, level_of, setup, stopped_by, clock
        )

    def search_box(
        self, space: SearchSpace, *, bounds: Mapping[str, tuple[float, float]] | None = None
    ) -> SearchSpace:
        """The final level's box (the ``bounds`` naming earlier levels' parameters only apply
        there)."""
        own = {n: v for n, v in (self.bounds or {}).items() if n in space}
        outer = {n: v for n, v in (bounds or {}).items() if n in space}
        return search_box(space, outer, own)

    def _boxes(
        self,
        spaces: list[SearchSpace],
        outer: Mapping[str, tuple[float, float]] | None = None,
    ) -> list[Box]:
        bounds = dict(self.bounds or {})
        unknown = [n for n in bounds if not any(n in s for s in spaces)]
        if unknown:
            names = sorted({n for s in spaces for n in s.names})
            raise ValueError(
                f"bounds name parameters {unknown} in no level; the levels have {names}"
            )
        out = dict(outer or {})
        return [
            Box(
                search_box(
                    s,
                    {n: v for n, v in out.items() if n in s},
                    {n: v for n, v in bounds.items() if n in s},
                )
            )
            for s in spaces
        ]

    def _run_search(
        self,
        evaluate: Evaluator,
        space: SearchSpace,
        rng: np.random.Generator,
        start: dict[str, float] | None,
    ) -> None:  # pragma: no cover - tune_bound drives the levels itself
        raise NotImplementedError


def _embed(
    params: Mapping[str, float], src: BoundObjective, dst: BoundObjective
) -> dict[str, float]:
    """``src``'s parameters in ``dst``'s space: the kernel part embedded, ``C`` carried over."""
    kernel = dst.kernel.embed(src.kernel_params(params), src.kernel)
    out = {n: float(params[n]) for n in dst.space.names if n not in kernel and n in params}
    out.update(kernel)
    return dst.space.check(out)


def _embedded(ev: Evaluation, src: BoundObjective, dst: BoundObjective) -> Evaluation:
    if src is dst:
        return ev
    return Evaluation(_embed(ev.params, src, dst), ev.value, ev.status, ev.cost, ev.info, ev.error)


def _finish(
    name: str,
    bound: BoundObjective,
    space: SearchSpace,
    evaluations: list[Evaluation],
    levels: list[int],
    setup: Cost,
    stopped_by: str,
    clock: RunClock,
) -> TuningResult:
    if not evaluations:
        raise RuntimeError(f"{name} made no evaluation (budget too small?)")
    ok = [e for e in evaluations if e.ok]
    if not ok:
        raise RuntimeError(f"{name}: every evaluation failed; first error: {evaluations[0].error}")
    best = min(ok, key=lambda e: e.value)  # the first one on ties
    return tuning_result(
        bound, space, evaluations, best, stopped_by, setup=setup, levels=levels, clock=clock
    )
