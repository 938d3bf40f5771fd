"""How far a best value so far that counted cheap evaluations would drop below the full ones.

Runs (or resumes) the quickstart study (``studies/quickstart.py``: three bundled data sets x
five splits; among its methods a cascade, TPE with a pruner and successive halving) and reads
its stored traces. Per method it prints

- ``runs``: tuning runs (cells) stored;
- ``cheap rows``: the share of trace rows not at full fidelity (a cascade's screen, a pruned
  trial, a successive-halving rung on fewer points than the training part), and ``cheap cost``
  the share of the kernel evaluations they cost (counted on the cost axis all the same);
- ``no full``: runs with no evaluation on all the training points (their best-so-far curve is
  empty);
- ``below ok``: runs where the lowest value of the rows with status ``"ok"`` (what the study's
  best-so-far curve counted before: subsample rungs included, screens and pruned trials not) is
  lower than the lowest full-fidelity value, and ``gap ok`` the mean of that difference over
  them (points of error); ``below any`` and ``gap any`` the same for the lowest value of any
  row (screens and pruned trials' partial errors included) -- how far a curve counting them
  would drop below anything a full evaluation reached. Where a run has no full value, the gap
  is to the run's answer's value (its last rung's);
- per data set, the end of each method's mean best-so-far curve (mean over the splits of the
  run's final best value, percent) by the full-fidelity rule (``full``, NaN where no run has a
  full value) and by the rule that counted every ``ok`` row (``ok rows``);
- per successive-halving run, the training points and those of its last rung.

    python benchmarks/fidelity.py                                  # results/quickstart.db
    python benchmarks/fidelity.py --storage sqlite:////tmp/q.db
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from svmtune.study import best_so_far, full_fidelity, load_study

STUDY = Path(__file__).resolve().parents[1] / "studies" / "quickstart.py"


def fidelity_table(results: pd.DataFrame, traces: pd.DataFrame) -> pd.DataFrame:
    """One row per method: the columns the module docstring lists."""
    tr = traces.copy()
    tr["full"] = full_fidelity(tr)
    tr["best"] = best_so_far(tr)
    ok_value = tr["value"].where(tr["status"].astype(str) == "ok")
    tr["ok_value"] = pd.to_numeric(ok_value, errors="coerce")
    answer = results.set_index(["dataset", "split", "method"])["objective_value"]
    tr["any_value"] = pd.to_numeric(tr["value"], errors="coerce")
    rows = []
    for method, g in tr.groupby("method", sort=False):
        gaps: dict[str, list[float]] = {"ok": [], "any": []}
        no_full = 0
        for key, run in g.groupby(["dataset", "split"]):
            full_min = run.loc[run["full"], "value"].min()
            if not np.isfinite(full_min):
                no_full += 1
                full_min = float(answer.get((key[0], key[1], method), np.nan))
            for rule in gaps:
                low = run[f"{rule}_value"].min()
                if np.isfinite(full_min) and low < full_min:
                    gaps[rule].append(100 * (full_min - low))
        kev = pd.to_numeric(g["kernel_evals"], errors="coerce").fillna(0)
        rows.append(
            {
                "method": method,
                "runs": g.groupby(["dataset", "split"]).ngroups,
                "cheap rows": f"{(~g['full']).mean():.0%}",
                "cheap cost": f"{kev[~g['full']].sum() / max(kev.sum(), 1):.0%}",
                "no full": no_full,
                **{
                    k: v
                    for rule, gap in gaps.items()
                    for k, v in (
                        (f"below {rule}", len(gap)),
                        (f"gap {rule}", f"{np.mean(gap):.2f}" if gap else ""),
                    )
                },
            }
        )
    return pd.DataFrame(rows).set_index("method")


def curve_ends(traces: pd.DataFrame) -> pd.DataFrame:
    """Per data set and method: the mean over the splits of the final best value, by the
    full-fidelity rule and by the rule that counted every ok row (percent)."""
    tr = traces.sort_values(["dataset", "split", "method", "eval"]).copy()
    tr["full"] = best_so_far(tr)
    ok = pd.to_numeric(tr["value"].where(tr["status"].astype(str) == "ok"), errors="coerce")
    tr["ok rows"] = ok.groupby([tr["dataset"], tr["split"], tr["method"]]).cummin()
    runs = tr.groupby(["dataset", "method", "split"], sort=False)[["full", "ok rows"]].agg(
        lambda v: v.dropna().iloc[-1] if v.notna().any() else np.nan
    )
    return (100 * runs.groupby(["dataset", "method"], sort=False).mean()).round(2).unstack(0)


def halving_rungs(traces: pd.DataFrame) -> pd.DataFrame:
    """Per data set with successive-halving rows: training points and the last rung's points."""
    h = traces[traces["n_samples"].notna()]
    if h.empty:
        return pd.DataFrame()
    last = h.sort_values("eval").groupby(["dataset", "split", "method"]).tail(1)
    return (
        last.groupby(["dataset", "method"])
        .agg(n_train=("n_train", "max"), last_rung_points=("n_samples", "max"))
        .astype(int)
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--storage", default=None, help="SQLAlchemy URL (default: the study's)")
    ap.add_argument("--n-jobs", type=int, default=1)
    args = ap.parse_args()
    study = load_study(STUDY)
    study.run(n_jobs=args.n_jobs, storage=args.storage, progress=False)
    results, traces = study.results(), study.traces()
    with pd.option_context("display.width", 120):
        print(fidelity_table(results, traces).to_string())
        print()
        print(curve_ends(traces).to_string())
        print()
        print(halving_rungs(traces).to_string())


if __name__ == "__main__":
    main()
