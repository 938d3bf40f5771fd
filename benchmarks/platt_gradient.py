"""The approximate gradient of Platt's empirical error (Adankon et al., eq. 9) against the full one.

For each bundled set (Ratsch's split 0, standardized) and a few settings of an isotropic and an
anisotropic RBF kernel (C fixed), prints the cosine between the approximate and the full
gradient of ``PlattError`` in log-width coordinates, their norms, and the CPU seconds of one
gradient each (the SVM solve is shared and not counted: both reuse the same solution), and
their ratio. One BLAS thread. The script prints; it asserts nothing (the tests check that the
cosine is positive on the sets used there).

    python benchmarks/platt_gradient.py
    python benchmarks/platt_gradient.py --datasets heart banana --repeats 5
    python benchmarks/platt_gradient.py --scan --datasets heart diabetis breast-cancer

``--scan``: where the approximate gradient's sign disagrees with the full one. For an
isotropic RBF, d/d ln(gamma) of each gradient at ``gamma = c / d`` for c from 0.01 (wide
kernels) to 10 (narrow ones), C fixed; prints ``+`` where the signs agree, ``-`` where they
disagree.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from svmtune.datasets import ratsch_split
from svmtune.kernels import RBF, AnisotropicRBF
from svmtune.objectives import PlattError

DATASETS = ["breast-cancer", "diabetis", "heart", "thyroid", "titanic", "banana", "twonorm"]


def gradient_time(bound, params, repeats):
    """Best CPU seconds of one gradient at ``params``, the solve done before (and reused)."""
    bound.evaluate(params)  # the solve; gradient calls at the same point reuse it
    best = np.inf
    for _ in range(repeats):
        t0 = time.process_time()
        _, g = bound.gradient(params)
        best = min(best, time.process_time() - t0)
    return g, best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=DATASETS)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--C", type=float, default=10.0)
    ap.add_argument("--scan", action="store_true", help="sign agreement over a range of gamma")
    args = ap.parse_args()
    if args.scan:
        scan(args.datasets, args.C)
        return
    print(
        f"{'data set':14} {'kernel':12} {'gamma':>7} {'cosine':>7} {'|approx|':>9} "
        f"{'|full|':>9} {'t_approx':>9} {'t_full':>9} {'full/approx':>11}"
    )
    with threadpool_limits(1):
        for name in args.datasets:
            Xtr, ytr, _, _ = ratsch_split(name, seed=0)
            d = Xtr.shape[1]
            for scale in (0.3, 1.0, 3.0):
                gamma = scale / d
                for kname, kernel, params in (
                    ("RBF", RBF(), {"gamma": gamma}),
                    (
                        "anisotropic",
                        AnisotropicRBF(n_features=d),
                        {f"gamma_{f}": gamma for f in range(d)},
                    ),
                ):
                    out = {}
                    for mode in ("approx", "full"):
                        bound = PlattError(C=args.C, gradient=mode).bind(Xtr, ytr, kernel=kernel)
                        g, t = gradient_time(bound, params, args.repeats)
                        out[mode] = (np.array([g[n] for n in kernel.space.names]), t)
                    a, ta = out["approx"]
                    f, tf = out["full"]
                    cos = float(a @ f / (np.linalg.norm(a) * np.linalg.norm(f)))
                    print(
                        f"{name:14} {kname:12} {gamma:7.3g} {cos:7.3f} {np.linalg.norm(a):9.3g} "
                        f"{np.linalg.norm(f):9.3g} {ta:9.4f} {tf:9.4f} {tf / max(ta, 1e-9):11.2f}"
                    )


SCAN = (0.01, 0.03, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0, 3.0, 10.0)


def scan(datasets: list[str], C: float) -> None:
    """Sign of d E / d ln(gamma), approximate vs full, at gamma = c / d."""
    print(f"C = {C:g}; gamma = c / n_features; '+' signs agree, '-' disagree")
    print(f"{'data set':14} " + " ".join(f"{c:>6g}" for c in SCAN))
    with threadpool_limits(1):
        for name in datasets:
            Xtr, ytr, _, _ = ratsch_split(name, seed=0)
            d = Xtr.shape[1]
            bounds = {
                m: PlattError(C=C, gradient=m).bind(Xtr, ytr, kernel=RBF())
                for m in ("approx", "full")
            }
            marks = []
            for c in SCAN:
                g = {m: b.gradient({"gamma": c / d})[1]["gamma"] for m, b in bounds.items()}
                marks.append("+" if g["approx"] * g["full"] > 0 else "-")
            print(f"{name:14} " + " ".join(f"{m:>6}" for m in marks), flush=True)


if __name__ == "__main__":
    main()
