"""The reproduction page: four papers' tables beside ours, per data set, from stored results.

    python studies/reproductions.py              # run or resume the studies, write the page
    python studies/reproductions.py --no-run     # rewrite the page from results/*.db only
    python studies/reproductions.py --rerun franc2008   # recompute one study from scratch
    python studies/reproductions.py --smoke --results DIR --out DIR/reproductions.md

writes ``docs/reproductions.md``. The studies are ``fischetti2016.py`` (plus the same methods
on ``german-numeric``, Statlog's 24-feature coding of German), ``franc2008.py``,
``carrizosa2014.py`` (its RBF part) and ``adankon.py`` (its tuning cells); each stores its cells
in ``results/<study>.db`` and resumes there, so a rerun only computes what is missing. A study
whose method definition changed (say a solver option) is refused by the storage: pass
``--replace-changed`` to run the changed methods again. A change inside the solver that keeps
every option (a bug fix) is invisible to the storage: pass ``--rerun STUDY`` to delete that
study's cells and compute them again. Everything the page needs beyond the
cells (Franc's test errors on more realizations and Prec %, Adankon's median-parameter test
errors) is recomputed from the stored tuned parameters each time the page is written.

This file writes the page and runs the studies; each paper's tables are built by a module of
``reproduction/`` (``fischetti_tables``, ``franc_tables``, ``carrizosa_tables``,
``adankon_tables``). The papers' numbers come from ``paper_tables.py`` only. ``--smoke`` runs
every part at a reduced size (one data set per paper, two splits) for CI: the page keeps its
shape, with "not run" in the cells it did not compute.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from reproduction.adankon_tables import adankon_section  # noqa: E402
from reproduction.carrizosa_tables import carrizosa_mkl_section, carrizosa_section  # noqa: E402
from reproduction.common import (  # noqa: E402
    COMMAND,
    LEFT_OUT,
    NOT_BUNDLED,
    NOT_RUN,
    md_table,
    num,
    ok_results,
    splits_done,
)
from reproduction.fischetti_tables import fischetti_section  # noqa: E402
from reproduction.franc_tables import franc_section  # noqa: E402
from reproduction.runs import FULL, SMOKE, Scale, Studies, build, run_all  # noqa: E402
from reproduction.versions import versions_section  # noqa: E402

__all__ = [
    "COMMAND",
    "FULL",
    "LEFT_OUT",
    "NOT_BUNDLED",
    "NOT_RUN",
    "SMOKE",
    "Scale",
    "Studies",
    "build",
    "main",
    "run_all",
    "write_page",
]


# -- runs and costs ------------------------------------------------------------------------------
def costs_section(st: Studies, scale: Scale, meta: dict[str, dict[str, Any]]) -> list[str]:
    rows = []
    for label, study, paper_n, want in (
        ("Fischetti Table 2", st.fischetti, 10, scale.fischetti_splits),
        ("Fischetti, german-numeric", st.german_numeric, 10, scale.fischetti_splits),
        ("Franc Tables 2-3 (selection)", st.franc, 5, scale.franc_select),
        ("Carrizosa Table 3", st.carrizosa, 1, scale.carrizosa_splits),
        ("Adankon Table 1 (tuning)", st.adankon, 5, scale.adankon_splits),
    ):
        if study is None:
            continue
        res = ok_results(study)
        n_sets = len(study._dataset_names())
        planned = n_sets * want * len(study.methods)
        cpu = float(res["cpu_s"].sum()) if len(res) else 0.0
        done = splits_done(res)
        per_split = cpu / done if done else math.nan
        missing = max(paper_n, want) - done
        rows.append(
            [
                label,
                f"`{study.name}`",
                f"{len(res)} of {planned}",
                f"{done} of {want} (paper: {paper_n})",
                f"{cpu:.0f}",
                num(per_split / 60, 1) if done else NOT_RUN,
                num(missing * per_split / 60, 0) if done and missing > 0 else "0",
            ]
        )
    lines = [
        "## Runs and costs",
        "",
        "Cells stored (ok) against cells planned, realizations complete, and the CPU seconds "
        "of the tuning runs (one process each; a loaded 2-core machine). A missing realization "
        "costs about one more 'CPU min per realization'; the studies resume where they "
        f"stopped (`{COMMAND}`).",
        "",
    ]
    headers = [
        "part",
        "study",
        "cells",
        "realizations",
        "CPU s",
        "CPU min per realization",
        "CPU min to the full count",
    ]
    return lines + md_table(headers, rows)


# -- the page ------------------------------------------------------------------------------------
def write_page(
    st: Studies, scale: Scale, out: Path, *, n_jobs: int = 1, prec_recompute: bool = True
) -> str:
    meta: dict[str, dict[str, Any]] = {}
    parts: list[Callable[[], tuple[list[str], dict[str, Any]]]] = [
        lambda: fischetti_section(st),
        lambda: franc_section(st, scale, n_jobs, prec_recompute=prec_recompute),
        lambda: carrizosa_section(st),
        lambda: adankon_section(st, scale),
    ]
    body: list[str] = []
    for key, part in zip(("fischetti", "franc", "carrizosa", "adankon"), parts, strict=True):
        lines, meta[key] = part()
        body += lines
        if key == "carrizosa":
            body += carrizosa_mkl_section(st)
    head = [
        "# Reproductions: the papers' tables beside ours",
        "",
        f"Generated by `{COMMAND}` from the studies' stored results (`results/*.db`, run or "
        "resumed by the same command); do not edit by hand. The papers' numbers are copied in "
        'one place, `studies/paper_tables.py`. In every table "paper" is the paper\'s number, '
        '"ours" the mean ± sd over our realizations, Δ = ours − paper in percentage points.',
        "",
        'Papers: M. Fischetti, "Fast training of Support Vector Machines with Gaussian kernel" '
        '(2016); V. Franc, P. Laskov, K.-R. Muller, "Stopping conditions for exact computation '
        'of leave-one-out error in support vector machines" (2008); E. Carrizosa, B. '
        'Martin-Barragan, D. Romero Morales, "A nested heuristic for parameter tuning in Support '
        'Vector Machines" (2014); M. M. Adankon, M. Cheriet, N. E. Ayat, "Optimizing Resources '
        'in Model Selection for Support Vector Machines".',
        "",
    ]
    text = (
        "\n".join(head + versions_section() + body + costs_section(st, scale, meta)).rstrip() + "\n"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=HERE.parent / "docs" / "reproductions.md")
    ap.add_argument("--results", type=Path, default=HERE.parent / "results")
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--no-run", action="store_true", help="write the page from stored cells")
    ap.add_argument("--smoke", action="store_true", help="reduced size (CI)")
    ap.add_argument("--replace-changed", action="store_true")
    ap.add_argument(
        "--prec-stored-only",
        action="store_true",
        help="Franc's Prec from the counts the stored evaluations (or an earlier page) kept; "
        "realizations stored without them are left out of Prec and named, not recomputed",
    )
    ap.add_argument(
        "--rerun",
        nargs="+",
        default=[],
        metavar="STUDY",
        help="delete these studies' stored cells first (e.g. franc2008 after a solver fix "
        "that keeps the method's options, which the storage would not see as a change)",
    )
    args = ap.parse_args(argv)
    scale = SMOKE if args.smoke else FULL
    args.results.mkdir(parents=True, exist_ok=True)
    known = {"fischetti2016", "fischetti2016-german-numeric", "franc2008", "carrizosa2014"}
    known.add("adankon")
    for name in args.rerun:
        if name not in known:
            ap.error(f"--rerun: unknown study {name!r}; use one of {sorted(known)}")
        for path in args.results.glob(f"{name}.db*"):
            path.unlink()
    st = build(scale, args.results.resolve())
    if not args.no_run:
        run_all(st, n_jobs=args.n_jobs, replace_changed=args.replace_changed)
    write_page(st, scale, args.out, n_jobs=args.n_jobs, prec_recompute=not args.prec_stored_only)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
