"""This checkout's SMO fit against another commit's, and both against LIBSVM: whole packages.

`benchmarks/smo_ab.py` swaps only the compiled loop, so it needs both commits' drivers to call the
loop alike; this script runs each commit's whole ``svmtune`` package (the other one extracted
with ``git archive`` into a temporary folder), each fit in a fresh process, the two commits
alternated, and LIBSVM (scikit-learn's ``SVC``, the same tol and cache size) in this checkout's
processes. Each process first fits the first 5,000 points of the same problem (loading or
compiling the code paths; LIBSVM too), then times the fit. Prints, per case, the median CPU
seconds of each side, the ratios, the kernel entries computed and the iterations; the data are
drawn as ``benchmarks/smo_real.py`` draws them (standardized, gamma = 1/d).

    python benchmarks/smo_revs.py --rev e1954d2 letter-am:20000:10000 banana:5000:100
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def _extract(rev: str) -> Path:
    """The ``svmtune`` package of commit ``rev``, in a temporary folder (returned)."""
    blob = subprocess.run(
        ["git", "-C", str(HERE.parent), "archive", rev, "svmtune"],
        capture_output=True, check=True,
    ).stdout  # fmt: skip
    where = Path(tempfile.mkdtemp(prefix="smo_revs_"))
    with tarfile.open(fileobj=BytesIO(blob)) as tar:
        tar.extractall(where, filter="data")
    return where


def _child(root: str, case: str, mib: int, peer: bool) -> None:
    """One timed fit with the package under ``root`` (this checkout's when empty)."""
    sys.path.insert(0, root or str(HERE.parent))
    sys.path.insert(0, str(HERE))
    from smo_real import real_draw

    from svmtune.kernels import RBF
    from svmtune.solvers import SMO

    name, n, C = case.split(":")
    drawn = real_draw(name, int(n), 0)
    if drawn is None:
        raise SystemExit(f"{name} has fewer than {n} points")
    X, y = drawn
    params = {"gamma": 1.0 / X.shape[1]}
    smo = SMO(shrinking=True, memory_budget=mib * 2**20)
    smo.solve(y[:5000], C=float(C), kernel=RBF(), params=params, X=X[:5000])
    t = time.process_time()
    res = smo.solve(y, C=float(C), kernel=RBF(), params=params, X=X)
    out = {
        "cpu": time.process_time() - t,
        "iterations": int(res.iterations),
        "evals": int(res.kernel_evals),
        "objective": float(res.objective),
    }
    if peer:
        from sklearn.svm import SVC

        lib = SVC(C=float(C), gamma=params["gamma"], tol=1e-3, cache_size=mib)
        lib.fit(X[:5000], y[:5000])
        t = time.process_time()
        lib.fit(X, y)
        out["libsvm"] = time.process_time() - t
    print(json.dumps(out))


def child_json(script: str, *args: str) -> dict:
    """``script --child ARGS`` run in a fresh process: the JSON its last line prints."""
    cmd = [sys.executable, script, "--child", *args]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _run(root: str, case: str, mib: int, peer: bool) -> dict[str, float]:
    return child_json(__file__, root, "--mib", str(mib), case, *(["--peer"] if peer else []))


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rev", help="the other commit")
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--mib", type=int, default=256, help="memory budget and LIBSVM cache (MiB)")
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    p.add_argument("--peer", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("cases", nargs="+", help="DATA:N:C (a bundled set or letter-am)")
    args = p.parse_args(argv)
    if args.child is not None:
        _child(args.child, args.cases[0], args.mib, args.peer)
        return
    if not args.rev:
        p.error("--rev is required")
    other = str(_extract(args.rev))
    print(f"this checkout against {args.rev}, {args.mib} MiB, median of {args.repeats}", flush=True)
    for case in args.cases:
        runs: dict[str, list[dict[str, float]]] = {"this": [], "other": []}
        for rep in range(args.repeats):
            for side in ("this", "other")[:: 1 if rep % 2 == 0 else -1]:
                root = "" if side == "this" else other
                runs[side].append(_run(root, case, args.mib, side == "this"))
        cpu = {k: float(np.median([r["cpu"] for r in v])) for k, v in runs.items()}
        lib = float(np.median([r["libsvm"] for r in runs["this"]]))
        a, b = runs["this"][-1], runs["other"][-1]
        print(
            f"{case:24s} this {cpu['this']:7.2f} s  {args.rev} {cpu['other']:7.2f} s  "
            f"LIBSVM {lib:7.2f} s | this/{args.rev} {cpu['this'] / cpu['other']:5.2f}  "
            f"this/LIBSVM {cpu['this'] / lib:5.2f}  {args.rev}/LIBSVM {cpu['other'] / lib:5.2f} | "
            f"kernel entries {b['evals'] / 1e6:.1f} M -> {a['evals'] / 1e6:.1f} M, "
            f"iterations {b['iterations']} -> {a['iterations']}, "
            f"dual objectives {a['objective'] / b['objective'] - 1:+.1e} relative",
            flush=True,
        )


if __name__ == "__main__":
    main()
