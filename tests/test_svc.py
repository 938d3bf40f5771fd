"""svmtune.SVC: scikit-learn's estimator checks, agreement with libsvm on real data, bad input."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC as LibSVC
from sklearn.utils.estimator_checks import check_estimator

from svmtune import SVC, KernelExpansion
from svmtune.kernels import RBF, Linear
from tests.solvers._data import REAL_SETS, real_split
from tests.solvers._optimality import gap_of, w_bound, w_distance

TOL = 1e-3

# Checks that do not pass, each with the reason. Nothing fails; one check is skipped by
# scikit-learn itself.
NOT_PASSED = {
    "check_array_api_input": (
        "skipped",
        "scikit-learn runs it only with SCIPY_ARRAY_API=1 and an array-API library installed; "
        "svmtune kernels compute on numpy arrays, so SVC converts its input to numpy",
    ),
}


@pytest.mark.filterwarnings("ignore:Skipping check check_array_api_input")
def test_scikit_learn_estimator_checks() -> None:
    results = check_estimator(SVC(), on_fail=None)
    assert len(results) > 40
    unexpected = {}
    for r in results:
        name = r["check_name"]
        expected = NOT_PASSED.get(name, ("passed", ""))[0]
        if r["status"] != expected:
            unexpected[name] = (r["status"], repr(r["exception"])[:300])
    assert not unexpected, unexpected


@pytest.mark.parametrize("name", REAL_SETS)
def test_agrees_with_libsvm_on_real_data(name: str) -> None:
    X, y, Xt, _ = real_split(name)
    labels = np.where(y > 0, "pos", "neg")  # any two labels, as in scikit-learn
    gamma = 1.0 / X.shape[1]
    ours = SVC(C=2.0, kernel_params={"gamma": gamma}, tol=TOL).fit(X, labels)
    lib = LibSVC(C=2.0, gamma=gamma, tol=TOL).fit(X, labels)
    assert ours.classes_.tolist() == lib.classes_.tolist() == ["neg", "pos"]
    assert ours.converged_ and ours.n_iter_ > 0
    # The full Gram (n^2 entries), or beyond 500 points rows on demand plus the diagonal.
    n = X.shape[0]
    assert ours.kernel_evals_ == n**2 if n <= 500 else 0 < ours.kernel_evals_ < n**2
    # Same signs: dual_coef_ = alpha_i y_i with y = +1 for classes_[1], as scikit-learn's. Two
    # tol-optimal solutions need not share alphas or supports; what tol guarantees is that their
    # duality gaps are small, so their weight vectors are close (strong convexity), so are their
    # decision values, and they predict alike where libsvm's decision is beyond that distance.
    ys = np.where(labels == ours.classes_[1], 1.0, -1.0)
    assert np.all(np.sign(ours.dual_coef_[0]) == ys[ours.support_])
    assert np.all(np.sign(lib.dual_coef_[0]) == ys[lib.support_])
    K = RBF().gram({"gamma": gamma}, X)
    alphas, gaps = [], []
    for clf in (ours, lib):
        a = np.zeros(y.size)
        a[clf.support_] = np.abs(clf.dual_coef_[0])
        alphas.append(a)
        gaps.append(gap_of(a, float(clf.intercept_[0]), ys, K, 2.0))
    # gap = sum_i alpha_i (y_i f_i - 1) + C xi_i, each term <= 2 C tol at a tol-KKT point
    assert max(gaps) <= 2 * 2.0 * y.size * TOL
    dw = w_bound(*gaps)
    assert w_distance(alphas[0], alphas[1], ys, K) <= dw
    assert ours.intercept_[0] == pytest.approx(lib.intercept_[0], abs=2 * TOL)
    assert ours.n_support_.sum() == ours.support_.size
    # Decision values within ||w - w'|| sqrt(k(x, x)) + |b - b'| (k(x, x) = 1): predictions
    # identical on the test set except where libsvm's decision is within that of the boundary.
    band = dw + abs(float(ours.intercept_[0] - lib.intercept_[0]))
    f_lib = lib.decision_function(Xt)
    assert np.abs(ours.decision_function(Xt) - f_lib).max() <= band
    differ = ours.predict(Xt) != lib.predict(Xt)
    assert np.all(np.abs(f_lib[differ]) <= band)


def test_kernel_expansion_is_the_same_classifier() -> None:
    X, y, Xt, _ = real_split("sonar")
    clf = SVC(C=1.0, kernel_params={"gamma": 0.02}).fit(X, np.where(y > 0, 7, 3))
    exp = clf.kernel_expansion()
    assert isinstance(exp, KernelExpansion)
    assert np.allclose(exp.decision_function(Xt), clf.decision_function(Xt))
    assert np.array_equal(exp.predict(Xt) > 0, clf.predict(Xt) == 7)
    assert np.array_equal(exp.vectors, clf.support_vectors_)
    assert np.array_equal(exp.coef, clf.dual_coef_[0])


def test_linear_kernel_agrees_with_libsvm() -> None:
    X, y, Xt, _ = real_split("heart")
    ours = SVC(C=0.1, kernel=Linear()).fit(X, y)
    lib = LibSVC(C=0.1, kernel="linear", tol=TOL).fit(X, y)
    assert ours.kernel_params_ == {}
    f_lib = lib.decision_function(Xt)
    differ = ours.predict(Xt) != lib.predict(Xt)
    assert np.all(np.abs(f_lib[differ]) <= TOL)
    assert ours.objective_ < 0


def test_clone_params_and_pickle() -> None:
    X, y, Xt, _ = real_split("heart")
    clf = SVC(C=3.0, kernel=RBF(gamma_bounds=(1e-3, 1e3)), kernel_params={"gamma": 0.05})
    params = clf.get_params()
    assert params["C"] == 3.0 and params["kernel_params"] == {"gamma": 0.05}
    twin = clone(clf)
    assert twin.get_params()["kernel"] == clf.kernel
    clf.fit(X, y)
    twin.set_params(C=0.01).fit(X, y)
    assert twin.support_.size > clf.support_.size  # smaller C, more support vectors
    back = pickle.loads(pickle.dumps(clf))
    assert np.array_equal(back.decision_function(Xt), clf.decision_function(Xt))


def test_ties_go_to_the_positive_class() -> None:
    X = np.array([[-1.0], [1.0]])
    clf = SVC(C=1.0, kernel_params={"gamma": 1.0}).fit(X, ["a", "b"])
    assert clf.decision_function([[0.0]])[0] == pytest.approx(0.0, abs=1e-12)
    clf.expansion_.intercept = 0.0  # make the tie exact
    assert clf.predict([[0.0]]).tolist() == ["b"]


def test_max_iter_warns() -> None:
    X, y, _, _ = real_split("heart")
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        clf = SVC(max_iter=3).fit(X, y)
    assert not clf.converged_ and clf.n_iter_ == 3


# -- bad input ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small() -> tuple[np.ndarray, np.ndarray]:
    X, y, _, _ = real_split("heart")
    return X[:30], y[:30]


@pytest.mark.parametrize("C", [0.0, -1.0, np.nan])
def test_bad_C(small, C) -> None:
    with pytest.raises(ValueError, match="C must be a positive finite number"):
        SVC(C=C).fit(*small)


def test_labels_not_two_classes(small) -> None:
    X, y = small
    with pytest.raises(ValueError, match="only one class"):
        SVC().fit(X, np.ones_like(y))
    three = np.arange(y.size) % 3
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        SVC().fit(X, three)
    with pytest.raises(ValueError, match="Unknown label type"):
        SVC().fit(X, np.linspace(0, 1, y.size))


def test_bad_kernel_and_params(small) -> None:
    with pytest.raises(ValueError, match="kernel must be a svmtune KernelModel"):
        SVC(kernel="rbf").fit(*small)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown \\['sigma'\\]"):
        SVC(kernel_params={"gamma": 0.1, "sigma": 1.0}).fit(*small)
    with pytest.raises(ValueError, match="gamma=-1.0 is outside its bounds"):
        SVC(kernel_params={"gamma": -1.0}).fit(*small)


def test_kernel_that_is_not_psd(small) -> None:
    class Sigmoid(RBF):
        """tanh(0.1 x.z - 1): not positive semidefinite."""

        def _prepare(self, X, Z):
            prepared = super()._prepare(X, Z)
            Zm = X if Z is None else Z
            prepared._gram = lambda params: np.tanh(0.1 * X @ Zm.T - 1.0)  # type: ignore[method-assign]
            return prepared

        def diag(self, params, X):
            X = np.asarray(X)
            return np.tanh(0.1 * np.einsum("ij,ij->i", X, X) - 1.0)

    with pytest.raises(ValueError, match="not positive semidefinite"):
        SVC(kernel=Sigmoid()).fit(*small)


def test_nan_input(small) -> None:
    X, y = small
    bad = X.copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        SVC().fit(bad, y)
    clf = SVC().fit(X, y)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        clf.predict(bad)


@pytest.mark.parametrize("kernel", [RBF(), Linear()])
def test_overflowing_features_are_refused_on_every_gram_path(kernel) -> None:
    # Small sets take the fused full Gram, large low-dimensional ones rows computed in the loop:
    # features near 1e160 overflow the distances on both, and both say so.
    for name, rows in (("heart", None), ("banana", 1200)):
        X, y, _, _ = real_split(name, max_rows=rows)
        with pytest.raises(ValueError, match="overflow float64"):
            SVC(kernel=kernel).fit(X * 1e160, y)
