"""The search box of a tuner: a search space, optionally narrowed, in search coordinates.

Search coordinates are ``log2(value)`` for a log-scaled parameter and the value itself for a
linear one, so that a step of 1 is a factor of 2 (Carrizosa et al. 2014 search ``log C`` and
``log sigma`` on such a scale, with steps of 0.5).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
from numpy.typing import NDArray

from svmtune.space import Param, SearchSpace

__all__ = ["DEFAULT_BOX", "Box", "default_box", "narrow", "search_box"]

#: The search box every tuner searches unless a study or the tuner says otherwise: ``C`` in
#: 0.1..1000 and every kernel width (``gamma``, ``gamma_<i>``) in 0.001..10, on standardized
#: data. It is the box of the usual ``GridSearchCV(SVC(), ...)`` 5 x 5 recipe, so a grid, VNS,
#: TPE, random search and gradient descent compare on the same ground; ``1 / n_features`` (the
#: usual width) lies inside it for 1 to 1000 features. Other parameters (multiple-kernel
#: weights) keep their kernel model's bounds. Measured reasons: docs/defaults.md.
DEFAULT_BOX: dict[str, tuple[float, float]] = {"C": (1e-1, 1e3), "gamma": (1e-3, 1e1)}


def _default_key(name: str) -> str | None:
    if name == "C":
        return "C"
    if name == "gamma" or name.startswith("gamma_"):
        return "gamma"
    return None


def default_box(space: SearchSpace) -> dict[str, tuple[float, float]]:
    """The :data:`DEFAULT_BOX` entries of the parameters of ``space`` whose bounds contain the
    default range; a parameter whose bounds were narrowed elsewhere (e.g.
    ``RBF(gamma_bounds=(1e-5, 1e-2))``) keeps them, as the user chose.

    Examples
    --------
    >>> from svmtune.kernels import RBF
    >>> from svmtune.objectives import KFoldCV
    >>> default_box(KFoldCV().search_space(RBF()))
    {'C': (0.1, 1000.0), 'gamma': (0.001, 10.0)}
    """
    out = {}
    for p in space:
        key = _default_key(p.name)
        if key is None:
            continue
        lo, hi = DEFAULT_BOX[key]
        if p.low <= lo and hi <= p.high:
            out[p.name] = (lo, hi)
    return out


def search_box(space: SearchSpace, *boxes: Mapping[str, tuple[float, float]] | None) -> SearchSpace:
    """``space`` narrowed to :func:`default_box`, then to each of ``boxes`` in turn (a later
    one wins for the names it gives: a study's box, then a tuner's ``bounds``).

    ValueError for an unknown name, a malformed pair, or a box reaching outside ``space``.
    """
    merged: dict[str, tuple[float, float]] = dict(default_box(space))
    for b in boxes:
        if b is None:
            continue
        narrow(space, b)  # names, pairs and ranges checked against the full space
        merged.update(b)
    return narrow(space, merged)


def box_record(space: SearchSpace) -> dict[str, list[float]]:
    """``{name: [low, high]}`` of a search box (what a study stores with each cell)."""
    return {p.name: [float(p.low), float(p.high)] for p in space}


def narrow(space: SearchSpace, bounds: Mapping[str, tuple[float, float]] | None) -> SearchSpace:
    """``space`` with the parameters named in ``bounds`` restricted to ``(low, high)``.

    ValueError for an unknown name, a malformed pair, or bounds reaching outside the space.
    """
    if bounds is None:
        return space
    if not isinstance(bounds, Mapping):
        raise ValueError(f"bounds must be a mapping name -> (low, high); got {bounds!r}")
    unknown = [n for n in bounds if n not in space]
    if unknown:
        raise ValueError(
            f"bounds name parameters {unknown} not in the search space {list(space.names)}"
        )
    params = []
    for p in space:
        if p.name not in bounds:
            params.append(p)
            continue
        pair = bounds[p.name]
        try:
            lo, hi = (float(v) for v in pair)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"bounds[{p.name!r}] must be a pair (low, high); got {pair!r}"
            ) from exc
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise ValueError(f"bounds[{p.name!r}] must satisfy low < high; got {pair!r}")
        tol = 1e-12 * max(abs(p.low), abs(p.high), 1.0)
        if lo < p.low - tol or hi > p.high + tol:
            raise ValueError(
                f"bounds[{p.name!r}] = {pair!r} reach outside the parameter's range "
                f"[{p.low:g}, {p.high:g}]"
            )
        params.append(Param(p.name, max(lo, p.low), min(hi, p.high), p.log))
    return SearchSpace(tuple(params))


class Box:
    """A search space in search coordinates (``log2`` for log-scaled parameters)."""

    def __init__(self, space: SearchSpace) -> None:
        self.space = space
        self.log = np.array([p.log for p in space], dtype=bool)
        self.low = np.array([self._t(p, p.low) for p in space])
        self.high = np.array([self._t(p, p.high) for p in space])

    @staticmethod
    def _t(p: Param, v: float) -> float:
        return math.log2(v) if p.log else float(v)

    def coords(self, params: Mapping[str, float]) -> NDArray[np.float64]:
        """Natural-unit parameters -> search coordinates."""
        return np.array([self._t(p, float(params[p.name])) for p in self.space])

    def params(self, t: NDArray[np.float64]) -> dict[str, float]:
        """Search coordinates (clipped to the box) -> natural-unit parameters."""
        out = {}
        for i, p in enumerate(self.space):
            ti = min(max(float(t[i]), self.low[i]), self.high[i])
            v = 2.0**ti if p.log else ti
            out[p.name] = min(max(v, p.low), p.high)
        return out

    def center(self) -> NDArray[np.float64]:
        return 0.5 * (self.low + self.high)

    def uniform(self, rng: np.random.Generator) -> NDArray[np.float64]:
        """A point uniform in the box."""
        return rng.uniform(self.low, self.high)

    def contains(self, params: Mapping[str, float]) -> list[str]:
        """Names of the parameters of ``params`` outside the box (empty if inside)."""
        bad = []
        for p in self.space:
            v = float(params[p.name])
            tol = 1e-12 * max(abs(p.low), abs(p.high), 1.0)
            if not (p.low - tol <= v <= p.high + tol):
                bad.append(f"{p.name}={v:g} not in [{p.low:g}, {p.high:g}]")
        return bad

    def shake(
        self, t: NDArray[np.float64], radius: float, rng: np.random.Generator
    ) -> NDArray[np.float64]:
        """A point uniform in the infinity-norm ball of ``radius`` around ``t``, intersected
        with the box (itself a box, so the draw stays uniform and never leaves the box)."""
        lo = np.maximum(self.low, t - radius)
        hi = np.minimum(self.high, t + radius)
        return rng.uniform(lo, hi)
