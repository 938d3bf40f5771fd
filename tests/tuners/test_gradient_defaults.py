"""Gradient descent from its default start: C = 1, gamma = 1 / n_features, plateau restarts,
tied widths for an anisotropic kernel."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from svmtune.kernels import RBF, AnisotropicRBF
from svmtune.objectives import PlattError
from svmtune.tuners import GradientDescent
from tests._file_order import ratsch_split_in_file_order as ratsch_split

HEART = ratsch_split("heart", seed=0)  # 170 training points, 23 standardized features
D = HEART[0].shape[1]


def _tune(tuner, kernel=None):
    Xtr, ytr, _, _ = HEART
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return tuner.tune(PlattError(random_state=0), Xtr, ytr, kernel=kernel or RBF())


def test_the_default_start_is_c_1_and_gamma_one_over_the_features():
    res = _tune(GradientDescent(max_iter=3))
    first = res.trace.iloc[0]
    assert first["param_C"] == 1.0 and first["param_gamma"] == pytest.approx(1.0 / D)
    assert res.best_value < first["value"]


def test_a_descent_on_a_plateau_restarts_from_the_best_pre_scan_point():
    # C = 10, gamma = 10 on 23 standardized features: the Gram matrix is nearly the identity,
    # the error flat (gradient norm ~4e-5)
    stuck = _tune(GradientDescent(start={"C": 10.0, "gamma": 10.0}, restarts=0))
    assert stuck.best_value == stuck.trace["value"].iloc[0]
    res = _tune(GradientDescent(start={"C": 10.0, "gamma": 10.0}))
    pts = list(zip(res.trace["param_C"], res.trace["param_gamma"], strict=True))
    assert np.allclose(pts[0], (10.0, 10.0))
    # the pre-scan: the default start, its widths / 10 and x 10, its C x 100
    g = 1.0 / D
    for C, gamma in [(1.0, g), (1.0, g / 10), (1.0, 10 * g), (100.0, g)]:
        assert any(np.isclose(c, C) and np.isclose(v, gamma) for c, v in pts), (C, gamma)
    assert res.best_value < 0.99 * stuck.best_value
    assert res.stopped_by == "converged"


def test_restarts_are_counted_in_the_budget():
    res = _tune(GradientDescent(start={"C": 10.0, "gamma": 10.0}, max_evals=3))
    assert res.n_evaluations == 3 and res.stopped_by == "max_evals"


def test_anisotropic_widths_move_together_first_then_freely_for_a_few_steps():
    res = _tune(GradientDescent(free_steps=2), AnisotropicRBF(n_features=D))
    widths = res.trace[[f"param_gamma_{f}" for f in range(D)]].to_numpy()
    tied = np.all(np.isclose(widths, widths[:, :1]), axis=1)
    assert tied[0] and widths[0, 0] == pytest.approx(1.0 / D)
    first_free = int(np.argmin(tied)) if not tied.all() else len(tied)
    assert tied[:first_free].all() and not tied[first_free:].any()
    assert len(set(np.round(widths[:first_free, 0], 12))) > 1  # the common width moved
    # at most 2 free steps, each a gradient and up to max_backtracks trial points
    assert len(tied) - first_free <= 2 * (1 + 8)
    untied = _tune(GradientDescent(tie_widths=False, max_iter=2), AnisotropicRBF(n_features=D))
    w = untied.trace[[f"param_gamma_{f}" for f in range(D)]].to_numpy()
    assert not np.all(np.isclose(w[1:], w[1:, :1]))


@pytest.mark.parametrize(
    "options, match",
    [
        ({"restarts": -1}, "restarts must be a non-negative integer; got -1"),
        ({"free_steps": 0}, "free_steps must be a positive integer; got 0"),
        ({"tie_widths": "yes"}, "tie_widths must be True or False; got 'yes'"),
    ],
)
def test_bad_options_are_refused(options, match):
    with pytest.raises(ValueError, match=match):
        _tune(GradientDescent(**options))
