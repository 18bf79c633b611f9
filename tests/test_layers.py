"""The architecture holds: each package imports only the packages below it, no two modules
import each other (directly or in a ring), and no module grows past the size one can read."""

from __future__ import annotations

import ast
import re
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
INSIDE_MAY_IMPORT = {"engine", "sushi_runner", "sushi_jail", "sushi_kernel", "sushi_zygote",
                     "sushi_boot", "sushi_program", "arena"}


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


#: Folders whose ``__init__`` docstring has a "May import:" line (issue 33: every folder's line
#: is enforced, not only the packages').
FOLDERS = ("arena.game", "arena.inside", "arena.isolation.cgroups", "arena.isolation",
           "arena.runtime", "arena.tools",
           "tournaments.compare", "tournaments.executors", "tournaments.store")
#: A reference in a "May import:" line: :mod:`x` or ``x``.
_REFERENCE = re.compile(r":mod:`~?([\w.]+)`|``([\w.]+)``")


def may_import(folder: str) -> set[str]:
    """The modules (and packages: their modules too) a folder's "May import:" line names; "the
    rest of the arena" names ``arena``."""
    path = ROOT / folder.replace(".", "/") / "__init__.py"
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    start = doc.find("May import:")
    assert start >= 0, f"{folder}/__init__.py has no 'May import:' line"
    line = doc[start:].split("\n\n")[0]
    allowed = {a or b for a, b in _REFERENCE.findall(line)}
    if "the rest of the arena" in line:
        allowed.add("arena")
    return allowed


def outside_imports(folder: str) -> dict[str, set[str]]:
    """Per module of ``folder``, the project modules it imports outside the folder."""
    inside = lambda name: name == folder or name.startswith(folder + ".")  # noqa: E731
    return {a: {b for b in targets if not inside(b)}
            for a, targets in graph().items() if inside(a)}


def test_every_folder_imports_only_what_its_may_import_line_names() -> None:
    found = []
    for folder in FOLDERS:
        allowed = may_import(folder)
        for module, targets in sorted(outside_imports(folder).items()):
            found += [f"{module} imports {b} (not in {folder}'s 'May import:' line)"
                      for b in sorted(targets)
                      if not any(b == x or b.startswith(x + ".") for x in allowed)]
    assert found == []


def test_the_may_import_check_catches_an_import_the_line_does_not_name() -> None:
    assert "arena.runtime" in may_import("arena.game") and "engine" in may_import("arena.game")
    assert not any(x == "tournaments" or x.startswith("tournaments.")
                   for x in may_import("arena.runtime"))
    assert "arena.isolation.sandbox" in outside_imports("arena.runtime")["arena.runtime.launch"]


def test_no_import_cycles_between_folders() -> None:
    """With each folder of FOLDERS taken as one node (its modules together), the graph has no
    cycle: no folder imports a module that imports the folder back (``ranking.py`` and
    ``tally.py`` read stored games from :mod:`tournaments.stored`, not the store)."""
    def node(name: str) -> str:
        return next((f for f in FOLDERS if name == f or name.startswith(f + ".")), name)

    edges: dict[str, set[str]] = {}
    for a, targets in graph().items():
        if a in ("arena", "tournaments", "engine"):      # the packages' lazy facades
            continue
        edges.setdefault(node(a), set()).update(
            node(b) for b in targets if node(b) != node(a)
            and b not in ("arena", "tournaments", "engine"))
    cycles = []
    for start in sorted(edges):
        seen, todo = set(), [(start, [start])]
        while todo:
            here, path = todo.pop()
            for nxt in sorted(edges.get(here, ())):
                if nxt == start:
                    cycles.append(" -> ".join([*path, nxt]))
                elif nxt not in seen:
                    seen.add(nxt)
                    todo.append((nxt, [*path, nxt]))
    assert [c for c in cycles if any(f in c for f in FOLDERS)] == []
