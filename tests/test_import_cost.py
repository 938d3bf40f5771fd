"""Heavy libraries load only where they are used.

scikit-learn (with scipy), numba and the compiled solver loops, joblib and matplotlib cost
seconds to import. Building a study's options, loading a study file and reading its stored
results must not pay for them: each is checked in a fresh interpreter, by the modules it leaves
out of ``sys.modules`` (a count, not a time).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HEAVY = ("sklearn", "scipy", "numba", "joblib", "matplotlib", "dask", "distributed")
ROOT = Path(__file__).resolve().parents[1]


def _loaded_after(code: str, tmp_path: Path) -> list[str]:
    probe = textwrap.dedent(code) + textwrap.dedent(
        f"""
        import sys
        print("loaded:" + ",".join(m for m in {HEAVY!r} if m in sys.modules))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        timeout=300,
    ).stdout
    last = out.strip().splitlines()[-1]
    assert last.startswith("loaded:"), out
    return [m for m in last.removeprefix("loaded:").split(",") if m]


def _tiny_study(folder: Path, **methods: str) -> Path:
    """A study file ``tiny.py`` in ``folder``: heart, one split, ``methods`` (name -> a
    ``Method(...)`` expression)."""
    lines = [
        "from svmtune.kernels import RBF",
        "from svmtune.objectives import ExactLOO, KFoldCV, LOOEstimate",
        "from svmtune.study import Method, Study",
        "from svmtune.tuners import Bisection, Grid",
        "",
        'study = Study("tiny", datasets=["heart"], n_splits=1, methods={',
        *(f"    {name!r}: {expr}," for name, expr in methods.items()),
        "})",
    ]
    path = folder / "tiny.py"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_building_a_study_loads_no_heavy_library(tmp_path: Path) -> None:
    code = """
        from svmtune.kernels import RBF, AnisotropicRBF
        from svmtune.objectives import ExactLOO, KFoldCV, LOOEstimate, PlattError
        from svmtune.study import Method, Study
        from svmtune.tuners import TPE, VNS, Bisection, GradientDescent, Grid
        import svmtune.cli
        study = Study(
            "probe",
            datasets=["heart"],
            n_splits=1,
            methods={
                "cv": Method(KFoldCV(k=5), Grid(n_points=2), RBF()),
                "tpe": Method(KFoldCV(k=5), TPE(max_evals=3), AnisotropicRBF(n_features=23)),
                "loo": Method(ExactLOO(), VNS(max_evals=3), RBF()),
                "loo2": Method(LOOEstimate(model="loo2"), Bisection(), RBF()),
                "platt": Method(PlattError(), GradientDescent(), RBF()),
            },
        )
        assert len(study.cell_keys()) == 5
    """
    assert _loaded_after(code, tmp_path) == []


@pytest.mark.slow
def test_a_stored_rerun_loads_no_heavy_library(tmp_path: Path) -> None:
    study = _tiny_study(
        tmp_path,
        cv="Method(KFoldCV(k=3), Grid(n_points=2), RBF())",
        loo2='Method(LOOEstimate(model="loo2"), Bisection(), RBF())',
    )
    run = ["run", str(study), "--output", "out", "--n-jobs", "1"]
    code = f"""
        from svmtune.cli import main
        assert main({run!r}) == 0
    """
    _loaded_after(code, tmp_path)  # computes and stores every cell
    assert _loaded_after(code, tmp_path) == []  # reads them back


@pytest.mark.slow
def test_a_first_run_on_an_empty_compile_cache_compiles_in_the_workers_first(
    tmp_path: Path,
) -> None:
    """A fresh install (an empty ``NUMBA_CACHE_DIR``): ``svmtune run --n-jobs 2`` says it
    compiles, compiles in its two workers (not in the parent, which imports no numba), fills
    the cache, and the cells are right; the next run finds the cache warm."""
    import os

    study = _tiny_study(
        tmp_path,
        exact="Method(ExactLOO(), Grid(n_points=2), RBF())",
        loo2='Method(LOOEstimate(model="loo2"), Bisection(), RBF())',
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    run = ["run", str(study), "--output", "out", "--n-jobs", "2"]
    probe = textwrap.dedent(
        f"""
        import sys
        from svmtune.cli import main
        assert main({run!r}) == 0
        print("parent loaded numba:", "numba" in sys.modules)
        from svmtune.solvers import compile_cache_is_warm
        print("warm after:", compile_cache_is_warm())
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "compiling the solver loops first" in done.stderr
    assert "parent loaded numba: False" in done.stdout
    assert "warm after: True" in done.stdout
    assert "2 cells stored" in done.stdout and "(2 ok)" in done.stdout
    again = subprocess.run(
        [sys.executable, "-m", "svmtune.cli", *run, "--retry-failed"],
        env=env,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert again.returncode == 0, again.stderr
    assert "compiling" not in again.stderr


def test_the_estimators_load_no_compiled_solver_and_no_study_library(tmp_path: Path) -> None:
    """``from svmtune import SVC, TunedSVC`` costs scikit-learn's own imports and no more of the
    heavy ones: numba and the compiled loops load at the first fit, Optuna, SQLAlchemy and
    matplotlib never (``python benchmarks/memory.py --cases imports``: the same 148 MiB as
    ``import sklearn.svm``)."""
    probe = "from svmtune import SVC, TunedSVC\nSVC(), TunedSVC()\n"
    loaded = _loaded_after(probe, tmp_path)
    assert not {"numba", "matplotlib", "dask", "distributed"} & set(loaded)
    out = subprocess.run(
        [sys.executable, "-c", probe + "import json, sys\nprint(json.dumps(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        timeout=300,
    ).stdout
    modules = set(json.loads(out.strip().splitlines()[-1]))
    assert not {"optuna", "sqlalchemy", "llvmlite"} & modules
