"""One search box for every tuner: the default box, a study's box, a tuner's own, and refusals."""

from __future__ import annotations

import numpy as np
import pytest

from svmtune.estimators import TunedSVC, check_combination
from svmtune.kernels import RBF, AnisotropicRBF
from svmtune.objectives import KFoldCV, LOOEstimate, PlattError
from svmtune.study import Method, Study, search_boxes
from svmtune.tuners import (
    DEFAULT_BOX,
    TPE,
    VNS,
    Bisection,
    GradientDescent,
    Grid,
    IncrementalGradient,
    NestedVNS,
    OptunaTuner,
    RandomSearch,
    default_box,
)
from svmtune.tuners.optuna_tuner import tpe_startup_trials


@pytest.fixture
def blobs():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(-0.7, 1, (30, 3)), rng.normal(0.7, 1, (30, 3))])
    return X, np.repeat([-1.0, 1.0], 30)


def _box(result):
    return {p.name: (p.low, p.high) for p in result.space}


TUNERS = {
    "Grid": lambda: Grid(n_points=3),
    "VNS": lambda: VNS(max_evals=6),
    "NestedVNS": lambda: NestedVNS(max_evals=6),
    "TPE": lambda: TPE(max_evals=6),
    "RandomSearch": lambda: RandomSearch(max_evals=6),
    "OptunaTuner": lambda: OptunaTuner(max_evals=6),
    "GradientDescent": lambda: GradientDescent(max_evals=6),
    "IncrementalGradient": lambda: IncrementalGradient(max_evals=6),
}


@pytest.mark.parametrize("name", list(TUNERS))
def test_every_tuner_searches_the_default_box_and_stays_in_it(blobs, name):
    objective = PlattError(random_state=0) if "Gradient" in name else KFoldCV(k=3)
    res = TUNERS[name]().tune(objective, *blobs, kernel=RBF(), random_state=0)
    assert _box(res) == {"C": DEFAULT_BOX["C"], "gamma": DEFAULT_BOX["gamma"]}
    for p, (lo, hi) in _box(res).items():
        assert res.trace[f"param_{p}"].between(lo, hi).all(), p


@pytest.mark.parametrize("name", list(TUNERS))
def test_the_caller_box_applies_and_the_tuner_own_bounds_win(blobs, name):
    objective = PlattError(random_state=0) if "Gradient" in name else KFoldCV(k=3)
    tuner = TUNERS[name]()
    res = tuner.tune(objective, *blobs, kernel=RBF(), random_state=0, bounds={"gamma": (0.01, 0.1)})
    assert _box(res)["gamma"] == (0.01, 0.1) and _box(res)["C"] == DEFAULT_BOX["C"]
    assert res.trace["param_gamma"].between(0.01, 0.1).all()
    tuner.set_params(bounds={"gamma": (0.05, 0.2)})
    res = tuner.tune(objective, *blobs, kernel=RBF(), random_state=0, bounds={"gamma": (0.01, 0.1)})
    assert _box(res)["gamma"] == (0.05, 0.2)


def test_every_kernel_width_gets_the_default_box_and_narrowed_kernels_keep_theirs():
    space = KFoldCV().search_space(AnisotropicRBF(n_features=3))
    assert default_box(space) == {
        "C": (0.1, 1000.0),
        "gamma_0": (0.001, 10.0),
        "gamma_1": (0.001, 10.0),
        "gamma_2": (0.001, 10.0),
    }
    # a kernel whose bounds the user narrowed keeps them
    assert "gamma" not in default_box(KFoldCV().search_space(RBF(gamma_bounds=(1e-5, 1e-2))))


def test_bisection_bisects_a_study_box_and_the_paper_interval_without_one(blobs):
    """A study's box on gamma is bisected as every tuner searches it; without one, Fischetti's
    [0.01, 1] (or the tuner's own low/high); every point evaluated lies in the box."""
    for bounds, box in [({"gamma": (1e-3, 10.0)}, (1e-3, 10.0)), (None, (0.01, 1.0))]:
        res = Bisection(log=True).tune(
            LOOEstimate(), *blobs, kernel=RBF(), random_state=0, bounds=bounds
        )
        assert _box(res)["gamma"] == box
        gammas = res.trace["param_gamma"]
        assert gammas.min() == box[0] and gammas.max() == box[1]
    res = Bisection(low=0.1, high=0.5).tune(LOOEstimate(), *blobs, kernel=RBF(), random_state=0)
    assert _box(res)["gamma"] == (0.1, 0.5)


def test_grid_values_span_their_box(blobs):
    tuner = Grid(values={"C": [0.01, 1.0], "gamma": [0.5]})
    box = tuner.search_box(KFoldCV().search_space(RBF()))
    assert (box["C"].low, box["C"].high) == (0.01, 1.0)
    assert (box["gamma"].low, box["gamma"].high) == (1e-5, 1e5)  # one value: its bounds


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: VNS(bounds={"C": (1e-9, 1.0)}), r"bounds\['C'\] = \(1e-09, 1.0\) reach outside"),
        (lambda: TPE(bounds={"gamma": (1.0, 1e9)}), r"reach outside the parameter's range"),
        (lambda: Grid(bounds={"C": (1e-9, 1.0)}), r"reach outside the parameter's range"),
        (lambda: VNS(start={"C": 1e4, "gamma": 1.0}), r"start point is not in the search box: C"),
        (lambda: GradientDescent(start={"gamma": 50.0}), r"not in the search box: gamma=50"),
        (lambda: Grid(n_points=10**9), r"n_points=1000000000 makes an axis longer"),
    ],
)
def test_bad_boxes_and_starts_are_refused_naming_the_value(make, match):
    objective = PlattError() if "Gradient" in repr(make()) else KFoldCV()
    with pytest.raises(ValueError, match=match):
        check_combination(objective, make(), RBF())


def test_a_huge_grid_is_refused_at_once_from_its_axis_lengths():
    space = KFoldCV().search_space(AnisotropicRBF(n_features=60))
    assert Grid(n_points=3).size(space) == 3**61  # no axis built
    with pytest.raises(ValueError, match="Grid has about 1.27e\\+29 points"):
        Grid(n_points=3).check(space)
    with pytest.raises(ValueError, match="n_points=10000000 makes an axis longer"):
        Grid(n_points=10**7, max_evals=5).check(KFoldCV().search_space(RBF()))


def test_a_start_outside_the_box_given_to_tune_bound_is_refused(blobs):
    bound = KFoldCV(k=3).bind(*blobs, kernel=RBF())
    with pytest.raises(ValueError, match=r"start point is not in the search box: gamma=100"):
        VNS(max_evals=3).tune_bound(bound, start={"C": 1.0, "gamma": 100.0})


@pytest.mark.parametrize("tuner", [GradientDescent(), IncrementalGradient()], ids=repr)
def test_gradient_tuners_refuse_gradient_free_objectives_everywhere(blobs, tuner):
    match = r"needs the objective's gradient and KFoldCV\(\) provides none"
    with pytest.raises(ValueError, match=match):
        check_combination(KFoldCV(), tuner, RBF())
    with pytest.raises(ValueError, match=match):
        Study("s", datasets=["heart"], methods={"m": Method(KFoldCV(), tuner, RBF())}).validate()
    with pytest.raises(ValueError, match=match):
        TunedSVC(tuner=tuner).fit(*blobs)
    with pytest.raises(ValueError, match=match):
        tuner.tune(KFoldCV(), *blobs, kernel=RBF())


def test_study_bounds_are_the_one_place_and_each_cell_stores_its_box(tmp_path):
    study = Study(
        "box",
        datasets=["heart"],
        split="fischetti",
        n_splits=1,
        storage=f"sqlite:///{tmp_path}/box.db",
        bounds={"gamma": (0.01, 0.1)},
        methods={
            "grid": Method(KFoldCV(k=3), Grid(n_points=2), RBF()),
            "vns own": Method(KFoldCV(k=3), VNS(max_evals=3, bounds={"gamma": (0.02, 0.2)}), RBF()),
            "bisection": Method(LOOEstimate(), Bisection(max_evals=4), RBF()),
        },
    )
    cells = study.run().results()
    res = cells.set_index("method")
    assert res.loc["grid", "box"] == {"C": [0.1, 1000.0], "gamma": [0.01, 0.1]}
    assert res.loc["vns own", "box"]["gamma"] == [0.02, 0.2]
    assert res.loc["bisection", "box"] == {"gamma": [0.01, 0.1]}  # the study's box
    shown = search_boxes(cells, methods=list(study.methods)).to_dict("records")
    assert shown == [
        {"method": "grid", "box": "C 0.1..1000, gamma 0.01..0.1", "cells": 1},
        {"method": "vns own", "box": "C 0.1..1000, gamma 0.02..0.2", "cells": 1},
        {"method": "bisection", "box": "gamma 0.01..0.1", "cells": 1},
    ]
    bad = Study("bad", datasets=["heart"], bounds={"sigma": (1.0, 2.0)}, methods=study.methods)
    with pytest.raises(ValueError, match=r"bounds name parameters \['sigma'\] that no method"):
        bad.validate()
    outside = Study("bad", datasets=["heart"], bounds={"C": (1e-9, 1.0)}, methods=study.methods)
    with pytest.raises(ValueError, match=r"method 'grid' cannot run: .*1e-09"):
        outside.validate()


def test_max_evals_is_the_one_budget_and_the_old_names_are_deprecated(blobs):
    from svmtune._warnings import SvmtuneDeprecationWarning

    with pytest.warns(SvmtuneDeprecationWarning) as caught:
        res = VNS(m=4).tune(KFoldCV(k=3), *blobs, kernel=RBF(), random_state=0)
    assert str(caught[0].message) == (
        "VNS(m=...) is deprecated since svmtune 0.1.0 and will be removed in 0.2.0; use "
        "max_evals=4 (the one budget name of every tuner)"
    )
    assert issubclass(SvmtuneDeprecationWarning, FutureWarning)  # shown to users by default
    assert res.n_evaluations == 4 and res.stopped_by == "max_evals"
    with pytest.warns(SvmtuneDeprecationWarning, match=r"TPE\(n_trials=\.\.\.\) is deprecated"):
        res = TPE(n_trials=5).tune(KFoldCV(k=3), *blobs, kernel=RBF(), random_state=0)
    assert res.n_evaluations == 5
    assert VNS()._budget() == 100 and TPE()._budget() == 50


def test_tpe_start_up_trials_follow_the_budget():
    assert [tpe_startup_trials(b) for b in (4, 18, 40, 400)] == [3, 5, 10, 10]
    sampler = TPE()._new_sampler(seed=0, budget=18)
    assert sampler._n_startup_trials == 5 and sampler._multivariate
