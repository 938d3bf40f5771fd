"""Hyperparameter search spaces.

A :class:`Param` is one named hyperparameter with bounds and a scale; a :class:`SearchSpace` is an
ordered tuple of them. Parameters live in natural units in dicts (``{"gamma": 0.1, "C": 10.0}``);
tuners work in the unit box ``[0, 1]^d``, where a log-scaled parameter is mapped through its
logarithm.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["Param", "SearchSpace"]


@dataclass(frozen=True)
class Param:
    """One hyperparameter: a name, closed bounds ``[low, high]`` and a scale.

    Parameters
    ----------
    name : str
        Key of the parameter in parameter dicts.
    low, high : float
        Bounds, ``low < high``; both positive when ``log`` is true.
    log : bool
        Search on a logarithmic scale.

    Examples
    --------
    >>> p = Param("gamma", 1e-3, 1e3)
    >>> p.to_unit(1.0)
    0.5
    >>> round(p.from_unit(0.5), 12)
    1.0
    """

    name: str
    low: float
    high: float
    log: bool = True

    def __post_init__(self) -> None:
        if not (math.isfinite(self.low) and math.isfinite(self.high)) or not self.low < self.high:
            raise ValueError(
                f"parameter {self.name!r} needs finite bounds with low < high; "
                f"got low={self.low!r}, high={self.high!r}"
            )
        if self.log and self.low <= 0:
            raise ValueError(
                f"log-scaled parameter {self.name!r} needs low > 0; got low={self.low!r}"
            )

    def _t(self, v: float) -> float:
        return math.log(v) if self.log else v

    def to_unit(self, value: float) -> float:
        """Map a natural value to ``[0, 1]`` (values outside the bounds map outside)."""
        lo, hi = self._t(self.low), self._t(self.high)
        return (self._t(float(value)) - lo) / (hi - lo)

    def from_unit(self, u: float) -> float:
        """Map ``u`` in ``[0, 1]`` (clipped) back to natural units, exactly hitting the bounds."""
        u = min(max(float(u), 0.0), 1.0)
        if u == 0.0:
            return float(self.low)
        if u == 1.0:
            return float(self.high)
        lo, hi = self._t(self.low), self._t(self.high)
        t = lo + u * (hi - lo)
        v = math.exp(t) if self.log else t
        return float(min(max(v, self.low), self.high))

    def check(self, value: object) -> float:
        """Return ``value`` as float; ValueError naming it if non-finite or out of bounds."""
        try:
            v = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{self.name} must be a number; got {value!r}") from exc
        if not math.isfinite(v):
            raise ValueError(f"{self.name} must be finite; got {value!r}")
        # Tolerate round-off at the bounds from unit-box round trips.
        tol = 1e-12 * max(abs(self.low), abs(self.high), 1.0)
        if v < self.low - tol or v > self.high + tol:
            raise ValueError(
                f"{self.name}={value!r} is outside its bounds [{self.low:g}, {self.high:g}]"
            )
        return min(max(v, self.low), self.high)


@dataclass(frozen=True)
class SearchSpace:
    """An ordered collection of :class:`Param` with unique names.

    Examples
    --------
    >>> s = SearchSpace((Param("C", 1e-2, 1e4), Param("gamma", 1e-4, 1e2)))
    >>> s.names
    ('C', 'gamma')
    >>> {k: round(v, 9) for k, v in s.from_unit([0.5, 0.5]).items()}
    {'C': 10.0, 'gamma': 0.1}
    """

    params: tuple[Param, ...]

    def __post_init__(self) -> None:
        names = [p.name for p in self.params]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"search space has duplicate parameter names: {dup}")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    def __len__(self) -> int:
        return len(self.params)

    def __iter__(self) -> Iterator[Param]:
        return iter(self.params)

    def __contains__(self, name: object) -> bool:
        return name in self.names

    def __getitem__(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def __add__(self, other: SearchSpace) -> SearchSpace:
        return SearchSpace(self.params + other.params)

    def check(self, values: Mapping[str, object]) -> dict[str, float]:
        """Validate a parameter dict: exactly this space's names, each finite and within bounds."""
        if not isinstance(values, Mapping):
            raise ValueError(f"parameters must be a mapping name -> value; got {values!r}")
        missing = [n for n in self.names if n not in values]
        extra = [n for n in values if n not in self.names]
        if missing or extra:
            parts = []
            if missing:
                parts.append(f"missing {missing}")
            if extra:
                parts.append(f"unknown {extra}")
            raise ValueError(
                f"parameters {dict(values)!r} do not match the search space {list(self.names)}: "
                + ", ".join(parts)
            )
        return {p.name: p.check(values[p.name]) for p in self.params}

    def to_unit(self, values: Mapping[str, float]) -> NDArray[np.float64]:
        """Natural-unit dict -> point of the unit box."""
        return np.array([p.to_unit(values[p.name]) for p in self.params], dtype=np.float64)

    def from_unit(self, u: ArrayLike) -> dict[str, float]:
        """Point of the unit box (clipped) -> natural-unit dict."""
        arr = np.asarray(u, dtype=np.float64).ravel()
        if arr.size != len(self.params):
            raise ValueError(
                f"expected a point with {len(self.params)} coordinates; got {arr.size}"
            )
        return {p.name: p.from_unit(float(v)) for p, v in zip(self.params, arr, strict=True)}

    def center(self) -> dict[str, float]:
        """The centre of the unit box in natural units (geometric mean for log parameters)."""
        return self.from_unit(np.full(len(self.params), 0.5))
