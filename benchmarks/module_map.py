"""The module map of docs/architecture.md, read from the package's folders (nothing is imported).

One line per folder of ``svmtune``: its path, every module in it and the first line of its
``__init__``'s docstring (the room's public face). ``tests/test_module_map.py`` checks that the
map in the docs lists every module and no other; this script writes it.

    python benchmarks/module_map.py           # print the map
    python benchmarks/module_map.py --write   # replace the map in docs/architecture.md
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "svmtune"
DOC = ROOT / "docs" / "architecture.md"
BEGIN = "<!-- module map: python benchmarks/module_map.py --write -->"
END = "<!-- end of the module map -->"


def _summary(init: Path) -> str:
    """The first line of the docstring of ``init``, or ``""``."""
    doc = ast.get_docstring(ast.parse(init.read_text())) if init.is_file() else None
    return doc.strip().splitlines()[0] if doc else ""


def folders() -> dict[str, list[str]]:
    """Each folder of the package (relative to the repository) -> its modules, sorted."""
    found: dict[str, list[str]] = {}
    for folder in sorted(p for p in [PACKAGE, *PACKAGE.rglob("*")] if p.is_dir()):
        modules = sorted(p.name for p in folder.glob("*.py"))
        if modules and "__pycache__" not in folder.parts:
            found[folder.relative_to(ROOT).as_posix() + "/"] = modules
    return found


def module_map() -> str:
    """The map as markdown lines, one per folder, between its two markers."""
    lines = [BEGIN]
    for folder, modules in folders().items():
        summary = _summary(ROOT / folder / "__init__.py").replace("`", "")
        listed = ", ".join(f"`{m}`" for m in modules)
        lines.append(f"- `{folder}`: {listed}{' -- ' + summary if summary else ''}")
    lines.append(END)
    return "\n".join(lines)


def listed_in(text: str) -> set[str]:
    """The module paths a map in ``text`` lists (``folder/module.py``)."""
    start, stop = text.index(BEGIN), text.index(END)
    found = set()
    for line in text[start:stop].splitlines()[1:]:
        parts = line.split(" -- ")[0].split("`")
        found |= {parts[1] + name for name in parts[3::2]}
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help="replace the map in the docs")
    args = parser.parse_args()
    new = module_map()
    if not args.write:
        print(new)
        return
    text = DOC.read_text()
    start, stop = text.index(BEGIN), text.index(END) + len(END)
    DOC.write_text(text[:start] + new + text[stop:])


if __name__ == "__main__":
    main()
