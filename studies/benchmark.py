"""Which tuning strategy, at which budget? Every strategy at equal budgets on 42 problems.

The benchmark suite (:data:`svmtune.datasets.SUITE`, ``svmtune datasets --suite``): 42 binary
problems from 42 distinct base data sets, all bundled, chosen by the rule written in
:mod:`svmtune.datasets._suite` before any result was seen (one task per base set, multi-class
sets cut into halves of their classes, majority/minority at most 9, sets above 600 rows
replaced by a fixed stratified subsample of 600) x 10 splits (Fischetti's protocol: each point
to the training part with probability 0.7, features standardized with the training part's
statistics); an RBF-kernel SVM tuned on the training part, measured by its test error rate on
the test part. Every search gets the same box, ``C`` in [0.1, 1000] and ``gamma`` in
[0.001, 10] (log scale), and the same budget of 25 or 50 evaluations of 5-fold
cross-validation:

- svmtune (its SMO): a grid (5 x 5 = 25, 5 x 10 = 50 points), random search, variable
  neighbourhood search (Carrizosa et al.) and Optuna's TPE, each stopped at ``max_evals``; TPE
  with 25 trials again under Optuna's successive-halving pruner (bad trials stopped after a
  fold or two);
- the noise controls, which measure the resolution: "CV grid 25, folds 1" and "CV grid 25,
  folds 2" are "CV grid 25" on two other assignments of the points to the 5 folds, and
  "GridSearchCV 25, folds 1" is the peer on another one (``folds=1, 2``). They are reported
  apart (per-problem standard deviation over the fold assignments, standard error of the
  suite mean), not ranked and not in Friedman's test;
- a cascade (``Cascade``): 5-fold CV on a stratified quarter of the data on a 4 x 4 grid of the
  box, then 3 evaluations on all of it around the best point (about 4 evaluations' kernel work);
- the cheaper routes: Fischetti's LOO_2 and LOO_3 estimates by bisection over ``gamma`` (no QP
  per evaluation; log-scale bisection over the box's ``gamma`` range) and Platt's empirical error
  on a 30 % holdout by gradient descent over (C, gamma) from the box's log-centre (Adankon et
  al.), each with at most 25 evaluations;
- the peers users pick today, over ``sklearn.svm.SVC``: ``GridSearchCV`` on the same grids,
  ``RandomizedSearchCV`` and optuna-integration's ``OptunaSearchCV`` with the same number of
  candidates (log-uniform over the box), ``HalvingGridSearchCV`` on the 25-point grid; all
  cv=5, which the study replaces by the split's shared folds;
- successive halving on data, svmtune's ``SuccessiveHalving`` on 5-fold CV beside
  ``HalvingGridSearchCV``: the same 25 candidates and schedule (every candidate on a small
  subsample, the best third on three times as many points, and so on).

Every k-fold method of a (data set, split), svmtune's ``KFoldCV`` and the peers' ``cv=5``
alike, cross-validates on one stratified fold assignment shuffled from the split's seed, and
every split hands the training part over in a seeded random order (never the file's). A
tuning run is billed its whole process CPU (the sampler's and the bookkeeping's included), as
a peer's ``fit()`` is.

The pre-planned comparison: every method against ``GridSearchCV 25`` (:data:`BASELINE`, what
users reach for), named before the study runs; ``report.md`` gives each method's paired mean
difference with its 95 % interval, Wilcoxon-Holm test and Bayesian signed-rank verdict against
it (region of practical equivalence: 1 point of test error, and the resolution the noise
controls measure), and the noise controls in their own section.

The full run (42 problems x 10 splits x 24 methods = 10,080 cells; docs/scaling.md gives the
measured and estimated time of the earlier 22-method run on 2 cores)::

    nice -n 5 svmtune run studies/benchmark.py --n-jobs 2

writes ``results/benchmark/report.md`` (the verdict), ``cd_diagram.png``, the anytime
profiles and ``ecdf.png``. OptunaSearchCV needs the ``peers`` extra (``pip install
svmtune[peers]``); without it, its methods are left out.

A smaller run (a quick look; the first problems are the cheapest)::

    SVMTUNE_BENCHMARK_DATASETS=6 SVMTUNE_BENCHMARK_SPLITS=3 svmtune run studies/benchmark.py

keeps the first ``n`` problems of ``DATASETS`` and the first splits; ``SVMTUNE_BENCHMARK_METHODS``
(names separated by ``;``) keeps only the methods named and their noise controls. Cells are
keyed by (data set, split, method) and seeded by that key alone, so a later full run reuses
them.
"""

import os

import numpy as np
from optuna.pruners import SuccessiveHalvingPruner
from scipy.stats import loguniform
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.model_selection import GridSearchCV, HalvingGridSearchCV, RandomizedSearchCV
from sklearn.svm import SVC

from svmtune.datasets import SUITE, SuiteLoader
from svmtune.kernels import RBF
from svmtune.objectives import KFoldCV, LOOEstimate, PlattError
from svmtune.study import Method, PeerMethod, Study
from svmtune.tuners import (
    TPE,
    VNS,
    Bisection,
    Cascade,
    GradientDescent,
    Grid,
    RandomSearch,
    SuccessiveHalving,
)

#: The suite's problems, cheapest first (a reduced run keeps the first n): name -> loader.
DATASETS = {name: SuiteLoader(name) for name in SUITE}
N_DATASETS = int(os.environ.get("SVMTUNE_BENCHMARK_DATASETS", len(DATASETS)))
N_SPLITS = int(os.environ.get("SVMTUNE_BENCHMARK_SPLITS", 10))
if not (2 <= N_DATASETS <= len(DATASETS)) or N_SPLITS < 1:
    raise ValueError(
        f"SVMTUNE_BENCHMARK_DATASETS must be in [2, {len(DATASETS)}] and "
        f"SVMTUNE_BENCHMARK_SPLITS positive; got {N_DATASETS}, {N_SPLITS}"
    )
#: The pre-planned baseline: what most users run.
BASELINE = "GridSearchCV 25"

#: The search box every strategy gets (log scale).
BOX = {"C": (0.1, 1000.0), "gamma": (0.001, 10.0)}
BUDGETS = (25, 50)
#: The grids: 5 x 5 (25 points) and 5 C x 10 gamma (50 points), log-spaced over the box.
GRIDS = {
    25: {
        "C": np.geomspace(*BOX["C"], 5).tolist(),
        "gamma": np.geomspace(*BOX["gamma"], 5).tolist(),
    },
    50: {
        "C": np.geomspace(*BOX["C"], 5).tolist(),
        "gamma": np.geomspace(*BOX["gamma"], 10).tolist(),
    },
}
CENTRE = {k: float(np.sqrt(lo * hi)) for k, (lo, hi) in BOX.items()}  # C 10, gamma 0.1
KERNEL = RBF(gamma_bounds=BOX["gamma"])
CV = KFoldCV(k=5)

METHODS: dict[str, Method] = {
    "LOO_2 + bisection": Method(
        LOOEstimate(model="loo2"),
        Bisection(low=BOX["gamma"][0], high=BOX["gamma"][1], log=True, tol=0.05, max_evals=25),
        KERNEL,
    ),
    "LOO_3 + bisection": Method(
        LOOEstimate(model="loo3"),
        Bisection(low=BOX["gamma"][0], high=BOX["gamma"][1], log=True, tol=0.05, max_evals=25),
        KERNEL,
    ),
    "Platt + gradient": Method(PlattError(), GradientDescent(start=CENTRE, max_evals=25), KERNEL),
    "CV cascade": Method(CV, Cascade(bounds=BOX), KERNEL),
}
for B in BUDGETS:
    METHODS[f"CV grid {B}"] = Method(CV, Grid(values=GRIDS[B], max_evals=B), KERNEL)
    METHODS[f"CV random {B}"] = Method(CV, RandomSearch(bounds=BOX, max_evals=B), KERNEL)
    METHODS[f"CV VNS {B}"] = Method(CV, VNS(bounds=BOX, max_evals=B), KERNEL)
    METHODS[f"CV TPE {B}"] = Method(CV, TPE(bounds=BOX, max_evals=B), KERNEL)
# the noise controls: the 25-point grid again on two other assignments of the points to the
# folds (reported apart: the per-problem spread and the standard error of the suite mean)
for F in (1, 2):
    METHODS[f"CV grid 25, folds {F}"] = Method(
        CV, Grid(values=GRIDS[25], max_evals=25), KERNEL, folds=F
    )
# TPE's 25 trials again, Optuna's successive-halving pruner stopping bad trials after a fold or
# two (fold-level pruning: a pruned trial is one of the 25 and pays for the folds it solved)
METHODS["CV TPE pruned 25"] = Method(
    CV, TPE(bounds=BOX, max_evals=25, pruner=SuccessiveHalvingPruner()), KERNEL
)
for B in BUDGETS:
    METHODS[f"GridSearchCV {B}"] = PeerMethod(GridSearchCV(SVC(), GRIDS[B], cv=5))
    METHODS[f"RandomizedSearchCV {B}"] = PeerMethod(
        RandomizedSearchCV(
            SVC(),
            {"C": loguniform(*BOX["C"]), "gamma": loguniform(*BOX["gamma"])},
            n_iter=B,
            cv=5,
        )
    )
# the peer's noise control: the same GridSearchCV on another fold assignment
METHODS["GridSearchCV 25, folds 1"] = PeerMethod(GridSearchCV(SVC(), GRIDS[25], cv=5), folds=1)

# successive halving on the 25-point grid (on the 50-point one it costs more CPU than
# GridSearchCV at these data sizes, and the full run must fit in about an hour on 2 cores)
METHODS["HalvingGridSearchCV 25"] = PeerMethod(HalvingGridSearchCV(SVC(), GRIDS[25], cv=5))
# svmtune's successive halving on the same 25 candidates and schedule (25, 9, 3 candidates on
# growing subsamples: more evaluations than 25, each on fewer points)
METHODS["CV halving 25"] = Method(CV, SuccessiveHalving(values=GRIDS[25]), KERNEL)

#: Methods this file cannot define on this installation, and why (svmtune run names them).
LEFT_OUT: dict[str, str] = {}
PEERS_EXTRA = "needs optuna-integration: pip install 'svmtune[peers]'"

try:
    import optuna
    from optuna.distributions import FloatDistribution
    from optuna_integration import OptunaSearchCV
except ImportError:  # the optional extra "peers" is not installed: say so, in the run's output
    LEFT_OUT.update({f"OptunaSearchCV {B}": PEERS_EXTRA for B in BUDGETS})
else:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    for B in BUDGETS:
        METHODS[f"OptunaSearchCV {B}"] = PeerMethod(
            OptunaSearchCV(
                SVC(),
                {k: FloatDistribution(lo, hi, log=True) for k, (lo, hi) in BOX.items()},
                n_trials=B,
                cv=5,
                n_jobs=1,
            )
        )

#: SVMTUNE_BENCHMARK_METHODS="GridSearchCV 25;CV grid 25": only these methods (and their noise
#: controls); a quick look at a few of them (the baseline must be one)
KEEP = [m.strip() for m in os.environ.get("SVMTUNE_BENCHMARK_METHODS", "").split(";") if m.strip()]
if KEEP:
    unknown = [m for m in KEEP if m not in METHODS and m not in LEFT_OUT]
    if unknown:
        raise ValueError(
            f"SVMTUNE_BENCHMARK_METHODS names {unknown}, not methods of the benchmark here; "
            f"they are {list(METHODS)}"
        )
    METHODS = {k: v for k, v in METHODS.items() if k.split(", folds ")[0] in KEEP}
    LEFT_OUT = {k: v for k, v in LEFT_OUT.items() if k in KEEP}

study = Study(
    "benchmark",
    datasets=dict(list(DATASETS.items())[:N_DATASETS]),
    split="fischetti",
    n_splits=N_SPLITS,
    seed=2026,
    methods=METHODS,
    baseline=BASELINE,
    left_out=LEFT_OUT,
)
