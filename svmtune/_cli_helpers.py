"""Helpers of the ``svmtune`` command line: reading a study file, checking ``--storage``,
choosing where the cells run, and listing cells in its messages."""

from __future__ import annotations

import argparse
import contextlib
import sys
import threading
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "cell_list",
    "changed_study_hint",
    "check_storage_arg",
    "expected_cells",
    "extra_figures",
    "missing_cells",
    "note_empty_file",
    "said_if_slow",
    "scheduler_context",
    "study_files",
]


def cell_list(keys: Iterable[Any], workers: Mapping[Any, str] | None = None, n: int = 5) -> str:
    """``dataset/split/method`` of the first ``n`` cells (with their worker), and how many more."""
    keys = sorted(keys)
    shown = [
        f"{k.dataset}/{k.split}/{k.method}" + (f" [{workers[k]}]" if workers else "")
        for k in keys[:n]
    ]
    more = f" and {len(keys) - n} more" if len(keys) > n else ""
    return ", ".join(shown) + more


def expected_cells(definition: Mapping[str, Any]) -> list[Any]:
    """The cells a stored study definition names (data sets x splits x methods)."""
    from svmtune.study import CellKey

    try:
        return [
            CellKey(str(d), i, str(m))
            for d in definition["datasets"]
            for i in range(int(definition["n_splits"]))
            for m in definition["methods"]
        ]
    except (KeyError, TypeError, ValueError):
        return []


def missing_cells(
    expected: Iterable[Any], results: pd.DataFrame, running: Mapping[Any, str]
) -> list:
    have = set(
        zip(results["dataset"], results["split"].astype(int), results["method"], strict=True)
    )
    return [k for k in expected if (k.dataset, k.split, k.method) not in have and k not in running]


def study_files(args: argparse.Namespace) -> tuple[Any, Any]:
    from svmtune.study import load_study_module

    module = load_study_module(args.study_file)
    return module.study, getattr(module, "figures", None)


def extra_figures(figures: Any, study: Any, outdir: Path) -> dict[str, Path]:
    if figures is None:
        return {}
    return {Path(p).stem: Path(p) for p in figures(study, outdir)}


def note_empty_file(url: str) -> None:
    """Say so when a SQLite URL names an existing 0-byte file (SQLite makes it a new database)."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        path = Path(str(parsed.database))
        if path.is_file() and path.stat().st_size == 0:
            print(
                f"note: {path} is an empty file (0 bytes); it becomes a new study database",
                file=sys.stderr,
            )


def check_storage_arg(url: str | None) -> None:
    if url is not None and "://" not in url:
        raise ValueError(
            f"--storage takes a SQLAlchemy URL; got {url!r}. For a SQLite file write "
            f"sqlite:///{url} (relative) or sqlite:////absolute/path.db"
        )


@contextlib.contextmanager
def changed_study_hint() -> Iterator[None]:
    """Turn the storage's verdict on a changed method into what to do on the command line."""
    from svmtune.study import StudyChangedError

    try:
        yield
    except StudyChangedError as exc:
        if not exc.changed:  # seed, split or test size: only a new name or storage mends it
            raise
        raise ValueError(
            f"{exc.study} has cells of a different method under the same name "
            f"({exc.what_changed}). Give the changed method a new name, or run again with "
            "--replace-changed to delete its stored cells and run them again, or use a new "
            "--storage"
        ) from exc


@contextlib.contextmanager
def said_if_slow(text: str, after: float = 1.0) -> Iterator[None]:
    """Print ``text`` on stderr if the block is still running after ``after`` seconds."""
    timer = threading.Timer(after, lambda: print(text, file=sys.stderr, flush=True))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def scheduler_context(
    args: argparse.Namespace, study: Any
) -> tuple[contextlib.AbstractContextManager[Any], int]:
    """Where ``svmtune run`` runs its cells: on the dask cluster at ``--scheduler`` (connected
    and checked here, the study validated first) or in local processes; and how many jobs."""
    n_jobs = args.n_jobs
    if not args.scheduler:
        return contextlib.nullcontext(), -1 if n_jobs is None else n_jobs
    try:
        from distributed import Client
    except ImportError as exc:
        raise ValueError("--scheduler needs dask.distributed: pip install 'svmtune[dask]'") from exc
    study.validate()  # fail before connecting
    try:
        client = Client(args.scheduler, timeout=args.connect_timeout)
    except (OSError, TimeoutError) as exc:
        raise ValueError(f"cannot reach the dask scheduler {args.scheduler!r}: {exc}") from exc
    import joblib

    stack = contextlib.ExitStack()
    stack.enter_context(client)
    stack.enter_context(joblib.parallel_config(backend="dask"))
    return stack, -1 if n_jobs is None else n_jobs
