"""The prepared statistics of a :class:`~svmtune.kernels.MultipleKernel`: cached matrices and
the recipe that turns them into a Gram matrix (and its derivatives)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, cast

import numpy as np
from numpy.typing import NDArray

from svmtune.kernels._base import KernelModel, PreparedKernel
from svmtune.kernels._combine import scaled_exp, weighted_exp_sum, weighted_sum

__all__ = ["TUNED_WIDTHS", "PreparedMultipleKernel"]

TUNED_WIDTHS = ("common_width", "weights_widths")
"""The forms whose RBF widths are tuned."""


class _Combination(Protocol):
    """What the prepared statistics read of their :class:`~svmtune.kernels.MultipleKernel`
    (named by shape, so that this module does not import the model's module, which imports
    this one)."""

    form: str
    _base_groups: list[int]
    _weight_names: list[str]

    @property
    def n_base_kernels(self) -> int: ...

    def _weights_gammas(self, params: Mapping[str, float]) -> tuple[list[float], list[float]]: ...


class PreparedMultipleKernel(PreparedKernel):
    """Cached matrices plus the recipe that turns them into a Gram.

    ``mode`` is ``"sum"`` (one matrix, the sum of the fixed base kernels), ``"bank"`` (one matrix
    per base kernel) or ``"dist"`` (one squared-distance matrix per group).
    """

    def __init__(
        self,
        model: KernelModel,
        mode: str,
        mats: list[NDArray[np.float64]],
    ) -> None:
        super().__init__(model, mats[0].shape)
        self.mode = mode
        self.mats = mats
        self._model = cast(_Combination, model)

    def _gram(self, params: dict[str, float]) -> NDArray[np.float64]:
        model = self._model
        weights, gammas = model._weights_gammas(params)
        if self.mode == "sum":
            # All weights are the common mu (form "common").
            return weighted_sum([(self.mats[0], weights[0])])
        if self.mode == "bank":
            return weighted_sum(list(zip(self.mats, weights, strict=True)))
        terms = [
            (self.mats[t], g, w)
            for t, g, w in zip(model._base_groups, gammas, weights, strict=True)
        ]
        return weighted_exp_sum(terms)

    def _base_kernel(self, r: int, gammas: list[float]) -> NDArray[np.float64]:
        """Base kernel ``r`` (unweighted) on these rows and columns."""
        model = self._model
        if self.mode == "bank":
            return self.mats[r]
        return scaled_exp(self.mats[model._base_groups[r]], gammas[r])

    def _gram_gradient(self, params: dict[str, float]) -> dict[str, NDArray[np.float64]]:
        """``dK/dmu``: the sum of the base kernels ``mu`` weighs; ``dK/dgamma``: the sum over the
        base kernels of its groups of ``-mu_r D_t exp(-gamma D_t)``."""
        model = self._model
        weights, gammas = model._weights_gammas(params)
        out: dict[str, NDArray[np.float64]] = {}
        R = model.n_base_kernels
        if self.mode == "sum":  # form "common": K = mu * K0
            out["mu"] = self.mats[0].copy()
            return out
        weight_of = (
            ["mu"] * R if model.form in ("common", "common_width") else list(model._weight_names)
        )
        for r in range(R):
            B = self._base_kernel(r, gammas)
            name = weight_of[r]
            out[name] = B.copy() if name not in out else out[name] + B
            if model.form in TUNED_WIDTHS:
                t = model._base_groups[r]
                gname = "gamma" if model.form == "common_width" else f"gamma_{t}"
                dB = -weights[r] * self.mats[t] * B
                out[gname] = dB if gname not in out else out[gname] + dB
        return out

    @property
    def n_kernel_evals(self) -> int:
        """Base-kernel entries one Gram combines: ``R * n_rows * n_cols``."""
        return self._model.n_base_kernels * int(self.shape[0]) * int(self.shape[1])

    @property
    def nbytes(self) -> int:
        return int(sum(m.nbytes for m in self.mats))
