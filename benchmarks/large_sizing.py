"""What one evaluation of each route of the large benchmark costs, and what its run will take.

``measure`` times, on Breiman's twonorm and ringnorm (:func:`svmtune.datasets.generate`,
features standardized) at a few training sizes, one evaluation of each route the large
benchmark (``studies/benchmark_large.py``) runs (:data:`ROUTES`): a 5-fold CV evaluation
(svmtune's SMO, cold folds) at several ``(C, gamma)`` of the box, an LOO_2 evaluation, one
Platt gradient step (holdout error and its gradient; skipped above its memory limit), and one
fit of scikit-learn's ``SVC`` on all points (the unit of the peers' searches: a peer's 5-fold
search of 25 candidates is 125 fits on 4/5 of the points plus one refit). It appends to
``--out`` and fits, per route, the slope of log CPU seconds on log n. CPU seconds are process
CPU time of one process on a loaded, shared 2-core machine: read them as orders of magnitude.

``estimate`` reads the measured table and prints the sized study's expected CPU per problem
(the table in docs/benchmark-large.md): each run needs its route's evaluations (:data:`WORK`)
times the extrapolated cost of one; a svmtune run is billed at most the budget plus the
evaluation in progress, a peer all it needs (it cannot stop; its study record says
``timeout``), a peer the study refuses at that size nothing (its need is reported).

``against`` prints that expectation beside a stored run of the study (``--storage``): per
problem the cells stored, the CPU seconds they were billed and measured / expected where all
of its cells are stored.

``benchmarks/large_sizing_measured.csv`` was made by (the 16,000-point runs on twonorm only;
the bundled sets whole, their training part: ``--sizes`` is ignored for them)::

    R="cv5_C10_g1 cv5_C1000_g1 cv5_C1000_g0.02 cv5_C1000_g200 loo2 svc_C10_g1 svc_C1000_g1
       svc_C1000_g0.02 svc_C1000_g200"
    S=benchmarks/large_sizing.py OUT=benchmarks/large_sizing_measured.csv
    python $S measure --sizes 2000 4000 --routes $R platt_gradient --out $OUT
    python $S measure --sizes 8000 --routes $R --out $OUT
    python $S measure --sizes 16000 --problems twonorm --routes $R --out $OUT
    python $S measure --sizes 2000 4000 8000 16000 --problems twonorm \
        --routes cv5_C1000_g20 svc_C1000_g20 cv5_C0.1_g1 svc_C0.1_g1 --out $OUT
    python $S measure --sizes 0 --problems spambase banana sat-halves penbased-eo letter-halves \
        --routes cv5_C10_g1 cv5_C1000_g1 cv5_C1000_g20 svc_C10_g1 svc_C1000_g1 svc_C1000_g20 \
        --out $OUT
    python $S estimate --measured $OUT
    python $S against --measured $OUT --storage sqlite:///results/benchmark_large.db
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from svmtune.datasets import GENERATORS, generate, load
from svmtune.kernels import RBF
from svmtune.objectives import KFoldCV, LOOEstimate, PlattError

#: Routes timed: ``cv5`` (one 5-fold CV evaluation) and ``svc`` (one ``SVC`` fit on all points)
#: at ``C`` and ``gamma`` (``g`` times ``1 / d``: 1 is the features' scale; the box's corners
#: ``gamma = 0.001`` and ``10`` are about ``g = 0.02`` and ``200`` on Breiman's 20 features),
#: one LOO_2 evaluation and one Platt gradient step at ``C = 10, g = 1``.
ROUTES = (
    "cv5_C10_g1", "cv5_C1000_g1", "cv5_C1000_g0.02", "cv5_C1000_g200", "loo2", "platt_gradient",
    "svc_C10_g1", "svc_C1000_g1", "svc_C1000_g0.02", "svc_C1000_g200",
)  # fmt: skip


def _c_g(route: str) -> tuple[float, float]:
    _, c, g = route.split("_")
    return float(c[1:]), float(g[1:])


def _cpu(f) -> float:
    t = time.process_time()
    f()
    return time.process_time() - t


def _evaluate(bound, params: dict) -> None:
    try:
        ev = bound.evaluate(params)
    except ValueError:  # an objective that does not search C (LOO estimates over gamma)
        ev = bound.evaluate({k: v for k, v in params.items() if k != "C"})
    if not ev.ok:
        raise RuntimeError(f"failed evaluation at {params}: {ev.error}")


def _data(problem: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` generated points of one of Breiman's problems, or a bundled set's training part
    (each row with probability 0.7, seeded; ``n`` is then ignored), standardized."""
    if problem in GENERATORS:
        X, y = generate(problem, n=n, seed=n)
    else:
        X, y = load(problem)[:2]
        X, y = np.asarray(X, float), np.asarray(y, float)
        keep = np.random.default_rng(0).random(len(y)) < 0.7
        X, y = X[keep], y[keep]
    sd = X.std(0)
    return (X - X.mean(0)) / np.where(sd > 0, sd, 1.0), y


def measure_one(problem: str, n: int, routes=ROUTES) -> dict[str, float]:
    """CPU seconds of one evaluation of each route on ``n`` points of ``problem`` (a bundled
    set: its training part, whatever ``n``); ``gamma`` is kept in the box."""
    from sklearn.svm import SVC

    X, y = _data(problem, n)
    n = len(y)
    scale = 1.0 / X.shape[1]
    gamma = scale
    kernel = RBF(gamma_bounds=(0.001, 10.0))
    out: dict[str, float] = {}
    for route in routes:
        if route.startswith("cv5"):
            C, g = _c_g(route)
            bound = KFoldCV(k=5).bind(X, y, kernel=kernel)
            out[route] = _cpu(
                lambda b=bound, C=C, g=g: _evaluate(b, {"C": C, "gamma": min(10.0, g * scale)})
            )
        elif route == "loo2":
            bound = LOOEstimate(model="loo2").bind(X, y, kernel=kernel)
            out[route] = _cpu(lambda b=bound: _evaluate(b, {"C": 10.0, "gamma": gamma}))
        elif route == "platt_gradient":
            if n > PLATT_MAX_N:
                continue
            bound = PlattError().bind(X, y, kernel=kernel)
            out[route] = _cpu(lambda b=bound: b.gradient({"C": 10.0, "gamma": gamma}))
        else:
            C, g = _c_g(route)
            out[route] = _cpu(lambda C=C, g=g: SVC(C=C, gamma=min(10.0, g * scale)).fit(X, y))
    return out


def fit_slopes(table: pd.DataFrame) -> pd.DataFrame:
    """Per route: slope and intercept of log CPU on log n (least squares over the rows of
    Breiman's generated problems)."""
    rows = []
    for route, part in table[table["problem"].isin(list(GENERATORS))].groupby("route"):
        x, yv = np.log(part["n"].to_numpy(float)), np.log(part["cpu_s"].to_numpy(float))
        slope, icpt = np.polyfit(x, yv, 1)
        rows.append({"route": route, "slope": slope, "intercept": icpt})
    return pd.DataFrame(rows).set_index("route")


def predict(slopes: pd.DataFrame, route: str, n: float) -> float:
    """Extrapolated CPU seconds of one evaluation of ``route`` on ``n`` points."""
    s = slopes.loc[route]
    return float(np.exp(s["intercept"] + s["slope"] * np.log(n)))


#: Each method's work per run, in evaluations of a timed route on the training part: (route,
#: count, share of n each evaluation sees). A model, not a measurement: a grid's points are
#: billed the mean of the measured CV routes (its spread over the box), TPE and VNS likewise;
#: pruning halves the folds solved; the cascade's screen is cheap and its refine about 15
#: evaluations; successive halving on 25 points costs about 6 full evaluations; bisection to
#: tol 0.05 over four decades of gamma takes about 10; a peer's 5-fold search is 5 fits on
#: 4/5 of the points per candidate (one ``SVC`` fit each, the measured fit routes' mean) plus the
#: refit; HalvingGridSearchCV about a third of GridSearchCV's fits.
WORK = {
    "CV grid 25": ("cv5", 25, 1.0),
    "CV TPE 25": ("cv5", 25, 1.0),
    "CV TPE pruned 25": ("cv5", 12.5, 1.0),
    "CV VNS 25": ("cv5", 25, 1.0),
    "CV cascade": ("cv5", 15, 1.0),
    "CV halving 25": ("cv5", 6, 1.0),
    "LOO_2 + bisection": ("loo2", 10, 1.0),
    "LOO_3 + bisection": ("loo2", 10, 1.0),
    "Platt + gradient": ("platt_gradient", 25, 1.0),
    "TunedSVC defaults": ("cv5", 25, 1.0),
    "GridSearchCV 25": ("svc", 126, 0.8),
    "RandomizedSearchCV 25": ("svc", 126, 0.8),
    "HalvingGridSearchCV 25": ("svc", 42, 0.8),
    "OptunaSearchCV 25": ("svc", 126, 0.8),
}
#: Peers the study refuses above a size (the study file's constant naming it): stored as over
#: budget with their extrapolated need, not run.
REFUSED_ABOVE = {
    "GridSearchCV 25": "PEERS_MAX_N",
    "RandomizedSearchCV 25": "PEERS_MAX_N",
    "OptunaSearchCV 25": "PEERS_MAX_N",
}
#: Largest training part PlattError's default memory_budget (256 MiB for 16 n^2 bytes) takes.
PLATT_MAX_N = 4_096


def _unit(slopes: pd.DataFrame, route: str, n: float) -> float:
    """CPU seconds of one evaluation of ``route`` on ``n`` points (a family: its routes' mean)."""
    names = [r for r in slopes.index if r == route or r.startswith(route + "_")]
    return float(np.mean([predict(slopes, r, n) for r in names]))


def keel_factors(table: pd.DataFrame, slopes: pd.DataFrame) -> dict[str, float]:
    """Per bundled set measured whole: how many times the generated problems' power law its
    evaluations cost (geometric mean over its routes); ``"*"``: the median of those, for the
    bundled sets not measured."""
    keel = table[~table["problem"].isin(list(GENERATORS)) & table["route"].isin(slopes.index)]
    out = {}
    for problem, part in keel.groupby("problem"):
        ratios = [c / predict(slopes, r, n) for r, n, c in part[["route", "n", "cpu_s"]].values]
        out[str(problem)] = float(np.exp(np.mean(np.log(ratios))))
    out["*"] = float(np.median(list(out.values()))) if out else 1.0
    return out


def estimate(
    slopes: pd.DataFrame, *, factors: dict[str, float] | None = None, extra_sizes=(200_000,)
) -> pd.DataFrame:
    """Expected CPU of the study as defined (``studies/benchmark_large.py``, its environment's
    sizes), one row per problem, plus rows for generated problems at ``extra_sizes`` that the
    study does not run (how long they would need)."""
    from pathlib import Path

    from svmtune.study import load_study_module

    study_file = Path(__file__).resolve().parents[1] / "studies/benchmark_large.py"
    g = vars(load_study_module(study_file))
    budget, splits = g["BUDGET_S"], g["N_SPLITS"]
    sizes = {}
    for name, spec in list(g["PROBLEMS"].items())[: g["N_DATASETS"]]:
        sizes[name] = (spec.n_train if isinstance(spec, g["Generated"]) else
                       round(g["TRAIN_SHARE"] * g["_rows"](spec)), True)  # fmt: skip
    for n in extra_sizes:
        sizes[f"(any generator)-{n}"] = (n, False)
    factors = factors or {}
    keel = {name for name, spec in g["PROBLEMS"].items() if not isinstance(spec, g["Generated"])}
    rows = []
    for name, (n, run) in sizes.items():
        need, billed, over, fails = 0.0, 0.0, [], []
        factor = factors.get(name, factors.get("*", 1.0)) if name in keel else 1.0
        for method in g["METHODS"]:
            route, count, share = WORK[method]
            if route == "platt_gradient" and n > PLATT_MAX_N:
                fails.append(method)  # stored as FAILED by its memory check, at once
                continue
            unit = _unit(slopes, route, share * n) * factor
            cost = count * unit
            need += cost
            if method in REFUSED_ABOVE and n > g[REFUSED_ABOVE[method]]:
                fails.append(f"{method} (over budget, not run: needs {cost:,.0f} s)")
                continue
            if cost > budget:
                over.append(f"{method} ({cost:,.0f} s)")
                # a svmtune tuner stops at the budget after its evaluation in progress;
                # a peer cannot stop: it is billed all it needs
                cost = cost if route == "svc" else budget + unit
            billed += cost
        rows.append({
            "problem": name, "n_train": n, "run": run, "methods": len(g["METHODS"]) - len(fails),
            "cost_factor": round(factor, 1),
            "one_cv_eval_s": round(_unit(slopes, "cv5", n) * factor, 1),
            "expected_cpu_s": round(splits * billed) if run else 0,
            "needed_cpu_s": round(splits * need),
            "over_budget": "; ".join(over), "fail": "; ".join(fails),
        })  # fmt: skip
    out = pd.DataFrame(rows).set_index("problem")
    out.attrs["splits"] = splits
    return out


def against(table: pd.DataFrame, cells: pd.DataFrame, *, per_problem: int) -> pd.DataFrame:
    """The sizing (``estimate``'s table) beside a stored run's cells, per problem: the cells
    stored (finished, any status) and the CPU seconds they were billed, the CPU the sizing
    expected, and measured / expected where all ``per_problem`` cells of it are stored."""
    done = cells[cells["status"] != "running"]
    billed = done.groupby("dataset")["cpu_s"].sum(min_count=0)
    stored = done.groupby("dataset").size()
    rows = []
    for name, r in table[table["run"]].iterrows():
        n_stored = int(stored.get(name, 0))
        cpu = float(billed.get(name, 0.0))
        whole = n_stored == per_problem
        rows.append({
            "problem": name, "n_train": r["n_train"], "cells_stored": n_stored,
            "expected_cpu_s": r["expected_cpu_s"], "measured_cpu_s": round(cpu),
            "ratio": round(cpu / r["expected_cpu_s"], 2) if whole and r["expected_cpu_s"] else None,
        })  # fmt: skip
    return pd.DataFrame(rows).set_index("problem")


def _markdown(table: pd.DataFrame) -> str:
    lines = [
        "| problem | n_train | methods run | cost factor | one 5-fold CV evaluation (s) | "
        "expected CPU (s) | "
        "needed without budget (s) | over the budget (need) | not run or failing |",
        "|---|--:|--:|--:|--:|--:|--:|---|---|",
    ]
    for name, r in table.iterrows():
        expected = f"{r['expected_cpu_s']:,}" if r["run"] else "not run"
        lines.append(
            f"| {name} | {r['n_train']:,} | {r['methods']} | {r['cost_factor']:g} | "
            f"{r['one_cv_eval_s']:g} | "
            f"{expected} | {r['needed_cpu_s']:,} | {r['over_budget']} | {r['fail']} |"
        )
    return "\n".join(lines)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 4000])
    m.add_argument("--problems", nargs="+", default=["twonorm", "ringnorm"])
    m.add_argument("--routes", nargs="+", default=list(ROUTES))
    m.add_argument("--out", required=True)
    e = sub.add_parser("estimate")
    e.add_argument("--measured", required=True)
    a = sub.add_parser("against", help="the sizing beside a stored run of the study")
    a.add_argument("--measured", required=True)
    a.add_argument("--storage", required=True, help="the run's SQLAlchemy URL")
    args = p.parse_args(argv)
    if args.cmd == "against":
        from pathlib import Path

        from svmtune.study import load_study_module

        measured = pd.read_csv(args.measured)
        slopes = fit_slopes(measured)
        table = estimate(slopes, factors=keel_factors(measured, slopes))
        study_file = Path(__file__).resolve().parents[1] / "studies/benchmark_large.py"
        study = load_study_module(study_file).study
        cells = study.results(storage=args.storage)
        out = against(table, cells, per_problem=len(study.methods) * int(table.attrs["splits"]))
        print(out.to_string())
        done = out["ratio"].notna()
        exp, got = out.loc[done, "expected_cpu_s"].sum(), out.loc[done, "measured_cpu_s"].sum()
        print(f"problems with every cell stored: {int(done.sum())}; measured {got:,.0f} CPU s "
              f"against {exp:,.0f} expected ({got / max(exp, 1):.2f}x)")  # fmt: skip
        return
    if args.cmd == "measure":
        measure_one("twonorm", 300, args.routes)  # compile numba's kernels outside the timings
        from pathlib import Path

        rows = pd.read_csv(args.out).to_dict("records") if Path(args.out).exists() else []
        for n in args.sizes:
            for prob in args.problems:
                size = n if prob in GENERATORS else len(_data(prob, n)[1])
                for route, cpu in measure_one(prob, n, args.routes).items():
                    rows.append({"problem": prob, "n": size, "route": route, "cpu_s": cpu})
                    print(f"{prob:9s} n={size:6d} {route:15s} {cpu:9.2f} CPU s", flush=True)
                    pd.DataFrame(rows).to_csv(args.out, index=False)
        if len(args.sizes) < 2:
            return
        slopes = fit_slopes(pd.DataFrame(rows))
        for n in (3_000, 10_000, 30_000, 50_000, 200_000):
            slopes[f"cpu_s_{n}"] = [predict(slopes, r, n) for r in slopes.index]
        print(slopes.round(3).to_string())
    else:
        measured = pd.read_csv(args.measured)
        slopes = fit_slopes(measured)
        table = estimate(slopes, factors=keel_factors(measured, slopes))
        print(_markdown(table))
        total = table["expected_cpu_s"].sum()
        print(
            f"total {total:,.0f} CPU s = {total / 3600:.1f} CPU h: about "
            f"{total / 7200:.1f} h on 2 cores (--n-jobs 2)"
        )


if __name__ == "__main__":
    main()
