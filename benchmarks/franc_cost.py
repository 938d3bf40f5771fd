"""The constants of the CPU that exact leave-one-out's retrains count, fitted to timed runs.

The retrains count their CPU in eps-KKT steps of the compiled retrain loop, the same on every
machine, and the efficiency test of ``exact_loo(stopping="franc")`` weighs the two stops by that
count. :func:`step_cost` fits the loop's constants (``WORK_FRANC_STEP``, ``WORK_SELECT``,
``WORK_RETRAIN`` of ``svmtune.solvers.retrain_loop``) to the timed compiled retrains of
:data:`STEP_COST_CASES`; :func:`shrink_cost` the shrinking SMO's (``WORK_SWEPT``,
``WORK_READ``, ``WORK_SHRINK_STEP``, ``WORK_TAIL`` of ``svmtune.solvers.loo._shrinking_cost``) to
the timed shrinking runs of :data:`SHRINK_COST_CASES`. Each prints the fit beside the values
in use and how far the count is off the time.

    python benchmarks/franc_stop.py --step-cost      # both fits (part of franc_stop's modes)

The script prints; it asserts nothing.
"""

from __future__ import annotations

import time

import numpy as np

from svmtune.datasets import fischetti_split, load, ratsch_split
from svmtune.kernels import RBF, Linear
from svmtune.solvers import SMO, exact_loo

#: Real data of a few hundred points, each a ``fischetti_split`` (seed 0) of its file; the
#: other cases' sets are Ratsch's realization 0 (``franc_stop.py --grid other`` runs these).
OTHER_SETS = ["heart", "sonar", "ionosphere", "wdbc"]

STEP_COST_CASES = [
    (name, kernel, C)
    for name in ["heart", "sonar", "ionosphere", "wdbc", "banana", "ringnorm"]
    for kernel, Cs in (("rbf", (0.1, 1.0, 10.0, 100.0)), ("linear", (0.1, 1.0)))
    for C in Cs
    if not (name == "ringnorm" and kernel == "linear" and C > 0.1)
]


def _case(name: str, kernel: str, C: float):
    """``(y, K, full)``: a case's labels, Gram matrix (RBF at gamma = 1/d, or linear) and SMO
    solution on all its points (a ``fischetti_split`` of the other sets, else Ratsch's
    realization 0)."""
    X, y = load(name) if name in OTHER_SETS else ratsch_split(name, 0)[:2]
    if name in OTHER_SETS:
        X, y, _, _ = fischetti_split(X, y, seed=0)
    p = (RBF() if kernel == "rbf" else Linear()).prepare(X)
    K = np.ascontiguousarray(p.gram({"gamma": 1.0 / X.shape[1]} if kernel == "rbf" else {}))
    return y, K, SMO(tol=1e-3, check_kernel=False).solve(y, C=C, gram=K)


def _timed_retrains(K, y, C, franc: bool, todo) -> tuple[float, int, int, float]:
    """Best of 5 of the compiled retrains of ``todo``: (seconds, steps, retrains, counted CPU)."""
    from svmtune.solvers import retrain_loop as loop

    full = SMO(tol=1e-3, check_kernel=False).solve(y, C=C, gram=K)
    a, G = np.ascontiguousarray(full.alpha), np.ascontiguousarray(full.gradient)
    diag, work = np.ascontiguousarray(np.diag(K)), loop.work_arrays(y.size)
    o = loop.RetrainOptions(C, 1e-3, franc, 10**7, 1, True, loop.EXACT_BIAS_EVERY)
    loop.retrain_one(K, diag, y, a, G, int(todo[0]), o, work)
    best = np.inf
    for _ in range(5):
        t0 = time.perf_counter()
        runs = [loop.retrain_one(K, diag, y, a, G, int(r), o, work) for r in todo]
        best = min(best, time.perf_counter() - t0)
    return best, sum(r[2] for r in runs), len(todo), sum(r[4] for r in runs)


def step_cost() -> None:
    """The constants of the retrains' CPU count (``WORK_*`` in ``_exact_loo_loop``), fitted.

    For each case, the compiled retrains of the points exact_loo retrains (80 at most) are
    timed under both stops; per point of the data, eps-KKT seconds = a steps + b retrains and
    Franc seconds = f steps + s quickselects + b retrains (least squares, relative errors); the
    quickselects are read back from the loop's own count with the constants in use. Prints
    f / a, s / a and b / a (the constants, in eps-KKT steps) and the errors of the count."""
    from svmtune.solvers import retrain_loop as loop

    kk, ff, meas = [], [], []
    for name, kernel, C in STEP_COST_CASES:
        y, K, full = _case(name, kernel, C)
        todo = np.flatnonzero(exact_loo(y, C=C, gram=K, full=full).settled_by == 2)[:80]
        tk, sk, R, ck = _timed_retrains(K, y, C, False, todo)
        tf, sf, _, cf = _timed_retrains(K, y, C, True, todo)
        qs = (cf - loop.WORK_RETRAIN * R - loop.WORK_FRANC_STEP * sf) / loop.WORK_SELECT
        n = y.size
        kk.append([sk, R, tk / n])
        ff.append([sf, round(qs), R, tf / n])
        meas.append((name, kernel, C, tk / tf, ck / cf))
    kk_, ff_ = np.array(kk, float), np.array(ff, float)
    w = 1.0 / kk_[:, 2]
    a, b = np.linalg.lstsq(kk_[:, :2] * w[:, None], kk_[:, 2] * w, rcond=None)[0]
    rest = ff_[:, 3] - b * ff_[:, 2]
    w = 1.0 / ff_[:, 3]
    f, s = np.linalg.lstsq(ff_[:, :2] * w[:, None], rest * w, rcond=None)[0]
    print("case                         cpu kkt/franc measured   counted")
    for name, kernel, C, m, c in meas:
        print(f"{name:11s} {kernel:6s} C={C:<6g}        {m:6.2f}          {c:6.2f}")
    err = np.array([c / m - 1.0 for *_, m, c in meas])
    print(
        f"fit: WORK_FRANC_STEP {f / a:.2f}, WORK_SELECT {s / a:.2f}, WORK_RETRAIN {b / a:.2f}"
        f" (in use: {loop.WORK_FRANC_STEP}, {loop.WORK_SELECT}, {loop.WORK_RETRAIN}); counted"
        f" / measured ratio - 1: median {np.median(np.abs(err)):.0%}, worst"
        f" {np.max(np.abs(err)):.0%}"
    )


SHRINK_COST_CASES = [
    ("heart", "linear", 1.0, None),
    ("heart", "linear", 10.0, None),
    ("sonar", "linear", 1.0, None),
    ("ionosphere", "linear", 1.0, None),
    ("wdbc", "linear", 1.0, None),
    ("wdbc", "linear", 10.0, None),
    ("ringnorm", "linear", 1.0, None),
    ("banana", "rbf", 100.0, 1.0),
    ("german", "linear", 0.1, None),
    ("heart", "rbf", 100.0, 0.05),
    ("banana", "rbf", 10.0, 1.0),
    ("splice", "rbf", 1.0, "1/d"),
    ("image", "rbf", 1.0, "1/d"),
    ("german", "rbf", 1.0, "1/d"),
    ("splice", "linear", 0.1, None),
    ("image", "linear", 1.0, None),
    ("german", "rbf", 10.0, "1/d"),
    ("image", "rbf", 10.0, "1/d"),
]
"""(data, kernel, C, gamma) of the shrinking SMO's CPU fit: 134-1300 points."""


def _shrink_case(name: str, kernel: str, C: float, gamma) -> tuple | None:
    """One case of :func:`shrink_cost`: (measured, swept, reads, steps, runs, n) of the
    shrinking runs that finish the eps-KKT retrains (of the first 40 points retrained) not done
    in the compiled loop's first 200 steps, measured in eps-KKT steps of the compiled loop (the
    least CPU of 3 passes each)."""
    from svmtune.solvers import retrain_loop as loop
    from svmtune.solvers.loo import CountedGram, FullGbar, RetrainSetup, ShrinkingTail

    X, y = load(name) if name in OTHER_SETS else ratsch_split(name, 0)[:2]
    if name in OTHER_SETS:
        X, y, _, _ = fischetti_split(X, y, seed=0)
    n = y.size
    if kernel == "rbf":
        g = 1.0 / X.shape[1] if gamma == "1/d" else gamma
        K = np.ascontiguousarray(RBF().prepare(X).gram({"gamma": g}))
    else:
        K = np.ascontiguousarray(Linear().prepare(X).gram({}))
    diag = np.ascontiguousarray(np.diag(K))
    solver = SMO(tol=1e-3, check_kernel=False)
    full = solver.solve(y, C=C, gram=K)
    todo = np.flatnonzero(exact_loo(y, C=C, gram=K, full=full).settled_by == 2)[:40]
    setup = RetrainSetup(None, K, diag, y, C, full, solver, 10**8)  # type: ignore[arg-type]
    a, G = np.ascontiguousarray(full.alpha), np.ascontiguousarray(full.gradient)
    work = loop.work_arrays(n)
    whole = setup.options(tol=1e-3, franc=False, max_iter=10**8)
    best, counted = np.inf, 0.0
    for _ in range(3):  # the unit: CPU per counted eps-KKT step, unshrunk retrains to the end
        t0, counted = time.process_time(), 0.0
        for r in todo[:15]:
            counted += loop.retrain_one(K, diag, y, a, G, int(r), whole, work)[4]
        best = min(best, time.process_time() - t0)
    unit = best / counted
    first = setup.options(tol=1e-3, franc=False, max_iter=200)
    starts = []
    for r in todo:
        if loop.retrain_one(K, diag, y, a, G, int(r), first, work)[1] == loop.MAX_ITER:
            starts.append((int(r), work[0].copy(), work[1].copy()))
    if not starts:
        return None
    gbar = FullGbar(K, y, C, full.alpha)
    gbar.get()
    best = np.inf
    for _ in range(3):
        swept = reads = steps = 0
        t0 = time.process_time()
        for r, a0, g0 in starts:
            store = CountedGram(K, diag)
            tail = ShrinkingTail(setup, store, gbar, a0.copy(), g0.copy(), r, max_iter=10**8)
            tail.advance()
            swept += tail.run.swept
            reads += store.read + tail.moved * n
            steps += tail.run.iterations
        best = min(best, time.process_time() - t0)
    return best / unit, swept, reads, steps, len(starts), n


def shrink_cost() -> None:
    """The shrinking SMO's CPU count (``WORK_SWEPT``, ``WORK_READ``, ``WORK_SHRINK_STEP``,
    ``WORK_TAIL`` in ``svmtune.solvers.loo._shrinking_cost``), fitted to :data:`SHRINK_COST_CASES`:
    the CPU of each case's shrinking runs (:func:`_shrink_case`), in eps-KKT steps of the
    compiled loop, as
    ``(WORK_SWEPT swept + WORK_READ reads + WORK_SHRINK_STEP steps + WORK_TAIL runs) / n``
    (least squares, relative errors); prints the fit and the count in use against the time."""
    from svmtune.solvers.loo import shrinking_cpu

    rows = []
    for name, kernel, C, gamma in SHRINK_COST_CASES:
        got = _shrink_case(name, kernel, C, gamma)
        if got is not None:
            rows.append((name, kernel, C, *got))
    m = np.array([r[3] for r in rows])
    A = np.array([[r[4], r[5], r[6], r[7]] for r in rows], dtype=float)
    n = np.array([r[8] for r in rows], dtype=float)
    A /= n[:, None]
    w = 1.0 / m
    fit = np.linalg.lstsq(A * w[:, None], m * w, rcond=None)[0]
    in_use = np.array([shrinking_cpu(*r[4:6], r[8], steps=r[6], runs=r[7]) for r in rows])
    for (name, kernel, C, *_), meas, pred, cur in zip(rows, m, A @ fit, in_use, strict=True):
        print(
            f"{name:11s} {kernel:6s} C={C:<6g} measured {meas:9.0f}  fitted {pred:9.0f}"
            f"  in use {cur:9.0f}"
        )
    for label, pred in (("fitted", A @ fit), ("in use", in_use)):
        err = np.abs(pred / m - 1.0)
        print(
            f"{label}: counted / measured - 1: median {np.median(err):.0%}, worst {np.max(err):.0%}"
        )
    print(
        f"fit: WORK_SWEPT {fit[0]:.2f}, WORK_READ {fit[1]:.2f}, WORK_SHRINK_STEP {fit[2]:.0f},"
        f" WORK_TAIL {fit[3]:.0f}"
    )


PART_COST_CASES = [
    (name, kernel, C)
    for name in ["heart", "sonar", "ionosphere", "wdbc", "banana", "ringnorm", "splice"]
    for kernel, Cs in (("rbf", (0.1, 1.0, 10.0, 100.0)), ("linear", (0.1, 1.0)))
    for C in Cs
    if not (name in ("ringnorm", "splice") and (kernel == "linear" or C > 1.0))
]


def _part_case(name: str, kernel: str, C: float, repeats: int) -> tuple | None:
    """One case of :func:`part_cost`: (n, parts, fixed seconds per part, seconds per counted
    eps-KKT step), or None where the CPU test took Franc's stop (no eps-KKT call to compare)."""
    from svmtune.solvers.loo import efficiency_test as eff
    from svmtune.solvers.loo import retrain_passes as passes

    y, K, full = _case(name, kernel, C)
    measures: list = []
    settle = eff.Measure.settle

    def keep(self, *a, **k):  # the test's Measure, to read its counted overhead
        if not measures or measures[-1] is not self:
            measures.append(self)
        return settle(self, *a, **k)

    probe = eff.Probe()
    retrain_shrinking = passes.retrain_shrinking
    timed = [0.0]

    def counted(setup, points, **kw):  # the eps-KKT call's retrains, counted and timed
        if kw.get("measure") is None and not kw.get("franc"):
            kw["measure"] = probe
            t0 = time.process_time()
            out = retrain_shrinking(setup, points, **kw)
            timed[0] += time.process_time() - t0
            return out
        return retrain_shrinking(setup, points, **kw)

    t_kkt, t_franc = [], []
    saved = (eff.PART_POINTS, passes.PART_POINTS)
    eff.Measure.settle = keep
    try:
        for _ in range(repeats):
            eff.PART_POINTS = passes.PART_POINTS = 10**12  # never tested: eps-KKT, counted
            passes.retrain_shrinking = counted
            probe.costs.clear()
            timed[0] = 0.0
            t0 = time.process_time()
            exact_loo(y, C=C, gram=K, full=full, stopping="franc")
            t_kkt.append(time.process_time() - t0)
            unit = timed[0] / sum(probe.costs.values())
            passes.retrain_shrinking = retrain_shrinking
            eff.PART_POINTS = passes.PART_POINTS = 0  # always tested, its parts free
            measures.clear()
            t0 = time.process_time()
            res = exact_loo(y, C=C, gram=K, full=full, stopping="franc")
            t_franc.append(time.process_time() - t0)
    finally:
        eff.PART_POINTS, passes.PART_POINTS = saved
        eff.Measure.settle = settle
        passes.retrain_shrinking = retrain_shrinking
    if res.stopping_used != "kkt" or not measures:
        return None
    m = measures[-1]
    counted_over = m.overhead() * unit  # what the count sees beyond the eps-KKT stop
    fixed = (min(t_franc) - min(t_kkt) - counted_over) / m.parts
    return y.size, m.parts, fixed, unit, min(t_kkt)


PART_COST_CALLS = 0.1
"""Seconds: :func:`part_cost` fits on the calls shorter than this, where a part's fixed CPU
stands out of the two calls' noise (seconds-long calls differ by more than a part costs)."""


def part_cost(repeats: int = 7) -> None:
    """The fixed CPU of a part of the CPU test (``PART_POINTS`` of
    ``svmtune.solvers.loo.efficiency_test``), fitted: on each case where the test chose the eps-KKT
    stop, the CPU of ``exact_loo(stopping="franc")`` with the test always run minus the same
    call never tested (least of ``repeats``, interleaved), less what the count already sees
    (the measuring, Franc's first steps), per part, in eps-KKT steps over all points (timed
    on the untested call's retrains) times the points. Prints each case and the median."""
    from svmtune.solvers.loo import efficiency_test

    fits = []
    print("case                          n  parts  fixed us/part  ns/step   points  call ms")
    for name, kernel, C in PART_COST_CASES:
        got = _part_case(name, kernel, C, repeats)
        if got is None:
            print(f"{name:11s} {kernel:6s} C={C:<6g}  (Franc's stop chosen)")
            continue
        n, parts, fixed, unit, call = got
        points = fixed / unit * n
        if call < PART_COST_CALLS:
            fits.append(points)
        print(
            f"{name:11s} {kernel:6s} C={C:<6g} {n:5d} {parts:5d} {fixed * 1e6:13.0f}"
            f" {unit * 1e9:8.0f} {points:9.0f} {call * 1e3:8.1f}"
        )
    print(
        f"fit: PART_POINTS {np.median(fits):.0f} (median of the {len(fits)} calls under"
        f" {PART_COST_CALLS * 1e3:.0f} ms; quartiles"
        f" {np.quantile(fits, 0.25):.0f}-{np.quantile(fits, 0.75):.0f}; in use"
        f" {efficiency_test.PART_POINTS})"
    )
