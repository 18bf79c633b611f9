"""The architecture holds: each package imports only the packages below it, no two modules
import each other (directly or in a ring), and no module grows past the size one can read."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Bottom to top: a package may import those before it, never those after it.
LAYERS = ("engine", "bots", "learn", "arena", "tournaments", "publish", "serve", "cli")
#: Lines a module may have ("no module over ~400 lines").
MAX_LINES = 420


def modules() -> dict[str, Path]:
    found = {}
    for package in LAYERS:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def imports(path: Path, name: str, known: set[str]) -> set[str]:
    """The project modules ``path`` imports, at any depth of its code (functions too)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            targets = [f"{base}.{a.name}" for a in node.names] + [base]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


def graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {name: imports(path, name, known) for name, path in found.items()}


def test_no_package_imports_a_package_above_it() -> None:
    rank = {package: i for i, package in enumerate(LAYERS)}
    upward = [f"{a} imports {b}" for a, targets in graph().items() for b in targets
              if rank[b.split(".")[0]] > rank[a.split(".")[0]]]
    assert upward == []


def test_no_import_cycles_between_modules() -> None:
    edges = graph()
    # A package's __init__ re-exporting its own modules is not a cycle of the design.
    # (The tournaments' API re-exports from its subfolders, which Ray's executor ships whole.)
    edges = {a: {b for b in bs if not b.startswith(f"{a}.")} for a, bs in edges.items()}
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt] if nxt in stack else [node, nxt])
            elif nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    assert cycles == []


def test_the_checker_sees_imports_inside_functions(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from tournaments.store import Store\n    import cli.main\n")
    assert imports(module, "arena.m", {"tournaments.store", "cli.main", "cli"}) == {
        "tournaments.store", "cli.main"}


def test_no_module_is_too_long() -> None:
    long = {name: n for name, path in modules().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_other_packages_import_only_the_arena_api() -> None:
    """``arena/__init__.py`` is the arena's public API: nothing outside the arena reaches into
    its modules (imports inside functions included)."""
    reaching = sorted(f"{a} imports {b}" for a, targets in graph().items()
                      if a.split(".")[0] != "arena" for b in targets if b.startswith("arena."))
    assert reaching == []


def test_packages_above_import_only_the_tournaments_api() -> None:
    """``tournaments/__init__.py`` is the package's public API: publish, serve and cli import
    only ``tournaments`` itself, never its modules (imports inside functions included)."""
    reaching = sorted(f"{a} imports {b}" for a, targets in graph().items()
                      if a.split(".")[0] in ("publish", "serve", "cli")
                      for b in targets if b.startswith("tournaments."))
    assert reaching == []


#: What code running inside a sandbox may import besides the standard library.
INSIDE_MAY_IMPORT = {"engine", "sushi_runner", "sushi_jail", "sushi_zygote", "sushi_boot",
                     "arena"}


def test_code_inside_the_sandbox_imports_only_the_standard_library_and_engine() -> None:
    """The runner, the zygote and the boot run from a copy in the sandbox's image, where only
    the standard library, ``engine`` and each other (by their names there) exist."""
    found = []
    for path in sorted((ROOT / "arena" / "inside").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            for name in names:
                top = name.split(".")[0]
                ours = top == "arena" and name.startswith("arena.inside")
                allowed = top in sys.stdlib_module_names or top in INSIDE_MAY_IMPORT - {"arena"}
                if not (ours or allowed):
                    found.append(f"{path.name} imports {name}")
    assert found == []
