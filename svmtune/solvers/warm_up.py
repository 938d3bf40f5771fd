"""Compile (or load from numba's cache) the compiled loops a run uses, before it starts.

Every compiled function is compiled on its first call (no signature lists, so importing svmtune
compiles nothing) and cached on disk (``cache=True``): a fresh install pays the compile time once,
in the first run that calls it. Parallel workers started at the same time on an empty cache
would each compile the same functions at once; calling :func:`warm_up` in the parent first lets
them load the cached machine code instead.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

from svmtune.kernels import RBF, Linear
from svmtune.solvers.loo import exact_loo
from svmtune.solvers.smo import SMO, KernelRows, check_gram

__all__ = ["compile_cache_is_warm", "warm_up"]


def _points(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` overlapping points of two classes in 2-d (not separable: some alpha at C)."""
    t = np.linspace(0.0, 1.0, n)
    X = np.column_stack([t, np.sin(7.0 * t)])
    y = np.where(np.arange(n) % 3 == 0, -1.0, 1.0)
    return X, y


def _retrain_once(y: np.ndarray) -> None:
    """One call of the compiled retrain loop, with the argument types exact leave-one-out
    passes it, from ``alpha = 0`` (feasible; the dual's gradient is then -1)."""
    from svmtune.solvers.loo import _exact_loo_loop

    n = y.shape[0]
    K = np.eye(n)  # any positive definite Gram matrix
    diag = np.ascontiguousarray(np.diag(K))
    opts = _exact_loo_loop.RetrainOptions(10.0, 1e-3, True, 10, 1, True, 8)
    work = _exact_loo_loop.work_arrays(n)
    _exact_loo_loop.retrain_one(K, diag, y, np.zeros(n), -np.ones(n), 0, opts, work)


def warm_up(*, smo: bool = True, exact: bool = True, kernel_sums: bool = True) -> float:
    """Run every compiled path of the solvers once on a tiny problem; returns the seconds spent.

    Covers SMO on a full Gram matrix (the fused RBF Gram, the Gram check of other kernels), on
    kernel rows computed in the loop, with shrinking and left-out points (the gradient
    recomputation) (``smo``), the exact leave-one-out retrain loop (``exact``; with ``smo``
    too, a whole exact leave-one-out) and the RBF kernel's fused weighted sums that
    leave-one-out estimates use (``kernel_sums``). On a warm numba cache this loads the machine
    code (a fraction of a second); on an empty one it compiles it (seconds) and fills the cache
    for every later process. The SMO loop shares only small helpers with the other two, so two
    processes can compile ``warm_up(exact=False, kernel_sums=False)`` and ``warm_up(smo=False)``
    at the same time, in about equal times.

    Parameters
    ----------
    smo : bool, default True
        The SMO loop's paths.
    exact : bool, default True
        The exact leave-one-out retrain loop.
    kernel_sums : bool, default True
        The RBF kernel's fused weighted sums (:meth:`svmtune.kernels.RBF.net_sums`).

    Returns
    -------
    float
        Wall-clock seconds the warm-up took.

    Examples
    --------
    >>> from svmtune.solvers import warm_up
    >>> warm_up() >= 0.0
    True
    """
    t0 = time.perf_counter()
    X, y = _points(24)
    params = {"gamma": 1.0}
    if smo:
        solver = SMO(max_iter=1000)
        solver.solve(y, C=10.0, kernel=RBF(), params=params, X=X)  # the fused Gram
        solver.solve(y, C=10.0, kernel=Linear(), params={}, X=X)  # a Gram that is checked
        rows = KernelRows(RBF(), params, X, capacity=4)
        solver.solve(y, C=10.0, gram=rows, active=np.arange(1, 24))  # rows in the loop, left out
        check_gram(np.eye(2))
    if exact:
        _retrain_once(y)  # the retrain loop alone: nothing of the SMO loop
        if smo:
            exact_loo(y, C=10.0, gram=RBF().gram(params, X))
    if kernel_sums:
        kernel = RBF()
        W = np.ones((X.shape[0], 1))
        kernel.net_sums(params, X, W)
        prepared = kernel.prepare(X)
        prepared.weighted_sums(params, W, skip=0)
        prepared.weighted_sums(params, W)
    return time.perf_counter() - t0


def _cache_places() -> list[Path]:
    """Where numba keeps (or would keep) this package's cache, in the order of its locators:
    ``$NUMBA_CACHE_DIR`` when set; else ``__pycache__`` beside the source when it is writable;
    else the user's cache folder (``$XDG_CACHE_HOME/numba`` or ``~/.cache/numba``)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return [Path(os.environ["NUMBA_CACHE_DIR"])]
    source = Path(__file__).parent / "smo"  # the SMO room, where the SMO loop lives
    in_tree = source / "__pycache__"
    if os.access(in_tree if in_tree.is_dir() else source, os.W_OK):
        return [in_tree]
    user = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return [Path(user) / "numba"]


def compile_cache_is_warm() -> bool:
    """Whether numba's on-disk cache holds the SMO loop already (a cheap file test).

    Looked for where numba itself looks first (:func:`_cache_places`): ``$NUMBA_CACHE_DIR`` when
    set (numba then ignores the others), else ``__pycache__`` beside the source when writable,
    else the user's cache folder. ``False`` means a run would compile (a fresh install, a new
    numba, or a new ``NUMBA_CACHE_DIR``).

    Examples
    --------
    >>> from svmtune.solvers import compile_cache_is_warm, warm_up
    >>> _ = warm_up()
    >>> compile_cache_is_warm()
    True
    """
    pattern = "_smo_loop.*.nbi"
    return any(
        place.is_dir() and next(place.rglob(pattern), None) is not None for place in _cache_places()
    )
