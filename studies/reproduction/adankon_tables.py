"""Adankon, Cheriet, Ayat, Table 1: Platt's empirical error tuned by gradient, beside ours."""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd
import paper_tables as P
from threadpoolctl import threadpool_limits

from svmtune.datasets import ratsch_split
from svmtune.estimators import SVC
from svmtune.kernels import RBF
from svmtune.study import split_seed

from .common import NOT_RUN, delta, md_table, ok_results, pm, splits_done
from .runs import Scale, Studies

ADANKON_OURS = ("5-fold CV + grid", "Platt full + GD", "Platt approx + GD", "Platt incremental")

ORACLE_GAMMAS = [2.0**e for e in range(-8, 3)]


def _fixed_c_oracle(mod: ModuleType, label: str, seed: int, scale: Scale) -> tuple[float, float]:
    """Test error at C = 10 and the gamma (of 2^-8 ... 2^2) best on the test realizations
    themselves: the least the approximate-gradient variants, which keep C at 10, could reach."""
    errs = np.empty((len(ORACLE_GAMMAS), scale.adankon_test))
    for i in range(scale.adankon_test):
        Xtr, ytr, Xte, yte = ratsch_split(mod.DATASETS[label], split_seed(seed, label, i))
        for j, g in enumerate(ORACLE_GAMMAS):
            clf = SVC(C=mod.FIXED_C, kernel=RBF(), kernel_params={"gamma": g}).fit(Xtr, ytr)
            errs[j, i] = 100.0 * float(np.mean(clf.predict(Xte) != yte))
    best = int(np.argmin(errs.mean(axis=1)))
    sd = float(errs[best].std(ddof=1)) if scale.adankon_test > 1 else math.nan
    return float(errs[best].mean()), sd


def _rows(
    st: Studies, scale: Scale, table: pd.DataFrame
) -> tuple[list[list[str]], list[tuple[str, str, float]], list[tuple[str, float, float, float]]]:
    """Table 1's rows; per (set, method) run our error − the paper's; per set run (set, the
    approximate gradient's error, the fixed-C floor, the paper's)."""
    mod = st.modules["adankon"]
    rows = []
    vd = []
    floors: list[tuple[str, float, float, float]] = []
    for label, paper in P.ADANKON_TABLE1.items():
        row = [label, pm(*paper[0]), pm(*paper[3])]
        for m in ADANKON_OURS:
            cell = (
                table[(table["dataset"] == label) & (table["method"] == m)] if len(table) else table
            )
            if len(cell):
                mean, sd = float(cell["test_error"].iloc[0]), float(cell["test_error_sd"].iloc[0])
                ref = paper[0][0] if m == ADANKON_OURS[0] else paper[3][0]
                row += [pm(mean, sd), delta(mean, ref)]
                vd.append((label, m, mean - ref))
            else:
                row += [NOT_RUN, ""]
        ran = len(table) and (table["dataset"] == label).any()
        if ran:
            floor = _fixed_c_oracle(mod, label, st.adankon.seed, scale)
            row.append(pm(*floor))
            approx = table[(table["dataset"] == label) & (table["method"] == ADANKON_OURS[2])]
            if len(approx):
                floors.append((label, float(approx["test_error"].iloc[0]), floor[0], paper[3][0]))
        else:
            row.append(NOT_RUN)
        rows.append(row)
    return rows, vd, floors


def adankon_section(st: Studies, scale: Scale) -> tuple[list[str], dict[str, Any]]:
    mod = st.modules["adankon"]
    res = ok_results(st.adankon)
    n = splits_done(res)
    table = pd.DataFrame()
    if len(res):
        mod.N_TEST_SPLITS = scale.adankon_test
        with threadpool_limits(1):
            table = mod.table1(st.adankon)
    rows, vd, floors = _rows(st, scale, table)
    headers = ["data set", "5-fold CV paper", "their approach paper"]
    for m in ADANKON_OURS:
        headers += [f"ours: {m}", "Δ"]
    headers.append("C = 10, best gamma in hindsight")
    lines = [
        "## Adankon, Cheriet, Ayat, Table 1: Platt's empirical error tuned by gradient",
        "",
        f"`studies/adankon.py`: the kernel tuned on the first {n} realizations (the paper: 5), "
        "the median of the tuned parameters trained and tested on the first "
        f"{scale.adankon_test} realizations (the paper: 100). Test error in percent, mean ± sd "
        "over the test realizations; Δ against the paper's 5-fold CV column for our 5-fold CV "
        "and against the paper's own approach for the Platt variants. The paper's radius-margin "
        "and span-bound columns are in `paper_tables.py`.",
        "",
    ]
    lines += md_table(headers, rows)
    lines += [" ".join(_verdict(vd, floors)), ""]
    return lines, {"splits": n}


def _verdict(
    vd: list[tuple[str, str, float]], floors: list[tuple[str, float, float, float]]
) -> list[str]:
    v = ["**Verdict.**"]
    if vd:
        worst = max(vd, key=lambda d: abs(d[2]))
        v.append(
            f"{sum(abs(d[2]) <= 1.0 for d in vd)} of {len(vd)} (set, method) rows within 1 "
            f"point of the paper's; the largest gap {worst[2]:+.2f} points ({worst[1]} on "
            f"{worst[0]})."
        )
    v.append(
        "Known differences: thyroid is KEEL's new-thyroid1 (35 positives, Ratsch's 65); the "
        "approximate gradient (their eq. 9) has no C term, so C stays at 10 and only gamma "
        "moves: the last column is the best any gamma does at C = 10 on the test realizations "
        "themselves, a floor for the approximate variants that no step rule can beat; heart and "
        "breast-cancer are one-hot encoded."
    )
    for label, approx, floor, paper in floors:
        if approx - paper > 1.0:
            v.append(
                f"{label}: approximate gradient {approx:.2f} % against the paper's {paper:.2f} "
                f"%; at C = 10 the best gamma reaches {floor:.2f} %, so {approx - floor:.2f} of "
                f"the {approx - paper:.2f} points come from the gamma the descent settles on, "
                f"at most {max(floor - paper, 0.0):.2f} from the fixed C (and the data)."
            )
    return v
