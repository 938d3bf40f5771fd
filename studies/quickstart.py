"""Quickstart: Fischetti's LOO_2 and LOO_3 estimates tuned by bisection, against a grid.

Three bundled data sets, five random 70/30 splits each (Fischetti 2016, Section 5), three
methods: 45 tuning runs, well under two minutes on two cores.

    svmtune run studies/quickstart.py

A study file is a Python file that defines a module-level ``study = Study(...)``; it may also
define ``figures(study, outdir) -> list[Path]`` for extra plots.
"""

from svmtune.kernels import RBF
from svmtune.objectives import LOOEstimate
from svmtune.study import Method, Study
from svmtune.tuners import Bisection, Grid

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
    },
)
