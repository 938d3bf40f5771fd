"""cpu_budget: tuning runs started in the block stop at its CPU deadline and keep their trace."""

import numpy as np
import pytest

import svmtune.tuners._cpu_budget as cpu_module
from svmtune.kernels import RBF
from svmtune.objectives import KFoldCV
from svmtune.tuners import TPE, Grid, cpu_budget, cpu_budget_spent


class _TickingClock:
    """A process clock that advances one second each time it is read."""

    def __init__(self) -> None:
        self.now = 0.0

    def process_time(self) -> float:
        self.now += 1.0
        return self.now


@pytest.fixture
def ticking(monkeypatch):
    clock = _TickingClock()
    monkeypatch.setattr(cpu_module, "time", clock)
    return clock


def _bound():
    """3-fold CV bound to two blobs (``tune_bound``: no untimed warm-up run reads the clock)."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(-1, 1, (30, 2)), rng.normal(1, 1, (30, 2))])
    return KFoldCV(k=3, random_state=0).bind(X, np.repeat([-1.0, 1.0], 30), kernel=RBF())


def test_a_grid_stops_at_the_deadline_and_keeps_what_it_evaluated(ticking):
    # the block is entered at 1 s, so the deadline is 4.5 s; each check reads the clock once:
    # checks at 2, 3, 4 s let three evaluations start, the check at 5 s stops the run
    with cpu_budget(3.5):
        result = Grid(n_points=5).tune_bound(_bound(), random_state=0)
    assert result.stopped_by == "max_cpu_seconds"
    assert result.n_evaluations == 3 and len(result.trace) == 3
    assert result.best_value == result.trace["value"].min()
    assert not cpu_budget_spent()  # the budget ends with its block


def test_a_grid_walk_stopped_part_way_traces_what_ran_in_order(ticking):
    # KFoldCV shares its Gram matrix between the C of one gamma: the grid walks gamma slowest.
    # Stopped after 7 evaluations, the trace holds the first 7 of that walk in that order (the
    # first gamma's 5 C, then two C of the next), each billed its own kernel evaluations, and
    # the answer is the lowest value among them, ties taken in the grid's order (C slowest)
    with cpu_budget(7.5):
        result = Grid(n_points=5).tune_bound(_bound(), random_state=0)
    t = result.trace
    assert result.stopped_by == "max_cpu_seconds" and len(t) == 7
    gammas = sorted(set(t["param_gamma"]))
    assert t["param_gamma"].tolist() == [gammas[0]] * 5 + [gammas[1]] * 2
    assert t["param_C"].tolist()[:5] == sorted(t["param_C"].tolist()[:5])
    built = t["kernel_evals"].to_numpy() > 0
    assert built.tolist() == [True, False, False, False, False, True, False]
    assert t["cum_kernel_evals"].is_monotonic_increasing
    grid_order = t.sort_values(["param_C", "param_gamma"], kind="stable")
    first = grid_order.loc[grid_order["value"].idxmin()]
    assert result.best_params == {"C": first["param_C"], "gamma": first["param_gamma"]}


def test_an_optuna_search_asks_for_no_trial_past_the_deadline(ticking):
    with cpu_budget(5.5):
        result = TPE(max_evals=25).tune_bound(_bound(), random_state=0)
    assert result.stopped_by == "max_cpu_seconds"
    assert 1 <= result.n_evaluations <= 4 and len(result.trace) == result.n_evaluations


def test_no_budget_and_an_outer_budget(ticking):
    with cpu_budget(None):
        result = Grid(n_points=3).tune_bound(_bound())
    assert result.stopped_by == "converged" and result.n_evaluations == 9
    with cpu_budget(2.5), cpu_budget(100.0):  # the tighter, outer deadline holds
        result = Grid(n_points=3).tune_bound(_bound())
    # deadline 1 + 2.5 = 3.5 s; the inner block's entry read 2 s; checks at 3 s (one
    # evaluation), then 4 s stops
    assert result.n_evaluations == 1 and result.stopped_by == "max_cpu_seconds"


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf"), True, "10"])
def test_bad_budgets_are_refused_by_value(bad):
    with pytest.raises(ValueError, match=f"got {bad!r}"), cpu_budget(bad):
        pass


def test_a_study_checks_its_cpu_budget_and_stores_it_only_when_set():
    from svmtune.objectives import LOOEstimate
    from svmtune.study import Method, Study

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(20, 2)), np.repeat([-1.0, 1.0], 10)
    methods = {"m": Method(LOOEstimate(model="loo2"), Grid(n_points=2), RBF())}
    plain = Study("plain", datasets={"d": (X, y)}, methods=methods, storage="sqlite://")
    assert "max_cpu_seconds" not in plain.definition()  # studies without it: as before
    budgeted = Study(
        "cpu", datasets={"d": (X, y)}, methods=methods, storage="sqlite://", max_cpu_seconds=5
    )
    assert budgeted.definition()["max_cpu_seconds"] == 5
    bad = Study(
        "bad", datasets={"d": (X, y)}, methods=methods, storage="sqlite://", max_cpu_seconds=-1
    )
    with pytest.raises(ValueError, match="max_cpu_seconds must be a positive number; got -1"):
        bad.validate()
