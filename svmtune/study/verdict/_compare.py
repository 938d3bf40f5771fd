"""The verdict of a study: which method wins across data sets, and is it significant?

Demšar, "Statistical comparisons of classifiers over multiple data sets" (JMLR 2006): the unit
of the tests is the *data set*. Each method's test error on a data set is its mean over the
splits (the splits of one data set are not independent samples of the population of problems);
the methods are ranked on each data set (1 = lowest mean test error, ties share the average
rank); the Friedman test asks whether the average ranks differ more than chance allows; the
Nemenyi post-hoc test compares every pair (critical difference of average ranks), and the
Wilcoxon signed-rank test with Holm's step-down correction (García and Herrera 2008) compares
each method with a baseline. The tests are scipy's and scikit-posthocs'.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd

from svmtune.study.verdict._bayes import ROPE
from svmtune.study.verdict._compare_tables import per_split_errors, stats_table, test_fractions
from svmtune.study.verdict._profiles import normalized_scores
from svmtune.study.verdict._significance import (
    HypothesisTest,
    friedman_tests,
    posthoc_tests,
)
from svmtune.study.verdict._ties import best_ranked, names, tie_groups

__all__ = ["COST_COLUMNS", "MISSING_POLICIES", "Comparison", "HypothesisTest", "compare"]

#: Cell columns a comparison can use as its cost.
COST_COLUMNS = ("cpu_s", "wall_s", "kernel_evals", "iterations", "n_evaluations")
#: What :func:`compare` does with a cell that did not finish ok (failed, timeout, not run).
MISSING_POLICIES = ("drop", "worst")
_BAYES_COLUMNS = ["method", "p_better", "p_rope", "p_worse", "verdict"]


@dataclass
class Comparison:
    """The comparison of a study's methods across data sets (see :func:`compare`).

    Attributes
    ----------
    table : DataFrame
        Data set x (method, stat): ``test_error`` mean and ``test_error_sd`` over the splits,
        ``cost`` mean and ``cost_sd``, and ``n`` ok cells: every stored ok cell, before the
        missing-cell policy.
    errors : DataFrame
        Data set x method: the mean test error over the splits the tests use (after the
        missing-cell policy). The block every statistic below is computed on.
    rank_table : DataFrame
        Data set x method ranks of ``errors`` (1 = lowest, ties averaged).
    ranks : Series
        Method -> average rank over the data sets, lowest (best) first.
    friedman : HypothesisTest
        ``scipy.stats.friedmanchisquare`` on ``errors`` (needs 3 or more methods, 5 or more
        data sets).
    iman_davenport : HypothesisTest
        Iman and Davenport's F form of the Friedman statistic (Demšar's recommendation).
    posthoc : dict
        ``"nemenyi"``: method x method adjusted p-values
        (``scikit_posthocs.posthoc_nemenyi_friedman``); ``"wilcoxon_holm"``: per method other
        than the baseline, the Wilcoxon signed-rank statistic, p-value and Holm-adjusted
        p-value against the baseline. Empty DataFrames when not applicable.
    critical_difference : float
        Nemenyi's critical difference of average ranks at ``alpha`` (NaN when not applicable).
    win_tie_loss : DataFrame
        Per method other than the baseline, on how many data sets its mean test error is lower
        (win), equal (tie) or higher (loss) than the baseline's.
    normalized : DataFrame
        Data set x method normalized score: 0 = the worst method's mean test error on that
        data set, 1 = the best's (all methods equal: 1).
    baseline, cost, alpha, missing : the options used.
    left_out : list of str
        What the tests left out, in words (missing cells, dropped data sets).
    notes : list of str
        Why a test was not applicable.
    per_split : DataFrame
        (data set, split) x method test errors the tests use (``errors`` is its mean per data
        set).
    rho : dict
        Data set -> test fraction of its splits (the correlated t-test's correlation).
    """

    table: pd.DataFrame
    errors: pd.DataFrame
    rank_table: pd.DataFrame
    ranks: pd.Series
    friedman: HypothesisTest
    iman_davenport: HypothesisTest
    posthoc: dict[str, pd.DataFrame]
    critical_difference: float
    win_tie_loss: pd.DataFrame
    normalized: pd.DataFrame
    baseline: str
    cost: str
    alpha: float
    missing: str
    left_out: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    per_split: pd.DataFrame = field(default_factory=pd.DataFrame)
    rho: dict[str, float] = field(default_factory=dict)

    @property
    def methods(self) -> list[str]:
        """The compared methods, best average rank first."""
        return list(self.ranks.index)

    @property
    def n_datasets(self) -> int:
        """How many data sets the tests use."""
        return int(self.errors.shape[0])

    def summary(self) -> pd.DataFrame:
        """One row per method (best average rank first): average rank, mean test error and
        cost over the data sets the tests use, mean normalized score, and wins/ties/losses
        against the baseline."""
        cost = self.table.xs("cost", axis=1, level="stat").reindex(self.errors.index)
        out = pd.DataFrame(
            {
                "avg_rank": self.ranks,
                "test_error": self.errors.mean()[self.ranks.index],
                self.cost: cost.mean()[self.ranks.index],
                "normalized_score": self.normalized.mean()[self.ranks.index],
            }
        )
        wtl = self.win_tie_loss.reindex(out.index)
        for col in ("wins", "ties", "losses"):
            out[col] = wtl[col].astype("Int64")
        out.index.name = "method"
        return out

    def bayesian_signed_rank(
        self, *, rope: float = ROPE, nsamples: int = 50000, random_state: int = 0
    ) -> pd.DataFrame:
        """Benavoli et al.'s Bayesian signed-rank test of every method against the baseline
        over the data sets ("Time for a change", JMLR 2017; :func:`svmtune.study.verdict._bayes.
        signed_rank`, numpy only, equal to baycomp's on the same seed).

        Returns one row per other method: ``p_better`` (its mean test error is lower than the
        baseline's by more than ``rope``), ``p_rope`` (within ``rope``: practically
        equivalent), ``p_worse``, and ``verdict`` (the one of better / equivalent / worse whose
        probability reaches 0.95, else undecided). ``rope`` is in test-error units (0.01 = one
        point); the probabilities are Monte Carlo estimates from ``nsamples`` Dirichlet draws
        seeded by ``random_state``, the same on every machine.
        """
        from svmtune.study.verdict._bayes import signed_rank, verdict_word

        rows = []
        for m in self.ranks.index:
            if m == self.baseline:
                continue
            p = signed_rank(
                self.errors[m], self.errors[self.baseline], rope=rope, nsamples=nsamples,
                seed=random_state,
            )  # fmt: skip
            rows.append(
                {"method": m, "p_better": p[0], "p_rope": p[1], "p_worse": p[2],
                 "verdict": verdict_word(*p)}
            )  # fmt: skip
        return pd.DataFrame(rows, columns=_BAYES_COLUMNS).set_index("method")

    def per_dataset(self, *, rope: float = ROPE) -> pd.DataFrame:
        """Every method against the baseline on each data set, over its splits: the mean
        difference of test error, Wilcoxon's signed-rank p-value over the splits (exact, zero
        differences split), and Benavoli et al.'s Bayesian correlated t-test (``rho`` = the
        test fraction ``n_test / (n_train + n_test)`` of the data set's cells, Nadeau and
        Bengio's correction) with its verdict. The statistics a study of 2-4 data sets has.

        Returns
        -------
        DataFrame indexed by (dataset, method): ``splits``, ``mean_diff`` (method minus
        baseline), ``wilcoxon_p``, ``p_better``, ``p_rope``, ``p_worse``, ``verdict``.
        """
        from svmtune.study.verdict._bayes import per_dataset_tests

        return per_dataset_tests(self.per_split, self.baseline, rho=self.rho, rope=rope)

    @property
    def has_rank_tests(self) -> bool:
        """Whether the tests across data sets ran (Friedman, Nemenyi's critical difference):
        at least 5 data sets and 3 methods. A critical-difference diagram is drawn only then;
        smaller studies get :meth:`per_dataset` instead."""
        return bool(self.friedman.applicable) and not math.isnan(self.critical_difference)

    def significantly_different(self, a: str, b: str) -> bool | None:
        """Whether the Nemenyi test separates methods ``a`` and ``b`` at ``alpha`` (None when
        the test was not applicable)."""
        nem = self.posthoc.get("nemenyi")
        if nem is None or nem.empty:
            return None
        for m in (a, b):
            if m not in nem.index:
                raise ValueError(f"unknown method {m!r}; the comparison has {list(nem.index)}")
        return bool(nem.loc[a, b] < self.alpha)

    @property
    def tied(self) -> list[list[str]]:
        """The methods grouped by equal average rank, best group first (:func:`tie_groups`)."""
        return tie_groups(self.ranks)

    def verdict(self) -> str:
        """The verdict in one paragraph of plain words; tied methods are named together."""
        k, n = len(self.ranks), self.n_datasets
        groups = self.tied
        lead = groups[0]
        best = names(lead)
        if len(lead) == 1:
            head = f"{best} ranks first (average rank {self.ranks.iloc[0]:.2f})"
        else:
            head = f"{best} share the first place (average rank {self.ranks.iloc[0]:.2f} each)"
        parts = [f"Over {n} data set{'s' if n != 1 else ''}, {k} methods ranked by mean test error "
                 f"(1 = best): {head}"]  # fmt: skip
        tail = groups[-1]
        if len(groups) > 1 and len(tail) == 1:
            parts[0] += f", {tail[0]} last ({self.ranks.iloc[-1]:.2f})."
        elif len(groups) > 1:
            parts[0] += f", {names(tail)} share the last place ({self.ranks.iloc[-1]:.2f} each)."
        else:
            parts[0] += "."
        if self.friedman.applicable:
            if self.friedman.pvalue < self.alpha:
                parts.append(
                    f"The Friedman test rejects that all methods are equivalent "
                    f"(chi2 = {self.friedman.statistic:.2f}, p = {self.friedman.pvalue:.2g})."
                )
                nem = self.posthoc["nemenyi"]
                others = [m for m in self.ranks.index if m not in lead]
                apart = [m for m in others if all(nem.loc[b, m] < self.alpha for b in lead)]
                cd = f"Nemenyi's test (critical difference {self.critical_difference:.2f} ranks)"
                if not apart:
                    parts.append(f"{cd} separates {best} from none of the others.")
                elif len(apart) == len(others):
                    parts.append(f"{cd} separates {best} from every other method.")
                else:
                    parts.append(f"{cd} separates {best} only from {', '.join(apart)}.")
            else:
                parts.append(
                    f"The Friedman test does not reject that all methods are equivalent "
                    f"(chi2 = {self.friedman.statistic:.2f}, p = {self.friedman.pvalue:.2g}): "
                    "the differences in rank may be chance."
                )
        else:
            parts.append(f"No Friedman test: {self.friedman.reason}.")
        wil = self.posthoc.get("wilcoxon_holm")
        if wil is not None and not wil.empty:
            worse = [
                m
                for m in wil.index
                if wil.loc[m, "pvalue_holm"] < self.alpha
                and self.errors[m].mean() > self.errors[self.baseline].mean()
            ]
            better = [
                m
                for m in wil.index
                if wil.loc[m, "pvalue_holm"] < self.alpha
                and self.errors[m].mean() < self.errors[self.baseline].mean()
            ]
            same = [m for m in wil.index if m not in worse and m not in better]
            text = f"Against {self.baseline} (Wilcoxon signed-rank, Holm-corrected): "
            bits = []
            if worse:
                bits.append(f"significantly worse: {', '.join(worse)}")
            if better:
                bits.append(f"significantly better: {', '.join(better)}")
            if same and not (worse or better):
                bits.append("no method differs significantly")
            elif len(same) <= 3:
                bits.append(f"not significantly different: {', '.join(same)}")
            else:
                bits.append(f"the {len(same)} others do not differ significantly")
            parts.append(text + "; ".join(bits) + ".")
        if self.left_out:
            parts.append("Left out: " + "; ".join(self.left_out) + ".")
        return " ".join(parts)

    def __repr__(self) -> str:
        return (
            f"Comparison({len(self.ranks)} methods, {self.n_datasets} data sets, "
            f"baseline={self.baseline!r}, {self.friedman})"
        )


def _method_order(results: pd.DataFrame, methods: Sequence[str] | None) -> list[str]:
    seen = list(dict.fromkeys(results["method"]))
    if methods is None:
        return seen
    return [m for m in methods if m in seen]


def compare(
    results: pd.DataFrame,
    *,
    methods: Sequence[str] | None = None,
    baseline: str | None = None,
    cost: str = "cpu_s",
    missing: str = "drop",
    alpha: float = 0.05,
) -> Comparison:
    """Compare a study's methods across data sets (Demšar 2006; García and Herrera 2008).

    Parameters
    ----------
    results : DataFrame
        ``Study.results()`` (a row per cell: ``dataset``, ``split``, ``method``, ``status``,
        ``test_error`` and the cost columns).
    methods : sequence of str, optional
        Which methods, in which order (default: all, in the order they appear).
    baseline : str, optional
        The method the Wilcoxon-Holm tests and the win/tie/loss counts compare with; default the
        best-ranked method (of methods tied at the best rank, the lowest mean test error, then
        the first by name: :func:`best_ranked`).
    cost : str, default "cpu_s"
        The cost column of ``table``: one of :data:`COST_COLUMNS`.
    missing : {"drop", "worst"}, default "drop"
        A cell that did not finish ok (failed, timeout, not stored): ``"drop"`` leaves out every
        (data set, split) where some method is missing, so all methods are compared on the same
        splits; ``"worst"`` counts it as the worst test error of the other methods on that
        split. Either way :attr:`Comparison.left_out` says what happened.
    alpha : float, default 0.05
        Significance level of the verdict and of Nemenyi's critical difference.

    Returns
    -------
    Comparison

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> rows = [{"dataset": f"d{d}", "split": s, "method": m, "status": "ok",
    ...          "test_error": 0.2 + 0.05 * i + rng.normal(0, 0.01), "cpu_s": 1.0}
    ...         for d in range(8) for s in range(3) for i, m in enumerate(["a", "b", "c"])]
    >>> c = compare(pd.DataFrame(rows))
    >>> c.ranks.to_dict()
    {'a': 1.0, 'b': 2.0, 'c': 3.0}
    >>> bool(c.friedman.pvalue < 0.05)
    True
    """
    if not isinstance(results, pd.DataFrame) or results.empty:
        raise ValueError("compare() needs a study with stored cells; got no results")
    need = {"dataset", "split", "method", "status", "test_error"}
    if need - set(results.columns):
        raise ValueError(f"results lack the columns {sorted(need - set(results.columns))}")
    if missing not in MISSING_POLICIES:
        raise ValueError(f"missing must be one of {list(MISSING_POLICIES)}; got {missing!r}")
    if cost not in COST_COLUMNS or cost not in results.columns:
        have = [c for c in COST_COLUMNS if c in results.columns]
        raise ValueError(f"unknown cost {cost!r}; use one of {have}")
    if not (isinstance(alpha, float | int) and 0 < alpha < 1):
        raise ValueError(f"alpha must be in (0, 1); got {alpha!r}")
    mnames = _method_order(results, methods)
    if methods is not None:
        unknown = [m for m in methods if m not in set(results["method"])]
        if unknown:
            raise ValueError(
                f"no stored cells of method(s) {unknown}; stored: {sorted(set(results['method']))}"
            )
    if len(mnames) < 2:
        raise ValueError(
            f"compare() needs at least 2 methods; the study has {len(mnames)} ({mnames})"
        )
    if baseline is not None and baseline not in mnames:
        raise ValueError(f"unknown baseline {baseline!r}; the methods are {mnames}")

    results = results[results["method"].isin(mnames)]
    table = stats_table(results, mnames, cost)
    per_split, left_out = per_split_errors(results, mnames, missing)
    errors = per_split.groupby(level="dataset", sort=False).mean()
    errors = errors.reindex(columns=mnames)
    errors.index.name = "dataset"
    errors.columns.name = "method"
    if errors.empty:
        raise ValueError(
            "no data set has a split that every method finished ok: nothing to compare "
            f"({'; '.join(left_out)})"
        )
    rank_table = errors.rank(axis=1, method="average")
    ranks = rank_table.mean().sort_values(kind="stable")
    ranks.name = "avg_rank"
    notes: list[str] = []
    if baseline is None:
        baseline, tied = best_ranked(ranks, errors)
        if tied:
            notes.append(
                f"Baseline {baseline}: tied at the best average rank with {names(tied)}; chosen "
                "by the lowest mean test error, then by name (not by the order of definition)"
            )

    friedman, iman, few = friedman_tests(errors, notes)
    posthoc, cd = posthoc_tests(errors, ranks, baseline, alpha, few, notes)

    diff = errors.sub(errors[baseline], axis=0)
    others = [m for m in ranks.index if m != baseline]
    wtl = pd.DataFrame(
        {
            "wins": [int((diff[m] < 0).sum()) for m in others],
            "ties": [int((diff[m] == 0).sum()) for m in others],
            "losses": [int((diff[m] > 0).sum()) for m in others],
        },
        index=pd.Index(others, name="method"),
    )
    return Comparison(
        table=table,
        errors=errors,
        rank_table=rank_table,
        ranks=ranks,
        friedman=friedman,
        iman_davenport=iman,
        posthoc=posthoc,
        critical_difference=cd,
        win_tie_loss=wtl,
        normalized=normalized_scores(errors),
        baseline=baseline,
        cost=cost,
        alpha=float(alpha),
        missing=missing,
        left_out=left_out,
        notes=notes,
        per_split=per_split,
        rho=test_fractions(results),
    )
