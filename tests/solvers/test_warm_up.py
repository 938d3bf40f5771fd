"""warm_up() runs every compiled solver path; each entry point has one specialisation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from svmtune.kernels import RBF
from svmtune.solvers import SMO, KernelRows, exact_loo, warm_up
from svmtune.solvers.loo import _exact_loo_loop
from svmtune.solvers.smo import _gram_scan, _loop_rows, _rbf_gram, _smo_loop


def test_warm_up_compiles_one_specialisation_per_entry_point() -> None:
    entry_points = [
        _smo_loop.smo_loop,
        _exact_loo_loop.retrain_one,
        _gram_scan.scan_gram,
        _loop_rows.gradient_from_rows,
        _rbf_gram._exponents_from_products,
    ]
    warm_up()
    compiled = {f.__name__: list(f.signatures) for f in entry_points}
    assert all(len(s) == 1 for s in compiled.values()), compiled
    # real solves with other sizes, C and stops reuse what warm_up compiled or loaded
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 1] > 0, 1.0, -1.0)
    SMO(selection="max_violating_pair").solve(y, C=3.0, kernel=RBF(), params={"gamma": 2.0}, X=X)
    SMO().solve(y, C=0.5, gram=KernelRows(RBF(), {"gamma": 2.0}, X, capacity=3))
    exact_loo(y, C=2.0, gram=RBF().gram({"gamma": 2.0}, X), stopping="kkt")
    assert {f.__name__: list(f.signatures) for f in entry_points} == compiled


def test_a_solve_in_progress_refuses_arrays_the_loop_is_not_compiled_for() -> None:
    from svmtune.solvers import FullGram, SMORun

    y = np.array([-1.0, -1.0, 1.0, 1.0])
    store = FullGram(np.eye(4))
    ok = {"tol": 1e-3, "second_order": True, "max_iter": 10, "kernel_evals": 0}
    active = np.arange(4, dtype=np.int64)
    SMORun(store, y, np.ones(4), np.zeros(4), -np.ones(4), active, **ok)
    with pytest.raises(ValueError, match="alpha as a writeable C-contiguous 1-d float64"):
        SMORun(store, y, np.ones(4), np.zeros(8)[::2], -np.ones(4), active, **ok)
    with pytest.raises(ValueError, match="active as a .* int64 array; got int32"):
        SMORun(store, y, np.ones(4), np.zeros(4), -np.ones(4), active.astype(np.int32), **ok)


def _numba_index_folder(env: dict[str, str], cwd: Path) -> str:
    """Where numba itself keeps the SMO loop's cache index under ``env`` (a new process: numba
    reads its settings at import; run in ``cwd``, away from a checkout, so that it imports the
    svmtune this test imports). Nothing is compiled."""
    import subprocess
    import sys

    code = (
        "from pathlib import Path; from svmtune.solvers.smo import _smo_loop as m; "
        "print(Path(m.smo_loop._cache._cache_file._index_path).resolve().parent)"
    )
    cmd = [sys.executable, "-c", code]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_compile_cache_is_looked_for_where_numba_keeps_it(tmp_path, monkeypatch) -> None:
    import os

    from svmtune.solvers import compile_cache_is_warm
    from svmtune.solvers.warm_up import _cache_places

    # NUMBA_CACHE_DIR, when set, is the only place numba looks: an empty one is cold, whatever
    # the cache beside the source holds (a fresh install with NUMBA_CACHE_DIR set)
    warm_up()
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    monkeypatch.setenv("NUMBA_CACHE_DIR", env["NUMBA_CACHE_DIR"])
    assert not compile_cache_is_warm()
    (place,) = _cache_places()
    assert Path(_numba_index_folder(env, tmp_path)).is_relative_to(place.resolve())
    folder = Path(_numba_index_folder(env, tmp_path))
    folder.mkdir(parents=True, exist_ok=True)  # numba makes it at import
    (folder / "_smo_loop.smo_loop-84.py311.nbi").touch()
    assert compile_cache_is_warm()
    # unset: the first place is numba's own choice (beside the source, or the user's cache)
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    env.pop("NUMBA_CACHE_DIR")
    assert Path(_numba_index_folder(env, tmp_path)).is_relative_to(_cache_places()[0].resolve())
