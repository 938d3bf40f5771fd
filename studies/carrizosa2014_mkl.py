"""Carrizosa, Martin-Barragan and Romero Morales (2014), Tables 4 and 5: nested VNS on
multiple-kernel models of the UCI multiple-features digits.

The paper's protocol (its Sections 3.1 and 3.3, from Gonen and Alpaydin 2011):

- data: the tasks ``mfeatEO4``, ``mfeatEO6``, ``mfeatSL4``, ``mfeatSL6`` (even vs odd, digits
  0-4 vs 5-9; views fou, kar, pix, zer, plus fac and mor for the 6-view tasks), bundled as
  :func:`svmtune.datasets.load`; each realization a random 2/3-1/3 training/test split (1333 /
  667 points), standardized with the training part's statistics;
- objective: the 5 x 2-fold CV error (:class:`~svmtune.objectives.RepeatedKFoldCV`);
- models, one base-kernel group per view, all parameters on a log2 scale:

  - ``(7) linear``: model (10), one linear kernel per view, ``T`` weights, nested from the one
    common weight of (11) (Table 4);
  - ``(7) RBF``: model (13), three RBF kernels per view at ``sigma = d_t/4, d_t, 4 d_t`` (the
    paper's eq. (12) divides the squared distance by ``sigma``, so ``gamma = 1 / sigma``),
    ``3T`` weights, nested from the common weight of (14) (Table 5, left);
  - ``(8)``: one weight and one tuned width per view, ``2T`` parameters, nested from one
    common weight and width (Table 5, right);

- tuner: nested VNS (Algorithm 2) with the paper's ``m_1 = 100``, ``m_2 = 500``, ``k_max = 25``,
  ``r_k = k`` (in log2 units), a random first point.

The box (the paper does not state one for these models): weights and widths in
``[2^-12, 2^12]``, the range of the paper's grid remark; linear weights up to ``2^6`` (beyond, a
linear SVM on these separable data is hard-margin already, and SMO only slows down).

    python studies/carrizosa2014_mkl.py                  # run or resume, then write the page
    python studies/carrizosa2014_mkl.py --splits 1        # the first realization only
    python studies/carrizosa2014_mkl.py --no-run          # the page from the stored cells

Cells are stored in ``results/carrizosa2014-mkl.db`` (two studies: the 4-view and the 6-view
tasks, whose kernels differ) and resume; the run goes realization by realization, so a stopped
run leaves whole realizations. ``--page`` rewrites this part's section of
``docs/reproductions.md`` in place (``studies/reproductions.py`` writes the same section when it
writes the whole page); ``results/carrizosa2014_mkl.csv`` holds the table.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from svmtune.datasets import load_groups
from svmtune.kernels import MultipleKernel
from svmtune.objectives import RepeatedKFoldCV
from svmtune.study import Method, Study
from svmtune.tuners import NestedVNS

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from paper_tables import CARRIZOSA_TABLE4, CARRIZOSA_TABLE5  # noqa: E402

TASKS = {4: ("mfeatEO4", "mfeatSL4"), 6: ("mfeatEO6", "mfeatSL6")}
N_SPLITS = 5
N_TRAIN = 1333  # the paper's Table 2: 2/3 of 2000
M = (100, 500)
CV = RepeatedKFoldCV(k=2, repeats=5)
BOUNDS = (2.0**-12, 2.0**12)
LINEAR_WEIGHT_BOUNDS = (2.0**-12, 2.0**6)
MODELS = ("(7) linear", "(7) RBF", "(8)")
HEADING = "## Carrizosa, Martin-Barragan, Romero Morales (2014), Tables 4-5: nested VNS, MKL"
COMMAND = "python studies/carrizosa2014_mkl.py"


def two_thirds_split(X, y, seed):
    """A random 2/3-1/3 split (``N_TRAIN`` training points), standardized with the training
    part's mean and sd (a constant column is only centred, so the views keep their columns)."""
    idx = np.random.default_rng(seed).permutation(len(y))
    tr, te = idx[:N_TRAIN], idx[N_TRAIN:]
    mean, sd = X[tr].mean(axis=0), X[tr].std(axis=0)
    sd[sd == 0] = 1.0
    return (X[tr] - mean) / sd, y[tr], (X[te] - mean) / sd, y[te]


def methods(n_views: int, m: tuple[int, int] = M) -> dict[str, Method]:
    """The three models of Tables 4-5 on the views of the ``n_views``-view tasks."""
    groups = [g.tolist() for g in load_groups(TASKS[n_views][0])]
    linear = MultipleKernel(
        groups, base="linear", form="weights", weight_bounds=LINEAR_WEIGHT_BOUNDS
    )
    rbf7 = MultipleKernel(groups, base="rbf", form="weights", weight_bounds=BOUNDS)
    rbf8 = MultipleKernel(
        groups, base="rbf", form="weights_widths", weight_bounds=BOUNDS, gamma_bounds=BOUNDS
    )
    # Widths: the whole box at both levels (the default box would narrow gamma to 1e-3..10).
    widths = {"gamma": BOUNDS, **{f"gamma_{t}": BOUNDS for t in range(len(groups))}}

    def tuner(bounds=None):
        return NestedVNS(m=m, step=1.0, k_max=25, start="random", bounds=bounds)

    return {
        "(7) linear": Method(CV, tuner(), linear),
        "(7) RBF": Method(CV, tuner(), rbf7),
        "(8)": Method(CV, tuner(widths), rbf8),
    }


def make_studies(
    storage: str | None = None, *, n_splits: int = N_SPLITS, m: tuple[int, int] = M
) -> dict[int, Study]:
    """The 4-view and the 6-view study (one kernel per method, so one study per view set)."""
    return {
        v: Study(
            f"carrizosa2014-mkl-{v}",
            datasets=list(TASKS[v]),
            split=two_thirds_split,
            n_splits=n_splits,
            seed=2014,
            storage=storage,
            methods=methods(v, m),
        )
        for v in TASKS
    }


#: ``svmtune run studies/carrizosa2014_mkl.py`` runs the 4-view study; the 6-view one is
#: ``make_studies()[6]`` (the command at the top runs both).
study = make_studies()[4]


def run(studies: dict[int, Study], *, n_jobs: int) -> None:
    """Realization by realization, both studies (so a stopped run leaves whole realizations)."""
    target = max(s.n_splits for s in studies.values())
    for n in range(1, target + 1):
        for s in studies.values():
            s.n_splits = n
            t0 = time.perf_counter()
            s.run(n_jobs=n_jobs, progress=True)
            print(f"{s.name}: {n}/{target} realizations ({time.perf_counter() - t0:.0f} s)")


def results(studies: dict[int, Study]) -> pd.DataFrame:
    """The stored ok cells of both studies, within each study's ``n_splits``."""
    parts = []
    for s in studies.values():
        try:
            r = s.results()
        except Exception:  # no database yet
            continue
        if len(r):
            parts.append(r[(r["status"] == "ok") & (r["split"] < s.n_splits)])
    if not parts:
        return pd.DataFrame(columns=["dataset", "split", "method", "status", "test_error"])
    return pd.concat(parts, ignore_index=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", type=Path, default=HERE.parent / "results")
    ap.add_argument("--page", type=Path, default=HERE.parent / "docs" / "reproductions.md")
    ap.add_argument("--splits", type=int, default=N_SPLITS)
    ap.add_argument("--n-jobs", type=int, default=int(os.environ.get("SVMTUNE_JOBS", "2")))
    ap.add_argument("--no-run", action="store_true", help="write the page from stored cells")
    args = ap.parse_args(argv)
    args.results.mkdir(parents=True, exist_ok=True)
    storage = f"sqlite:///{args.results.resolve() / 'carrizosa2014-mkl'}.db"
    studies = make_studies(storage, n_splits=args.splits)
    if not args.no_run:
        run(studies, n_jobs=args.n_jobs)
    res = results(studies)
    table(res).to_csv(args.results / "carrizosa2014_mkl.csv", index=False)
    write_section(args.page, section(res, n_splits=args.splits))
    print(f"wrote {args.page} and {args.results / 'carrizosa2014_mkl.csv'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
