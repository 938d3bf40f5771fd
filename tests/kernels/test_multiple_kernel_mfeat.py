"""The three multiple-kernel models of Carrizosa et al. (2014), Tables 4-5, on the mfeat views:
a hand-computed case, then the Gram matrices on the digits against a direct numpy computation
(the kernel is a weighted sum of view kernels), and the kernel-entry count."""

from __future__ import annotations

import math

import numpy as np
import pytest

from svmtune.datasets import load, load_groups
from svmtune.kernels import MultipleKernel

FACTORS = (0.25, 1.0, 4.0)  # sigma = d_t / 4, d_t, 4 d_t (eq. 13)


def test_hand_computed_two_points_two_views():
    # x = (0, 1 | 2), z = (1, 1 | 0): view 0 has d_0 = 2, view 1 has d_1 = 1.
    X = np.array([[0.0, 1.0, 2.0], [1.0, 1.0, 0.0]])
    groups = [[0, 1], [2]]
    lin = MultipleKernel(groups, base="linear", form="weights")
    K = lin.gram({"mu_0": 2.0, "mu_1": 3.0}, X)
    # x.x: view 0 = 1, view 1 = 4; x.z: 1 and 0; z.z: 2 and 0
    np.testing.assert_array_equal(K, [[2 * 1 + 3 * 4, 2 * 1 + 0], [2 * 1, 2 * 2 + 0]])
    rbf7 = MultipleKernel(groups, base="rbf", form="weights")
    mu = {f"mu_{t}_{j}": 1.0 + t + j for t in range(2) for j in range(3)}
    K = rbf7.gram(mu, X)
    # squared view distances between x and z: view 0 = 1, view 1 = 4; sigma = f d_t
    off = sum(
        mu[f"mu_{t}_{j}"] * math.exp(-dist / (f * d))
        for t, (dist, d) in enumerate([(1.0, 2), (4.0, 1)])
        for j, f in enumerate(FACTORS)
    )
    assert K[0, 1] == pytest.approx(off, rel=1e-14)
    assert K[0, 0] == pytest.approx(sum(mu.values()), rel=1e-15)  # every exp(0) = 1
    rbf8 = MultipleKernel(groups, base="rbf", form="weights_widths")
    K = rbf8.gram({"mu_0": 0.5, "mu_1": 2.0, "gamma_0": 0.1, "gamma_1": 0.25}, X)
    assert K[1, 0] == pytest.approx(0.5 * math.exp(-0.1) + 2.0 * math.exp(-1.0), rel=1e-14)


@pytest.fixture(scope="module")
def mfeat():
    X, _ = load("mfeatSL6")
    rows = np.random.default_rng(0).choice(len(X), 40, replace=False)
    X = X[rows]
    X = (X - X.mean(axis=0)) / X.std(axis=0)  # standardized, as the study uses them
    return X, [g.tolist() for g in load_groups("mfeatSL6")]


def _view_d2(A, B):
    return ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=-1)


@pytest.mark.parametrize("budget", [2**28, 0])  # cached base kernels, or per-view distances
def test_models_on_mfeat_are_weighted_sums_of_view_kernels(mfeat, budget):
    X, groups = mfeat
    A, B = X[:25], X[25:]
    rng = np.random.default_rng(5)
    T = len(groups)
    lin = MultipleKernel(groups, base="linear", form="weights", memory_budget=budget)
    rbf7 = MultipleKernel(groups, base="rbf", form="weights", memory_budget=budget)
    rbf8 = MultipleKernel(groups, base="rbf", form="weights_widths", memory_budget=budget)
    w = 2.0 ** rng.uniform(-3, 3, 3 * T)
    gam = [2.0 ** rng.uniform(-2, 2) / len(g) for g in groups]

    K_lin = sum(w[t] * (A[:, g] @ B[:, g].T) for t, g in enumerate(groups))
    K_rbf7 = sum(
        w[3 * t + j] * np.exp(-_view_d2(A[:, g], B[:, g]) / (f * len(g)))
        for t, g in enumerate(groups)
        for j, f in enumerate(FACTORS)
    )
    K_rbf8 = sum(w[t] * np.exp(-gam[t] * _view_d2(A[:, g], B[:, g])) for t, g in enumerate(groups))

    p_lin = {f"mu_{t}": w[t] for t in range(T)}
    p_rbf7 = {f"mu_{t}_{j}": w[3 * t + j] for t in range(T) for j in range(3)}
    p_rbf8 = {**{f"mu_{t}": w[t] for t in range(T)}, **{f"gamma_{t}": gam[t] for t in range(T)}}
    for k, p, ref in ((lin, p_lin, K_lin), (rbf7, p_rbf7, K_rbf7), (rbf8, p_rbf8, K_rbf8)):
        np.testing.assert_allclose(k.gram(p, A, B), ref, rtol=1e-10, atol=1e-10 * np.abs(ref).max())
    assert (lin.n_base_kernels, rbf7.n_base_kernels, rbf8.n_base_kernels) == (T, 3 * T, T)
    assert len(lin.space) == T and len(rbf7.space) == 3 * T and len(rbf8.space) == 2 * T
    # the kernel-entry count: R base kernels on an n x m Gram
    assert rbf7.prepare(A, B).n_kernel_evals == 3 * T * len(A) * len(B)


def test_inner_models_embed_to_the_same_gram(mfeat):
    X, groups = mfeat
    for form, inner_p in (("weights", {"mu": 0.7}), ("weights_widths", {"mu": 0.7, "gamma": 0.01})):
        for base in ("linear", "rbf") if form == "weights" else ("rbf",):
            k = MultipleKernel(groups, base=base, form=form)
            inner = k.nested()[0]
            np.testing.assert_allclose(
                k.gram(k.embed(inner_p, inner), X), inner.gram(inner_p, X), rtol=1e-12
            )
