"""Which tuning route at which budget, on 3,000 to 200,000 training points?

The main benchmark (``studies/benchmark.py``) caps its problems at 600 rows, so every method
finishes in seconds. This study tunes on the full sets: an RBF-kernel SVM on the training part
of Fischetti's split (each point to the training part with probability 0.7, features
standardized with the training part's statistics), measured by its test error rate.

Problems (:data:`PROBLEMS`, cheapest first; nothing below 3,000 training points is subsampled):

- 12 bundled KEEL sets of at least 4,500 rows (about 3,200 to 14,000 training points), each
  whole, with the main suite's binary task (``-halves``: the first ceil(k/2) classes +1):
  spambase, banana, page-blocks0, texture-halves, optdigits-eo, mushroom, sat-halves,
  market-halves, twonorm, ring, penbased-eo, letter-halves;
- the size ladder: Breiman's generators (:func:`svmtune.datasets.generate`) twonorm,
  ringnorm and waveform (:data:`LADDER`) at 500, 2,000, 8,000 and 30,000 training points
  (:data:`LADDER_SIZES`). A generated problem draws ``ceil(n_train / 0.7)`` points from a seed
  fixed by its name, so the split's training part holds ``n_train`` points give or take a few
  dozen. 200,000 points are not run: ``benchmarks/large_sizing.py`` gives what they would need
  (a peer's search about 19 hours).

Methods (:data:`METHODS`), all in the main benchmark's box (``C`` in [0.1, 1000], ``gamma`` in
[0.001, 10], log scale) with 25 evaluations where a count applies: 5-fold CV by grid, TPE
(pruned and not) and VNS; the cascade; successive halving; Fischetti's LOO_2 / LOO_3 by
bisection over gamma; Platt's holdout error by gradient descent; ``TunedSVC()``'s defaults
(5-fold CV on its 5 x 5 grid; not run by default and named in :data:`LEFT_OUT`: the same 25
evaluations on the same folds as ``CV grid 25``); and the peers over ``sklearn.svm.SVC``:
``GridSearchCV``, ``RandomizedSearchCV``, ``HalvingGridSearchCV`` and (with the ``peers`` extra)
``OptunaSearchCV``. Every k-fold method of a (problem, split) cross-validates on the same
shared stratified folds (:mod:`svmtune.study.run._folds`), as in the main benchmark.

Budget: every tuning run is stopped at :data:`BUDGET_S` CPU seconds of its process (the
study's ``max_cpu_seconds``, :func:`svmtune.tuners.cpu_budget`, checked between evaluations;
the run's set-up included): svmtune's tuners stop there and keep their anytime trace (the cell
is stored with status ``"timeout"`` and the best values found until then); a peer cannot be
stopped part-way, so a peer that runs past it is stored with its values and status
``"timeout"``, never dropped. Above :data:`PEERS_MAX_N` training points the peers that run a
whole search (all but ``HalvingGridSearchCV``) are stored as over budget with the CPU seconds
they would need, not run. An evaluation in progress is not interrupted.

The pre-planned baseline: :data:`BASELINE`, ``GridSearchCV 25`` (what users reach for), named
before the study runs.

The full run (24 problems x 1 split x 13 methods = 312 cells; sized by
``benchmarks/large_sizing.py`` from measured costs of one evaluation at about 7.3 CPU hours; it
billed 6.7 CPU hours and its cells ran during 5.1 hours of wall time on two cores:
docs/benchmark-large.md and its report, docs/benchmark-large/report.md)::

    nice -n 5 svmtune run studies/benchmark_large.py --n-jobs 2

``SVMTUNE_LARGE_DATASETS`` keeps the first ``n`` problems, ``SVMTUNE_LARGE_SPLITS`` the first
splits (default 1), ``SVMTUNE_LARGE_METHODS`` (names separated by ``;``) only the methods named,
``SVMTUNE_LARGE_BUDGET_S`` sets the budget. ``SVMTUNE_LARGE_SMOKE=1`` is the reduced form CI
runs: two generated problems of 300 training points, a 20 s budget.
"""

import math
import os
from dataclasses import dataclass

import large_verdict  # beside this file: the verdict at budgets and the size ladder
import numpy as np
from optuna.pruners import SuccessiveHalvingPruner
from scipy.stats import loguniform
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.model_selection import GridSearchCV, HalvingGridSearchCV, RandomizedSearchCV
from sklearn.svm import SVC

from svmtune.datasets import GENERATORS, generate, n_rows
from svmtune.kernels import RBF
from svmtune.objectives import KFoldCV, LOOEstimate, PlattError
from svmtune.study import Method, PeerMethod, Study
from svmtune.tuners import TPE, VNS, Bisection, Cascade, GradientDescent, Grid, SuccessiveHalving

#: The split's training share (Fischetti's protocol: each point with probability 0.7).
TRAIN_SHARE = 0.7


@dataclass(frozen=True)
class Generated:
    """A study's loader of one of Breiman's problems with about ``n_train`` training points:
    ``ceil(n_train / 0.7)`` points drawn from a seed fixed by the name and size."""

    name: str
    n_train: int

    @property
    def n_rows(self) -> int:
        return math.ceil(self.n_train / TRAIN_SHARE)

    def __call__(self) -> tuple[np.ndarray, np.ndarray]:
        seed = list(GENERATORS).index(self.name) * 1_000_003 + self.n_train
        return generate(self.name, n=self.n_rows, seed=seed)


#: The bundled KEEL tasks of at least 4,500 rows (3,000 training points or more), whole.
KEEL = (
    "spambase", "banana", "page-blocks0", "texture-halves", "optdigits-eo", "mushroom",
    "sat-halves", "market-halves", "twonorm", "ring", "penbased-eo", "letter-halves",
)  # fmt: skip
#: The size ladder: these generators at these training sizes (sized by
#: benchmarks/large_sizing.py to fit about 3 hours on 2 cores; 200,000 is not run, the sizing
#: script reports what it would need).
LADDER = ("twonorm", "ringnorm", "waveform")
LADDER_SIZES = (500, 2_000, 8_000, 30_000)

SMOKE = os.environ.get("SVMTUNE_LARGE_SMOKE", "") == "1"
if SMOKE:  # the reduced form CI runs
    PROBLEMS: dict = {f"{g}-300": Generated(g, 300) for g in ("twonorm", "waveform")}
else:
    PROBLEMS = {name: name for name in KEEL}
    PROBLEMS.update({f"{g}-{n}": Generated(g, n) for n in LADDER_SIZES for g in LADDER})


def _rows(spec) -> int:
    return spec.n_rows if isinstance(spec, Generated) else n_rows(spec)


PROBLEMS = dict(sorted(PROBLEMS.items(), key=lambda kv: (_rows(kv[1]), kv[0])))

N_DATASETS = int(os.environ.get("SVMTUNE_LARGE_DATASETS", len(PROBLEMS)))
N_SPLITS = int(os.environ.get("SVMTUNE_LARGE_SPLITS", 1))
BUDGET_S = float(os.environ.get("SVMTUNE_LARGE_BUDGET_S", 20 if SMOKE else 600))
if not (2 <= N_DATASETS <= len(PROBLEMS)) or N_SPLITS < 1 or not BUDGET_S > 0:
    raise ValueError(
        f"SVMTUNE_LARGE_DATASETS must be in [2, {len(PROBLEMS)}], SVMTUNE_LARGE_SPLITS and "
        f"SVMTUNE_LARGE_BUDGET_S positive; got {N_DATASETS}, {N_SPLITS}, {BUDGET_S}"
    )
#: The pre-planned baseline: what most users run.
BASELINE = "GridSearchCV 25"

#: The main benchmark's box (log scale) and its 5 x 5 grid.
BOX = {"C": (0.1, 1000.0), "gamma": (0.001, 10.0)}
GRID = {k: np.geomspace(lo, hi, 5).tolist() for k, (lo, hi) in BOX.items()}
CENTRE = {k: float(np.sqrt(lo * hi)) for k, (lo, hi) in BOX.items()}
KERNEL = RBF(gamma_bounds=BOX["gamma"])
CV = KFoldCV(k=5)
EVALS = 25


#: One scikit-learn ``SVC`` fit on ``n`` points takes about ``exp(a) * n**b`` CPU seconds on the
#: box (the mean over its settings; ``benchmarks/large_sizing.py`` fitted it on 2,000 to 16,000
#: points of twonorm and ringnorm).
SVC_FIT_CPU = (-16.69, 1.91)
#: The peers that run a whole search (GridSearchCV, RandomizedSearchCV, OptunaSearchCV; not
#: HalvingGridSearchCV) are not run above this many training points: there their 126 fits need
#: at least 2.7 times the budget (1,650 CPU s at 30,000 points by the fitted power law, an
#: underestimate: a GridSearchCV 25 run on ringnorm at 30,135 training points had used more
#: than 5,000 CPU s, unfinished, when it was stopped), so they answer at none of the verdict's
#: budgets; HalvingGridSearchCV (about 200 CPU s there) gives a peer's answer at that size.
PEERS_MAX_N = 20_000


def _fit_need(n_fits: int, n: int) -> float:
    """Extrapolated CPU seconds of ``n_fits`` SVC fits on 4/5 of ``n`` points (5-fold CV)."""
    a, b = SVC_FIT_CPU
    return n_fits * math.exp(a) * (0.8 * n) ** b


def _over_budget_above(search_class: type, max_n: int) -> type:
    """``search_class`` whose ``fit`` refuses more than ``max_n`` points, with the CPU seconds
    its search would need there (the cell is stored failed with that record, not dropped)."""

    class OverBudgetAbove(search_class):  # type: ignore[misc,valid-type]
        def fit(self, X, y=None, **kwargs):
            n = len(X)
            if n > max_n:
                need = _fit_need(5 * EVALS + 1, n)
                raise ValueError(
                    f"over budget, not run: {n} training points > {max_n}; its {5 * EVALS + 1} "
                    f"SVC fits need about {need:,.0f} CPU s there, {need / BUDGET_S:.1f} times "
                    f"the budget of {BUDGET_S:g} s (extrapolated from fits on 2,000 to 16,000 "
                    "points, benchmarks/large_sizing.py; an underestimate at 30,000 points, "
                    "where a GridSearchCV run on ringnorm had used more than 5,000 CPU s, "
                    "unfinished, when it was stopped)"
                )
            return super().fit(X, y, **kwargs)

    OverBudgetAbove.__name__ = OverBudgetAbove.__qualname__ = f"{search_class.__name__}UpTo{max_n}"
    return OverBudgetAbove


def _bisection() -> Bisection:
    return Bisection(low=BOX["gamma"][0], high=BOX["gamma"][1], log=True, tol=0.05, max_evals=25)


METHODS: dict[str, Method] = {
    "CV grid 25": Method(CV, Grid(values=GRID, max_evals=EVALS), KERNEL),
    "CV TPE 25": Method(CV, TPE(bounds=BOX, max_evals=EVALS), KERNEL),
    "CV TPE pruned 25": Method(
        CV, TPE(bounds=BOX, max_evals=EVALS, pruner=SuccessiveHalvingPruner()), KERNEL
    ),
    "CV VNS 25": Method(CV, VNS(bounds=BOX, max_evals=EVALS), KERNEL),
    "CV cascade": Method(CV, Cascade(bounds=BOX), KERNEL),
    "CV halving 25": Method(CV, SuccessiveHalving(values=GRID), KERNEL),
    "LOO_2 + bisection": Method(LOOEstimate(model="loo2"), _bisection(), KERNEL),
    "LOO_3 + bisection": Method(LOOEstimate(model="loo3"), _bisection(), KERNEL),
    "Platt + gradient": Method(
        PlattError(), GradientDescent(start=CENTRE, max_evals=EVALS), KERNEL
    ),
    # TunedSVC()'s parts: 5-fold CV on Grid(n_points=5) over the default box (the same box)
    "TunedSVC defaults": Method(KFoldCV(k=5), Grid(n_points=5), RBF()),
    "GridSearchCV 25": PeerMethod(_over_budget_above(GridSearchCV, PEERS_MAX_N)(SVC(), GRID, cv=5)),
    "RandomizedSearchCV 25": PeerMethod(
        _over_budget_above(RandomizedSearchCV, PEERS_MAX_N)(
            SVC(),
            {"C": loguniform(*BOX["C"]), "gamma": loguniform(*BOX["gamma"])},
            n_iter=EVALS,
            cv=5,
        )
    ),
    "HalvingGridSearchCV 25": PeerMethod(HalvingGridSearchCV(SVC(), GRID, cv=5)),
}

#: Methods this file cannot define on this installation, and why (svmtune run names them).
LEFT_OUT: dict[str, str] = {}
try:
    import optuna
    from optuna.distributions import FloatDistribution
    from optuna_integration import OptunaSearchCV
except ImportError:  # the optional extra "peers" is not installed: say so, in the run's output
    LEFT_OUT["OptunaSearchCV 25"] = "needs optuna-integration: pip install 'svmtune[peers]'"
else:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    METHODS["OptunaSearchCV 25"] = PeerMethod(
        _over_budget_above(OptunaSearchCV, PEERS_MAX_N)(
            SVC(),
            {k: FloatDistribution(lo, hi, log=True) for k, (lo, hi) in BOX.items()},
            n_trials=EVALS,
            cv=5,
            n_jobs=1,
        )
    )

KEEP = [m.strip() for m in os.environ.get("SVMTUNE_LARGE_METHODS", "").split(";") if m.strip()]
if not KEEP:  # by default not run: the same 25 evaluations as "CV grid 25" (sizing)
    del METHODS["TunedSVC defaults"]
    LEFT_OUT["TunedSVC defaults"] = (
        "not run by default: TunedSVC()'s 5-fold CV on Grid(n_points=5) over the same box "
        "evaluates the same 25 points on the same folds as 'CV grid 25' (name it in "
        "SVMTUNE_LARGE_METHODS to run it)"
    )
if SMOKE and not KEEP:
    KEEP = ["GridSearchCV 25", "CV grid 25", "CV cascade", "LOO_2 + bisection"]
if KEEP:
    unknown = [m for m in KEEP if m not in METHODS and m not in LEFT_OUT]
    if unknown:
        raise ValueError(
            f"SVMTUNE_LARGE_METHODS names {unknown}, not methods of the large benchmark; "
            f"they are {list(METHODS)}"
        )
    METHODS = {k: v for k, v in METHODS.items() if k in KEEP}
    LEFT_OUT = {k: v for k, v in LEFT_OUT.items() if k in KEEP}

study = Study(
    "benchmark_large_smoke" if SMOKE else "benchmark_large",
    datasets=dict(list(PROBLEMS.items())[:N_DATASETS]),
    split="fischetti",
    n_splits=N_SPLITS,
    seed=2027,
    methods=METHODS,
    baseline=BASELINE,
    left_out=LEFT_OUT,
    max_cpu_seconds=BUDGET_S,
)

#: The CPU budgets of the verdict (seconds of a tuning run; those within the study's budget).
VERDICT_BUDGETS = tuple(b for b in (10.0, 60.0, 600.0) if b <= BUDGET_S) or (BUDGET_S,)
#: The ladder's problems and their nominal training sizes.
LADDER_PROBLEMS = {k: v.n_train for k, v in PROBLEMS.items() if isinstance(v, Generated)}
#: Each svmtune search against the peer that searches the same points (the report's cost ratios).
COST_PAIRS = {
    "CV grid 25": "GridSearchCV 25",
    "CV TPE 25": "OptunaSearchCV 25",
    "CV TPE pruned 25": "OptunaSearchCV 25",
    "CV halving 25": "HalvingGridSearchCV 25",
}

#: Where the time went is told by KEEL set and by the ladder's rung.
GROUPS = {k: f"ladder, {n:,} points" for k, n in LADDER_PROBLEMS.items()}


def _peers() -> set[str]:
    return {name for name, m in METHODS.items() if isinstance(m, PeerMethod)}


def verdict_at_budgets(cells, traces, budgets=VERDICT_BUDGETS):
    """Mean test error (percent) of each method's answer at each CPU budget, and how many of
    its runs had one: a table indexed by method, columns ``error_<B>s`` and ``answered_<B>s``.

    A svmtune run's answer at ``B`` seconds is the incumbent of its anytime trace after the
    last evaluation finished within ``B`` CPU seconds (``incumbent_test_error``; a cascade's
    screen names none). A peer cannot be stopped part-way: it answers at ``B`` only if its
    whole run took at most ``B`` CPU seconds. A run without an answer at ``B`` is left out of
    that budget's mean and counted in ``answered``, so compare methods on ``answered`` too
    (``budget_verdict.csv`` ranks it last).
    """
    return large_verdict.at_budgets(
        large_verdict.answers(cells, traces, peers=_peers(), budgets=budgets)
    )


def size_ladder(cells):
    """Each method's slope of log CPU seconds on log training size over the generated problems
    (ordinary least squares over every finished cell; NaN with fewer than two sizes), with the
    mean test error (percent) and CPU seconds at each training size (``n_train`` rounded to the
    problem's nominal size)."""
    return large_verdict.size_ladder(cells, LADDER_PROBLEMS)


def problem_table(cells):
    """The problems run: training and test points (the first split's), features, provenance."""
    import pandas as pd

    from svmtune.datasets import dataset_info, generator_table

    gens = generator_table().set_index("name")
    first = cells.sort_values("split").groupby("dataset")[["n_train", "n_test"]].first()
    rows = []
    for name, spec in PROBLEMS.items():
        if name not in first.index:
            continue
        if isinstance(spec, Generated):
            g = gens.loc[spec.name]
            source = f"Breiman's {spec.name} generator ({g['definition']}), {spec.n_rows} points"
            d = int(g["features"])
        else:
            info = dataset_info(spec)
            d, source = (
                info.features,
                f"{info.papers}, bundled; positive class {info.positive_class}",
            )
        rows.append({"problem": name, **first.loc[name].astype(int).to_dict(), "features": d,
                     "provenance": source})  # fmt: skip
    return pd.DataFrame(rows).set_index("problem")


def figures(study, outdir):
    """The problems, the verdict at budgets and the size ladder: CSV tables, the ladder's
    figure, and their sections at the end of ``report.md``."""
    from pathlib import Path

    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    cells, traces = study.results(), study.traces()
    # the answers at the verdict's budgets and at a fine grid of them for the rank figure
    grid = np.geomspace(1.0, BUDGET_S, 21).round(2)
    every = large_verdict.answers(
        cells, traces, peers=_peers(), budgets=sorted({*grid, *VERDICT_BUDGETS})
    )
    answered = every[every["budget"].isin(VERDICT_BUDGETS)]
    verdict = large_verdict.budget_verdict(answered, baseline=BASELINE)
    ladder = size_ladder(cells)
    problems = problem_table(cells)
    ratios = large_verdict.cost_ratios(cells, COST_PAIRS)
    paths = []
    for name, table in (
        ("verdict_at_budgets", large_verdict.at_budgets(answered)),
        ("size_ladder", ladder),
        ("budget_verdict", verdict),
        ("problems", problems),
        ("cost_ratios", ratios),
    ):
        print(table.round(3).to_string())
        path = outdir / f"{name}.csv"
        table.to_csv(path, float_format="%.6g")
        paths.append(path)
    figure = None
    if ladder.filter(like="cpu_s_").shape[1] >= 2:  # two sizes or more
        fig = large_verdict.ladder_figure(cells, LADDER_PROBLEMS, budget=BUDGET_S)
        for ext in ("png", "pdf"):
            fig.savefig(outdir / f"size_ladder.{ext}", dpi=150)
            paths.append(outdir / f"size_ladder.{ext}")
        figure = "size_ladder.png"
    curves = large_verdict.rank_curves(every[every["budget"].isin(grid)])
    curves.to_csv(outdir / "rank_at_budgets.csv", float_format="%.6g")
    paths.append(outdir / "rank_at_budgets.csv")
    fig = large_verdict.rank_figure(curves, budget=BUDGET_S)
    for ext in ("png", "pdf"):
        fig.savefig(outdir / f"rank_at_budgets.{ext}", dpi=150)
        paths.append(outdir / f"rank_at_budgets.{ext}")
    text = "\n".join(
        ["## Problems", "", f"Budget: {BUDGET_S:g} CPU seconds per tuning run.", "",
         large_verdict.to_markdown(problems), "",
         large_verdict.report_sections(verdict, ladder, baseline=BASELINE, figure=figure,
                                       rank_figure="rank_at_budgets.png"),
         large_verdict.cost_section(ratios),
         large_verdict.time_spent(cells, by=GROUPS)]
    )  # fmt: skip
    large_verdict.append_to_report(outdir / "report.md", text, marker="## Problems")
    large_verdict.point_to_budget_verdict(outdir / "report.md")
    return paths
