"""Quickstart: Fischetti's LOO_2 and LOO_3 estimates tuned by bisection, against grids.

Three bundled data sets, five random 70/30 splits each (Fischetti 2016, Section 5), eleven
methods: the LOO_2 and LOO_3 estimates with gamma by bisection, LOO_2 on a grid of gamma, the
usual baseline, the hinge-loss SVM with (C, gamma) by 5-fold cross-validation on a 5 x 5 grid,
the same SVM with its 25 evaluations spent by VNS and by TPE instead, TPE again with Optuna's
successive-halving pruner stopping bad trials after a fold or two, a cascade (5-fold CV on a
quarter of the data on a 4 x 4 grid, then three full evaluations around its best), the SVM's
exact leave-one-out error (Franc et al.) on the 5 x 5 grid, Platt's empirical error with
(C, gamma) by gradient descent (Adankon et al.), and successive halving on data over the 5 x 5
grid (every point on a small subsample, the best third on three times as many points, and so
on). 165 tuning runs, about a minute on two cores.

    svmtune run studies/quickstart.py

A study file is a Python file that defines a module-level ``study = Study(...)``; it may also
define ``figures(study, outdir) -> list[Path]`` for extra plots.
"""

from optuna.pruners import SuccessiveHalvingPruner

from svmtune.kernels import RBF
from svmtune.objectives import ExactLOO, KFoldCV, LOOEstimate, PlattError
from svmtune.study import Method, Study
from svmtune.tuners import TPE, VNS, Bisection, Cascade, GradientDescent, Grid, SuccessiveHalving

study = Study(
    "quickstart",
    datasets=["heart", "sonar", "wdbc"],
    split="fischetti",
    n_splits=5,
    seed=2016,
    methods={
        # gamma from 0.01 to 1, three-point bisection until the interval is below 0.01
        "LOO2+bisection": Method(LOOEstimate(model="loo2"), Bisection(), RBF()),
        "LOO3+bisection": Method(LOOEstimate(model="loo3"), Bisection(), RBF()),
        # five log-spaced gamma values in [1e-3, 10]
        "LOO2+grid": Method(LOOEstimate(model="loo2"), Grid(n_points=5), RBF()),
        # the hinge-loss SVM, (C, gamma) on a 5 x 5 grid by 5-fold cross-validation
        "SVM 5-fold CV+grid": Method(KFoldCV(k=5), Grid(n_points=5), RBF()),
        # the same SVM and budget (25 evaluations) by variable neighbourhood search and by TPE
        "SVM 5-fold CV+VNS": Method(KFoldCV(k=5), VNS(max_evals=25), RBF()),
        "SVM 5-fold CV+TPE": Method(KFoldCV(k=5), TPE(max_evals=25), RBF()),
        # TPE's 25 trials again, bad ones stopped after a fold or two (fold-level pruning)
        "SVM 5-fold CV+TPE+pruner": Method(
            KFoldCV(k=5), TPE(max_evals=25, pruner=SuccessiveHalvingPruner()), RBF()
        ),
        # 5-fold CV on a quarter of the data on a 4 x 4 grid, then 3 evaluations on all of it
        # around the best point: a fifth of the grid's kernel evaluations
        "SVM 5-fold CV+Cascade": Method(KFoldCV(k=5), Cascade(), RBF()),
        # the exact leave-one-out error (Franc et al.'s stop) on the same 5 x 5 grid
        "SVM exact LOO+grid": Method(ExactLOO(), Grid(n_points=5), RBF()),
        # Platt's empirical error on a 30% holdout, (C, gamma) by gradient descent
        "Platt+gradient": Method(PlattError(), GradientDescent(), RBF()),
        # the 5 x 5 grid by successive halving on data: 25, 9 and 3 candidates on growing
        # subsamples of the training points (scikit-learn's HalvingGridSearchCV schedule)
        "SVM 5-fold CV+halving": Method(KFoldCV(k=5), SuccessiveHalving(n_points=5), RBF()),
    },
)
