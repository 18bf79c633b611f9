"""The built-in bots. Each is a plain bot, the same kind a user submits: a module here, or a
folder here holding ``bot.py`` and the data files it reads."""

from __future__ import annotations

from pathlib import Path

__all__ = ["BUILTIN_DIR", "builtin_bots"]

BUILTIN_DIR = Path(__file__).resolve().parent


def builtin_bots() -> list[Path]:
    """The built-in bots (files and folders), sorted by name."""
    found = [p for p in BUILTIN_DIR.glob("*.py") if not p.name.startswith("_")]
    found += [p for p in BUILTIN_DIR.iterdir()
              if p.is_dir() and not p.name.startswith(("_", ".")) and (p / "bot.py").is_file()]
    return sorted(found, key=lambda p: p.name.removesuffix(".py"))
