"""svmtune's warnings: the solvers' (without importing scikit-learn until one is raised) and
the one deprecation warning, with its helpers (:func:`warn_deprecated`, and
:func:`deprecated_budget` for a tuner's old budget option).

The solvers warn with scikit-learn's :class:`~sklearn.exceptions.ConvergenceWarning` (so a
user's ``warnings.filterwarnings(..., category=ConvergenceWarning)`` keeps working), but
importing scikit-learn takes about a second: a study that only reads stored results, or a run
whose solvers converge, never pays for it.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

from svmtune._validation import check_positive_int

__all__ = [
    "SvmtuneDeprecationWarning",
    "deprecated_budget",
    "quiet_max_iter",
    "warn_deprecated",
    "warn_not_converged",
]

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


class SvmtuneDeprecationWarning(FutureWarning):
    """An option or function of svmtune to be removed: the one deprecation warning of the
    package. A :class:`FutureWarning`, which Python shows by default, since the code that
    uses a deprecated name is the user's (a study file, a script), not a library's."""


def warn_deprecated(
    what: str, *, since: str, removed_in: str, instead: str, stacklevel: int = 2
) -> None:
    """Warn that ``what`` is deprecated since version ``since`` and goes in ``removed_in``,
    saying what to use ``instead`` (:class:`SvmtuneDeprecationWarning`). ``stacklevel`` as
    :func:`warnings.warn`'s, counted from the caller of this function.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_deprecated("VNS(m=...)", since="0.1.0", removed_in="0.2.0", instead="max_evals")
    >>> print(caught[0].message)
    VNS(m=...) is deprecated since svmtune 0.1.0 and will be removed in 0.2.0; use max_evals
    >>> caught[0].category.__name__
    'SvmtuneDeprecationWarning'
    """
    warnings.warn(
        f"{what} is deprecated since svmtune {since} and will be removed in {removed_in}; "
        f"use {instead}",
        SvmtuneDeprecationWarning,
        stacklevel=stacklevel + 1,
    )


class _Tuner(Protocol):
    """What :func:`deprecated_budget` reads of a tuner."""

    @property
    def name(self) -> str: ...

    @property
    def max_evals(self) -> int | None: ...


def deprecated_budget(tuner: _Tuner, old: str, default: int) -> int:
    """The budget of a tuner whose old budget option ``old`` is kept as a deprecated alias of
    ``max_evals`` (a :class:`SvmtuneDeprecationWarning` when it is used; ``max_evals`` wins when
    both are given).

    Examples
    --------
    >>> import warnings
    >>> from svmtune.tuners import VNS
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     deprecated_budget(VNS(m=30), "m", 100), caught[0].category.__name__
    (30, 'SvmtuneDeprecationWarning')
    >>> deprecated_budget(VNS(max_evals=20), "m", 100)
    20
    """
    value = getattr(tuner, old)
    if value is not None:
        check_positive_int(value, old)
        warn_deprecated(
            f"{tuner.name}({old}=...)",
            since="0.1.0",
            removed_in="0.2.0",
            instead=f"max_evals={value!r} (the one budget name of every tuner)",
            stacklevel=4,
        )
    if tuner.max_evals is not None:
        return int(tuner.max_evals)
    return default if value is None else int(value)
