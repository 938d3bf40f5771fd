"""The new tuners in a study: the same seed gives the same traces, with n_jobs=1 or 2."""

import pandas as pd

from svmtune.kernels import RBF, AnisotropicRBF
from svmtune.objectives import LOOEstimate
from svmtune.study import Method, Study
from svmtune.tuners import TPE, VNS, NestedVNS, RandomSearch
from tests.study._toys import blobs, halves


def test_vns_nested_vns_tpe_and_random_search_repeat_across_n_jobs(tmp_path):
    loo2 = LOOEstimate(model="loo2")
    kw = dict(
        datasets=[blobs],
        split=halves,
        n_splits=2,
        seed=10,
        methods={
            "VNS": Method(loo2, VNS(max_evals=8), RBF()),
            "NestedVNS": Method(loo2, NestedVNS(m=(4, 5)), AnisotropicRBF(n_features=4)),
            "TPE": Method(loo2, TPE(max_evals=8, n_startup_trials=4), RBF()),
            "Random": Method(loo2, RandomSearch(max_evals=6), RBF()),
        },
    )
    one = Study("s", storage=f"sqlite:///{tmp_path / 'one.db'}", **kw).run(n_jobs=1)
    two = Study("s", storage=f"sqlite:///{tmp_path / 'two.db'}", **kw).run(n_jobs=2)
    t1, t2 = one.traces(), two.traces()
    assert len(t1) == 2 * (8 + 9 + 8 + 6)
    keep = ["dataset", "split", "method", "eval", "value", "best_value"]
    keep += [c for c in t1.columns if c.startswith("param_")]
    pd.testing.assert_frame_equal(t1[keep], t2[keep])
    r1, r2 = one.results(), two.results()
    assert r1["status"].eq("ok").all()
    pd.testing.assert_series_equal(r1["test_error"], r2["test_error"])
