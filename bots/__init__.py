"""The built-in bots. Each module here is a plain bot file, the same kind a user submits."""

from __future__ import annotations

from pathlib import Path

__all__ = ["BUILTIN_DIR", "builtin_bots"]

BUILTIN_DIR = Path(__file__).resolve().parent


def builtin_bots() -> list[Path]:
    """The built-in bot files, sorted by name."""
    return sorted(p for p in BUILTIN_DIR.glob("*.py") if not p.name.startswith("_"))
