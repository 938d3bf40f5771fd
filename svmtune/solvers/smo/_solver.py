"""Sequential minimal optimisation (SMO) for the SVM dual: the Python driver.

The dual of the L1 soft-margin SVM (Palagi's slides, problem (3))::

    min_a  1/2 a'Qa - e'a   s.t.  y'a = 0,  0 <= a <= C,   Q_ij = y_i y_j k(x_i, x_j)

is solved two variables at a time. The compiled loop (``_smo_loop.py``) picks the
pair either as the maximal violating pair or by LIBSVM's second-order rule (the default), updates
it analytically and the gradient ``G = Qa - e`` incrementally, and stops when the KKT gap
``max_{I_up} -y G - min_{I_low} -y G`` is below ``tol``.

This module holds the solver's options and the set-up of a solve: where kernel values come from
(the full Gram matrix while it fits a memory budget, else kernel rows computed on demand and
kept in an LRU cache, :class:`~svmtune.solvers.smo._kernel_rows.KernelRows`), the warm start
(:mod:`svmtune.solvers.smo._warm_start`), solving on a subset of the points (``active``). A solve in
progress is an :class:`~svmtune.solvers.smo._run.SMORun` (step it by hand, read its gradient;
it warns when ``max_iter`` is reached), and its outcome an
:class:`~svmtune.solvers.smo._result.SMOResult`; both are importable from here too.

A later solver (exact leave-one-out, Franc et al.) reuses it: it retrains with one point removed
by passing ``active`` (all indices but one) and a seeded ``alpha0`` over the same Gram matrix,
steps the solve with :meth:`SMORun.run` or a ``callback``, and reads ``alpha`` and the gradient
(the gradient covers every point, so ``y_r (G_r + 1) + b`` is the decision value at a left-out
point ``r``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from svmtune._lazy import lazy_module
from svmtune._validation import check_labels, check_positive, check_X
from svmtune.kernels import KernelModel
from svmtune.solvers.smo._kernel_rows import (
    DEFAULT_MEMORY_BUDGET,
    FullGram,
    KernelRows,
    RowStore,
    as_f8_2d,
    check_gram,
)
from svmtune.solvers.smo._result import SMOResult, decision_from_gradient, default_max_iter
from svmtune.solvers.smo._row_budget import gram_bytes
from svmtune.solvers.smo._run import SMORun
from svmtune.solvers.smo._warm_start import check_warm_start, feasible_start

if TYPE_CHECKING:
    from svmtune.solvers.smo import _rbf_gram
else:  # compiled code: loaded on first use (svmtune._lazy)
    _rbf_gram = lazy_module("svmtune.solvers.smo._rbf_gram")


__all__ = [
    "DEFAULT_MEMORY_BUDGET",
    "SMO",
    "FullGram",
    "KernelRows",
    "SMOResult",
    "SMORun",
    "check_gram",
    "decision_from_gradient",
    "default_max_iter",
    "feasible_start",
    "gram_bytes",
]

Selection = Literal["second_order", "max_violating_pair"]
_SELECTIONS = ("second_order", "max_violating_pair")


def rbf_gram(X: NDArray[np.float64], gamma: float) -> NDArray[np.float64]:
    """The RBF Gram matrix ``exp(-gamma |x_i - x_j|^2)`` of the rows of ``X``, built fused from
    ``X X'`` in compiled code (positive semidefinite by construction, so never checked).

    Examples
    --------
    >>> import numpy as np
    >>> K = rbf_gram(np.array([[0.0], [1.0]]), 1.0)
    >>> bool(np.allclose(K, [[1.0, np.exp(-1.0)], [np.exp(-1.0), 1.0]]))
    True
    """
    return _rbf_gram.rbf_gram(np.ascontiguousarray(X, dtype=np.float64), float(gamma))


def _rows_beat_gram(
    kernel: KernelModel | None, params: Mapping[str, float], n: int, d: int
) -> bool:
    """Whether kernel rows computed on demand in the compiled loop are the faster source.

    Only the rows of kernels with an inner-product form (RBF, linear) are computed there. The
    full Gram matrix costs ``n^2`` entries in one cache-blocked BLAS product; rows cost only the
    entries the solve touches (10-70% of ``n^2`` at 500-5,000 points) through matrix-vector
    products. Measured with one BLAS thread
    (benchmarks/smo.py, banana, ringnorm, twonorm, pima, german, splice at 500-5,000 points):
    rows are faster beyond about 500 points while ``d <= 64`` (1.3-5x at 700-5,000 points, up
    to 20% slower on pima and german, where most points are support vectors); for long points
    (splice, ``d = 240``) the blocked product stays 2-3x faster.
    """
    if n <= 500 or d > 64 or not isinstance(kernel, KernelModel):
        return False
    return kernel.inner_product_form(params) is not None


class SMO:
    """SMO solver for the SVM dual ``min 1/2 a'Qa - e'a, y'a = 0, 0 <= a <= C``.

    Parameters
    ----------
    tol : float, default 1e-3
        Stop when the KKT gap ``max_{I_up} -y G - min_{I_low} -y G`` is below ``tol``
        (LIBSVM's ``eps``).
    selection : {"second_order", "max_violating_pair"}
        Working-set selection: LIBSVM's second-order rule (Fan, Chen, Lin 2005; the default) or
        the maximal violating pair (Palagi's slides).
    max_iter : int, optional
        Iteration limit; default :func:`default_max_iter` ``(n) = max(10**7, 1000 n)``.
        Reaching it warns (:class:`~sklearn.exceptions.ConvergenceWarning`, saying what to
        change: a larger ``tol``, a smaller ``C``, scaled features).
    memory_budget : int, default :data:`~svmtune._memory.DEFAULT_MEMORY_BUDGET` (256 MiB)
        Bytes of kernel values a solve holds when SMO builds them from a kernel: the full Gram
        matrix while it fits (:func:`gram_bytes`), else a cache of kernel rows (three quarters
        of the budget), the copies of rows the passes read and the blocks of rows read at once
        (``memory_budget`` counts them all). A Gram matrix given as ``gram`` is the caller's:
        then only the blocks read beside it count. RBF and linear kernels
        on more than 500 points of at most 64 features use rows on demand (computed inside the
        compiled loop) even when the Gram matrix fits: a solve touches only part of it.
    check_kernel : bool, default True
        Check the Gram matrix (or each kernel row) for NaN/inf, asymmetry and 2x2 principal minors
        that rule out positive semidefiniteness (see :func:`check_gram`), and raise ValueError.
    shrinking : bool, default True
        LIBSVM's shrinking heuristic: every ``min(n, 1000)`` iterations, variables at a bound
        that cannot join a violating pair are set aside (neither selected nor updated; with
        cached kernel rows, rows are then computed on the remaining variables only). Everything
        is reactivated once the gap comes within ``10 tol``, and convergence is always checked
        on all variables with the gradient recomputed, so the result meets the same eps-KKT
        stop as without shrinking.

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import RBF
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> y = np.array([-1.0, -1.0, 1.0, 1.0])
    >>> res = SMO().solve(y, C=10.0, kernel=RBF(), params={"gamma": 0.5}, X=X)
    >>> res.converged, res.support.tolist()
    (True, [0, 1, 2, 3])
    >>> np.sign(decision_from_gradient(res.gradient, y, res.b)).tolist()
    [-1.0, -1.0, 1.0, 1.0]
    """

    def __init__(
        self,
        *,
        tol: float = 1e-3,
        selection: Selection = "second_order",
        max_iter: int | None = None,
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
        check_kernel: bool = True,
        shrinking: bool = True,
    ) -> None:
        self.tol = tol
        self.selection = selection
        self.max_iter = max_iter
        self.memory_budget = memory_budget
        self.check_kernel = check_kernel
        self.shrinking = shrinking

    def _check_options(self) -> None:
        check_positive(self.tol, name="tol")
        if self.selection not in _SELECTIONS:
            raise ValueError(f"selection must be one of {_SELECTIONS}; got {self.selection!r}")
        if self.max_iter is not None and (
            not isinstance(self.max_iter, int | np.integer) or self.max_iter < 1
        ):
            raise ValueError(f"max_iter must be a positive integer or None; got {self.max_iter!r}")
        if not isinstance(self.memory_budget, int | np.integer) or self.memory_budget < 1:
            raise ValueError(
                f"memory_budget must be a positive number of bytes; got {self.memory_budget!r}"
            )
        if not isinstance(self.shrinking, bool | np.bool_):
            raise ValueError(f"shrinking must be True or False; got {self.shrinking!r}")

    def _store(
        self,
        n: int,
        gram: ArrayLike | FullGram | KernelRows | None,
        kernel: KernelModel | None,
        params: Mapping[str, float] | None,
        X: ArrayLike | None,
    ) -> tuple[RowStore, int]:
        if gram is not None:
            if kernel is not None or params is not None or X is not None:
                raise ValueError("give either gram or (kernel, params, X), not both")
            if isinstance(gram, KernelRows | FullGram):
                if gram.n != n:
                    raise ValueError(
                        f"the kernel store is for {gram.n} points but y has {n} labels"
                    )
                return gram, 0
            K = as_f8_2d(gram)
            if K.shape != (n, n):
                raise ValueError(f"gram must have shape ({n}, {n}) to match y; got {K.shape}")
            return FullGram(K, check=self.check_kernel), 0
        if kernel is None or params is None or X is None:
            raise ValueError("give gram, or all of kernel, params and X")
        Xc = check_X(X)
        if Xc.shape[0] != n:
            raise ValueError(f"X has {Xc.shape[0]} rows but y has {n} labels")
        if not isinstance(kernel, KernelModel):
            raise ValueError(f"kernel must be a svmtune KernelModel; got {kernel!r}")
        budget = int(self.memory_budget)
        if gram_bytes(kernel, params, n) <= budget and not _rows_beat_gram(
            kernel, params, n, Xc.shape[1]
        ):
            form = kernel.inner_product_form(params)
            if form is not None and form.kind == "rbf":
                # fused; exactly symmetric, unit diagonal, PSD: nothing to check
                K = _rbf_gram.rbf_gram(Xc, form.gamma)
                return FullGram(K, check=False, memory_budget=budget), n * n
            K = as_f8_2d(kernel.prepare(Xc).gram(params))
            if self.check_kernel:
                check_gram(K, name=f"Gram matrix of {kernel!r}")
            return FullGram(K, check=False, memory_budget=budget), n * n
        rows = KernelRows(kernel, params, Xc, memory_budget=budget, check=self.check_kernel)
        return rows, rows.kernel_evals

    def start(
        self,
        y: ArrayLike,
        *,
        C: float | ArrayLike,
        gram: ArrayLike | FullGram | KernelRows | None = None,
        kernel: KernelModel | None = None,
        params: Mapping[str, float] | None = None,
        X: ArrayLike | None = None,
        alpha0: ArrayLike | None = None,
        active: ArrayLike | None = None,
    ) -> SMORun:
        """Set a solve up without iterating (see :meth:`solve` for the arguments)."""
        self._check_options()
        yy = np.ascontiguousarray(check_labels(y))
        n = yy.shape[0]
        Cv = self._check_C(C, n)
        if active is None:
            act = np.arange(n, dtype=np.int64)
        else:
            act = np.unique(np.asarray(active, dtype=np.int64).ravel())
            if act.size and (act[0] < 0 or act[-1] >= n):
                raise ValueError(f"active indices must lie in [0, {n}); got {act[0]}..{act[-1]}")
            if np.unique(yy[act]).size < 2:
                raise ValueError(
                    f"the active set ({act.size} points) must hold both classes -1 and +1"
                )
        store, evals = self._store(n, gram, kernel, params, X)
        alpha = check_warm_start(alpha0, yy, Cv, act)
        G = np.full(n, -1.0)
        Gbar = np.zeros(n)
        sv = np.flatnonzero(alpha > 0.0).astype(np.int64)
        at_c = alpha >= Cv
        if sv.size:
            # G and Gbar together (each row read once): one pass over a full Gram matrix when
            # many rows are needed, else the rows of the support vectors in blocks within the
            # memory budget (KernelRows.row_products)
            W = np.stack([alpha * yy, np.where(at_c, Cv * yy, 0.0)], axis=1)
            before = store.kernel_evals
            if isinstance(store, FullGram) and 8 * sv.size > n:
                KW = (store.rows @ W).T
            else:
                KW = store.row_products(sv, W[sv])
            G += yy * KW[0]
            Gbar = yy * KW[1]
            evals += store.kernel_evals - before
        max_iter = self.max_iter if self.max_iter is not None else default_max_iter(n)
        return SMORun(
            store,
            yy,
            Cv,
            alpha,
            np.ascontiguousarray(G),
            act,
            tol=float(self.tol),
            second_order=self.selection == "second_order",
            max_iter=int(max_iter),
            kernel_evals=evals,
            shrinking=bool(self.shrinking),
            gbar=np.ascontiguousarray(Gbar),
        )

    def solve(
        self,
        y: ArrayLike,
        *,
        C: float | ArrayLike,
        gram: ArrayLike | FullGram | KernelRows | None = None,
        kernel: KernelModel | None = None,
        params: Mapping[str, float] | None = None,
        X: ArrayLike | None = None,
        alpha0: ArrayLike | None = None,
        active: ArrayLike | None = None,
        callback: Callable[[SMORun], bool | None] | None = None,
        callback_every: int = 1,
    ) -> SMOResult:
        """Solve the dual.

        Parameters
        ----------
        y : array of shape (n,)
            Labels in {-1, +1}.
        C : float or array of shape (n,)
            Upper bound of every ``alpha_i`` (or one per point).
        gram : array of shape (n, n), FullGram or KernelRows, optional
            The kernel matrix (no kernel evaluations are counted for it), the same wrapped once
            for many solves (:class:`~svmtune.solvers.smo._kernel_rows.FullGram`), or a row cache.
        kernel, params, X : optional
            Instead of ``gram``: the kernel model, its parameters and the points. The full Gram
            matrix is built while it fits ``memory_budget`` (:func:`gram_bytes`), else rows are
            computed on demand;
            RBF and linear kernels use rows on demand from 500 points of at most 64 features.
        alpha0 : array of shape (n,), optional
            Warm start: must be feasible (``0 <= alpha0 <= C``, ``y'alpha0 = 0``, zero off
            ``active``); :func:`feasible_start` makes one from any guess. Default: zeros.
        active : array of int, optional
            Optimise only these variables; the others stay at zero (solving without some points
            on the same Gram matrix). The gradient is still kept for every point.
        callback : callable, optional
            ``callback(run)`` is called every ``callback_every`` iterations with the
            :class:`SMORun`; returning True stops the solve (then ``converged`` is False unless
            the gap is already below ``tol``).
        callback_every : int, default 1

        Returns
        -------
        SMOResult
        """
        run = self.start(
            y, C=C, gram=gram, kernel=kernel, params=params, X=X, alpha0=alpha0, active=active
        )
        if callback is None:
            run.run()
        else:
            if not isinstance(callback_every, int | np.integer) or callback_every < 1:
                raise ValueError(
                    f"callback_every must be a positive integer; got {callback_every!r}"
                )
            while not run.run(int(callback_every)) and run.iterations < run.max_iter:
                if callback(run):
                    break
        return run.result()

    @staticmethod
    def _check_C(C: float | ArrayLike, n: int) -> NDArray[np.float64]:
        if np.ndim(C) == 0:
            return np.full(n, check_positive(C, name="C"))
        Cv = np.array(C, dtype=np.float64).ravel()
        if Cv.shape != (n,):
            raise ValueError(f"C must be a number or an array of {n} bounds; got shape {Cv.shape}")
        bad = ~np.isfinite(Cv) | (Cv <= 0)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"C must be positive and finite; C[{i}] = {float(Cv[i])!r}")
        return Cv
