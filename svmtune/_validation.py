"""Input checks shared by every public entry point.

Each check raises :class:`ValueError` with a message that names the bad value, never returns a
silently repaired array.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "DENSIFY_LIMIT_BYTES",
    "as_rng",
    "check_X",
    "check_Xy",
    "check_bounds",
    "check_labels",
    "check_positive",
]


def check_X(X: ArrayLike, *, name: str = "X") -> NDArray[np.float64]:
    """Return ``X`` as a 2-D C-contiguous float64 array, refusing NaN/inf, empty and sparse
    input."""
    if hasattr(X, "tocsr") or hasattr(X, "nnz"):  # scipy.sparse matrices and arrays
        raise TypeError(
            f"{name} is a sparse matrix ({type(X).__name__}); sparse input is not supported: "
            f"pass a dense array ({name}.toarray())"
        )
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric; could not convert it to float64: {exc}") from exc
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be 2-dimensional (n_samples, n_features); got shape {arr.shape}"
        )
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} is empty: shape {arr.shape}")
    bad = ~np.isfinite(arr)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(
            f"{name} contains {int(bad.sum())} non-finite value(s) (NaN or inf), first at "
            f"row {i}, column {j}: {float(arr[i, j])}"
        )
    return np.ascontiguousarray(arr)


#: The most bytes a scipy.sparse ``X`` may take once densified (float64) by the scikit-learn
#: estimators (``svmtune.SVC``, ``svmtune.TunedSVC``): 1 GiB. Their solvers work on dense rows.
DENSIFY_LIMIT_BYTES = 2**30


def densify(X: Any, *, name: str = "X") -> Any:
    """``X`` itself, or a scipy.sparse ``X`` as a dense float64 array: the same model as the
    dense array gives (the solvers compute dense kernel rows). A ValueError naming the size when
    the dense array would take more than :data:`DENSIFY_LIMIT_BYTES`.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> densify(sp.csr_matrix([[0.0, 1.0], [2.0, 0.0]])).tolist()
    [[0.0, 1.0], [2.0, 0.0]]
    """
    if not (hasattr(X, "tocsr") or hasattr(X, "nnz")):
        return X
    n, d = X.shape
    size = 8 * int(n) * int(d)
    if size > DENSIFY_LIMIT_BYTES:
        raise ValueError(
            f"{name} is a sparse matrix of shape ({n}, {d}): as the dense float64 array svmtune "
            f"trains on it would take {size / 2**30:.3g} GiB, above the limit of "
            f"{DENSIFY_LIMIT_BYTES / 2**30:.3g} GiB for densifying sparse input "
            "(svmtune._validation.DENSIFY_LIMIT_BYTES); reduce the features (e.g. "
            "OneHotEncoder(max_categories=...)) or the rows"
        )
    return np.ascontiguousarray(X.toarray(), dtype=np.float64)


def check_labels(y: ArrayLike, *, name: str = "y", min_per_class: int = 1) -> NDArray[np.float64]:
    """Return ``y`` as a float64 vector with values in {-1, +1}.

    Any two distinct labels are accepted only if they already are -1 and +1: mapping other label
    pairs is the data loader's job, and guessing which class is positive would be a silent wrong
    answer.
    """
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional; got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    try:
        arr = arr.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must hold the labels -1 and +1: {exc}") from exc
    classes = np.unique(arr)
    if not np.all(np.isin(classes, (-1.0, 1.0))):
        raise ValueError(f"{name} must hold only the labels -1 and +1; found {classes.tolist()}")
    if classes.size < 2:
        raise ValueError(
            f"{name} has a single class ({classes[0]:+.0f}); a classifier needs both -1 and +1"
        )
    counts = {int(c): int(np.sum(arr == c)) for c in classes}
    small = {c: k for c, k in counts.items() if k < min_per_class}
    if small:
        raise ValueError(
            f"{name} needs at least {min_per_class} points of each class; class counts are {counts}"
        )
    return np.ascontiguousarray(arr)


def check_Xy(
    X: ArrayLike, y: ArrayLike, *, min_per_class: int = 1
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Check ``X`` and ``y`` together (see :func:`check_X`, :func:`check_labels`)."""
    Xa = check_X(X)
    ya = check_labels(y, min_per_class=min_per_class)
    if Xa.shape[0] != ya.shape[0]:
        raise ValueError(
            f"X and y have mismatched lengths: X has {Xa.shape[0]} rows, y has {ya.shape[0]} labels"
        )
    return Xa, ya


def check_positive_int(value: object, name: str) -> int:
    """``value`` as int; ValueError naming it unless it is a positive integer."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}")
    return int(value)


def check_n_jobs(value: object, name: str = "n_jobs") -> None:
    """ValueError naming ``value`` unless it is None or a non-zero integer (joblib's meaning:
    :data:`svmtune._options.N_JOBS`)."""
    from svmtune._options import N_JOBS, check_value

    check_value(value, name, N_JOBS)


def check_positive(value: Any, *, name: str) -> float:
    """Return ``value`` as a float, refusing non-finite or non-positive values."""
    try:
        v = float(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a positive number; got {value!r}") from exc
    if not np.isfinite(v) or v <= 0:
        raise ValueError(f"{name} must be a positive finite number; got {value!r}")
    return v


def check_bounds(bounds: Any, *, name: str, positive: bool = True) -> tuple[float, float]:
    """Return ``bounds`` as a pair of finite floats ``(low, high)`` with ``low < high``.

    With ``positive`` (bounds of a log-scaled parameter) ``low`` must also be > 0.

    Examples
    --------
    >>> check_bounds((1e-3, 10), name="gamma_bounds")
    (0.001, 10.0)
    >>> check_bounds((1,), name="gamma_bounds")
    Traceback (most recent call last):
    ...
    ValueError: gamma_bounds must be a pair of numbers (low, high); got (1,)
    """
    if isinstance(bounds, str | bytes):
        raise ValueError(f"{name} must be a pair of numbers (low, high); got {bounds!r}")
    try:
        lo, hi = (float(b) for b in bounds)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a pair of numbers (low, high); got {bounds!r}") from exc
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ValueError(f"{name} must be finite with low < high; got {bounds!r}")
    if positive and lo <= 0:
        raise ValueError(f"{name} must satisfy 0 < low < high; got {bounds!r}")
    return lo, hi


def as_rng(seed: Any, *, name: str = "random_state") -> np.random.Generator:
    """``numpy.random.default_rng(seed)``, refusing what it cannot take with a clear error.

    Accepted: None (fresh entropy), a non-negative integer, a ``SeedSequence``, a ``BitGenerator``
    or a ``Generator`` (returned as is, so that its stream continues).

    Examples
    --------
    >>> float(as_rng(0).random()) == float(np.random.default_rng(0).random())
    True
    >>> as_rng("abc")
    Traceback (most recent call last):
    ...
    ValueError: random_state must be None, a non-negative integer, a numpy SeedSequence or a numpy Generator; got 'abc'
    """  # noqa: E501
    ok = seed is None or isinstance(
        seed, np.random.SeedSequence | np.random.BitGenerator | np.random.Generator
    )
    if not ok and isinstance(seed, int | np.integer) and not isinstance(seed, bool):
        ok = int(seed) >= 0
    if not ok:
        raise ValueError(
            f"{name} must be None, a non-negative integer, a numpy SeedSequence or a numpy "
            f"Generator; got {seed!r}"
        )
    return np.random.default_rng(seed)
