"""The `svmtune run` command the worker tests start as subprocesses: one cell at a time, no
progress bar, PNG figures only (no test here reads a PDF), output beside the study file."""

from __future__ import annotations

import sys
from pathlib import Path


def run_cmd(path: Path, url: str, *extra: str) -> list[str]:
    """``svmtune run`` on the study file ``path`` with storage ``url`` and ``extra`` flags."""
    cmd = [sys.executable, "-m", "svmtune.cli", "run", str(path), "--storage", url]
    cmd += ["--n-jobs", "1", "--no-progress", "--format", "png"]
    return cmd + ["--output", str(path.parent / "out"), *extra]
