#!/usr/bin/env bash
# CI stage: the oldest versions pyproject.toml allows (.ci/floors.txt pins each dependency to its
# `>=` floor), installed in a virtual environment of their own, and the whole test suite on them.
#
#   .ci/floors.sh            # called by .ci/run after the main stage, with its PostgreSQL server
#   CI_FLOORS_VENV=DIR .ci/floors.sh   # reuse a virtual environment
#
# Why the whole suite and not a part of it: what a floor breaks is not where one would guess
# (an empty study's summary table broke on pandas 2.1's indexing, far from any numerics). The
# suite runs spread over the cores by pytest-xdist (pyproject's `-n auto --dist loadfile`; its
# floor is pinned here like every other test dependency), so each stage takes about as long
# as the main one.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV="${CI_FLOORS_VENV:-$(mktemp -d)/venv-floors}"
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --upgrade pip

echo "== tests on the oldest allowed versions (.ci/floors.txt)"
"$VENV/bin/python" -m pip install --quiet -c .ci/floors.txt ".[test]"
"$VENV/bin/python" - <<'PY'
# say what is installed, and fail if pip picked anything but the floors
import re
from importlib.metadata import version
from pathlib import Path

wrong = []
for line in Path(".ci/floors.txt").read_text().splitlines():
    line = line.split("#")[0].strip()
    if not line:
        continue
    name, want = re.split(r"==", line)
    have = version(name)
    print(f"{name} {have}")
    if have != want:
        wrong.append(f"{name} {have} (floor {want})")
if wrong:
    raise SystemExit("not the floors: " + ", ".join(wrong))
PY
set +e
# pyproject's options (--import-mode=importlib): the tests import the package installed above.
# The pytest script, not `python -m pytest`, which would put the checkout first on sys.path
# (tests/test_installed.py fails then)
"$VENV/bin/pytest"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests on the floors: failing" >&2
  exit 1
fi
exit "$status"
