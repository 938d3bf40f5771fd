"""A data set's fingerprint: a hash of its loaded arrays and its label mapping.

A study stores one per data set, so that cells computed on one file are never mixed with cells
of another file read under the same name (:mod:`svmtune.study.store._data_prints`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["fingerprint"]


def fingerprint(X: Any, y: Any, labels: Mapping[str, float] | None = None) -> str:
    """``"<rows>x<features>:<hash>"`` of a loaded data set: its features, its -1/+1 labels and
    how the labels were mapped (BLAKE2b of the float64 bytes; a few milliseconds per 10 MB).

    Two loads of the same table give the same fingerprint on any machine (the hash is of the
    parsed numbers, not of the file's bytes: a file saved again with other line endings keeps
    it); one changed value, row, column or label gives another.

    Examples
    --------
    >>> import numpy as np
    >>> X, y = np.eye(3), np.array([-1.0, 1.0, 1.0])
    >>> fingerprint(X, y)[:4]
    '3x3:'
    >>> fingerprint(X, y) == fingerprint(X.copy(), y.copy())
    True
    >>> X[0, 0] = 0.5
    >>> fingerprint(X, y) == fingerprint(np.eye(3), y)
    False
    """
    Xa = np.ascontiguousarray(X, dtype=np.float64)
    ya = np.ascontiguousarray(y, dtype=np.float64)
    if Xa.ndim != 2 or ya.ndim != 1:
        raise ValueError(
            f"fingerprint takes X of 2 and y of 1 dimension; got {Xa.shape}, {ya.shape}"
        )
    h = hashlib.blake2b(digest_size=16)
    h.update(repr((Xa.shape, ya.shape)).encode())
    h.update(Xa.tobytes())
    h.update(ya.tobytes())
    h.update(json.dumps(sorted((str(k), float(v)) for k, v in (labels or {}).items())).encode())
    return f"{Xa.shape[0]}x{Xa.shape[1]}:{h.hexdigest()}"
