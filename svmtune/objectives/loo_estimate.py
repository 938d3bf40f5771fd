"""Fischetti's fast leave-one-out estimates (LOO_1, LOO_2, LOO_3) and the NAIVE counter-example.

Fischetti, M. (2016). Fast training of Support Vector Machines with Gaussian kernel. Discrete
Optimization 22, 183-194. Sections 3-4.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from svmtune._memory import DEFAULT_MEMORY_BUDGET, block_rows
from svmtune._options import Integer
from svmtune.classifier import KernelExpansion
from svmtune.kernels import PreparedKernel
from svmtune.objectives._base import BoundObjective, Objective, Outcome
from svmtune.objectives._threshold import best_threshold, best_thresholds

__all__ = ["LOOEstimate"]

_MODELS = ("loo1", "loo2", "loo3", "naive")
_DEFAULT_ALPHA_GRID = tuple(i / 10 for i in range(11))


SIGNAL_ROUNDOFF = 64.0
"""The round-off of point ``j``'s net signal ``a+ nu+_j - a- nu-_j`` is taken as
``SIGNAL_ROUNDOFF n eps (a+ |nu+_j| + a- |nu-_j|)`` (sums of ``n`` kernel values in some
order). Two signals closer than the larger of their round-offs are equal (duplicated rows with
both labels have equal signals in exact arithmetic, and a threshold between them would count
both right); for LOO_1, a signal within its round-off of zero is zero (wrong)."""


def signal_resolution(
    nu_pos: NDArray[np.float64],
    nu_neg: NDArray[np.float64],
    a_pos: float | NDArray[np.float64],
    a_neg: float | NDArray[np.float64],
) -> NDArray[np.float64]:
    """The round-off of each net signal (:data:`SIGNAL_ROUNDOFF`); broadcasts over ``a``."""
    n = nu_pos.shape[0]
    eps = float(np.finfo(np.float64).eps)
    return SIGNAL_ROUNDOFF * n * eps * (a_pos * np.abs(nu_pos) + a_neg * np.abs(nu_neg))


class LOOEstimate(Objective):
    """Fischetti's leave-one-out estimate of the misclassification rate (no C, no QP).

    With the *net signal* ``nu_j = sum_{i != j} alpha_i y_i k(x_j, x_i)``, point ``j`` counts as
    right iff ``y_j (nu_j + beta0) > 0``; signals within round-off of each other (or of zero)
    are equal (:data:`SIGNAL_ROUNDOFF`), so duplicated rows with both labels are never split.
    The value is the fraction of training points counted wrong at the model's optimal
    ``alpha`` and ``beta0``:

    - ``"loo1"``: all ``alpha_i = 1``, ``beta0 = 0``: the exact leave-one-out error of that rule;
    - ``"loo2"``: all ``alpha_i = 1``, best ``beta0`` (Algorithm 1, scan order corrected);
    - ``"loo3"``: ``alpha_i = alpha+`` on class +1 and ``alpha- = 1 - alpha+`` on class -1,
      ``alpha+`` on a grid (11 values by default), best ``beta0`` for each;
    - ``"naive"``: as ``"loo2"`` but with the *total* signal (the diagonal included), the paper's
      Fig. 3 counter-example, which rewards an impulsive kernel (very large gamma).

    One kernel pass per evaluation gives the per-class net signals ``nu+`` and ``nu-``; LOO_3
    combines them as ``alpha+ nu+ - alpha- nu-`` for every grid value, so it costs about what
    LOO_2 costs. For Gaussian kernels (:class:`~svmtune.kernels.RBF`,
    :class:`~svmtune.kernels.AnisotropicRBF`) the pass is one fused loop over upper-triangle
    tiles of the points (products, exp and sums in compiled code on all of numba's threads,
    ``n (n - 1) / 2`` exps, ``O(n)`` memory; ``memory_budget`` is then not used). For other
    kernels the signals are accumulated row block by row block; the parameter-independent
    kernel statistics are kept between evaluations while they fit ``memory_budget`` bytes and
    beyond that recomputed block by block at each evaluation, never holding more than the budget.

    Parameters
    ----------
    model : {"loo1", "loo2", "loo3", "naive"}
    alpha_grid : sequence of float, default (0, 0.1, ..., 1)
        Values of ``alpha+`` tried by LOO_3 (each in [0, 1]). Containing 0.5 makes LOO_3 never
        worse than LOO_2 (0.5/0.5 is LOO_2 scaled).
    memory_budget : int, default 256 MiB (:data:`~svmtune._memory.DEFAULT_MEMORY_BUDGET`)
        Bytes of kernel statistics and kernel blocks held at once (kernels without a fused
        net-signal loop).

    Examples
    --------
    LOO_2 on the training part of a split of the bundled heart data:

    >>> from svmtune.datasets import ratsch_split
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import LOOEstimate
    >>> X, y, _, _ = ratsch_split("heart", seed=1)
    >>> ev = LOOEstimate(model="loo2").evaluate(X, y, kernel=RBF(), params={"gamma": 0.05})
    >>> 0.0 <= ev.value < 0.3
    True
    """

    min_per_class: ClassVar[int] = 2
    yields_svm: ClassVar[bool] = False

    def __init__(
        self,
        *,
        model: str = "loo2",
        alpha_grid: Sequence[float] = _DEFAULT_ALPHA_GRID,
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
    ) -> None:
        self.model = model
        self.alpha_grid = alpha_grid
        self.memory_budget = memory_budget

    @property
    def name(self) -> str:
        return f"LOOEstimate[{self.model}]"

    _option_constraints = {"memory_budget": Integer(low=2**16)}

    def _check_options(self) -> None:
        if self.model not in _MODELS:
            hint = ""
            if isinstance(self.model, str) and self.model.lower() in _MODELS:
                hint = f" (did you mean {self.model.lower()!r}? model names are lower case)"
            raise ValueError(
                f"unknown LOO model {self.model!r}; choose one of {list(_MODELS)}{hint}"
            )
        self._alpha_grid()
        super()._check_options()  # memory_budget

    def _alpha_grid(self) -> NDArray[np.float64]:
        ag = self.alpha_grid
        bad = ValueError(
            f"alpha_grid must be a non-empty sequence (list, tuple or array) of values in [0, 1]; "
            f"got {ag!r}"
        )
        if isinstance(ag, str | bytes) or not isinstance(ag, Sequence | np.ndarray):
            raise bad  # a generator would be used up by the first evaluation
        try:
            grid = np.asarray(ag, dtype=np.float64).ravel()
        except (TypeError, ValueError) as exc:
            raise bad from exc
        if self.model == "loo3" and (
            grid.size == 0 or not np.all(np.isfinite(grid)) or grid.min() < 0 or grid.max() > 1
        ):
            raise bad
        return grid

    def _bound_class(self) -> type[_BoundLOO]:
        return _BoundLOO


class _BoundLOO(BoundObjective):
    objective: LOOEstimate

    def _setup(self) -> None:
        objective, kernel, X, y = self.objective, self.kernel, self.X, self.y
        self.model = objective.model
        self.alpha_grid = objective._alpha_grid()
        n = self.n_samples
        self.W = np.column_stack([(y > 0), (y < 0)]).astype(np.float64)
        # (alpha+, alpha-, beta0) of the last evaluations, so the classifier costs no new pass
        self._solutions: dict[tuple[tuple[str, float], ...], tuple[float, float, float]] = {}
        self.fused = kernel.fused_net_sums
        self.prepared: list[PreparedKernel] | None = None
        if self.fused:  # one tiled pass over the points: nothing prepared, O(n) memory
            self.blocks = [slice(0, n)]
            return
        # Row blocks: the arrays of a kernel block of rows x n float64 (the block's statistics,
        # its kernel values, the kernel's other arrays: KernelModel.block_arrays) take at most
        # half the budget, the statistics kept between evaluations the other half.
        budget = int(objective.memory_budget)
        rows = min(n, block_rows(n, budget // 2, arrays=kernel.block_arrays()))
        self.blocks = [slice(s, min(s + rows, n)) for s in range(0, n, rows)]
        # Keep the prepared statistics of every block if they fit in half the budget; a single
        # block is prepared as the symmetric X-vs-X case (kernels may then use the symmetry).
        if len(self.blocks) == 1:
            first = kernel.prepare(X)
        else:
            first = kernel.prepare(X[self.blocks[0]], X)
        if first.nbytes * len(self.blocks) <= budget // 2:
            self.prepared = [first] + [kernel.prepare(X[b], X) for b in self.blocks[1:]]

    def _block(self, k: int) -> PreparedKernel:
        if self.prepared is not None:
            return self.prepared[k]
        return self.kernel.prepare(self.X[self.blocks[k]], self.X)

    def class_signals(
        self, kernel_params: Mapping[str, float]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], int]:
        """Net signals from each class, ``nu+_j = sum_{i != j, y_i = +1} k(x_j, x_i)`` and
        ``nu-_j`` likewise (for the naive model the diagonal is included), and the kernel
        evaluations that cost."""
        if self.fused:
            S, evals = self.kernel.net_sums(kernel_params, self.X, self.W)
        else:
            S = np.empty((self.n_samples, 2))
            evals = 0
            for k, b in enumerate(self.blocks):
                S[b], e = self._block(k).weighted_sums(kernel_params, self.W, skip=b.start)
                evals += e
        if self.model == "naive":
            S += self.kernel.diag(kernel_params, self.X)[:, None] * self.W
            evals += self.n_samples
        if not np.isfinite(S).all():
            j = int(np.flatnonzero(~np.isfinite(S).all(axis=1))[0])
            raise ValueError(
                f"Gram matrix of {self.kernel!r} at {dict(kernel_params)} contains a non-finite "
                f"value (NaN or inf) in row {j}: the net signals are not finite"
            )
        return S[:, 0], S[:, 1], evals

    def _solve(self, kp: Mapping[str, float]) -> tuple[float, float, float, int, int]:
        """(alpha+, alpha-, beta0, n_correct, kernel evaluations) of the model at ``kp``."""
        nu_pos, nu_neg, evals = self.class_signals(kp)
        y = self.y
        if self.model == "loo1":
            nu = nu_pos - nu_neg
            r = signal_resolution(nu_pos, nu_neg, 1.0, 1.0)
            return 1.0, 1.0, 0.0, int(np.count_nonzero(y * nu > r)), evals
        if self.model in ("loo2", "naive"):
            r = signal_resolution(nu_pos, nu_neg, 1.0, 1.0)
            res = best_threshold(nu_pos - nu_neg, y, resolution=r)
            return 1.0, 1.0, res.beta0, res.n_correct, evals
        a = self.alpha_grid[:, None]
        beta0s, counts = best_thresholds(
            a * nu_pos - (1.0 - a) * nu_neg,
            y,
            resolution=signal_resolution(nu_pos, nu_neg, a, 1.0 - a),
        )
        g = int(np.argmax(counts))  # first best on ties
        return float(a[g, 0]), 1.0 - float(a[g, 0]), float(beta0s[g]), int(counts[g]), evals

    def _evaluate(self, params: dict[str, float]) -> Outcome:
        kp = self.kernel_params(params)
        a_plus, a_minus, beta0, n_correct, evals = self._solve(kp)
        if len(self._solutions) > 1024:
            self._solutions.clear()
        self._solutions[tuple(sorted(kp.items()))] = (a_plus, a_minus, beta0)
        n = self.n_samples
        return Outcome(
            value=(n - n_correct) / n,
            kernel_evals=evals,
            info={"alpha_plus": a_plus, "alpha_minus": a_minus, "beta0": beta0},
        )

    def classifier(self, params: Mapping[str, float]) -> KernelExpansion:
        kp = self.kernel_params(self.space.check(params))
        key = tuple(sorted(kp.items()))
        if key in self._solutions:
            a_plus, a_minus, beta0 = self._solutions[key]
        else:
            a_plus, a_minus, beta0, _, _ = self._solve(kp)
        coef = np.where(self.y > 0, a_plus, -a_minus)
        keep = coef != 0.0
        if not keep.any():  # cannot happen for alpha+ + alpha- = 1, kept for safety
            keep[:] = True
        return KernelExpansion(
            kernel=self.kernel, params=kp, vectors=self.X[keep], coef=coef[keep], intercept=beta0
        )
