"""Where an SMO fit's CPU goes, by compiled function: a sampling profile with ``perf``.

numba's compiled code has no symbols a profiler can read. This script compiles the SMO loop
afresh (into a temporary ``NUMBA_CACHE_DIR``, so that its code is inspectable), writes the
address of every function of the loop's library to ``/tmp/perf-<pid>.map`` (the file ``perf``
reads for code generated at run time), then starts ``perf record`` on its own process, fits
``svmtune.SVC`` again and again for ``--seconds`` of CPU, stops ``perf`` and prints the share
of samples by function (numba's, the Python interpreter's, BLAS and the C library's) and the
microseconds an iteration took. Shares of samples are shares of this process's CPU: they hold
on a loaded machine, where the microseconds do not.

    python benchmarks/smo_profile.py --data banana --n 2000 --C 1000
    python benchmarks/smo_profile.py --data page-blocks0 --n 2000 --C 10000 --seconds 20
    python benchmarks/smo_profile.py --data penbased-eo --n 10000 --C 10000 --gamma 0.0625 \
        --max-iter 999      # the first 999 iterations only: before the first shrinking pass

Needs Linux ``perf`` (``apt-get install linux-perf``) and permission to profile one's own
process (``kernel.perf_event_paranoid`` at most 2).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings


def _demangle(name: str) -> str:
    """``module.function`` from numba's mangled name (length-prefixed parts after ``_ZN``)."""
    rest, parts = name.removeprefix("_ZN"), []
    while (m := re.match(r"(\d+)", rest)) is not None:
        k = len(m.group(1))
        parts.append(rest[k : k + int(m.group(1))])
        rest = rest[k + int(m.group(1)) :]
    return ".".join(parts[-2:]) if parts else name


def _symbol_map(path: str) -> int:
    """Write the SMO loop library's function addresses (``perf``'s map format); their count."""
    from svmtune.solvers import smo_loop as loop_module

    smo_loop = loop_module.smo_loop
    lib = smo_loop.overloads[smo_loop.signatures[0]].library
    names = sorted(set(re.findall(r'^define [^@]*@"?([^"(]+)"?\(', lib.get_llvm_str(), re.M)))
    addrs = sorted((a, n) for n in names if (a := lib.get_pointer_to_function(n)))
    with open(path, "w") as f:
        for k, (a, name) in enumerate(addrs):
            size = min(addrs[k + 1][0] - a if k + 1 < len(addrs) else 1 << 16, 1 << 20)
            f.write(f"{a:x} {size:x} {_demangle(name)}\n")
    return len(addrs)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default="banana", help="a bundled data set, or letter-am")
    p.add_argument("--n", type=int, default=2000, help="its first n rows after a seeded shuffle")
    p.add_argument("--C", type=float, default=1000.0)
    p.add_argument("--gamma", type=float, default=None, help="default: SVC's (0.1)")
    p.add_argument("--seconds", type=float, default=15.0, help="CPU seconds of fits profiled")
    p.add_argument("--top", type=int, default=20)
    p.add_argument("--max-iter", type=int, default=None, help="profile the first iterations only")
    args = p.parse_args(argv)
    if shutil.which("perf") is None:
        sys.exit("perf is not installed (Debian: apt-get install linux-perf)")
    if "NUMBA_CACHE_DIR" not in os.environ:  # compile afresh: cached code cannot be inspected
        os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="smo_profile_")
        os.execv(sys.executable, [sys.executable, *sys.argv])

    import numpy as np

    from svmtune import SVC
    from svmtune.datasets import load

    if args.data == "letter-am":  # letter A-M against N-Z (benchmarks/smo_real.py)
        from smo_real import real_draw

        drawn = real_draw(args.data, args.n, 0)
        assert drawn is not None, f"letter-am has fewer than {args.n} points"
        X, y = drawn
    else:
        X, y = load(args.data)
        idx = np.random.default_rng(0).permutation(len(y))[: args.n]
        X, y = X[idx], y[idx]
        scale = X.std(0)
        X = (X - X.mean(0)) / np.where(scale > 0, scale, 1.0)
    kw: dict = {} if args.gamma is None else {"kernel_params": {"gamma": args.gamma}}
    if args.max_iter is not None:  # fits stopped there: silence their ConvergenceWarning
        warnings.simplefilter("ignore")
        kw["max_iter"] = args.max_iter
    SVC(C=args.C, **kw).fit(X, y)  # compiles
    n_funcs = _symbol_map(f"/tmp/perf-{os.getpid()}.map")
    data = tempfile.mktemp(suffix=".perf.data")
    rec = subprocess.Popen(
        ["perf", "record", "-q", "-e", "cpu-clock", "-F", "4000", "-o", data,
         "-p", str(os.getpid())],
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    time.sleep(1.0)
    t0, iters, fits = time.process_time(), 0, 0
    while time.process_time() - t0 < args.seconds:
        iters += SVC(C=args.C, **kw).fit(X, y).n_iter_
        fits += 1
    cpu = time.process_time() - t0
    rec.send_signal(signal.SIGINT)
    rec.wait()
    out = subprocess.run(
        ["perf", "report", "-i", data, "--sort", "dso,sym", "--stdio"],
        capture_output=True, text=True, check=False,
    ).stdout  # fmt: skip
    print(f"{args.data}, {len(y)} points, C = {args.C:g}: {fits} fits, {iters} iterations, "
          f"{cpu / iters * 1e6:.2f} us an iteration (CPU); {n_funcs} functions mapped")  # fmt: skip
    rows = [line for line in out.splitlines() if line.strip() and not line.startswith("#")]
    for line in rows[: args.top]:
        fields = line.split()
        print(f"{fields[0]:>8}  {fields[1][:28]:28s}  {fields[-1][:70]}")
    os.unlink(data)


if __name__ == "__main__":
    main()
