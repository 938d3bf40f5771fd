"""parameter_curve: Fischetti's Fig. 2 data."""

from __future__ import annotations

import numpy as np
import pytest

from svmtune.datasets import fischetti_split, load
from svmtune.kernels import RBF
from svmtune.objectives import LOOEstimate
from svmtune.study import parameter_curve


def test_curve_is_the_objective_and_its_classifier_along_gamma():
    Xtr, ytr, Xte, yte = fischetti_split(*load("heart"), 0)
    gammas = [0.01, 0.05, 0.1, 0.25]
    obj = LOOEstimate(model="loo2")
    c = parameter_curve(obj, Xtr, ytr, Xte, yte, kernel=RBF(), values=gammas)
    assert c["value"].tolist() == gammas
    bound = obj.bind(Xtr, ytr, kernel=RBF())
    for g, est, err in zip(gammas, c["estimate"], c["test_error"], strict=True):
        assert est == bound.evaluate({"gamma": g}).value
        assert err == bound.classifier({"gamma": g}).error(Xte, yte)
    assert (c["status"] == "ok").all() and (c["objective"] == "LOOEstimate()").all()


def test_curve_checks_its_parameter():
    X, y = load("heart")
    with pytest.raises(ValueError, match="'C' is not in the search space"):
        parameter_curve(LOOEstimate(), X, y, X, y, kernel=RBF(), values=np.array([1.0]), param="C")
    with pytest.raises(ValueError, match="values is empty"):
        parameter_curve(LOOEstimate(), X, y, X, y, kernel=RBF(), values=[])
