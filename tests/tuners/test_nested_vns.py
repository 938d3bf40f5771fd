"""NestedVNS (Carrizosa et al. 2014, Algorithm 2): levels, embedding, budgets, errors."""

import numpy as np
import pytest

from svmtune.kernels import RBF, AnisotropicRBF, MultipleKernel
from svmtune.objectives import KFoldCV
from svmtune.tuners import VNS, NestedVNS
from tests.tuners._cheap import GramDistance


@pytest.fixture
def data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(12, 4))
    return X, np.repeat([-1.0, 1.0], 6)


ANISO = AnisotropicRBF(n_features=4)
ANISO_TARGET = {"gamma_0": 0.05, "gamma_1": 0.3, "gamma_2": 1.5, "gamma_3": 0.01}
MKL = MultipleKernel([[0, 1], [2, 3]], form="weights_widths")
MKL_TARGET = {"mu_0": 2.0, "mu_1": 0.25, "gamma_0": 0.1, "gamma_1": 2.0}


def _objective(kernel, target):
    return GramDistance(target_kernel=kernel, target_params=target)


@pytest.mark.parametrize("kernel, target", [(ANISO, ANISO_TARGET), (MKL, MKL_TARGET)])
def test_level_two_starts_at_the_embedded_level_one_best_with_the_same_value(data, kernel, target):
    res = NestedVNS(m=(20, 30), step=0.5).tune(
        _objective(kernel, target), *data, kernel=kernel, random_state=0
    )
    tr = res.trace
    assert tr["level"].tolist() == [1] * 20 + [2] * 30
    lvl1, lvl2 = tr[tr.level == 1], tr[tr.level == 2]
    best1 = lvl1.loc[lvl1["value"].idxmin()]
    first2 = lvl2.iloc[0]
    pcols = [c for c in tr.columns if c.startswith("param_")]
    # Level-1 rows are recorded embedded in the final space: all widths equal, all weights equal.
    for prefix in ("param_gamma", "param_mu"):
        cols = [c for c in pcols if c.startswith(prefix)]
        if cols:
            assert (lvl1[cols].nunique(axis=1) == 1).all()
    # The first level-2 point is the embedded level-1 best, and its value is the same.
    assert first2[pcols].tolist() == best1[pcols].tolist()
    assert first2["value"] == best1["value"]
    # The embedding is the kernel's: the inner model at the inner parameters, same Gram.
    inner = kernel.nested()[0]
    inner_params = {n: best1[f"param_{n}_0"] for n in inner.space.names}
    embedded = {n: best1[f"param_{n}"] for n in kernel.space.names}
    np.testing.assert_allclose(
        inner.gram(inner_params, data[0]), kernel.gram(embedded, data[0]), rtol=1e-14
    )
    # The final answer is never worse than level 1's, and level 2 searched the larger space.
    assert res.best_value <= best1["value"]
    assert lvl2[pcols].drop_duplicates().shape[0] == 30


def test_level_two_improves_on_level_one_when_the_target_needs_the_larger_model(data):
    res = NestedVNS(m=(30, 120), step=0.5).tune(
        _objective(ANISO, ANISO_TARGET), *data, kernel=ANISO, random_state=1
    )
    tr = res.trace
    assert tr[tr.level == 2]["value"].min() < tr[tr.level == 1]["value"].min()
    assert res.best_value == tr["value"].min()
    assert res.trace["best_value"].iloc[-1] == res.best_value


def test_carries_C_through_the_levels_with_a_hinge_loss_objective(data):
    X = np.vstack([data[0], data[0] + 2.0])
    y = np.r_[data[1], -data[1]]
    res = NestedVNS(m=(6, 5), max_evals=11).tune(
        KFoldCV(k=3), X, y, kernel=AnisotropicRBF(n_features=4), random_state=0
    )
    tr = res.trace
    best1 = tr[tr.level == 1].sort_values("value", kind="stable").iloc[0]
    first2 = tr[tr.level == 2].iloc[0]
    assert first2["param_C"] == best1["param_C"]
    assert first2["param_gamma_0"] == best1["param_gamma_0"]
    assert len(tr) == 11


def test_same_seed_same_trace(data):
    def run(seed):
        return (
            NestedVNS(m=(10, 15))
            .tune(_objective(MKL, MKL_TARGET), *data, kernel=MKL, random_state=seed)
            .trace.drop(columns=["wall_s", "cpu_s", "cum_wall_s", "cum_cpu_s"])
        )

    pd_equal = run(4).equals(run(4))
    assert pd_equal and not run(4).equals(run(5))


@pytest.mark.parametrize("max_evals, levels", [(1, [1]), (12, [1] * 10 + [2] * 2), (25, None)])
def test_budgets_are_never_exceeded(data, max_evals, levels):
    res = NestedVNS(m=(10, 15), max_evals=max_evals).tune(
        _objective(ANISO, ANISO_TARGET), *data, kernel=ANISO, random_state=0
    )
    assert len(res.trace) == min(max_evals, 25)
    if levels is not None:
        assert res.trace["level"].tolist() == levels
        assert res.stopped_by == "max_evals"
    else:
        assert res.stopped_by == "converged"


def test_set_up_cost_of_every_level_is_counted(data):
    res = NestedVNS(m=(3, 4)).tune(
        _objective(ANISO, ANISO_TARGET), *data, kernel=ANISO, random_state=0
    )
    n = data[0].shape[0]
    assert res.trace["cum_kernel_evals"].iloc[-1] == 7 * n * n
    assert res.total_cost.kernel_evals == 7 * n * n


def test_a_kernel_without_nested_levels_runs_one_level_of_plain_vns(data):
    obj = _objective(RBF(), {"gamma": 0.2})
    res = NestedVNS(m=25).tune(obj, *data, kernel=RBF(), random_state=0)
    plain = VNS(max_evals=25).tune(obj, *data, kernel=RBF(), random_state=0)
    assert res.trace["level"].tolist() == [1] * 25
    assert res.trace["param_gamma"].tolist() == plain.trace["param_gamma"].tolist()
    with pytest.raises(ValueError, match=r"m gives 2 level budgets \[100, 500\], but the kernel"):
        NestedVNS(m=(100, 500)).tune(obj, *data, kernel=RBF())
    # the default m splits the run's budget over the levels there are
    assert NestedVNS().budgets(1) == [600] and NestedVNS().budgets(2) == [100, 500]
    assert NestedVNS(max_evals=30).budgets(2) == [5, 25]


@pytest.mark.parametrize(
    "options, match",
    [
        ({"m": 0}, "m must be a positive integer; got 0"),
        ({"m": (10, -1)}, "every m must be a positive integer; got -1"),
        ({"m": "many"}, "m must be a positive integer or a sequence"),
        ({"m": (5, 5, 5)}, "m gives 3 level budgets"),
        ({"max_evals": 0}, "max_evals must be a positive integer; got 0"),
        ({"start": {"gamma": 1e9}}, "start point is not in the search box"),
        ({"start": {"gamma_0": 1.0}}, "start point is not in the search box"),
    ],
)
def test_bad_options_raise_clear_errors(data, options, match):
    with pytest.raises(ValueError, match=match):
        NestedVNS(**options).tune(_objective(ANISO, ANISO_TARGET), *data, kernel=ANISO)


def test_bounds_narrow_every_level_that_has_the_parameter(data):
    X = np.vstack([data[0], data[0] + 2.0])
    y = np.r_[data[1], -data[1]]
    res = NestedVNS(m=(5, 5), bounds={"C": (0.5, 2.0)}).tune(
        KFoldCV(k=3), X, y, kernel=AnisotropicRBF(n_features=4), random_state=0
    )
    assert res.trace["param_C"].between(0.5, 2.0).all() and res.trace["level"].max() == 2
    with pytest.raises(ValueError, match=r"bounds name parameters \['nu'\] in no level"):
        NestedVNS(m=(5, 5), bounds={"nu": (1, 2)}).tune(
            KFoldCV(k=3), X, y, kernel=AnisotropicRBF(n_features=4)
        )
