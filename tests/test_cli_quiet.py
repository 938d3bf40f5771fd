"""``svmtune run`` is quiet and says what it left out: no flood of optuna's deprecation and
experimental warnings from a study with an OptunaSearchCV peer, and a method the study file
could not define (a missing extra) named in the output and in report.md."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("optuna_integration")

STUDY = textwrap.dedent(
    """
    import numpy as np
    from optuna.distributions import FloatDistribution
    from optuna_integration import OptunaSearchCV
    from sklearn.svm import SVC

    from svmtune.kernels import RBF
    from svmtune.objectives import LOOEstimate
    from svmtune.study import Method, PeerMethod, Study
    from svmtune.tuners import Grid

    def blobs():
        rng = np.random.default_rng(0)
        X = np.vstack([rng.normal(-1, 1, (30, 2)), rng.normal(1, 1, (30, 2))])
        return X, np.repeat([0, 1], 30)

    search = OptunaSearchCV(
        SVC(), {"C": FloatDistribution(0.1, 10.0, log=True)}, n_trials=3, cv=3, n_jobs=1
    )
    study = Study(
        "quiet",
        datasets=[blobs],
        n_splits=1,
        methods={
            "LOO2+grid": Method(LOOEstimate(), Grid(n_points=3), RBF()),
            "OptunaSearchCV": PeerMethod(search),
        },
        left_out={"Ghost search": "needs pip install 'svmtune[ghost]'"},
        storage="sqlite:///quiet.db",
    )
    """
)


def test_run_is_quiet_and_names_what_it_left_out(tmp_path):
    (tmp_path / "quiet.py").write_text(STUDY)
    out = subprocess.run(
        [sys.executable, "-m", "svmtune.cli", "run", "quiet.py", "--n-jobs", "1", "--no-progress"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    assert "Warning" not in out.stderr, out.stderr
    assert "Trial 0 finished" not in out.stderr  # optuna's per-trial INFO lines
    assert "left out: Ghost search (needs pip install 'svmtune[ghost]')" in out.stderr
    assert "left out: Ghost search" in out.stdout
    report = (tmp_path / "results" / "quiet" / "report.md").read_text()
    assert "- Ghost search: not run, needs pip install 'svmtune[ghost]'" in report
