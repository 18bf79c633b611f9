"""PLACEHOLDER until the botfiles branch lands: a .py bot's files in memory."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = ["BotFiles", "BotFilesError", "BotLimits", "read_bot"]


@dataclass(frozen=True)
class BotLimits:
    max_bytes: int = 16 << 20
    max_files: int = 256


class BotFilesError(ValueError):
    pass


@dataclass(frozen=True)
class BotFiles:
    name: str
    kind: Literal["file", "folder"]
    entry: str
    files: tuple[tuple[str, bytes], ...]

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.files[0][1]).hexdigest()

    @property
    def size(self) -> int:
        return sum(len(d) for _, d in self.files)

    def source(self) -> str:
        try:
            return dict(self.files)[self.entry].decode("utf-8")
        except UnicodeDecodeError as err:
            raise BotFilesError(f"{self.name}: not UTF-8 ({err.reason} at byte {err.start})"
                                ) from None


def read_bot(path: Path, *, limits: BotLimits = BotLimits()) -> BotFiles:
    if path.is_dir():
        files = tuple(sorted((str(p.relative_to(path)), p.read_bytes())
                             for p in path.rglob("*") if p.is_file()))
        return BotFiles(path.name, "folder", "bot.py", files)
    data = path.read_bytes()
    if len(data) > limits.max_bytes:
        raise BotFilesError(f"{path.name}: larger than {limits.max_bytes >> 20} MiB")
    return BotFiles(path.stem, "file", path.name, ((path.name, data),))
