"""Variable neighbourhood search (Carrizosa, Martin-Barragan and Romero Morales 2014, Alg. 1)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numpy.typing import NDArray

from svmtune._validation import check_positive_int
from svmtune._warnings import deprecated_budget
from svmtune.objectives import Evaluation
from svmtune.space import SearchSpace
from svmtune.tuners._base import Evaluator, Tuner
from svmtune.tuners._box import Box

__all__ = ["VNS"]

#: Evaluations of a :class:`VNS` run when ``max_evals`` is not given.
DEFAULT_VNS_EVALS = 100


StartOption = Mapping[str, float] | str | None


def check_vns_options(step: object, k_max: object) -> None:
    if isinstance(step, bool) or not isinstance(step, int | float) or not step > 0:
        raise ValueError(f"step must be a positive number; got {step!r}")
    if not np.isfinite(float(step)):
        raise ValueError(f"step must be finite; got {step!r}")
    check_positive_int(k_max, "k_max")


def start_point(
    box: Box, start: StartOption, rng: np.random.Generator, *, what: str = "start"
) -> NDArray[np.float64]:
    """The starting coordinates: the box centre (None or ``"center"``), a uniform draw
    (``"random"``), or a given point, which must lie in the box."""
    if start is None or (isinstance(start, str) and start == "center"):
        return box.center()
    if isinstance(start, str):
        if start == "random":
            return box.uniform(rng)
        raise ValueError(f"{what} must be a parameter dict, 'center' or 'random'; got {start!r}")
    if not isinstance(start, Mapping):
        raise ValueError(f"{what} must be a parameter dict, 'center' or 'random'; got {start!r}")
    checked = box.space.check(start) if set(start) == set(box.space.names) else None
    if checked is None:
        raise ValueError(
            f"{what} {dict(start)!r} does not name the parameters {list(box.space.names)}"
        )
    return box.coords(checked)


def check_start_option(start: StartOption, space: SearchSpace, what: str = "start") -> None:
    """ValueError for a start option that is not None/'center'/'random' or a point in ``space``."""
    if start is None or (isinstance(start, str) and start in ("center", "random")):
        return
    if not isinstance(start, Mapping):
        raise ValueError(f"{what} must be a parameter dict, 'center' or 'random'; got {start!r}")
    try:
        space.check(start)
    except ValueError as exc:
        raise ValueError(f"{what} point is not in the search box: {exc}") from None


def vns_search(
    evaluate: Evaluator,
    box: Box,
    x: NDArray[np.float64],
    rng: np.random.Generator,
    *,
    m: int,
    step: float,
    k_max: int,
) -> Evaluation:
    """Algorithm 1 from ``x``; returns the incumbent. ``m`` counts iterations, the evaluation of
    the start point included (a point met before costs an iteration but no evaluation)."""
    incumbent = evaluate([box.params(x)])[0]
    x = box.coords(incumbent.params)
    k = 1
    for _ in range(m - 1):
        y = box.shake(x, k * step, rng)
        ev = evaluate([box.params(y)])[0]
        if ev.score < incumbent.score:  # move and reset the neighbourhood
            incumbent, x, k = ev, box.coords(ev.params), 1
        else:  # next neighbourhood; after N_{k_max}, start again at N_1
            k = k + 1 if k < k_max else 1
    return incumbent


class VNS(Tuner):
    """Basic variable neighbourhood search (Carrizosa et al. 2014, Algorithm 1).

    The search runs in search coordinates: ``log2`` of each log-scaled parameter (the value
    itself for a linear one). Neighbourhood ``N_k`` of the incumbent is the infinity-norm ball of
    radius ``r_k = k * step``, intersected with the search box; shaking draws a point uniformly in
    it. A strictly better point becomes the incumbent and the search returns to ``N_1``;
    otherwise it moves to ``N_{k+1}``, and after ``N_{k_max}`` back to ``N_1`` (the paper's
    Step 2). The search stops after ``max_evals`` distinct evaluations, the start point's
    included, or when ``max_seconds`` runs out.

    With ``step=0.5``, ``max_evals=54``, ``bounds={"C": (2**-8, 2**2), "gamma": (2**-8, 2**8)}`` and
    ``start={"C": 2**-3, "gamma": 1.0}`` this is the paper's RBF experiment (Section 3.2; its
    ``sigma`` is ``1 / gamma``).

    Parameters
    ----------
    max_evals : int, default 100
        Distinct evaluations, the start point's included.
    step : float, default 1.0
        Radius increment of the neighbourhoods, in search coordinates (``1.0``: a factor 2).
    k_max : int, default 25
        Number of neighbourhoods.
    start : dict, "center" or "random", optional
        The first point (natural units, inside the box), the centre of the box (default: the
        geometric centre for log-scaled parameters) or a uniform random point. A ``start``
        passed to :meth:`~svmtune.tuners.Tuner.tune_bound` overrides it.
    bounds : mapping name -> (low, high), optional
        The search box of some parameters (inside the search space's bounds; default
        :data:`~svmtune.tuners.DEFAULT_BOX`).
    max_seconds : float, optional
        Stop starting new evaluations after this many wall-clock seconds.
    m : int, optional
        Deprecated alias of ``max_evals`` (removed in the next release).

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import LOOEstimate
    >>> from svmtune.tuners import VNS
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-1, 1, (30, 2)), rng.normal(1, 1, (30, 2))])
    >>> y = np.repeat([-1.0, 1.0], 30)
    >>> res = VNS(max_evals=20).tune(LOOEstimate(model="loo2"), X, y, kernel=RBF(), random_state=0)
    >>> len(res.trace)
    20
    """

    def __init__(
        self,
        *,
        max_evals: int | None = None,
        step: float = 1.0,
        k_max: int = 25,
        start: StartOption = None,
        bounds: Mapping[str, tuple[float, float]] | None = None,
        max_seconds: float | None = None,
        m: int | None = None,
    ) -> None:
        super().__init__(max_evals=max_evals, max_seconds=max_seconds)
        self.m = m
        self.step = step
        self.k_max = k_max
        self.start = start
        self.bounds = bounds

    def _budget(self) -> int:
        return deprecated_budget(self, "m", DEFAULT_VNS_EVALS)

    def _check_space(self, space: SearchSpace) -> None:
        if self.m is not None:
            check_positive_int(self.m, "m")
        check_vns_options(self.step, self.k_max)
        check_start_option(self.start, space)

    def _run_search(
        self,
        evaluate: Evaluator,
        space: SearchSpace,
        rng: np.random.Generator,
        start: dict[str, float] | None,
    ) -> None:
        box = Box(space)
        if start is not None:
            check_start_option(start, box.space)
        x = start_point(box, start if start is not None else self.start, rng)
        budget = evaluate.max_evals if evaluate.max_evals is not None else DEFAULT_VNS_EVALS
        # the run ends when the budget of distinct evaluations is spent (a point met again
        # costs an iteration, not an evaluation); the iteration cap only guards a search that
        # keeps meeting old points
        cap = 100 * budget + 1
        vns_search(evaluate, box, x, rng, m=cap, step=float(self.step), k_max=self.k_max)
