"""Adankon, Cheriet, Ayat: Platt's empirical error tuned by gradient, full / approximate /
incremental, against 5-fold cross-validation on a grid.

The study's cells are Table 1's tuning runs: Ratsch's protocol on breast-cancer, diabetis (pima),
heart, thyroid and titanic, the kernel tuned on each of the first five splits by

- ``5-fold CV + grid``: the hinge-loss SVM, (C, gamma) on a 5 x 5 grid by 5-fold CV;
- ``Platt full + GD``: the empirical error on a 30% stratified holdout, its full gradient
  (bordered system, sigmoid's implicit term) in (log C, log gamma), projected Armijo descent;
- ``Platt approx + GD``: the same with the approximate gradient (their eq. 9) in log gamma,
  C fixed at 10 (the approximation has no C term);
- ``Platt incremental``: the approximate gradient with incremental learning (their Fig. 8).

Every descent starts at C = 10, gamma = 0.1 (standardized features).

    svmtune run studies/adankon.py

``figures`` then completes the paper's protocol and adds its other experiments
(``results/adankon/``):

- ``table1.csv`` / ``table1.md``: the median of each method's five tuned parameter sets, the
  SVM retrained with it on the first ``N_TEST_SPLITS`` splits, mean and sd of the test error,
  beside the paper's columns (5-fold CV from Ratsch et al., radius-margin and span bounds from
  Chapelle et al., their approach); the mean tuning CPU seconds and the ratio to the grid's;
- ``fig9.csv`` / ``fig9.png``: CPU seconds of the three Platt variants (C = 10, gamma tuned)
  against the training-set size on banana (500 ... 5000 points, three training sets each,
  medians plotted and printed with the ratio to the plain approximate-gradient run), with
  their test errors;
- ``anisotropic.csv``: one width per feature tuned by the full gradient, against an isotropic
  RBF kernel tuned by the grid, on heart, diabetis and breast-cancer (five splits each).

Thyroid: Ratsch's thyroid labels 65 of 215 rows positive (hyper- and hypothyroid); the bundled
KEEL new-thyroid1 labels only the 35 hyperthyroid rows positive, so the task is easier and
more unbalanced. The splits are new draws of Ratsch's sizes, not his files. The whole run
(cells and figures) takes about five minutes on two loaded cores.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd
from paper_tables import ADANKON_TABLE1
from threadpoolctl import threadpool_limits

from svmtune.datasets import load, ratsch_split
from svmtune.estimators import SVC
from svmtune.kernels import RBF, AnisotropicRBF
from svmtune.objectives import KFoldCV, PlattError
from svmtune.study import Method, Study, split_seed
from svmtune.tuners import GradientDescent, Grid, IncrementalGradient

DATASETS = {
    "Breast cancer": "breast-cancer",
    "Diabetes": "diabetis",
    "Heart": "heart",
    "Thyroid": "thyroid",
    "Titanic": "titanic",
}
START = {"C": 10.0, "gamma": 0.1}
FIXED_C = 10.0
N_TEST_SPLITS = 100  # Ratsch's and Chapelle's number of realizations

#: Table 1 of the paper: mean and sd of the test error (%).
PAPER = pd.DataFrame(
    {
        f"paper: {label}": [
            f"{ADANKON_TABLE1[name][j][0]:.2f}±{ADANKON_TABLE1[name][j][1]:.2f}"
            for name in DATASETS
        ]
        for j, label in enumerate(
            ("5-fold CV (Ratsch)", "radius-margin", "span bound", "their approach")
        )
    },
    index=pd.Index(list(DATASETS), name="dataset"),
)

METHODS = {
    "5-fold CV + grid": Method(KFoldCV(k=5), Grid(n_points=5), RBF()),
    "Platt full + GD": Method(PlattError(), GradientDescent(start=START), RBF()),
    "Platt approx + GD": Method(
        PlattError(C=FIXED_C, gradient="approx"),
        GradientDescent(start={"gamma": START["gamma"]}),
        RBF(),
    ),
    "Platt incremental": Method(
        PlattError(C=FIXED_C, gradient="approx"),
        IncrementalGradient(start={"gamma": START["gamma"]}),
        RBF(),
    ),
}

study = Study("adankon", datasets=DATASETS, split="ratsch", n_splits=5, seed=2006, methods=METHODS)


# -- Table 1: median parameters over the five tuning splits, tested on N_TEST_SPLITS splits ----
def _params_C(method: str, params: dict[str, float]) -> tuple[float, dict[str, float]]:
    C = float(params.get("C", FIXED_C))
    return C, {k: v for k, v in params.items() if k != "C"}


def table1(study: Study) -> pd.DataFrame:
    res = study.results()
    res = res[res["status"] == "ok"]
    rows = []
    grid_cpu = res[res["method"] == "5-fold CV + grid"].groupby("dataset")["cpu_s"].mean()
    for label, name in DATASETS.items():
        for method in METHODS:
            cells = res[(res["dataset"] == label) & (res["method"] == method)]
            if cells.empty:
                continue
            keys = sorted(cells["best_params"].iloc[0])
            median = {k: float(np.median([p[k] for p in cells["best_params"]])) for k in keys}
            C, kp = _params_C(method, median)
            errors = []
            for i in range(N_TEST_SPLITS):
                Xtr, ytr, Xte, yte = ratsch_split(name, split_seed(study.seed, label, i))
                clf = SVC(C=C, kernel=RBF(), kernel_params=kp).fit(Xtr, ytr)
                errors.append(100.0 * float(np.mean(clf.predict(Xte) != yte)))
            cpu = float(cells["cpu_s"].mean())
            rows.append(
                {
                    "dataset": label,
                    "method": method,
                    "test_error": float(np.mean(errors)),
                    "test_error_sd": float(np.std(errors, ddof=1)),
                    "C": C,
                    **{f"median_{k}": v for k, v in kp.items()},
                    "tuning_cpu_s": cpu,
                    "cpu_vs_grid": cpu / float(grid_cpu.get(label, np.nan)),
                    "evaluations": float(cells["n_evaluations"].mean()),
                }
            )
    return pd.DataFrame(rows)


def _markdown(df: pd.DataFrame) -> str:
    cols = [str(df.index.name or "")] + [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for idx, row in df.iterrows():
        lines.append("| " + " | ".join([str(idx)] + [str(v) for v in row]) + " |")
    return "\n".join(lines)


def _table1_text(t: pd.DataFrame) -> str:
    show = t.assign(
        err=[f"{m:.2f}±{s:.2f}" for m, s in zip(t.test_error, t.test_error_sd, strict=True)]
    )
    wide = show.pivot(index="dataset", columns="method", values="err")[list(METHODS)]
    ratio = t.pivot(index="dataset", columns="method", values="cpu_vs_grid")[list(METHODS)]
    out = wide.join(PAPER)
    lines = [
        "Test error (%), mean ± sd over the test splits; median of five tuned parameter sets",
        "",
    ]
    lines.append(_markdown(out))
    lines += [
        "",
        "Tuning CPU time relative to 5-fold CV + grid (mean over the five tuning splits)",
        "",
    ]
    lines.append(_markdown(ratio.round(3)))
    return "\n".join(lines) + "\n"


# -- Fig. 9: CPU time against the training-set size -------------------------------------------
FIG9_SIZES = (500, 1000, 2000, 3500, 5000)
FIG9_REPEATS = 3
FIG9_VARIANTS = {
    "full gradient": (PlattError(C=FIXED_C, gradient="full"), GradientDescent),
    "approx gradient": (PlattError(C=FIXED_C, gradient="approx"), GradientDescent),
    "approx + incremental": (PlattError(C=FIXED_C, gradient="approx"), IncrementalGradient),
}


def fig9(
    seed: int = 2006, sizes: tuple[int, ...] = FIG9_SIZES, repeats: int = FIG9_REPEATS
) -> pd.DataFrame:
    """One row per (size, repeat, variant); each repeat draws its own training set."""
    X, y = load("banana")
    rows = []
    for n, rep in ((n, r) for n in sizes for r in range(repeats)):
        rng = np.random.default_rng([seed, n, rep])
        idx = rng.permutation(y.size)
        tr, te = idx[:n], idx[n:]
        mu, sd = X[tr].mean(axis=0), X[tr].std(axis=0)
        Xtr, Xte = (X[tr] - mu) / sd, (X[te] - mu) / sd
        for label, (objective, tuner_cls) in FIG9_VARIANTS.items():
            tuner = tuner_cls(start={"gamma": START["gamma"]})
            t0 = time.process_time()
            res = tuner.tune(objective, Xtr, y[tr], kernel=RBF(), random_state=seed)
            cpu = time.process_time() - t0
            rows.append(
                {
                    "n_train": n,
                    "repeat": rep,
                    "variant": label,
                    "cpu_s": cpu,
                    "evaluations": len(res.trace),
                    "gamma": res.best_params["gamma"],
                    "test_error": 100.0 * res.best_classifier.error(Xte, y[te]),
                }
            )
    return pd.DataFrame(rows)


# -- many parameters: one width per feature --------------------------------------------------
ANISO_SETS = {"Heart": "heart", "Diabetes": "diabetis", "Breast cancer": "breast-cancer"}


def anisotropic(seed: int = 2006, n_splits: int = 5) -> pd.DataFrame:
    rows = []
    for label, name in ANISO_SETS.items():
        for i in range(n_splits):
            Xtr, ytr, Xte, yte = ratsch_split(name, split_seed(seed, label, i))
            d = Xtr.shape[1]
            runs = {
                "isotropic RBF, 5-fold CV + grid": (KFoldCV(k=5), Grid(n_points=5), RBF()),
                "anisotropic RBF, Platt full + GD": (
                    PlattError(),
                    GradientDescent(
                        start={"C": START["C"], **{f"gamma_{f}": START["gamma"] for f in range(d)}}
                    ),
                    AnisotropicRBF(n_features=d),
                ),
            }
            for method, (objective, tuner, kernel) in runs.items():
                t0 = time.process_time()
                res = tuner.tune(objective, Xtr, ytr, kernel=kernel, random_state=i)
                cpu = time.process_time() - t0
                rows.append(
                    {
                        "dataset": label,
                        "split": i,
                        "method": method,
                        "n_params": len(res.best_params),
                        "test_error": 100.0 * res.best_classifier.error(Xte, yte),
                        "cpu_s": cpu,
                        "evaluations": len(res.trace),
                    }
                )
    return pd.DataFrame(rows)


def figures(study: Study, outdir: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    outdir.mkdir(parents=True, exist_ok=True)
    paths = []
    with threadpool_limits(1):
        t1 = table1(study)
        t1.to_csv(outdir / "table1.csv", index=False)
        (outdir / "table1.md").write_text(_table1_text(t1))
        print(_table1_text(t1))
        paths += [outdir / "table1.csv", outdir / "table1.md"]

        f9 = fig9(study.seed)
        f9.to_csv(outdir / "fig9.csv", index=False)
        med = (
            f9.groupby(["n_train", "variant"], sort=False)[["cpu_s", "evaluations", "test_error"]]
            .median()
            .reset_index()
        )
        base = med[med["variant"] == "approx gradient"].set_index("n_train")["cpu_s"]
        med["cpu_vs_approx"] = med["cpu_s"] / med["n_train"].map(base)
        print("Fig. 9 (banana), medians over", FIG9_REPEATS, "training sets")
        print(med.round(4).to_string(index=False))
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
        for label, part in med.groupby("variant", sort=False):
            ax1.plot(part["n_train"], part["cpu_s"], marker="o", label=label)
            ax2.plot(part["n_train"], part["test_error"], marker="o", label=label)
        ax1.set(xlabel="training points (banana)", ylabel="tuning CPU seconds", title="Fig. 9")
        ax2.set(xlabel="training points (banana)", ylabel="test error (%)")
        ax1.legend()
        fig.tight_layout()
        fig.savefig(outdir / "fig9.png", dpi=120)
        plt.close(fig)
        paths += [outdir / "fig9.csv", outdir / "fig9.png"]

        an = anisotropic(study.seed)
        an.to_csv(outdir / "anisotropic.csv", index=False)
        summary = an.groupby(["dataset", "method"])[["test_error", "cpu_s", "n_params"]].agg(
            ["mean", "std"]
        )
        print(summary.round(3).to_string())
        paths.append(outdir / "anisotropic.csv")
    return paths
