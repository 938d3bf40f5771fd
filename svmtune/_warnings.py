"""Warnings of the solvers, without importing scikit-learn until one is raised.

The solvers warn with scikit-learn's :class:`~sklearn.exceptions.ConvergenceWarning` (so a
user's ``warnings.filterwarnings(..., category=ConvergenceWarning)`` keeps working), but
importing scikit-learn takes about a second: a study that only reads stored results, or a run
whose solvers converge, never pays for it.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["quiet_max_iter", "warn_not_converged"]

#: The start of the SMO max_iter warning (matched by :func:`quiet_max_iter`).
MAX_ITER_PREFIX = "SMO stopped at max_iter"


def warn_not_converged(message: str, *, stacklevel: int = 2) -> None:
    """Warn with scikit-learn's ``ConvergenceWarning`` (imported only now).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_not_converged("the fit stopped early")
    >>> type(caught[0].message).__name__
    'ConvergenceWarning'
    """
    from sklearn.exceptions import ConvergenceWarning

    warnings.warn(message, ConvergenceWarning, stacklevel=stacklevel + 1)


@contextmanager
def quiet_max_iter() -> Iterator[None]:
    """Silence the SMO max_iter warning inside the block (the caller counts and reports them).

    Matches the warning by its message (a ``UserWarning`` subclass starting with
    :data:`MAX_ITER_PREFIX`), so scikit-learn need not be imported to name its class.

    Examples
    --------
    >>> with quiet_max_iter():
    ...     warn_not_converged(MAX_ITER_PREFIX + "=10 iterations")
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=MAX_ITER_PREFIX, category=UserWarning)
        yield
