"""Search coordinates of a gradient descent: ``log`` of each log-scaled parameter, optionally
with every kernel width tied to one coordinate."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
from numpy.typing import NDArray

from svmtune.space import SearchSpace

__all__ = ["SearchCoordinates", "TiedCoordinates"]


class SearchCoordinates:
    """A search space in the coordinates gradients are given in: ``ln v`` for a log-scaled
    parameter, ``v`` otherwise; the box is the parameters' bounds."""

    def __init__(self, space: SearchSpace) -> None:
        self.space = space
        self.names = list(space.names)
        self.lo = np.array([math.log(p.low) if p.log else p.low for p in space])
        self.hi = np.array([math.log(p.high) if p.log else p.high for p in space])

    def to_x(self, params: Mapping[str, float]) -> NDArray[np.float64]:
        return np.array([math.log(params[p.name]) if p.log else params[p.name] for p in self.space])

    def to_params(self, x: NDArray[np.float64]) -> dict[str, float]:
        x = self.project(x)
        out = {}
        for p, v in zip(self.space, x, strict=True):
            val = math.exp(v) if p.log else float(v)
            out[p.name] = min(max(val, p.low), p.high)
        return out

    def project(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.clip(x, self.lo, self.hi)

    def grad(self, g: Mapping[str, float]) -> NDArray[np.float64]:
        return np.array([float(g.get(n, math.nan)) for n in self.names])


class TiedCoordinates:
    """Search coordinates with every kernel width (``gamma_<i>``) moving together: the other
    parameters, then one common shift ``s`` of the widths' logarithms from ``base``. The
    interface of :class:`SearchCoordinates` (what a descent needs)."""

    def __init__(
        self, coords: SearchCoordinates, widths: list[int], base: NDArray[np.float64]
    ) -> None:
        self.coords = coords
        self.space = coords.space
        self.widths = np.asarray(widths, dtype=np.intp)
        self.others = np.array(
            [i for i in range(len(coords.names)) if i not in set(widths)], dtype=np.intp
        )
        self.base = np.array(base, dtype=np.float64)
        w = self.widths
        self.lo = np.r_[coords.lo[self.others], np.max(coords.lo[w] - self.base[w])]
        self.hi = np.r_[coords.hi[self.others], np.min(coords.hi[w] - self.base[w])]
        self.z0 = np.r_[self.base[self.others], 0.0]

    def full(self, z: NDArray[np.float64]) -> NDArray[np.float64]:
        x = self.base.copy()
        x[self.others] = z[:-1]
        x[self.widths] = self.base[self.widths] + z[-1]
        return x

    def to_params(self, z: NDArray[np.float64]) -> dict[str, float]:
        return self.coords.to_params(self.full(self.project(z)))

    def project(self, z: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.clip(z, self.lo, self.hi)

    def grad(self, g: Mapping[str, float]) -> NDArray[np.float64]:
        gx = self.coords.grad(g)
        return np.r_[gx[self.others], np.sum(gx[self.widths])]
