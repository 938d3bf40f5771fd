"""studies/benchmark_large.py: its problems' sizes, one box, the budget, and the reduced run."""

from __future__ import annotations

import runpy
from pathlib import Path

import numpy as np
import pytest

from svmtune.datasets import GENERATORS, generate, n_rows
from svmtune.study import PeerMethod, load_study
from svmtune.tuners import DEFAULT_GRID_BOUNDS

ROOT = Path(__file__).resolve().parents[1]
FILE = ROOT / "studies" / "benchmark_large.py"
BOX = {"C": (0.1, 1000.0), "gamma": (0.001, 10.0)}


def _definition(monkeypatch, **env: str) -> dict:
    """The study file's globals (only the first two problems kept: both small)."""
    monkeypatch.setenv("SVMTUNE_LARGE_DATASETS", "2")
    monkeypatch.syspath_prepend(str(ROOT / "studies"))  # its module beside it
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    return runpy.run_path(str(FILE))


def test_problem_sizes_methods_and_the_preplanned_baseline(monkeypatch):
    g = _definition(monkeypatch)
    problems, share = g["PROBLEMS"], g["TRAIN_SHARE"]
    train = {
        name: (spec.n_train if isinstance(spec, g["Generated"]) else share * n_rows(spec))
        for name, spec in problems.items()
    }
    # the smallest KEEL set expects 3,218 training points: 7 standard deviations above 3,000
    keel = [t for k, t in train.items() if k in g["KEEL"]]
    assert len(keel) >= 10 and min(keel) > 3_200
    assert sum(t >= 10_000 for t in train.values()) >= 3
    assert len(g["LADDER"]) >= 3 and set(g["LADDER"]) <= set(GENERATORS)
    for gen in g["LADDER"]:  # the size ladder: 500 to 30,000 training points
        assert [train[f"{gen}-{n}"] for n in g["LADDER_SIZES"]] == [500, 2_000, 8_000, 30_000]
    assert list(train) == sorted(train, key=lambda k: (g["_rows"](problems[k]), k))
    study = g["study"]
    assert study.baseline == "GridSearchCV 25" and "GridSearchCV 25" in study.methods
    assert study.max_cpu_seconds == 600.0 and study.max_seconds is None and study.n_splits == 1
    expected = {
        "CV grid 25", "CV TPE 25", "CV TPE pruned 25", "CV VNS 25", "CV cascade",
        "CV halving 25", "LOO_2 + bisection", "LOO_3 + bisection", "Platt + gradient",
        "TunedSVC defaults", "GridSearchCV 25", "RandomizedSearchCV 25",
        "HalvingGridSearchCV 25",
    }  # fmt: skip
    assert expected <= set(study.methods) | set(study.left_out)
    assert set(study.methods) | set(study.left_out) == expected | {"OptunaSearchCV 25"}
    # the cost ratios pair svmtune's searches with peers the study defines (a typo would drop a row)
    pairs = g["COST_PAIRS"]
    assert set(pairs) | set(pairs.values()) <= set(study.methods) | set(study.left_out)
    peers = [study.methods[p] for p in pairs.values() if p in study.methods]
    assert peers and all(isinstance(p, PeerMethod) for p in peers)
    assert not any(isinstance(study.methods[m], PeerMethod) for m in pairs)
    for name, method in study.methods.items():
        if isinstance(method, PeerMethod):
            continue
        if name == "TunedSVC defaults":  # TunedSVC()'s parts: Grid(n_points=5) spans the box
            assert method.tuner.n_points == 5 and DEFAULT_GRID_BOUNDS == BOX
            continue
        assert method.kernel.gamma_bounds == BOX["gamma"], name
        bounds = getattr(method.tuner, "bounds", None)
        assert bounds in (None, BOX), name


def test_a_generated_problem_is_the_same_data_on_every_call(monkeypatch):
    g = _definition(monkeypatch)
    loader = g["Generated"]("threenorm", 1_000)
    X1, y1 = loader()
    X2, y2 = loader()
    assert X1.shape == (loader.n_rows, 20) and (X1 == X2).all() and (y1 == y2).all()
    assert loader.n_rows * 0.7 >= 1_000
    X3, _ = generate("threenorm", n=loader.n_rows, seed=0)
    assert not (X1 == X3).all()  # the seed is the problem's own


def test_bad_sizes_and_method_names_are_refused(monkeypatch):
    with pytest.raises(ValueError, match="SVMTUNE_LARGE_BUDGET_S positive; got 2, 1, -1.0"):
        _definition(monkeypatch, SVMTUNE_LARGE_BUDGET_S="-1")
    monkeypatch.delenv("SVMTUNE_LARGE_BUDGET_S")
    with pytest.raises(ValueError, match=r"names \['CV grid 26'\]"):
        _definition(monkeypatch, SVMTUNE_LARGE_METHODS="CV grid 26")


@pytest.mark.slow
def test_over_budget_runs_are_stored_as_timeouts_with_their_trace(tmp_path, monkeypatch):
    """A budget far below one run: svmtune's tuners stop at it and keep what they evaluated;
    the peer cannot stop part-way, runs to its end and is stored over budget, not dropped."""
    monkeypatch.setenv("SVMTUNE_LARGE_SMOKE", "1")
    monkeypatch.setenv("SVMTUNE_LARGE_BUDGET_S", "0.001")
    monkeypatch.setenv("SVMTUNE_LARGE_METHODS", "GridSearchCV 25;CV grid 25")
    study = load_study(FILE)
    study.run(storage=f"sqlite:///{tmp_path / 'b.db'}")
    cells = study.results().set_index(["dataset", "method"])
    assert len(cells) == 2 * 2 and (cells["status"] == "timeout").all()
    peer = cells.xs("GridSearchCV 25", level="method")
    assert (peer["n_evaluations"] == 126).all() and peer["test_error"].notna().all()
    ours = cells.xs("CV grid 25", level="method")
    assert (ours["n_evaluations"] < 25).all()
    assert ours["error"].str.contains("CPU budget of 0.001 s").all()
    assert (ours["stopped_by"] == "max_cpu_seconds").all()
    assert peer["error"].str.contains("CPU budget of 0.001 s overrun").all()


@pytest.mark.slow
def test_the_reduced_large_benchmark_runs(tmp_path, monkeypatch):
    """The CI smoke test: two generated problems of 300 training points, one split, four
    methods (the baseline, svmtune's grid, the cascade, LOO_2 by bisection), within budget."""
    monkeypatch.setenv("SVMTUNE_LARGE_SMOKE", "1")
    monkeypatch.syspath_prepend(str(ROOT / "studies"))
    g = runpy.run_path(str(FILE))
    study = g["study"]
    assert study._dataset_names() == ["twonorm-300", "waveform-300"]
    study.run(storage=f"sqlite:///{tmp_path / 'b.db'}")
    cells = study.results()
    assert len(cells) == 2 * 4 and (cells["status"] == "ok").all()
    assert cells["n_train"].between(250, 350).all()
    # twonorm's Bayes error is 2.3 %: a tuned RBF SVM on 300 points is far below chance
    assert (cells.loc[cells["dataset"] == "twonorm-300", "test_error"] < 0.15).all()
    # the verdict at budgets and the size ladder, from the stored cells and traces
    paths = g["figures"](study, tmp_path / "out")
    names = ["verdict_at_budgets", "size_ladder", "budget_verdict", "problems", "cost_ratios"]
    ranks = ["rank_at_budgets.csv", "rank_at_budgets.png", "rank_at_budgets.pdf"]
    # one size: no ladder figure
    assert [p.name for p in paths] == [f"{n}.csv" for n in names] + ranks
    verdict = g["verdict_at_budgets"](cells, study.traces())
    assert g["VERDICT_BUDGETS"] == (10.0,)  # those within the smoke run's 20 s budget
    assert (verdict["answered_10s"] == 2).all()  # every run answered within 10 s
    report = (tmp_path / "out" / "report.md").read_text()
    assert "| twonorm-300 | " in report and "### Within 10 CPU seconds" in report
    assert "## Cost against the peers" in report


def test_verdict_at_budgets_reads_the_anytime_trace_and_bills_a_peer_its_whole_run(monkeypatch):
    import pandas as pd

    g = _definition(monkeypatch)
    cells = pd.DataFrame(
        [
            {"dataset": "d", "split": 0, "method": "CV grid 25", "status": "timeout",
             "test_error": 0.05, "cpu_s": 100.0},
            {"dataset": "d", "split": 0, "method": "GridSearchCV 25", "status": "timeout",
             "test_error": 0.07, "cpu_s": 70.0},
        ]
    )  # fmt: skip
    traces = pd.DataFrame(
        {
            "dataset": "d",
            "split": 0,
            "method": ["CV grid 25"] * 4 + ["GridSearchCV 25"] * 2,
            "cum_cpu_s": [11.0, 15.0, 30.0, 100.0, 35.0, 70.0],
            "incumbent_test_error": [0.5, 0.2, 0.1, 0.05, 0.3, 0.07],
        }
    )
    v = g["verdict_at_budgets"](cells, traces)
    ours, peer = v.loc["CV grid 25"], v.loc["GridSearchCV 25"]
    assert ours["answered_10s"] == 0 and pd.isna(ours["error_10s"])  # nothing by 10 s
    assert ours["error_60s"] == pytest.approx(10.0) and ours["error_600s"] == pytest.approx(5.0)
    # the peer's 35 s row is not an answer: it cannot be stopped there
    assert peer["answered_60s"] == 0 and peer["error_600s"] == pytest.approx(7.0)


def test_size_ladder_slope_is_the_exponent_of_cpu_in_n(monkeypatch):
    import pandas as pd

    g = _definition(monkeypatch)
    rows = []
    for n in (500, 8_000, 30_000):
        for gen in ("twonorm", "waveform"):
            n_train = n + (37 if gen == "twonorm" else -41)  # the split's draw, near n
            rows.append(
                {"dataset": f"{gen}-{n}", "method": "CV grid 25", "status": "ok",
                 "n_train": n_train, "cpu_s": 3e-9 * n_train**2, "test_error": 0.1}
            )  # fmt: skip
    rows.append({**rows[0], "dataset": "letter-halves", "cpu_s": 1e9})  # not on the ladder
    ladder = g["size_ladder"](pd.DataFrame(rows))
    assert ladder.loc["CV grid 25", "slope"] == pytest.approx(2.0)
    assert ladder.loc["CV grid 25", "error_8000"] == pytest.approx(10.0)


def test_the_sizing_bills_each_run_at_most_its_budget_and_reports_what_is_not_run(monkeypatch):
    """benchmarks/large_sizing.py: with one evaluation costing ``n / 1000`` CPU seconds on every
    route, a svmtune run is billed its evaluations or the budget plus one evaluation in
    progress, a peer everything it needs; Platt fails above its memory limit; 200,000 is
    reported, not run."""
    import importlib.util

    import pandas as pd

    monkeypatch.delenv("SVMTUNE_LARGE_DATASETS", raising=False)
    spec = importlib.util.spec_from_file_location(
        "large_sizing", ROOT / "benchmarks/large_sizing.py"
    )
    sizing = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sizing)
    slopes = pd.DataFrame(
        {"slope": 1.0, "intercept": float(np.log(1e-3))}, index=list(sizing.ROUTES)
    )
    table = sizing.estimate(slopes)
    row = table.loc["twonorm-30000"]  # one evaluation: 30 s; a grid of 25 needs 750 s
    assert row["run"] and row["n_train"] == 30_000 and "CV grid 25" in row["over_budget"]
    assert "Platt + gradient" in row["fail"] and "Platt" not in table.loc["twonorm-500", "fail"]
    # the 12 methods defined there (TunedSVC's defaults left out, Platt failing) need
    # 25 + 25 + 12.5 + 25 + 15 + 6 + 10 + 10 = 128.5 evaluations of 30 s (svmtune's) and
    # 126 + 126 + 42 + 126 fits of 24 s (the peers'); the three whole-search peers are not run
    assert row["methods"] == 9 and "RandomizedSearchCV 25 (over budget" in row["fail"]
    assert "GridSearchCV 25 (over budget" in row["fail"] and "Halving" not in row["fail"]
    assert row["needed_cpu_s"] == pytest.approx(128.5 * 30 + 420 * 24, rel=1e-6)
    assert row["expected_cpu_s"] < row["needed_cpu_s"]
    assert table.loc["twonorm-500", "expected_cpu_s"] == table.loc["twonorm-500", "needed_cpu_s"]
    assert not table.loc["(any generator)-200000", "run"]
    # a bundled set measured whole at 3 times the generated problems' cost bills 3 times
    measured = pd.DataFrame(
        [
            {"problem": "banana", "n": 4_000, "route": r, "cpu_s": 12.0}
            for r in ("cv5_C10_g1", "svc_C10_g1")
        ]
    )
    factors = sizing.keel_factors(measured, slopes)
    assert factors == pytest.approx({"banana": 3.0, "*": 3.0})
    plain = sizing.estimate(slopes).loc["spambase"]
    scaled = sizing.estimate(slopes, factors=factors).loc["spambase"]
    assert scaled["needed_cpu_s"] == pytest.approx(3 * plain["needed_cpu_s"], abs=2)
    # beside a stored run: a ratio only where every cell of the problem is stored (failed cells
    # count, billed nothing; running ones do not)
    cells = pd.DataFrame(
        [
            {"dataset": "twonorm-500", "status": "ok", "cpu_s": 1.0},
            {"dataset": "twonorm-500", "status": "failed", "cpu_s": float("nan")},
            {"dataset": "ringnorm-500", "status": "ok", "cpu_s": 2.0},
            {"dataset": "ringnorm-500", "status": "running", "cpu_s": float("nan")},
        ]
    )
    out = sizing.against(table, cells, per_problem=2)
    assert out.loc["twonorm-500", "measured_cpu_s"] == 1 and out.loc["twonorm-500", "ratio"] == (
        pytest.approx(1.0 / table.loc["twonorm-500", "expected_cpu_s"], abs=0.01)
    )
    assert out.loc["ringnorm-500", "cells_stored"] == 1 and pd.isna(
        out.loc["ringnorm-500", "ratio"]
    )
    assert out.loc["banana", "cells_stored"] == 0


def test_a_whole_search_peer_refuses_the_largest_problems_with_what_it_would_need(monkeypatch):
    """Above PEERS_MAX_N training points GridSearchCV, RandomizedSearchCV and OptunaSearchCV are
    stored as over budget (their fit refuses at once, naming the CPU seconds it would need);
    below it they are scikit-learn's searches, unchanged."""
    from sklearn.base import clone
    from sklearn.model_selection import RandomizedSearchCV

    g = _definition(monkeypatch)
    cap = g["PEERS_MAX_N"]
    assert 8_000 < cap < 30_000  # the ladder's top rung only
    for name in ("GridSearchCV 25", "RandomizedSearchCV 25", "OptunaSearchCV 25"):
        if name not in g["METHODS"]:
            continue  # the peers extra is not installed
        est = clone(g["METHODS"][name].estimator)
        X, y = np.zeros((cap + 1, 2)), np.arange(cap + 1) % 2
        need = g["_fit_need"](126, cap + 1)
        assert need > g["BUDGET_S"]
        with pytest.raises(ValueError, match=rf"over budget, not run: {cap + 1} training points"):
            est.fit(X, y)
    search = g["METHODS"]["RandomizedSearchCV 25"].estimator
    assert isinstance(search, RandomizedSearchCV) and search.n_iter == 25
    # HalvingGridSearchCV is not refused: it answers within the budget at the top rung
    assert type(g["METHODS"]["HalvingGridSearchCV 25"].estimator).__name__ == "HalvingGridSearchCV"
    # the need is 126 fits of the fitted power law on 4/5 of the points
    a, b = g["SVC_FIT_CPU"]
    assert g["_fit_need"](126, 30_000) == pytest.approx(126 * np.exp(a) * 24_000**b)


def test_budget_verdict_ranks_no_answer_last_and_pairs_only_answered_problems(monkeypatch):
    """Three problems, a budget of 60 s: the peer (the baseline) answers only where its whole
    run fitted; a svmtune run answers from its trace; ranks put no answer last, tied."""
    import pandas as pd

    g = _definition(monkeypatch)
    lv = g["large_verdict"]
    cells, traces = [], []
    peer_cpu = {"a": 30.0, "b": 50.0, "c": 90.0}  # over 60 s on c: no answer there
    peer_err = {"a": 0.10, "b": 0.20, "c": 0.30}
    ours_err = {"a": 0.12, "b": 0.17, "c": 0.25}
    for d in "abc":
        cells.append({"dataset": d, "split": 0, "method": "GridSearchCV 25", "status": "ok",
                      "test_error": peer_err[d], "cpu_s": peer_cpu[d]})  # fmt: skip
        cells.append({"dataset": d, "split": 0, "method": "CV grid 25", "status": "ok",
                      "test_error": ours_err[d], "cpu_s": 40.0})  # fmt: skip
        traces += [
            {"dataset": d, "split": 0, "method": "CV grid 25", "cum_cpu_s": t,
             "incumbent_test_error": e}
            for t, e in ((5.0, 0.5), (40.0, ours_err[d]))
        ]  # fmt: skip
    cells.append({"dataset": "a", "split": 0, "method": "Platt + gradient", "status": "failed",
                  "test_error": float("nan"), "cpu_s": 0.0})  # fmt: skip
    answered = lv.answers(
        pd.DataFrame(cells), pd.DataFrame(traces), peers={"GridSearchCV 25"}, budgets=(1.0, 60.0)
    )
    v = lv.budget_verdict(answered, baseline="GridSearchCV 25")
    at1, at60 = v.loc[1.0], v.loc[60.0]
    # by 1 s nobody answered: every method ties (2 methods on b, c; 3 on a)
    assert (at1["answered"] == 0).all() and at1.loc["CV grid 25", "avg_rank"] == pytest.approx(
        (2 + 1.5 + 1.5) / 3
    )
    ours, peer = at60.loc["CV grid 25"], at60.loc["GridSearchCV 25"]
    assert ours["answered"] == 3 and peer["answered"] == 2
    # ranks on a: peer 1, ours 2, Platt 3 (no answer); b: ours 1, peer 2; c: ours 1, peer 2
    assert ours["avg_rank"] == pytest.approx(4 / 3) and peer["avg_rank"] == pytest.approx(5 / 3)
    assert at60.loc["Platt + gradient", "avg_rank"] == pytest.approx(3.0)
    # paired over a and b only: differences +2 and -3 points
    assert ours["pairs"] == 2 and ours["mean_diff"] == pytest.approx(-0.5)
    half = 12.706 * np.std([2.0, -3.0], ddof=1) / np.sqrt(2)  # t_{0.975, 1}
    assert ours["low"] == pytest.approx(-0.5 - half, rel=1e-3)
    assert ours["p_better"] + ours["p_rope"] + ours["p_worse"] == pytest.approx(1.0)
    assert ours["error"] == pytest.approx(100 * np.mean(list(ours_err.values())))
    # the curves behind the rank figure give the same ranks, and the share of runs answered
    curves = lv.rank_curves(answered)
    assert curves.loc[60.0, ("avg_rank", "CV grid 25")] == pytest.approx(4 / 3)
    assert curves.loc[60.0, ("avg_rank", "Platt + gradient")] == pytest.approx(3.0)
    assert curves.loc[60.0, ("answered", "GridSearchCV 25")] == pytest.approx(2 / 3)
    assert curves.loc[1.0, ("answered", "CV grid 25")] == 0.0
    fig = lv.rank_figure(curves, budget=60.0)
    assert len(fig.axes) == 2 and len(fig.axes[0].lines) == 3 + 1  # three methods, the budget


def test_busy_seconds_is_the_union_of_the_cells_intervals(monkeypatch):
    import pandas as pd

    lv = _definition(monkeypatch)["large_verdict"]
    t = pd.Timestamp("2026-01-01")
    s = pd.Series([t, t + pd.Timedelta(seconds=5), t + pd.Timedelta(hours=2)])
    e = pd.Series(
        [t + pd.Timedelta(seconds=10), t + pd.Timedelta(seconds=30), s[2] + pd.Timedelta(seconds=4)]
    )
    # [0, 10] and [5, 30] overlap: 30 s; the cell two hours later: 4 s; the pause not counted
    assert lv.busy_seconds(s, e) == 34.0


def test_the_report_points_its_generic_verdict_to_the_verdict_at_budgets(tmp_path, monkeypatch):
    """The note goes first under "## Verdict", once however often the figures are rewritten, and
    a report without that heading is left as it is."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "studies"))
    import large_verdict

    report = tmp_path / "report.md"
    report.write_text("# t\n\n## Verdict\n\nNo comparison.\n", encoding="utf-8")
    for _ in range(2):
        large_verdict.point_to_budget_verdict(report)
    text = report.read_text(encoding="utf-8")
    assert text.count(large_verdict.VERDICT_NOTE) == 1
    assert text.index(large_verdict.VERDICT_NOTE) < text.index("No comparison.")
    other = tmp_path / "other.md"
    other.write_text("# t\n\n## Problems\n", encoding="utf-8")
    large_verdict.point_to_budget_verdict(other)
    assert other.read_text(encoding="utf-8") == "# t\n\n## Problems\n"


def test_cost_ratios_pair_only_problems_where_both_runs_finished_ok(monkeypatch):
    import pandas as pd

    lv = _definition(monkeypatch)["large_verdict"]
    rows = [  # (problem, method, status, CPU seconds)
        ("a", "CV grid 25", "ok", 2.0), ("a", "GridSearchCV 25", "ok", 8.0),
        ("b", "CV grid 25", "ok", 3.0), ("b", "GridSearchCV 25", "ok", 6.0),
        ("c", "CV grid 25", "ok", 9.0), ("c", "GridSearchCV 25", "ok", 10.0),
        ("d", "CV grid 25", "ok", 1.0), ("d", "GridSearchCV 25", "timeout", 900.0),
        ("e", "CV grid 25", "timeout", 700.0), ("e", "GridSearchCV 25", "ok", 5.0),
        ("a", "CV halving 25", "ok", 1.0),
    ]  # fmt: skip
    cells = pd.DataFrame(rows, columns=["dataset", "method", "status", "cpu_s"])
    pairs = {"CV grid 25": "GridSearchCV 25", "CV halving 25": "HalvingGridSearchCV 25"}
    r = lv.cost_ratios(cells, pairs)
    # d (peer stopped) and e (svmtune stopped) left out; halving has no peer run: no row
    assert list(r.index) == ["CV grid 25"]
    row = r.loc["CV grid 25"]
    assert row["problems"] == 3 and row["peer"] == "GridSearchCV 25"
    assert row["median"] == pytest.approx(0.5)  # 0.25, 0.5, 0.9
    assert (row["min"], row["at_min"]) == (pytest.approx(0.25), "a")
    assert (row["max"], row["at_max"]) == (pytest.approx(0.9), "c")
    assert "| CV grid 25 | GridSearchCV 25 | 3 |" in lv.cost_section(r)
    assert "no problem where both finished ok" in lv.cost_section(lv.cost_ratios(cells[:0], pairs))
