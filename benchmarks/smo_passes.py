"""The SMO loop's pass kernels (``svmtune.solvers.smo._smo_loop``) against the same passes as one
scan (a single chain of comparisons, the loop before it ran four lanes) and as one scan
branching on the label bit of the status (the loop before that: ``v = -G if POS else G``,
``G + u`` or ``G - u`` on a branch), on the state an SMO solve ends in (real statuses, gradient
and kernel rows).

Per pass, microseconds a call (best of ``--repeats`` rounds of ``--calls`` calls, the versions
interleaved in this process) and the ratios; all return the same values and positions (checked
here; bit for bit in ``tests/solvers/smo/test_fused_select.py``). Nothing is asserted about
times. The same state is passed again and again, so the branch predictor may learn its
pattern: whole fits (``benchmarks/smo_revs.py``) are the measure that counts.

    python benchmarks/smo_passes.py                            # letter A-M / N-Z, spambase
    python benchmarks/smo_passes.py --sets spambase --n 5000 --C 100
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit
from smo_real import real_draw

from svmtune.kernels import RBF
from svmtune.solvers import SMO, smo_loop

TAU, LOW, POS, UP = smo_loop.TAU, smo_loop.LOW, smo_loop.POS, smo_loop.UP
_add_pair_select_i = smo_loop._add_pair_select_i
_select_i_st, _select_j_unit = smo_loop._select_i_st, smo_loop._select_j_unit
_statuses = smo_loop._statuses


@njit(cache=True)
def _branchy_select_i(st, G, size):
    gmax, p = -np.inf, -1
    for t in range(size):
        s = st[t]
        if s & UP:
            v = -G[t] if s & POS else G[t]
            if v > gmax:
                gmax, p = v, t
    return gmax, p


@njit(cache=True)
def _branchy_select_j(st, G, size, gmax, Ki, kd):
    gmin, p, best = np.inf, -1, np.inf
    for t in range(size):
        s = st[t]
        if not s & LOW:
            continue
        v = -G[t] if s & POS else G[t]
        if v < gmin:
            gmin = v
        b = gmax - v
        if b > 0.0:
            a = kd - 2.0 * Ki[t]
            if a <= 0.0:
                a = TAU
            obj = -(b * b) / a
            if obj < best:
                best, p = obj, t
    return gmin, p


@njit(cache=True)
def _branchy_fused(G, st, Ki, Kj, ci, cj, size):
    gmax, p = -np.inf, -1
    for t in range(size):
        u = ci * Ki[t] + cj * Kj[t]
        s = st[t]
        if s & POS:
            g = G[t] + u
            v = -g
        else:
            g = G[t] - u
            v = g
        G[t] = g
        if s & UP and v > gmax:
            gmax, p = v, t
    return gmax, p


@njit(cache=True)
def _chain_select_i(st, y, G, size):
    gmax, p = -np.inf, -1
    for t in range(size):
        v = -(y[t] * G[t])
        if not st[t] & UP:
            v = -np.inf
        if v > gmax:
            gmax, p = v, t
    return gmax, p


@njit(cache=True)
def _chain_select_j(st, y, G, size, gmax, Ki, kd):
    gmin, p, best = np.inf, -1, np.inf
    for t in range(size):
        v = -(y[t] * G[t])
        if not st[t] & LOW:
            v = np.inf
        gmin = min(gmin, v)
        b = gmax - v
        if b > 0.0:
            a = kd - 2.0 * Ki[t]
            if a <= 0.0:
                a = TAU
            obj = -(b * b) / a
            if obj < best:
                best, p = obj, t
    return gmin, p


@njit(cache=True)
def _chain_fused(G, st, y, Ki, Kj, ci, cj, size):
    gmax, p = -np.inf, -1
    for t in range(size):
        yt = y[t]
        g = G[t] + yt * (ci * Ki[t] + cj * Kj[t])
        G[t] = g
        v = -(yt * g)
        if not st[t] & UP:
            v = -np.inf
        if v > gmax:
            gmax, p = v, t
    return gmax, p


@njit(cache=True)
def _repeat(k, calls, G, st, y, Ki, Kj, gmax, order):
    n = G.shape[0]
    acc = 0.0
    for _ in range(calls):  # ci, cj tiny: the statuses the passes read stay those of the state
        if k == 0:
            v, p = _select_i_st(st, y, G, n)
        elif k == 1:
            v, p = _chain_select_i(st, y, G, n)
        elif k == 2:
            v, p = _branchy_select_i(st, G, n)
        elif k == 3:
            v, p = _select_j_unit(st, y, G, n, gmax, Ki, 2.0, order, True)
        elif k == 4:
            v, p = _chain_select_j(st, y, G, n, gmax, Ki, 2.0)
        elif k == 5:
            v, p = _branchy_select_j(st, G, n, gmax, Ki, 2.0)
        elif k == 6:
            v, p = _add_pair_select_i(G, st, y, Ki, Kj, 1e-300, -1e-300, n, order, True)
        elif k == 7:
            v, p = _chain_fused(G, st, y, Ki, Kj, 1e-300, -1e-300, n)
        else:
            v, p = _branchy_fused(G, st, Ki, Kj, 1e-300, -1e-300, n)
        acc += v + p
    return acc


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", nargs="+", default=["letter-am", "spambase"])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--C", type=float, default=1e4)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=15)
    args = ap.parse_args(argv)
    names = ["select i", "select j", "update + select i"]
    for name in args.sets:
        drawn = real_draw(name, args.n, 0)
        if drawn is None:
            continue
        X, y = drawn
        g = 1.0 / X.shape[1]
        res = SMO(tol=1e-3).solve(y, C=args.C, kernel=RBF(), params={"gamma": g}, X=X)
        n = y.size
        st = np.empty(n, dtype=np.int8)
        _statuses(y, np.full(n, args.C), res.alpha, n, st)
        G = res.gradient.copy()
        i, j = int(np.argmax(res.alpha)), int(np.argmin(res.alpha))
        K = RBF().gram({"gamma": g}, X[[i, j]], X)
        Ki, Kj = K[0].copy(), K[1].copy()
        order = np.arange(n, dtype=np.int64)
        gmax = _select_i_st(st, y, G, n)[0]
        for k in range(0, 9, 3):  # same answers
            a = _repeat(k, 1, G.copy(), st, y, Ki, Kj, gmax, order)
            assert a == _repeat(k + 1, 1, G.copy(), st, y, Ki, Kj, gmax, order)
            assert a == _repeat(k + 2, 1, G.copy(), st, y, Ki, Kj, gmax, order)
        best = [np.inf] * 9
        for _ in range(args.repeats):
            for k in range(9):
                Gc = G.copy()
                t0 = time.perf_counter()
                _repeat(k, args.calls, Gc, st, y, Ki, Kj, gmax, order)
                best[k] = min(best[k], (time.perf_counter() - t0) / args.calls)
        for p, label in enumerate(names):
            now, chain, branchy = (1e6 * best[3 * p + q] for q in range(3))
            print(
                f"{name} n={n} C={args.C:g} {label}: {now:.2f} us, one scan {chain:.2f} us "
                f"({now / chain:.2f}), branching on the label {branchy:.2f} us "
                f"({now / branchy:.2f})",
                flush=True,
            )


if __name__ == "__main__":
    main()
