"""studies/benchmark.py: every search gets the same box and budget; the size options work."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from svmtune.datasets import SUITE
from svmtune.study import PeerMethod, load_study
from svmtune.tuners import TPE, VNS, Cascade, Grid, RandomSearch, SuccessiveHalving

ROOT = Path(__file__).resolve().parents[1]
BOX = {"C": (0.1, 1000.0), "gamma": (0.001, 10.0)}


def test_every_search_has_the_same_box_and_an_equal_budget():
    study = load_study(ROOT / "studies" / "benchmark.py")
    assert len(study._dataset_names()) == 42 and study.n_splits == 10
    assert len(study.cell_keys()) == 42 * 10 * len(study.methods)
    assert study.baseline == "GridSearchCV 25"  # named before the run
    # the noise controls: CV grid 25 on two other fold assignments, the peer on one; nothing
    # else changed (Study checks that each differs from its method in ``folds`` alone)
    assert study.noise_controls == {
        "CV grid 25, folds 1": "CV grid 25",
        "CV grid 25, folds 2": "CV grid 25",
        "GridSearchCV 25, folds 1": "GridSearchCV 25",
    }
    assert [study.methods[m].folds for m in study.noise_controls] == [1, 2, 1]
    searches = 0
    for name, method in study.methods.items():
        if name in study.noise_controls:
            continue
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
            assert tuner.max_evals == int(name.split(",")[0].split()[-1]) in (25, 50)
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
    assert searches == 9  # grid, random, VNS, TPE at 25 and 50; TPE pruned 25


def test_a_smaller_run_keeps_the_first_data_sets_and_splits(monkeypatch):
    monkeypatch.setenv("SVMTUNE_BENCHMARK_DATASETS", "5")
    monkeypatch.setenv("SVMTUNE_BENCHMARK_SPLITS", "2")
    study = load_study(ROOT / "studies" / "benchmark.py")
    assert study._dataset_names() == list(SUITE)[:5]
    assert study.n_splits == 2
    monkeypatch.setenv("SVMTUNE_BENCHMARK_METHODS", "GridSearchCV 25;CV grid 25")
    assert list(load_study(ROOT / "studies" / "benchmark.py").methods) == [
        "CV grid 25",
        "CV grid 25, folds 1",
        "CV grid 25, folds 2",
        "GridSearchCV 25",
        "GridSearchCV 25, folds 1",
    ]
    monkeypatch.setenv("SVMTUNE_BENCHMARK_METHODS", "GridSearchCV 26")
    with pytest.raises(ValueError, match=r"names \['GridSearchCV 26'\], not methods"):
        load_study(ROOT / "studies" / "benchmark.py")
    monkeypatch.delenv("SVMTUNE_BENCHMARK_METHODS")
    monkeypatch.setenv("SVMTUNE_BENCHMARK_DATASETS", "1")
    with pytest.raises(ValueError, match=r"SVMTUNE_BENCHMARK_DATASETS must be in \[2, 42\]"):
        load_study(ROOT / "studies" / "benchmark.py")


@pytest.mark.slow
def test_a_reduced_benchmark_runs_to_a_report_with_its_verdict(tmp_path, monkeypatch):
    """The CI smoke test: the two cheapest problems, two splits, the CLI; the two grid searches,
    their noise controls, and the peers that take the shared folds as a list (randomized,
    successive halving, Optuna's)."""
    from svmtune.cli import main

    monkeypatch.setenv("SVMTUNE_BENCHMARK_DATASETS", "2")
    monkeypatch.setenv("SVMTUNE_BENCHMARK_SPLITS", "2")
    peers = ["RandomizedSearchCV 25", "HalvingGridSearchCV 25", "OptunaSearchCV 25"]
    monkeypatch.setenv(
        "SVMTUNE_BENCHMARK_METHODS", ";".join(["GridSearchCV 25", "CV grid 25", *peers])
    )
    out = tmp_path / "report"
    args = ["run", str(ROOT / "studies" / "benchmark.py"), "--n-jobs", "1", "--no-progress"]
    args += ["--format", "png"]  # the figures as PNG only: the PDFs would double the drawing
    assert main([*args, "--storage", f"sqlite:///{tmp_path / 'b.db'}", "--output", str(out)]) == 0
    text = (out / "report.md").read_text()
    assert "Baseline: **GridSearchCV 25**, named by the study before it ran" in text
    # the noise controls: their own section, not ranked, not tested
    assert "## Noise controls: the resolution" in text
    assert "| CV grid 25 | 3 | 2 |" in text and "| GridSearchCV 25 | 2 | 2 |" in text
    assert "/ CV grid 25, folds 1 |" not in text and "/ GridSearchCV 25, folds 1 |" not in text
    assert "## Protocol" in text and "one stratified fold assignment shuffled" in text
    assert "## Provenance" in text and "scikit-learn " in text
    # the shared folds: on each split, GridSearchCV's 25 CV errors (1 - mean fold accuracy) and
    # CV grid 25's (pooled) are on the same folds: they differ by the fold sizes' round-off and
    # at most a validation point or two where the solvers' tolerances part (unshuffled folds of
    # a sorted file would differ by several points)
    from svmtune.study import Storage

    store = Storage(f"sqlite:///{tmp_path / 'b.db'}", read_only=True)
    try:
        snap = store.snapshot("benchmark")
    finally:
        store.close()
    cells, tr = snap.cells.set_index(["dataset", "split", "method"]), snap.traces
    for (d, s), part in tr.groupby(["dataset", "split"]):
        ours = part[part["method"] == "CV grid 25"].sort_values(["param_C", "param_gamma"])
        theirs = part[part["method"] == "GridSearchCV 25"].sort_values(["param_C", "param_gamma"])
        n = int(cells.loc[(d, s, "CV grid 25"), "n_train"])
        gap = np.abs(ours["value"].to_numpy() - theirs["value"].to_numpy())
        assert gap.max() <= 2.5 / n, (d, s, gap.max() * n)
    # 2 data sets: no test across data sets (no CD diagram), per-data-set tests over the splits
    assert "## Against GridSearchCV 25" not in text
    assert "## Per data set, against GridSearchCV 25" in text and "| verdict |" in text
    assert "| iris-halves / CV grid 25 | 2 |" in text
    assert not (out / "cd_diagram.png").exists()
