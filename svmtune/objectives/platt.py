"""Platt's empirical error (Ayat, Cheriet, Suen; Adankon, Cheriet, Ayat) and its gradients.

Train the soft-margin SVM on the training part, fit Platt's sigmoid
``p = 1 / (1 + exp(A f + B))`` to the decision values ``f`` of the validation part (Lin, Lin
and Weng's Newton method, :func:`~svmtune.solvers.sigmoid.fit_sigmoid`), and return the mean
empirical error ``E = mean_i |t_i - p_i|`` with ``t_i = (y_i + 1) / 2`` (Adankon et al.,
eq. 2-4). Unlike the other objectives it has a gradient, so it can tune many kernel parameters
at once (one width per feature, one weight per kernel).

Gradients (in the search space's coordinates: ``d E / d log theta`` for a log-scaled parameter)
------------------------------------------------------------------------------------------
With ``z_i = A f_i + B``, ``dE/dz_i = y_i p_i (1 - p_i) / N``, so ``dE/df_i = A dE/dz_i``
(their eq. 5), and ``f_i = sum_j beta_j K_ij + b`` with ``beta_j = alpha_j y_j``.

``gradient="full"``
    ``df/dtheta = dK/dtheta beta + K dbeta/dtheta + db/dtheta`` (eq. 6). ``dbeta``, ``db``
    come from differentiating the KKT conditions of the free support vectors ``F``
    (``f(x_i) = y_i``), with the bounded ones ``B`` held at ``C`` (Chapelle et al.'s eq. 7-8,
    written in ``beta``)::

        [K_FF 1] [dbeta_F]   [-(dK beta)_F - K_FB dbeta_B]
        [1'   0] [db     ] = [-1' dbeta_B                ]

    solved by a symmetric-indefinite factorisation (``scipy.linalg.solve(assume_a="sym")``),
    never an inverse; ``dbeta_B = 0`` for a kernel parameter and ``y_B C`` for ``log C``. The
    sigmoid's ``(A, B)`` depend on ``theta`` too (they minimise the cross-entropy of the
    decision values): their derivative comes from the implicit-function theorem on the 2 x 2
    Newton system, so the full gradient is the derivative of ``E`` itself (checked against
    finite differences in the tests, with the active set fixed).
``gradient="approx"``
    Eq. 9: ``df/dtheta = dK/dtheta beta``, with ``alpha``, ``b``, ``A`` and ``B`` held fixed:
    no linear system. It has no term in ``C`` (``C`` acts only through ``alpha``), so asking
    for it while ``C`` is searched raises ValueError: fix ``C`` (``PlattError(C=10.0)``) or use
    the full gradient.

Warm starts and one value per setting
-------------------------------------
Every solve starts from ``alpha = 0`` by default, so a setting's value does not depend on what
was evaluated before. ``warm_start=True`` starts from the previous setting's ``alpha``: SMO
then stops at another ``tol``-optimal solution (on a near-singular kernel the dual is flat:
solutions whose dual objectives agree to round-off put the decisions apart), and the value
moves with it. Neither the bias rule nor the sigmoid fit is at fault (the fit is invariant to
an affine change of the decisions, ``b`` included): ``E`` sees the validation decisions only
relative to their own spread, and where that spread is little more than the solver's accuracy
no tolerance short of an exact solve makes two starts agree. On ten 1-d points at ``C = 1``,
``gamma = 0.01`` (decisions spread over about ``1 / A = 5e-9``): 0.39686 after a warm start
from ``gamma = 1`` against 0.39972 cold, at ``tol=1e-10``. A point held out twice, once in each
class, has two decisions equal but for round-off, and the round-off decides between
``E = 1/2`` (equal: the constant fit) and ``E = 1/3`` (the fit separates them).
The warm start saves little (``python benchmarks/platt_warm_start.py``, SMO iterations): 613
warm against 639 cold for ``GradientDescent()`` on heart, 2,040 against 1,992 on banana (the
same kernel entries: each evaluation builds its Gram matrix); ``IncrementalGradient()``, whose
working sets grow near one setting, 408 against 508 on heart (13 and 12 evaluations) and 2,734
against 4,166 on banana (19 each).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from svmtune.classifier import KernelExpansion
from svmtune.datasets import holdout_indices, stratified_kfold
from svmtune.kernels import PreparedKernel
from svmtune.objectives._base import NUMERICAL_FAILURES, Outcome, Stopwatch
from svmtune.objectives._evaluation import Evaluation, Status
from svmtune.objectives._platt_gradient import PlattState, platt_gradient
from svmtune.objectives._svm_objective import (
    GRAM_BYTES_PER_ENTRY,
    BoundSVMObjective,
    SVMObjective,
)
from svmtune.solvers import FullGram, check_gram, decision_from_gradient, feasible_start
from svmtune.solvers.sigmoid import fit_sigmoid
from svmtune.solvers.smo import DEFAULT_MEMORY_BUDGET

__all__ = ["PlattError"]

GRADIENTS = ("full", "approx")
Seed = int | np.random.SeedSequence | np.random.Generator | None


class PlattError(SVMObjective):
    """Platt's empirical error ``E = mean |t_i - p_i|`` on validation data, with gradients.

    Parameters
    ----------
    validation : float, int or array of int, default 0.3
        A float in (0, 1): the fraction of each class held out for validation (stratified, as
        in the paper). An int ``k >= 2``: k stratified folds; every point's decision value
        comes from the fold that leaves it out (as libsvm does for its probabilities) and one
        sigmoid is fitted to them all (``k`` trainings per evaluation). An array: the row
        indices of the validation part (the rest is trained on).
    gradient : {"full", "approx"}, default "full"
        Which derivative :meth:`BoundObjective.gradient` returns (module notes).
    C : float, optional
        Fix the regularization constant instead of tuning it (then it is not in the search
        space). Needed by ``gradient="approx"``, which has no term in ``C``.
    random_state : int, SeedSequence, Generator or None, default 0
        Seed of the holdout or fold assignment.
    tol : float, default 1e-3
        SMO's KKT-gap tolerance.
    sigmoid_tol : float, default 1e-10
        Gradient tolerance of the sigmoid fit (Newton converges quadratically: a tight fit
        costs one or two more iterations and makes ``E`` smooth in ``theta``).
    warm_start : bool, default False
        Start SMO from the previous evaluation's ``alpha`` (made feasible for the new ``C``)
        instead of ``alpha = 0``. Off by default: every solve then starts cold, so the value
        (and its cost) at a setting is a fresh bind's, whatever was evaluated before. A warm
        start stops at another ``tol``-optimal solution, and the value depends on it: the
        sigmoid fit sees the decision values only up to an affine map, so where the validation
        decisions spread over little more than the solver's accuracy (a near-singular kernel:
        1-d points at a small ``gamma``, duplicated points of both classes) two such solutions
        give values apart by far more than ``tol`` (module notes: an example, and what it
        saves).
    max_iter : int, optional
        SMO iteration limit per training.
    memory_budget : int, default 256 MiB (:data:`~svmtune._memory.DEFAULT_MEMORY_BUDGET`)
        Bytes the kernel statistics and the Gram matrix over all bound points may take
        (``16 n^2``); beyond it ``bind`` raises ValueError.

    Examples
    --------
    The error and its gradient on the training part of a split of the bundled heart data, 30 %
    of it held out for the sigmoid:

    >>> from svmtune.datasets import ratsch_split
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import PlattError
    >>> X, y, _, _ = ratsch_split("heart", seed=2)
    >>> bound = PlattError(validation=0.3).bind(X, y, kernel=RBF())
    >>> ev, grad = bound.gradient({"C": 1.0, "gamma": 0.05})
    >>> 0.0 <= ev.value <= 0.5, sorted(grad)
    (True, ['C', 'gamma'])
    """

    has_gradient: ClassVar[bool] = True
    min_per_class: ClassVar[int] = 2
    yields_svm: ClassVar[bool] = False

    def __init__(
        self,
        *,
        validation: float | int | ArrayLike = 0.3,
        gradient: str = "full",
        C: float | None = None,
        random_state: Seed = 0,
        tol: float = 1e-3,
        sigmoid_tol: float = 1e-10,
        warm_start: bool = False,
        max_iter: int | None = None,
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
    ) -> None:
        self.validation = validation
        self.gradient = gradient
        self.C = C
        self.random_state = random_state
        super().__init__(tol=tol, max_iter=max_iter, memory_budget=memory_budget)
        self.sigmoid_tol = sigmoid_tol
        self.warm_start = warm_start

    def _fixed_C(self) -> float | None:
        return self.C

    def _check_options(self) -> None:
        if self.gradient not in GRADIENTS:
            raise ValueError(f"gradient must be one of {GRADIENTS}; got {self.gradient!r}")
        if not (isinstance(self.sigmoid_tol, int | float) and self.sigmoid_tol > 0):
            raise ValueError(f"sigmoid_tol must be a positive number; got {self.sigmoid_tol!r}")
        super()._check_options()

    def _bound_class(self) -> type[_BoundPlattError]:
        return _BoundPlattError

    def _folds(self, y: NDArray[np.float64]) -> list[tuple[NDArray[np.intp], NDArray[np.intp]]]:
        v = self.validation
        n = y.shape[0]
        seed = np.random.SeedSequence() if self.random_state is None else self.random_state
        if isinstance(v, bool):
            raise ValueError(f"validation must be a fraction, a fold count or indices; got {v!r}")
        if isinstance(v, float):
            if not 0.0 < v < 1.0:
                raise ValueError(f"validation as a fraction must lie in (0, 1); got {v!r}")
            tr, va = holdout_indices(y, seed, test_size=v)
            folds = [(np.asarray(tr), np.asarray(va))]
        elif isinstance(v, int | np.integer):
            if v < 2:
                raise ValueError(f"validation as a number of folds must be >= 2; got {v!r}")
            folds = [(np.asarray(a), np.asarray(b)) for a, b in stratified_kfold(y, int(v), seed)]
        else:
            idx = np.asarray(v)
            if idx.ndim != 1 or idx.size == 0 or not np.issubdtype(idx.dtype, np.integer):
                raise ValueError(
                    "validation as indices must be a non-empty 1-d integer array; "
                    f"got {np.asarray(v)!r}"
                )
            va, counts = np.unique(idx, return_counts=True)
            if np.any(counts > 1):
                raise ValueError(
                    f"validation indices must be distinct; repeated: {va[counts > 1].tolist()}"
                )
            if va[0] < 0 or va[-1] >= n:
                raise ValueError(f"validation indices must lie in [0, {n}); got {va[0]}..{va[-1]}")
            tr = np.setdiff1d(np.arange(n), va)
            folds = [(tr, va)]
        for f, (tr, va) in enumerate(folds):
            for part, idx in (("training", tr), ("validation", va)):
                classes = np.unique(y[idx])
                if classes.size < 2:
                    which = f"part {f}" if len(folds) > 1 else "part"
                    raise ValueError(
                        f"the {part} {which} holds one class only ({classes.tolist()}, "
                        f"{idx.size} points); it needs both -1 and +1"
                    )
        return folds


class _BoundPlattError(BoundSVMObjective):
    objective: PlattError

    def _setup(self) -> None:
        X, n = self.X, self.n_samples
        if not self.objective._gram_fits(n):
            raise ValueError(
                f"{n} points need {GRAM_BYTES_PER_ENTRY * n * n} bytes for the kernel statistics "
                f"and the Gram matrix; memory_budget={self.objective.memory_budget} (raise it, "
                "or subsample)"
            )
        self.folds = self.objective._folds(self.y)
        # kernel statistics: over all points (k folds), or training x training and
        # validation x training (holdout)
        self.prepared: PreparedKernel
        self.prepared_tt: PreparedKernel
        self.prepared_vt: PreparedKernel
        if len(self.folds) > 1:
            self.prepared = self.kernel.prepare(X)
        else:
            tr, va = self.folds[0]
            self.prepared_tt = self.kernel.prepare(X[tr])
            self.prepared_vt = self.kernel.prepare(X[va], X[tr])
        self._alpha: list[NDArray[np.float64] | None] = [None] * len(self.folds)
        self._last: tuple[Any, PlattState] | None = None
        self.validation_index = np.concatenate([va for _, va in self.folds])

    @property
    def training_index(self) -> NDArray[np.intp]:
        """Rows the SVM is trained on (the training part; for k folds, every row)."""
        return np.unique(np.concatenate([tr for tr, _ in self.folds]))

    # -- evaluation ----------------------------------------------------------------------------
    def _key(self, params: Mapping[str, float], working: NDArray[np.intp] | None) -> Any:
        wk = None if working is None else (working.size, hash(working.tobytes()))
        return (tuple(sorted(params.items())), wk)

    def _solve(self, params: Mapping[str, float], working: NDArray[np.intp] | None) -> PlattState:
        key = self._key(params, working)
        if self._last is not None and self._last[0] == key:
            return self._last[1]
        C = self.C(params)
        kp = self.kernel_params(params)
        name = f"Gram matrix of {self.kernel!r} at {kp}"
        y = self.y
        n = self.n_samples
        evals = 0
        results, alphas, grams, actives, fs = [], [], [], [], []
        iterations = 0
        if len(self.folds) > 1:
            # k folds: one Gram matrix over all points, each fold solves on its rows
            K = self.prepared.gram(kp)
            check_gram(K, name=name)
            store = FullGram(K, check=False)
            evals += n * n
        for i, (tr, va) in enumerate(self.folds):
            prev = self._alpha[i]
            if len(self.folds) > 1:
                pos, Kf, Sf, act, loc_va = None, K, store, tr, va
                yl = y
            else:
                # holdout: the blocks the SVM and its validation decision values need, over the
                # training rows (or the working set) S and the validation rows V: K_SS and
                # K_VS, not K_VV
                act_g = tr if working is None else np.intersect1d(tr, working)
                if np.unique(y[act_g]).size < 2:
                    raise ValueError(
                        f"the working set ({act_g.size} points) must hold both classes"
                    )
                if working is None:
                    K_SS, K_VS = self.prepared_tt.gram(kp), self.prepared_vt.gram(kp)
                else:
                    K_SS = self.kernel.prepare(self.X[act_g]).gram(kp)
                    K_VS = self.kernel.prepare(self.X[va], self.X[act_g]).gram(kp)
                check_gram(K_SS, name=name)
                if not np.all(np.isfinite(K_VS)):
                    raise ValueError(f"{name} has a non-finite entry between validation points")
                s, m = act_g.size, act_g.size + va.size
                evals += s * m
                Kf = np.zeros((m, m))
                Kf[:s, :s] = K_SS
                Kf[s:, :s] = K_VS
                Kf[:s, s:] = K_VS.T
                Sf = FullGram(Kf, check=False)
                rows = np.concatenate([act_g, va])
                pos = np.full(n, -1, dtype=np.intp)
                pos[rows] = np.arange(m)
                act, loc_va = np.arange(s), np.arange(s, m)
                yl = y[rows]
            alpha0 = None
            if self.objective.warm_start and prev is not None:
                start = prev if pos is None else prev[rows]
                alpha0 = feasible_start(start, yl, C, active=act)
            res = self.solver.solve(yl, C=C, gram=Sf, active=act, alpha0=alpha0)
            alpha = res.alpha
            if pos is not None:
                alpha = np.zeros(n)
                alpha[rows] = res.alpha
            self._alpha[i] = alpha
            results.append(res)
            alphas.append(alpha)
            grams.append((Kf, pos))
            actives.append(act if pos is None else act_g)
            iterations += res.iterations
            fs.append(decision_from_gradient(res.gradient[loc_va], y[va], res.b))
        f = np.concatenate(fs)
        yv = y[self.validation_index]
        sig = fit_sigmoid(f, yv, tol=float(self.objective.sigmoid_tol))
        p = sig(f)
        value = float(np.mean(np.where(yv > 0, 1.0 - p, p)))
        state = PlattState(grams, results, alphas, actives, f, yv, sig, p, value, evals, iterations)
        self._last = (key, state)
        return state

    def _info(self, state: PlattState) -> dict[str, Any]:
        n_sv = sum(int(np.count_nonzero(a)) for a in state.alphas)
        return {
            "A": state.sigmoid.A,
            "B": state.sigmoid.B,
            "support_vectors": n_sv / len(state.results),
            "validation_error": float(np.mean(np.where(state.f >= 0, 1.0, -1.0) != state.yv)),
            "converged": all(r.converged for r in state.results),
        }

    def _evaluate(self, params: dict[str, float]) -> Outcome:
        state = self._solve(params, None)
        return Outcome(state.value, state.kernel_evals, state.iterations, self._info(state))

    def evaluate_on(
        self,
        params: Mapping[str, float],
        *,
        working_set: ArrayLike | None = None,
        gradient: bool = False,
    ) -> tuple[Evaluation, dict[str, float] | None]:
        """Evaluate (and optionally differentiate) with the SVM trained on ``working_set`` only.

        ``working_set`` (row indices; intersected with each training part) is how incremental
        learning trains on a growing subset of the training part; None trains on all of it.
        Returns the evaluation (FAILED, with NaN gradient entries, on a numerical failure) and
        the gradient (None unless asked). A repeated call at the same point and working set
        reuses the solve, so the evaluation's cost is then the gradient's alone.
        """
        checked = self.space.check(params)
        working = None if working_set is None else np.unique(np.asarray(working_set, dtype=np.intp))
        if gradient and self.objective.gradient == "approx" and "C" in self.space:
            raise ValueError(
                "gradient='approx' has no derivative in C (eq. 9 holds alpha fixed, and C acts "
                "only through alpha): fix C with PlattError(C=...) or use gradient='full'"
            )
        watch = Stopwatch()
        fresh = self._last is None or self._last[0] != self._key(checked, working)
        try:
            state = self._solve(checked, working)
            grads, evals = (
                platt_gradient(
                    self, checked, state, folds=self.folds, full=self.objective.gradient == "full"
                )
                if gradient
                else (None, 0)
            )
        except NUMERICAL_FAILURES as exc:
            ev = self._failed(checked, exc, watch)
            return ev, ({n: float("nan") for n in self.space.names} if gradient else None)
        info = self._info(state)
        if working is not None:
            info["working_set"] = int(working.size)
        if grads is not None:
            info["grad_norm"] = float(np.sqrt(sum(g * g for g in grads.values())))
        kev = (state.kernel_evals if fresh else 0) + evals
        its = state.iterations if fresh else 0
        ev = Evaluation(checked, state.value, Status.OK, watch.cost(kev, its), info=info)
        return ev, grads

    def gradient(self, params: Mapping[str, float]) -> tuple[Evaluation, dict[str, float]]:
        ev, grads = self.evaluate_on(params, gradient=True)
        assert grads is not None
        return ev, grads

    def decision_values(self) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
        """The rows trained on (first part) and their decision values at the last evaluation
        (the margin test of incremental learning)."""
        if self._last is None:
            raise RuntimeError("no evaluation yet")
        state = self._last[1]
        act = state.active[0]
        pos = state.grams[0][1]
        loc = act if pos is None else pos[act]
        res = state.results[0]
        return act, decision_from_gradient(res.gradient[loc], self.y[act], res.b)

    # -- the classifier -----------------------------------------------------------------------
    def classifier(self, params: Mapping[str, float]) -> KernelExpansion:
        """The classifier the empirical error estimated: the SVM trained by SMO on all bound
        data at ``params``, predicting the class of probability above 1/2 under the sigmoid
        fitted on the validation part (``A f + B < 0``, i.e. the intercept moved by ``B / A``;
        unmoved for a sigmoid with ``A >= 0``, which orders nothing)."""
        checked = self.space.check(params)
        kp = self.kernel_params(checked)
        sig = self._solve(checked, None).sigmoid
        res = self.solver.solve(self.y, C=self.C(checked), kernel=self.kernel, params=kp, X=self.X)
        clf = self._expansion(kp, res)
        if sig.A < 0 and np.isfinite(sig.B / sig.A):
            clf.intercept = clf.intercept + float(sig.B / sig.A)
        return clf
