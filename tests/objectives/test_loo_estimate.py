"""Fischetti's LOO estimate objectives against independent oracles."""

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svmtune import SVC
from svmtune.classifier import KernelExpansion
from svmtune.datasets import fischetti_split, load
from svmtune.kernels import RBF, AnisotropicRBF, Linear, MultipleKernel
from svmtune.kernels._base import PreparedKernel
from svmtune.objectives import KFoldCV, LOOEstimate, Status
from svmtune.study import Method
from svmtune.tuners import Grid


@pytest.fixture(scope="module")
def heart():
    X, y = load("heart")
    return fischetti_split(X, y, 0)


@pytest.fixture(scope="module")
def sonar():
    X, y = load("sonar")
    return fischetti_split(X, y, 1)


def explicit_loo1(X, y, gamma):
    """Drop each point, classify it with the others' signal (alpha = 1, beta0 = 0)."""
    wrong = 0
    for j in range(len(y)):
        others = np.arange(len(y)) != j
        clf = KernelExpansion(
            kernel=RBF(), params={"gamma": gamma}, vectors=X[others], coef=y[others], intercept=0.0
        )
        f = clf.decision_function(X[j : j + 1])[0]
        wrong += int(y[j] * f <= 0)
    return wrong / len(y)


@pytest.mark.parametrize("gamma", [0.01, 0.1, 0.5, 2.0])
def test_loo1_equals_explicit_leave_one_out(heart, gamma):
    Xtr, ytr, _, _ = heart
    ev = LOOEstimate(model="loo1").evaluate(Xtr, ytr, kernel=RBF(), params={"gamma": gamma})
    assert ev.status is Status.OK
    assert ev.value == explicit_loo1(Xtr, ytr, gamma)


@pytest.mark.parametrize("data", ["heart", "sonar"])
def test_models_are_ordered(data, request):
    Xtr, ytr, _, _ = request.getfixturevalue(data)
    for gamma in np.geomspace(1e-3, 10, 9):
        v = {
            m: LOOEstimate(model=m).evaluate(Xtr, ytr, kernel=RBF(), params={"gamma": gamma}).value
            for m in ("loo1", "loo2", "loo3")
        }
        assert v["loo3"] <= v["loo2"] <= v["loo1"]


def test_loo2_value_matches_its_classifier_on_left_out_signals(heart):
    """The value is the fraction wrong of y_j (nu_j + beta0) > 0 with the reported beta0."""
    Xtr, ytr, _, _ = heart
    bound = LOOEstimate(model="loo3").bind(Xtr, ytr, kernel=RBF())
    ev = bound.evaluate({"gamma": 0.2})
    a_plus, beta0 = ev.info["alpha_plus"], ev.info["beta0"]
    K = RBF().gram({"gamma": 0.2}, Xtr)
    np.fill_diagonal(K, 0.0)
    coef = np.where(ytr > 0, a_plus, -(1 - a_plus))
    nu = K @ coef
    assert ev.value == np.mean(ytr * (nu + beta0) <= 0)
    # The classifier carries the same alphas and threshold.
    clf = bound.classifier({"gamma": 0.2})
    assert clf.intercept == beta0
    full = clf.decision_function(Xtr)
    np.testing.assert_allclose(full - coef, nu + beta0, atol=1e-10)  # K_jj = 1 for RBF


def test_naive_prefers_the_largest_gamma(heart):
    Xtr, ytr, _, _ = heart
    grid = Grid(values={"gamma": np.geomspace(1e-3, 1e3, 13)})
    naive = grid.tune(LOOEstimate(model="naive"), Xtr, ytr, kernel=RBF())
    assert naive.trace["value"].iloc[-1] == 0.0  # an impulsive kernel "classifies" perfectly
    loo2 = grid.tune(LOOEstimate(model="loo2"), Xtr, ytr, kernel=RBF())
    assert loo2.best_params["gamma"] < naive.trace.query("value == 0")["param_gamma"].min()
    assert loo2.trace["value"].iloc[-1] > 0.3  # the net signal exposes the impulsive kernel


class _BlockedRBF(RBF):
    """The RBF kernel through the generic prepared-block path (no fused net-signal loop)."""

    fused_net_sums = False


def test_blocked_accumulation_gives_identical_values():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(1500, 5))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=1500) > 0, 1.0, -1.0)
    fused = LOOEstimate(model="loo3").bind(X, y, kernel=RBF())
    big = LOOEstimate(model="loo3").bind(X, y, kernel=_BlockedRBF())
    small = LOOEstimate(model="loo3", memory_budget=2**20).bind(X, y, kernel=_BlockedRBF())
    assert fused.fused and fused.prepared is None
    assert len(big.blocks) == 1 and big.prepared is not None
    assert len(small.blocks) > 1 and small.prepared is None
    for gamma in (0.05, 0.5):
        f = fused.evaluate({"gamma": gamma})
        a, b = big.evaluate({"gamma": gamma}), small.evaluate({"gamma": gamma})
        assert f.value == a.value == b.value
        assert f.info["alpha_plus"] == a.info["alpha_plus"] == b.info["alpha_plus"]
        # summation order differs between the fused, symmetric and row-block loops
        assert a.info["beta0"] == pytest.approx(b.info["beta0"], rel=1e-12)
        assert f.info["beta0"] == pytest.approx(b.info["beta0"], rel=1e-12)
        # one exp per pair on the symmetric block and in the fused loop; every off-diagonal
        # entry in row blocks
        assert f.cost.kernel_evals == a.cost.kernel_evals == 1500 * 1499 // 2
        assert b.cost.kernel_evals == 1500 * 1499


def test_loo3_costs_one_kernel_pass_like_loo2(heart):
    Xtr, ytr, _, _ = heart
    n = len(ytr)
    for m in ("loo1", "loo2", "loo3"):
        ev = LOOEstimate(model=m).evaluate(Xtr, ytr, kernel=RBF(), params={"gamma": 0.1})
        assert ev.cost.kernel_evals == n * (n - 1) // 2


def test_19000_points_run_within_the_memory_budget():
    rng = np.random.default_rng(0)
    n = 19_000
    X = rng.normal(size=(n, 4))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    budget = 64 * 2**20
    tracemalloc.start()
    try:
        ev = LOOEstimate(model="loo2", memory_budget=budget).evaluate(
            X, y, kernel=_BlockedRBF(), params={"gamma": 1.0}
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert ev.status is Status.OK and ev.value < 0.1
    assert ev.cost.kernel_evals == n * (n - 1)
    assert peak < budget  # a full n x n matrix would be 2.9 GB


def test_19000_points_fused_loop_holds_no_matrix():
    """The fused RBF pass on 19,020 x 10 points: O(n) memory, one exp per pair."""
    rng = np.random.default_rng(0)
    n = 19_020
    X = rng.normal(size=(n, 10))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    tracemalloc.start()
    try:
        ev = LOOEstimate(model="loo2").evaluate(X, y, kernel=RBF(), params={"gamma": 0.05})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert ev.status is Status.OK and ev.value < 0.25
    assert ev.cost.kernel_evals == n * (n - 1) // 2
    assert peak < 16 * 2**20  # O(n): partial sums per chunk, never a block of rows


def test_bad_input(heart):
    Xtr, ytr, _, _ = heart
    with pytest.raises(ValueError, match="unknown LOO model 'loo4'"):
        LOOEstimate(model="loo4").evaluate(Xtr, ytr, kernel=RBF(), params={"gamma": 0.1})
    with pytest.raises(ValueError, match="gamma=-0.5 is outside its bounds"):
        LOOEstimate().evaluate(Xtr, ytr, kernel=RBF(), params={"gamma": -0.5})
    with pytest.raises(ValueError, match="outside its bounds"):
        LOOEstimate().evaluate(Xtr, ytr, kernel=RBF(gamma_bounds=(1e-3, 1.0)), params={"gamma": 5})
    with pytest.raises(ValueError, match="single class"):
        LOOEstimate().evaluate(Xtr, np.ones_like(ytr), kernel=RBF(), params={"gamma": 0.1})
    one_each = np.full_like(ytr, -1.0)
    one_each[0] = 1.0
    with pytest.raises(ValueError, match="at least 2 points of each class"):
        LOOEstimate().evaluate(Xtr, one_each, kernel=RBF(), params={"gamma": 0.1})
    with pytest.raises(ValueError, match="alpha_grid"):
        LOOEstimate(model="loo3", alpha_grid=[0.5, 1.5]).bind(Xtr, ytr, kernel=RBF())
    with pytest.raises(ValueError, match="missing \\['gamma'\\]"):
        LOOEstimate().evaluate(Xtr, ytr, kernel=RBF(), params={})
    with pytest.raises(ValueError, match="mismatched lengths"):
        LOOEstimate().evaluate(Xtr, ytr[:-1], kernel=RBF(), params={"gamma": 0.1})
    bad = Xtr.copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        LOOEstimate().evaluate(bad, ytr, kernel=RBF(), params={"gamma": 0.1})


def test_loo_estimate_has_no_gradient(heart):
    Xtr, ytr, _, _ = heart
    assert not LOOEstimate.has_gradient
    with pytest.raises(NotImplementedError, match="provides no gradient"):
        LOOEstimate().bind(Xtr, ytr, kernel=RBF()).gradient({"gamma": 0.1})


def brute_force_loo(X, y, gamma, model):
    """Explicit kernel matrix, every alpha+ on the grid, every candidate threshold."""
    K = np.exp(-gamma * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    np.fill_diagonal(K, 0.0)
    grid = [0.5] if model == "loo2" else [i / 10 for i in range(11)]
    best = 0
    for a in grid:
        nu = K @ np.where(y > 0, a, -(1 - a))
        c = np.unique(-nu)
        cands = [c[0] - 1.0, *(0.5 * (c[:-1] + c[1:])), c[-1] + 1.0]
        best = max(best, max(int(np.sum(y * (nu + b) > 0)) for b in cands))
    return (len(y) - best) / len(y)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(4, 30),
    st.integers(1, 4),
    st.floats(0.05, 5.0),
    st.sampled_from(["loo2", "loo3"]),
    st.integers(0, 2**31 - 1),
)
def test_loo_values_match_brute_force(n, d, gamma, model, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    y[:2] = [-1.0, 1.0]
    y[2:4] = [-1.0, 1.0]
    ev = LOOEstimate(model=model).evaluate(X, y, kernel=RBF(), params={"gamma": gamma})
    assert ev.value == pytest.approx(brute_force_loo(X, y, gamma, model), abs=1e-12)


@pytest.mark.parametrize("model", ["loo1", "loo2", "loo3", "naive"])
def test_fused_tiles_give_the_brute_force_decisions(model):
    """600 points: three tiles of the fused loop, off-diagonal and diagonal; the count of
    points right is the brute-force one exactly."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(600, 3))
    y = np.where(X[:, 0] + X[:, 1] ** 2 - 1 + 0.5 * rng.normal(size=600) > 0, 1.0, -1.0)
    ev = LOOEstimate(model=model).evaluate(X, y, kernel=RBF(), params={"gamma": 0.4})
    if model in ("loo2", "loo3"):
        assert ev.value == brute_force_loo(X, y, 0.4, model)
    else:
        K = np.exp(-0.4 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
        if model == "loo1":
            np.fill_diagonal(K, 0.0)
        nu = K @ y
        assert ev.value == np.mean(y * (nu + ev.info["beta0"]) <= 0)


@pytest.mark.parametrize(
    "kernel,params",
    [
        (Linear(), {}),
        (AnisotropicRBF(n_features=3), {"gamma_0": 0.5, "gamma_1": 2.0, "gamma_2": 0.1}),
        (
            MultipleKernel([[0], [1, 2]], form="weights_widths"),
            {"mu_0": 2.0, "mu_1": 0.5, "gamma_0": 1.0, "gamma_1": 0.3},
        ),
    ],
    ids=["linear", "anisotropic", "multiple"],
)
@pytest.mark.parametrize("model", ["loo1", "loo2", "loo3"])
@pytest.mark.parametrize("budget", [2**30, 2**16], ids=["one-block", "row-blocks"])
def test_any_kernel_model(kernel, params, model, budget):
    """Net signals through the generic Gram path (the anisotropic RBF: the fused loop),
    checked against the explicit matrix."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 3))
    y = np.where(X[:, 0] + X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=60) > 0, 1.0, -1.0)
    bound = LOOEstimate(model=model, memory_budget=budget).bind(X, y, kernel=kernel)
    assert bound.fused == kernel.fused_net_sums
    assert (len(bound.blocks) > 1) == (budget == 2**16 and not bound.fused)
    ev = bound.evaluate(params)
    K = kernel.gram(params, X)
    np.fill_diagonal(K, 0.0)
    a = ev.info["alpha_plus"]
    nu = K @ np.where(y > 0, a, -ev.info["alpha_minus"])
    assert ev.value == np.mean(y * (nu + ev.info["beta0"]) <= 0)
    clf = bound.classifier(params)
    assert clf.error(X, y) <= 0.5


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"model": "LOO3"}, r"unknown LOO model 'LOO3'.*did you mean 'loo3'\?"),
        ({"model": 3}, "unknown LOO model 3"),
        ({"model": "loo3", "alpha_grid": (a / 10 for a in range(11))}, "alpha_grid must be a"),
        ({"model": "loo3", "alpha_grid": "0.5"}, "alpha_grid must be a"),
        ({"model": "loo3", "alpha_grid": [0.5, "x"]}, "alpha_grid must be a"),
        ({"memory_budget": 1e9}, "memory_budget must be an integer"),
    ],
)
def test_options_are_checked_at_first_use_before_any_data(options, match):
    with pytest.raises(ValueError, match=match):
        LOOEstimate(**options).search_space(RBF())
    with pytest.raises(ValueError, match=match):
        Method(LOOEstimate(**options), Grid(), RBF()).search_space()


class _NaNKernel(RBF):
    """An RBF whose Gram matrix is NaN at gamma >= 10 (a kernel that overflows at evaluation)."""

    fused_net_sums = False

    def _prepare(self, X, Z):
        prepared = super()._prepare(X, Z)
        gram = prepared._gram
        prepared._gram = lambda p: gram(p) * (np.nan if p["gamma"] >= 10 else 1.0)
        prepared.weighted_sums = lambda p, W, skip=None: PreparedKernel.weighted_sums(
            prepared, p, W, skip=skip
        )
        return prepared


@pytest.mark.parametrize("model", ["loo1", "loo2", "loo3", "naive"])
def test_non_finite_distances_or_gram_raise_like_kfold_and_svc(heart, model):
    # Features near 1e160 overflow the squared distances: LOOEstimate returned 1.0 with
    # status ok; it now refuses them with the error KFoldCV and SVC give.
    Xtr, ytr, _, _ = heart
    big = Xtr * 1e160
    match = "squared distances overflow float64"
    with pytest.raises(ValueError, match=match):
        LOOEstimate(model=model).evaluate(big, ytr, kernel=RBF(), params={"gamma": 0.1})
    with pytest.raises(ValueError, match=match):
        KFoldCV().evaluate(big, ytr, kernel=RBF(), params={"C": 1.0, "gamma": 0.1})
    with pytest.raises(ValueError, match=match):
        SVC().fit(big, ytr)
    with pytest.raises(ValueError, match="inner products overflow float64"):
        LOOEstimate(model=model).evaluate(Xtr * 1e160, ytr, kernel=Linear(), params={})
    # a Gram matrix that is not finite at one setting only: that evaluation is refused
    bound = LOOEstimate(model=model).bind(Xtr, ytr, kernel=_NaNKernel())
    assert bound.evaluate({"gamma": 1.0}).ok
    with pytest.raises(ValueError, match="contains a non-finite value"):
        bound.evaluate({"gamma": 10.0})
