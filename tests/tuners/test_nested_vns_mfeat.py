"""A tiny nested-VNS run of the Carrizosa et al. (2014) Table 5 set-up on the mfeat digits:
budgets counted per level, and the result a valid point of the box."""

from __future__ import annotations

import numpy as np
import pytest

from svmtune.datasets import load, load_groups
from svmtune.kernels import MultipleKernel
from svmtune.objectives import RepeatedKFoldCV
from svmtune.tuners import NestedVNS

BOX = (2.0**-12, 2.0**12)


@pytest.fixture(scope="module")
def small_mfeat():
    X, y = load("mfeatEO4")
    rng = np.random.default_rng(1)
    rows = np.concatenate([rng.choice(np.flatnonzero(y == c), 30, replace=False) for c in (-1, 1)])
    X, y = X[rows], y[rows]
    return (X - X.mean(axis=0)) / X.std(axis=0), y, [g.tolist() for g in load_groups("mfeatEO4")]


@pytest.mark.parametrize("form", ["weights", "weights_widths"])
def test_tiny_nested_vns_counts_its_budget_and_stays_in_the_box(small_mfeat, form):
    X, y, groups = small_mfeat
    kernel = MultipleKernel(groups, form=form, weight_bounds=BOX, gamma_bounds=BOX)
    bounds = {"gamma": BOX, **{f"gamma_{t}": BOX for t in range(4)}} if form != "weights" else None
    tuner = NestedVNS(m=(3, 5), start="random", bounds=bounds)
    res = tuner.tune(RepeatedKFoldCV(k=2, repeats=5), X, y, kernel=kernel, random_state=0)
    tr = res.trace
    assert tr["level"].tolist() == [1] * 3 + [2] * 5
    assert res.n_evaluations == 8 and res.stopped_by == "converged"
    # every evaluation: one Gram matrix on the 60 points, ten SMO solves
    assert (tr["kernel_evals"] == 60 * 60).all()
    assert (tr["iterations"] > 0).all()
    # values are 5 x 2-fold CV errors: multiples of 1 / (5 * 60)
    np.testing.assert_allclose(tr["value"] * 300, np.round(tr["value"] * 300), atol=1e-9)
    # the best point is in the final model's box, and is the trace's lowest value
    assert set(res.best_params) == set(kernel.space.names)
    for name, v in res.best_params.items():
        assert BOX[0] <= v <= BOX[1], name
    assert res.best_value == tr["value"].min()
    # level 1 points are embedded: all weights equal (and all widths equal for model (8))
    lvl1 = tr[tr["level"] == 1]
    mus = lvl1[[f"param_{n}" for n in kernel.space.names if n.startswith("mu")]].to_numpy()
    np.testing.assert_allclose(mus, mus[:, :1].repeat(mus.shape[1], axis=1))
