"""KernelExpansion: labels checked in error(), decisions within round-off of zero are ties."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svmtune.classifier import (
    KernelExpansion,
    decision_tolerance,
    decisions_from_columns,
    labels_from_decisions,
)
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


class _RecordingRBF(RBF):
    """An RBF whose gram records the shape of every block it is asked for."""

    def __init__(self):
        super().__init__()
        self.blocks = []

    def gram(self, params, X, Z=None):
        self.blocks.append((np.shape(X)[0], np.shape(X if Z is None else Z)[0]))
        return super().gram(params, X, Z)


def _expansion(n_vectors, seed=0, **kw):
    rng = np.random.default_rng(seed)
    kernel = _RecordingRBF()
    clf = KernelExpansion(
        kernel=kernel,
        params={"gamma": 0.7},
        vectors=rng.normal(size=(n_vectors, 3)),
        coef=rng.normal(size=n_vectors),
        intercept=0.1,
        **kw,
    )
    return clf, kernel, rng


@pytest.mark.parametrize("budget", [2**16, 2**20, 2**24])
def test_prediction_blocks_fit_the_memory_budget(budget):
    """Bytes by block shapes (rows x vectors x 8 bytes x the kernel's arrays) never exceed the
    budget, the blocks cover every point once, and the decisions equal the kernel sum computed
    directly (the oracle: exp of the squared differences, no blocks)."""
    clf, kernel, rng = _expansion(1000, memory_budget=budget)
    X = rng.normal(size=(700, 3))
    f = clf.decision_function(X)
    arrays = kernel.block_arrays()
    assert all(r * m * 8 * arrays <= budget for r, m in kernel.blocks)
    assert sum(r for r, _ in kernel.blocks) == 700
    K = np.exp(-0.7 * ((X[:, None, :] - clf.vectors[None, :, :]) ** 2).sum(-1))
    np.testing.assert_allclose(f, K @ clf.coef + 0.1, rtol=1e-10, atol=1e-10)
    kernel.blocks.clear()
    assert clf.error(X, np.where(f >= 0, 1.0, -1.0)) == 0.0
    assert all(r * m * 8 * arrays <= budget for r, m in kernel.blocks)


def test_prediction_memory_does_not_grow_with_the_expansion(monkeypatch):
    """The module default bounds every classifier: with 50,000 vectors the blocks hold at most
    PREDICT_MEMORY_BUDGET bytes (the old fixed 4,096-row blocks held 4.9 GB here)."""
    import svmtune.classifier as classifier

    monkeypatch.setattr(classifier, "PREDICT_MEMORY_BUDGET", 2**24)
    clf, kernel, rng = _expansion(50_000)
    clf.predict(rng.normal(size=(200, 3)))
    arrays = kernel.block_arrays()
    assert sum(r for r, _ in kernel.blocks) == 200
    assert max(r * m * 8 * arrays for r, m in kernel.blocks) <= 2**24
    for n in (50_000, 200_000, 10**6):  # the plan alone, whatever n
        rows, cols = classifier.block_shape(n, arrays, classifier.PREDICT_MEMORY_BUDGET)
        assert rows * cols * 8 * arrays <= classifier.PREDICT_MEMORY_BUDGET
        assert cols == n or rows == 1


def test_an_expansion_longer_than_the_budget_goes_by_columns():
    """One row of 5,000 vectors holds more than 64 KiB: blocks of one row and part of the
    vectors, summed to the same decisions."""
    clf, kernel, rng = _expansion(5000, memory_budget=2**16)
    X = rng.normal(size=(20, 3))
    f, tol = clf.decision_tolerance(X)
    arrays = kernel.block_arrays()
    assert all(r == 1 and r * m * 8 * arrays <= 2**16 for r, m in kernel.blocks)
    K = np.exp(-0.7 * ((X[:, None, :] - clf.vectors[None, :, :]) ** 2).sum(-1))
    np.testing.assert_allclose(f, K @ clf.coef + 0.1, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(tol, decision_tolerance(K @ np.abs(clf.coef) + 0.1, 5001))


@pytest.mark.parametrize("budget", [0, -1, 1.5, True, "1e6"])
def test_bad_memory_budget_is_named(budget):
    with pytest.raises(ValueError, match=f"memory_budget .*{budget!r}"):
        _expansion(3, memory_budget=budget)


@pytest.mark.parametrize(
    ("n_vectors", "width", "budget"),
    [(0, 7, 800), (1, 7, 8), (30, 7, 8 * 7 * 4), (30, 7, 8 * 7 * 4 + 55), (30, 50, 8 * 7)],
)
def test_decisions_from_columns_read_every_vector_once_within_the_budget(n_vectors, width, budget):
    # decisions and their round-off bounds: the direct sum's, each vector read once, in order,
    # in blocks of as many vectors as rows of `width` doubles fit the budget (at least one)
    rng = np.random.default_rng(n_vectors + width)
    K = rng.normal(size=(7, n_vectors)) * 10.0 ** rng.integers(-3, 3, size=n_vectors)
    coef = rng.normal(size=n_vectors)
    b = -0.3
    blocks = []

    def read(lo, hi):
        blocks.append((lo, hi))
        return K[:, lo:hi].copy()

    f, tol = decisions_from_columns(
        read, coef, b, size=7, width=width, memory_budget=budget, with_tolerance=True
    )
    per_block = max(1, budget // (8 * width))
    assert [lo for lo, _ in blocks] == list(range(0, n_vectors, per_block))
    assert all(hi - lo == min(per_block, n_vectors - lo) for lo, hi in blocks)
    exact = (K @ coef + b) if n_vectors else np.full(7, b)
    scale = np.abs(K) @ np.abs(coef) + abs(b)
    assert np.all(np.abs(f - exact) <= decision_tolerance(scale, n_vectors + 1))
    assert tol == pytest.approx(decision_tolerance(scale, n_vectors + 1), rel=1e-12)
    g, none = decisions_from_columns(read, coef, b, size=7, width=width, memory_budget=budget)
    assert none is None and np.array_equal(g, f)


# --- decisions of a kernel with an inner-product form (RBF, Linear): one fused pass per row ---


def _direct(kernel_name, gamma, X, V, coef, b):
    """The oracle: kernel values from the points' differences (no norms, no blocks)."""
    if kernel_name == "rbf":
        K = np.exp(-gamma * ((X[:, None, :] - V[None, :, :]) ** 2).sum(-1))
    else:
        K = X @ V.T
    return K @ coef + b, np.abs(K) @ np.abs(coef) + abs(b)


@pytest.mark.parametrize("kernel_name", ["rbf", "linear"])
@pytest.mark.parametrize("budget", [2**12, 2**16, 2**24])
def test_decisions_from_the_inner_product_form_are_the_kernel_sums(kernel_name, budget):
    """RBF and Linear decisions go through the inner-product form in blocks of any size (a
    budget of 4 KiB cuts the vectors into columns): the kernel sums computed directly, and
    the round-off bound of the same absolute sums."""
    rng = np.random.default_rng(3)
    V, coef = rng.normal(size=(700, 4)), rng.normal(size=700)
    X = rng.normal(size=(333, 4))
    kernel, params = (RBF(), {"gamma": 0.3}) if kernel_name == "rbf" else (Linear(), {})
    clf = KernelExpansion(
        kernel=kernel, params=params, vectors=V, coef=coef, intercept=-0.2, memory_budget=budget
    )
    rows, cols = clf.block_shape()
    assert rows * cols * 8 * kernel.block_arrays() <= budget
    f, tol = clf.decision_tolerance(X)
    f_direct, scale = _direct(kernel_name, 0.3, X, V, coef, -0.2)
    np.testing.assert_allclose(f, f_direct, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(tol, decision_tolerance(scale, 701), rtol=1e-10)
    np.testing.assert_array_equal(clf.decision_function(X), f)


@pytest.mark.parametrize("gamma", [1e-5, 1e-2, 1.0, 30.0, 1e3, 1e5])
def test_fused_rbf_decisions_over_the_whole_gamma_range(gamma):
    """From kernel values of 1 - 1e-5 (tiny gamma) to underflow (huge gamma), subnormal
    results included: the direct kernel sums; a point equal to a vector has kernel value
    exactly 1 there (its distance is round-off, taken as 0)."""
    rng = np.random.default_rng(int(np.log10(gamma)) + 10)
    V = rng.normal(size=(60, 3))
    X = np.vstack([V[:5], V[:5] + 1e-3, rng.normal(size=(40, 3))])
    coef = rng.normal(size=60)
    clf = KernelExpansion(
        kernel=RBF(), params={"gamma": gamma}, vectors=V, coef=coef, intercept=0.0
    )
    f = clf.decision_function(X)
    f_direct, _ = _direct("rbf", gamma, X, V, coef, 0.0)
    np.testing.assert_allclose(f, f_direct, rtol=1e-9, atol=1e-300)
    if gamma >= 1e3:  # every other vector's kernel value underflows: exactly the own one
        np.testing.assert_array_equal(f[:5], coef[:5])


def test_a_tie_through_the_fused_pass_is_a_tie():
    """A point equal to two vectors of opposite coefficients: the decision is round-off (here
    exactly 0) and within its tolerance, so the label is +1 by the tie rule."""
    V = np.array([[0.5, -1.0], [0.5, -1.0], [3.0, 3.0]])
    clf = KernelExpansion(
        kernel=RBF(), params={"gamma": 2.0}, vectors=V, coef=np.array([1.5, -1.5, 0.0]),
        intercept=0.0,
    )  # fmt: skip
    f, tol = clf.decision_tolerance(np.array([[0.5, -1.0]]))
    assert abs(f[0]) <= tol[0]
    assert clf.predict(np.array([[0.5, -1.0]])).tolist() == [1.0]


def test_fused_decisions_refuse_points_whose_distances_overflow():
    clf = KernelExpansion(
        kernel=RBF(), params={"gamma": 1.0}, vectors=np.ones((3, 2)), coef=np.ones(3),
        intercept=0.0,
    )  # fmt: skip
    with pytest.raises(ValueError, match="overflow float64"):
        clf.decision_function(np.array([[1e160, 0.0]]))


@settings(max_examples=40, deadline=None)
@given(
    log_gamma=st.floats(-5.0, 5.0),
    n=st.integers(1, 30),
    m=st.integers(1, 30),
    dup=st.integers(0, 5),
    seed=st.integers(0, 2**16),
    lopsided=st.booleans(),
)
def test_fused_rbf_decisions_against_the_direct_sums(log_gamma, n, m, dup, seed, lopsided):
    """Property: over the whole gamma box, duplicated points and vectors, one-signed
    (unbalanced) coefficients, the fused decisions are the direct kernel sums to 1e-9 of the
    sum of absolute terms, and the round-off tolerances are nonnegative."""
    rng = np.random.default_rng(seed)
    gamma = 10.0**log_gamma
    V = rng.normal(size=(m, 3))
    X = np.vstack([V[: min(dup, m)], rng.normal(size=(n, 3))])
    coef = np.abs(rng.normal(size=m)) if lopsided else rng.normal(size=m)
    clf = KernelExpansion(
        kernel=RBF(), params={"gamma": gamma}, vectors=V, coef=coef, intercept=0.1
    )
    f, tol = clf.decision_tolerance(X)
    f_direct, scale = _direct("rbf", gamma, X, V, coef, 0.1)
    assert np.all(np.abs(f - f_direct) <= 1e-9 * scale + 1e-300)
    assert np.all(tol >= 0)
