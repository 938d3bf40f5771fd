"""Which code computed a cell: svmtune's version, and its git commit when run from a checkout.

A study's cells are keyed by (data set, split, method), so a later run at another commit
reuses the cells an earlier one stored. The numbers of a cell depend on the code that computed
it: an SMO solver stopped at a KKT tolerance takes another path when its selection or its
arithmetic changes, and a validation or test point within the tolerance of the decision boundary
can then fall on the other side. Every stored cell therefore records :func:`code_version`, and
``report.md`` says which code computed its cells (and warns when they come from more than one).
"""

from __future__ import annotations

import functools
import subprocess
from importlib import metadata
from pathlib import Path

__all__ = ["code_version"]


@functools.cache
def code_version() -> str:
    """``"<version>"``, or ``"<version>+g<commit>"`` when svmtune runs from a git checkout, with
    ``".dirty"`` appended when its ``svmtune/`` folder differs from that commit.

    Computed once per process (three short ``git`` calls; none when git or the checkout is
    absent, as in an installed copy).

    Examples
    --------
    >>> from svmtune.study.run._code import code_version
    >>> code_version().startswith("0.")
    True
    """
    try:  # the installed distribution's version (importing svmtune here would be a cycle)
        __version__ = metadata.version("svmtune")
    except metadata.PackageNotFoundError:  # source on the path, never installed
        __version__ = "unknown"
    package = Path(__file__).resolve().parents[2]
    try:
        top = _git(package, "rev-parse", "--show-toplevel")
        if not top or Path(top).resolve() != package.parent:  # e.g. a venv inside a checkout
            return __version__
        commit = _git(package, "rev-parse", "--short=12", "HEAD")
        dirty = _git(package, "status", "--porcelain", "--", str(package))
    except (OSError, subprocess.SubprocessError):
        return __version__
    return f"{__version__}+g{commit}" + (".dirty" if dirty else "")


def _git(folder: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", "-C", str(folder), *args],
        capture_output=True,
        text=True,
        timeout=10,
        check=True,
    )
    return out.stdout.strip()
