"""The lazy facades (``engine``, ``arena``, ``tournaments``) list each public name once, in
their ``_EXPORTS``; type checkers read the same names from the ``__init__.pyi`` stub beside
each, written from it. After changing a facade, write the stubs again with
``python -m tests.test_facades``."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

from engine.facade import origins as facade_origins

ROOT = Path(__file__).resolve().parents[1]
FACADES = ("engine", "arena", "tournaments")
_HEADER = ('"""What type checkers see of this package: written from ``_EXPORTS`` in '
           '``__init__.py`` by\n``python -m tests.test_facades`` (do not edit)."""\n')


def _kind(name: str) -> int:
    """isort's order of the names one module gives: constants, classes, then the rest (each
    group in case-insensitive order)."""
    if name.isupper() and len(name) > 1:
        return 0
    return 1 if name[:1].isupper() else 2


def origins(package: str) -> dict[str, tuple[str, str]]:
    """Each public name of ``package`` -> (the module it comes from, its name there)."""
    return facade_origins(importlib.import_module(package)._EXPORTS)


def stub(package: str) -> str:
    """The text of ``package``'s ``__init__.pyi``: one re-export per public name."""
    lines = []
    for name, (module, attribute) in sorted(
            origins(package).items(),
            key=lambda item: (item[1][0].lower(), _kind(item[1][1]), item[1][1].lower())):
        lines.append(f"from {module} import {attribute} as {name}")
    names = "".join(f'    "{name}",\n' for name in sorted(origins(package)))
    return f"{_HEADER}\n{chr(10).join(lines)}\n\n__all__ = [\n{names}]\n"


def _path(package: str) -> Path:
    return ROOT / package / "__init__.pyi"


def test_each_stub_is_written_from_its_facade() -> None:
    stale = [str(_path(p).relative_to(ROOT)) for p in FACADES
             if not _path(p).exists() or _path(p).read_text(encoding="utf-8") != stub(p)]
    assert stale == [], "run: python -m tests.test_facades"


def test_each_name_resolves_and_is_listed_once() -> None:
    for package in FACADES:
        module = importlib.import_module(package)
        assert module.__all__ == sorted(origins(package))
        listed = [entry.partition("=")[0] for names in module._EXPORTS.values()
                  for entry in names.split()]
        assert len(listed) == len(set(listed)), package
        for name in module.__all__:
            assert getattr(module, name) is not None


def test_importing_a_facade_imports_none_of_its_modules() -> None:
    code = ("import sys; import engine, arena, tournaments\n"
            "print(' '.join(m for m in sys.modules if m.split('.')[0] in "
            "('engine', 'arena', 'tournaments') and '.' in m and m != 'engine.facade'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=60, check=True)
    assert done.stdout.split() == []


def test_an_unknown_name_is_an_attribute_error() -> None:
    import arena

    try:
        arena.no_such_name  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as err:
        assert "no_such_name" in str(err)
    else:
        raise AssertionError("arena.no_such_name resolved")


if __name__ == "__main__":
    for facade in FACADES:
        _path(facade).write_text(stub(facade), encoding="utf-8")
        print(f"wrote {_path(facade).relative_to(ROOT)}")
