"""Did the study change? The merge of a stored study definition with a new one, as data.

A pure function of two JSON definitions (:meth:`Study.definition`): no database, no message for
a particular front end. :class:`~svmtune.study.Storage` applies the verdict (stores the merged
definition, deletes the cells of replaced methods, or raises :class:`StudyChangedError`); the
command line and :meth:`Study.run` say what to do about a refusal in their own words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from svmtune._params import diff_records

__all__ = [
    "DEFINITION_FORMAT",
    "DefinitionMerge",
    "StudyChangedError",
    "describe_changes",
    "merge_definitions",
]

#: Version of the stored study definitions that record every option of every method.
DEFINITION_FORMAT = 2

#: Settings that fix every cell's data: a study cannot change them under the same name.
FIXED_SETTINGS = ("split", "test_size")


@dataclass(frozen=True)
class DefinitionMerge:
    """The verdict on a new definition of a stored study.

    Attributes
    ----------
    merged : dict
        The definition to store: the new one, its methods together with the stored methods it
        does not name (their cells stay readable), its data sets together with the stored ones.
    changed : dict str -> tuple of str
        Methods both definitions name whose records differ, each with the differing paths
        (``"tuner.params.n_points: 4 -> 5"``). Their stored cells would mix old and new results.
    conflict : str or None
        A difference no replacement can mend (seed, split protocol, test size), in words; None
        if there is none.
    """

    merged: dict[str, Any]
    changed: dict[str, tuple[str, ...]] = field(default_factory=dict)
    conflict: str | None = None

    @property
    def unchanged(self) -> bool:
        """True if the new definition may run on the stored cells as it is."""
        return not self.changed and self.conflict is None


def merge_definitions(
    stored: Mapping[str, Any],
    new: Mapping[str, Any],
    *,
    stored_seed: int,
    seed: int,
) -> DefinitionMerge:
    """Compare a new study definition with the stored one and merge them.

    The seed, split protocol and test size must match (else ``conflict``); every method both
    definitions name must have the same complete record (else ``changed``). New data sets,
    splits and methods only add cells. Methods of a stored definition older than
    :data:`DEFINITION_FORMAT` (incomplete records) are not compared.

    Parameters
    ----------
    stored : mapping
        The stored definition (as read back from the database).
    new : mapping
        The new definition (:meth:`Study.definition`).
    stored_seed, seed : int
        The stored study's seed and the new one.

    Returns
    -------
    DefinitionMerge

    Examples
    --------
    >>> old = {"format": 2, "split": "holdout", "datasets": ["heart"],
    ...        "methods": {"a": {"tuner": {"n_points": 4}}}}
    >>> new = {"split": "holdout", "datasets": ["sonar"],
    ...        "methods": {"a": {"tuner": {"n_points": 5}}, "b": {}}}
    >>> verdict = merge_definitions(old, new, stored_seed=0, seed=0)
    >>> verdict.changed
    {'a': ('tuner.n_points: 4 -> 5',)}
    >>> verdict.merged["datasets"], sorted(verdict.merged["methods"])
    (['sonar', 'heart'], ['a', 'b'])
    """
    new = {**new, "format": DEFINITION_FORMAT}
    conflict = None
    if int(stored_seed) != int(seed):
        conflict = f"was run with seed {stored_seed}; this definition has seed {seed}"
    else:
        for k in FIXED_SETTINGS:
            if k in stored and stored[k] != new.get(k):
                conflict = f"was run with {k}={stored[k]!r}; this definition has {k}={new.get(k)!r}"
                break
    old_methods = dict(stored.get("methods") or {})
    new_methods = dict(new.get("methods") or {})
    changed: dict[str, tuple[str, ...]] = {}
    if stored.get("format") == DEFINITION_FORMAT:  # older files stored incomplete reprs
        for m in new_methods:
            if m in old_methods:
                diff = diff_records(old_methods[m], new_methods[m])
                if diff:
                    changed[m] = tuple(diff)
    merged = dict(new)
    merged["methods"] = {
        **new_methods,
        **{k: v for k, v in old_methods.items() if k not in new_methods},
    }
    merged["datasets"] = list(
        dict.fromkeys([*new.get("datasets", []), *stored.get("datasets", [])])
    )
    return DefinitionMerge(merged=merged, changed=changed, conflict=conflict)


class StudyChangedError(ValueError):
    """A stored study differs from its new definition: the message says what differs.

    Attributes
    ----------
    study : str
        Where: ``"study 'name' in <storage URL>"``.
    changed : dict str -> tuple of str
        The changed methods and their differing paths (empty for a seed, split or test-size
        conflict, which only a new study name or storage mends).
    """

    def __init__(
        self,
        message: str,
        *,
        study: str = "",
        changed: Mapping[str, tuple[str, ...]] | None = None,
    ) -> None:
        super().__init__(message)
        self.study = study
        self.changed = dict(changed or {})

    @property
    def what_changed(self) -> str:
        """``"method 'm': tuner.params.n_points: 4 -> 5; method ..."``."""
        return describe_changes(self.changed)


def describe_changes(changed: Mapping[str, Sequence[str]]) -> str:
    """``{"m": ("tuner.params.n_points: 4 -> 5",)}`` -> ``"method 'm': tuner.params..."``."""
    return "; ".join(f"method {m!r}: {', '.join(d)}" for m, d in changed.items())
