"""This checkout's exact leave-one-out against another commit's: CPU of ``exact_loo`` calls.

Each commit's whole ``svmtune`` package (the other one extracted with ``git archive``, as
``benchmarks/smo_revs.py`` does) runs the same calls in a process of its own, the two commits
alternated ``--repeats`` times: per case (a Ratsch realization 0 set, a kernel, C) the full
solution once, then ``exact_loo`` under the eps-KKT stop and under Franc's stop (the default
CPU test), each the least of 5 calls (one above 3 s), on one BLAS thread. Prints per case and
stop the least CPU seconds of each commit, their ratio, and whether the LOO error, the kernel
columns read, the SMO iterations and the way the CPU test chose are the same (counts, the
same on every machine)::

    python benchmarks/exact_loo_revs.py --rev 9ab7ffb
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from smo_revs import _extract, child_json

HERE = Path(__file__).resolve().parent

#: (Ratsch set, kernel, C, gamma): linear and RBF, short and long calls.
CASES = [
    ("twonorm", "linear", 1.0, None),
    ("ringnorm", "rbf", 10.0, 0.05),
    ("splice", "linear", 0.1, None),
    ("banana", "rbf", 10.0, 1.0),
    ("heart", "linear", 10.0, None),
    ("image", "rbf", 100.0, 0.05),
    ("german", "linear", 1.0, None),
]


def _child(root: str) -> None:
    """Every case with the package under ``root`` (this checkout's when empty): JSON."""
    sys.path.insert(0, root or str(HERE.parent))
    from threadpoolctl import threadpool_limits

    from svmtune.datasets import ratsch_split
    from svmtune.kernels import RBF, Linear
    from svmtune.solvers import SMO, exact_loo

    out = {}
    with threadpool_limits(1):
        for name, kernel, C, gamma in CASES:
            X, y, _, _ = ratsch_split(name, 0)
            prepared = (Linear() if kernel == "linear" else RBF()).prepare(X)
            K = prepared.gram({} if kernel == "linear" else {"gamma": gamma})
            full = SMO(tol=1e-3, check_kernel=False).solve(y, C=C, gram=K)
            for stop in ("kkt", "franc"):
                best = float("inf")
                for _ in range(5):
                    t = time.process_time()
                    res = exact_loo(y, C=C, gram=K, stopping=stop, full=full)
                    best = min(best, time.process_time() - t)
                    if best > 3.0:
                        break
                counts = [res.error, res.counts["kernel_rows"], res.counts["iterations"]]
                out[f"{name} {kernel} C={C:g} {stop}"] = [best, *counts, res.stopping_used]
    print(json.dumps(out))


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rev", help="the other commit")
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child is not None:
        _child(args.child)
        return
    if not args.rev:
        p.error("--rev is required")
    other = str(_extract(args.rev))
    runs: dict[str, list[dict[str, list]]] = {"this": [], "other": []}
    for rep in range(args.repeats):
        for side in ("this", "other")[:: 1 if rep % 2 == 0 else -1]:
            runs[side].append(child_json(__file__, "" if side == "this" else other))
    print(f"this checkout against {args.rev}, least CPU seconds over {args.repeats} processes each")
    for case in runs["this"][0]:
        a = min(r[case][0] for r in runs["this"])
        b = min(r[case][0] for r in runs["other"])
        same = runs["this"][0][case][1:] == runs["other"][0][case][1:]
        print(
            f"{case:32s} this {a:8.4f} s  {args.rev} {b:8.4f} s  ratio {a / b:5.2f}  "
            f"same error, columns, iterations, way: {'yes' if same else 'NO'} "
            f"({runs['this'][0][case][4]})",
            flush=True,
        )


if __name__ == "__main__":
    main()
