"""Franc's stop against the eps-KKT stop of exact leave-one-out: kernel columns, CPU, Prec.

The measure of Franc, Laskov and Muller, "Stopping conditions for exact computation of
leave-one-out error in support vector machines" (Table 3), in svmtune's own solver: the same
exact LOO computation once with ``exact_loo(stopping="kkt")`` (alpha-seeded retrains stopped by
the eps-KKT gap, the paper's standard approach) and once with ``stopping="franc"`` (the paper's
Algorithm 3 with its efficiency test), from the same solution on all points. Per setting:
``cols kkt/franc``, the ratio of kernel columns read (``counts["kernel_rows"]``, the paper's
KerEval: two per SMO step, one per seeded variable, one per greedy step on H, the full solve
included); ``cpu kkt/franc``, the ratio of CPU seconds of the two calls (one BLAS thread;
``--repeats`` pairs of calls (or batches of calls) in one process, 3 by default, more for
calls of milliseconds (``PAIRED_SECONDS``), the pair's order alternating: the median of the
pairs' ratios; ``cpu kkt`` and ``cpu franc`` the least of each: a call of milliseconds moves
by 10 % and more from one batch or process to the next, and the call that runs second in a
pair is favoured);
``prec%``, retrains certified by Franc's bound over retrains run under it; whether the two LOO
errors agree. The summary gives, per kernel, the medians over the settings run (and the worst
CPU ratio on the calls of 5 ms or more, where fixed costs do not dominate) and the saving over
the whole grid (sums of columns and of CPU seconds, as the paper's Table 3 sums over
its model selection) with Prec over the whole grid.

Modes:

- ``--grid franc`` (default): Ratsch's realizations ``0..--realizations-1`` of the Franc study's
  sets (``studies/franc2008.py``), the paper's linear grid ``C = 10^i, i = -2..2`` and its RBF
  grid ``C = 500^(i/7)``, ``gamma = 2^(-11 i/7)``, ``i = 0..7`` (``--rbf-every k`` keeps every
  k-th value of each RBF axis, to run in less time);
- ``--grid other``: other real data of a few hundred points (heart, sonar, ionosphere, wdbc:
  ``fischetti_split`` seed 0), linear and RBF (gamma = 1/d), ``C = 0.1, 1, 10, 100``;
- ``--efficiency cpu|certified``: the efficiency test of ``stopping="franc"`` (``cpu``, the
  default: Franc kept where it costs less CPU, retrains handed to the shrinking SMO after 200
  steps under either stop; ``certified``: the paper's, its bound to the end of every retrain);
- ``--step-cost``: the constants of the CPU the retrains count (``WORK_*`` of
  ``svmtune.solvers.retrain_loop``, fitted to timed compiled retrains of 35 settings, and of
  ``svmtune.solvers.loo._shrinking_cost``, fitted to timed shrinking runs of 18), by
  ``benchmarks/franc_cost.py``;
- ``--refine-after 10000,20000,0``: exact_loo's CPU under Franc's stop with the bound turned on
  in the refinements after each step count (``REFINE_FRANC_AFTER`` in
  ``svmtune/solvers/loo/_refine.py``; 0: never), on the settings chosen;
- ``--h-steps 0,1,2,-1,-2``: greedy steps on H per SMO step, compared on the compiled retrain
  loop (the points exact_loo retrains, one setting: ``--datasets``, ``--kernels``, ``--C``,
  ``--gamma``); ``h >= 0``: ``h`` steps, always; ``-h``: up to ``h`` steps, each only when it
  pays (``H_PAYS``); ``--bias-every k``: the primal value's best bias every ``k`` steps
  (``EXACT_BIAS_EVERY``, 8; in between the bound is tested at the last one).

    python benchmarks/franc_stop.py --datasets ringnorm --kernels linear --C 1 --realizations 3
    python benchmarks/franc_stop.py --kernels linear                    # Ratsch, linear grid
    python benchmarks/franc_stop.py --kernels linear --C-max 10 --datasets heart image
    python benchmarks/franc_stop.py --kernels rbf --rbf-every 2
    python benchmarks/franc_stop.py --grid other
    python benchmarks/franc_stop.py --grid other --efficiency certified
    python benchmarks/franc_stop.py --step-cost
    python benchmarks/franc_stop.py --part-cost          # the CPU test's fixed CPU a part
    python benchmarks/franc_stop.py --grid other --kernels linear --refine-after 10000,20000,50000,0
    python benchmarks/franc_stop.py --h-steps 0,1,2,-1,-2 --datasets ringnorm --kernels linear --C 1

The script prints; it asserts nothing.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from franc_cost import OTHER_SETS, part_cost, shrink_cost, step_cost  # the fits of the CPU counts
from threadpoolctl import threadpool_limits

from svmtune.datasets import fischetti_split, load, ratsch_split
from svmtune.kernels import RBF, Linear
from svmtune.solvers import SMO, exact_loo

FRANC_SETS = [
    "banana", "breast-cancer", "diabetis", "german", "heart", "image", "ringnorm", "splice",
    "thyroid", "titanic", "twonorm",
]  # fmt: skip
LINEAR_C = [0.01, 0.1, 1.0, 10.0, 100.0]
RBF_C = [float(10 ** (i / 7 * np.log10(500))) for i in range(8)]
RBF_GAMMA = [float(2.0 ** (-11 * i / 7)) for i in range(8)]
OTHER_C = [0.1, 1.0, 10.0, 100.0]


BATCH_SECONDS = 0.05
"""Calls shorter than this are timed in batches of this many seconds (a call of a few
milliseconds timed alone moves by 10 % and more with what ran before it)."""

PAIRED_SECONDS = 1.0
"""Pairs of batches are timed (beyond ``--repeats``) until each stop has run this many
seconds, at most :data:`MAX_PAIRS` pairs: the pairs' ratios of calls of a few milliseconds
spread over 0.9-1.1, so their median needs some twenty of them."""

MAX_PAIRS = 40


def one_setting(
    y: np.ndarray, K: np.ndarray, C: float, tol: float, efficiency: str, repeats: int = 1
) -> dict:
    """Both stops at one setting, from one solution on all points; CPU per call over
    ``repeats`` pairs of batches (more until :data:`PAIRED_SECONDS`), the pair's order
    alternating (calls under :data:`BATCH_SECONDS` in batches of that length; a pair of calls
    above 2 s is timed once): the least of each stop's and the median of the pairs' ratios."""
    full = SMO(tol=tol, check_kernel=False).solve(y, C=C, gram=K)

    def timed(stopping: str, k: int):
        t0 = time.process_time()
        for _ in range(k):
            res = exact_loo(
                y, C=C, gram=K, stopping=stopping, tol=tol, full=full, efficiency=efficiency
            )
        return res, (time.process_time() - t0) / k

    kkt, first = timed("kkt", 1)  # sizes the batches (and is the first batch of one)
    batch = max(1, min(100, int(BATCH_SECONDS / max(first, 1e-5))))
    cpu_kkt, cpu_franc = [], []
    rep = 0
    while rep < repeats or (batch * sum(cpu_kkt) < PAIRED_SECONDS and rep < MAX_PAIRS):
        t_kkt = first
        if rep % 2:  # Franc's stop first in every other pair
            franc, t_franc = timed("franc", batch)
            kkt, t_kkt = timed("kkt", batch)
        else:
            if rep or batch > 1:
                kkt, t_kkt = timed("kkt", batch)
            franc, t_franc = timed("franc", batch)
        cpu_kkt.append(t_kkt)
        cpu_franc.append(t_franc)
        rep += 1
        if batch * (t_kkt + t_franc) > 2.0:
            break
    fc, kc = franc.counts, kkt.counts
    return {
        "cols kkt": kc["kernel_rows"],
        "cols franc": fc["kernel_rows"],
        "cols kkt/franc": kc["kernel_rows"] / fc["kernel_rows"],
        "cpu kkt": min(cpu_kkt),
        "cpu franc": min(cpu_franc),
        "cpu kkt/franc": float(
            np.median(np.asarray(cpu_kkt) / np.maximum(np.asarray(cpu_franc), 1e-9))
        ),
        "retrained": fc["retrained"],
        "under franc": fc["certified"] / fc["prec_percent"] * 100 if fc["certified"] else 0,
        "certified": fc["certified"],
        "prec%": fc["prec_percent"],
        "used": franc.stopping_used,
        "same error": franc.error == kkt.error,
    }


def settings(
    kernel: str, grid: str, rbf_every: int, C: float | None, gamma: float | None = None
) -> list[dict[str, float]]:
    if C is not None:
        gammas = RBF_GAMMA if gamma is None else [gamma]
        return [{"C": C}] if kernel == "linear" else [{"C": C, "gamma": g} for g in gammas]
    if grid == "other":
        return [{"C": c} for c in OTHER_C]
    if kernel == "linear":
        return [{"C": c} for c in LINEAR_C]
    return [{"C": c, "gamma": g} for c in RBF_C[::rbf_every] for g in RBF_GAMMA[::rbf_every]]


def splits(args: argparse.Namespace):
    for name in args.datasets:
        if args.grid == "other":
            X, y = load(name)
            Xtr, ytr, _, _ = fischetti_split(X, y, seed=0)
            yield name, 0, Xtr, ytr
        else:
            for s in range(args.realizations):
                Xtr, ytr, _, _ = ratsch_split(name, s)
                yield name, s, Xtr, ytr


def grams(kernel: str, X: np.ndarray, ps: list[dict[str, float]], other: bool):
    prepared = (RBF() if kernel == "rbf" else Linear()).prepare(X)
    for p in ps:
        if kernel == "linear":
            yield p, prepared.gram({})
        else:
            gamma = 1.0 / X.shape[1] if other else p["gamma"]
            yield {**p, "gamma": gamma}, prepared.gram({"gamma": gamma})


def summary(df: pd.DataFrame) -> None:
    for kernel, part in df.groupby("kernel"):
        under = part["under franc"].sum()
        print(
            f"{kernel}: {len(part)} settings; cols kkt/franc median "
            f"{part['cols kkt/franc'].median():.2f} (min {part['cols kkt/franc'].min():.2f}), "
            f"whole grid {part['cols kkt'].sum() / part['cols franc'].sum():.2f}; "
            f"cpu kkt/franc median {part['cpu kkt/franc'].median():.2f}, whole grid "
            f"{part['cpu kkt'].sum() / part['cpu franc'].sum():.2f}; Prec over the grid "
            f"{100 * part['certified'].sum() / under if under else float('nan'):.1f} %; "
            f"errors agree {int(part['same error'].sum())} of {len(part)}"
        )
        per_set = part.groupby("data")[["cols kkt", "cols franc", "cpu kkt", "cpu franc"]].sum()
        cols = per_set["cols kkt"] / per_set["cols franc"]
        cpu = per_set["cpu kkt"] / per_set["cpu franc"]
        print(
            f"   per data set over its grid (the paper's Table 3): cols kkt/franc median "
            f"{cols.median():.2f} ({', '.join(f'{k} {v:.2f}' for k, v in cols.items())}); "
            f"cpu kkt/franc median {cpu.median():.2f}"
        )
        big = part[part["cpu kkt"] >= 0.005]
        if len(big):
            w = big.loc[big["cpu kkt/franc"].idxmin()]
            print(
                f"   cpu kkt/franc on the {len(big)} settings of 5 ms or more: median "
                f"{big['cpu kkt/franc'].median():.2f}, worst {w['cpu kkt/franc']:.2f} "
                f"({w['data']}, C = {w['C']:.4g}, used {w['used']}); below 5 ms: worst "
                f"{part['cpu kkt/franc'].min():.2f}"
            )
        for C, atC in part.groupby("C"):
            print(
                f"   C = {C:.4g}: cols kkt/franc median {atC['cols kkt/franc'].median():.2f}, "
                f"cpu kkt/franc median {atC['cpu kkt/franc'].median():.2f}"
            )


def refine_after(args: argparse.Namespace) -> None:
    """``exact_loo(stopping="franc")`` CPU (least of 3; of 1 above 0.5 s) with Franc's stop
    turned on in the refinements after each step count of ``--refine-after`` (``0``: never)."""
    from svmtune.solvers.loo import refinement as loo_refine

    in_use = loo_refine.REFINE_FRANC_AFTER
    for name, s, X, y in splits(args):
        for kernel in args.kernels:
            ps = settings(kernel, args.grid, args.rbf_every, args.C, args.gamma)
            for p, K in grams(kernel, X, ps, args.grid == "other"):
                full = SMO(tol=args.tol, check_kernel=False).solve(y, C=p["C"], gram=K)
                cells = []
                for after in args.refine_after:
                    loo_refine.REFINE_FRANC_AFTER = after if after > 0 else 2**62
                    best = np.inf
                    for _ in range(3):
                        t0 = time.process_time()
                        res = exact_loo(y, C=p["C"], gram=K, stopping="franc", full=full)
                        best = min(best, time.process_time() - t0)
                        if best > 0.5:
                            break
                    cells.append(f"{after or 'never'}: {1e3 * best:.1f} ms")
                loo_refine.REFINE_FRANC_AFTER = in_use
                print(
                    f"{name} #{s} {kernel} {p}: {res.counts['refined']} refined; "
                    + "; ".join(cells),
                    flush=True,
                )


def h_steps(args: argparse.Namespace) -> None:
    """Greedy H steps per SMO step, on the compiled retrain loop (the points exact_loo retrains)."""
    from svmtune.solvers import retrain_loop as loop

    for name, s, X, y in splits(args):
        for kernel in args.kernels:
            ps = settings(kernel, args.grid, args.rbf_every, args.C, args.gamma)[:1]
            for p, K in grams(kernel, X, ps, args.grid == "other"):
                full = SMO(tol=args.tol, check_kernel=False).solve(y, C=p["C"], gram=K)
                res = exact_loo(y, C=p["C"], gram=K, stopping="kkt", tol=args.tol, full=full)
                todo = np.flatnonzero(res.settled_by == 2)
                a, G = np.ascontiguousarray(full.alpha), np.ascontiguousarray(full.gradient)
                diag, work = np.ascontiguousarray(np.diag(K)), loop.work_arrays(y.size)
                out = {}
                for h in ["kkt", *args.h_steps]:  # h < 0: up to -h steps, each when it pays
                    franc = h != "kkt"
                    steps = abs(int(h)) if franc else 0
                    o = loop.RetrainOptions(
                        p["C"], args.tol, franc, 10**7, steps, franc and h < 0, args.bias_every
                    )
                    t0 = time.process_time()
                    runs = [loop.retrain_one(K, diag, y, a, G, int(r), o, work) for r in todo]
                    out[h] = (time.process_time() - t0, sum(r[3] for r in runs), runs)
                for h in args.h_steps:
                    cert = sum(r[1] == loop.CERTIFIED for r in out[h][2])
                    cols = out["kkt"][1] / out[h][1]
                    cpu = out["kkt"][0] / out[h][0]
                    print(
                        f"{name} #{s} {kernel} {p}: h_steps={h}: cols kkt/franc "
                        f"{cols:.2f}, cpu kkt/franc {cpu:.2f},"
                        f" certified {cert} of {todo.size}",
                        flush=True,
                    )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--grid", choices=["franc", "other"], default="franc")
    ap.add_argument("--datasets", nargs="+")
    ap.add_argument("--kernels", nargs="+", choices=["rbf", "linear"], default=["linear", "rbf"])
    ap.add_argument("--C", type=float, help="one C only (RBF: with every gamma of the grid)")
    ap.add_argument("--C-max", type=float, help="the grid's C up to this only")
    ap.add_argument("--realizations", type=int, default=1)
    ap.add_argument("--rbf-every", type=int, default=1)
    ap.add_argument("--tol", type=float, default=1e-3)
    ap.add_argument(
        "--repeats", type=int, default=3, help="interleaved calls per stop; the least CPU"
    )
    ap.add_argument("--h-steps", type=lambda s: [int(v) for v in s.split(",")])
    ap.add_argument(
        "--refine-after",
        type=lambda s: [int(v) for v in s.split(",")],
        help="Franc's stop in the refinements after these step counts (0: never), compared",
    )
    ap.add_argument("--gamma", type=float, help="RBF: one gamma only")
    ap.add_argument("--bias-every", type=int, default=8, help="with --h-steps: b* every k steps")
    ap.add_argument("--efficiency", choices=["cpu", "certified"], default="cpu")
    ap.add_argument("--step-cost", action="store_true", help="fit the CPU counts' constants")
    ap.add_argument("--part-cost", action="store_true", help="fit the CPU test's fixed CPU a part")
    args = ap.parse_args(argv)
    if args.datasets is None:
        args.datasets = OTHER_SETS if args.grid == "other" else FRANC_SETS
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 30)
    with threadpool_limits(limits=1, user_api="blas"):
        X, y = load("heart")
        exact_loo(y, C=1.0, gram=RBF().prepare(X).gram({"gamma": 0.1}))  # compile / load first
        if args.h_steps:
            h_steps(args)
            return
        if args.refine_after:
            refine_after(args)
            return
        if args.part_cost:
            part_cost()
            return
        if args.step_cost:
            step_cost()
            shrink_cost()
            return
        rows = []
        for name, s, X, y in splits(args):
            for kernel in args.kernels:
                ps = settings(kernel, args.grid, args.rbf_every, args.C, args.gamma)
                ps = [p for p in ps if args.C_max is None or p["C"] <= args.C_max]
                for p, K in grams(kernel, X, ps, args.grid == "other"):
                    rows.append({"data": name, "real.": s, "kernel": kernel, **p})
                    rows[-1].update(
                        one_setting(y, K, p["C"], args.tol, args.efficiency, args.repeats)
                    )
                    print(
                        pd.DataFrame(rows[-1:]).to_string(
                            index=False, header=False, float_format=lambda v: f"{v:.4g}"
                        ),
                        flush=True,
                    )
    df = pd.DataFrame(rows)
    print(f"\n== Franc's stop against eps-KKT (tol={args.tol:g}) ==")
    print(df.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    summary(df)


if __name__ == "__main__":
    main()
