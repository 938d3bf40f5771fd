"""A scikit-learn-compatible binary SVM classifier on any svmtune kernel model, trained by SMO."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from svmtune._validation import check_positive, densify
from svmtune.classifier import KernelExpansion, expansion_from_solution
from svmtune.kernels import RBF, KernelModel
from svmtune.solvers.smo import DEFAULT_MEMORY_BUDGET, SMO, Selection

__all__ = ["SVC", "expansion_from_solution"]  # the latter lives in svmtune.classifier

DEFAULT_GAMMA = 0.1

#: scipy.sparse formats taken (densified: :func:`svmtune._validation.densify`).
SPARSE = ("csr", "csc", "coo", "lil", "dok", "bsr", "dia")


def _plainly_binary(y: NDArray[Any]) -> bool:
    """A 1-d label vector of two integer, boolean, string or integral float values.

    For these scikit-learn's ``type_of_target`` answers "binary" after several more passes over
    ``y``; anything else (floats with a fraction: "continuous", objects, 2-d) goes through it.
    """
    if y.ndim != 1 or y.dtype.kind not in "iubfUS" or y.size == 0:
        return False
    first = y[0]
    other = y[y != first]
    if other.size == 0 or np.any(other != other[0]):
        return False
    if y.dtype.kind != "f":
        return True
    two = np.array([first, other[0]], dtype=np.float64)
    return bool(np.all(np.isfinite(two)) and np.all(two == np.round(two)))


class SVC(ClassifierMixin, BaseEstimator):
    """Binary soft-margin SVM on a svmtune kernel model, trained by svmtune's SMO.

    ``f(x) = sum_i alpha_i y_i k(x, x_i) + b`` with ``y_i = +1`` for ``classes_[1]`` and ``-1``
    for ``classes_[0]``; :meth:`predict` gives ``classes_[1]`` where ``f(x) >= 0`` (ties go to
    the positive class). Any two labels are accepted, as in scikit-learn.

    Parameters
    ----------
    C : float, default 1.0
        Regularization constant (upper bound of every ``alpha_i``), > 0.
    kernel : KernelModel, optional
        Default ``RBF()``.
    kernel_params : dict, optional
        The kernel's parameters; default ``{"gamma": 0.1}`` for kernels with a ``gamma``.
    tol : float, default 1e-3
        KKT-gap stopping tolerance of SMO.
    selection : {"second_order", "max_violating_pair"}
        SMO working-set selection.
    max_iter : int, optional
        SMO iteration limit (default ``max(10**7, 1000 n)``); reaching it warns.
    memory_budget : int, default 256 MiB (:data:`~svmtune._memory.DEFAULT_MEMORY_BUDGET`)
        Bytes of kernel values a fit holds at once: the full Gram matrix while it fits, else a
        cache of kernel rows computed on demand and the blocks read beside it (all counted:
        ``SVC(memory_budget=200 * 2**20)`` peaks near scikit-learn's ``SVC(cache_size=200)``).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    support_ : ndarray of int
        Indices of the support vectors in the training data, increasing.
    support_vectors_ : ndarray of shape (n_SV, n_features)
    dual_coef_ : ndarray of shape (1, n_SV)
        ``alpha_i y_i`` of the support vectors.
    intercept_ : ndarray of shape (1,)
        The bias ``b``.
    n_support_ : ndarray of shape (2,)
        Support vectors per class (``classes_`` order).
    n_iter_ : int
        SMO iterations.
    kernel_evals_ : int
        Kernel entries SMO computed.
    objective_ : float
        Dual objective ``1/2 a'Qa - e'a`` at the solution.
    converged_ : bool
    kernel_ : KernelModel
        The kernel model used.
    kernel_params_ : dict
        The checked kernel parameters used.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune import SVC
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> clf = SVC(C=10.0, kernel_params={"gamma": 0.5}).fit(X, ["no", "no", "yes", "yes"])
    >>> clf.predict([[-1.0], [5.0]]).tolist()
    ['no', 'yes']
    >>> clf.support_.tolist(), clf.dual_coef_.round(3).tolist()
    ([0, 1, 2, 3], [[-0.528, -0.794, 0.794, 0.528]])
    """

    def __init__(
        self,
        *,
        C: float = 1.0,
        kernel: KernelModel | None = None,
        kernel_params: Mapping[str, float] | None = None,
        tol: float = 1e-3,
        selection: Selection = "second_order",
        max_iter: int | None = None,
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
    ) -> None:
        self.C = C
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.tol = tol
        self.selection = selection
        self.max_iter = max_iter
        self.memory_budget = memory_budget

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = True  # densified (svmtune._validation.densify)
        return tags

    def _resolve_kernel(self) -> tuple[KernelModel, dict[str, float]]:
        kernel = RBF() if self.kernel is None else self.kernel
        if not isinstance(kernel, KernelModel):
            raise ValueError(f"kernel must be a svmtune KernelModel; got {kernel!r}")
        if self.kernel_params is None:
            params: dict[str, float] = (
                {"gamma": DEFAULT_GAMMA} if "gamma" in kernel.space.names else {}
            )
        elif isinstance(self.kernel_params, Mapping):
            params = dict(self.kernel_params)
        else:
            raise ValueError(f"kernel_params must be a dict; got {self.kernel_params!r}")
        return kernel, kernel.check_params(params)

    def fit(self, X: ArrayLike, y: ArrayLike) -> SVC:
        """Train on ``(X, y)``; ``y`` must hold exactly two distinct labels. A scipy.sparse
        ``X`` is densified (the same model as the dense array; at most
        :data:`svmtune._validation.DENSIFY_LIMIT_BYTES`)."""
        C = check_positive(self.C, name="C")
        kernel, params = self._resolve_kernel()
        Xc, yv = validate_data(self, X, y, dtype=np.float64, order="C", accept_sparse=SPARSE)
        Xc = densify(Xc)
        if _plainly_binary(yv):  # what type_of_target would find, cheaper
            y_type = "binary"
        else:
            y_type = type_of_target(yv, input_name="y", raise_unknown=True)
            if y_type != "binary":  # its errors and warnings; for binary y it only repeats this
                check_classification_targets(yv)
        classes, yi = np.unique(yv, return_inverse=True)
        if classes.size < 2:
            raise ValueError(f"SVC needs two classes; y has only one class: {classes.tolist()!r}")
        if y_type != "binary":
            raise ValueError(
                "Only binary classification is supported. The type of the target is "
                f"{y_type} ({classes.size} classes: {classes.tolist()!r})."
            )
        kernel._check_features(Xc.shape[1])
        ys = np.where(yi == 1, 1.0, -1.0)
        solver = SMO(
            tol=self.tol,
            selection=self.selection,
            max_iter=self.max_iter,
            memory_budget=self.memory_budget,
        )
        res = solver.solve(ys, C=C, kernel=kernel, params=params, X=Xc)
        sv = res.support
        self.classes_ = classes
        self.kernel_ = kernel
        self.kernel_params_ = params
        self.support_ = sv
        self.support_vectors_ = Xc[sv]
        self.dual_coef_ = (res.alpha[sv] * ys[sv])[None, :]
        self.intercept_ = np.array([res.b])
        self.n_support_ = np.array([np.sum(ys[sv] < 0), np.sum(ys[sv] > 0)], dtype=np.int64)
        self.n_iter_ = res.iterations
        self.kernel_evals_ = res.kernel_evals
        self.objective_ = res.objective
        self.converged_ = res.converged
        self.expansion_ = expansion_from_solution(kernel, params, Xc, ys, res)
        return self

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """``f(x)``: positive for ``classes_[1]``, negative for ``classes_[0]``."""
        check_is_fitted(self)
        Xc = validate_data(self, X, dtype=np.float64, order="C", reset=False, accept_sparse=SPARSE)
        return self.expansion_.decision_function(densify(Xc))

    def predict(self, X: ArrayLike) -> NDArray[Any]:
        """``classes_[1]`` where ``f(x) >= 0`` (or ``f(x)`` is within round-off of zero:
        :meth:`svmtune.classifier.KernelExpansion.predict`), else ``classes_[0]``."""
        check_is_fitted(self)
        Xc = validate_data(self, X, dtype=np.float64, order="C", reset=False, accept_sparse=SPARSE)
        positive = self.expansion_.predict(densify(Xc)) > 0.0
        return self.classes_[positive.astype(np.intp)]

    def kernel_expansion(self) -> KernelExpansion:
        """The trained classifier as a :class:`~svmtune.classifier.KernelExpansion`.

        Its labels are -1 (``classes_[0]``) and +1 (``classes_[1]``).
        """
        check_is_fitted(self)
        return self.expansion_
