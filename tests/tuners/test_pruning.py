"""Fold-level pruning: KFoldCV reports its running error per fold, Optuna's pruners stop trials."""

import math
import warnings

import numpy as np
import optuna
import pytest

from svmtune._params import describe
from svmtune.datasets import fischetti_split, load
from svmtune.estimators import check_combination
from svmtune.kernels import RBF
from svmtune.objectives import KFoldCV, LOOEstimate
from svmtune.study import Method, Study
from svmtune.tuners import TPE, Grid, OptunaTuner, RandomSearch

PARAMS = {"C": 10.0, "gamma": 0.05}


@pytest.fixture(scope="module")
def heart():
    X, y, _, _ = fischetti_split(*load("heart"), seed=1)
    return X, y


@pytest.fixture(autouse=True)
def _no_experimental_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        yield


def _never(calls):
    def report(step, value):
        calls.append((step, value))
        return False

    return report


def _distinct(n: int, rows: int) -> int:
    """Kernel entries of the diagonal and ``rows`` complete rows of a symmetric ``n x n`` matrix,
    each entry once."""
    return n + rows * n - rows * (rows - 1) // 2


@pytest.mark.parametrize("memory_budget", [512 * 2**20, 1])
def test_stepwise_evaluation_equals_the_plain_one_and_reports_each_fold(heart, memory_budget):
    X, y = heart
    cv = KFoldCV(k=5, memory_budget=memory_budget)
    plain = cv.bind(X, y, kernel=RBF()).evaluate(PARAMS)
    calls = []
    stepped = cv.bind(X, y, kernel=RBF()).evaluate(PARAMS, report=_never(calls))
    assert stepped.status == "ok"
    assert stepped.value == plain.value
    if memory_budget == 1:  # both solve each fold on its own cached rows
        assert stepped.cost.iterations == plain.cost.iterations
        assert stepped.cost.kernel_evals == plain.cost.kernel_evals
    else:  # rows on demand (shared by the folds) instead of the whole Gram matrix
        assert stepped.info["kernel_rows"] <= len(y)
        # each entry of the rows computed once, but for some of the first quarter of rows and
        # the chunks of rows a warm start asks for (see KernelRows)
        rows = stepped.info["kernel_rows"]
        assert _distinct(len(y), rows) <= stepped.cost.kernel_evals <= len(y) * (rows + 1)
        assert stepped.cost.kernel_evals <= plain.cost.kernel_evals == len(y) ** 2
    # steps 1..k-1 (the last fold's value is the evaluation's), each the running error
    assert [s for s, _ in calls] == [1, 2, 3, 4]
    assert all(0.0 <= v <= 1.0 for _, v in calls)


@pytest.mark.parametrize("memory_budget", [512 * 2**20, 1])
def test_a_pruned_evaluation_has_its_partial_value_and_the_cost_of_the_folds_solved(
    heart, memory_budget
):
    X, y = heart
    cv = KFoldCV(k=5, memory_budget=memory_budget)
    full = cv.bind(X, y, kernel=RBF()).evaluate(PARAMS, report=_never([]))
    bound = cv.bind(X, y, kernel=RBF())
    pruned = bound.evaluate(PARAMS, report=lambda step, value: True)
    assert pruned.status == "pruned" and not pruned.ok and pruned.score == math.inf
    assert pruned.info["folds"] == 1
    # the partial value is fold 0's validation error
    va = bound.folds[0][1]
    assert pruned.value == pytest.approx(pruned.info["errors"] / va.size)
    assert 0 < pruned.cost.iterations < full.cost.iterations
    # the folds not solved cost no kernel entry
    assert 0 < pruned.cost.kernel_evals < full.cost.kernel_evals
    if memory_budget == 1:  # each fold on its own rows
        assert pruned.cost.kernel_evals < full.cost.kernel_evals / 2
    else:  # the diagonal and the complete rows fold 0 touched, each row once (computed
        # whole: short points; the validation rows a warm start asks for reuse held rows)
        rows = pruned.info["kernel_rows"]
        distinct = _distinct(len(y), rows)
        assert distinct <= pruned.cost.kernel_evals <= len(y) * (rows + 1)


@pytest.mark.parametrize(
    "pruner",
    [
        optuna.pruners.SuccessiveHalvingPruner(),
        optuna.pruners.HyperbandPruner(),
        optuna.pruners.MedianPruner(n_startup_trials=2),
    ],
    ids=lambda p: type(p).__name__,
)
def test_optuna_pruners_stop_trials_which_stay_in_the_trace_at_their_real_cost(heart, pruner):
    X, y = heart
    cv = KFoldCV(k=5, seeding=False)  # each evaluation's cost independent of the history
    # Whether a pruner stops a trial within 14 depends on TPE's path, which round-off on
    # another CPU can change: the first of a few seeds whose run prunes one is checked
    for seed in range(6):
        res = TPE(max_evals=14, pruner=pruner).tune(cv, X, y, kernel=RBF(), random_state=seed)
        tr = res.trace
        assert len(tr) == 14  # a pruned trial counts as one evaluation of the budget
        is_pruned = tr["status"] == "pruned"
        if is_pruned.any():
            break
    assert is_pruned.any() and (tr["status"] == "ok").any()
    assert tr.loc[is_pruned, "value"].between(0.0, 1.0).all()
    assert res.best_evaluation.ok  # a pruned trial is never the answer
    assert res.best_value == tr.loc[tr["status"] == "ok", "value"].min()
    # the cumulative costs count the pruned trials
    assert tr["cum_iterations"].iloc[-1] == tr["iterations"].sum()
    assert res.total_cost.iterations >= tr["iterations"].sum()
    # each pruned trial cost fewer SMO iterations than the full evaluation of its point
    fresh = cv.bind(X, y, kernel=RBF())
    for _, row in tr[is_pruned].iterrows():
        full = fresh.evaluate({"C": row["param_C"], "gamma": row["param_gamma"]})
        assert row["iterations"] < full.cost.iterations


def test_pruned_trials_are_pruned_optuna_trials_and_a_resumed_run_keeps_them(heart, tmp_path):
    X, y = heart
    url = f"sqlite:///{tmp_path / 'p.db'}"
    pruner = optuna.pruners.SuccessiveHalvingPruner()
    first = TPE(max_evals=10, pruner=pruner, storage=url, study_name="p").tune(
        KFoldCV(), X, y, kernel=RBF(), random_state=3
    )
    study = optuna.load_study(study_name="p", storage=url)
    states = [t.state.name for t in study.trials]
    assert states.count("PRUNED") == int((first.trace["status"] == "pruned").sum()) > 0
    again = TPE(max_evals=12, pruner=pruner, storage=url, study_name="p").tune(
        KFoldCV(), X, y, kernel=RBF(), random_state=3
    )
    head = again.trace.iloc[:10]
    assert list(head["status"]) == list(first.trace["status"])
    assert np.allclose(head["value"], first.trace["value"])
    exported = first.to_optuna(optuna.create_study())
    assert [t.state.name for t in exported.trials].count("PRUNED") == states.count("PRUNED")


@pytest.mark.parametrize("tuner_cls", [TPE, RandomSearch, OptunaTuner])
def test_a_pruner_on_an_objective_without_per_fold_values_is_refused_at_definition(tuner_cls):
    tuner = tuner_cls(max_evals=5, pruner=optuna.pruners.MedianPruner())
    with pytest.raises(ValueError, match=rf"{tuner_cls.__name__} has a pruner.*LOOEstimate"):
        Study(
            "bad",
            datasets=["heart"],
            methods={"m": Method(LOOEstimate(model="loo2"), tuner, RBF())},
        ).validate()


def test_bad_pruners_and_tuners_that_cannot_prune_are_refused(heart):
    X, y = heart
    with pytest.raises(ValueError, match="pruner must be an Optuna pruner.*TPE got 'median'"):
        TPE(pruner="median").tune(KFoldCV(), X, y, kernel=RBF())
    with pytest.raises(TypeError, match="pruner"):
        Grid(pruner=optuna.pruners.MedianPruner())  # type: ignore[call-arg]
    with pytest.raises(ValueError, match=r"LOOEstimate.*cannot report per-step values"):
        LOOEstimate(model="loo2").bind(X, y, kernel=RBF()).evaluate(
            {"gamma": 0.1}, report=lambda s, v: False
        )


def test_a_pruner_shows_its_options_and_a_changed_pruner_is_a_changed_method():
    sha = optuna.pruners.SuccessiveHalvingPruner
    assert (
        repr(TPE(max_evals=25, pruner=sha()))
        == "TPE(max_evals=25, pruner=SuccessiveHalvingPruner())"
    )
    assert "reduction_factor=3" in repr(TPE(pruner=sha(reduction_factor=3)))
    assert describe(TPE(pruner=sha())) == describe(TPE(pruner=sha()))
    assert describe(TPE(pruner=sha())) != describe(TPE(pruner=sha(reduction_factor=3)))
    with pytest.raises(ValueError, match=r"LOOEstimate.*TPE.*over RBF.*per-fold values"):
        check_combination(LOOEstimate(model="loo2"), TPE(pruner=sha()), RBF())
