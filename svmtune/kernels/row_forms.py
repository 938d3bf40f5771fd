"""What a kernel tells a solver that computes its rows itself: the inner-product form.

Some kernels are a function of inner products: the linear kernel is ``x.z`` and the RBF kernel is
``exp(-gamma (|x|^2 + |z|^2 - 2 x.z))``. A solver can compute such a kernel's rows (or its whole
Gram matrix) from one BLAS product of the points and, for the RBF form, the squared norms and
one exp pass, without a call into the kernel per row. A kernel announces it through
:meth:`~svmtune.kernels.KernelModel.inner_product_form`; solvers ask the kernel, not its type.

This module also holds the compiled pieces such a solver needs (the round-off threshold of
squared distances, the squared norms, the vectorized exp of nonpositive arguments).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from svmtune.kernels._distances import DISTANCE_ROUNDOFF, squared_norms

__all__ = ["DISTANCE_ROUNDOFF", "InnerProductForm", "squared_norms"]


def __getattr__(name: str) -> Any:
    """``exp_nonpositive_into``: compiled ``out[i] = exp(x[i])`` for ``x[i] <= 0`` (``bits``:
    int64 scratch of ``x``'s size), to call from numba code (``out`` must not alias ``x``).
    Loaded on first use: it compiles (numba), and a kernel's form is read without it."""
    if name == "exp_nonpositive_into":
        from svmtune.kernels._rbf_sums import _exp_nonpositive

        return _exp_nonpositive
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class InnerProductForm:
    """How a kernel value follows from the inner product of two points.

    Attributes
    ----------
    kind : {"rbf", "linear"}
        ``"rbf"``: ``k(x, z) = exp(-gamma (|x|^2 + |z|^2 - 2 x.z))``, a squared distance within
        ``DISTANCE_ROUNDOFF (|x|^2 + |z|^2)`` taken as 0 (exactly symmetric, unit diagonal,
        positive semidefinite: nothing to check); ``"linear"``: ``k(x, z) = x.z``.
    gamma : float
        The RBF width (0 for ``"linear"``).

    Examples
    --------
    >>> from svmtune.kernels import RBF
    >>> RBF().inner_product_form({"gamma": 0.5})
    InnerProductForm(kind='rbf', gamma=0.5)
    """

    kind: Literal["rbf", "linear"]
    gamma: float = 0.0

    def __post_init__(self) -> None:
        if self.kind not in ("rbf", "linear"):
            raise ValueError(f"kind must be 'rbf' or 'linear'; got {self.kind!r}")
