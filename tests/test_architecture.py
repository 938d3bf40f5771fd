"""The package's shape, read from its source with :mod:`ast` (nothing is imported or run).

- no import cycle: no module imports, directly or through others, a module that imports it
  (imports inside functions and under ``if TYPE_CHECKING:`` count: a type-hint-only cycle
  is still a cycle for a reader and for a type checker);
- no import of a higher layer: kernels and data sets -> solvers -> classifier -> objectives ->
  tuners -> study -> command line, each layer importing only its own and lower ones;
- public seams: a package takes another package's names from its ``__init__`` (or a public
  module), never from its private modules (inside ``svmtune/solvers`` the SMO room and the
  exact leave-one-out room meet the same way, leave-one-out above SMO), except the
  package-wide helpers ``svmtune._validation``, ``_lazy``, ``_params``, ``_warnings``,
  ``_quiet`` and ``_options``;
- no function over 80 lines of code (blank lines, comments and the docstring not counted;
  numba-compiled functions exempt) and no module over 450 lines.

The scripts beside the package (``studies/``, ``benchmarks/``) keep the same size limits and
use only svmtune's public names: no ``svmtune._x`` or ``svmtune.x._y``, the shared helpers
included, also in the code a script writes out for a child process to run. They have no
allow-list.

Each failure names the file, the function or import, and the count.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "svmtune"
#: The folders of scripts that use the package as its users do.
SCRIPTS = (ROOT / "studies", ROOT / "benchmarks")

MAX_FUNCTION_LINES = 80
MAX_MODULE_LINES = 450

#: The package-wide helpers any module may import, private as they are.
HELPERS = frozenset(
    {"_validation", "_lazy", "_memory", "_params", "_warnings", "_quiet", "_options"}
)

#: Layer of each top-level package or module of ``svmtune`` (lower layers never import higher
#: ones). The helpers above and the package's own ``__init__`` sit outside the layers.
LAYERS: dict[str, int] = {
    "space": 0,
    "kernels": 0,
    "datasets": 0,
    "solvers": 1,
    "classifier": 2,
    "objectives": 3,
    "tuners": 4,
    "estimators": 5,  # SVC, TunedSVC and its parts
    "study": 5,
    "cli": 6,
    "_cli_helpers": 6,  # the command line's helpers
}

#: Known offenders, each with why it is tolerated for now: empty this list.
#: (kind, file relative to the repository, what) -> why.
ALLOWED: dict[tuple[str, str, str], str] = {}


@dataclass
class Module:
    """One module of the package as its source shows it."""

    name: str  # dotted, e.g. "svmtune.study.run._cell"
    path: Path
    tree: ast.Module
    lines: int
    imports: dict[str, int] = field(default_factory=dict)  # imported module -> first line

    @property
    def rel(self) -> str:
        return self.path.relative_to(ROOT).as_posix()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(module: Module, node: ast.ImportFrom) -> str:
    """The absolute name of ``from ... import`` (relative imports resolved)."""
    if not node.level:
        return node.module or ""
    base = module.name.split(".")
    if module.path.name != "__init__.py":
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _imports(module: Module, known: set[str]) -> dict[str, int]:
    """Every module of the package that ``module`` imports, with the first line doing so."""
    found: dict[str, int] = {}

    def add(name: str, line: int) -> None:
        # `import a.b.c` names module a.b.c; a name not a module belongs to its module
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name and name != module.name:
            found.setdefault(name, line)

    for node in ast.walk(module.tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            source = _resolve(module, node)
            for alias in node.names:
                add(f"{source}.{alias.name}", node.lineno)
    return found


def _load() -> dict[str, Module]:
    modules = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        name = _module_name(path)
        modules[name] = Module(name, path, ast.parse(text, str(path)), len(text.splitlines()))
    known = set(modules)
    for module in modules.values():
        module.imports = _imports(module, known)
    return modules


MODULES = _load()


def _top(name: str) -> str:
    """The top-level package or module of ``svmtune`` that ``name`` belongs to."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


def _package(name: str) -> str:
    """The package ``name`` belongs to: its top-level subpackage of ``svmtune``, or ``""``
    for the modules at the top of ``svmtune`` (``cli.py``, ``classifier.py``, ...)."""
    parts = name.split(".")
    if len(parts) > 2 or (len(parts) == 2 and MODULES[name].path.name == "__init__.py"):
        return parts[1]
    return ""


def _private_part(name: str) -> str | None:
    """The first private component of ``name`` below ``svmtune``, if any (helpers excepted)."""
    parts = name.split(".")[1:]
    if parts and parts[0] in HELPERS:
        return None
    return next((part for part in parts if part.startswith("_")), None)


def _violations(kind: str, found: list[tuple[str, str, str]]) -> list[str]:
    """The messages of ``found`` (file, what, message) not in the allow-list."""
    return [msg for rel, what, msg in found if (kind, rel, what) not in ALLOWED]


def _stale(kind: str, found: list[tuple[str, str, str]]) -> list[str]:
    keys = {(kind, rel, what) for rel, what, _ in found}
    return [f"{k}" for k in ALLOWED if k[0] == kind and k not in keys]


def _cycles(modules: dict[str, Module]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in modules[v].imports:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(modules):
        if v not in index:
            visit(v)
    return components


def _cycle_path(modules: dict[str, Module], component: list[str]) -> list[str]:
    """One import cycle through the component's first module, as ``file:line -> module``."""
    members = set(component)
    start = component[0]
    # breadth-first from start back to start, inside the component
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for v in frontier:
            for w in modules[v].imports:
                if w in members and w not in previous:
                    previous[w] = v
                    following.append(w)
        if start in previous:
            break
        frontier = following
    path = [start]
    while True:
        path.append(previous[path[-1]])
        if path[-1] == start:
            break
    path.reverse()
    steps = []
    for a, b in zip(path, path[1:], strict=False):
        steps.append(f"{modules[a].rel}:{modules[a].imports[b]} imports {b}")
    return steps


def test_no_import_cycle() -> None:
    found = []
    for component in _cycles(MODULES):
        steps = _cycle_path(MODULES, component)
        what = " <-> ".join(component)
        found.append(
            (MODULES[component[0]].rel, what, f"import cycle {what}:\n    " + "\n    ".join(steps))
        )
    bad = _violations("cycle", found)
    assert not bad, "\n".join(bad)


def _layer_breaches() -> Iterator[tuple[str, str, str]]:
    for module in MODULES.values():
        own = LAYERS.get(_top(module.name))
        if own is None:
            continue
        for target, line in module.imports.items():
            theirs = LAYERS.get(_top(target))
            if theirs is not None and theirs > own:
                yield (
                    module.rel,
                    target,
                    f"{module.rel}:{line} imports {target} (layer {theirs}) from layer {own}",
                )


def test_no_import_of_a_higher_layer() -> None:
    bad = _violations("layer", list(_layer_breaches()))
    assert not bad, "\n".join(bad)


def test_every_top_level_part_has_a_layer() -> None:
    tops = {_top(name) for name in MODULES} - {""}
    unplaced = sorted(tops - set(LAYERS) - HELPERS)
    assert not unplaced, f"give these a layer in LAYERS: {unplaced}"


def _private_imports() -> Iterator[tuple[str, str, str]]:
    for module in MODULES.values():
        for target, line in module.imports.items():
            package = _package(target)
            if package == _package(module.name) or _private_part(target) is None:
                continue
            seam = f"svmtune.{package}" if package else "a public module of svmtune"
            yield (
                module.rel,
                target,
                f"{module.rel}:{line} imports the private module {target} of another "
                f"package (export what it needs from {seam} and import it from there)",
            )


def test_no_private_module_of_another_package() -> None:
    bad = _violations("private", list(_private_imports()))
    assert not bad, "\n".join(bad)


#: The rooms of svmtune/solvers, lower first: a room imports no higher room, and a lower room
#: only through its face (``__init__``), except the compiled steps the exact leave-one-out
#: retrain loop shares with SMO (the selection passes, the pair step, the shrinking state).
SOLVER_ROOMS = ("svmtune.solvers.smo", "svmtune.solvers.loo")
SHARED_COMPILED = frozenset(
    {
        "svmtune.solvers.smo._loop_passes",
        "svmtune.solvers.smo._pair_step",
        "svmtune.solvers.smo._shrinking",
    }
)


def _room(name: str) -> int | None:
    return next((i for i, r in enumerate(SOLVER_ROOMS) if name.startswith(r)), None)


def test_the_solver_rooms_meet_through_their_faces() -> None:
    bad = []
    for module in MODULES.values():
        own = _room(module.name)
        for target, line in module.imports.items():
            theirs = _room(target)
            if own is None or theirs is None or theirs == own:
                continue
            if theirs > own or (target not in SOLVER_ROOMS and target not in SHARED_COMPILED):
                bad.append(f"{module.rel}:{line} imports {target}")
    assert not bad, "\n".join(bad)


#: The layers of svmtune/study, lower first: a module of a layer imports no module of a higher
#: one, at module level or inside a function (the runner is handed what it warms workers with,
#: the report composes the verdict and the figures). The modules at the top of the study
#: (``Study``, the loaders, the package's face) stand above them all.
STUDY_LAYERS = (
    "svmtune.study.store",
    "svmtune.study.run",
    "svmtune.study.verdict",
    "svmtune.study.figures",
    "svmtune.study.report",
)


def _layer(name: str) -> int | None:
    return next(
        (i for i, p in enumerate(STUDY_LAYERS) if name == p or name.startswith(p + ".")), None
    )


def test_the_study_only_flows_down() -> None:
    assert {
        m.split(".")[2] for m in MODULES if m.count(".") >= 3 and m.startswith("svmtune.study.")
    } == {p.rpartition(".")[2] for p in STUDY_LAYERS}, (
        "a sub-package of svmtune/study is missing from STUDY_LAYERS"
    )
    bad = []
    for module in MODULES.values():
        own = _layer(module.name)
        for target, line in module.imports.items():
            theirs = _layer(target)
            if own is not None and theirs is not None and theirs > own:
                bad.append(f"{module.rel}:{line} imports {target} (a higher layer)")
    assert not bad, "\n".join(bad)


def _is_compiled(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Decorated with numba's ``njit`` or ``jit`` (bare, called, or as ``numba.njit``)."""
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in {"njit", "jit"}:
            return True
    return False


def code_lines(node: ast.FunctionDef | ast.AsyncFunctionDef, source: list[str]) -> int:
    """Lines of code of a function's body: not blank, not comment-only, not its docstring."""
    body = node.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        if len(body) == 1:
            return 0
        body = body[1:]
    first = body[0].lineno
    if getattr(body[0], "decorator_list", None):
        first = min(d.lineno for d in body[0].decorator_list)
    last = node.end_lineno or first
    lines = source[first - 1 : last]
    return sum(1 for line in lines if line.strip() and not line.strip().startswith("#"))


def _long_functions(modules: Iterable[Module] | None = None) -> Iterator[tuple[str, str, str]]:
    for module in MODULES.values() if modules is None else modules:
        source = module.path.read_text(encoding="utf-8").splitlines()
        for node in ast.walk(module.tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or _is_compiled(node):
                continue
            n = code_lines(node, source)
            if n > MAX_FUNCTION_LINES:
                yield (
                    module.rel,
                    node.name,
                    f"{module.rel}:{node.lineno} {node.name}: {n} lines of code "
                    f"(at most {MAX_FUNCTION_LINES})",
                )


def test_no_long_function() -> None:
    bad = _violations("function", list(_long_functions()))
    assert not bad, "\n".join(bad)


def _long_modules(modules: Iterable[Module] | None = None) -> Iterator[tuple[str, str, str]]:
    for module in MODULES.values() if modules is None else modules:
        if module.lines > MAX_MODULE_LINES:
            yield (
                module.rel,
                "",
                f"{module.rel}: {module.lines} lines (at most {MAX_MODULE_LINES})",
            )


def test_no_long_module() -> None:
    bad = _violations("module", list(_long_modules()))
    assert not bad, "\n".join(bad)


def test_the_allow_list_names_only_present_offenders() -> None:
    """An entry whose offence is gone must leave the list (so the list only ever shrinks)."""
    found = {
        "cycle": [(MODULES[c[0]].rel, " <-> ".join(c), "") for c in _cycles(MODULES)],
        "layer": list(_layer_breaches()),
        "private": list(_private_imports()),
        "function": list(_long_functions()),
        "module": list(_long_modules()),
    }
    stale = [s for kind, hits in found.items() for s in _stale(kind, hits)]
    assert not stale, f"remove these fixed entries from ALLOWED: {stale}"


# -- studies/ and benchmarks/: the same limits, public names only, no allow-list ---------------
def _load_scripts() -> list[Module]:
    scripts = []
    for folder in SCRIPTS:
        for path in sorted(folder.rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            name = path.relative_to(ROOT).with_suffix("").as_posix().replace("/", ".")
            scripts.append(Module(name, path, ast.parse(text, str(path)), len(text.splitlines())))
    return scripts


SCRIPT_MODULES = _load_scripts()


def _is_private(dotted: str) -> bool:
    """Whether a name below ``svmtune`` passes through a private part (``svmtune._x``,
    ``svmtune.x._y``, a private name ``_z``); dunders such as ``__version__`` are public."""
    parts = dotted.split(".")
    if parts[0] != "svmtune":
        return False
    return any(p.startswith("_") and not (p.startswith("__") and p.endswith("__")) for p in parts)


def _svmtune_imports(tree: ast.AST) -> Iterator[tuple[str, int]]:
    """Every ``svmtune`` name ``tree`` imports (``import a.b``: ``a.b``; ``from a import b``:
    ``a.b``), with its line; also in string literals that are Python source importing svmtune
    (a script a benchmark writes for a child process)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for alias in node.names:
                yield f"{node.module}.{alias.name}", node.lineno
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if "import" in node.value and "svmtune" in node.value:
                try:
                    inner = ast.parse(textwrap.dedent(node.value))
                except SyntaxError:
                    continue
                for name, line in _svmtune_imports(inner):
                    yield name, node.lineno + line - 1


def _script_private_imports(scripts: Iterable[Module]) -> Iterator[str]:
    for script in scripts:
        for name, line in _svmtune_imports(script.tree):
            if _is_private(name):
                yield (
                    f"{script.rel}:{line} imports {name}, a private part of svmtune (export "
                    "what it needs from a subpackage's __init__, with a docstring, and import "
                    "it from there)"
                )


def test_studies_and_benchmarks_import_no_private_part_of_svmtune() -> None:
    bad = list(_script_private_imports(SCRIPT_MODULES))
    assert not bad, "\n".join(bad)


def test_studies_and_benchmarks_keep_the_size_limits() -> None:
    found = [*_long_functions(SCRIPT_MODULES), *_long_modules(SCRIPT_MODULES)]
    assert not found, "\n".join(msg for _, _, msg in found)


def test_the_scripts_are_read() -> None:
    names = {m.rel for m in SCRIPT_MODULES}
    assert {"studies/reproductions.py", "benchmarks/franc_stop.py"} <= names
    assert len(names) > 30


# -- the checks themselves, on sources made up here ------------------------------------------
def _function(source: str) -> tuple[ast.FunctionDef, list[str]]:
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.FunctionDef)
    return node, source.splitlines()


def test_code_lines_leave_out_the_docstring_blanks_and_comments() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(81))
    node, lines = _function(f'def f():\n    """Doc.\n\n    More."""\n\n    # note\n{body}\n')
    assert code_lines(node, lines) == 81
    node, lines = _function('def f():\n    """Only a docstring."""\n')
    assert code_lines(node, lines) == 0


def test_compiled_functions_are_recognised() -> None:
    for decorator in ("njit", "njit(cache=True)", "numba.njit", "nb.jit(nopython=True)"):
        node, _ = _function(f"@{decorator}\ndef f():\n    pass\n")
        assert _is_compiled(node), decorator
    node, _ = _function("@functools.cache\ndef f():\n    pass\n")
    assert not _is_compiled(node)


def test_a_cycle_through_three_modules_is_found_and_spelled_out() -> None:
    def module(name: str, imports: dict[str, int]) -> Module:
        return Module(name, PACKAGE / "x.py", ast.parse(""), 0, imports)

    graph = {
        "svmtune.a": module("svmtune.a", {"svmtune.b": 3}),
        "svmtune.b": module("svmtune.b", {"svmtune.c": 4}),
        "svmtune.c": module("svmtune.c", {"svmtune.a": 5, "svmtune.d": 6}),
        "svmtune.d": module("svmtune.d", {}),
    }
    assert _cycles(graph) == [["svmtune.a", "svmtune.b", "svmtune.c"]]
    steps = _cycle_path(graph, ["svmtune.a", "svmtune.b", "svmtune.c"])
    assert steps == [
        "svmtune/x.py:3 imports svmtune.b",
        "svmtune/x.py:4 imports svmtune.c",
        "svmtune/x.py:5 imports svmtune.a",
    ]
    del graph["svmtune.c"].imports["svmtune.a"]
    assert _cycles(graph) == []


def test_imports_resolve_relative_names_and_submodules() -> None:
    tree = ast.parse(
        "from . import _claims\nfrom ..run import _cell\nimport svmtune.kernels\n"
        "from svmtune.objectives import KFoldCV\n"
    )
    me = Module("svmtune.study.store._storage", PACKAGE / "study/store/_storage.py", tree, 4)
    known = {
        "svmtune.study.store._claims",
        "svmtune.study.run._cell",
        "svmtune.kernels",
        "svmtune.objectives",
        "svmtune.objectives.kfold",
    }
    assert _imports(me, known) == {
        "svmtune.study.store._claims": 1,
        "svmtune.study.run._cell": 2,
        "svmtune.kernels": 3,
        "svmtune.objectives": 4,
    }


def test_private_means_below_a_package_or_a_private_top_module() -> None:
    assert _private_part("svmtune.objectives._base") == "_base"
    assert _private_part("svmtune.study.store._records") == "_records"
    assert _private_part("svmtune.estimators._probability") == "_probability"
    assert _private_part("svmtune._validation") is None  # a helper
    assert _private_part("svmtune.objectives") is None
    assert _private_part("svmtune.tuners.grid") is None


def test_private_parts_of_svmtune_are_found_in_a_script_and_in_its_child_scripts() -> None:
    source = (
        "import svmtune.study\n"
        "from svmtune.study import Storage, __version__\n"
        "from svmtune.study.store._claims import new_worker_id\n"
        "from svmtune import _validation\n"
        "import numpy._core\n"
        'WORKER = """\n'
        "    from svmtune.study.run._runner import claim_cells\n"
        '    """\n'
    )
    script = Module("benchmarks.x", ROOT / "benchmarks" / "x.py", ast.parse(source), 8)
    found = list(_script_private_imports([script]))
    assert [line.split(" imports ")[1].split(",")[0] for line in found] == [
        "svmtune.study.store._claims.new_worker_id",
        "svmtune._validation",
        "svmtune.study.run._runner.claim_cells",
    ]
    assert found[0].startswith("benchmarks/x.py:3 ")
    assert found[2].startswith("benchmarks/x.py:7 ")
