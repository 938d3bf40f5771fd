"""Kernels announce an inner-product form; solvers compute rows from it only when announced."""

from __future__ import annotations

import numpy as np
import pytest

from svmtune.kernels import RBF, AnisotropicRBF, InnerProductForm, Linear, MultipleKernel
from svmtune.solvers import SMO, KernelRows
from svmtune.solvers.smo._loop_rows import ROWS_GIVEN, ROWS_LINEAR, ROWS_RBF


def test_rbf_and_linear_announce_their_form() -> None:
    assert RBF().inner_product_form({"gamma": 0.25}) == InnerProductForm("rbf", 0.25)
    assert Linear().inner_product_form({}) == InnerProductForm("linear")
    assert AnisotropicRBF(n_features=2).inner_product_form({"gamma_0": 1.0, "gamma_1": 2.0}) is None
    mk = MultipleKernel(groups=[[0], [1]])
    assert mk.inner_product_form(mk.space.center()) is None


def test_the_form_checks_the_parameters() -> None:
    with pytest.raises(ValueError, match="gamma"):
        RBF().inner_product_form({"gamma": -1.0})
    with pytest.raises(ValueError, match="kind must be 'rbf' or 'linear'; got 'poly'"):
        InnerProductForm("poly")  # type: ignore[arg-type]


def test_a_subclass_computing_another_kernel_gets_its_rows_from_python() -> None:
    class Shifted(RBF):
        """RBF + 1 (PSD), a different kernel: the loop must not compute RBF rows for it."""

        def _prepare(self, X, Z):
            prepared = super()._prepare(X, Z)
            base = prepared._gram
            prepared._gram = lambda params: base(params) + 1.0  # type: ignore[method-assign]
            return prepared

        def diag(self, params, X):
            return np.full(np.asarray(X).shape[0], 2.0)

    X = np.array([[0.0], [1.0], [2.5], [4.0]])
    p = {"gamma": 0.5}
    assert Shifted().inner_product_form(p) is None
    assert KernelRows(Shifted(), p, X).kind == ROWS_GIVEN
    assert KernelRows(RBF(), p, X).kind == ROWS_RBF
    assert KernelRows(Linear(), {}, X).kind == ROWS_LINEAR
    y = np.array([-1.0, -1.0, 1.0, 1.0])
    K = Shifted().gram(p, X)
    for memory_budget in (10**6, 64):  # full Gram, then rows
        res = SMO(memory_budget=memory_budget).solve(y, C=1.0, kernel=Shifted(), params=p, X=X)
        ref = SMO().solve(y, C=1.0, gram=K)
        np.testing.assert_allclose(res.alpha, ref.alpha, atol=1e-12)
