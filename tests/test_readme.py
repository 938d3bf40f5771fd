"""README's and studies/README.md's Python snippets each stand on their own."""

from __future__ import annotations

import ast
import builtins
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def snippets(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


def unbound_names(code: str) -> set[str]:
    """Names the snippet reads but neither imports, assigns nor gets from builtins."""
    tree = ast.parse(code)
    bound = set(dir(builtins))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return read - bound


@pytest.mark.parametrize(
    ("doc", "index"),
    [
        ("README.md", 0),
        ("README.md", 1),
        ("README.md", 2),
        ("README.md", 3),
        ("README.md", 4),
        ("studies/README.md", 0),
    ],
)
def test_each_snippet_imports_what_it_uses(doc, index):
    code = snippets(ROOT / doc)[index]
    assert unbound_names(code) == set()
