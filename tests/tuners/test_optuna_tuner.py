"""Optuna samplers as tuners (ask/tell), storage and resume, export of any run to Optuna."""

import math
import warnings

import numpy as np
import optuna
import pytest

from svmtune.kernels import RBF, AnisotropicRBF
from svmtune.tuners import TPE, VNS, Grid, NestedVNS, OptunaTuner, RandomSearch, trace_to_optuna
from tests.tuners._cheap import FlakyRastrigin, GramDistance, Rastrigin

BOX = {"C": (2.0**-8, 2.0**2), "gamma": (2.0**-8, 2.0**8)}
TARGET = {"C": -5.3, "gamma": 3.7}


class _WithC(Rastrigin):
    needs_C = True

    def __init__(self, *, target=TARGET, period=6.0):
        super().__init__(target=target, period=period)


@pytest.fixture
def toy():
    rng = np.random.default_rng(0)
    return rng.normal(size=(6, 2)), np.repeat([-1.0, 1.0], 3)


@pytest.fixture(autouse=True)
def _no_experimental_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        yield


COLS = ["param_C", "param_gamma", "value"]


def _samplers():
    out = [
        pytest.param({}, id="default-TPE"),
        pytest.param({"sampler": optuna.samplers.TPESampler}, id="TPE-class"),
        pytest.param({"sampler": optuna.samplers.RandomSampler}, id="random"),
        pytest.param({"sampler": optuna.samplers.QMCSampler}, id="QMC"),
        pytest.param(
            {"sampler": optuna.samplers.CmaEsSampler, "sampler_options": {"n_startup_trials": 3}},
            id="CMA-ES",
            marks=pytest.mark.skipif(
                not _importable("cmaes"), reason="CmaEsSampler needs the cmaes package"
            ),
        ),
        pytest.param(
            # GPSampler: optuna >= 3.6 (pyproject allows 3.5)
            {
                "sampler": getattr(optuna.samplers, "GPSampler", None),
                "sampler_options": {"n_startup_trials": 3},
            },
            id="GP",
            marks=pytest.mark.skipif(
                not _importable("torch") or not hasattr(optuna.samplers, "GPSampler"),
                reason="GPSampler needs torch (not installed) and optuna >= 3.6",
            ),
        ),
    ]
    return out


def _importable(name):
    try:
        __import__(name)
    except ImportError:
        return False
    return True


@pytest.mark.parametrize("options", _samplers())
def test_any_sampler_runs_in_the_box_and_seeded_runs_repeat(toy, options):
    def run(seed):
        tuner = OptunaTuner(max_evals=12, bounds=BOX, **options)
        return tuner.tune(_WithC(), *toy, kernel=RBF(), random_state=seed)

    a, b, c = run(3), run(3), run(4)
    assert len(a.trace) == 12 and a.stopped_by == "max_evals"
    for name, (lo, hi) in BOX.items():
        assert a.trace[f"param_{name}"].between(lo, hi).all()
    assert a.trace[COLS].equals(b.trace[COLS])
    assert not a.trace[COLS].equals(c.trace[COLS])
    assert a.best_value == a.trace["value"].min()


def test_a_sampler_instance_is_copied_so_runs_from_it_repeat(toy):
    tuner = OptunaTuner(sampler=optuna.samplers.TPESampler(seed=11), max_evals=15, bounds=BOX)
    a = tuner.tune(_WithC(), *toy, kernel=RBF(), random_state=0)
    b = tuner.tune(_WithC(), *toy, kernel=RBF(), random_state=1)  # the instance's seed rules
    assert a.trace[COLS].equals(b.trace[COLS])


def test_tpe_and_random_search_shortcuts(toy):
    tpe = TPE(max_evals=40, bounds=BOX).tune(_WithC(), *toy, kernel=RBF(), random_state=0)
    rnd = RandomSearch(max_evals=40, bounds=BOX).tune(_WithC(), *toy, kernel=RBF(), random_state=0)
    assert len(tpe.trace) == len(rnd.trace) == 40
    # Random search is log-uniform in the box: log2 gamma spreads over [-8, 8].
    lg = np.log2(rnd.trace["param_gamma"])
    assert lg.min() < -4 and lg.max() > 4
    # After its 10 random start-up trials, TPE concentrates where values are low.
    late = tpe.trace["value"].iloc[20:].median()
    assert late < rnd.trace["value"].iloc[20:].median()
    again = TPE(max_evals=40, bounds=BOX).tune(_WithC(), *toy, kernel=RBF(), random_state=0)
    assert tpe.trace[COLS].equals(again.trace[COLS])


def test_budgets_are_never_exceeded(toy):
    res = TPE(max_evals=7).tune(_WithC(), *toy, kernel=RBF(), random_state=0)
    assert len(res.trace) == 7 and res.stopped_by == "max_evals"


def test_storage_keeps_every_trial_and_a_rerun_resumes(toy, tmp_path):
    url = f"sqlite:///{tmp_path / 'tpe.db'}"
    obj = _WithC()
    first = TPE(max_evals=4, storage=url, study_name="s").tune(
        obj, *toy, kernel=RBF(), random_state=0
    )
    assert len(first.trace) == 4
    study = optuna.load_study(study_name="s", storage=url)
    assert [t.value for t in study.trials] == first.trace["value"].tolist()
    assert study.trials[0].user_attrs["kernel_evals"] == 1

    bound = obj.bind(*toy, kernel=RBF())
    resumed = TPE(max_evals=10, storage=url, study_name="s").tune_bound(bound, random_state=0)
    assert len(resumed.trace) == 10 and bound.n_calls == 6  # only the missing six evaluated
    assert resumed.trace[COLS].iloc[:4].equals(first.trace[COLS])
    assert len(optuna.load_study(study_name="s", storage=url).trials) == 10
    # A finished study: nothing left to evaluate.
    bound = obj.bind(*toy, kernel=RBF())
    done = TPE(max_evals=10, storage=url, study_name="s").tune_bound(bound, random_state=0)
    assert bound.n_calls == 0 and done.trace[COLS].equals(resumed.trace[COLS])


def test_resuming_a_study_of_another_space_is_refused(toy, tmp_path):
    url = f"sqlite:///{tmp_path / 'x.db'}"
    RandomSearch(max_evals=2, storage=url).tune(_WithC(), *toy, kernel=RBF())
    obj = GramDistance(target_kernel=RBF(), target_params={"gamma": 1.0})
    with pytest.raises(ValueError, match=r"has trials over \['C', 'gamma'\]; this run searches"):
        RandomSearch(max_evals=2, storage=url).tune(obj, *toy, kernel=RBF())


@pytest.mark.parametrize(
    "options, match",
    [
        ({"sampler": "tpe"}, "sampler must be an Optuna sampler: a subclass or an instance"),
        ({"sampler": VNS}, "sampler must be an Optuna sampler"),
        (
            {"sampler": optuna.samplers.RandomSampler(), "sampler_options": {"seed": 1}},
            "sampler_options apply to a sampler class",
        ),
        ({"storage": 42}, "storage must be an Optuna storage URL"),
        ({"storage": "nosuchdb://x/y"}, "cannot open the Optuna storage 'nosuchdb://x/y'"),
        (
            {"storage": "sqlite:////nonexistent-dir/deeper/x.db"},
            "cannot open the Optuna storage",
        ),
        ({"n_trials": 0}, "n_trials must be a positive integer; got 0"),
        ({"bounds": {"C": (1.0, 0.5)}}, "must satisfy low < high"),
    ],
)
def test_bad_options_raise_clear_errors(toy, options, match):
    with pytest.raises(ValueError, match=match):
        OptunaTuner(**options).tune(_WithC(), *toy, kernel=RBF())


def _runs(toy):
    obj = FlakyRastrigin(target={"gamma": 1.0}, fail_above=30.0)
    kw = {"random_state": 0}
    yield Grid(n_points=7, bounds={"gamma": (1e-3, 1e3)}).tune(obj, *toy, kernel=RBF(), **kw)
    yield VNS(max_evals=12).tune(obj, *toy, kernel=RBF(), **kw)
    yield TPE(max_evals=12).tune(obj, *toy, kernel=RBF(), **kw)
    aniso = GramDistance(target_kernel=RBF(), target_params={"gamma": 0.5})
    yield NestedVNS(m=(5, 7)).tune(aniso, *toy, kernel=AnisotropicRBF(n_features=2), **kw)


def test_to_optuna_round_trips_every_evaluation_of_every_tuner(toy):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the flaky objective's failures
        runs = list(_runs(toy))
    assert (runs[0].trace["status"] == "failed").sum() == 2  # gamma = 1e2 and 1e3
    for res in runs:
        study = res.to_optuna(optuna.create_study(direction="minimize"))
        tr = res.trace
        assert len(study.trials) == len(tr)
        for t, (_, row) in zip(study.trials, tr.iterrows(), strict=True):
            assert t.params == {n: row[f"param_{n}"] for n in res.space.names}
            assert t.user_attrs["eval"] == row["eval"]
            for c in ("wall_s", "cpu_s", "kernel_evals", "iterations"):
                assert t.user_attrs[c] == row[c]
            if row["status"] == "ok":
                assert t.state == optuna.trial.TrialState.COMPLETE and t.value == row["value"]
            else:
                assert t.state == optuna.trial.TrialState.FAIL and math.isnan(row["value"])
            if "level" in tr:
                assert t.user_attrs["level"] == row["level"]
            for n, dist in t.distributions.items():
                p = res.space[n]
                assert (dist.low, dist.high, dist.log) == (p.low, p.high, p.log)
        assert study.best_value == res.best_value


def test_to_optuna_writes_into_a_storage_and_refuses_a_maximising_study(toy, tmp_path):
    res = VNS(max_evals=5).tune(_WithC(), *toy, kernel=RBF(), random_state=0)
    url = f"sqlite:///{tmp_path / 'export.db'}"
    res.to_optuna(url, study_name="vns")
    assert len(optuna.load_study(study_name="vns", storage=url).trials) == 5
    with pytest.raises(ValueError, match="must minimise one objective"):
        res.to_optuna(optuna.create_study(direction="maximize"))
    with pytest.raises(ValueError, match="cannot open the Optuna storage"):
        trace_to_optuna(res.trace, res.space, "nosuchdb://")


def test_resuming_a_study_made_on_other_data_is_refused(toy, tmp_path):
    url = f"sqlite:///{tmp_path / 'y.db'}"
    TPE(max_evals=2, storage=url).tune(_WithC(), *toy, kernel=RBF())
    X, y = toy
    with pytest.raises(ValueError, match="holds trials of another tuning problem"):
        TPE(max_evals=3, storage=url).tune(_WithC(), X + 1.0, y, kernel=RBF())


@pytest.mark.parametrize(
    "options",
    [
        {"sampler": optuna.samplers.GridSampler({"C": [0.5, 1.0]})},
        {"sampler": optuna.samplers.GridSampler, "sampler_options": {"search_space": {"C": [1]}}},
    ],
)
def test_a_grid_sampler_must_name_every_tuned_parameter(toy, options):
    """Refused before the first trial, naming the missing parameter (Optuna itself fails
    inside a trial, mid-run); a grid naming both runs and evaluates its points only."""
    tuner = OptunaTuner(**options, max_evals=4)
    with pytest.raises(ValueError, match=r"lacks \['gamma'\].*searches \['C', 'gamma'\]"):
        tuner.check(_WithC().search_space(RBF()))
    with pytest.raises(ValueError, match=r"lacks \['gamma'\]"):
        tuner.tune(_WithC(), *toy, kernel=RBF())
    grid = {"C": [0.5, 1.0], "gamma": [0.25, 2.0]}
    res = OptunaTuner(sampler=optuna.samplers.GridSampler(grid), max_evals=4).tune(
        _WithC(), *toy, kernel=RBF()
    )
    seen = {(r.param_C, r.param_gamma) for r in res.trace.itertuples()}
    assert seen == {(c, g) for c in grid["C"] for g in grid["gamma"]}
