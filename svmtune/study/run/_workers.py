"""Local worker processes that end with the process that started them.

joblib's local workers (its loky backend) idle for minutes after their parent is gone: a
``kill -9`` of ``svmtune run`` would leave them (100-200 MB each) and loky's resource trackers
behind. Inside :func:`watched_workers` every local worker runs :func:`exit_with_parent` as the
first thing it does (loky's worker initializer), so it exits within half a second of its
parent's death (once it has loaded Python and loky, if it was still starting) whatever it was
doing: starting, compiling the solver loops, running a cell,
drawing a report figure, or idling. The resource trackers end once no worker holds their pipe.
This module imports nothing heavy: a worker unpickles the initializer, and so imports it,
before it can watch.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["exit_with_parent", "watched_backend", "watched_workers"]


def exit_with_parent(parent_pid: int) -> None:
    """In a local worker started by process ``parent_pid``: exit now if that process is gone
    already (the worker was re-parented), else watch it from a daemon thread and exit as soon
    as it is gone."""
    if os.getppid() != parent_pid:
        os._exit(0)

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent_pid:  # re-parented: the study process died
                os._exit(0)

    threading.Thread(target=watch, name="svmtune-parent-watch", daemon=True).start()


def watched_backend() -> Any:
    """The active joblib backend, its local workers watching this process (see the module's
    docstring), when it is loky's (the active backend's own options kept); None for any other
    (dask, threads, sequential), which is left as it is.

    Every call in one process asks loky for the same initializer, so its reusable pool of
    workers carries over from one ``Parallel`` call to the next (the cells' workers draw the
    report's figures)."""
    from joblib.parallel import get_active_backend

    backend, _ = get_active_backend()
    if "loky" not in type(backend).__name__.lower():
        return None
    options = {
        **backend.backend_kwargs,
        "initializer": exit_with_parent,
        "initargs": (os.getpid(),),
    }
    return type(backend)(
        nesting_level=backend.nesting_level,
        inner_max_num_threads=backend.inner_max_num_threads,
        **options,
    )


@contextmanager
def watched_workers() -> Iterator[None]:
    """Within the block, joblib's local worker processes watch this process
    (:func:`watched_backend`); other backends are left as they are.

    Examples
    --------
    >>> from joblib import Parallel, delayed
    >>> with watched_workers():
    ...     Parallel(n_jobs=2)(delayed(abs)(i) for i in (-1, -2))
    [1, 2]
    """
    backend = watched_backend()
    if backend is None:
        yield
        return
    from joblib import parallel_config

    with parallel_config(backend=backend):
        yield
