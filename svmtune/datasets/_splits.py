"""Train/test split protocols of the papers, and a stratified k-fold helper.

Every protocol draws from ``numpy.random.default_rng(seed)`` and comes in two forms: an
``*_indices`` function giving ``(train_idx, test_idx)`` (sorted row indices, to store or to
re-index feature groups), and a ``*_split`` function giving the standardized parts
``(X_train, y_train, X_test, y_test)`` (see :func:`standardize`: training statistics only,
features constant in the training part dropped). A ``*_split`` returns its training part in a
random order drawn from the same generator after the split, never in the file's order: files
are often sorted by class or by collection time, and what runs on the training part (an
unshuffled k-fold, a solver's first working set) must not depend on how a file was sorted.

A protocol that draws the parts at random redraws, with the same generator, until each part
holds both classes; a class with fewer than two points makes that impossible and raises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from svmtune._validation import as_rng, check_labels, check_Xy
from svmtune.datasets._load import _ambiguous_rows, load
from svmtune.datasets._registry import RATSCH_SIZES, resolve
from svmtune.datasets._standardize import standardize

__all__ = [
    "Split",
    "fischetti_indices",
    "fischetti_split",
    "holdout_indices",
    "holdout_split",
    "ratsch_indices",
    "ratsch_split",
    "stratified_kfold",
]

Seed = int | np.random.SeedSequence | np.random.Generator
Indices = tuple[NDArray[np.intp], NDArray[np.intp]]

_MAX_DRAWS = 1000
FISCHETTI_TRAIN_PROBABILITY = 0.7


class Split(NamedTuple):
    """Standardized train and test parts; unpacks as ``X_train, y_train, X_test, y_test``."""

    X_train: NDArray[np.float64]
    y_train: NDArray[np.float64]
    X_test: NDArray[np.float64]
    y_test: NDArray[np.float64]


def _split(
    X: NDArray[np.float64], y: NDArray[np.float64], idx: Indices, rng: np.random.Generator
) -> Split:
    """The standardized parts, the training part in a random order drawn from ``rng``."""
    tr, te = idx
    tr = tr[rng.permutation(tr.size)]
    s = standardize(X[tr], X[te])
    return Split(s.X_train, y[tr].copy(), s.X_test, y[te].copy())


def _need_two_per_class(y: NDArray[np.float64], protocol: str) -> None:
    counts = {int(c): int(np.sum(y == c)) for c in (-1.0, 1.0)}
    small = {c: k for c, k in counts.items() if k < 2}
    if small:
        raise ValueError(
            f"{protocol} needs at least 2 points of each class, so that both parts hold both "
            f"classes; class counts are {counts}"
        )


def _both_classes(y: NDArray[np.float64], mask: NDArray[np.bool_]) -> bool:
    return bool(np.unique(y[mask]).size == 2 and np.unique(y[~mask]).size == 2)


def _draw_until_both_classes(
    y: NDArray[np.float64], draw: Callable[[], NDArray[np.bool_]], protocol: str
) -> Indices:
    """Call ``draw()`` (a boolean training mask) until both parts hold both classes."""
    for _ in range(_MAX_DRAWS):
        mask = draw()
        if _both_classes(y, mask):
            return np.flatnonzero(mask), np.flatnonzero(~mask)
    raise ValueError(
        f"{protocol}: no draw in {_MAX_DRAWS} put both classes in both parts "
        f"(class counts {{-1: {int(np.sum(y < 0))}, 1: {int(np.sum(y > 0))}}}); "
        "the data set is too small or too unbalanced for this protocol"
    )


def fischetti_indices(y: ArrayLike, seed: Seed) -> Indices:
    """Fischetti et al. (2016), Section 5: each point is a training point with probability 0.7.

    Points are assigned independently, so the training size varies from draw to draw. A draw
    leaving a class out of either part is redrawn with the same generator.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}.
    seed : int, SeedSequence or numpy Generator
        Passed to :func:`numpy.random.default_rng`.

    Returns
    -------
    train_idx, test_idx : int arrays
        Sorted, disjoint, together ``0, ..., n_samples - 1``.

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.datasets import fischetti_indices
    >>> y = np.tile([-1.0, 1.0], 500)
    >>> tr, te = fischetti_indices(y, seed=0)
    >>> len(tr) + len(te), 0.65 < len(tr) / 1000 < 0.75
    (1000, True)
    """
    ya = check_labels(y)
    _need_two_per_class(ya, "fischetti_split")
    rng = as_rng(seed, name="seed")
    return _draw_until_both_classes(
        ya, lambda: rng.random(ya.size) < FISCHETTI_TRAIN_PROBABILITY, "fischetti_split"
    )


def fischetti_split(X: ArrayLike, y: ArrayLike, seed: Seed) -> Split:
    """Fischetti's random 70/30 split, standardized with the training part's statistics.

    See :func:`fischetti_indices` for the draw and :func:`standardize` for the scaling
    (features constant in the training part are dropped from both parts).

    Returns
    -------
    Split
        ``(X_train, y_train, X_test, y_test)``; the training part in a random order (from the
        same generator), the test part in the file's.

    Raises
    ------
    ValueError
        On NaN/inf in ``X``, labels other than -1/+1, a single class, fewer than 2 points of a
        class, or ``X`` and ``y`` of different lengths.

    Examples
    --------
    >>> from svmtune.datasets import fischetti_split, load
    >>> X_train, y_train, X_test, y_test = fischetti_split(*load("sonar"), seed=1)
    >>> X_train.shape[0] + X_test.shape[0]
    208
    """
    Xa, ya = check_Xy(X, y)
    rng = as_rng(seed, name="seed")
    return _split(Xa, ya, fischetti_indices(ya, rng), rng)


def holdout_indices(y: ArrayLike, seed: Seed, *, test_size: float = 0.3) -> Indices:
    """Stratified holdout: ``round(test_size * n_c)`` points of each class ``c`` to the test part.

    Each class keeps at least one point in each part. Repeating with different seeds gives
    repeated stratified holdout.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}, at least 2 of each.
    seed : int, SeedSequence or numpy Generator
    test_size : float in (0, 1), default 0.3

    Returns
    -------
    train_idx, test_idx : int arrays
        Sorted and disjoint, together all rows.

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.datasets import holdout_indices
    >>> y = np.array([1.0] * 10 + [-1.0] * 20)
    >>> tr, te = holdout_indices(y, seed=0)
    >>> int((y[te] == 1).sum()), int((y[te] == -1).sum())
    (3, 6)
    """
    ya = check_labels(y)
    try:
        ts = float(test_size)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"test_size must be a number in (0, 1); got {test_size!r}") from exc
    if not 0.0 < ts < 1.0:
        raise ValueError(f"test_size must be in (0, 1); got {test_size!r}")
    _need_two_per_class(ya, "holdout_split")
    rng = as_rng(seed, name="seed")
    test = np.zeros(ya.size, dtype=bool)
    for c in (-1.0, 1.0):
        members = rng.permutation(np.flatnonzero(ya == c))
        n_test = min(max(round(ts * members.size), 1), members.size - 1)
        test[members[:n_test]] = True
    return np.flatnonzero(~test), np.flatnonzero(test)


def holdout_split(X: ArrayLike, y: ArrayLike, seed: Seed, *, test_size: float = 0.3) -> Split:
    """Stratified holdout split (:func:`holdout_indices`), standardized (:func:`standardize`).

    Examples
    --------
    >>> from svmtune.datasets import holdout_split, load
    >>> X_train, y_train, X_test, y_test = holdout_split(*load("heart"), seed=0)
    >>> len(y_train), len(y_test)
    (189, 81)
    """
    Xa, ya = check_Xy(X, y)
    rng = as_rng(seed, name="seed")
    return _split(Xa, ya, holdout_indices(ya, rng, test_size=test_size), rng)


def stratified_kfold(y: ArrayLike, k: int, seed: Seed) -> list[Indices]:
    """Stratified k-fold: ``k`` pairs ``(train_idx, test_idx)``, the test parts partitioning rows.

    Each class is shuffled and dealt round the folds, continuing where the previous class
    stopped, so every fold's size and every fold's count of each class differ by at most one
    from the others.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}, at least ``k`` of each.
    k : int >= 2
    seed : int, SeedSequence or numpy Generator

    Raises
    ------
    ValueError
        If ``k`` is not an integer >= 2 or a class has fewer than ``k`` points.

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.datasets import stratified_kfold
    >>> folds = stratified_kfold(np.array([1.0] * 5 + [-1.0] * 10), 5, seed=0)
    >>> [len(te) for _, te in folds]
    [3, 3, 3, 3, 3]
    """
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 2:
        raise ValueError(f"k must be an integer >= 2; got {k!r}")
    k = int(k)
    ya = check_labels(y)
    counts = {int(c): int(np.sum(ya == c)) for c in (-1.0, 1.0)}
    if min(counts.values()) < k:
        raise ValueError(
            f"stratified {k}-fold needs at least {k} points of each class; "
            f"class counts are {counts}"
        )
    rng = as_rng(seed, name="seed")
    fold = np.empty(ya.size, dtype=np.intp)
    offset = 0
    for c in (-1.0, 1.0):
        members = rng.permutation(np.flatnonzero(ya == c))
        fold[members] = (offset + np.arange(members.size)) % k
        offset = (offset + members.size) % k
    return [(np.flatnonzero(fold != f), np.flatnonzero(fold == f)) for f in range(k)]


def _ratsch_name(name: object) -> str:
    """The Ratsch name of ``name`` (itself, or an alias of the same data set)."""
    if isinstance(name, str):
        if name in RATSCH_SIZES:
            return name
        try:
            canonical = resolve(name).name
        except ValueError:
            canonical = None
        for ratsch in RATSCH_SIZES:
            if resolve(ratsch).name == canonical:
                return ratsch
    raise ValueError(
        f"no Ratsch protocol for data set {name!r}; valid names are {sorted(RATSCH_SIZES)} "
        "(or another name of the same data set, e.g. 'pima' for 'diabetis')"
    )


def ratsch_indices(name: str, seed: Seed) -> Indices:
    """Ratsch's protocol: a random training set of the published size, the rest for testing.

    Training sizes are those of Carrizosa et al. (2014), Table 1 (banana 400, ringnorm 400,
    twonorm 400, titanic 150, thyroid 140, heart 170, german 700, diabetis 468,
    breast-cancer 200, image 1300, splice 1000). A realization is a uniform random permutation,
    not stratified, as in Ratsch's benchmark; one without both classes in both parts is
    redrawn. For splice, the 15 rows with nucleotide ambiguity codes are in neither part, as in
    Ratsch's data (so the test part has 2175 rows, like every other test size of Table 1).
    The realizations are new draws, not Ratsch's own files.

    Parameters
    ----------
    name : str
        A Ratsch name, or another name of the same data set (``"pima"`` for ``"diabetis"``).
    seed : int, SeedSequence or numpy Generator

    Returns
    -------
    train_idx, test_idx : int arrays
        Sorted row indices into ``load(name)``.

    Examples
    --------
    >>> from svmtune.datasets import ratsch_indices
    >>> tr, te = ratsch_indices("heart", seed=0)
    >>> len(tr), len(te)
    (170, 100)
    """
    ratsch = _ratsch_name(name)
    n_train, n_test = RATSCH_SIZES[ratsch]
    _, y = load(ratsch)
    rows = np.flatnonzero(~_ambiguous_rows(ratsch))
    if rows.size != n_train + n_test:  # pragma: no cover - guarded by the registry tests
        raise RuntimeError(
            f"{ratsch}: {rows.size} usable rows, Carrizosa's Table 1 says {n_train + n_test}"
        )
    rng = as_rng(seed, name="seed")
    yr = y[rows]

    def draw() -> NDArray[np.bool_]:
        mask = np.zeros(rows.size, dtype=bool)
        mask[rng.permutation(rows.size)[:n_train]] = True
        return mask

    tr, te = _draw_until_both_classes(yr, draw, f"ratsch_split({ratsch!r})")
    return rows[tr], rows[te]


def ratsch_split(name: str, seed: Seed) -> Split:
    """Ratsch's split of a bundled data set (:func:`ratsch_indices`), standardized.

    Returns
    -------
    Split
        ``(X_train, y_train, X_test, y_test)``, standardized with the training statistics
        (:func:`standardize`).

    Raises
    ------
    ValueError
        For a data set without a Ratsch protocol, listing the valid names.

    Examples
    --------
    >>> from svmtune.datasets import ratsch_split
    >>> X_train, y_train, X_test, y_test = ratsch_split("banana", seed=0)
    >>> X_train.shape, X_test.shape
    ((400, 2), (4900, 2))
    """
    X, y = load(_ratsch_name(name))
    rng = as_rng(seed, name="seed")
    return _split(X, y, ratsch_indices(name, rng), rng)
