"""Folder bots for the command-line tests: the numpy bot of tests/arena copied where a user
would keep it, its archives, and hostile archives made on the spot."""

from __future__ import annotations

import io
import shutil
import tarfile
import zipfile
from pathlib import Path

from arena import ArenaOptions, SandboxUnavailable, check_sandbox

#: A small numpy network and its weights file (weights.npz).
LEARNED = Path(__file__).resolve().parents[1] / "arena" / "folder_bots" / "learned"
BOT = b"def pick(obs):\n    return obs.hand[0]\n"


def sandbox() -> str:
    """``auto`` where bubblewrap runs (folder bots and numpy in the real sandbox), else
    ``none``."""
    try:
        check_sandbox(ArenaOptions())
    except SandboxUnavailable:
        return "none"
    return "auto"


def learned(where: Path, name: str = "learned") -> Path:
    """A copy of the numpy folder bot at ``where/name``."""
    where.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copytree(LEARNED, where / name))


def zipped(folder: Path, dest: Path, *, top: bool = True) -> Path:
    """``folder`` as a zip at ``dest`` (its files under the folder's name when ``top``)."""
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                inside = path.relative_to(folder.parent if top else folder)
                archive.write(path, str(inside))
    return dest


def with_symlink() -> bytes:
    """A .tar.gz holding bot.py and a symbolic link to /etc/passwd."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        info = tarfile.TarInfo("bot.py")
        info.size = len(BOT)
        archive.addfile(info, io.BytesIO(BOT))
        link = tarfile.TarInfo("passwd")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        archive.addfile(link)
    return out.getvalue()


def zip_bomb(megabytes: int = 64) -> bytes:
    """A zip of bot.py and ``megabytes`` MiB of zeros (well under 1 MiB packed)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr("bot.py", BOT)
        with archive.open("zeros.bin", "w") as member:
            for _ in range(megabytes):
                member.write(bytes(1 << 20))
    return out.getvalue()
