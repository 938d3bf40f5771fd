"""scikit-learn's contract on every public option class (objectives, tuners, kernel models):
clone, get_params / set_params round trips, nested set_params; sparse input refused by
objectives and tuners."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV

import svmtune.kernels
import svmtune.objectives
import svmtune.tuners
from svmtune import TunedSVC
from svmtune._params import describe
from svmtune.kernels import RBF, KernelModel
from svmtune.objectives import KFoldCV, LOOEstimate, Objective, PlattError
from svmtune.tuners import VNS, Grid, Tuner

#: the options a class cannot be built without
REQUIRED = {
    "AnisotropicRBF": {"n_features": 3},
    "MultipleKernel": {"groups": [[0], [1, 2]]},
}


def public_classes() -> list[type]:
    out = []
    for module, base in (
        (svmtune.objectives, Objective),
        (svmtune.tuners, Tuner),
        (svmtune.kernels, KernelModel),
    ):
        for name in module.__all__:
            cls = getattr(module, name)
            if isinstance(cls, type) and issubclass(cls, base) and not inspect.isabstract(cls):
                out.append(cls)
    return out


@pytest.mark.parametrize("cls", public_classes(), ids=lambda c: c.__name__)
def test_clone_and_params_round_trip(cls):
    obj = cls(**REQUIRED.get(cls.__name__, {}))
    params = obj.get_params(deep=False)
    twin = clone(obj)
    assert twin is not obj and type(twin) is cls
    assert describe(twin) == describe(obj)
    # set_params with every option as it is gives the same object back
    assert obj.set_params(**params) is obj
    assert describe(obj) == describe(twin)
    assert cls(**params).get_params(deep=False).keys() == params.keys()
    with pytest.raises(ValueError, match=f"invalid option 'nonsense' for {cls.__name__}"):
        obj.set_params(nonsense=1)


@pytest.mark.parametrize(
    "obj, change, check",
    [
        (KFoldCV(k=5), {"k": 3}, lambda o: o.k == 3),
        (VNS(), {"max_evals": 7, "bounds": {"C": (1.0, 2.0)}}, lambda o: o.max_evals == 7),
        (
            RBF(),
            {"gamma_bounds": (1e-2, 1.0)},
            lambda o: (o.space["gamma"].low, o.space["gamma"].high) == (1e-2, 1.0),
        ),
        (PlattError(), {"gradient": "approx", "C": 2.0}, lambda o: o.gradient == "approx"),
    ],
    ids=["KFoldCV", "VNS", "RBF-space-follows", "PlattError"],
)
def test_set_params_changes_options_and_what_init_derives(obj, change, check):
    assert check(obj.set_params(**change))
    assert check(clone(obj))


def test_nested_set_params_on_tunedsvc_and_grid_search_over_its_options():
    clf = TunedSVC().set_params(objective__k=3, tuner__n_points=2, kernel__gamma_bounds=(1e-3, 1))
    assert clf.objective.k == 3 and clf.tuner.n_points == 2
    assert clf.get_params(deep=True)["objective__k"] == 3
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(-1, 1, (20, 2)), rng.normal(1, 1, (20, 2))])
    y = np.repeat([0, 1], 20)
    search = GridSearchCV(
        TunedSVC(tuner=Grid(n_points=2)), {"objective__k": [2, 3]}, cv=2, error_score="raise"
    ).fit(X, y)
    assert search.best_params_["objective__k"] in (2, 3)
    # a part given as an object is changed in place of a clone, as scikit-learn does
    own = LOOEstimate(model="loo2")
    assert TunedSVC(objective=own).set_params(objective__model="loo3").objective.model == "loo3"


def test_sparse_input_is_refused_clearly_by_objectives_and_tuners():
    rng = np.random.default_rng(0)
    X = sp.csr_matrix(rng.normal(size=(20, 2)))
    y = np.repeat([-1.0, 1.0], 10)
    match = "sparse input is not supported"
    with pytest.raises(TypeError, match=match):
        KFoldCV().evaluate(X, y, kernel=RBF(), params={"C": 1.0, "gamma": 1.0})
    with pytest.raises(TypeError, match=match):
        LOOEstimate().bind(X, y, kernel=RBF())
    with pytest.raises(TypeError, match=match):
        Grid(n_points=2).tune(KFoldCV(), X, y, kernel=RBF())
    # the scikit-learn estimators take it, densified (tests/test_tuned_svc_results.py)
    assert TunedSVC(tuner=Grid(n_points=2)).fit(X, y).predict(X).shape == (20,)
