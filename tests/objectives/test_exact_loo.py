"""ExactLOO: the objective's value, counts and cost, every kernel model, the tuners, the final
classifier, the kernel-row path and bad input."""

from __future__ import annotations

import numpy as np
import pytest

from svmtune import SVC
from svmtune.kernels import RBF, AnisotropicRBF, Linear, MultipleKernel
from svmtune.objectives import ExactLOO
from svmtune.solvers import KernelRows, exact_loo
from svmtune.solvers.smo._run import packed_rows_len
from svmtune.tuners import Bisection, Grid
from tests._oracles import loo_by_retraining, loo_wrong
from tests.solvers._data import real_split


@pytest.fixture(scope="module")
def heart() -> tuple[np.ndarray, np.ndarray]:
    X, y, _, _ = real_split("heart")
    return X, y


def _brute_force_error(y: np.ndarray, C: float, K: np.ndarray) -> float:
    """Retrain without each point from scratch at a tight tolerance (midpoint bias)."""
    dec, converged = loo_by_retraining(y, C, K)
    assert converged
    return float(np.mean(loo_wrong(y, dec)))


def test_value_info_and_cost(heart) -> None:
    X, y = heart
    params = {"C": 1.0, "gamma": 1.0 / X.shape[1]}
    for stopping in ("franc", "kkt"):
        ev = ExactLOO(stopping=stopping).bind(X, y, kernel=RBF()).evaluate(params)
        K = RBF().prepare(X).gram({"gamma": params["gamma"]})
        assert ev.value == exact_loo(y, C=1.0, gram=K, stopping=stopping).error
        assert ev.value == _brute_force_error(y, 1.0, K)
        info = ev.info
        assert info["errors"] == round(ev.value * y.size)
        assert (
            info["settled_alpha_zero"] + info["settled_misclassified"] + info["retrained"] == y.size
        )
        assert info["stopping_used"] in ("franc", "kkt")
        # the paper's KerEval, in entries: the kernel columns the solves read
        assert ev.cost.kernel_evals == y.size * info["kernel_rows"] > 0
        assert ev.cost.iterations == info["iterations"] > 0
        assert info["max_iter_reached"] == 0


@pytest.mark.parametrize(
    ("kernel", "params"),
    [
        (Linear(), {"C": 0.1}),
        (AnisotropicRBF(n_features=3), {"C": 3.0, "gamma_0": 0.5, "gamma_1": 2.0, "gamma_2": 0.1}),
        (MultipleKernel([[0], [1, 2]], form="weights"), None),
    ],
)
def test_every_kernel_model_equals_brute_force(kernel, params) -> None:
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 3))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.5 * rng.normal(size=60) > 0.3, 1.0, -1.0)
    bound = ExactLOO().bind(X, y, kernel=kernel)
    if params is None:
        params = {p.name: 1.0 for p in bound.space}
    ev = bound.evaluate(params)
    K = kernel.prepare(X).gram(bound.kernel_params(params))
    C = bound.C(params)
    assert ev.value == exact_loo(y, C=C, gram=K).error
    assert ev.value == _brute_force_error(y, C, K)


def test_tuners_grid_and_bisection(heart) -> None:
    X, y = heart
    grid = Grid(values={"C": [0.3, 3.0], "gamma": [0.01, 0.1]})
    res = grid.tune(ExactLOO(), X, y, kernel=RBF())
    values = res.trace["value"].to_numpy()
    assert values.size == 4 and res.best_value == values.min()
    out = Bisection(param="gamma", fixed={"C": 1.0}).tune(ExactLOO(), X, y, kernel=RBF())
    assert out.trace.shape[0] >= 3
    assert out.best_value == ExactLOO().bind(X, y, kernel=RBF()).evaluate(out.best_params).value


def test_classifier_is_the_full_svm(heart) -> None:
    X, y = heart
    params = {"C": 2.0, "gamma": 0.05}
    clf = ExactLOO().bind(X, y, kernel=RBF()).classifier(params)
    ref = SVC(C=2.0, kernel_params={"gamma": 0.05}).fit(X, y)
    dec = clf.decision_function(X)
    far = np.abs(dec) > 1e-2
    assert np.array_equal(np.sign(dec[far]), np.sign(ref.decision_function(X)[far]))


def test_cost_counts_the_kernel_columns_franc_saves(heart) -> None:
    X, y = heart
    ev = {
        s: ExactLOO(stopping=s, efficiency="certified")
        .bind(X, y, kernel=Linear())
        .evaluate({"C": 1.0})
        for s in ("franc", "kkt")
    }
    assert ev["franc"].value == ev["kkt"].value
    assert ev["franc"].info["stopping_used"] == "franc"
    assert 3 * ev["franc"].cost.kernel_evals < 2 * ev["kkt"].cost.kernel_evals


def test_row_cache_beyond_the_memory_budget(heart, monkeypatch) -> None:
    X, y = heart
    params = {"C": 1.0, "gamma": 0.05}
    full = ExactLOO().bind(X, y, kernel=RBF()).evaluate(params)
    budget = 8 * y.size * 40
    stores, read = [], []  # bytes counted by shapes: the row store, the rows read at once
    init, rows_of = KernelRows.__init__, KernelRows.rows_of

    def counted_init(rows, *args, **kwargs):
        init(rows, *args, **kwargs)
        packed = 8 * packed_rows_len(rows.n, rows.rows.nbytes)
        stores.append(rows.rows.nbytes + packed + rows.block_budget)

    def counted_rows_of(rows, idx):
        read.append(len(idx) * rows.n * 8 * (rows.kernel.block_arrays() + 3))
        return rows_of(rows, idx)

    monkeypatch.setattr(KernelRows, "__init__", counted_init)
    monkeypatch.setattr(KernelRows, "rows_of", counted_rows_of)
    small = ExactLOO(memory_budget=budget).bind(X, y, kernel=RBF()).evaluate(params)
    assert stores and max(stores) <= budget
    one_row = y.size * 8 * (RBF().block_arrays() + 3)  # the smallest block there is
    assert all(r <= max(budget // 8, one_row) for r in read)  # the block share, read at once
    assert small.info["stopping_used"] == "kkt"
    assert abs(small.value - full.value) <= 1 / y.size
    assert small.cost.kernel_evals > y.size  # rows computed on demand, counted


def test_bad_input(heart) -> None:
    X, y = heart
    with pytest.raises(ValueError, match="stopping"):
        ExactLOO(stopping="early").bind(X, y, kernel=RBF())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="n_jobs"):
        ExactLOO(n_jobs=0).bind(X, y, kernel=RBF())
    with pytest.raises(ValueError, match="efficiency_points"):
        ExactLOO(efficiency_points=0).bind(X, y, kernel=RBF())
    with pytest.raises(ValueError, match="at least 3 points of each class"):
        ExactLOO().bind(X[:5], np.array([1.0, 1.0, 1.0, -1.0, -1.0]), kernel=RBF())
    bound = ExactLOO().bind(X, y, kernel=RBF())
    with pytest.raises(ValueError, match="C"):
        bound.evaluate({"C": -1.0, "gamma": 0.1})
    assert ExactLOO.needs_C and "C" in bound.space.names


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"stopping": "fast"}, "stopping must be one of"),
        ({"n_jobs": 0}, "n_jobs must be a non-zero integer or None; got 0"),
        ({"efficiency_points": 0}, "efficiency_points must be a positive integer; got 0"),
        ({"efficiency": "fast"}, "efficiency must be one of .*got 'fast'"),
        ({"tol": -1.0}, "tol"),
    ],
)
def test_bad_options_are_refused_before_any_data(options, match) -> None:
    # as KFoldCV's and LOOEstimate's: at first use (a study's definition), not at a cell's bind
    with pytest.raises(ValueError, match=match):
        ExactLOO(**options).search_space(RBF())
