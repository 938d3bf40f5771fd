"""Quickstart: Fischetti's LOO_2 and LOO_3 estimates tuned by bisection, against grids.

Three bundled data sets, five random 70/30 splits each (Fischetti 2016, Section 5), six
methods: the LOO_2 and LOO_3 estimates with gamma by bisection, LOO_2 on a grid of gamma, the
usual baseline, the hinge-loss SVM with (C, gamma) by 5-fold cross-validation on a 5 x 5 grid,
and the same SVM with its 25 evaluations spent by VNS and by TPE instead. 90 tuning runs.

    svmtune run studies/quickstart.py

A study file is a Python file that defines a module-level ``study = Study(...)``; it may also
define ``figures(study, outdir) -> list[Path]`` for extra plots.
"""

from svmtune.kernels import RBF
from svmtune.objectives import KFoldCV, LOOEstimate
from svmtune.study import Method, Study
from svmtune.tuners import TPE, VNS, Bisection, Grid

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
        "SVM 5-fold CV+VNS": Method(KFoldCV(k=5), VNS(m=25), RBF()),
        "SVM 5-fold CV+TPE": Method(KFoldCV(k=5), TPE(n_trials=25), RBF()),
    },
)
