"""A bot's files read into memory, checked and hashed: a ``.py`` file, a folder holding
``bot.py`` and data files, or that folder packed as ``.zip``, ``.tar.gz`` or ``.tgz``.

Every input is hostile. Reading never writes anything anywhere (only :func:`write_tree` writes,
inside the new folder it is given); limits count the bytes actually read or decompressed, never
sizes declared in headers; a refusal is a :class:`BotFilesError`, one line naming the input and
the member. Paths are relative POSIX paths, each given once, as a file or a folder
(:mod:`arena.botnames` says which are refused); archives may prefix them with ``./``.
``__pycache__`` folders (generated) are skipped in folders and archives alike, and empty
folders are not kept. Standard library only.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import stat
import tarfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, NoReturn

from arena.botnames import MAX_DEPTH, Names
from arena.botnames import path_problem as _path_problem
from arena.botnames import show as _show
from arena.programs import folder_entry

__all__ = ["ARCHIVE_SUFFIXES", "DIGEST_DOMAIN", "ENTRY", "BotFiles", "BotFilesError",
           "BotLimits", "read_archive", "read_bot", "write_tree"]

#: The file a folder bot's runner executes.
ENTRY = "bot.py"
ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz")
#: What an archive may weigh beyond the limit on its contents.
ARCHIVE_SLACK = 1 << 20
#: Entries (files, folders, links...) an archive or a folder may list, per file allowed.
ENTRIES_PER_FILE = 4
SKIPPED = "__pycache__"
CHUNK = 1 << 16
#: The first bytes hashed for a folder's digest (see :attr:`BotFiles.digest`).
DIGEST_DOMAIN = b"sushi-go-bot-folder/1\n"
_ACCEPTED = "a bot is a .py file, a folder holding bot.py, or that folder as .zip, .tar.gz or .tgz"
_ZIP_ENCRYPTED, _ZIP_UTF8 = 0x1, 0x800
#: bzip2 and LZMA members are refused: zipfile decompresses a whole read of them at once.
_ZIP_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
#: O_NONBLOCK: a file swapped for a FIFO must not hang the reader (fstat then refuses it).
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_OTHER = "is not a regular file or folder"
_KINDS = {stat.S_IFLNK: "is a symbolic link", stat.S_IFCHR: "is a device",
          stat.S_IFBLK: "is a device", stat.S_IFIFO: "is a FIFO", stat.S_IFSOCK: "is a socket",
          stat.S_IFDIR: "is a folder"}
_TAR_KINDS = {tarfile.SYMTYPE: "is a symbolic link", tarfile.LNKTYPE: "is a hard link",
              tarfile.CHRTYPE: "is a device", tarfile.BLKTYPE: "is a device",
              tarfile.FIFOTYPE: "is a FIFO"}


class BotFilesError(ValueError):
    """A bot's files refused: ``str(err)`` is one line naming the input and the problem."""


@dataclass(frozen=True)
class BotLimits:
    """What one bot may hold: bytes of all files together (uncompressed), and files."""

    max_bytes: int = 16 << 20
    max_files: int = 256


@dataclass(frozen=True)
class BotFiles:
    """A bot's files, checked: (relative POSIX path, content) pairs sorted by path."""

    name: str
    kind: Literal["file", "folder"]
    entry: str
    files: tuple[tuple[str, bytes], ...] = field(repr=False)

    def __post_init__(self) -> None:
        label, paths = _label(self.name), [path for path, _ in self.files]
        _check_name(label, self.name)
        for path in paths:
            if problem := _path_problem(path, MAX_DEPTH):
                raise BotFilesError(f"{label}: {_show(path)} {problem}")
        if paths != sorted(set(paths)) or self.entry not in paths or (
                paths != [self.entry] or not self.entry.endswith(".py") if self.kind == "file"
                else self.kind != "folder" or self.entry != folder_entry(paths)):
            raise BotFilesError(f"{label}: not a {self.kind} bot with entry {_show(self.entry)}, "
                                "or its files are not sorted by path, or repeat one")

    @property
    def digest(self) -> str:
        """The bot's identity, sha256 hex. A file: the sha256 of its content. A folder: the
        sha256 of ``DIGEST_DOMAIN`` then, for every file in path order, the path's UTF-8 length
        (8 bytes, big-endian), the path, the content's length (8 bytes, big-endian) and the
        content. The same files give the same digest, whatever held them."""
        if self.kind == "file":
            return hashlib.sha256(self.files[0][1]).hexdigest()
        digest = hashlib.sha256(DIGEST_DOMAIN)
        for path, content in self.files:
            for part in (path.encode(), content):
                digest.update(len(part).to_bytes(8, "big"))
                digest.update(part)
        return digest.hexdigest()

    @property
    def size(self) -> int:
        """Bytes of all files together."""
        return sum(len(content) for _, content in self.files)

    def source(self) -> str:
        """The entry's text; :class:`BotFilesError` naming the byte offset if it is not UTF-8."""
        try:
            return dict(self.files)[self.entry].decode("utf-8")
        except UnicodeDecodeError as err:
            raise BotFilesError(f"{_label(self.name)}: {_show(self.entry)} is not UTF-8 text "
                                f"(byte {err.start})") from None

    def pack(self) -> bytes:
        """A folder's files as a deterministic ``.tar.gz`` (sorted, mtime 0, uid and gid 0,
        mode 0644, no owner names, gzip mtime 0): what is sent for a folder. A file bot is
        sent as the file itself: packing one is refused."""
        if self.kind != "folder":
            raise BotFilesError(f"{_label(self.name)}: a .py bot is sent as it is, not packed")
        out = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=out, compresslevel=9, mtime=0) as gz, \
                tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT,
                             encoding="utf-8") as tar:
            for path, content in self.files:
                info = tarfile.TarInfo(path)  # mode 0644, mtime 0, uid and gid 0, no names
                info.size = len(content)
                tar.addfile(info, io.BytesIO(content))
        return out.getvalue()


def read_bot(path: Path, *, limits: BotLimits = BotLimits()) -> BotFiles:
    """Read a bot: a ``.py`` file, a folder, a ``.zip``, a ``.tar.gz`` or ``.tgz``. ``path``
    itself may be a symbolic link (the caller named it); nothing inside a folder may."""
    label, archive = _label(str(path)), path.name.lower().endswith(ARCHIVE_SUFFIXES)
    bound = limits.max_bytes + (ARCHIVE_SLACK if archive else 0)
    whole = _Collector(label, BotLimits(bound, 1), too_big="is larger than")
    try:
        if stat.S_ISDIR(os.stat(path).st_mode):
            return _read_folder(path, label, limits)
        if not archive and not path.name.endswith(".py"):
            whole.fail(f"not a bot: {_ACCEPTED}")
        _read_open(whole, "", path.name, os.open(path, _FILE & ~os.O_NOFOLLOW))
    except OSError as err:
        whole.fail(_os_problem(err))
    if archive:
        return _read_archive(whole.files[path.name], path.name, label, limits)
    _check_name(label, path.name[:-3])
    return BotFiles(path.name[:-3], "file", path.name, tuple(whole.files.items()))


def read_archive(data: bytes, filename: str, *, limits: BotLimits = BotLimits()) -> BotFiles:
    """Read an uploaded archive (``.zip``, ``.tar.gz``, ``.tgz``); the bot's name is the last
    component of ``filename`` without its extension."""
    filename = filename.replace("\\", "/").rsplit("/", 1)[-1]
    return _read_archive(data, filename, _label(filename), limits)


def write_tree(bot: BotFiles, dest: Path) -> None:
    """Write the bot's files into ``dest``, a new folder (refused if it exists): folders 0755,
    files 0644."""
    try:
        os.mkdir(dest, 0o755)
    except OSError as err:
        raise BotFilesError(f"{_label(str(dest))}: {_os_problem(err)} (write_tree makes a new "
                            "folder)") from None
    dest.chmod(0o755)  # whatever the umask
    # The paths were checked (BotFiles); only folders and new regular files are made here.
    for folder in sorted({p.rsplit("/", i)[0] for p, _ in bot.files
                          for i in range(1, p.count("/") + 1)}):  # parents first
        (dest / folder).mkdir()
        (dest / folder).chmod(0o755)
    for path, content in bot.files:
        fd = os.open(dest / path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                     | os.O_CLOEXEC, 0o644)
        with open(fd, "wb") as out:
            os.fchmod(fd, 0o644)
            out.write(content)


class _Collector:
    """The files of one input as they are read, within its budget of bytes, files, entries."""

    def __init__(self, label: str, limits: BotLimits, *, too_big: str) -> None:
        self.label, self.limits = label, limits
        self.too_big = f"{too_big} {_amount(limits.max_bytes)} (the limit)"
        self.max_entries = ENTRIES_PER_FILE * limits.max_files  # files, folders, refused kinds
        self.too_many = f"more than {self.max_entries} entries ({ENTRIES_PER_FILE} times the " \
                        "limit on files)"
        self.files: dict[str, bytes] = {}
        self.used = self.entries = 0
        self.names = Names(self.fail)

    def fail(self, problem: str) -> NoReturn:
        raise BotFilesError(f"{self.label}: {problem}")

    def path(self, raw: bytes, *, archive: bool) -> str | None:
        """The checked path of one more entry, named ``raw`` (None: the root, or skipped)."""
        self.entries += 1
        if self.entries > self.max_entries:
            self.fail(self.too_many)
        try:
            name = raw.decode("utf-8")
        except UnicodeDecodeError:
            self.fail(f"{_show(raw)} is not a valid UTF-8 name")
        while archive and name.startswith("./"):
            name = name[2:]
        if archive and name in ("", "."):
            return None
        # An archive may hold the folder itself, one level more: finish() checks again.
        if problem := _path_problem(name, MAX_DEPTH + 1 if archive else MAX_DEPTH):
            self.fail(f"{_show(name)} {problem}")
        return None if SKIPPED in name.split("/") else name

    def read(self, path: str, read: Callable[[int], bytes]) -> None:
        """Read one file through ``read(n)``, never past the remaining budget + 1 byte."""
        if path in self.files:
            self.fail(f"{_show(path)} appears twice")
        if len(self.files) >= self.limits.max_files:
            self.fail(f"more than {self.limits.max_files} files (the limit)")
        chunks = []
        while data := read(min(CHUNK, self.limits.max_bytes - self.used + 1)):
            self.used += len(data)
            if self.used > self.limits.max_bytes:
                self.fail(self.too_big)
            chunks.append(data)
        self.files[path] = b"".join(chunks)

    def finish(self, name: str, *, archive: bool) -> BotFiles:
        """The bot; an archive holding just a folder with ``bot.py`` is taken as that folder."""
        files = self.files
        parents = {p.rsplit("/", i)[0] for p in files for i in range(1, p.count("/") + 1)}
        for path in sorted(files.keys() & parents):
            self.fail(f"{_show(path)} is both a file and a folder")
        tops = {p.split("/", 1)[0] for p in files}
        top = tops.pop() if len(tops) == 1 else ""
        if archive and folder_entry(files) is None and folder_entry(
                {p[len(top) + 1:] for p in files if p.startswith(f"{top}/")}) is not None:
            files = {p[len(top) + 1:]: content for p, content in files.items()}
        for path in files:
            if path.count("/") >= MAX_DEPTH:
                self.fail(f"{_show(path)} is more than {MAX_DEPTH} levels deep")
        entry = folder_entry(files)
        if entry is None:
            self.fail(f"no {ENTRY} at the top of the folder")
        return BotFiles(name, "folder", entry, tuple(sorted(files.items())))


def _read_folder(path: Path, label: str, limits: BotLimits) -> BotFiles:
    name = os.path.basename(os.path.abspath(path))
    _check_name(label, name)
    collector = _Collector(label, limits, too_big="holds more than")
    try:
        _walk(collector, os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC), "")
    except OSError as err:
        collector.fail(_os_problem(err))
    return collector.finish(name, archive=False)


def _walk(collector: _Collector, fd: int, prefix: str) -> None:
    """Read the folder open as ``fd`` (at ``prefix``; closed after), following no link."""
    try:
        with os.scandir(fd) as scan:
            entries = sorted(scan, key=lambda e: e.name)
        for entry in entries:
            path = collector.path(os.fsencode(prefix + entry.name), archive=False)
            shown = _show(prefix + entry.name) + " "
            try:
                mode = entry.stat(follow_symlinks=False).st_mode
                if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
                    collector.fail(f"{shown}{_KINDS.get(stat.S_IFMT(mode), _OTHER)}")
                if path is not None:
                    collector.names.claim(path, "folder" if stat.S_ISDIR(mode) else "file")
                if path is not None and stat.S_ISDIR(mode):
                    _walk(collector, os.open(entry.name, _DIR, dir_fd=fd), path + "/")
                elif path is not None:
                    _read_open(collector, shown, path, os.open(entry.name, _FILE, dir_fd=fd))
            except OSError as err:
                collector.fail(f"{shown}{_os_problem(err)}")
    finally:
        os.close(fd)


def _read_open(collector: _Collector, shown: str, path: str, fd: int) -> None:
    """Read the file open as ``fd`` (closed after) unless it is not (or no longer) regular."""
    try:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode):
            collector.fail(f"{shown}{_KINDS.get(stat.S_IFMT(found.st_mode), _OTHER)}")
        if found.st_size > collector.limits.max_bytes - collector.used:  # refused unread
            collector.fail(collector.too_big)
        collector.read(path, lambda n: os.read(fd, n))
    finally:
        os.close(fd)


def _read_archive(data: bytes, filename: str, label: str, limits: BotLimits) -> BotFiles:
    suffix = next((s for s in ARCHIVE_SUFFIXES if filename.lower().endswith(s)), "")
    if not suffix:
        raise BotFilesError(f"{label}: not a bot: {_ACCEPTED}")
    name = filename[: -len(suffix)]
    _check_name(label, name)
    if len(data) > limits.max_bytes + ARCHIVE_SLACK:
        raise BotFilesError(f"{label}: is larger than {_amount(limits.max_bytes + ARCHIVE_SLACK)}"
                            " (the limit for an archive)")
    collector = _Collector(label, limits, too_big="unpacks past")
    (_read_zip if filename.lower().endswith(".zip") else _read_tar)(collector, data)
    return collector.finish(name, archive=True)


def _read_zip(collector: _Collector, data: bytes) -> None:
    # Every entry zipfile parses starts with this signature: a huge central directory is
    # refused before zipfile makes an object of each of its entries.
    if data.count(b"PK\x01\x02") > collector.max_entries:
        collector.fail(collector.too_many)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for info in archive.infolist():  # orig_filename: before zipfile cuts it at a NUL
                raw = info.orig_filename.encode("utf-8" if info.flag_bits & _ZIP_UTF8 else "cp437")
                path = collector.path(raw.removesuffix(b"/"), archive=True)
                shown, mode = _show(info.orig_filename), info.external_attr >> 16
                if stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):
                    collector.fail(f"{shown} {_KINDS.get(stat.S_IFMT(mode), _OTHER)}")
                folder = raw.endswith(b"/") or stat.S_ISDIR(mode)
                if path is not None:
                    collector.names.claim(path, "folder" if folder else "file")
                if folder:
                    continue  # folders are made for the files they hold
                if info.flag_bits & _ZIP_ENCRYPTED:
                    collector.fail(f"{shown} is encrypted")
                if info.compress_type not in _ZIP_METHODS:
                    collector.fail(f"{shown} is compressed with method {info.compress_type} "
                                   "(only stored and deflated are accepted)")
                if path is not None:
                    with archive.open(info) as member:
                        collector.read(path, member.read)
    except (BotFilesError, MemoryError):
        raise
    except Exception as err:  # whatever a hostile archive makes zipfile raise
        collector.fail(f"is not a valid zip archive ({_show(str(err))})")


class _Bounded(io.RawIOBase):
    """A stream of ``source`` that refuses to give more than ``bound`` bytes."""

    def __init__(self, source: io.BufferedIOBase, bound: int, collector: _Collector) -> None:
        self.source, self.bound, self.count, self.collector = source, bound, 0, collector

    def read(self, size: int | None = -1) -> bytes:
        want = self.bound - self.count + 1
        data = self.source.read(want if size is None or size < 0 else min(size, want))
        self.count += len(data)
        if self.count > self.bound:
            self.collector.fail(f"unpacks past {_amount(self.bound)} (the limit for the tar)")
        return data


def _read_tar(collector: _Collector, data: bytes) -> None:
    bound = collector.limits.max_bytes + tarfile.BLOCKSIZE * collector.max_entries + ARCHIVE_SLACK
    stream = _Bounded(gzip.GzipFile(fileobj=io.BytesIO(data), mode="rb"), bound, collector)
    try:
        with tarfile.open(fileobj=stream, mode="r|", encoding="utf-8",
                          errors="surrogateescape") as archive:
            for member in archive:
                path = collector.path(member.name.encode("utf-8", "surrogateescape"), archive=True)
                if not member.isdir() and (not member.isreg() or member.issparse()):
                    kind = "is a sparse file" if member.issparse() else _TAR_KINDS.get(member.type)
                    collector.fail(f"{_show(member.name)} {kind or _OTHER}")
                if path is not None:
                    collector.names.claim(path, "folder" if member.isdir() else "file")
                if member.isdir():
                    continue
                if path is not None and (file := archive.extractfile(member)):
                    collector.read(path, file.read)
    except (BotFilesError, MemoryError):
        raise
    except Exception as err:  # whatever a hostile archive makes gzip or tarfile raise
        collector.fail(f"is not a valid .tar.gz archive ({_show(str(err))})")


def _check_name(label: str, name: str) -> None:
    if not name.isprintable() or _path_problem(name, 1):
        raise BotFilesError(f"{label}: {_show(name)} is not a usable bot name")


def _label(text: str) -> str:
    return text if text.isprintable() else _show(text)


def _os_problem(err: OSError) -> str:
    return (err.strerror or type(err).__name__).lower()


def _amount(size: int) -> str:
    return f"{size >> 20} MiB" if size % (1 << 20) == 0 else f"{size} bytes"
