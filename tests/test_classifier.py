"""KernelExpansion: labels checked in error(), decisions within round-off of zero are ties."""

import numpy as np
import pytest

from svmtune.classifier import KernelExpansion, decision_tolerance, labels_from_decisions
from svmtune.datasets import fischetti_split, load
from svmtune.kernels import RBF, Linear
from svmtune.objectives import LOOEstimate
from svmtune.tuners import Grid


@pytest.fixture(scope="module")
def tuned():
    Xtr, ytr, Xte, yte = fischetti_split(*load("heart"), seed=0)
    res = Grid(n_points=3).tune(LOOEstimate(), Xtr, ytr, kernel=RBF())
    return res.best_classifier, Xte, yte


def test_error_is_the_fraction_predict_gets_wrong(tuned):
    clf, Xte, yte = tuned
    wrong = clf.predict(Xte) != yte
    assert 0 < wrong.sum() < len(yte) / 2
    assert clf.error(Xte, yte) == wrong.mean()
    # one class alone is a valid test set
    pos = yte > 0
    assert clf.error(Xte[pos], yte[pos]) == wrong[pos].mean()


@pytest.mark.parametrize(
    ("y", "match"),
    [
        (
            lambda y: (y > 0).astype(float),
            r"only the classifier's labels -1 and \+1; found \[0.0, 1.0\]",
        ),
        (lambda y: y[:1], "mismatched lengths: X has 97 rows, y has 1 labels"),
        (lambda y: y[:-1], "mismatched lengths: X has 97 rows, y has 96 labels"),
        (lambda y: y[:, None], "y must be 1-dimensional"),
        (lambda y: np.where(y > 0, "yes", "no"), "labels -1 and \\+1"),
        (lambda y: 2 * y, r"found \[-2.0, 2.0\]"),
    ],
)
def test_error_checks_y(tuned, y, match):
    clf, Xte, yte = tuned
    with pytest.raises(ValueError, match=match):
        clf.error(Xte, y(yte))


def test_a_decision_within_round_off_of_zero_is_a_tie():
    # f(x) = 0.3 - 0.1 - 0.2 at x = the (identical) vectors: exactly 0, computed as -2.8e-17.
    x = np.array([[1.0, 2.0]])
    clf = KernelExpansion(
        kernel=RBF(),
        params={"gamma": 1.0},
        vectors=np.repeat(x, 3, axis=0),
        coef=[0.3, -0.1, -0.2],
        intercept=0.0,
    )
    f, tol = clf.decision_tolerance(x)
    assert f[0] < 0 and abs(f[0]) <= tol[0]
    assert clf.predict(x).tolist() == [1.0]  # the tie label, as for f == 0
    assert clf.error(x, [1.0]) == 0.0 and clf.error(x, [-1.0]) == 1.0
    # a real decision of the same sign, far beyond round-off, still says -1
    far = KernelExpansion(kernel=Linear(), params={}, vectors=x, coef=[-1e-9], intercept=0.0)
    assert far.predict(x).tolist() == [-1.0]


def test_decision_tolerance_and_labels():
    eps = np.finfo(float).eps
    assert decision_tolerance([1.0, 2.0], 3).tolist() == [12 * eps, 24 * eps]
    assert labels_from_decisions([-1e-17, -1e-3, 0.0, 1e-17], 1e-16).tolist() == [1, -1, 1, 1]
