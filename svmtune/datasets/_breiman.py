"""Breiman's synthetic problems, drawn at any size from a seed.

Definitions (Breiman 1996, "Bias, variance and arcing classifiers", Technical Report 460,
Statistics Department, UC Berkeley; waveform from Breiman, Friedman, Olshen and Stone 1984,
"Classification and Regression Trees", section 2.6.2). Class 1 is labelled +1.

- ``twonorm`` (20-d): class 1 is N((a, ..., a), I), class 2 is N((-a, ..., -a), I),
  a = 2 / sqrt(20). The means are 4 apart, so the Bayes rule ``sign(sum(x))`` errs with
  probability Phi(-2) = 2.28 %.
- ``ringnorm`` (20-d): class 1 is N(0, 4 I), class 2 is N((a, ..., a), I), a = 1 / sqrt(20)
  (Breiman reports a Bayes error of 1.3 %; the exact likelihood-ratio rule errs on 1.5 % of
  100,000 points drawn here, tests/datasets/test_breiman.py).
- ``threenorm`` (20-d): class 1 is an equal mixture of N((a, ..., a), I) and
  N((-a, ..., -a), I); class 2 is N((a, -a, a, -a, ...), I); a = 2 / sqrt(20)
  (Bayes error about 10.5 %).
- ``waveform`` (21-d): with the triangular base waves h1(j) = max(6 - |j - 11|, 0),
  h2(j) = h1(j - 4), h3(j) = h1(j + 4) (j = 1..21), u ~ U(0, 1) and N(0, 1) noise in every
  coordinate, class 1 is u h1 + (1 - u) h2, class 2 is u h1 + (1 - u) h3 and class 3 is
  u h2 + (1 - u) h3. The binary task is **class 1 against classes 2 and 3** (one against the
  rest, about a third +1, as in Ratsch's benchmark copy of waveform).

Class sizes are exact, not drawn: a two-class problem of ``n`` points has ``ceil(n / 2)``
points of class 1; waveform has ``n // 3`` points of each class, the first ``n % 3`` classes
one more. Rows come in a random order. Everything is drawn from
``numpy.random.default_rng(seed)``, so one ``(name, n, seed)`` gives the same arrays on every
machine with the same NumPy bit generator (PCG64).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import NDArray

__all__ = ["GENERATORS", "Generator", "generate", "generator_table", "waveform_bases"]

_Arrays = tuple[NDArray[np.float64], NDArray[np.float64]]


def _class_sizes(n: int, k: int) -> list[int]:
    return [n // k + (1 if c < n % k else 0) for c in range(k)]


def _shuffled(rng: np.random.Generator, parts: list[NDArray[np.float64]], labels: list[float]):
    X = np.vstack(parts)
    y = np.concatenate([np.full(len(p), lab) for p, lab in zip(parts, labels, strict=True)])
    order = rng.permutation(len(y))
    return np.ascontiguousarray(X[order]), y[order]


def _twonorm(n: int, rng: np.random.Generator) -> _Arrays:
    d, a = 20, 2.0 / math.sqrt(20.0)
    n1, n2 = _class_sizes(n, 2)
    c1 = rng.standard_normal((n1, d)) + a
    c2 = rng.standard_normal((n2, d)) - a
    return _shuffled(rng, [c1, c2], [1.0, -1.0])


def _ringnorm(n: int, rng: np.random.Generator) -> _Arrays:
    d, a = 20, 1.0 / math.sqrt(20.0)
    n1, n2 = _class_sizes(n, 2)
    c1 = 2.0 * rng.standard_normal((n1, d))  # variance 4
    c2 = rng.standard_normal((n2, d)) + a
    return _shuffled(rng, [c1, c2], [1.0, -1.0])


def _threenorm(n: int, rng: np.random.Generator) -> _Arrays:
    d, a = 20, 2.0 / math.sqrt(20.0)
    n1, n2 = _class_sizes(n, 2)
    sign = np.where(rng.random(n1) < 0.5, 1.0, -1.0)  # which mixture component
    c1 = rng.standard_normal((n1, d)) + a * sign[:, None]
    alternating = a * np.where(np.arange(d) % 2 == 0, 1.0, -1.0)
    c2 = rng.standard_normal((n2, d)) + alternating
    return _shuffled(rng, [c1, c2], [1.0, -1.0])


def waveform_bases() -> NDArray[np.float64]:
    """The three base waves h1, h2, h3 of waveform, as a (3, 21) array (rows h1, h2, h3).

    Examples
    --------
    >>> from svmtune.datasets import waveform_bases
    >>> h = waveform_bases()
    >>> h.shape, [int(row.argmax()) + 1 for row in h]
    ((3, 21), [11, 15, 7])
    """
    j = np.arange(1, 22, dtype=np.float64)
    h1 = np.maximum(6.0 - np.abs(j - 11.0), 0.0)
    h2 = np.maximum(6.0 - np.abs(j - 4.0 - 11.0), 0.0)  # h1(j - 4)
    h3 = np.maximum(6.0 - np.abs(j + 4.0 - 11.0), 0.0)  # h1(j + 4)
    return np.vstack([h1, h2, h3])


#: Waveform's classes as pairs of base waves (0-based rows of :func:`waveform_bases`).
_WAVE_PAIRS = ((0, 1), (0, 2), (1, 2))


def _waveform(n: int, rng: np.random.Generator) -> _Arrays:
    h = waveform_bases()
    parts = []
    for (p, q), size in zip(_WAVE_PAIRS, _class_sizes(n, 3), strict=True):
        u = rng.random(size)[:, None]
        parts.append(u * h[p] + (1.0 - u) * h[q] + rng.standard_normal((size, 21)))
    return _shuffled(rng, parts, [1.0, -1.0, -1.0])


@dataclass(frozen=True)
class Generator:
    """One of Breiman's generators.

    Attributes
    ----------
    name : str
        The name :func:`generate` takes.
    features : int
        Columns of ``X``.
    positives : float
        Share of +1 labels (exactly ``ceil(n / 2) / n`` or the waveform rule).
    bayes_error : float
        The Bayes error rate of the binary task in percent (twonorm: exact; ringnorm and
        threenorm: the exact rule's error on 100,000 draws, to 0.2 %; NaN for waveform's
        one-against-the-rest task, whose Bayes error is not known in closed form: the
        three-class problem's is about 14 %).
    definition : str
        The classes, in one line.
    """

    name: str
    features: int
    positives: float
    bayes_error: float
    definition: str
    draw: Callable[[int, np.random.Generator], _Arrays]


GENERATORS: dict[str, Generator] = {
    g.name: g
    for g in (
        Generator("twonorm", 20, 0.5, 2.28, "N(+a1, I) vs N(-a1, I), a = 2/sqrt(20)", _twonorm),
        Generator("ringnorm", 20, 0.5, 1.5, "N(0, 4I) vs N(a1, I), a = 1/sqrt(20)", _ringnorm),
        Generator(
            "threenorm",
            20,
            0.5,
            10.5,
            "N(+-a1, I) mix vs N((a,-a,...), I), a = 2/sqrt(20)",
            _threenorm,
        ),
        Generator(
            "waveform",
            21,
            1.0 / 3.0,
            math.nan,
            "class 1 vs classes 2, 3 of 3 base waves",
            _waveform,
        ),
    )
}


def generate(name: str, *, n: int, seed: int = 0) -> _Arrays:
    """Draw ``n`` points of Breiman's problem ``name`` (twonorm, ringnorm, threenorm, waveform).

    Parameters
    ----------
    name : str
        A key of :data:`GENERATORS`.
    n : int
        Number of points, at least 2 (3 for waveform): every class gets a point.
    seed : int, default 0
        Seed of :func:`numpy.random.default_rng`; one ``(name, n, seed)`` is one data set.

    Returns
    -------
    X : ndarray of shape (n, features), float64
    y : ndarray of shape (n,), labels in {-1, +1}; +1 is class 1 (see the module docstring).

    Raises
    ------
    ValueError
        For an unknown ``name`` (listing the valid ones), or an ``n`` too small for every class
        to get a point.

    Examples
    --------
    >>> from svmtune.datasets import generate
    >>> X, y = generate("twonorm", n=1001, seed=3)
    >>> X.shape, int((y == 1).sum())
    ((1001, 20), 501)
    """
    if name not in GENERATORS:
        raise ValueError(f"unknown generator {name!r}; valid names are {sorted(GENERATORS)}")
    classes = 3 if name == "waveform" else 2
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < classes:
        raise ValueError(f"n={n!r} must be an integer of at least {classes} for {name!r}")
    return GENERATORS[name].draw(int(n), np.random.default_rng(seed))


def generator_table() -> pd.DataFrame:
    """Breiman's generators as a table: ``name``, ``features``, ``positives``,
    ``bayes_error`` (percent) and ``definition``.

    Examples
    --------
    >>> from svmtune.datasets import generator_table
    >>> list(generator_table()["name"])
    ['twonorm', 'ringnorm', 'threenorm', 'waveform']
    """
    return pd.DataFrame.from_records(
        [
            {
                "name": g.name,
                "features": g.features,
                "positives": round(g.positives, 3),
                "bayes_error": g.bayes_error,
                "definition": g.definition,
            }
            for g in GENERATORS.values()
        ]
    )
