"""One BLAS thread during SMO's loop, restored after (also when solves overlap in threads)."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from threadpoolctl import ThreadpoolController, threadpool_limits

from svmtune.kernels import RBF
from svmtune.solvers import SMO
from svmtune.solvers.smo._blas_threads import one_blas_thread


def blas_threads() -> list[int]:
    import scipy.linalg.cython_blas  # noqa: F401  (SciPy's BLAS, which numba calls, loaded)

    return [
        lib.num_threads for lib in ThreadpoolController().select(user_api="blas").lib_controllers
    ]


@pytest.fixture
def two_threads():
    if not blas_threads():
        pytest.skip("no BLAS library that threadpoolctl can limit")
    with threadpool_limits(limits=2, user_api="blas"):
        yield


def test_limit_set_inside_and_restored_after(two_threads) -> None:
    before = blas_threads()
    with one_blas_thread():
        assert blas_threads() == [1] * len(before)
        with one_blas_thread():  # nested
            assert blas_threads() == [1] * len(before)
        assert blas_threads() == [1] * len(before)
    assert blas_threads() == before
    with one_blas_thread(active=False):
        assert blas_threads() == before


def test_other_threads_leave_the_limit_alone(two_threads) -> None:
    before = blas_threads()
    seen: list[list[int]] = []

    def other() -> None:
        with one_blas_thread():
            seen.append(blas_threads())

    t = threading.Thread(target=other)
    t.start()
    t.join(10)
    assert seen == [before]
    assert blas_threads() == before


def test_solve_on_loop_rows_restores_the_limit(two_threads) -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(800, 20))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=800) > 0, 1.0, -1.0)
    before = blas_threads()
    res = SMO().solve(y, C=1.0, kernel=RBF(), params={"gamma": 0.05}, X=X)
    assert res.converged and res.gap <= 1e-3
    assert blas_threads() == before


def test_the_libraries_are_inspected_once_per_process() -> None:
    from svmtune.solvers import blas_controller

    assert blas_controller() is blas_controller()


@pytest.fixture
def ctrl_c_raises():
    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_a_ctrl_c_during_the_inspection_arrives_after_it(ctrl_c_raises) -> None:
    """threadpoolctl inspects the libraries in a C callback, where a KeyboardInterrupt would be
    swallowed: a SIGINT during the inspection is held and raised once it is done."""
    import signal

    from svmtune.solvers.smo._blas_threads import _sigint_held

    finished = False
    with pytest.raises(KeyboardInterrupt):
        with _sigint_held():
            signal.raise_signal(signal.SIGINT)
            finished = True  # the body is not cut short
    assert finished
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_without_a_ctrl_c_nothing_is_raised(ctrl_c_raises) -> None:
    import signal

    from svmtune.solvers.smo._blas_threads import _sigint_held

    with _sigint_held():
        pass
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
