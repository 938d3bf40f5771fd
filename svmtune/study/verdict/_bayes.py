"""Bayesian comparisons with a region of practical equivalence (Benavoli, Corani, Demšar and
Zaffalon, "Time for a change: a tutorial for comparing multiple classifiers through Bayesian
analysis", JMLR 2017), written with numpy and scipy alone.

- :func:`signed_rank` is the Bayesian signed-rank test across data sets: a Dirichlet process
  on the per-data-set differences, its prior one pseudo-observation of weight ``prior`` at 0;
  each posterior draw gives the masses of "the first is better", "equivalent" and "the second
  is better" (pairs of differences whose mean falls below, within or above the ROPE), and the
  probabilities are the fractions of draws in which each mass is the largest. The draws come
  from ``numpy.random.RandomState(seed).dirichlet`` (a stream numpy keeps fixed across
  versions) and every sum runs in numpy's own loops, not BLAS, so a report is the same to the
  digit on any machine and thread count.
- :func:`correlated_t` is the Bayesian correlated t-test over the splits of one data set: the
  splits share training points, so the variance of the mean difference is corrected by
  Nadeau and Bengio's factor ``1/n + rho/(1 - rho)`` with ``rho = n_test / n_total``; the
  posterior of the mean difference is a Student t with ``n - 1`` degrees of freedom.
- :func:`verdict_word`: one word from the three probabilities.

Both agree with the ``baycomp`` package (Benavoli et al.'s reference code) to the last digit
on the same seed (``tests/study/test_bayes.py``).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

__all__ = [
    "DECISION_LEVEL",
    "ROPE",
    "correlated_t",
    "per_dataset_tests",
    "signed_rank",
    "verdict_word",
]

#: The region of practical equivalence in test-error units: 1 point of test error (0.01).
ROPE = 0.01
#: A verdict other than "undecided" needs this posterior probability.
DECISION_LEVEL = 0.95


def _check(a: ArrayLike, b: ArrayLike, rope: float) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    if x.ndim != 1 or x.shape != y.shape or x.size < 2:
        raise ValueError(
            f"need two 1-d arrays of the same length >= 2; got shapes {x.shape} and {y.shape}"
        )
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError("the compared values must be finite")
    if not (isinstance(rope, float | int) and math.isfinite(rope) and rope >= 0):
        raise ValueError(f"rope must be a non-negative number; got {rope!r}")
    return x, y


def signed_rank(
    errors_a: ArrayLike,
    errors_b: ArrayLike,
    *,
    rope: float = ROPE,
    prior: float = 0.5,
    nsamples: int = 50000,
    seed: int = 0,
) -> tuple[float, float, float]:
    """Bayesian signed-rank test of ``a`` against ``b`` over data sets (lower is better).

    Parameters
    ----------
    errors_a, errors_b : array of shape (n_datasets,)
        Each method's mean test error per data set.
    rope : float, default 0.01
        Half-width of the region of practical equivalence, in error units.
    prior : float, default 0.5
        Weight of the prior pseudo-observation at difference 0.
    nsamples : int, default 50000
        Posterior draws.
    seed : int, default 0
        Seed of the draws.

    Returns
    -------
    (p_a_better, p_equivalent, p_a_worse) : tuple of float
        With ``rope == 0`` the middle one is 0.

    Examples
    --------
    >>> a = [0.10, 0.20, 0.15, 0.30, 0.12, 0.25]
    >>> b = [0.15, 0.26, 0.18, 0.36, 0.19, 0.30]
    >>> [round(p, 3) for p in signed_rank(a, b, nsamples=2000)]
    [1.0, 0.0, 0.0]
    """
    x, y = _check(errors_a, errors_b, rope)
    if not (isinstance(nsamples, int) and nsamples > 0):
        raise ValueError(f"nsamples must be a positive integer; got {nsamples!r}")
    if not (isinstance(prior, float | int) and prior > 0):
        raise ValueError(f"prior must be positive; got {prior!r}")
    z = np.concatenate(([0.0], x - y))  # negative: a has the lower error
    sums = z[:, None] + z[None, :]
    weights = np.ones(z.size)
    weights[0] = prior
    draws = np.random.RandomState(seed).dirichlet(weights, nsamples)

    def mass(indicator: np.ndarray) -> np.ndarray:
        # sum_ij w_i w_j H_ij per draw, in numpy's loops (no BLAS: no thread-dependent sums)
        return np.einsum("si,si->s", np.einsum("sj,ij->si", draws, indicator), draws)

    def heaviside(v: np.ndarray, t: float) -> np.ndarray:
        return (v > t).astype(float) + 0.5 * (v == t).astype(float)

    below = mass(heaviside(-sums, 2 * rope))
    if rope > 0:
        above = mass(heaviside(sums, 2 * rope))
        inside = 1.0 - below - above
        winner = np.argmax(np.stack([below, inside, above], axis=1), axis=1)
    else:
        above = 1.0 - below
        winner = np.where(above > below, 2, 0)
    counts = np.bincount(winner, minlength=3) / nsamples
    return float(counts[0]), float(counts[1]), float(counts[2])


def correlated_t(
    errors_a: ArrayLike, errors_b: ArrayLike, *, rho: float, rope: float = ROPE
) -> tuple[float, float, float]:
    """Bayesian correlated t-test of ``a`` against ``b`` over the splits of one data set.

    Parameters
    ----------
    errors_a, errors_b : array of shape (n_splits,)
        Test errors of the two methods on the same splits.
    rho : float
        Correlation of the splits' differences: the test fraction ``n_test / n_total`` for
        random train/test splits (Nadeau and Bengio), ``1 / k`` for k-fold CV.
    rope : float, default 0.01
        Half-width of the region of practical equivalence.

    Returns
    -------
    (p_a_better, p_equivalent, p_a_worse) : tuple of float
        Exact Student-t probabilities (no sampling).

    Examples
    --------
    >>> a = [0.10, 0.12, 0.11, 0.09, 0.10]
    >>> b = [0.15, 0.16, 0.13, 0.14, 0.16]
    >>> [round(p, 3) for p in correlated_t(a, b, rho=0.3)]
    [0.976, 0.018, 0.005]
    """
    from scipy import stats

    x, y = _check(errors_a, errors_b, rope)
    if not (isinstance(rho, float | int) and 0 <= rho < 1):
        raise ValueError(f"rho must be in [0, 1); got {rho!r}")
    d = x - y  # negative: a has the lower error
    n = d.size
    mean = float(np.mean(d))
    var = float(np.var(d, ddof=1)) * (1.0 / n + rho / (1.0 - rho))
    if var == 0:
        better = float(mean < -rope) if rope > 0 else float(mean < 0) + 0.5 * float(mean == 0)
        worse = float(mean > rope) if rope > 0 else 1.0 - better
    else:
        scale = math.sqrt(var)
        better = float(stats.t.cdf(-rope, n - 1, mean, scale))
        worse = float(stats.t.sf(rope, n - 1, mean, scale))
    return better, max(0.0, 1.0 - better - worse), worse


def verdict_word(
    p_better: float, p_equivalent: float, p_worse: float, *, level: float = DECISION_LEVEL
) -> str:
    """``"better"``, ``"equivalent"`` or ``"worse"`` when that probability reaches ``level``;
    else ``"undecided"``.

    Examples
    --------
    >>> verdict_word(0.01, 0.97, 0.02), verdict_word(0.5, 0.3, 0.2)
    ('equivalent', 'undecided')
    """
    for word, p in (("better", p_better), ("equivalent", p_equivalent), ("worse", p_worse)):
        if p >= level:
            return word
    return "undecided"


def _wilcoxon_p(d: np.ndarray) -> float:
    """Wilcoxon's signed-rank p-value of the differences ``d`` (zero differences split)."""
    if np.all(d == 0):
        return 1.0
    from scipy import stats

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(stats.wilcoxon(d, zero_method="zsplit").pvalue)


def per_dataset_tests(
    per_split: pd.DataFrame,
    baseline: str,
    *,
    rho: Mapping[str, float] | None = None,
    rope: float = ROPE,
    default_rho: float = 0.3,
) -> pd.DataFrame:
    """Every method against ``baseline`` on each data set, over that data set's splits.

    Parameters
    ----------
    per_split : DataFrame
        (dataset, split) x method test errors (``Comparison.per_split``).
    baseline : str
        A column of ``per_split``.
    rho : mapping data set -> float, optional
        Test fraction of each data set's splits; ``default_rho`` where absent.
    rope : float, default 0.01

    Returns
    -------
    DataFrame indexed by (dataset, method): ``splits``, ``mean_diff`` (method minus baseline),
    ``wilcoxon_p``, ``p_better``, ``p_rope``, ``p_worse``, ``verdict``. A data set with a
    single split gets NaN tests and verdict "undecided".

    Examples
    --------
    >>> import pandas as pd
    >>> idx = pd.MultiIndex.from_product([["d"], range(6)], names=["dataset", "split"])
    >>> e = pd.DataFrame({"a": [.10, .12, .11, .10, .13, .12],
    ...                   "b": [.20, .21, .19, .22, .20, .21]}, index=idx)
    >>> per_dataset_tests(e, "b").loc[("d", "a"), "verdict"]
    'better'
    """
    if baseline not in per_split.columns:
        raise ValueError(f"unknown baseline {baseline!r}; the methods are {list(per_split)}")
    rho = dict(rho or {})
    rows = []
    for d, block in per_split.groupby(level="dataset", sort=False):
        base = block[baseline].to_numpy()
        for m in per_split.columns:
            if m == baseline:
                continue
            e = block[m].to_numpy()
            row: dict[str, object] = {"dataset": d, "method": m, "splits": len(e)}
            row["mean_diff"] = float(np.mean(e - base))
            if len(e) >= 2:
                p = correlated_t(e, base, rho=rho.get(str(d), default_rho), rope=rope)
                row.update(wilcoxon_p=_wilcoxon_p(e - base), p_better=p[0], p_rope=p[1])
                row.update(p_worse=p[2], verdict=verdict_word(*p))
            else:
                row.update(wilcoxon_p=math.nan, p_better=math.nan, p_rope=math.nan)
                row.update(p_worse=math.nan, verdict="undecided")
            rows.append(row)
    return pd.DataFrame(rows).set_index(["dataset", "method"])
