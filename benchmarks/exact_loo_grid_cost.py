"""CPU of one exact-LOO tuning run of the peers study, setting by setting.

``studies/peers.py`` tunes ``ExactLOO()`` (Franc's stop, the CPU efficiency test) with the RBF
kernel on ``Grid(n_points=5)``, the default box (C = 0.1..1000, gamma = 0.001..10). This times
each of the 25 evaluations on one 70/30 split of a bundled data set (seed 0, features
standardized with the training part's statistics) and prints, per setting, the CPU seconds,
the LOO error, the points retrained, the retrains refined near zero, the retrains certified and
the stop the efficiency test kept, as JSON. To compare two versions of svmtune, run it with
``PYTHONPATH`` on a checkout of each, alternately (``git worktree add /tmp/old <commit>``)::

    PYTHONPATH=$PWD python benchmarks/exact_loo_grid_cost.py --data german
    PYTHONPATH=/tmp/old python benchmarks/exact_loo_grid_cost.py --data german --only 1000,1

The script prints; it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from svmtune.datasets import load
from svmtune.kernels import RBF
from svmtune.objectives import ExactLOO


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="german")
    parser.add_argument("--only", nargs="*", default=[], help="settings C,gamma (of the grid)")
    args = parser.parse_args()
    X, y = load(args.data)[:2]
    rng = np.random.default_rng(0)
    train = rng.random(y.shape[0]) < 0.7
    Xtr = X[train]
    sd = Xtr.std(axis=0)
    Xtr = (Xtr - Xtr.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    ytr = y[train]
    only = {tuple(float(v) for v in s.split(",")) for s in args.only}
    bound = ExactLOO().bind(Xtr, ytr, kernel=RBF())
    bound.evaluate({"C": 1.0, "gamma": 0.1})  # compile and load first
    out = {}
    for C in np.geomspace(0.1, 1000.0, 5):
        for gamma in np.geomspace(1e-3, 10.0, 5):
            key = (float(f"{C:g}"), float(f"{gamma:g}"))
            if only and key not in only:
                continue
            t0 = time.process_time()
            ev = bound.evaluate({"C": float(C), "gamma": float(gamma)})
            cpu = time.process_time() - t0
            info = ev.info
            out[f"{C:g},{gamma:g}"] = [round(cpu, 3), ev.value] + [
                info.get(k) for k in ("retrained", "refined", "certified", "stopping_used")
            ]
    print(json.dumps(out))
    print(f"total CPU {sum(v[0] for v in out.values()):.1f} s over {len(out)} settings")


if __name__ == "__main__":
    main()
