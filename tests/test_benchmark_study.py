"""studies/benchmark.py: every search gets the same box and budget; the size options work."""

from __future__ import annotations

from pathlib import Path

import pytest

from svmtune.study import PeerMethod, load_study
from svmtune.tuners import TPE, VNS, Cascade, Grid, RandomSearch, SuccessiveHalving

ROOT = Path(__file__).resolve().parents[1]
BOX = {"C": (0.1, 1000.0), "gamma": (0.001, 10.0)}


def test_every_search_has_the_same_box_and_an_equal_budget():
    study = load_study(ROOT / "studies" / "benchmark.py")
    assert len(study._dataset_names()) == 12 and study.n_splits == 10
    assert len(study.cell_keys()) == 12 * 10 * len(study.methods)
    searches = 0
    for name, method in study.methods.items():
        if isinstance(method, PeerMethod):
            est = method.estimator
            grid = getattr(est, "param_grid", None)
            n = getattr(est, "n_iter", None) or getattr(est, "n_trials", None)
            if grid is not None:
                assert len(grid["C"]) * len(grid["gamma"]) == int(name.split()[-1])
                assert (min(grid["C"]), max(grid["C"])) == pytest.approx(BOX["C"])
            else:
                assert n == int(name.split()[-1])
            continue
        assert method.kernel.gamma_bounds == BOX["gamma"]
        tuner = method.tuner
        if isinstance(tuner, SuccessiveHalving):  # HalvingGridSearchCV's candidates, schedule
            peer = study.methods["HalvingGridSearchCV " + name.split()[-1]].estimator
            assert tuner.values == peer.param_grid and tuner.factor == peer.factor == 3
            continue
        if isinstance(tuner, Grid | RandomSearch | VNS | TPE):
            searches += 1
            assert tuner.max_evals == int(name.split()[-1]) in (25, 50)
            if isinstance(tuner, Grid):
                n_points = len(tuner.values["C"]) * len(tuner.values["gamma"])
                assert n_points == tuner.max_evals
                assert (min(tuner.values["gamma"]), max(tuner.values["gamma"])) == pytest.approx(
                    BOX["gamma"]
                )
            else:
                assert tuner.bounds == BOX
            if "pruned" in name:  # the same trials, bad ones stopped after a fold or two
                assert isinstance(tuner, TPE) and tuner.pruner is not None
        elif isinstance(tuner, Cascade):  # a screen and 3 evaluations in the same box
            assert tuner.bounds == BOX
        else:  # the cheap routes: at most 25 evaluations
            assert tuner.max_evals == 25
    assert searches == 9


def test_a_smaller_run_keeps_the_first_data_sets_and_splits(monkeypatch):
    monkeypatch.setenv("SVMTUNE_BENCHMARK_DATASETS", "5")
    monkeypatch.setenv("SVMTUNE_BENCHMARK_SPLITS", "2")
    study = load_study(ROOT / "studies" / "benchmark.py")
    assert study._dataset_names() == ["heart", "sonar", "new-thyroid1", "bupa", "breast"]
    assert study.n_splits == 2
    monkeypatch.setenv("SVMTUNE_BENCHMARK_DATASETS", "3")
    with pytest.raises(ValueError, match=r"SVMTUNE_BENCHMARK_DATASETS must be in \[5, 12\]"):
        load_study(ROOT / "studies" / "benchmark.py")
