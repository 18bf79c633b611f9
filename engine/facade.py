"""A package's public names imported on first use (PEP 562), each listed once.

``engine``, ``arena`` and ``tournaments`` each declare their names as one mapping, module ->
names (``name=attribute`` where the name there differs), and take their ``__all__``,
``__getattr__`` and ``__dir__`` from :func:`lazy`. Type checkers read the same names from the
``__init__.pyi`` beside each, written from that mapping by tests/test_facades.py.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing is not imported: it costs a bot process's start-up
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["lazy", "origins"]


def origins(exports: dict[str, str]) -> dict[str, tuple[str, str]]:
    """Each public name -> (the module it comes from, its name there)."""
    return {name: (module, attribute or name)
            for module, names in exports.items() for entry in names.split()
            for name, _, attribute in [entry.partition("=")]}


def lazy(package: str, exports: dict[str, str]
         ) -> tuple[list[str], Callable[[str], object], Callable[[], list[str]]]:
    """``__all__``, ``__getattr__`` and ``__dir__`` for ``package`` with ``exports``."""
    origin = origins(exports)
    names = sorted(origin)

    def __getattr__(name: str) -> object:
        if name not in origin:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, attribute = origin[name]
        value = getattr(__import__(module, fromlist=[attribute]), attribute)  # no importlib
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(names))

    return names, __getattr__, __dir__
