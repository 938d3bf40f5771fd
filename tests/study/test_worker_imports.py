"""What a worker process imports to run a cell: the cell's code, not the parent's storage."""

from __future__ import annotations

import subprocess
import sys


def test_the_code_that_runs_a_cell_imports_no_sqlalchemy():
    # a local worker unpickles its task into svmtune.study.run._cell (dump_task/run_payload);
    # the database is the parent's: SQLAlchemy loads there, not once per worker
    code = (
        "import sys, svmtune.study.run._cell as c; "
        "assert callable(c.run_payload); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'sqlalchemy'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
