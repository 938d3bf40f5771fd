"""This checkout's SMO loop against another commit's, interleaved in one process.

Two processes on a loaded machine move by tens of per cent against each other; two loops in one
process, fits alternated, see the same load. The other commit's ``svmtune/solvers/smo/`` is
extracted (``git archive``) into a temporary package whose imports point at itself, and the
loop module's ``smo_loop`` is set to one compiled loop or the other for each fit (the driver's
call must be the same in both: true as long as ``smo_loop``'s arguments are). Prints, per case, the
iterations, the median CPU microseconds an iteration of each and their ratio, and whether the
two fits' dual coefficients are identical.

    python benchmarks/smo_ab.py --rev 4023a07 page-blocks0:2000:10000 banana:2000:1000
"""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

import numpy as np

from svmtune import SVC
from svmtune.datasets import load


def _other_loop(rev: str):
    """The loop module of ``rev``, imported as the package ``smo_<rev>``."""
    root = Path(__file__).resolve().parents[1]
    blob = subprocess.run(
        ["git", "-C", str(root), "archive", rev, "svmtune/solvers/smo"],
        capture_output=True, check=True,
    ).stdout  # fmt: skip
    pkg = f"smo_{rev}"
    where = Path(tempfile.mkdtemp(prefix="smo_ab_"))
    with tarfile.open(fileobj=BytesIO(blob)) as tar:
        for m in tar.getmembers():
            if m.isfile() and m.name.endswith(".py"):
                text = tar.extractfile(m).read().decode()
                text = text.replace("svmtune.solvers.smo.", f"{pkg}.")
                (where / pkg).mkdir(exist_ok=True)
                (where / pkg / Path(m.name).name).write_text(text)
    sys.path.insert(0, str(where))
    return importlib.import_module(f"{pkg}._smo_loop")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rev", required=True, help="the other commit")
    p.add_argument("--repeats", type=int, default=6)
    p.add_argument("cases", nargs="+", help="DATA:N:C (a bundled set, its first N rows shuffled)")
    args = p.parse_args(argv)
    from svmtune.solvers import smo_loop as module

    loops = {"this": module.smo_loop, args.rev: _other_loop(args.rev).smo_loop}
    for case in args.cases:
        name, n, C = case.split(":")
        X, y = load(name)
        idx = np.random.default_rng(0).permutation(len(y))[: int(n)]
        X, y = X[idx], y[idx]
        scale = X.std(0)
        X = (X - X.mean(0)) / np.where(scale > 0, scale, 1.0)
        per, coef, iters = {k: [] for k in loops}, {}, {}
        for loop in loops.values():  # compile or load each
            module.smo_loop = loop
            SVC(C=float(C)).fit(X, y)
        for rep in range(args.repeats):
            for k in list(loops)[:: 1 if rep % 2 == 0 else -1]:
                module.smo_loop = loops[k]
                t = time.process_time()
                clf = SVC(C=float(C)).fit(X, y)
                per[k].append((time.process_time() - t) / clf.n_iter_ * 1e6)
                coef[k], iters[k] = clf.dual_coef_.copy(), clf.n_iter_
        module.smo_loop = loops["this"]
        a, b = (float(np.median(per[k])) for k in loops)
        same = iters["this"] == iters[args.rev] and np.array_equal(coef["this"], coef[args.rev])
        print(f"{case:26s} iterations {iters['this']:>8}  this {a:6.3f} us  {args.rev} {b:6.3f} us"
              f"  this/{args.rev} {a / b:5.3f}  identical {same}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
