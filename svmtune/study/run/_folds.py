"""One fold assignment per (data set, split), handed to every k-fold method of a study.

A comparison is paired: on one split, svmtune's k-fold objectives (:class:`~svmtune.objectives.
KFoldCV` and its kin, :class:`~svmtune.objectives.ScoredCV` given a number of folds) and the
peers' ``cv=`` (``GridSearchCV``, ``RandomizedSearchCV``, ``HalvingGridSearchCV``,
``OptunaSearchCV``, given a number of folds, ``KFold`` or ``StratifiedKFold``) all get the same
stratified, shuffled assignment :func:`svmtune.datasets.stratified_kfold` draws from
:func:`fold_seed` of the split. Unshuffled folds (scikit-learn's ``cv=5``) cut contiguous blocks
of a training part, which on a file sorted by class costs several points of error.

A method's ``folds`` draw (``Method(..., folds=1)``) picks another assignment of the same
split: the same method on other folds is a noise control, which measures how much of a
difference between methods fold assignment alone makes.
"""

from __future__ import annotations

import copy
import zlib
from typing import Any

import numpy as np
from numpy.typing import NDArray

from svmtune.datasets import stratified_kfold
from svmtune.objectives import KFoldCV
from svmtune.objectives.scored_cv import ScoredCV

__all__ = [
    "STUDY_PROTOCOL",
    "fold_seed",
    "k_of",
    "noise_controls",
    "set_shared_cv",
    "shares_folds",
    "with_folds",
]

#: Version of the protocol of a study's cells, kept in every method's stored record, so that a
#: study stored under another protocol is not silently mixed with new cells. 1: training parts
#: in the data file's order, each method its own folds (svmtune's KFoldCV seeded 0, peers'
#: unshuffled ``cv=k``); 2: training parts in a seeded random order, one shared fold assignment
#: per (data set, split), tuning runs billed their whole process CPU.
STUDY_PROTOCOL = 2

_FOLDS = zlib.crc32(b"folds")


def fold_seed(split_seed: int, draw: int = 0) -> int:
    """The seed of fold assignment ``draw`` of the split seeded ``split_seed``.

    Draw 0 is the assignment every method of the split shares; draws 1, 2, ... are the others
    a noise control uses.

    Examples
    --------
    >>> fold_seed(7) == fold_seed(7), fold_seed(7) != fold_seed(7, 1)
    (True, True)
    """
    ss = np.random.SeedSequence(int(split_seed), spawn_key=(_FOLDS, int(draw)))
    return int(ss.generate_state(1, dtype=np.uint32)[0])


def _peer_k(estimator: Any) -> int | None:
    """The number of folds of a peer's top-level ``cv`` when the shared folds may replace it
    (None, an int, an unshuffled or shuffled ``KFold`` / ``StratifiedKFold``), else None."""
    from sklearn.model_selection import KFold, StratifiedKFold

    try:
        params = estimator.get_params(deep=False)
    except Exception:
        return None
    if "cv" not in params:
        return None
    cv = params["cv"]
    if cv is None:
        return 5  # scikit-learn's default
    if isinstance(cv, int | np.integer) and not isinstance(cv, bool):
        return int(cv)
    if isinstance(cv, KFold | StratifiedKFold):
        return int(cv.n_splits)
    return None


def k_of(method: Any) -> int | None:
    """The number of folds of a method that takes the study's shared folds, else None."""
    estimator = getattr(method, "estimator", None)  # a PeerMethod's
    if estimator is not None:
        return _peer_k(estimator)
    objective = getattr(method, "objective", None)
    if isinstance(objective, KFoldCV):
        return int(objective.k)
    if isinstance(objective, ScoredCV) and isinstance(objective.cv, int | np.integer):
        return int(objective.cv)
    return None


def shares_folds(method: Any) -> bool:
    """Whether ``method`` is a k-fold method that a study hands its shared folds."""
    return k_of(method) is not None


def _folds(y: NDArray[np.float64], k: int, seed: int) -> list[tuple[Any, Any]]:
    return [(tr, te) for tr, te in stratified_kfold(y, k, seed)]


def with_folds(objective: Any, y: NDArray[np.float64], seed: int) -> Any:
    """A copy of a k-fold ``objective`` that cross-validates on the folds
    :func:`svmtune.datasets.stratified_kfold` draws from ``seed`` over labels ``y`` (a KFoldCV
    seeded ``seed`` draws the same); any other objective as it is."""
    if isinstance(objective, KFoldCV):
        objective = copy.copy(objective)
        objective.random_state = int(seed)
    elif isinstance(objective, ScoredCV) and isinstance(objective.cv, int | np.integer):
        k = int(objective.cv)
        objective = copy.copy(objective)
        objective.cv = _folds(y, k, seed)
    return objective


def set_shared_cv(estimator: Any, y: NDArray[np.float64], seed: int) -> None:
    """Give a peer (a fresh clone) the shared folds drawn from ``seed`` as its ``cv``, where
    :func:`k_of` says it takes them."""
    k = _peer_k(estimator)
    if k is not None:
        estimator.set_params(cv=_folds(y, k, seed))


def _record(method: Any) -> Any:
    return (type(method).__name__, repr(method.describe()))


def noise_controls(methods: dict[str, Any]) -> dict[str, str]:
    """Noise control -> the method it replicates: each method whose ``folds`` is not 0, and the
    method of ``methods`` that differs from it in ``folds`` alone (with ``folds=0``).

    Raises
    ------
    ValueError
        For a ``folds`` that is not an integer >= 0, a noise control of a method without shared
        folds (another fold assignment would change nothing), or one with no such method in
        ``methods``.

    Examples
    --------
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import KFoldCV
    >>> from svmtune.study import Method
    >>> from svmtune.tuners import Grid
    >>> noise_controls({"grid": Method(KFoldCV(), Grid(), RBF()),
    ...                 "grid, folds 1": Method(KFoldCV(), Grid(), RBF(), folds=1)})
    {'grid, folds 1': 'grid'}
    """
    out: dict[str, str] = {}
    for name, m in methods.items():
        draw = getattr(m, "folds", 0)
        if isinstance(draw, bool) or not isinstance(draw, int | np.integer) or draw < 0:
            raise ValueError(f"method {name!r}: folds must be an integer >= 0; got {draw!r}")
        if draw == 0:
            continue
        if not shares_folds(m):
            raise ValueError(
                f"method {name!r} has folds={draw} but cross-validates on no folds a study "
                "sets (a KFoldCV objective, ScoredCV(cv=k), or a peer with cv=k), so another "
                "fold assignment would change nothing"
            )
        twins = [
            other
            for other, o in methods.items()
            if getattr(o, "folds", 0) == 0 and _record(o) == _record(m)
        ]
        if not twins:
            raise ValueError(
                f"method {name!r} (folds={draw}) is a noise control of no method of the study: "
                "add the same method with folds=0 (the one it measures the fold noise of)"
            )
        out[name] = twins[0]
    return out
