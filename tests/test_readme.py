"""README's, studies/README.md's and docs/your-data.md's Python snippets each stand on their
own: they import what they use, and each runs as a script, printing what it shows, in a
folder of its own (they write into temporary folders, never into the checkout)."""

from __future__ import annotations

import ast
import builtins
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ("README.md", "studies/README.md", "docs/your-data.md")


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


ALL = [(doc, i) for doc in DOCS for i in range(len(snippets(ROOT / doc)))]


def test_every_document_has_snippets():
    assert {doc for doc, _ in ALL} == set(DOCS)


@pytest.mark.parametrize(("doc", "index"), ALL)
def test_each_snippet_imports_what_it_uses(doc, index):
    code = snippets(ROOT / doc)[index]
    assert unbound_names(code) == set()


@pytest.mark.slow
@pytest.mark.parametrize(("doc", "index"), ALL)
def test_each_snippet_runs_as_a_script_and_prints(doc, index, tmp_path):
    code = snippets(ROOT / doc)[index]
    script = tmp_path / "snippet.py"
    script.write_text(code)
    out = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip(), "the snippet prints nothing"
    assert not (tmp_path / "results").exists()  # it writes into a folder of its own
    assert "Warning" not in out.stderr, out.stderr[-3000:]
