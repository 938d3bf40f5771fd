"""Multi-class tasks as binary problems, and how the binary answers combine.

A task of ``k`` classes is split into one-vs-one problems (each pair of classes) or one-vs-rest
problems (each class against the others). Their decision values combine into one-vs-one votes
(ties broken by the summed confidences, as scikit-learn's ``SVC``) or the largest one-vs-rest
value; their probabilities into class probabilities by Wu, Lin and Weng's pairwise coupling
(their second method, as LIBSVM) or by normalizing the one-vs-rest ones.

:class:`svmtune.TunedSVC` tunes each binary problem on its own and predicts with these.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "Problem",
    "binary_problems",
    "class_probabilities",
    "couple_pairwise",
    "name_classes_in_error",
    "ovo_decision",
    "problem_name",
]

#: A binary problem: (negative class index, positive class index); ``None`` as the negative
#: index means "every other class" (one-vs-rest).
Problem = tuple[int | None, int]

#: LIBSVM's clipping of pairwise probabilities before coupling.
PAIRWISE_CLIP = 1e-7


def binary_problems(n_classes: int, multi_class: Literal["ovo", "ovr"]) -> list[Problem]:
    """The binary problems of a task of ``n_classes`` classes: the one problem ``(0, 1)`` for
    two classes, else every pair ``(i, j)``, ``i < j`` (``"ovo"``) or every ``(None, c)``
    (``"ovr"``).

    Examples
    --------
    >>> binary_problems(3, "ovo"), binary_problems(3, "ovr")
    ([(0, 1), (0, 2), (1, 2)], [(None, 0), (None, 1), (None, 2)])
    """
    if n_classes < 2:
        raise ValueError(f"a classification task needs at least 2 classes; got {n_classes}")
    if multi_class not in ("ovo", "ovr"):
        raise ValueError(f"multi_class must be 'ovo' or 'ovr'; got {multi_class!r}")
    if n_classes == 2:
        return [(0, 1)]
    if multi_class == "ovo":
        return [(i, j) for i in range(n_classes) for j in range(i + 1, n_classes)]
    return [(None, c) for c in range(n_classes)]


def problem_name(classes: NDArray[Any], problem: Problem) -> str:
    """``"a vs b"`` (negative class first) or ``"b vs rest"``.

    Examples
    --------
    >>> import numpy as np
    >>> problem_name(np.array(["x", "y", "z"]), (0, 2)), problem_name(np.array([4, 5]), (None, 1))
    ('x vs z', '5 vs rest')
    """
    neg, pos = problem
    if neg is None:
        return f"{classes[pos]} vs rest"
    return f"{classes[neg]} vs {classes[pos]}"


def ovo_decision(
    decisions: NDArray[np.float64], problems: Sequence[Problem], n_classes: int
) -> NDArray[np.float64]:
    """One-vs-one votes plus the summed confidences squashed into (-1/3, 1/3), per class
    (scikit-learn's ``SVC`` convention): the largest is the predicted class.

    ``decisions[:, col]`` is problem ``col``'s decision value, positive for its positive class.

    Examples
    --------
    >>> import numpy as np
    >>> d = np.array([[1.0, 2.0, -0.5]])  # 1 beats 0, 2 beats 0, 1 beats 2
    >>> ovo_decision(d, [(0, 1), (0, 2), (1, 2)], 3).argmax(axis=1).tolist()
    [1]
    """
    votes = np.zeros((decisions.shape[0], n_classes))
    conf = np.zeros((decisions.shape[0], n_classes))
    for col, (neg, pos) in enumerate(problems):
        if neg is None:
            raise ValueError(f"problem {col} is one-vs-rest; one-vs-one problems are needed")
        positive = decisions[:, col] >= 0.0
        votes[:, pos] += positive
        votes[:, neg] += ~positive
        conf[:, pos] += decisions[:, col]
        conf[:, neg] -= decisions[:, col]
    return votes + conf / (3.0 * (np.abs(conf) + 1.0))


def couple_pairwise(r: NDArray[np.float64]) -> NDArray[np.float64]:
    """Class probabilities from pairwise ones ``r[n, i, j] = P(i | i or j)`` by Wu, Lin and
    Weng's second method (as LIBSVM): ``min sum_i sum_{j != i} (r_ji p_i - r_ij p_j)^2`` subject
    to ``sum p = 1``, solved through its KKT system for every sample at once.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([[0.5, 0.3, 0.2]])
    >>> r = p[:, :, None] / (p[:, :, None] + p[:, None, :])  # consistent pairwise values
    >>> couple_pairwise(r).round(6).tolist()
    [[0.5, 0.3, 0.2]]
    """
    n, k, _ = r.shape
    rt = np.swapaxes(r, 1, 2)  # rt[n, i, j] = r_ji
    Q = -rt * r
    off = ~np.eye(k, dtype=bool)
    diag = np.sum(np.where(off, rt**2, 0.0), axis=2)
    Q[:, np.arange(k), np.arange(k)] = diag
    M = np.zeros((n, k + 1, k + 1))
    M[:, :k, :k] = Q
    M[:, :k, k] = 1.0
    M[:, k, :k] = 1.0
    rhs = np.zeros((n, k + 1, 1))
    rhs[:, k, 0] = 1.0
    p = np.linalg.solve(M, rhs)[:, :k, 0]
    p = np.clip(p, 0.0, None)
    return p / p.sum(axis=1, keepdims=True)


def class_probabilities(
    p: NDArray[np.float64], problems: Sequence[Problem], n_classes: int
) -> NDArray[np.float64]:
    """Class probabilities, shape ``(n_samples, n_classes)``, from each binary problem's
    probability of its positive class ``p[:, col]``: the two columns of a binary task, the
    normalized one-vs-rest probabilities, or the coupled one-vs-one ones
    (:func:`couple_pairwise`, pairwise values clipped to ``[1e-7, 1 - 1e-7]`` as LIBSVM).

    Examples
    --------
    >>> import numpy as np
    >>> class_probabilities(np.array([[0.6, 0.2, 0.2]]), [(None, 0), (None, 1), (None, 2)], 3)
    array([[0.6, 0.2, 0.2]])
    """
    if n_classes == 2:
        return np.column_stack([1.0 - p[:, 0], p[:, 0]])
    if problems[0][0] is None:  # one-vs-rest
        q = np.clip(p, 1e-12, None)
        return q / q.sum(axis=1, keepdims=True)
    r = np.full((p.shape[0], n_classes, n_classes), 0.5)
    for col, (neg, pos) in enumerate(problems):
        assert neg is not None
        pp = np.clip(p[:, col], PAIRWISE_CLIP, 1.0 - PAIRWISE_CLIP)
        r[:, pos, neg] = pp
        r[:, neg, pos] = 1.0 - pp
    return couple_pairwise(r)


def name_classes_in_error(
    exc: ValueError, classes: NDArray[Any], problem: Problem, yb: NDArray[Any]
) -> ValueError:
    """``exc`` of a binary problem's tuning, its -1/+1 class counts told in the user's
    classes (``{-1: 29, 1: 2}`` becomes ``{0: 29, 2: 2}``), and the problem named when the task
    has more than two classes.

    Examples
    --------
    >>> import numpy as np
    >>> err = ValueError("too few points: {-1: 3, 1: 1}")
    >>> str(name_classes_in_error(err, np.array(["a", "b"]), (0, 1), np.array([-1, -1, -1, 1])))
    "too few points: {'a': 3, 'b': 1}"
    """
    neg, pos = problem
    n_neg, n_pos = int(np.sum(yb < 0)), int(np.sum(yb > 0))
    neg_name = "rest" if neg is None else classes[neg].item()
    pos_name = classes[pos].item()
    theirs = {neg_name: n_neg, pos_name: n_pos}
    text = str(exc).replace(f"{{-1: {n_neg}, 1: {n_pos}}}", str(theirs))
    if len(classes) > 2 or text == str(exc):
        mine = f"{pos_name!r} vs rest" if neg is None else f"{neg_name!r} vs {pos_name!r}"
        text = f"the binary problem {mine} (class counts {theirs}) cannot be tuned: {text}"
    return ValueError(text)
