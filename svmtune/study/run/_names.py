"""Study names: they name files (``results/<name>/``), so they are checked."""

from __future__ import annotations

import re

__all__ = ["check_study_name"]

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")


def check_study_name(name: object) -> str:
    """``name`` if it is a valid study name (it names files: ``results/<name>/``); else
    ValueError. Names read back from a database are checked too, so a crafted name cannot
    lead the report outside ``results/``.

    Examples
    --------
    >>> check_study_name("fischetti2016")
    'fischetti2016'
    """
    if not isinstance(name, str) or not _NAME.match(name) or ".." in name or len(name) > 200:
        raise ValueError(
            f"study name must be letters, digits and _ . + - (no spaces, no '..'); got {name!r}"
        )
    return name
