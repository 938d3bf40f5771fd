"""docs/architecture.md's module map lists every module of the package, and only those."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _script():  # benchmarks/ is not a package: load the script by its path
    spec = importlib.util.spec_from_file_location("module_map", ROOT / "benchmarks/module_map.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_module_map_lists_every_module_and_no_other() -> None:
    script = _script()
    on_disk = {folder + name for folder, names in script.folders().items() for name in names}
    in_docs = script.listed_in((ROOT / "docs/architecture.md").read_text())
    missing, stale = sorted(on_disk - in_docs), sorted(in_docs - on_disk)
    assert not missing and not stale, (
        f"missing from the map: {missing}; listed but gone: {stale} "
        "(rewrite it: python benchmarks/module_map.py --write)"
    )


def test_the_map_is_read_back_as_written() -> None:
    script = _script()
    text = script.module_map()
    assert script.listed_in(text) == {
        folder + name for folder, names in script.folders().items() for name in names
    }
    assert "svmtune/solvers/smo/_smo_loop.py" in script.listed_in(text)
    bad = text.replace("`_smo_loop.py`, ", "")
    assert "svmtune/solvers/smo/_smo_loop.py" not in script.listed_in(bad)
