"""Every new tuner with every objective and kernel model: same budget, same trace columns."""

import numpy as np
import pytest

from svmtune.kernels import RBF, AnisotropicRBF, MultipleKernel
from svmtune.objectives import KFoldCV, LOOEstimate
from svmtune.tuners import TPE, VNS, NestedVNS, OptunaTuner, RandomSearch

TUNERS = {
    "VNS": lambda: VNS(max_evals=4),
    "NestedVNS": lambda: NestedVNS(m=5, max_evals=4),
    "TPE": lambda: TPE(max_evals=4),
    "Random": lambda: RandomSearch(max_evals=4),
    "OptunaTuner": lambda: OptunaTuner(max_evals=4),
}
KERNELS = {
    "RBF": lambda: RBF(),
    "AnisotropicRBF": lambda: AnisotropicRBF(n_features=4),
    "MKL (13)": lambda: MultipleKernel([[0, 1], [2, 3]], form="weights"),
    "MKL (8)": lambda: MultipleKernel([[0, 1], [2, 3]], form="weights_widths"),
    "MKL linear": lambda: MultipleKernel(
        [[0, 1], [2, 3]], base="linear", form="weights", weight_bounds=(1e-3, 1e2)
    ),
}
OBJECTIVES = {"KFoldCV": lambda: KFoldCV(k=3), "LOO2": lambda: LOOEstimate(model="loo2")}


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(-0.7, 1, (20, 4)), rng.normal(0.7, 1, (20, 4))])
    return X, np.repeat([-1.0, 1.0], 20)


@pytest.mark.parametrize("objective", list(OBJECTIVES))
@pytest.mark.parametrize("kernel", list(KERNELS))
def test_every_tuner_runs_within_the_same_budget_with_the_same_trace(data, objective, kernel):
    columns = None
    for name, make in TUNERS.items():
        obj, k = OBJECTIVES[objective](), KERNELS[kernel]()
        if objective == "LOO2" and k.includes_scale:
            continue  # the LOO estimates have no C and a kernel weight changes nothing
        res = make().tune(obj, *data, kernel=k, random_state=0)
        assert len(res.trace) == 4 and res.stopped_by == "max_evals", name
        assert res.best_value == res.trace["value"].min()
        assert 0.0 <= res.best_classifier.error(*data) <= 1.0
        cols = [c for c in res.trace.columns if c != "level"]
        assert columns is None or cols == columns, name
        columns = cols
