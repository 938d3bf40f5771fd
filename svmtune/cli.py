"""The ``svmtune`` command line.

Each sub-command is a function ``_cmd_<name>(args) -> int`` registered in :func:`build_parser`.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from svmtune import __version__
from svmtune._cli_helpers import (
    cell_list,
    changed_study_hint,
    check_storage_arg,
    expected_cells,
    extra_figures,
    missing_cells,
    note_empty_file,
    said_if_slow,
    scheduler_context,
    study_files,
)
from svmtune._quiet import ignore_third_party

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["build_parser", "main"]


TABLE_WIDTH = 100
"""Columns the command-line tables fit in."""


def _cmd_datasets(args: argparse.Namespace) -> int:
    import textwrap

    from svmtune.datasets import list_datasets

    if getattr(args, "suite", False):
        from svmtune.datasets import suite_table

        suite = suite_table()
        print(suite.to_string(index=False))
        print(
            f"{len(suite)} problems from {suite['base'].nunique()} base data sets; selection "
            "rule: svmtune.datasets._suite (docs/comparison.md)"
        )
        return 0
    if getattr(args, "generators", False):
        from svmtune.datasets import generator_table

        print(generator_table().to_string(index=False))
        print("any size from a seed: svmtune.datasets.generate(name, n=..., seed=...)")
        return 0

    table = list_datasets().drop(columns=["source"])
    table = table.rename(columns={"raw_features": "raw", "positive_class": "positive class"})
    table["positive class"] = table["positive class"].str.slice(0, 14)
    left = table.drop(columns=["papers"]).to_string(index=False).splitlines()
    indent = max(len(line) for line in left) + 2
    width = max(TABLE_WIDTH - indent, 10)
    print(f"{left[0]:<{indent}}papers")
    for line, papers in zip(left[1:], table["papers"], strict=True):
        wrapped = textwrap.wrap(str(papers), width) or [""]
        print(f"{line:<{indent}}{wrapped[0]}")
        for more in wrapped[1:]:
            print(" " * indent + more)
    return 0


def _print_report(
    name: str,
    url: str,
    results: pd.DataFrame,
    paths: dict[str, Path],
    methods: list[str],
    running: Mapping[Any, str] | None = None,
    missing: Sequence[Any] = (),
) -> None:
    from svmtune.study import format_summary, search_boxes, summary_table

    counts = results["status"].value_counts().to_dict() if len(results) else {}
    status = ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or "none"
    print(f"study {name!r}: {len(results)} cells stored in {url} ({status})")
    running = dict(running or {})
    if running or missing:
        n_all = len(results) + len(running) + len(missing)
        print(
            f"  partial table: {len(results)} of {n_all} cells stored; "
            f"{len(running)} running, {len(missing)} not started"
        )
        if running:
            print(
                "  running (in other processes, or in one that died: taken over once its "
                "heartbeat is stale): " + cell_list(running, running)
            )
        if missing:
            print("  not started (run the study again to compute them): " + cell_list(missing))
    failed = results[results["status"] != "ok"] if len(results) else results
    for row in failed.head(5).itertuples():
        first = str(row.error or "").strip().splitlines()
        print(
            f"  {row.status}: {row.dataset} split {row.split} {row.method}: "
            f"{first[-1] if first else ''}"
        )
    print()
    print(format_summary(summary_table(results, methods=methods)))
    boxes = search_boxes(results, methods=methods)
    if len(boxes):
        print()
        print("Search boxes (cells per box)")
        print(boxes.to_string(index=False))
    print()
    for key, path in paths.items():
        print(f"{key:>24}: {path}")


def _cmd_run(args: argparse.Namespace) -> int:
    if args.n_jobs == 0:
        raise ValueError("--n-jobs must be a positive number of processes, or -1 for all cores")
    check_storage_arg(args.storage)
    with said_if_slow("svmtune run: loading the study file and checking its data"):
        from svmtune.study import (
            Storage,
            add_left_out_to_report,
            left_out_lines,
            objective_labels,
            stop_local_workers,
            study_intro,
            watched_workers,
            write_report,
        )

        study, figures = study_files(args)
    print(study_intro(study), file=sys.stderr, flush=True)
    url = study.storage_url(args.storage)
    note_empty_file(url)
    ctx, n_jobs = scheduler_context(args, study)
    try:
        with ctx, changed_study_hint():
            study.run(
                n_jobs=n_jobs,
                storage=url,
                retry_failed=args.retry_failed,
                replace_changed=args.replace_changed,
                progress=not args.no_progress,
                stale_after=args.stale_after,
                report_next=True,
                rerun=args.rerun or (),
            )
    except KeyboardInterrupt:
        n = len(study.open_storage(url).finished(study.name))
        print(
            f"\ninterrupted: {n} cells are stored in {url}; run the same command again to resume",
            file=sys.stderr,
        )
        return 130
    outdir = Path(args.output) if args.output else Path("results") / study.name
    store = Storage(url, read_only=True)
    try:  # stored and running cells at one moment (other workers may still be writing)
        snap = store.snapshot(study.name)
    finally:
        store.close()
    results, traces = study.select(snap.cells), study.select(snap.traces)
    missing = missing_cells(study.cell_keys(), results, snap.running)
    methods = list(study.methods)
    objectives = objective_labels(study.definition()["methods"])
    # the figures are drawn on the local processes the cells ran in, one figure per task
    draw_jobs = 1 if args.scheduler or n_jobs == 1 else n_jobs
    # the figures drawn in worker processes that exit with this process (the cells' workers)
    with watched_workers() if draw_jobs != 1 else contextlib.nullcontext():
        paths = write_report(
            results,
            traces,
            outdir,
            methods=methods,
            objectives=objectives,
            n_jobs=draw_jobs,
            baseline=study.baseline,
            definition=study.definition(),
            formats=args.format,
        )
        paths.update(extra_figures(figures, study, outdir))
    add_left_out_to_report(outdir / "report.md", study.left_out)
    stop_local_workers()  # idle now; at exit they would be stopped one by one, slowly
    _print_report(study.name, url, results, paths, methods, snap.running, missing)
    if study.left_out:
        print("\n".join(left_out_lines(study.left_out)))
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from sqlalchemy.engine import make_url

    from svmtune.study import Storage, check_study_name, objective_labels, write_report

    check_storage_arg(args.storage)
    figures = study = None
    if args.study_file:
        study, figures = study_files(args)
    if study is not None:
        url = study.storage_url(args.storage)
        study.storage_ = url  # the study file's figures() read this database, as after a run
    elif args.storage:
        url = args.storage
    else:
        raise ValueError("give a study file or --storage URL")
    try:
        parsed = make_url(url)
    except Exception as exc:
        raise ValueError(f"not a database URL: {url!r}") from exc
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        db = Path(str(parsed.database))
        if not db.is_file():
            raise ValueError(f"no study database at {url!r}")
        if db.stat().st_size == 0:
            raise ValueError(f"{db} is an empty file (0 bytes), not a study database")
    store = Storage(url, read_only=True)  # reading a report writes nothing to the database
    try:
        if study is not None:
            name = study.name
            snap = store.snapshot(name)
            results, traces = study.select(snap.cells), study.select(snap.traces)
            expected = study.cell_keys()
            methods = list(study.methods)
            objectives = objective_labels(study.definition()["methods"])
            baseline = study.baseline
            definition = study.definition()
        else:
            names = store.study_names()
            if args.study:
                name = args.study
                if name not in names:
                    raise ValueError(f"no study {name!r} in {url}; it holds {names}")
            elif len(names) == 1:
                name = names[0]
            else:
                raise ValueError(f"{url} holds studies {names}: choose one with --study NAME")
            try:
                check_study_name(name)  # it names the output folder
            except ValueError as exc:
                raise ValueError(
                    f"{url} holds a study named {name!r}, which cannot name a folder: {exc}"
                    + ("" if args.output else "; give --output DIR")
                ) from exc
            snap = store.snapshot(name)
            results, traces = snap.cells, snap.traces
            definition = store.study_definition(name) or {}
            expected = expected_cells(definition)
            methods = list(definition.get("methods", {})) or list(dict.fromkeys(results["method"]))
            objectives = objective_labels(definition.get("methods", {}))
            baseline = definition.get("baseline")
    finally:
        store.close()
    missing = missing_cells(expected, results, snap.running)
    outdir = Path(args.output) if args.output else Path("results") / name
    paths = write_report(
        results,
        traces,
        outdir,
        methods=methods,
        objectives=objectives,
        baseline=baseline,
        definition=definition,
        formats=args.format,
    )
    if study is not None:
        paths.update(extra_figures(figures, study, outdir))
        from svmtune.study import add_left_out_to_report

        add_left_out_to_report(outdir / "report.md", study.left_out)
    _print_report(name, url, results, paths, methods, snap.running, missing)
    return 0


def _format_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--format",
        default="png,pdf",
        metavar="FORMATS",
        help="files of each figure, comma-separated, of pdf (fonts embedded), png and svg "
        "(default: png,pdf; report.md shows the PNG, else the SVG)",
    )


def build_parser() -> argparse.ArgumentParser:
    from svmtune.study import STALE_AFTER_S

    parser = argparse.ArgumentParser(
        prog="svmtune",
        description="Tune kernel SVM hyperparameters and compare the ways of doing it.",
    )
    parser.add_argument("--version", action="version", version=f"svmtune {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("datasets", help="list the bundled real data sets")
    p.add_argument(
        "--suite",
        action="store_true",
        help="list the benchmark suite instead (its problems, sizes in use, imbalance)",
    )
    p.add_argument(
        "--generators",
        action="store_true",
        help="list Breiman's synthetic problems instead (twonorm, ringnorm, threenorm, waveform)",
    )
    p.set_defaults(func=_cmd_datasets)

    p = sub.add_parser(
        "run",
        help="run a study file (skips the cells already stored), then print its table and plots",
        description="Run the study a Python file defines (a module-level `study = Study(...)`). "
        "The file is executed as Python code (as pytest runs test files): run only files you "
        "trust. Its folder is on the import path while it loads, so it can import a module "
        "beside it. Finished cells are stored at once; running again resumes. Several "
        "processes or machines may run the same study on one database at once: each cell is "
        "claimed before it runs, so it is computed once.",
    )
    p.add_argument("study_file", help="path of the study file, e.g. studies/quickstart.py")
    p.add_argument("--n-jobs", type=int, default=None, help="parallel cells (default: all cores)")
    p.add_argument(
        "--storage",
        help="SQLAlchemy URL (default: sqlite:///results/<study>.db). A SQLite database in WAL "
        "mode is the .db file with its -wal/-shm files while a run is live; each run folds "
        "them back into the .db file when it ends",
    )
    p.add_argument("--scheduler", help="run on a dask.distributed scheduler at this address")
    p.add_argument("--connect-timeout", type=float, default=5.0, help=argparse.SUPPRESS)
    p.add_argument(
        "--stale-after",
        type=float,
        default=STALE_AFTER_S,
        metavar="SECONDS",
        help="take over a claimed cell whose worker has not renewed its heartbeat for this long "
        f"(a worker on another machine that died; default {STALE_AFTER_S:g}). Give every worker "
        "the same value",
    )
    p.add_argument("--output", help="directory of the table and plots (default: results/<study>)")
    p.add_argument("--retry-failed", action="store_true", help="run failed/timed-out cells again")
    p.add_argument(
        "--replace-changed",
        action="store_true",
        help="a method whose definition changed under the same name: delete its stored cells "
        "and run them again (without this, such a run is refused)",
    )
    p.add_argument(
        "--rerun",
        action="append",
        metavar="DATASET",
        help="start this data set afresh: delete its stored cells and its fingerprint, then run "
        "them again (a data set whose file changed under the same name is refused without "
        "this); may be given several times",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    _format_option(p)
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser(
        "report",
        help="redraw the table and plots of a stored (finished or half-finished) study",
    )
    p.add_argument("study_file", nargs="?", help="the study file (optional with --storage)")
    p.add_argument("--storage", help="SQLAlchemy URL of the study database")
    p.add_argument("--study", help="the study's name, when the database holds several")
    p.add_argument("--output", help="directory of the table and plots (default: results/<study>)")
    _format_option(p)
    p.set_defaults(func=_cmd_report)
    return parser


def _database_error(exc: BaseException) -> bool:
    return type(exc).__module__.startswith("sqlalchemy") and "DatabaseError" in {
        c.__name__ for c in type(exc).__mro__
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    ignore_third_party()  # optuna's deprecations, from study files and peers: not the user's
    prefix = f"svmtune {args.command}: error:"
    try:
        code = int(args.func(args))
        sys.stdout.flush()  # a closed pipe shows here, not at exit as an ignored exception
        return code
    except BrokenPipeError:
        # the reader went away (`svmtune report ... | head`): not an error of ours
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except ValueError as exc:
        print(f"{prefix} {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        where = f" {exc.filename!r}" if exc.filename else ""
        print(f"{prefix} cannot write or read{where}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except Exception as exc:
        if not _database_error(exc):
            raise
        orig = getattr(exc, "orig", None) or exc
        print(
            f"{prefix} the study database cannot be read or written ({orig}); the file may "
            "be damaged: restore it from a copy or use a new --storage",
            file=sys.stderr,
        )
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
