"""The tests across data sets behind :func:`~svmtune.study.compare` (Demšar 2006; García and
Herrera 2008): Friedman and Iman-Davenport, Nemenyi's post-hoc test and critical difference,
Wilcoxon signed-rank against a baseline with Holm's correction. The tests are scipy's and
scikit-posthocs'; both are imported only when a test runs.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["MIN_DATASETS", "HypothesisTest", "friedman_tests", "posthoc_tests"]

#: Fewest data sets for which the tests are run (Demšar's tables start there; with fewer the
#: Friedman statistic's chi-square approximation and Wilcoxon's exact p-values cannot reach 5 %).
MIN_DATASETS = 5


@dataclass(frozen=True)
class HypothesisTest:
    """One test's outcome: ``statistic`` and ``pvalue``, or why it was not applicable."""

    name: str
    statistic: float = math.nan
    pvalue: float = math.nan
    applicable: bool = True
    reason: str = ""

    def __str__(self) -> str:
        if not self.applicable:
            return f"{self.name}: not applicable ({self.reason})"
        return f"{self.name}: statistic {self.statistic:.4g}, p = {self.pvalue:.3g}"


def _not_applicable(name: str, reason: str) -> HypothesisTest:
    return HypothesisTest(name, applicable=False, reason=reason)


def friedman_tests(
    errors: pd.DataFrame, notes: list[str]
) -> tuple[HypothesisTest, HypothesisTest, str]:
    """The Friedman and Iman-Davenport tests of a data set x method table of mean errors (or
    why not applicable), and the reason "too few data sets" in words; appends to ``notes``."""
    mnames = list(errors.columns)
    k, n = len(mnames), errors.shape[0]
    friedman: HypothesisTest
    iman: HypothesisTest
    few = (
        f"{n} data set{'s' if n != 1 else ''} (the tests across data sets need at least "
        f"{MIN_DATASETS})"
    )
    if n < MIN_DATASETS:
        friedman = _not_applicable("Friedman", few)
        iman = _not_applicable("Iman-Davenport", few)
    elif k < 3:
        why = "2 methods: the Wilcoxon signed-rank test below is the test for a pair"
        friedman = _not_applicable("Friedman", why)
        iman = _not_applicable("Iman-Davenport", why)
    else:
        from scipy import stats

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = stats.friedmanchisquare(*(errors[m].to_numpy() for m in mnames))
        chi2, p = float(res.statistic), float(res.pvalue)
        if not math.isfinite(chi2):  # every data set ties every method
            chi2, p = 0.0, 1.0
            notes.append("every method ties on every data set: Friedman statistic 0")
        friedman = HypothesisTest("Friedman", chi2, p)
        denom = n * (k - 1) - chi2
        if denom > 0:
            f = (n - 1) * chi2 / denom
            iman = HypothesisTest(
                "Iman-Davenport", f, float(stats.f.sf(f, k - 1, (k - 1) * (n - 1)))
            )
        else:
            iman = HypothesisTest("Iman-Davenport", math.inf, 0.0)
    if not friedman.applicable:
        notes.append(str(friedman))

    return friedman, iman, few


def posthoc_tests(
    errors: pd.DataFrame,
    ranks: pd.Series,
    baseline: str,
    alpha: float,
    few: str,
    notes: list[str],
) -> tuple[dict[str, pd.DataFrame], float]:
    """Nemenyi's p-values (best average rank first) and critical difference at ``alpha``, and
    the Wilcoxon-Holm tests against ``baseline``; appends to ``notes`` what was not run."""
    mnames = list(errors.columns)
    k, n = len(mnames), errors.shape[0]
    posthoc: dict[str, pd.DataFrame] = {"nemenyi": pd.DataFrame(), "wilcoxon_holm": pd.DataFrame()}
    cd = math.nan
    if n >= MIN_DATASETS:
        import scikit_posthocs as sp
        from scipy.stats import studentized_range

        if k >= 3:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                nem = sp.posthoc_nemenyi_friedman(errors.to_numpy())
            nem.index = nem.columns = mnames
            posthoc["nemenyi"] = nem.loc[list(ranks.index), list(ranks.index)]
            q = float(studentized_range.ppf(1 - alpha, k, np.inf)) / math.sqrt(2)
            cd = q * math.sqrt(k * (k + 1) / (6 * n))
        else:
            notes.append("Nemenyi: not applicable (2 methods: see the Wilcoxon test)")
        posthoc["wilcoxon_holm"] = _wilcoxon_holm(errors, baseline)
    else:
        notes.append(f"Nemenyi and Wilcoxon: not applicable ({few})")

    return posthoc, cd


def _holm(pvalues: Sequence[float]) -> np.ndarray:
    from statsmodels.stats.multitest import multipletests  # a dependency of scikit-posthocs

    p = np.asarray(pvalues, dtype=float)
    return np.asarray(multipletests(p, method="holm")[1], dtype=float)


def _wilcoxon_holm(errors: pd.DataFrame, baseline: str) -> pd.DataFrame:
    """Wilcoxon signed-rank test of every method against ``baseline`` over the data sets,
    zero differences split between the signs (Demšar 2006), Holm-corrected."""
    from scipy import stats

    rows = []
    for m in errors.columns:
        if m == baseline:
            continue
        d = (errors[m] - errors[baseline]).to_numpy()
        if np.all(d == 0):
            stat, p = 0.0, 1.0
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = stats.wilcoxon(d, zero_method="zsplit")
            stat, p = float(res.statistic), float(res.pvalue)
        rows.append({"method": m, "statistic": stat, "pvalue": p, "mean_diff": float(d.mean())})
    out = pd.DataFrame(rows).set_index("method")
    out["pvalue_holm"] = _holm(out["pvalue"].to_numpy())
    return out
