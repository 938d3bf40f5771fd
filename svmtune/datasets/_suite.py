"""The benchmark suite: 42 binary problems from 42 distinct base data sets, and its rule.

Selection rule (written down before any result was seen)
--------------------------------------------------------
1. **One task per base data set.** Tasks cut from one base set (KEEL's many ``ecoli-*``,
   ``yeast-*`` tasks, the even/odd and small/large digit tasks) share their rows and are not
   independent problems; a test across data sets counts problems, so each base set gives one.
   The bundled sets give their first task (``optdigits-eo``, ``penbased-eo``; ``german``, not
   its numeric recoding ``german-numeric``).
2. **Multi-class to binary.** A multi-class set (vehicle, vowel, wine, ...) becomes the
   ``-halves`` task: its classes in natural label order, the first ``ceil(k / 2)`` of them
   +1 and the rest -1 (the rule behind the small/large digit tasks). No class is dropped.
3. **Imbalance.** Only tasks whose majority/minority ratio is at most 9 are taken (KEEL's
   imbalanced sets give their least imbalanced task: ``ecoli1``, ``glass1``, ``yeast1``,
   ``page-blocks0``). On such a task always predicting the majority class errs on at least
   10 % of the points, so the **test error rate** (the verdict's metric on every problem) still
   weighs the minority class. The verdict scores error rate, not balanced error, because every
   tuner in the study minimizes the cross-validated error rate: judging them on another metric
   would measure the mismatch of metrics, not the tuning. :func:`suite_table` shows each
   problem's majority-class error (what a constant prediction scores) beside it.
4. **Size.** A set of more than :data:`MAX_ROWS` rows is replaced by a stratified subsample of
   :data:`MAX_ROWS` rows, drawn once with seed 0 (the same rows in every run); the study's
   split (70 % train / 30 % test) then runs on those rows. Tuning cost grows faster than
   linearly in the training size, and the suite must run in about an hour on 2 cores.
5. **Order.** Cheapest first (rows after the size rule, then features), so a reduced run that
   keeps the first ``n`` problems keeps the cheapest ones.

Every problem is bundled (``data/*.dat.gz``, KEEL copies of UCI data, CC BY 4.0: cite the UCI
repository and Alcala-Fdez et al. 2011).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from svmtune.datasets._load import load
from svmtune.datasets._registry import DATASETS, SOURCES

__all__ = [
    "MAX_IMBALANCE",
    "MAX_ROWS",
    "SUITE",
    "SuiteLoader",
    "load_problem",
    "suite_problems",
    "suite_table",
]

#: Rows a problem keeps (rule 4): larger sets are stratified-subsampled to this many.
MAX_ROWS = 600
#: Largest majority/minority ratio a problem may have (rule 3).
MAX_IMBALANCE = 9.0

#: The bundled data sets' tasks in the suite (one per base set), then the KEEL additions.
_BUNDLED = (
    "australian", "wisconsin", "bupa", "german", "heart", "ionosphere", "pima", "sonar", "wdbc",
    "breast", "banana", "ring", "twonorm", "titanic", "splice", "image", "new-thyroid1",
    "penbased-eo", "optdigits-eo", "spambase",
)  # fmt: skip
_KEEL = (
    "bands", "monk-2", "tic-tac-toe", "mushroom", "chess", "vehicle-halves", "vowel-halves",
    "wine-halves", "cmc-halves", "sat-halves", "texture-halves",
    "led7-halves", "libras-halves", "hayes-halves", "tae-halves", "iris-halves",
    "market-halves", "letter-halves", "ecoli1", "glass1", "yeast1", "page-blocks0",
)  # fmt: skip


@dataclass(frozen=True)
class Problem:
    """One problem of the suite: the bundled task, its base data set, and its size in use."""

    name: str
    base: str
    rows: int
    rows_used: int
    features: int
    positives: int
    imbalance: float


def _problem(name: str) -> Problem:
    info = DATASETS[name]
    rows = SOURCES[info.source].rows
    minority = min(info.positives, rows - info.positives)
    return Problem(
        name=name,
        base=info.source,
        rows=rows,
        rows_used=min(rows, MAX_ROWS),
        features=info.features,
        positives=info.positives,
        imbalance=(rows - minority) / minority,
    )


def suite_problems() -> list[Problem]:
    """The suite's problems, cheapest first (rule 5).

    Examples
    --------
    >>> from svmtune.datasets import suite_problems
    >>> ps = suite_problems()
    >>> len(ps), len({p.base for p in ps})
    (42, 42)
    """
    ps = [_problem(n) for n in (*_BUNDLED, *_KEEL)]
    return sorted(ps, key=lambda p: (p.rows_used, p.features, p.name))


#: Problem name -> its record, cheapest first.
SUITE: dict[str, Problem] = {p.name: p for p in suite_problems()}


def _stratified_rows(y: NDArray[np.float64], size: int, seed: int) -> NDArray[np.intp]:
    """``size`` row indices, each class in proportion (largest remainders), sorted."""
    rng = np.random.default_rng(seed)
    classes = np.unique(y)
    counts = np.array([(y == c).sum() for c in classes])
    share = counts * size / len(y)
    take = np.floor(share).astype(int)
    extra = size - take.sum()
    take[np.argsort(-(share - take), kind="stable")[:extra]] += 1
    parts = [
        rng.choice(np.flatnonzero(y == c), k, replace=False)
        for c, k in zip(classes, take, strict=True)
    ]
    return np.sort(np.concatenate(parts))


@functools.cache
def _problem_arrays(name: str) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    X, y = load(name)
    if len(y) > MAX_ROWS:
        idx = _stratified_rows(y, MAX_ROWS, seed=0)
        X, y = X[idx], y[idx]
    X.setflags(write=False)
    y.setflags(write=False)
    return X, y


def load_problem(name: str) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """A suite problem as ``(X, y)``: the bundled task after the size rule (rule 4).

    Parameters
    ----------
    name : str
        A key of :data:`SUITE`.

    Returns
    -------
    X : ndarray of shape (rows_used, features)
    y : ndarray of shape (rows_used,), labels in {-1, +1}

    Examples
    --------
    >>> from svmtune.datasets import load_problem
    >>> X, y = load_problem("mushroom")
    >>> X.shape, int((y == 1).sum())
    ((600, 98), 229)
    """
    if name not in SUITE:
        raise ValueError(f"unknown suite problem {name!r}; the suite is {list(SUITE)}")
    X, y = _problem_arrays(name)
    return X.copy(), y.copy()


@dataclass(frozen=True)
class SuiteLoader:
    """A study's loader of one suite problem: ``SuiteLoader("mushroom")()`` is
    ``load_problem("mushroom")``. Picklable, and it knows its size (``n_rows``), so a study
    can start its longest cells first.

    Examples
    --------
    >>> from svmtune.datasets import SuiteLoader
    >>> loader = SuiteLoader("heart")
    >>> loader.n_rows, loader()[0].shape
    (270, (270, 23))
    """

    name: str

    def __post_init__(self) -> None:
        if self.name not in SUITE:
            raise ValueError(f"unknown suite problem {self.name!r}; the suite is {list(SUITE)}")

    @property
    def n_rows(self) -> int:
        return SUITE[self.name].rows_used

    def __call__(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        return load_problem(self.name)


def suite_table() -> pd.DataFrame:
    """The suite as a table, cheapest first: ``name``, ``base`` (KEEL file), ``rows`` (in the
    file), ``rows_used`` (after the size rule), ``features``, ``positives`` (in the file),
    ``imbalance`` (majority/minority) and ``majority_error`` (the error rate of always
    predicting the majority class, in percent). Nothing is parsed.

    Examples
    --------
    >>> from svmtune.datasets import suite_table
    >>> t = suite_table()
    >>> bool((t["imbalance"] <= 9).all()), t["base"].nunique()
    (True, 42)
    """
    rows = []
    for p in SUITE.values():
        minority = min(p.positives, p.rows - p.positives)
        rows.append(
            {
                "name": p.name,
                "base": p.base,
                "rows": p.rows,
                "rows_used": p.rows_used,
                "features": p.features,
                "positives": p.positives,
                "imbalance": round(p.imbalance, 2),
                "majority_error": round(100 * minority / p.rows, 1),
            }
        )
    return pd.DataFrame.from_records(rows)
