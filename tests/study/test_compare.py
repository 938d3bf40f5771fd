"""The verdict: compare() (ranks, Friedman, Nemenyi, Wilcoxon-Holm), incumbent test errors in
the traces, anytime/ECDF profiles, report.md."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import scikit_posthocs as sp
from scipy import stats
from sklearn.model_selection import GridSearchCV
from sklearn.svm import SVC

from svmtune.kernels import RBF
from svmtune.objectives import LOOEstimate
from svmtune.study import (
    Method,
    PeerMethod,
    Storage,
    Study,
    anytime_profile,
    compare,
    ecdf_profile,
    normalized_profile,
    write_verdict,
)
from svmtune.study.verdict._profiles import cost_axis
from svmtune.tuners import Bisection, Grid

from ._toys import blobs, halves

FIVE = ["heart", "sonar", "new-thyroid1", "bupa", "breast"]
METHODS = {
    "LOO2+bisection": Method(LOOEstimate(model="loo2"), Bisection(), RBF()),
    "LOO3+bisection": Method(LOOEstimate(model="loo3"), Bisection(), RBF()),
    "LOO2+grid": Method(LOOEstimate(model="loo2"), Grid(n_points=5), RBF()),
}


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A real study on 5 bundled data sets x 2 splits x 3 cheap methods, stored in SQLite."""
    url = f"sqlite:///{tmp_path_factory.mktemp('cmp') / 'cmp.db'}"
    study = Study(
        "cmp", datasets=FIVE, split="fischetti", n_splits=2, seed=3, methods=METHODS, storage=url
    )
    study.run(n_jobs=1)
    return study, study.results(), study.traces()


def test_ranks_and_friedman_equal_pandas_and_scipy_on_the_stored_results(stored):
    study, results, _ = stored
    c = study.compare()
    means = results.groupby(["dataset", "method"])["test_error"].mean().unstack()
    expected = means.rank(axis=1, method="average").mean()
    pd.testing.assert_series_equal(
        c.ranks.sort_index(), expected.sort_index(), check_names=False, atol=1e-12
    )
    ref = stats.friedmanchisquare(*(means[m] for m in METHODS))
    assert c.friedman.applicable
    assert c.friedman.statistic == pytest.approx(ref.statistic)
    assert c.friedman.pvalue == pytest.approx(ref.pvalue)
    nem = sp.posthoc_nemenyi_friedman(means[list(METHODS)].to_numpy())
    nem.index = nem.columns = list(METHODS)
    pd.testing.assert_frame_equal(
        c.posthoc["nemenyi"].sort_index().sort_index(axis=1),
        nem.sort_index().sort_index(axis=1),
        check_names=False,
    )
    # Demšar (2006), Table 5(a): q_0.05 = 2.343 for k = 3; CD = q sqrt(k(k+1) / (6N))
    assert c.critical_difference == pytest.approx(2.343 * math.sqrt(3 * 4 / (6 * 5)), abs=1e-3)
    # the table: mean and sd of test error and cost per data set x method
    assert c.table.loc["heart", ("LOO2+grid", "test_error")] == pytest.approx(
        means.loc["heart", "LOO2+grid"]
    )
    assert c.table.loc["heart", ("LOO2+grid", "n")] == 2
    assert c.left_out == []


def test_traces_carry_the_incumbents_test_error(stored):
    _, results, traces = stored
    assert traces["incumbent_test_error"].notna().all()
    for (d, s, m), t in traces.groupby(["dataset", "split", "method"]):
        cell = results[(results.dataset == d) & (results.split == s) & (results.method == m)]
        final = float(cell["test_error"].iloc[0])
        inc = t.sort_values("eval")["incumbent_test_error"].to_numpy()
        assert inc[-1] == pytest.approx(final)
        if m == "LOO2+grid":  # the grid's answer is its first lowest value: from there on
            values = t.sort_values("eval")["value"].to_numpy()
            first_best = int(np.argmin(values))
            assert np.allclose(inc[first_best:], final)
            # constant between changes of incumbent
            best = np.minimum.accumulate(values)
            same = np.r_[False, best[1:] == best[:-1]]
            assert np.allclose(inc[1:][same[1:]], inc[:-1][same[1:]])


def test_a_method_truly_better_by_a_margin_ranks_first_and_is_significant():
    rng = np.random.default_rng(0)
    rows = []
    for d in range(12):
        base = rng.uniform(0.1, 0.3)
        for s in range(5):
            for m, shift in (("better", -0.05), ("plain", 0.0), ("other", 0.0)):
                rows.append(
                    dict(
                        dataset=f"d{d}",
                        split=s,
                        method=m,
                        status="ok",
                        test_error=base + shift + rng.normal(0, 0.02),
                        cpu_s=1.0,
                    )
                )
    c = compare(pd.DataFrame(rows), baseline="plain")
    assert c.ranks.index[0] == "better"
    assert c.friedman.pvalue < 0.05
    assert c.posthoc["nemenyi"].loc["better", "plain"] < 0.05
    assert c.posthoc["wilcoxon_holm"].loc["better", "pvalue_holm"] < 0.05
    assert c.win_tie_loss.loc["better"].tolist() == [12, 0, 0]
    assert c.normalized["better"].eq(1.0).all()
    assert "better ranks first" in c.verdict() and "rejects" in c.verdict()


def test_bayesian_signed_rank_against_the_baseline():
    rng = np.random.default_rng(3)
    rows = [
        dict(
            dataset=f"d{d}",
            split=0,
            method=m,
            status="ok",
            test_error=0.2 + shift + rng.normal(0, 0.005),
            cpu_s=1.0,
        )
        for d in range(12)
        for m, shift in (("base", 0.0), ("worse", 0.05), ("same", 0.0))
    ]
    b = compare(pd.DataFrame(rows), baseline="base").bayesian_signed_rank(rope=0.01)
    assert b.loc["worse", "p_worse"] > 0.95
    assert b.loc["same", "p_rope"] > 0.95
    assert np.allclose(b[["p_better", "p_rope", "p_worse"]].sum(axis=1), 1.0)
    assert b["verdict"].to_dict() == {"worse": "worse", "same": "equivalent"}
    with pytest.raises(ValueError, match="rope must be a non-negative number; got -1"):
        compare(pd.DataFrame(rows)).bayesian_signed_rank(rope=-1)


def test_identical_methods_are_not_separated():
    rng = np.random.default_rng(1)
    rows = [
        dict(
            dataset=f"d{d}",
            split=s,
            method=m,
            status="ok",
            test_error=0.2 + rng.normal(0, 0.02),
            cpu_s=1.0,
        )
        for d in range(12)
        for s in range(5)
        for m in ("a", "b", "c")
    ]
    c = compare(pd.DataFrame(rows))
    assert c.friedman.pvalue > 0.05
    assert "does not reject" in c.verdict()


def _toy_results(n_datasets: int, methods=("a", "b", "c")) -> pd.DataFrame:
    rng = np.random.default_rng(2)
    return pd.DataFrame(
        [
            dict(dataset=f"d{d}", split=s, method=m, status="ok", test_error=rng.uniform(0, 0.5))
            | {"cpu_s": 1.0, "kernel_evals": 10}
            for d in range(n_datasets)
            for s in range(3)
            for m in methods
        ]
    )


def test_fewer_than_five_data_sets_or_two_methods_say_why_no_test():
    c = compare(_toy_results(4))
    assert not c.friedman.applicable and "4 data sets" in c.friedman.reason
    assert c.posthoc["nemenyi"].empty and c.posthoc["wilcoxon_holm"].empty
    assert math.isnan(c.critical_difference)
    assert "No Friedman test: 4 data sets" in c.verdict()
    two = compare(_toy_results(6, methods=("a", "b")), baseline="a")
    assert not two.friedman.applicable and "2 methods" in two.friedman.reason
    assert list(two.posthoc["wilcoxon_holm"].index) == ["b"]


def test_missing_cells_follow_the_policy_and_are_named():
    r = _toy_results(6)
    r.loc[(r.dataset == "d0") & (r.split == 1) & (r.method == "b"), "status"] = "failed"
    r.loc[(r.dataset == "d1") & (r.method == "c"), "status"] = "timeout"
    dropped = compare(r)
    assert dropped.n_datasets == 5  # d1 has no split with every method
    assert any("d1" in x for x in dropped.left_out)
    assert any("4 cells did not finish ok" in x for x in dropped.left_out)
    ok = r[r.status == "ok"]
    expect = ok[(ok.dataset == "d0") & (ok.split != 1)].groupby("method")["test_error"].mean()
    assert dropped.errors.loc["d0", "a"] == pytest.approx(expect["a"])
    worst = compare(r, missing="worst")
    assert worst.n_datasets == 6
    d1 = r[r.dataset == "d1"].pivot(index="split", columns="method", values="test_error")
    assert worst.errors.loc["d1", "c"] == pytest.approx(d1[["a", "b"]].max(axis=1).mean())
    assert any("worst test error" in x for x in worst.left_out)


def test_bad_input_is_refused_naming_the_value():
    r = _toy_results(6)
    with pytest.raises(ValueError, match="no results"):
        compare(r.iloc[:0])
    with pytest.raises(ValueError, match=r"at least 2 methods.*\['a'\]"):
        compare(r[r.method == "a"])
    with pytest.raises(ValueError, match="unknown baseline 'zz'"):
        compare(r, baseline="zz")
    with pytest.raises(ValueError, match="unknown cost 'flops'"):
        compare(r, cost="flops")
    with pytest.raises(ValueError, match="missing must be one of.*'skip'"):
        compare(r, missing="skip")
    with pytest.raises(ValueError, match="unknown cost axis 'flops'"):
        cost_axis("flops")
    with pytest.raises(ValueError, match="unknown metric 'auc'"):
        anytime_profile(pd.DataFrame(), metric="auc")


def test_compare_on_an_empty_or_single_method_study(tmp_path):
    url = f"sqlite:///{tmp_path / 'e.db'}"
    one = {"LOO2+grid": METHODS["LOO2+grid"]}
    study = Study("empty", datasets=[blobs], split=halves, n_splits=1, methods=one, storage=url)
    with pytest.raises(ValueError, match="no results"):
        study.compare()
    study.run()
    with pytest.raises(ValueError, match=r"at least 2 methods.*LOO2\+grid"):
        study.compare()
    paths = write_verdict(study.results(), study.traces(), tmp_path / "out", name="empty")
    text = paths["report"].read_text()
    assert "No comparison: compare() needs at least 2 methods" in text
    assert "cd_diagram" not in paths and "anytime_test_error_cpu" in paths


def test_profiles_agree_with_the_comparison(stored):
    study, _, traces = stored
    c = study.compare()
    top = float(traces["cum_kernel_evals"].max())
    prof = normalized_profile(traces, cost="kernel_evals", grid=[top])
    at_end = prof[prof.dataset != "(mean)"].pivot(index="dataset", columns="method", values="score")
    pd.testing.assert_frame_equal(
        at_end.sort_index()[sorted(METHODS)],
        c.normalized.sort_index()[sorted(METHODS)],
        check_names=False,
    )
    any_ = anytime_profile(traces, cost="cpu_s")
    both = any_.dropna(subset=["q25", "median", "q75"])
    assert len(both) and (both["q25"] <= both["median"]).all()
    assert (both["median"] <= both["q75"]).all()
    e = ecdf_profile(traces, cost="kernel_evals")
    for _, g in e.groupby("method"):
        f = g.sort_values("budget")["fraction"].to_numpy()
        assert np.all(np.diff(f) >= 0) and 0 <= f.min() and f.max() <= 1
    # at the largest budget, the tolerance-0 target is reached by whichever method was best
    assert e.groupby("method")["fraction"].max().max() > 0


def test_report_md_and_figures(stored, tmp_path):
    study, results, traces = stored
    paths = write_verdict(results, traces, tmp_path, name="cmp", methods=list(METHODS))
    for key in ("report", "comparison", "cd_diagram", "ecdf", "anytime_normalized"):
        assert paths[key].is_file() and paths[key].stat().st_size > 0
    text = paths["report"].read_text()
    assert "## Verdict" in text and "Friedman" in text and "![Critical-difference" in text
    assert "## Left out" in text and "every method finished every cell" in text
    # a half-finished study: a method with no stored cell yet is named, the others compared
    half = tmp_path / "half"
    paths = write_verdict(results, traces.iloc[:0], half, methods=[*METHODS, "later"])
    text = paths["report"].read_text()
    assert "methods with no stored cell yet: later" in text and "Friedman: statistic" in text


def test_peer_traces_carry_the_incumbents_test_error(tmp_path):
    peer = PeerMethod(GridSearchCV(SVC(), {"C": [0.1, 1.0, 10.0], "gamma": [0.1, 1.0]}, cv=3))
    study = Study(
        "peer-inc",
        datasets=[blobs],
        split=halves,
        n_splits=1,
        methods={"gs": peer},
        storage=f"sqlite:///{tmp_path / 'p.db'}",
    )
    study.run()
    res, tr = study.results(), study.traces().sort_values("eval")
    final = float(res["test_error"].iloc[0])
    values = tr["value"].to_numpy()
    first_best = int(np.argmin(values))  # GridSearchCV's best_index_: the first top score
    assert np.allclose(tr["incumbent_test_error"].to_numpy()[first_best:], final)
    assert tr["incumbent_test_error"].notna().all()


def test_an_older_database_gets_the_incumbent_column(tmp_path):
    import sqlite3

    path = tmp_path / "old.db"
    Storage(f"sqlite:///{path}").close()
    con = sqlite3.connect(path)
    con.execute("ALTER TABLE traces DROP COLUMN incumbent_test_error")
    con.commit()
    con.close()
    store = Storage(f"sqlite:///{path}")
    try:
        assert "incumbent_test_error" in store.traces().columns
    finally:
        store.close()


def _small_study(n_datasets, n_splits, shift):
    rng = np.random.default_rng(5)
    return pd.DataFrame(
        [
            dict(dataset=f"d{d}", split=s, method=m, status="ok", cpu_s=1.0, n_train=70,
                 n_test=30, test_error=0.2 + sh + rng.normal(0, 0.01))
            for d in range(n_datasets)
            for s in range(n_splits)
            for m, sh in (("base", 0.0), ("worse", shift), ("same", 0.0))
        ]
    )  # fmt: skip


def test_small_study_gets_per_dataset_tests_and_no_cd_diagram_predicate():
    c = compare(_small_study(3, 10, 0.08), baseline="base")
    assert not c.has_rank_tests
    t = c.per_dataset()
    assert list(t.index.get_level_values("dataset").unique()) == ["d0", "d1", "d2"]
    assert c.rho == pytest.approx({"d0": 0.3, "d1": 0.3, "d2": 0.3})
    assert (t.xs("worse", level="method")["verdict"] == "worse").all()
    assert (t.xs("worse", level="method")["wilcoxon_p"] < 0.01).all()
    assert (t.xs("same", level="method")["verdict"] != "worse").all()
    assert compare(_small_study(6, 2, 0.08), baseline="base").has_rank_tests


def test_report_text_names_the_planned_baseline_the_noise_controls_and_the_verdicts():
    from pathlib import Path

    from svmtune.study.report._verdict import _report_text
    from svmtune.study.verdict._noise import noise_controls_of

    rng = np.random.default_rng(0)
    rows = [
        dict(dataset=f"d{d}", split=s, method=m, status="ok", cpu_s=1.0, n_train=70, n_test=30,
             test_error=0.2 + sh + (0.004 * (d % 3) if "folds" in m else 0) + rng.normal(0, 0.002))
        for d in range(8)
        for s in range(3)
        for m, sh in (("base", 0), ("worse", 0.05), ("CV x", 0.0), ("CV x, folds 1", 0.0))
    ]  # fmt: skip
    res = pd.DataFrame(rows)
    c = compare(res, baseline="base", methods=["base", "worse", "CV x"])
    noise = noise_controls_of(res, {"CV x, folds 1": "CV x"}, datasets=list(c.errors.index))
    # by hand: per data set, the SD of the two assignments' mean test errors
    means = res.groupby(["dataset", "method"])["test_error"].mean().unstack()
    sd = means[["CV x", "CV x, folds 1"]].std(axis=1, ddof=1)
    np.testing.assert_allclose(noise.per_dataset["CV x"], sd.loc[noise.per_dataset.index])
    assert noise.resolution == pytest.approx(np.sqrt(2 * np.mean(sd**2)))
    assert noise.se_suite_mean == pytest.approx(np.sqrt(np.mean(sd**2) / 8))
    text = _report_text(
        "t", res, c, "", {"cd_diagram": Path("cd_diagram.png")}, planned=True, noise=noise
    )
    assert "Baseline: **base**, named by the study before it ran" in text
    assert "## Noise controls: the resolution" in text
    assert f"resolution {100 * noise.resolution:.2f} points per data set" in text
    assert f"1 point, {0.01 / noise.resolution:.1f} x the resolution" in text
    assert "| CV x, folds 1 |" not in text  # not ranked, not tested, not a column
    assert "worse (1): worse" in text
    assert "| worse | 5." in text and "| verdict at resolution |" in text
    assert "N = 8 data sets, k = 3 methods" in text  # the CD diagram's caption
    unplanned = _report_text("t", res, c, "", {}, planned=False)
    assert "chosen after seeing the data" in unplanned
