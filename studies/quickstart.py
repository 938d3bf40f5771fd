"""Quickstart: Fischetti's LOO_2 and LOO_3 estimates tuned by bisection, against grids.

Three bundled data sets, five random 70/30 splits each (Fischetti 2016, Section 5), six
methods: the LOO_2 and LOO_3 estimates with gamma by bisection, LOO_2 on a grid of gamma, and
the usual baseline, the hinge-loss SVM with (C, gamma) by 5-fold cross-validation on a 5 x 5
grid, and by its exact leave-one-out error (Franc et al.) on the same grid; and Platt's
empirical error with (C, gamma) by gradient descent (Adankon et al.). 90 tuning runs,
about a minute on two cores.

    svmtune run studies/quickstart.py

A study file is a Python file that defines a module-level ``study = Study(...)``; it may also
define ``figures(study, outdir) -> list[Path]`` for extra plots.
"""

from svmtune.kernels import RBF
from svmtune.objectives import ExactLOO, KFoldCV, LOOEstimate, PlattError
from svmtune.study import Method, Study
from svmtune.tuners import Bisection, GradientDescent, Grid

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
        # the exact leave-one-out error (Franc et al.'s stop) on the same 5 x 5 grid
        "SVM exact LOO+grid": Method(ExactLOO(), Grid(n_points=5), RBF()),
        # Platt's empirical error on a 30% holdout, (C, gamma) by gradient descent
        "Platt+gradient": Method(
            PlattError(), GradientDescent(start={"C": 10.0, "gamma": 0.1}), RBF()
        ),
    },
)
