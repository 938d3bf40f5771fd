"""One BLAS thread while SMO's compiled loop computes kernel rows.

The loop computes each complete RBF or linear kernel row with one BLAS matrix-vector product
(``X x_r``). A multi-threaded BLAS (OpenBLAS) splits that product over its threads once the
points are large enough, and its idle threads then spin between calls, burning the other cores
while the single-threaded loop runs: a row of 25,000 points of 20 features took about twice the
CPU, and whole fits several times the CPU, of the same fit with one BLAS thread.
:func:`one_blas_thread` limits BLAS to one thread for the duration of a solve and restores the
previous setting after it.

The BLAS thread count is process-wide, and threadpoolctl lets one Python thread at a time
control OpenBLAS: the limit is set only for solves run in the main thread (a solve in another
thread, e.g. a fold of :class:`~svmtune.objectives.KFoldCV` with ``n_jobs``, runs under whatever
limit is in force). Nested solves set it once. Numba's ``np.dot`` calls SciPy's BLAS, which may
be a second OpenBLAS beside NumPy's: both are limited.

The loaded libraries are inspected once per process (:func:`blas_controller`): threadpoolctl
walks them through a C callback, and a Ctrl-C raised inside that callback is swallowed (the run
would go on), so the inspection holds SIGINT back and delivers it when it is done.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["BLAS_ROW_THRESHOLD", "blas_controller", "one_blas_thread"]

BLAS_ROW_THRESHOLD = 9216
"""Points times features below which the loop's matrix-vector products run on one BLAS thread
anyway (OpenBLAS splits ``gemv`` from ``2304 * 4`` entries on): no limit is set for them."""

_depth = 0
_restore: Any = None
_controller: Any = None


@contextmanager
def _sigint_held() -> Iterator[None]:
    """Hold a SIGINT that arrives during the body and deliver it after (main thread only:
    elsewhere Python cannot change signal handlers, and no Ctrl-C is raised there)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught:
            signal.raise_signal(signal.SIGINT)  # now, with the previous handler, outside C


def blas_controller() -> Any:
    """This process's threadpoolctl controller of the BLAS libraries (NumPy's and SciPy's),
    made on the first call: the loaded libraries are inspected once, with SIGINT held."""
    global _controller
    if _controller is None:
        import scipy.linalg.cython_blas  # noqa: F401  (numba's np.dot calls it: load it first)
        from threadpoolctl import ThreadpoolController

        with _sigint_held():
            _controller = ThreadpoolController().select(user_api="blas")
    return _controller


def _limit() -> Any:
    """Limit BLAS to one thread; the object whose ``restore_original_limits`` undoes it, or
    None when no BLAS library runs on more than one thread."""
    controller = blas_controller()
    if all(lib.num_threads <= 1 for lib in controller.lib_controllers):
        return None
    return controller.limit(limits=1)


@contextmanager
def one_blas_thread(active: bool = True) -> Iterator[None]:
    """Run the body with one BLAS thread, when ``active`` and in the main thread.

    Examples
    --------
    >>> import numpy as np
    >>> with one_blas_thread():
    ...     float(np.ones(3) @ np.ones(3))
    3.0
    """
    global _depth, _restore
    if not active or threading.current_thread() is not threading.main_thread():
        yield
        return
    if _depth == 0:
        _restore = _limit()
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0 and _restore is not None:
            _restore.restore_original_limits()
            _restore = None
