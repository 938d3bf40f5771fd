"""Silence the third-party warnings svmtune's own runs would flood a terminal with.

Optuna deprecates and marks experimental parts that svmtune and its peers use without the
user choosing them (importing ``optuna_integration`` imports ``optuna.terminator``, which
warns on import; ``OptunaSearchCV`` is experimental): one FutureWarning per import and trial,
about 1,800 lines for the benchmark study. scikit-learn 1.6 warns once per fit of a peer
that defines the old ``_more_tags``. :func:`third_party_quiet` ignores exactly those,
inside a study's cells and in ``svmtune run`` / ``svmtune report``; a user's own warnings and
svmtune's (the solvers' ConvergenceWarning) are untouched.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["QUIET", "ignore_third_party", "quiet_optuna_logging", "third_party_quiet"]

#: (category, message regex, module regex) of each silenced warning.
QUIET: tuple[tuple[type[Warning], str, str], ...] = (
    (FutureWarning, "", r"optuna"),  # optuna's and optuna-integration's deprecations
    # optuna's ExperimentalWarning: attributed to the caller (a study file, scikit-learn's
    # clone), so matched by optuna's own wording, not by module
    (Warning, r".* is experimental \(supported from v", ""),
    # scikit-learn 1.6's tags migration, once per fit of a peer that still defines _more_tags
    # (OptunaSearchCV): not the user's to fix, gone in scikit-learn 1.7
    (FutureWarning, r".* or classes from which it inherits use `_get_tags` and `_more_tags`", ""),
)


def ignore_third_party() -> None:
    """Add the filters of :data:`QUIET` to the process's warning filters."""
    for category, message, module in QUIET:
        warnings.filterwarnings("ignore", message=message, category=category, module=module)


@contextmanager
def third_party_quiet() -> Iterator[None]:
    """The filters of :data:`QUIET` inside the block only.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     with third_party_quiet():
    ...         warnings.warn_explicit("old", FutureWarning, "x.py", 1, module="optuna.terminator")
    ...     warnings.warn_explicit("old", FutureWarning, "x.py", 1, module="mine")
    >>> [str(w.message) for w in caught]
    ['old']
    """
    with warnings.catch_warnings():
        ignore_third_party()
        yield


@contextmanager
def quiet_optuna_logging() -> Iterator[None]:
    """Optuna's per-trial INFO lines off (level WARNING) inside the block, if optuna is loaded.

    A study file may lower optuna's verbosity at import; a worker that unpickles its peers
    imports optuna afresh at INFO, printing a line per trial of every OptunaSearchCV cell.
    """
    import sys

    optuna = sys.modules.get("optuna")
    if optuna is None:
        yield
        return
    before = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(max(before, optuna.logging.WARNING))
    try:
        yield
    finally:
        optuna.logging.set_verbosity(before)
