"""Fischetti (2016), Table 2 and Figs. 2-3: LOO_1, LOO_2, LOO_3 tuned by bisection, and HINGE.

The paper's protocol (Section 5): ten random splits per data set, each point to the training
part with probability 0.7, features standardized with the training part's statistics; gamma
by three-point bisection from gamma_L = 0.01, gamma_R = 1 until gamma_R - gamma_L < 0.01. HINGE
is the soft-margin SVM with (C, gamma) chosen by 5-fold cross-validation on a 5 x 5 grid
(5 * 5 * 5 + 1 = 126 trainings), as in the paper's baseline.

What is missing from the paper's table: Wpbc (not bundled) and LOO_MILP (needs a MILP solver).
The paper's "Breast" is the Wisconsin breast-cancer data (683 points, 9 features).

    svmtune run studies/fischetti2016.py

besides the table (``results/fischetti2016/summary.csv``) and the standard plots, draws
``fig2_australian.png``: the LOO estimate and the test error as functions of gamma on one
Australian split, for LOO_1, LOO_2, LOO_3 and the NAIVE total-signal model (the paper's Fig. 3).
"""

from pathlib import Path

import numpy as np
import pandas as pd
from paper_tables import FISCHETTI_DATASETS

from svmtune.datasets import fischetti_split, load
from svmtune.kernels import RBF
from svmtune.objectives import KFoldCV, LOOEstimate
from svmtune.study import Method, Study, parameter_curve, split_seed
from svmtune.tuners import TPE, VNS, Bisection, Grid

DATASETS = FISCHETTI_DATASETS  # the paper's instances that are bundled (not Wpbc)

study = Study(
    "fischetti2016",
    datasets=DATASETS,
    split="fischetti",
    n_splits=10,
    seed=2016,
    methods={
        "HINGE": Method(KFoldCV(k=5), Grid(n_points=5), RBF()),
        "LOO_1": Method(LOOEstimate(model="loo1"), Bisection(), RBF()),
        "LOO_2": Method(LOOEstimate(model="loo2"), Bisection(), RBF()),
        "LOO_3": Method(LOOEstimate(model="loo3"), Bisection(), RBF()),
        # Not in the paper: HINGE's 25 evaluations spent by VNS and by TPE instead of the grid.
        "HINGE+VNS": Method(KFoldCV(k=5), VNS(max_evals=25), RBF()),
        "HINGE+TPE": Method(KFoldCV(k=5), TPE(max_evals=25), RBF()),
    },
)

FIG2_MODELS = {"LOO_1": "loo1", "LOO_2": "loo2", "LOO_3": "loo3", "NAIVE (total signal)": "naive"}
FIG2_GAMMAS = np.linspace(0.005, 0.25, 50)  # the paper's axis runs from 0 to 0.25


def figures(study: Study, outdir: Path) -> list[Path]:
    """Fig. 2 (and Fig. 3's NAIVE panel) on the first Australian split of the study."""
    from svmtune.study.figures import plot_parameter_curves

    Xtr, ytr, Xte, yte = fischetti_split(
        *load("australian"), split_seed(study.seed, "Australian", 0)
    )
    curves = pd.concat(
        [
            parameter_curve(
                LOOEstimate(model=model), Xtr, ytr, Xte, yte, kernel=RBF(), values=FIG2_GAMMAS
            ).assign(model=label)
            for label, model in FIG2_MODELS.items()
        ]
    )
    outdir.mkdir(parents=True, exist_ok=True)
    curves.to_csv(outdir / "fig2_australian.csv", index=False)
    fig = plot_parameter_curves(
        curves,
        by="model",
        title="Fischetti (2016) Fig. 2-3 on Australian (split 0): LOO estimate and test error "
        "vs gamma",
    )
    path = outdir / "fig2_australian.png"
    fig.savefig(path, dpi=120)
    return [path]
