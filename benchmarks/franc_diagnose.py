"""Where Franc's stop loses its saving: per retrain, when the certificate fires, when the eps-KKT
stop ends the retrain, and when the best H over B0(r) would have allowed it.

For each point exact leave-one-out retrains at one setting, along the alpha-seeded SMO
trajectory (the same for both stops):

- ``kkt``: the SMO step at which the eps-KKT gap closes;
- ``franc``: the step at which the certificate fires (``-`` if the eps-KKT stop came first),
  and the kernel columns it read against ``kkt``'s;
- ``ideal``: the first step at which ``F(alpha_t, b*) < H*``, with ``H* = max H`` over ``B0(r)``
  (box-constrained, solved by L-BFGS-B from the loop's last ``beta``: any feasible ``beta`` is
  a valid bound, so ``H*`` is the best any ascent on H could reach; ``H* viol``, the largest
  violation of its optimality conditions, says how close it came), ``-`` if no step before the
  eps-KKT stop allows it;
- ``margin``: ``(H* - F*(r)) / F*(r)``, how far above the retrain's optimum the best bound lies
  (``F*(r)`` taken at the eps-KKT end); when it is tiny no ascent on H certifies early, and
  when it is negative no step of the retrain can be certified at all.

Per setting, the summary gives the retrains, the median eps-KKT steps, the retrains certified
(``certified``) and certifiable by ``H*`` (``H* allows``, median step ``H* step``), those whose
``H*`` lies above ``F*(r)``, and the kernel-column ratios kkt/franc (the loop's own count) and
kkt/ideal (two columns per SMO step up to ``ideal``, H's columns not counted: an upper bound
on what any ascent on H could save).

    python benchmarks/franc_diagnose.py --data banana --kernel rbf --C 34.8 --gamma 1
    python benchmarks/franc_diagnose.py --data heart,sonar,ionosphere,wdbc --grid other \\
        --kernel rbf --C 0.1,1,10,100

The script prints; it asserts nothing.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from scipy.optimize import minimize

from svmtune.datasets import fischetti_split, load, ratsch_split
from svmtune.kernels import RBF, Linear
from svmtune.solvers import SMO, exact_loo
from svmtune.solvers import retrain_loop as loop


def h_star(
    K: np.ndarray, y: np.ndarray, C: float, r: int, start: np.ndarray
) -> tuple[float, float]:
    """max H(beta) over 0 <= beta <= C, beta_r = 0, by L-BFGS-B on -H from ``start`` (its value
    at least: any feasible ``beta`` bounds), and the largest violation of its optimality
    conditions (the projected gradient), which says how far from the maximum it stopped."""
    keep = np.flatnonzero(np.arange(y.size) != r)
    Kr = K[r, keep]
    Kt = K[np.ix_(keep, keep)] - Kr[:, None] - Kr[None, :] + K[r, r]
    Qt = (y[keep, None] * y[None, keep]) * Kt

    def f(b: np.ndarray) -> tuple[float, np.ndarray]:
        Qb = Qt @ b
        return 0.5 * b @ Qb - b.sum(), Qb - 1.0

    x0 = np.clip(start[keep], 0.0, C)
    res = minimize(
        f,
        x0,
        jac=True,
        method="L-BFGS-B",
        bounds=[(0.0, C)] * keep.size,
        options={"maxiter": 100_000, "maxfun": 200_000, "ftol": 0.0, "gtol": 1e-10},
    )
    best = res.x if res.fun <= f(x0)[0] else x0
    g = Qt @ best - 1.0
    at0, atC = best <= 0.0, best >= C
    viol = np.where(at0, np.minimum(g, 0.0), np.where(atC, np.maximum(g, 0.0), g))
    return float(-f(best)[0]), float(np.abs(viol).max())


def primal(K: np.ndarray, y: np.ndarray, C: float, alpha: np.ndarray, G: np.ndarray, r: int):
    """F(alpha, b*) without r (numpy)."""
    keep = np.arange(y.size) != r
    g = y * (G + 1.0)
    z = np.sort((y - g)[keep])
    P = int(np.sum(y[keep] > 0))
    b = z[P - 1]
    loss = np.maximum(0.0, 1.0 - y[keep] * (g[keep] + b)).sum()
    return 0.5 * alpha @ (G + 1.0) + C * loss


def _first_certifiable(K, diag, y, C, tol, a, Gf, r, Hs, steps, work) -> int:
    """The first step of the eps-KKT retrain (seeded start: step 0) whose primal value lies
    below ``Hs``, or -1: the trajectory stepped once at a time (``resume``)."""
    o = loop.RetrainOptions(C, tol, False, 0, 0, False, loop.EXACT_BIAS_EVERY)
    loop.retrain_one(K, diag, y, a, Gf, r, o, work)  # the seeded start
    one = o._replace(max_iter=1, resume=True)
    for t in range(steps + 1):
        if primal(K, y, C, work[0], work[1], r) < Hs - 1e-9 * abs(Hs):
            return t
        if t < steps:
            loop.retrain_one(K, diag, y, a, Gf, r, one, work)
    return -1


def diagnose(K, y, C, tol, h_steps, h_pays, max_points=None):
    diag = np.ascontiguousarray(np.diag(K))
    full = SMO(tol=tol, check_kernel=False).solve(y, C=C, gram=K)
    todo = np.flatnonzero(exact_loo(y, C=C, gram=K, stopping="kkt", full=full).settled_by == 2)
    a, Gf = np.ascontiguousarray(full.alpha), np.ascontiguousarray(full.gradient)
    work = loop.work_arrays(y.size)
    out = []
    for r in todo[:max_points]:
        r = int(r)
        ok = loop.RetrainOptions(C, tol, False, 10**7, 0, False, loop.EXACT_BIAS_EVERY)
        of = ok._replace(franc=True, h_steps=h_steps, h_pays=h_pays)
        _, _, it_k, rw_k, _ = loop.retrain_one(K, diag, y, a, Gf, r, ok, work)
        F_end = primal(K, y, C, work[0], work[1], r)
        _, st_f, it_f, rw_f, _ = loop.retrain_one(K, diag, y, a, Gf, r, of, work)
        # from the loop's last beta: H* is at least what the loop's ascent reached
        Hs, viol = h_star(K, y, C, r, work[2].copy())
        ideal = _first_certifiable(K, diag, y, C, tol, a, Gf, r, Hs, it_k, work)
        out.append(
            {
                "r": r,
                "kkt": it_k,
                "franc": it_f if st_f == loop.CERTIFIED else -1,
                "ideal": ideal,
                "rows kkt": rw_k,
                "viol": viol,
                "rows franc": rw_f,
                "margin": (Hs - F_end) / abs(F_end),
            }
        )
    return out


RBF_GRID = {
    "C": [float(10 ** (i / 7 * np.log10(500))) for i in range(8)],
    "gamma": [float(2.0 ** (-11 * i / 7)) for i in range(8)],
}
"""Franc, Laskov and Muller's RBF grid as ``studies/franc2008.py`` runs it."""
LINEAR_C = [0.01, 0.1, 1.0, 10.0, 100.0]


def summary(rows: list[dict]) -> dict[str, object]:
    """One setting's line: medians of the steps, the counts, the kernel columns."""
    kkt = np.array([d["kkt"] for d in rows])
    fr = np.array([d["franc"] for d in rows])
    ide = np.array([d["ideal"] for d in rows])
    rk = sum(d["rows kkt"] for d in rows)
    rf = sum(d["rows franc"] for d in rows)
    ideal_cols = sum(2 * (i if i >= 0 else k) for i, k in zip(ide, kkt, strict=True))
    return {
        "retrains": len(rows),
        "kkt steps": float(np.median(kkt)) if len(rows) else float("nan"),
        "certified": int(np.sum(fr >= 0)),
        "H* allows": int(np.sum(ide >= 0)),
        "H* step": float(np.median(ide[ide >= 0])) if np.any(ide >= 0) else float("nan"),
        "H* above F*(r)": int(np.sum(np.array([d["margin"] for d in rows]) > 0)),
        "cols kkt/franc": rk / max(rf, 1),
        "cols kkt/ideal": 2 * kkt.sum() / max(ideal_cols, 1),
        "H* viol": max((d["viol"] for d in rows), default=0.0),
        "_rows": (rk, rf, 2 * int(kkt.sum()), ideal_cols),
    }


def _settings(args: argparse.Namespace, kernel: str, d: int) -> list[tuple[float, float | None]]:
    """(C, gamma) pairs: the given lists, or the study's grid thinned by ``--every``."""
    if args.study_grid:
        if kernel == "linear":
            return [(C, None) for C in LINEAR_C[:: args.every]]
        return [
            (C, g) for C in RBF_GRID["C"][:: args.every] for g in RBF_GRID["gamma"][:: args.every]
        ]
    gammas = [float(g) for g in args.gamma.split(",")] if args.gamma else [1.0 / d]
    Cs = [float(c) for c in args.C.split(",")]
    return [(C, None if kernel == "linear" else g) for C in Cs for g in gammas]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default="banana", help="comma-separated")
    ap.add_argument("--grid", choices=["franc", "other"], default="franc")
    ap.add_argument("--realization", type=int, default=0)
    ap.add_argument("--kernel", default="rbf", help="rbf, linear or both, comma-separated")
    ap.add_argument("--C", default="1", help="comma-separated")
    ap.add_argument("--gamma", help="RBF widths, comma-separated (default 1/d)")
    ap.add_argument(
        "--study-grid", action="store_true", help="the Franc study's grids instead of --C, --gamma"
    )
    ap.add_argument("--every", type=int, default=1, help="with --study-grid: every k-th value")
    ap.add_argument("--tol", type=float, default=1e-3)
    ap.add_argument("--h-steps", type=int, default=1)
    ap.add_argument("--h-pays", type=int, default=1)
    ap.add_argument("--max-points", type=int, help="retrain only the first so many points")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    lines, totals = [], []
    for name in args.data.split(","):
        if args.grid == "other":
            X, y = load(name)
            X, y, _, _ = fischetti_split(X, y, seed=0)
        else:
            X, y, _, _ = ratsch_split(name, args.realization)
        for kernel in args.kernel.split(","):
            prep = (Linear() if kernel == "linear" else RBF()).prepare(X)
            sums = np.zeros(4)
            for C, gamma in _settings(args, kernel, X.shape[1]):
                K = prep.gram({} if gamma is None else {"gamma": gamma})
                rows = diagnose(K, y, C, args.tol, args.h_steps, bool(args.h_pays), args.max_points)
                if args.verbose:
                    for row in rows:
                        print(row)
                line = {"data": name, "kernel": kernel, "C": C, "gamma": gamma, **summary(rows)}
                sums += np.array(line.pop("_rows"), dtype=float)
                lines.append(line)
                print(pd.DataFrame(lines[-1:]).to_string(index=False, float_format="%.3g"))
            totals.append(
                {
                    "data": name,
                    "kernel": kernel,
                    "cols kkt/franc": sums[0] / max(sums[1], 1.0),
                    "cols kkt/ideal": sums[2] / max(sums[3], 1.0),
                }
            )
    print()
    print(pd.DataFrame(lines).to_string(index=False, float_format="%.3g"))
    print("\nover each data set's settings (columns summed, as a study's cell sums them):")
    print(pd.DataFrame(totals).to_string(index=False, float_format="%.3g"))


if __name__ == "__main__":
    main()
