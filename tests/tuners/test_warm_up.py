"""A first ``Tuner.tune`` call in a process is charged for its own work only: loading or
compiling numba's machine code happens in the untimed warm-up before it, as in a study."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np

from svmtune.kernels import RBF
from svmtune.objectives import LOOEstimate
from svmtune.tuners import Bisection
from svmtune.tuners._warm_up import _WARMED, _key, warm_up_method

# In a fresh process, every acquisition of numba's compiler lock (a compile, or a load of
# cached machine code) during a first Bisection run must happen inside the warm-up.
SCRIPT = textwrap.dedent(
    """
    import sys
    from numba.core import event
    from svmtune.datasets import load
    from svmtune.kernels import RBF
    from svmtune.objectives import LOOEstimate
    from svmtune.tuners import Bisection

    seen = {"warm": 0, "timed": 0}

    class Where(event.Listener):
        def on_start(self, ev):
            names, frame = set(), sys._getframe()
            while frame is not None:  # not inspect.stack: it imports, which compiles
                names.add(frame.f_code.co_name)
                frame = frame.f_back
            seen["warm" if "warm_up_method" in names else "timed"] += 1

        def on_end(self, ev):
            pass

    event.register("numba:compiler_lock", Where())
    X, y = load("heart")
    Bisection().tune(LOOEstimate(model="loo2"), X, y, kernel=RBF())
    print(seen["warm"], seen["timed"])
    """
)


def test_the_first_call_loads_compiled_code_only_in_the_warm_up():
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True, timeout=300
    )
    warm, timed = map(int, out.stdout.split())
    assert warm > 0  # the machine code was loaded (or compiled) in this process ...
    assert timed == 0  # ... and never inside the timed run


def test_the_warm_up_runs_once_per_method_and_process():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.repeat([-1.0, 1.0], 20)
    objective, tuner, kernel = LOOEstimate(model="loo3"), Bisection(tol=0.2), RBF()
    _WARMED.discard(_key(objective, tuner, kernel))
    assert warm_up_method(objective, tuner, kernel, X, y)
    assert not warm_up_method(objective, tuner, kernel, X, y)
    assert not warm_up_method(LOOEstimate(model="loo3"), Bisection(tol=0.2), RBF(), X, y)
