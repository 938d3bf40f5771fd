"""The headline comparison: svmtune's tuning methods against what scikit-learn and Optuna users run.

Fischetti's nine bundled data sets (his Table 2) x 10 splits (his protocol: each point to the
training part with probability 0.7, features standardized with the training part's statistics).
Every method tunes an RBF-kernel classifier on the training part and is measured on the test
part; CPU seconds are the tuning run's (the refit included), one BLAS thread, one process.

- svmtune: Fischetti's LOO_2 and LOO_3 estimates tuned by bisection over gamma (no C, no QP),
  5-fold CV of the soft-margin SVM (svmtune's SMO) on the 5 x 5 (C, gamma) grid and with the
  same 25 evaluations spent by VNS (Carrizosa et al.) and by Optuna's TPE, the SVM's exact
  leave-one-out error (Franc et al.) on the 5 x 5 grid, and Platt's empirical error on a 30%
  holdout with (C, gamma) by gradient descent (Adankon et al.);
- peers over ``sklearn.svm.SVC``: ``GridSearchCV`` on the same 5 x 5 grid with cv=5 (the
  paper's HINGE baseline: 126 fits), ``HalvingGridSearchCV`` on that grid,
  ``RandomizedSearchCV`` with the same budget (25 candidates, cv=5, log-uniform over the
  grid's box) and optuna-integration's ``OptunaSearchCV`` (TPE, 25 trials, cv=5, same box).

Every 5-fold method of a (data set, split), svmtune's and the peers' alike, cross-validates on
the same stratified folds shuffled from the split's seed (the study replaces the peers' cv=5
and KFoldCV's random_state), and a svmtune run is billed its whole process CPU, as a peer its
``fit()``.

Adding a method is one entry in ``METHODS`` (a ``Method`` or a ``PeerMethod``).

    svmtune run studies/peers.py --output docs/peers

redraws ``docs/peers/error_vs_time.png`` (the Pareto figure), ``docs/peers/summary.csv`` and
``docs/peers/peers_table.csv`` (mean test error, CPU seconds and their ratio to GridSearchCV),
and prints that table. OptunaSearchCV needs the ``peers`` extra (``pip install svmtune[peers]``);
without it, its method is left out.
"""

from pathlib import Path

import numpy as np
import pandas as pd
from paper_tables import FISCHETTI_DATASETS
from scipy.stats import loguniform
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.model_selection import GridSearchCV, HalvingGridSearchCV, RandomizedSearchCV
from sklearn.svm import SVC

from svmtune.kernels import RBF
from svmtune.objectives import ExactLOO, KFoldCV, LOOEstimate, PlattError
from svmtune.study import Method, PeerMethod, Study, method_means
from svmtune.tuners import DEFAULT_GRID_BOUNDS, TPE, VNS, Bisection, GradientDescent, Grid

DATASETS = FISCHETTI_DATASETS  # Fischetti's nine bundled data sets, as his study runs them

(C_LO, C_HI), (G_LO, G_HI) = DEFAULT_GRID_BOUNDS["C"], DEFAULT_GRID_BOUNDS["gamma"]
#: The 5 x 5 grid svmtune's Grid(n_points=5) searches, given to the peers too.
GRID = {"C": np.geomspace(C_LO, C_HI, 5).tolist(), "gamma": np.geomspace(G_LO, G_HI, 5).tolist()}
BUDGET = 25  # candidates of the random and TPE searches: the grid's 25

METHODS: dict[str, Method] = {
    "LOO_2 + bisection": Method(LOOEstimate(model="loo2"), Bisection(), RBF()),
    "LOO_3 + bisection": Method(LOOEstimate(model="loo3"), Bisection(), RBF()),
    "5-fold CV + grid (svmtune)": Method(KFoldCV(k=5), Grid(n_points=5), RBF()),
    # the same 25 evaluations spent by variable neighbourhood search and by TPE
    "5-fold CV + VNS (svmtune)": Method(KFoldCV(k=5), VNS(max_evals=25), RBF()),
    "5-fold CV + TPE (svmtune)": Method(KFoldCV(k=5), TPE(max_evals=25), RBF()),
    # the exact leave-one-out error (Franc et al.'s stop) on the same 5 x 5 grid
    "exact LOO + grid (svmtune)": Method(ExactLOO(), Grid(n_points=5), RBF()),
    # Platt's empirical error on a 30% holdout, (C, gamma) by gradient descent
    "Platt + gradient (svmtune)": Method(PlattError(), GradientDescent(), RBF()),
    "GridSearchCV": PeerMethod(GridSearchCV(SVC(), GRID, cv=5)),
    "HalvingGridSearchCV": PeerMethod(HalvingGridSearchCV(SVC(), GRID, cv=5)),
    "RandomizedSearchCV": PeerMethod(
        RandomizedSearchCV(
            SVC(),
            {"C": loguniform(C_LO, C_HI), "gamma": loguniform(G_LO, G_HI)},
            n_iter=BUDGET,
            cv=5,
        )
    ),
}

#: Methods this file cannot define on this installation, and why (svmtune run names them).
LEFT_OUT: dict[str, str] = {}

try:
    import optuna
    from optuna.distributions import FloatDistribution
    from optuna_integration import OptunaSearchCV
except ImportError:  # the optional extra "peers" is not installed: say so, in the run's output
    LEFT_OUT["OptunaSearchCV (TPE)"] = "needs optuna-integration: pip install 'svmtune[peers]'"
else:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    METHODS["OptunaSearchCV (TPE)"] = PeerMethod(
        OptunaSearchCV(
            SVC(),
            {
                "C": FloatDistribution(C_LO, C_HI, log=True),
                "gamma": FloatDistribution(G_LO, G_HI, log=True),
            },
            n_trials=BUDGET,
            cv=5,
            n_jobs=1,
        )
    )

study = Study(
    "peers",
    datasets=DATASETS,
    split="fischetti",
    n_splits=10,
    seed=2026,
    methods=METHODS,
    left_out=LEFT_OUT,
)

REFERENCE = "GridSearchCV"


def peers_table(results: pd.DataFrame) -> pd.DataFrame:
    """Per method: mean test error [%] and CPU seconds (means over splits, then over data sets),
    CPU relative to GridSearchCV (per data set, then the geometric mean over data sets), the
    test error's difference to GridSearchCV's [points], fits per tuning run, cells ok."""
    ok = results[results["status"] == "ok"]
    means = method_means(ok)
    per = ok.groupby(["method", "dataset"])[["cpu_s", "test_error"]].mean()
    table = pd.DataFrame(index=pd.Index(list(means.index), name="method"))
    table["test error [%]"] = 100 * means["test_error"]
    table["CPU s"] = means["cpu_s"]
    if REFERENCE in means.index:
        ref = per.loc[REFERENCE]
        ratios, diffs = [], []
        for m in table.index:
            mine = per.loc[m]
            common = mine.index.intersection(ref.index)
            ratios.append(
                np.exp(np.mean(np.log(ref.loc[common, "cpu_s"] / mine.loc[common, "cpu_s"])))
            )
            diffs.append(
                100 * (mine.loc[common, "test_error"] - ref.loc[common, "test_error"]).mean()
            )
        table[f"{REFERENCE} CPU / CPU"] = ratios
        table[f"test error - {REFERENCE} [points]"] = diffs
    table["fits or evaluations"] = ok.groupby("method")["n_evaluations"].mean()
    table["cells ok"] = ok.groupby("method").size()
    return table.sort_values("CPU s")


def figures(study: Study, outdir: Path) -> list[Path]:
    """The peers table (printed and written as CSV and Markdown)."""
    table = peers_table(study.results())
    outdir.mkdir(parents=True, exist_ok=True)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.round(3).to_string())
    csv = outdir / "peers_table.csv"
    table.to_csv(csv, float_format="%.6g")
    return [csv]
