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

import numpy as np
from numpy.typing import NDArray

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

    def add_decisions(
        self,
        *,
        X: NDArray[np.float64],
        V: NDArray[np.float64],
        coef: NDArray[np.float64],
        out: NDArray[np.float64],
        scale: NDArray[np.float64],
        xx: NDArray[np.float64],
        vv: NDArray[np.float64],
    ) -> None:
        """Add ``sum_j k(x_i, v_j) coef[j]`` to ``out[i]`` and ``sum_j |k(x_i, v_j) coef[j]|``
        to ``scale[i]`` (in place; C-contiguous float64 arrays) for the rows of ``X`` against
        the vectors ``V``, from one BLAS product ``X V'``; ``xx`` and ``vv`` are the rows'
        :func:`squared_norms` (which refuse points whose distances could overflow). The RBF
        form computes each row's distances, exps and both sums in one compiled pass, without
        a kernel block (:func:`svmtune.kernels._rbf_sums.rbf_decision_sums`).

        Examples
        --------
        >>> import numpy as np
        >>> X, V = np.array([[0.0], [2.0]]), np.array([[0.0], [1.0]])
        >>> out, scale = np.zeros(2), np.zeros(2)
        >>> InnerProductForm("linear").add_decisions(
        ...     X=X, V=V, coef=np.array([1.0, -2.0]), out=out, scale=scale,
        ...     xx=squared_norms(X), vv=squared_norms(V),
        ... )
        >>> out.tolist(), scale.tolist()
        ([0.0, -4.0], [0.0, 4.0])
        """
        if self.kind == "linear":
            G = X @ V.T
            out += G @ coef
            scale += np.abs(G, out=G) @ np.abs(coef)
            return
        from svmtune.kernels._rbf_sums import rbf_decision_sums  # compiled: on first use

        rbf_decision_sums(X, V, self.gamma, coef, out, scale, xx=xx, vv=vv)
