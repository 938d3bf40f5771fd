"""The kernel-model interface.

A kernel model is a family of kernels indexed by hyperparameters: it owns a
:class:`~svmtune.space.SearchSpace` and computes Gram matrices. Computing a Gram matrix is split in
two steps so that tuning is cheap: :meth:`KernelModel.prepare` computes, once per pair of point
sets, the statistics every parameter value shares (squared distances, per feature group, or inner
products); :meth:`PreparedKernel.gram` then turns them into a Gram matrix for one parameter value
(for an RBF kernel, one ``exp`` pass).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from svmtune._params import ParamsMixin
from svmtune._validation import check_X
from svmtune.space import SearchSpace

if TYPE_CHECKING:
    from svmtune.kernels.row_forms import InnerProductForm

__all__ = ["KernelModel", "PreparedKernel"]


class PreparedKernel(ABC):
    """Parameter-independent statistics of a kernel model on rows ``X`` and columns ``Z``.

    ``gram(params)[i, j] == k_params(X[i], Z[j])``.
    """

    def __init__(self, model: KernelModel, shape: tuple[int, int]) -> None:
        self.model = model
        self.shape = shape

    @abstractmethod
    def _gram(self, params: dict[str, float]) -> NDArray[np.float64]:
        """Gram matrix for already validated ``params``."""

    def gram(self, params: Mapping[str, float]) -> NDArray[np.float64]:
        """Gram matrix, shape ``(n_rows, n_cols)``, for one setting of the parameters."""
        return self._gram(self.model.check_params(params))

    def weighted_sums(
        self, params: Mapping[str, float], W: NDArray[np.float64], *, skip: int | None = None
    ) -> tuple[NDArray[np.float64], int]:
        """``S = K @ W`` without keeping ``K``, and the kernel evaluations it cost.

        With ``skip = s`` the entries ``K[r, r + s]`` are left out: for rows ``X[s:s+m]`` of the
        columns ``X`` these are the points themselves, so ``S`` holds the *net* signals that
        leave-one-out estimates need. Subclasses override this with fused loops (RBF: one exp
        per pair, half of them on a symmetric block); the default builds the Gram matrix.
        """
        K = self.gram(params)
        skipped = 0
        if skip is not None:
            r = np.arange(K.shape[0])
            c = r + skip
            ok = c < K.shape[1]
            K[r[ok], c[ok]] = 0.0
            skipped = int(ok.sum())
        return K @ W, self.n_kernel_evals - skipped

    def gram_gradient(self, params: Mapping[str, float]) -> dict[str, NDArray[np.float64]]:
        """Derivatives of the Gram matrix with respect to each parameter (natural units).

        ``out[name][i, j] = d k_params(X[i], Z[j]) / d params[name]``, one matrix per parameter
        of the model's space (none for a model without parameters). Gradient-based objectives
        (the Platt empirical error) chain it with ``d value / d K``; multiply by the parameter's
        value for the derivative with respect to its logarithm.
        """
        return self._gram_gradient(self.model.check_params(params))

    def _gram_gradient(self, params: dict[str, float]) -> dict[str, NDArray[np.float64]]:
        raise NotImplementedError(f"{self.model!r} provides no Gram-matrix derivatives")

    @property
    def n_kernel_evals(self) -> int:
        """Kernel evaluations one :meth:`gram` call costs (entries of the matrix)."""
        return int(self.shape[0]) * int(self.shape[1])

    @property
    @abstractmethod
    def nbytes(self) -> int:
        """Memory held by the precomputed statistics."""


class KernelModel(ParamsMixin, ABC):
    """A family of kernels with a hyperparameter search space.

    Subclasses implement :attr:`space` and :meth:`prepare`; nested models (Carrizosa et al.)
    override :meth:`nested` and :meth:`embed`.

    Attributes
    ----------
    includes_scale : bool
        True when the kernel carries its own overall weight (multiple-kernel weights ``mu``),
        so that an objective with a regularization constant ``C`` fixes ``C = 1``: the SVM
        depends on ``C`` and ``K`` only through ``C * K``.
    """

    includes_scale: bool = False

    #: True when :meth:`net_sums` is a fused loop in ``O(n)`` memory (no Gram or distance matrix
    #: is built): leave-one-out estimates then call it instead of preparing row blocks.
    fused_net_sums: ClassVar[bool] = False

    @property
    @abstractmethod
    def space(self) -> SearchSpace:
        """The hyperparameters of the model, with bounds and scales."""

    @abstractmethod
    def _prepare(self, X: NDArray[np.float64], Z: NDArray[np.float64] | None) -> PreparedKernel:
        """Build the prepared statistics for checked arrays (``Z is None`` means ``Z = X``)."""

    @property
    def name(self) -> str:
        return type(self).__name__

    def check_params(self, params: Mapping[str, float]) -> dict[str, float]:
        """Validate a parameter dict against :attr:`space` (names, finiteness, bounds)."""
        return self.space.check(params)

    def prepare(self, X: ArrayLike, Z: ArrayLike | None = None) -> PreparedKernel:
        """Precompute what every parameter value shares for rows ``X`` and columns ``Z``."""
        Xc = check_X(X)
        Zc = None
        if Z is not None:
            Zc = check_X(Z, name="Z")
            if Zc.shape[1] != Xc.shape[1]:
                raise ValueError(
                    f"X and Z have different numbers of features: {Xc.shape[1]} and {Zc.shape[1]}"
                )
        self._check_features(Xc.shape[1])
        return self._prepare(Xc, Zc)

    def _check_features(self, n_features: int) -> None:
        """Raise ValueError if the model cannot act on ``n_features`` columns."""

    def gram(
        self, params: Mapping[str, float], X: ArrayLike, Z: ArrayLike | None = None
    ) -> NDArray[np.float64]:
        """Gram matrix ``K[i, j] = k(X[i], Z[j])`` (``Z = X`` when omitted).

        Examples
        --------
        >>> import numpy as np
        >>> from svmtune.kernels import RBF
        >>> K = RBF().gram({"gamma": 0.5}, np.array([[0.0], [1.0]]))
        >>> bool(np.isclose(K[0, 1], np.exp(-0.5)))
        True
        """
        return self.prepare(X, Z).gram(params)

    def block_arrays(self) -> int:
        """How many arrays of a Gram block's shape :meth:`gram` holds at once, counted as
        float64 (a boolean mask counts as one): what a caller sizing blocks by a memory budget
        multiplies a block's entries by (:func:`svmtune.classifier.block_rows`). Three for a
        kernel of one distance or inner-product matrix (the statistics, the kernel values, the
        finiteness mask); models building more override it.

        Examples
        --------
        >>> from svmtune.kernels import RBF
        >>> RBF().block_arrays()
        3
        """
        return 3

    def diag(self, params: Mapping[str, float], X: ArrayLike) -> NDArray[np.float64]:
        """The diagonal ``k(x_i, x_i)``; subclasses override it when it is cheaper than a Gram."""
        Xc = check_X(X)
        return np.array([self.gram(params, Xc[i : i + 1])[0, 0] for i in range(Xc.shape[0])])

    def inner_product_form(self, params: Mapping[str, float]) -> InnerProductForm | None:
        """How this kernel follows from inner products, if it does; None (the default) if not.

        A solver that gets an :class:`~svmtune.kernels.row_forms.InnerProductForm` computes the
        kernel's rows (or its Gram matrix) itself from one BLAS product of the points, without
        calling the kernel per row. Only kernels that are exactly such a function of inner
        products may return one (RBF and Linear do).

        Examples
        --------
        >>> from svmtune.kernels import AnisotropicRBF, Linear
        >>> Linear().inner_product_form({})
        InnerProductForm(kind='linear', gamma=0.0)
        >>> AnisotropicRBF(n_features=1).inner_product_form({"gamma_0": 1.0}) is None
        True
        """
        self.check_params(params)
        return None

    def net_sums(
        self, params: Mapping[str, float], X: ArrayLike, W: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], int]:
        """Net signals ``S[i] = sum_{j != i} k(x_i, x_j) W[j]`` over the rows of ``X``, and the
        kernel evaluations they cost.

        The default prepares ``X`` and calls :meth:`PreparedKernel.weighted_sums` with
        ``skip=0`` (``n x n`` memory); models with :attr:`fused_net_sums` override it.

        Examples
        --------
        >>> import numpy as np
        >>> from svmtune.kernels import RBF
        >>> S, evals = RBF().net_sums({"gamma": 0.5}, np.array([[0.0], [1.0]]), np.ones((2, 1)))
        >>> bool(np.allclose(S, np.exp(-0.5))), evals
        (True, 1)
        """
        return self.prepare(X).weighted_sums(params, W, skip=0)

    def nested(self) -> tuple[KernelModel, ...]:
        """The nested sequence of simpler models ending with this one, K(1) c K(2) c ... c self."""
        return (self,)

    def embed(self, params: Mapping[str, float], source: KernelModel) -> dict[str, float]:
        """Map ``source``'s parameters into this model's space, giving exactly the same Gram.

        ``source`` must be one of :meth:`nested`.
        """
        if source is self or source == self:
            return self.check_params(params)
        raise ValueError(f"{source!r} is not a nested sub-model of {self!r}")
