"""The parts of :class:`svmtune.TunedSVC` that are not the estimator: checking an (objective,
tuner, kernel) combination, the canonical row order and seeds, the class weights, and the
deprecated ``platt_sigmoid``."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from svmtune._warnings import warn_deprecated
from svmtune.estimators._svc import SVC
from svmtune.kernels import KernelModel
from svmtune.objectives import Objective
from svmtune.objectives.scored_cv import ScoredCV
from svmtune.solvers.sigmoid import Sigmoid, fit_sigmoid
from svmtune.space import SearchSpace
from svmtune.tuners import Tuner, TuningResult

__all__ = ["Fitted", "check_combination", "final_estimator", "platt_sigmoid"]


@dataclass
class Fitted:
    """One tuned binary problem of a :class:`svmtune.TunedSVC`."""

    result: TuningResult
    estimator: Any  # None with refit=False
    sigmoid: Sigmoid | None
    refit_s: float
    cv_results: dict[str, Any]
    best_index: int
    params: dict[str, float]
    folds: list[tuple[NDArray[np.intp], NDArray[np.intp]]] | None


def final_estimator(
    predictor: str,
    bound: Any,
    result: TuningResult,
    kernel: KernelModel,
    C: float,
    params: dict[str, float],
    X: NDArray[np.float64],
    y: NDArray[Any],
) -> Any:
    """What predicts, trained on all of a problem's ``(X, y)`` at ``params``: the hinge SVM
    (``predictor="svm"``, or an objective that estimates it; ``C`` where the objective tunes
    none) or the classifier the objective estimated (``bound``'s)."""
    weighted = isinstance(bound.objective, ScoredCV)  # its own classifier has the weights
    if (predictor == "svm" or bound.objective.yields_svm) and not weighted:
        if kernel.includes_scale:
            C = 1.0
        elif "C" in params:
            C = float(params["C"])
        kp = {n: float(params[n]) for n in kernel.space.names}
        # two classes: the original labels, so best_estimator_ predicts them; else -1/+1
        return SVC(C=C, kernel=kernel, kernel_params=kp).fit(X, y)
    if params == dict(result.best_params):
        return result.best_classifier  # the classifier the objective estimated
    return bound.classifier(params)


def check_combination(objective: Objective, tuner: Tuner, kernel: KernelModel) -> SearchSpace:
    """The box ``tuner`` searches for ``objective`` on ``kernel``; ValueError naming the parts
    if they cannot work together (a tuner that needs a gradient the objective lacks, bisection
    over two parameters, ...).

    A tuner that needs the objective's gradient says so with a class attribute
    ``needs_gradient = True``.

    Examples
    --------
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import KFoldCV
    >>> from svmtune.tuners import Bisection
    >>> check_combination(KFoldCV(), Bisection(), RBF())
    Traceback (most recent call last):
    ...
    ValueError: KFoldCV() cannot be tuned by Bisection() over RBF(): Bisection searches one \
parameter ('gamma'); fix the others with fixed={...}: missing ['C']
    """
    if not isinstance(objective, Objective):
        raise ValueError(f"objective must be a svmtune Objective; got {objective!r}")
    if not isinstance(tuner, Tuner):
        raise ValueError(f"tuner must be a svmtune Tuner; got {tuner!r}")
    if not isinstance(kernel, KernelModel):
        raise ValueError(f"kernel must be a svmtune KernelModel; got {kernel!r}")
    parts = f"{objective!r} cannot be tuned by {tuner!r} over {kernel!r}"
    try:
        tuner.check_objective(objective)
        tuner.check_kernel(kernel)
        return tuner.check(objective.search_space(kernel))
    except ValueError as exc:
        raise ValueError(f"{parts}: {exc}") from exc


def platt_sigmoid(decision: ArrayLike, y: ArrayLike) -> tuple[float, float]:
    """``(A, B)`` of Platt's sigmoid ``P(y = +1 | f) = 1 / (1 + exp(A f + B))``.

    .. deprecated::
        Use :func:`svmtune.solvers.sigmoid.fit_sigmoid`, which this calls (Lin, Lin and Weng's
        Newton method on Platt's regularized targets) and which also returns the fit's
        iterations and convergence and evaluates the probabilities.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", FutureWarning)
    ...     A, B = platt_sigmoid([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0], [-1, -1, 1, -1, 1, 1])
    >>> bool(A < 0)
    True
    """
    warn_deprecated(
        "platt_sigmoid",
        since="0.1.0",
        removed_in="0.2.0",
        instead="svmtune.solvers.sigmoid.fit_sigmoid",
    )
    fit = fit_sigmoid(decision, y)
    return fit.A, fit.B


def _canonical_order(X: NDArray[np.float64], codes: NDArray[np.intp]) -> NDArray[np.intp]:
    """Rows sorted by class code, then by feature values: any permutation of the same data
    gives the same order, so the folds of a CV objective (and so the result) do not depend on
    the order of the samples."""
    return np.lexsort((*X.T[::-1], codes))


def _child_seed(seed: int, problem: int) -> int:
    return int(np.random.SeedSequence([seed, problem]).generate_state(1)[0])


def check_class_weight(class_weight: Any, classes: NDArray[Any]) -> Any:
    """``class_weight`` checked as scikit-learn's ``SVC`` takes it: None, ``"balanced"`` or a
    dict class -> weight whose weights are finite and non-negative (a ValueError naming the bad
    one); a class the dict leaves out gets weight 1 (the dict returned has every class of
    ``classes``; keys of other classes are ignored)."""
    if class_weight is None or (isinstance(class_weight, str) and class_weight == "balanced"):
        return class_weight
    if not isinstance(class_weight, Mapping):
        raise ValueError(f"class_weight must be None, 'balanced' or a dict; got {class_weight!r}")
    out = {}
    for c in classes:
        w = class_weight.get(c, 1.0)
        name = _plain(c)
        try:
            v = float(w)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"class_weight[{name!r}] must be a number; got {w!r}") from exc
        if not np.isfinite(v) or v < 0:
            raise ValueError(f"class_weight[{name!r}] must be finite and non-negative; got {w!r}")
        out[c] = v
    return out


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value it holds (for messages: 'no', not np.str_('no'))."""
    return value.item() if isinstance(value, np.generic) else value


def check_positive_weights(
    class_weight: Any,
    sample_weight: NDArray[np.float64] | None,
    codes: NDArray[np.intp],
    classes: NDArray[Any],
    problems: list[tuple[int | None, int]],
) -> None:
    """Refuse what LIBSVM (scikit-learn's ``SVC``) refuses: a binary problem in which every
    point weighs zero (``C * class_weight * sample_weight``), or in which only one class has
    points of positive weight."""
    w = np.ones(codes.shape[0]) if sample_weight is None else sample_weight
    if isinstance(class_weight, dict):
        w = w * np.array([class_weight[c] for c in classes])[codes]
    for neg, pos in problems:
        mask = np.ones(codes.shape[0], bool) if neg is None else np.isin(codes, [neg, pos])
        wp, cp = w[mask], codes[mask] == pos
        if not np.any(wp > 0):
            raise ValueError(
                "Invalid input - all samples have zero weight (class_weight x sample_weight)"
                + (
                    f" in the problem {_plain(classes[neg])!r} vs {_plain(classes[pos])!r}"
                    if neg is not None
                    else ""
                )
            )
        positive = {bool(v) for v in cp[wp > 0]}
        if len(positive) < 2:
            side = (
                classes[pos]
                if positive == {True}
                else ("the rest" if neg is None else classes[neg])
            )
            side = _plain(side)
            raise ValueError(
                "Invalid input - all samples with positive weights belong to the same class "
                f"({side!r}): class_weight x sample_weight is zero for every point of the other"
            )


def check_refit(refit: Any, scoring: str | None) -> bool | Callable[..., Any]:
    """``refit`` as ``GridSearchCV`` takes it, for one metric: True or False, the name of the
    metric (``scoring``, or ``"accuracy"`` when none is given: svmtune's objectives estimate
    the error rate) or a callable taking ``cv_results_`` and returning the index of the setting
    to refit; a ValueError naming anything else."""
    if callable(refit):
        return refit
    if isinstance(refit, bool | np.bool_):
        return bool(refit)
    metric = "accuracy" if scoring is None else scoring
    if isinstance(refit, str) and refit in ("objective", "svm"):
        raise ValueError(
            f"refit={refit!r}: what predicts is now chosen by predictor={refit!r}; refit takes "
            "True, False, the scoring's name or a callable, as GridSearchCV's"
        )
    if isinstance(refit, str) and refit == metric:
        return True
    raise ValueError(
        f"refit must be True, False, {metric!r} (the one metric scored) or a callable "
        f"cv_results_ -> index; got {refit!r}"
    )


def _with(objective: Objective, **options: Any) -> Objective:
    """A shallow copy of ``objective`` with some options changed."""
    out = copy.copy(objective)
    for k, v in options.items():
        setattr(out, k, v)
    return out


def problem_seeds(random_state: Any, n_problems: int) -> list[int]:
    """The tuner's seed of each binary problem: with one problem an integer ``random_state``
    as it is (so ``tuner.tune(..., random_state=seed)`` by hand gives the same result), with
    several a child seed each (``SeedSequence([seed, problem])``)."""
    from sklearn.utils.validation import check_random_state

    if isinstance(random_state, int | np.integer) and not isinstance(random_state, bool):
        seed = int(random_state)  # the very seed a hand-made tuning run would use
    else:
        seed = int(check_random_state(random_state).randint(np.iinfo(np.int32).max))
    return [seed] if n_problems == 1 else [_child_seed(seed, p) for p in range(n_problems)]


def folds_for(objective: Objective, y: NDArray[np.float64]) -> Objective:
    """``objective``, or k-fold CV with as many folds as the smaller class of ``y`` has points
    (at least 2) when that is fewer than its ``k``, with a warning."""
    from svmtune.objectives import KFoldCV

    n_min = int(min(np.sum(y > 0), np.sum(y < 0)))
    if not isinstance(objective, KFoldCV) or not isinstance(objective.k, int) or n_min < 2:
        return objective
    if n_min >= objective.k:
        return objective
    warnings.warn(
        f"the smaller class of a binary problem has {n_min} points, fewer than "
        f"{objective!r}'s k={objective.k}: it is tuned by {n_min}-fold CV",
        UserWarning,
        stacklevel=4,
    )
    return _with(objective, k=n_min)
