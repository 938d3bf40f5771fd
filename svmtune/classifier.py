"""The classifier every objective yields: a kernel expansion plus a threshold."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from svmtune._memory import block_rows, block_shape
from svmtune._validation import check_X
from svmtune.kernels import KernelModel
from svmtune.kernels.row_forms import InnerProductForm, squared_norms

if TYPE_CHECKING:
    from svmtune.solvers import SMOResult

__all__ = [
    "PREDICT_MEMORY_BUDGET",
    "KernelExpansion",
    "block_shape",
    "decision_tolerance",
    "decisions_from_columns",
    "expansion_from_solution",
    "labels_from_decisions",
]

#: Units of ``numpy.finfo(float).eps`` per summed term in :func:`decision_tolerance`: the
#: first-order bound of summation round-off is one unit roundoff (half an eps) per term; the
#: rest allows a few ulps of error in each kernel value itself.
ROUNDOFF_EPS_PER_TERM = 4.0


#: Bytes of kernel blocks that :class:`KernelExpansion` holds at once while it computes decision
#: values (``decision_function``, ``predict``, ``error``), whatever the number of new points and
#: of expansion vectors: the new points go through in blocks sized by :func:`block_shape`. A
#: classifier's ``memory_budget`` overrides it; set ``svmtune.classifier.PREDICT_MEMORY_BUDGET``
#: to change the default of every classifier.
PREDICT_MEMORY_BUDGET = 128 * 2**20


def decision_tolerance(scale: ArrayLike, n_terms: int) -> NDArray[np.float64]:
    """How far from zero a computed decision value ``f = sum_i c_i k_i + b`` must be for its
    sign to be more than round-off.

    ``scale`` is ``sum_i |c_i k_i| + |b|`` (per decision value) and ``n_terms`` the number of
    terms summed. The bound is ``ROUNDOFF_EPS_PER_TERM * eps * n_terms * scale``: a decision of
    exactly zero in exact arithmetic (e.g. a point identical to support vectors of both classes
    with equal weights) comes out as ``+-1e-17``-ish whose sign means nothing.

    Examples
    --------
    >>> bool(decision_tolerance(1.0, 10) == 40 * np.finfo(float).eps)
    True
    """
    eps = float(np.finfo(np.float64).eps)
    return ROUNDOFF_EPS_PER_TERM * eps * max(int(n_terms), 1) * np.asarray(scale, dtype=np.float64)


def decisions_from_columns(
    read: Callable[[int, int], NDArray[np.float64]],
    coef: ArrayLike,
    b: float,
    *,
    size: int,
    width: int,
    memory_budget: int,
    with_tolerance: bool = False,
) -> tuple[NDArray[np.float64], NDArray[np.float64] | None]:
    """Decision values ``K @ coef + b`` of ``size`` points, the kernel columns read in blocks.

    ``read(lo, hi)`` returns the kernel values of the points against expansion vectors
    ``lo:hi`` (shape ``(size, hi - lo)``), a new array (it is overwritten); a block holds as
    many vectors as rows of ``width`` doubles fit ``memory_budget`` bytes
    (:func:`~svmtune._memory.block_rows`; ``width`` is what one vector's read holds at once).
    With ``with_tolerance`` the round-off bound of each decision comes too
    (:func:`decision_tolerance` of ``sum_i |coef_i K_i| + |b|``), else None.

    Examples
    --------
    >>> import numpy as np
    >>> K = np.array([[1.0, 0.5, 0.0], [0.5, 1.0, 0.25]])
    >>> coef = np.array([1.0, -2.0, 4.0])
    >>> f, tol = decisions_from_columns(
    ...     lambda lo, hi: K[:, lo:hi].copy(), coef, 0.5, size=2, width=2, memory_budget=16
    ... )
    >>> f.tolist(), tol
    ([0.5, 0.0], None)
    >>> f, tol = decisions_from_columns(
    ...     lambda lo, hi: K[:, lo:hi].copy(), coef, 0.5, size=2, width=2,
    ...     memory_budget=16, with_tolerance=True,
    ... )
    >>> bool(np.all(tol == decision_tolerance(np.abs(K) @ np.abs(coef) + 0.5, 4)))
    True
    """
    c = np.asarray(coef, dtype=np.float64)
    out = np.full(int(size), float(b))
    scale = np.full(int(size), abs(float(b))) if with_tolerance else None
    abs_coef = np.abs(c) if with_tolerance else c
    step = block_rows(width, memory_budget)
    for lo in range(0, c.size, step):
        hi = min(lo + step, c.size)
        K = read(lo, hi)
        out += K @ c[lo:hi]
        if scale is not None:
            scale += np.abs(K, out=K) @ abs_coef[lo:hi]
    if scale is None:
        return out, None
    return out, decision_tolerance(scale, c.size + 1)


def labels_from_decisions(decision: ArrayLike, tolerance: ArrayLike = 0.0) -> NDArray[np.float64]:
    """Labels in {-1, +1} of decision values, ``+1`` where ``f >= -tolerance``.

    A decision within ``tolerance`` (its round-off bound, :func:`decision_tolerance`) of zero is
    zero as far as anyone can tell, so it gets the tie label +1 whatever the sign round-off gave
    it: the sign of round-off never decides a label (nor, through it, whether a point counts as
    right).

    Examples
    --------
    >>> labels_from_decisions([0.5, -1e-17, 1e-17, -2.0], 1e-15).tolist()
    [1.0, 1.0, 1.0, -1.0]
    """
    f = np.asarray(decision, dtype=np.float64)
    return np.where(f >= -np.asarray(tolerance, dtype=np.float64), 1.0, -1.0)


class KernelExpansion:
    """``f(x) = sum_i coef_i k(x, x_i) + intercept``; ``predict(x) = sign(f(x))`` (ties -> +1,
    and a decision within round-off of zero is a tie).

    For an SVM, ``coef_i = alpha_i y_i``; for Fischetti's LOO models, ``coef_i = alpha_{y_i} y_i``.

    Parameters
    ----------
    kernel : KernelModel
    params : mapping
        Kernel parameters (validated against the kernel's space).
    vectors : array of shape (n_vectors, n_features)
        The expansion points (support vectors).
    coef : array of shape (n_vectors,)
    intercept : float
    memory_budget : int, optional
        Bytes of kernel blocks held at once in :meth:`decision_function`, :meth:`predict` and
        :meth:`error`: the new points go through in blocks of :func:`block_shape`, counting
        every array of a block's shape the kernel builds (:meth:`KernelModel.block_arrays`).
        Default :data:`PREDICT_MEMORY_BUDGET` (read at each call).

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import RBF
    >>> clf = KernelExpansion(kernel=RBF(), params={"gamma": 1.0},
    ...                       vectors=np.array([[-1.0], [1.0]]), coef=np.array([-1.0, 1.0]),
    ...                       intercept=0.0)
    >>> clf.predict(np.array([[-2.0], [0.5]])).tolist()
    [-1.0, 1.0]
    """

    def __init__(
        self,
        *,
        kernel: KernelModel,
        params: Mapping[str, float],
        vectors: ArrayLike,
        coef: ArrayLike,
        intercept: float,
        memory_budget: int | None = None,
    ) -> None:
        self.kernel = kernel
        self.params = kernel.check_params(params)
        self.vectors = check_X(vectors, name="vectors")
        self.coef = np.asarray(coef, dtype=np.float64).ravel()
        if self.coef.shape[0] != self.vectors.shape[0]:
            raise ValueError(
                f"coef has {self.coef.shape[0]} entries but there are "
                f"{self.vectors.shape[0]} vectors"
            )
        self.intercept = float(intercept)
        if memory_budget is not None and (
            isinstance(memory_budget, bool)
            or not isinstance(memory_budget, int | np.integer)
            or memory_budget <= 0
        ):
            raise ValueError(
                f"memory_budget must be a positive integer (bytes); got {memory_budget!r}"
            )
        self.memory_budget = memory_budget

    def block_shape(self) -> tuple[int, int]:
        """``(new points, vectors)`` per kernel block: :func:`block_shape` for this expansion's
        vectors, its kernel's :meth:`~svmtune.kernels.KernelModel.block_arrays` and its memory
        budget."""
        budget = PREDICT_MEMORY_BUDGET if self.memory_budget is None else self.memory_budget
        return block_shape(self.vectors.shape[0], self.kernel.block_arrays(), budget)

    @property
    def n_features(self) -> int:
        return int(self.vectors.shape[1])

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """Signed score of each row of ``X``."""
        return self._decisions(X, with_tolerance=False)[0]

    def decision_tolerance(self, X: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The decision values of ``X`` and, for each, the round-off bound within which its sign
        means nothing (:func:`decision_tolerance`)."""
        f, tol = self._decisions(X, with_tolerance=True)
        assert tol is not None
        return f, tol

    def _decisions(
        self, X: ArrayLike, *, with_tolerance: bool
    ) -> tuple[NDArray[np.float64], NDArray[np.float64] | None]:
        Xc = check_X(X)
        if Xc.shape[1] != self.n_features:
            raise ValueError(
                f"X has {Xc.shape[1]} features but the classifier was built on {self.n_features}"
            )
        out = np.full(Xc.shape[0], self.intercept)
        scale = np.full(Xc.shape[0], abs(self.intercept))
        form = self.kernel.inner_product_form(self.params)
        if form is not None:
            self._add_from_form(form, Xc, out, scale)
        else:
            abs_coef = np.abs(self.coef)
            for rs, vs in self._blocks(Xc.shape[0]):
                K = self.kernel.gram(self.params, Xc[rs], self.vectors[vs])
                out[rs] += K @ self.coef[vs]
                if with_tolerance:
                    scale[rs] += np.abs(K, out=K) @ abs_coef[vs]
        if not with_tolerance:
            return out, None
        return out, decision_tolerance(scale, self.coef.shape[0] + 1)

    def _blocks(self, n_points: int) -> Iterator[tuple[slice, slice]]:
        """(new points, vectors) slices of each kernel block (:meth:`block_shape`)."""
        rows, cols = self.block_shape()
        m = self.vectors.shape[0]
        for start in range(0, n_points, rows):
            for lo in range(0, m, cols):
                yield slice(start, min(start + rows, n_points)), slice(lo, min(lo + cols, m))

    def _add_from_form(
        self,
        form: InnerProductForm,
        Xc: NDArray[np.float64],
        out: NDArray[np.float64],
        scale: NDArray[np.float64],
    ) -> None:
        """The blocks' sums from inner products (:meth:`InnerProductForm.add_decisions`)."""
        V = np.ascontiguousarray(self.vectors, dtype=np.float64)
        coef = np.ascontiguousarray(self.coef, dtype=np.float64)
        xx, vv = squared_norms(Xc), squared_norms(V)
        for rs, vs in self._blocks(Xc.shape[0]):
            form.add_decisions(
                X=Xc[rs], V=V[vs], coef=coef[vs], out=out[rs], scale=scale[rs], xx=xx[rs],
                vv=vv[vs],
            )  # fmt: skip

    def predict(self, X: ArrayLike) -> NDArray[np.float64]:
        """Labels in {-1, +1}: the sign of ``f(x)``, +1 for a decision within round-off of zero
        (:func:`labels_from_decisions`)."""
        return labels_from_decisions(*self.decision_tolerance(X))

    def error(self, X: ArrayLike, y: ArrayLike) -> float:
        """Fraction of ``(X, y)`` misclassified.

        ``y`` must hold one label per row of ``X``, each -1 or +1 (the classifier's labels; one
        class alone is fine). Equal to ``mean(predict(X) != y)``.
        """
        yy = np.asarray(y)
        if yy.ndim != 1:
            raise ValueError(f"y must be 1-dimensional; got shape {yy.shape}")
        try:
            yf = yy.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"y must hold the classifier's labels -1 and +1: {exc}") from exc
        labels = np.unique(yf)
        if not np.all(np.isin(labels, (-1.0, 1.0))):
            raise ValueError(
                f"y must hold only the classifier's labels -1 and +1; found {labels.tolist()}"
            )
        Xc = check_X(X)
        if Xc.shape[0] != yf.shape[0]:
            raise ValueError(
                f"X and y have mismatched lengths: X has {Xc.shape[0]} rows, y has "
                f"{yf.shape[0]} labels"
            )
        f, tol = self.decision_tolerance(Xc)
        return float(np.mean(labels_from_decisions(f, tol) != yf))


def expansion_from_solution(
    kernel: KernelModel,
    params: Mapping[str, float],
    X: NDArray[np.float64],
    y: NDArray[np.float64],
    result: SMOResult,
) -> KernelExpansion:
    """The classifier of an SMO solution: support vectors ``X[alpha > 0]``, coef ``alpha * y``.

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import RBF
    >>> from svmtune.solvers import SMO
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> y = np.array([-1.0, -1.0, 1.0, 1.0])
    >>> res = SMO().solve(y, C=10.0, kernel=RBF(), params={"gamma": 0.5}, X=X)
    >>> clf = expansion_from_solution(RBF(), {"gamma": 0.5}, X, y, res)
    >>> clf.predict(np.array([[-1.0], [5.0]])).tolist()
    [-1.0, 1.0]
    """
    sv = result.support
    return KernelExpansion(
        kernel=kernel,
        params=params,
        vectors=X[sv],
        coef=result.alpha[sv] * y[sv],
        intercept=result.b,
    )
