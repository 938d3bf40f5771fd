"""Peak memory of svmtune against scikit-learn (LIBSVM), each case in a fresh child process.

Each case runs in its own Python process and reports the process's peak resident set size
(``resource.getrusage(...).ru_maxrss``: imports, data and work together, as an operating
system sees it) and the same after the set-up (imports and data loaded from a ``.npy`` file the
parent wrote, so that loading a data set costs neither side anything of the other's). Cases:

- ``imports``: a bare ``import svmtune``, ``from svmtune import SVC``, ``import sklearn.svm``,
  and the same after one tiny fit (svmtune's numba-compiled solver loaded from its cache);
- ``svc``: ``svmtune.SVC(memory_budget=M MiB)`` against ``sklearn.svm.SVC(cache_size=M)`` at
  the same ``C`` and ``gamma`` (``1 / (d var(X))``, scikit-learn's ``"scale"``), on bundled data
  sets (``--svc``: banana at 5,300 points and letter-halves at 20,000 by default);
- ``tuned``: ``svmtune.TunedSVC()`` (its defaults: 5-fold CV on the 5 x 5 grid ``C`` in
  0.1 .. 1000, ``gamma`` in 0.001 .. 10, the default memory budget) against
  ``GridSearchCV(SVC(), same grid, cv=...)`` on 5 stratified shuffled folds (scikit-learn's
  default ``cache_size=200``), on
  ``--tuned`` (twonorm, 7,400 points, by default; ``NAME:N`` takes the first ``N`` rows).

- ``cache``: what a smaller budget costs a fit: SMO's kernel evaluations and iterations (counts,
  the same on any machine) and CPU seconds at each ``--budgets-mib`` (256 and 512 by default)
  on the first ``N`` points of ``--cache`` data sets (penbased-eo:8800 and twonorm:5920, the
  training part of a 5-fold split), at ``(C, gamma)`` corners of the default grid.

It prints each case's peak and wall seconds, and the ratios svmtune / scikit-learn. Nothing is
asserted: the tests count bytes by block shapes (``tests/solvers/smo/test_memory_budget.py``,
``tests/objectives/test_fold_memory.py``); this is what a process actually takes. Timings on a
shared machine are only indicative.

    python benchmarks/memory.py                               # the peaks (about 15 minutes)
    python benchmarks/memory.py --cases cache                 # a smaller budget's cost
    python benchmarks/memory.py --cases svc --svc letter-halves --cache-mib 200 500
    python benchmarks/memory.py --cases tuned --tuned penbased-eo:10992
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

GRID_C = [0.1, 1.0, 10.0, 100.0, 1000.0]  # TunedSVC()'s default grid (Grid(n_points=5))
GRID_GAMMA = [0.001, 0.01, 0.1, 1.0, 10.0]

IMPORTS = {
    "import svmtune": "import svmtune",
    "from svmtune import SVC": "from svmtune import SVC",
    "import sklearn.svm": "import sklearn.svm",
    "svmtune SVC, one tiny fit": (
        "import numpy as np; from svmtune import SVC; X = np.arange(20.0).reshape(10, 2); "
        "SVC().fit(X, np.repeat([-1.0, 1.0], 5))"
    ),
    "sklearn SVC, one tiny fit": (
        "import numpy as np; from sklearn.svm import SVC; X = np.arange(20.0).reshape(10, 2); "
        "SVC().fit(X, np.repeat([-1.0, 1.0], 5))"
    ),
}


def _maxrss_mib() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _child(case: dict) -> dict:
    """Run one case in this (fresh) process; returns its peaks and seconds."""
    import time

    if case["kind"] == "import":
        exec(case["stmt"], {})
        return {"peak_mib": _maxrss_mib()}
    data = np.load(case["data"])
    X, y = data["X"], data["y"]
    gamma = 1.0 / (X.shape[1] * X.var())
    if case["lib"] == "svmtune":
        import svmtune
    else:
        from sklearn.model_selection import GridSearchCV, StratifiedKFold
        from sklearn.svm import SVC
    base = _maxrss_mib()
    t0 = time.perf_counter()
    if case["kind"] == "svc" and case["lib"] == "svmtune":
        budget = int(case["cache_mib"] * 2**20)
        svmtune.SVC(C=1.0, kernel_params={"gamma": gamma}, memory_budget=budget).fit(X, y)
    elif case["kind"] == "svc":
        SVC(C=1.0, gamma=gamma, cache_size=case["cache_mib"]).fit(X, y)
    elif case["lib"] == "svmtune":
        svmtune.TunedSVC().fit(X, y)  # its default: 5-fold CV on the grid below
    else:
        cv = StratifiedKFold(5, shuffle=True, random_state=0)
        GridSearchCV(SVC(), {"C": GRID_C, "gamma": GRID_GAMMA}, cv=cv).fit(X, y)
    return {"peak_mib": _maxrss_mib(), "setup_mib": base, "seconds": time.perf_counter() - t0}


def _run(case: dict) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", json.dumps(case)],
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise RuntimeError(f"case {case} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _data(spec: str, folder: str) -> tuple[str, str]:
    """``name[:n]`` of a bundled data set (its first ``n`` rows) saved for the children."""
    from svmtune.datasets import load

    name, _, n = spec.partition(":")
    X, y = load(name)
    if n:
        X, y = X[: int(n)], y[: int(n)]
    path = os.path.join(folder, f"{name}-{len(y)}.npz")
    np.savez(path, X=np.ascontiguousarray(X, dtype=np.float64), y=np.asarray(y, dtype=float))
    return path, f"{name} ({len(y)} x {X.shape[1]})"


def _pair(kind: str, path: str, label: str, **extra: float) -> None:
    res = {
        lib: _run({"kind": kind, "lib": lib, "data": path, **extra})
        for lib in ("svmtune", "sklearn")
    }
    a, b = res["svmtune"], res["sklearn"]
    what = f"{kind} {label}" + "".join(f", {k} {v:g}" for k, v in extra.items())
    print(
        f"{what}: svmtune peak {a['peak_mib']:.0f} MiB (after set-up {a['setup_mib']:.0f}, "
        f"{a['seconds']:.1f} s), scikit-learn {b['peak_mib']:.0f} MiB (after set-up "
        f"{b['setup_mib']:.0f}, {b['seconds']:.1f} s); ratio {a['peak_mib'] / b['peak_mib']:.2f}",
        flush=True,
    )


def _cache_cost(spec: str, budgets_mib: list[float]) -> None:
    """Kernel evaluations, iterations and CPU seconds of one SMO fit per budget (in process)."""
    import time

    from svmtune.datasets import load
    from svmtune.kernels import RBF
    from svmtune.solvers import SMO

    name, _, n = spec.partition(":")
    X, y = load(name)
    X, y = (X[: int(n)], y[: int(n)]) if n else (X, y)
    for C, gamma in ((1000.0, 0.1), (1000.0, 1.0), (10.0, 10.0)):
        for mib in budgets_mib:
            solver = SMO(memory_budget=int(mib * 2**20))
            t0 = time.process_time()
            res = solver.solve(y, C=C, kernel=RBF(), params={"gamma": gamma}, X=X)
            print(
                f"cache {name} ({len(y)} points), C {C:g}, gamma {gamma:g}, budget {mib:g} MiB: "
                f"{res.kernel_evals:,} kernel evaluations, {res.iterations:,} iterations, "
                f"{time.process_time() - t0:.1f} CPU s",
                flush=True,
            )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--cases", nargs="+", default=["imports", "svc", "tuned"])  # and "cache"
    ap.add_argument("--svc", nargs="+", default=["banana", "letter-halves"])
    ap.add_argument("--cache-mib", nargs="+", type=float, default=[200.0])
    ap.add_argument("--tuned", nargs="+", default=["twonorm"])
    ap.add_argument("--cache", nargs="+", default=["penbased-eo:8800", "twonorm:5920"])
    ap.add_argument("--budgets-mib", nargs="+", type=float, default=[256.0, 512.0])
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(_child(json.loads(args.child))))
        return
    with tempfile.TemporaryDirectory() as folder:
        if "imports" in args.cases:
            for what, stmt in IMPORTS.items():
                peak = _run({"kind": "import", "stmt": stmt})["peak_mib"]
                print(f"imports: {what}: peak {peak:.0f} MiB", flush=True)
        if "svc" in args.cases:
            for spec in args.svc:
                path, label = _data(spec, folder)
                for cache in args.cache_mib:
                    _pair("svc", path, label, cache_mib=cache)
        if "tuned" in args.cases:
            for spec in args.tuned:
                path, label = _data(spec, folder)
                _pair("tuned", path, label)
    if "cache" in args.cases:
        for spec in args.cache:
            _cache_cost(spec, args.budgets_mib)


if __name__ == "__main__":
    main()
