"""Every k-fold method of a (data set, split) cross-validates on one stratified, shuffled fold
assignment seeded from the split: svmtune's KFoldCV and a peer's ``cv=5`` alike; a noise
control (``folds=1, 2``) gets another one."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.svm import SVC

from svmtune.datasets import load, stratified_kfold
from svmtune.kernels import RBF
from svmtune.objectives import KFoldCV, LOOEstimate
from svmtune.study import Method, PeerMethod, Study
from svmtune.study.run._folds import k_of, set_shared_cv, with_folds
from svmtune.tuners import Bisection, Grid

BOX = {"C": (0.1, 1000.0), "gamma": (0.001, 10.0)}
GRID = {"C": np.geomspace(*BOX["C"], 5).tolist(), "gamma": np.geomspace(*BOX["gamma"], 5).tolist()}
KERNEL = RBF(gamma_bounds=BOX["gamma"])


def _sonar():
    """sonar as its file holds it: the classes in two blocks (sorted by class)."""
    X, y = load("sonar")
    assert (np.diff(y) != 0).sum() == 1
    return X, y


def _study(**extra):
    methods = {
        "CV grid 25": Method(KFoldCV(k=5), Grid(values=GRID, max_evals=25), KERNEL),
        "GridSearchCV 25": PeerMethod(GridSearchCV(SVC(), GRID, cv=5)),
        **extra,
    }
    return Study(
        "folds",
        datasets={"sonar": _sonar},
        split="fischetti",
        n_splits=3,
        seed=2026,
        methods=methods,
        storage="sqlite://",
    )


def _folds_of(task, ytr):
    """The folds a cell's method cross-validates on (index arrays into its training part)."""
    if isinstance(task.method, PeerMethod):
        est = task.method.seeded(task.seed)
        set_shared_cv(est, ytr, task.fold_seed)
        return [(np.asarray(tr), np.asarray(te)) for tr, te in est.get_params()["cv"]]
    objective = with_folds(task.method.objective, ytr, task.fold_seed)
    return stratified_kfold(ytr, objective.k, objective.random_state)


def test_svmtune_and_the_peer_get_the_same_folds_and_the_noise_control_other_ones():
    control = Method(KFoldCV(k=5), Grid(values=GRID, max_evals=25), KERNEL, folds=1)
    study = _study(**{"CV grid 25, folds 1": control})
    assert study.noise_controls == {"CV grid 25, folds 1": "CV grid 25"}
    tasks = study._tasks()
    for split in range(3):
        cells = {t.key.method: t for t in tasks if t.key.split == split}
        Xtr, ytr, _, _ = cells["CV grid 25"].data.split(
            "fischetti", split, cells["CV grid 25"].split_seed, test_size=0.3
        )
        ours = _folds_of(cells["CV grid 25"], ytr)
        theirs = _folds_of(cells["GridSearchCV 25"], ytr)
        other = _folds_of(cells["CV grid 25, folds 1"], ytr)
        for (a, b), (c, d) in zip(ours, theirs, strict=True):
            np.testing.assert_array_equal(a, c)
            np.testing.assert_array_equal(b, d)
        assert not all(np.array_equal(b, d) for (_, b), (_, d) in zip(ours, other, strict=True))
        # stratified: each fold's count of each class within one of the others'
        for c in (-1.0, 1.0):
            counts = [int((ytr[te] == c).sum()) for _, te in ours]
            assert max(counts) - min(counts) <= 1
        # shuffled: not the contiguous blocks of an unshuffled stratified k-fold
        blocks = [te for _, te in StratifiedKFold(5).split(Xtr, ytr)]
        same = [np.array_equal(np.sort(b), x) for (_, b), x in zip(ours, blocks, strict=True)]
        assert not all(same)
    # other splits, other folds
    assert len({t.fold_seed for t in tasks if t.key.method == "CV grid 25"}) == 3


def test_on_a_file_sorted_by_class_the_two_grid_searches_pick_the_same_point():
    study = _study().run(n_jobs=1)
    res = study.results().set_index(["split", "method"])
    traces = study.traces()
    decided = 0
    for split in range(3):
        ours = traces[(traces["method"] == "CV grid 25") & (traces["split"] == split)]
        values = ours["value"].to_numpy()
        if np.sum(values == values.min()) > 1:
            continue  # a tie at the minimum: each search's own tie rule decides
        decided += 1
        a = res.loc[(split, "CV grid 25"), "best_params"]
        b = res.loc[(split, "GridSearchCV 25"), "best_params"]
        assert (b["C"], b["gamma"]) == pytest.approx((a["C"], a["gamma"]))
    assert decided >= 1


def test_a_noise_control_needs_the_method_it_replicates_and_folds_to_draw():
    lone = Method(KFoldCV(k=5), Grid(values=GRID, max_evals=25), KERNEL, folds=2)
    with pytest.raises(ValueError, match="noise control of no method"):
        Study("x", datasets=["heart"], methods={"a": lone}).validate()
    loo = Method(LOOEstimate(), Bisection(), RBF())
    loo1 = Method(LOOEstimate(), Bisection(), RBF(), folds=1)
    with pytest.raises(ValueError, match="folds=1 but cross-validates on no folds"):
        Study("x", datasets=["heart"], methods={"a": loo, "b": loo1}).validate()
    bad = Method(KFoldCV(k=5), Grid(values=GRID, max_evals=25), KERNEL, folds=-1)
    with pytest.raises(ValueError, match="folds must be an integer >= 0; got -1"):
        Study("x", datasets=["heart"], methods={"a": bad}).validate()
    with pytest.raises(ValueError, match="baseline 'b' is a noise control"):
        Study(
            "x",
            datasets=["heart"],
            methods={"a": lone.__class__(lone.objective, lone.tuner, lone.kernel), "b": lone},
            baseline="b",
        ).validate()


def test_which_peers_take_the_shared_folds():
    assert k_of(PeerMethod(GridSearchCV(SVC(), GRID, cv=3))) == 3
    assert k_of(PeerMethod(GridSearchCV(SVC(), GRID))) == 5  # cv=None: scikit-learn's 5
    assert k_of(PeerMethod(GridSearchCV(SVC(), GRID, cv=StratifiedKFold(4)))) == 4
    assert k_of(PeerMethod(GridSearchCV(SVC(), GRID, cv=[([0], [1])]))) is None  # its own
    assert k_of(PeerMethod(SVC())) is None
    assert k_of(Method(LOOEstimate(), Bisection(), RBF())) is None


def test_cells_stored_under_the_old_protocol_are_not_reused_silently():
    from svmtune.study.run._folds import STUDY_PROTOCOL
    from svmtune.study.store._definition import DEFINITION_FORMAT, merge_definitions

    new = _study().definition()
    assert {r["protocol"] for r in new["methods"].values()} == {STUDY_PROTOCOL}
    old = {**new, "format": DEFINITION_FORMAT}
    old["methods"] = {
        m: {k: v for k, v in r.items() if k not in ("protocol", "folds")}
        for m, r in new["methods"].items()
    }  # what the previous protocol stored
    verdict = merge_definitions(old, new, stored_seed=2026, seed=2026)
    assert set(verdict.changed) == {"CV grid 25", "GridSearchCV 25"}
    assert all(any("protocol" in d for d in ds) for ds in verdict.changed.values())
