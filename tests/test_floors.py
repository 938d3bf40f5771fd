""".ci/floors.txt pins every dependency pyproject.toml names to its floor, and only those."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _name(spec: str) -> str:
    return re.split(r"[\[<>=!~; ]", spec, maxsplit=1)[0].lower().replace("_", "-")


def _floors_of_pyproject() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    floors = {}
    for spec in [*project["dependencies"], *project["optional-dependencies"]["test"]]:
        match = re.search(r">=\s*([0-9][0-9.]*)", spec)
        assert match, f"{spec!r} has no >= floor"
        floors[_name(spec)] = match.group(1)
    return floors


def _pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / ".ci" / "floors.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            pins[_name(name)] = version.strip()
    return pins


def _padded(version: str) -> tuple[int, ...]:
    parts = tuple(int(p) for p in version.split("."))
    return parts + (0,) * (3 - len(parts))


def test_each_floor_is_pinned_at_pyprojects_lower_bound():
    floors, pins = _floors_of_pyproject(), _pins()
    assert sorted(pins) == sorted(floors)
    for name, floor in floors.items():
        assert _padded(pins[name]) == _padded(floor), (name, pins[name], floor)
