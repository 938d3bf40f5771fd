"""Kernel entries an SMO fit computes, svmtune's against LIBSVM's own count, and where LIBSVM's go.

scikit-learn's LIBSVM does not say how many kernel values it computed. This script builds
LIBSVM itself (the ``libsvm-official`` source distribution from PyPI: ``pip download`` into
``--cache``, once) with two lines added to ``svm.cpp``: a counter in ``Kernel::kernel_rbf`` and a
function that returns it; with ``--trace`` LIBSVM also prints, at each shrinking step and each
reconstruction of the gradient, its iteration, active set and count so far. It needs a C++
compiler (``g++``). Then per case ``DATA:N:C`` (drawn as ``benchmarks/smo_real.py`` draws them:
standardized, gamma = 1/d, tol 1e-3, shrinking on, the same cache size) one fit of each, in this
process, and prints their CPU seconds and kernel entries computed (svmtune's ``kernel_evals``:
rows, partial rows, rows by position, recomputed gradients, the diagonal), and svmtune's entries
at the larger memory budgets of ``--mib-more``::

    python benchmarks/libsvm_counts.py letter-am:20000:100 --mib-more 512,1024
    python benchmarks/libsvm_counts.py letter-am:20000:100 --trace

LIBSVM caches rows in single precision, each as long as the active prefix when it was asked
for: at the same bytes it holds two to ten times svmtune's double-precision rows (docs/smo.md,
"Kernel entries against LIBSVM's"). The counts are exact and the same on every machine; CPU
seconds are this machine's.
"""

from __future__ import annotations

import argparse
import ctypes
import glob
import os
import subprocess
import sys
import sysconfig
import tarfile
import time
from pathlib import Path
from types import ModuleType

import numpy as np
from smo_real import real_draw

from svmtune.kernels import RBF
from svmtune.solvers import SMO

VERSION = "3.37.0"
COUNTER = "long long svm_kernel_count = 0;\n"
GETTER = (
    'extern "C" long long svm_get_kernel_count() '
    "{ long long c = svm_kernel_count; svm_kernel_count = 0; return c; }\n"
)
TRACE = 'if (getenv("SVM_TRACE")) fprintf(stderr, "{what} %d active %d evals %lld\\n", {it}, '
TRACE += "active_size, svm_kernel_count);\n"


def _patch(src: str) -> str:
    """``svm.cpp`` with the counter, its getter and the trace lines (each edit checked)."""
    edits = [
        ('#include "svm.h"\n', '#include "svm.h"\n' + COUNTER + GETTER),
        (
            "\tdouble kernel_rbf(int i, int j) const\n\t{\n",
            "\tdouble kernel_rbf(int i, int j) const\n\t{\n\t\tsvm_kernel_count++;\n",
        ),
        (
            "\t\t\tif(shrinking) do_shrinking();\n",
            "\t\t\tif(shrinking) do_shrinking();\n\t\t\t"
            + TRACE.replace("{what}", "shrink   iteration").replace("{it}", "iter"),
        ),
        (
            "\tif(active_size == l) return;\n",
            "\tif(active_size == l) return;\n\t"
            + TRACE.replace("{what}", "gradient reconstructed, l").replace("{it}", "l"),
        ),
    ]
    for old, new in edits:
        if src.count(old) != 1:
            raise SystemExit(f"libsvm-official {VERSION}'s svm.cpp: {old!r} is not there once")
        src = src.replace(old, new)
    return src


def build(cache: Path) -> Path:
    """The folder holding LIBSVM's Python package with the counting library (built once)."""
    root = cache / f"libsvm_official-{VERSION}"
    lib = root / "libsvm" / ("clib" + sysconfig.get_config_var("EXT_SUFFIX"))
    if lib.exists():
        return root
    cache.mkdir(parents=True, exist_ok=True)
    sdist = cache / f"libsvm_official-{VERSION}.tar.gz"
    if not sdist.exists():
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps",
             "--dest", str(cache), f"libsvm-official=={VERSION}"],
            check=True,
        )  # fmt: skip
    with tarfile.open(sdist) as tar:
        tar.extractall(cache, filter="data")
    cpp = root / "cpp-source" / "svm.cpp"
    cpp.write_text(_patch(cpp.read_text()))
    for old in glob.glob(str(root / "libsvm" / "clib*")):
        os.remove(old)
    subprocess.run(["g++", "-O3", "-fPIC", "-shared", str(cpp), "-o", str(lib)], check=True)
    return root


def load(root: Path) -> tuple[ModuleType, ctypes.CDLL]:
    """LIBSVM's Python interface from ``root`` (:func:`build`) and its counting library."""
    sys.path.insert(0, str(root))
    from libsvm import svmutil
    from libsvm.svm import libsvm as lib

    lib.svm_get_kernel_count.restype = ctypes.c_longlong
    return svmutil, lib


def libsvm_fit(
    libsvm: tuple[ModuleType, ctypes.CDLL], X: np.ndarray, y: np.ndarray, C: float, mib: int
) -> tuple[float, int]:
    """CPU seconds and kernel entries of LIBSVM's fit (RBF, gamma = 1/d, tol 1e-3)."""
    svmutil, lib = libsvm
    opts = f"-s 0 -t 2 -c {C} -g {1.0 / X.shape[1]} -m {mib} -e 0.001 -h 1 -q"
    prob, param = svmutil.svm_problem(y, X), svmutil.svm_parameter(opts)
    lib.svm_get_kernel_count()
    t = time.process_time()
    svmutil.svm_train(prob, param)
    return time.process_time() - t, int(lib.svm_get_kernel_count())


def ours_fit(X: np.ndarray, y: np.ndarray, C: float, mib: int) -> tuple[float, int, int]:
    """CPU seconds, kernel entries and iterations of svmtune's fit."""
    smo = SMO(shrinking=True, memory_budget=mib * 2**20)
    t = time.process_time()
    res = smo.solve(y, C=C, kernel=RBF(), params={"gamma": 1.0 / X.shape[1]}, X=X)
    return time.process_time() - t, int(res.kernel_evals), int(res.iterations)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cases", nargs="+", help="DATA:N:C (a bundled set or letter-am)")
    p.add_argument("--mib", type=int, default=256, help="cache size and memory budget (MiB)")
    p.add_argument("--mib-more", default="", help="svmtune's fit again at these budgets (MiB)")
    p.add_argument("--trace", action="store_true", help="LIBSVM's count at each shrinking step")
    p.add_argument("--cache", default=str(Path.home() / ".cache" / "svmtune-libsvm-counts"))
    args = p.parse_args(argv)
    libsvm = load(build(Path(args.cache)))
    if args.trace:
        os.environ["SVM_TRACE"] = "1"
    more = [int(m) for m in args.mib_more.split(",") if m]
    warm = real_draw("banana", 500, 0)
    assert warm is not None
    ours_fit(*warm, 1.0, args.mib)  # load the compiled solver before any timing
    for case in args.cases:
        name, n, C = case.split(":")
        drawn = real_draw(name, int(n), 0)
        if drawn is None:
            raise SystemExit(f"{name} has fewer than {n} points")
        X, y = drawn
        lib_cpu, lib_evals = libsvm_fit(libsvm, X, y, float(C), args.mib)
        cpu, evals, iters = ours_fit(X, y, float(C), args.mib)
        print(
            f"{case:24s} LIBSVM {lib_cpu:6.2f} s {lib_evals / 1e6:7.1f} M entries | svmtune "
            f"{cpu:6.2f} s {evals / 1e6:7.1f} M entries ({evals / lib_evals:4.2f}x), "
            f"{iters} iterations, {args.mib} MiB",
            flush=True,
        )
        for mib in more:
            cpu, evals, _ = ours_fit(X, y, float(C), mib)
            print(
                f"{'':24s} svmtune at {mib} MiB: {cpu:6.2f} s {evals / 1e6:7.1f} M entries "
                f"({evals / lib_evals:4.2f}x LIBSVM's at {args.mib} MiB)",
                flush=True,
            )


if __name__ == "__main__":
    main()
