"""A bot's files: read from a .py file, a folder, a .zip or a .tar.gz, hashed, packed and
written; every hostile input (built here, in tmp_path) refused with one line, writing nothing."""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import socket
import stat
import subprocess
import sys
import tarfile
import tempfile
import threading
import unicodedata
import warnings
import zipfile
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from arena import BotFiles, BotFilesError, BotLimits, read_archive, read_bot, safe_text, write_tree
from arena.botnames import MAX_DEPTH, path_problem

BOT = b"def pick(obs):\n    return obs.hand[0]\n"
FILES = {"bot.py": BOT, "data/w.bin": bytes(range(256)) * 4, "data/tables/t.json": b"{}\n"}
B = ("bot.py", BOT)
CHUNK = 1 << 16  # what arena.botfiles reads at once
MB200 = 200 << 20
Members = Sequence[tuple[str | zipfile.ZipInfo | tarfile.TarInfo, bytes]]


@pytest.fixture(autouse=True)
def confined(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cwd and the temporary folder inside tmp_path, so its listing shows any write."""
    for sub in ("cwd", "tmp"):
        (tmp_path / sub).mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))


def listing(root: Path) -> list[tuple[str, int, int, int]]:
    return sorted((str(p), (st := p.lstat()).st_mode, st.st_size, st.st_mtime_ns)
                  for p in root.rglob("*"))  # links not followed


def refused(read: Callable[[], object], root: Path) -> str:
    """The one-line message ``read()`` is refused with, within 30 s (a reader blocked opening
    a FIFO would hang: it runs in a thread); it must have written nothing under ``root``."""
    before, outcome = listing(root), []

    def run() -> None:
        try:
            outcome.append(read())
        except BaseException as err:  # judged below
            outcome.append(err)

    reader = threading.Thread(target=run, daemon=True)
    reader.start()
    reader.join(30)
    assert not reader.is_alive(), "the reader hangs"
    assert listing(root) == before
    assert len(outcome) == 1 and isinstance(outcome[0], BotFilesError), outcome
    assert len(str(outcome[0]).splitlines()) == 1
    return str(outcome[0])


@pytest.fixture
def inflated(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the bytes zipfile and gzip give out (decompressed) during a test."""
    count = [0]
    for cls in (zipfile.ZipExtFile, gzip.GzipFile):
        def read(self: io.BufferedIOBase, n: int | None = -1,
                 real: Callable[..., bytes] = cls.read) -> bytes:
            data = real(self, n)
            count[0] += len(data)
            return data
        monkeypatch.setattr(cls, "read", read)
    return count


def folder(root: Path, files: dict[str, bytes]) -> Path:
    for path, content in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(content)
    return root


def zinfo(name: str, mode: int = stat.S_IFREG | 0o644, *,
          method: int = zipfile.ZIP_DEFLATED) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr, info.compress_type = mode << 16, method
    return info


def zipped(members: Members) -> bytes:
    out = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        warnings.simplefilter("ignore")  # duplicate names
        for name, content in members:
            assert not isinstance(name, tarfile.TarInfo)
            archive.writestr(name, content)
    return out.getvalue()


def patch_last(data: bytes, *, flag: int = 0, size: int | None = None) -> bytes:
    """The zip with its last member's flags ORed with ``flag`` and its declared size ``size``,
    in both its local header and its central directory record."""
    out, central = bytearray(data), data.rindex(b"PK\x01\x02")
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        local = archive.infolist()[-1].header_offset
    for flags, declared in ((local + 6, local + 22), (central + 8, central + 24)):
        out[flags] |= flag
        if size is not None:
            out[declared:declared + 4] = size.to_bytes(4, "little")
    return bytes(out)


def tinfo(name: str, kind: bytes = tarfile.REGTYPE, link: str = "", size: int = 0
          ) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.size = kind, link, size
    return info


def tarred(members: Members) -> bytes:
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb") as gz, \
            tarfile.open(fileobj=gz, mode="w", format=tarfile.GNU_FORMAT) as archive:
        for name, content in members:
            assert not isinstance(name, zipfile.ZipInfo)
            info = tinfo(name) if isinstance(name, str) else name
            info.size = len(content) if info.isreg() else 0
            archive.addfile(info, io.BytesIO(content) if info.isreg() else None)
    return out.getvalue()


def gzipped(*parts: bytes | int) -> bytes:
    """A gzip stream of ``parts``: bytes as they are, an int as that many zero bytes."""
    compress, out, zeros = zlib.compressobj(1, zlib.DEFLATED, 31), [], bytes(1 << 20)
    for part in parts:
        for chunk in [part] if isinstance(part, bytes) else [zeros] * (part >> 20):
            out.append(compress.compress(chunk))
    return b"".join([*out, compress.flush()])


def made(form: str, root: Path, members: Members, name: str = "my_bot") -> Path:
    """The members as a bot of ``form`` in ``root``: a folder, a .zip or a .tar.gz."""
    if form == "folder":
        return folder(root / name, {str(path): content for path, content in members})
    root.mkdir(parents=True, exist_ok=True)
    target = root / f"{name}.{'zip' if form == 'zip' else 'tar.gz'}"
    target.write_bytes((zipped if form == "zip" else tarred)(members))
    return target


def deep(levels: int) -> str:
    return "/".join(["d"] * (levels - 1) + ["f"])


def bound_socket(path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))  # the socket file stays


def device(path: Path) -> None:
    try:
        os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device takes root (with CAP_MKNOD)")


# -- what is read --------------------------------------------------------------------------

def test_a_py_file_is_its_bytes_and_its_digest_their_sha256(tmp_path: Path) -> None:
    (tmp_path / "greedy.py").write_bytes(BOT)
    bot = read_bot(tmp_path / "greedy.py")
    assert (bot.name, bot.kind, bot.entry, bot.files) == ("greedy", "file", "greedy.py",
                                                          (("greedy.py", BOT),))
    assert bot.digest == hashlib.sha256(BOT).hexdigest()
    assert (bot.size, bot.source()) == (len(BOT), BOT.decode())
    assert refused(bot.pack, tmp_path).endswith("greedy: a .py bot is sent as it is, not packed")


def test_the_same_files_have_one_digest_in_every_form(tmp_path: Path) -> None:
    cached = {**FILES, "__pycache__/bot.cpython-311.pyc": b"\0", "data/__pycache__/x": b""}
    forms = {form: read_bot(made(form, tmp_path / form, [*cached.items()]))  # skipped: cache
             for form in ("folder", "zip", "tar")}
    dotted: Members = [(tinfo(".", tarfile.DIRTYPE), b""),
                       *((f"./{p}", c) for p, c in FILES.items())]
    in_folder = [("src/", b""), *((f"src/{p}", c) for p, c in FILES.items())]  # zip -r
    forms |= {"./ tar": read_archive(tarred(dotted), "my_bot.tgz"),  # tar -C my_bot .
              "zip -r": read_archive(zipped(in_folder), "../../up/my_bot.zip"),
              "packed": read_archive(forms["folder"].pack(), "my_bot.tar.gz")}
    for bot in forms.values():
        assert (bot.name, bot.kind, bot.entry) == ("my_bot", "folder", "bot.py")
        assert (bot.files, bot.digest) == (tuple(sorted(FILES.items())), forms["folder"].digest)
    assert forms["folder"].digest != read_archive(zipped([("bot.py", BOT)]), "x.zip").digest
    assert forms["folder"].size == sum(map(len, FILES.values()))


def test_the_folder_digest_is_the_documented_encoding(tmp_path: Path) -> None:
    digest = hashlib.sha256(b"sushi-go-bot-folder/1\n")
    for path, content in sorted(FILES.items()):
        for part in (path.encode(), content):
            digest.update(len(part).to_bytes(8, "big") + part)
    assert read_bot(folder(tmp_path / "b", FILES)).digest == digest.hexdigest()
    # Length prefixes: moving bytes between a path and its content changes the digest.
    a = BotFiles("b", "folder", "bot.py", (("ab", b"c"), ("bot.py", BOT)))
    b = BotFiles("b", "folder", "bot.py", (("a", b"bc"), ("bot.py", BOT)))
    assert a.digest != b.digest


def test_pack_is_deterministic_and_reads_back_the_same(tmp_path: Path) -> None:
    os.utime(folder(tmp_path / "b", FILES) / "bot.py", (12345, 12345))
    bot = read_bot(tmp_path / "b")
    data = bot.pack()
    assert data == read_bot(tmp_path / "b").pack()
    assert data[4:8] == bytes(4)  # gzip mtime
    back = read_archive(data, "b.tar.gz")
    assert (back.files, back.digest) == (bot.files, bot.digest)
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        members = archive.getmembers()
    assert [m.name for m in members] == sorted(FILES)
    assert {(m.mtime, m.uid, m.gid, m.mode, m.uname, m.gname, m.type) for m in members} == \
        {(0, 0, 0, 0o644, "", "", tarfile.REGTYPE)}


def test_a_bot_py_that_is_not_utf8_is_refused_with_its_offset(tmp_path: Path) -> None:
    bot = read_bot(folder(tmp_path / "b", {"bot.py": b"x = 1\n# \xff\n"}))
    assert refused(bot.source, tmp_path) == "b: 'bot.py' is not UTF-8 text (byte 8)"


def test_write_tree_makes_a_new_folder_of_the_files(tmp_path: Path) -> None:
    bot = read_bot(folder(tmp_path / "b", FILES))
    old = os.umask(0o077)
    try:
        write_tree(bot, tmp_path / "out")
    finally:
        os.umask(old)
    assert read_bot(tmp_path / "out").digest == bot.digest
    modes = {str(p.relative_to(tmp_path)): stat.S_IMODE(p.stat().st_mode)
             for p in [tmp_path / "out", *(tmp_path / "out").rglob("*")]}
    assert modes == {"out": 0o755, "out/bot.py": 0o644, "out/data": 0o755, "out/data/w.bin": 0o644,
                     "out/data/tables": 0o755, "out/data/tables/t.json": 0o644}
    assert refused(lambda: write_tree(bot, tmp_path / "out"), tmp_path).endswith(
        "out: file exists (write_tree makes a new folder)")


# -- what is refused -----------------------------------------------------------------------

@pytest.mark.parametrize(("make", "expected"), [
    (lambda d: os.symlink("bot.py", d / "link"), "'link' is a symbolic link"),
    (lambda d: os.symlink("/etc", d / "etc"), "'etc' is a symbolic link"),
    (lambda d: os.mkfifo(d / "data" / "pipe"), "'data/pipe' is a FIFO"),
    (lambda d: bound_socket(d / "sock"), "'sock' is a socket"),
    (lambda d: device(d / "dev0"), "'dev0' is a device"),
    (lambda d: (d / "data" / "w.bin").rename(d / "a\nb"), "'a\\nb' has a control character"),
    (lambda d: (d / "data" / "w.bin").rename(d / "a\\b"), "'a\\\\b' has a backslash"),
    (lambda d: os.rename(d / "data" / "w.bin", os.fsencode(d) + b"/\xff.bin"),
     "b'\\xff.bin' is not a valid UTF-8 name"),
    (lambda d: folder(d, {deep(17): b""}), f"'{deep(17)}' is more than 16 levels deep"),
    (lambda d: (d / "bot.py").rename(d / "data" / "bot.py"), "no bot.py at the top of the folder"),
    (lambda d: folder(d, {f"{i}.bin": b"" for i in range(254)}), "more than 256 files (the limit)"),
    (lambda d: os.truncate(d / "data" / "w.bin", 16 << 20), "holds more than 16 MiB (the limit)"),
    (lambda d: (d / "data" / "w.bin").rename(d / "evil\u202egnp.py"),
     "'evil\\u202egnp.py' has a bidirectional or invisible formatting character"),
    (lambda d: (d / "data").rename(d / "da\u200bta"),
     "'da\\u200bta' has a bidirectional or invisible formatting character"),
    (lambda d: (d / "data" / "w.bin").rename(d / "Bot.py"),
     "'bot.py' appears twice ('Bot.py' before: one name to a case-insensitive filesystem or a "
     "reader)"),  # a folder is read in name order
], ids=["symlink", "symlink-out", "fifo", "socket", "device", "control", "backslash",
        "not-utf8", "deep", "no-bot", "files", "bytes", "bidi-file", "zero-width-folder",
        "case"])
def test_hostile_folders(tmp_path: Path, make: Callable[[Path], object], expected: str) -> None:
    make(folder(tmp_path / "b", FILES))
    assert refused(lambda: read_bot(tmp_path / "b"), tmp_path) == f"{tmp_path}/b: {expected}"


def test_a_file_swapped_for_a_fifo_after_the_scan_does_not_hang(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder(tmp_path / "b", FILES)
    real_open = os.open

    def swapping_open(name: str, flags: int, mode: int = 0o777, *, dir_fd: int | None = None
                      ) -> int:
        if name == "w.bin":
            os.unlink(name, dir_fd=dir_fd)
            os.mkfifo(name, dir_fd=dir_fd)
        return real_open(name, flags, mode, dir_fd=dir_fd)

    monkeypatch.setattr(os, "open", swapping_open)
    message = refused(lambda: read_bot(tmp_path / "b"), tmp_path / "cwd")
    assert message == f"{tmp_path}/b: 'data/w.bin' is a FIFO"


@pytest.mark.parametrize("form", ["zip", "tar"])
@pytest.mark.parametrize(("members", "expected"), [
    ([B, ("w/../../x", b"")], "'w/../../x' leaves the folder"),
    ([B, ("/etc/x", b"")], "'/etc/x' is an absolute path"),
    ([B, ("a\\b", b"")], "'a\\\\b' has a backslash"),
    ([B, ("C:x", b"")], "'C:x' starts with a drive letter"),
    ([B, ("a//b", b"")], "'a//b' has an empty or '.' component"),
    ([B, ("a/./b", b"")], "'a/./b' has an empty or '.' component"),
    ([B, ("a" * 256, b"")], "...' has a name longer than 255 bytes"),
    ([B, (deep(18), b"")], f"'{deep(18)}' is more than 16 levels deep"),
    ([B, (deep(17), b"")], f"'{deep(17)}' is more than 16 levels deep"),
    ([B, ("a.bin", b"1"), ("a.bin", b"2")], "'a.bin' appears twice"),
    ([B, ("./bot.py", BOT)], "'bot.py' appears twice"),
    ([B, ("bot.py/x", b"")], "'bot.py' is both a file and a folder"),
    ([("y/bot.py", BOT), ("x/w.bin", b"")], "no bot.py at the top of the folder"),
], ids=["leaves", "absolute", "backslash", "drive", "empty", "dot", "long", "deep", "deep-17",
        "twice", "twice-dot", "file-and-folder", "two-tops"])
def test_hostile_paths_in_archives(tmp_path: Path, form: str, members: Members,
                                   expected: str) -> None:
    path = made(form, tmp_path, members)
    message = refused(lambda: read_bot(path), tmp_path)
    assert message.startswith(f"{path}: ") and message.endswith(expected)


@pytest.mark.parametrize(("form", "member", "expected"), [
    ("zip", zinfo("link", stat.S_IFLNK | 0o777), "'link' is a symbolic link"),
    ("zip", zinfo("dev0", stat.S_IFCHR | 0o600), "'dev0' is a device"),
    ("zip", zinfo("pipe", stat.S_IFIFO | 0o600), "'pipe' is a FIFO"),
    ("zip", zinfo("w.bin", method=zipfile.ZIP_BZIP2),
     "'w.bin' is compressed with method 12 (only stored and deflated are accepted)"),
    ("tar", tinfo("link", tarfile.SYMTYPE, "bot.py"), "'link' is a symbolic link"),
    ("tar", tinfo("hard", tarfile.LNKTYPE, "bot.py"), "'hard' is a hard link"),
    ("tar", tinfo("dev0", tarfile.CHRTYPE), "'dev0' is a device"),
    ("tar", tinfo("sda", tarfile.BLKTYPE), "'sda' is a device"),
    ("tar", tinfo("pipe", tarfile.FIFOTYPE), "'pipe' is a FIFO"),
    ("tar", tinfo("w\udcffbin"), "b'w\\xffbin' is not a valid UTF-8 name"),  # written as 0xff
])
def test_members_of_refused_kinds(tmp_path: Path, form: str,
                                  member: zipfile.ZipInfo | tarfile.TarInfo, expected: str) -> None:
    path = made(form, tmp_path, [("bot.py", BOT), (member, b"bot.py")])
    assert refused(lambda: read_bot(path), tmp_path) == f"{path}: {expected}"


@pytest.mark.parametrize(("patch", "expected"), [
    (lambda d: patch_last(d, flag=0x1), "'wXbin' is encrypted"),
    (lambda d: d.replace(b"wXbin", b"w\x00bin"), "'w\\x00bin' has a control character"),
    (lambda d: d.replace(b"wXbin", b"w\xffbin"), "b'w\\xffbin' is not a valid UTF-8 name"),
    (lambda d: d[:-30], "is not a valid zip archive ('File is not a zip file')"),
])
def test_zip_headers_patched(tmp_path: Path, patch: Callable[[bytes], bytes],
                             expected: str) -> None:
    data = patch(zipped([("bot.py", BOT), ("wXbin", b"w")]))
    assert refused(lambda: read_archive(data, "up.zip"), tmp_path) == f"up.zip: {expected}"


@pytest.fixture(scope="module")
def zip_bomb() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr("bot.py", BOT)
        with archive.open("zeros.bin", "w") as member:
            for _ in range(MB200 >> 20):
                member.write(bytes(1 << 20))
    return out.getvalue()


@pytest.mark.parametrize(("declared", "expected"), [
    (MB200, "unpacks past 16 MiB (the limit)"),       # honest headers
    (1 << 10, "Bad CRC-32 for file 'zeros.bin'"),      # lying small: zipfile cuts, the CRC fails
    (15 << 20, "Bad CRC-32 for file 'zeros.bin'"),
    (0xFFFFFFF0, "unpacks past 16 MiB (the limit)"),  # lying large
])
def test_a_zip_bomb_is_refused_by_counting(tmp_path: Path, zip_bomb: bytes, inflated: list[int],
                                           declared: int, expected: str) -> None:
    data = patch_last(zip_bomb, size=declared)
    assert len(data) < 1 << 20
    assert expected in refused(lambda: read_archive(data, "bomb.zip"), tmp_path)
    assert inflated[0] <= (16 << 20) + CHUNK


@pytest.mark.parametrize("form", ["zip", "tar"])
def test_too_many_entries_are_refused_before_their_members(tmp_path: Path, inflated: list[int],
                                                           form: str) -> None:
    # The zip's are files, refused before any is read (counting them would stop at the 5th
    # file); the tar's are folders, counted as they stream by.
    members: Members = [("bot.py", BOT), *((tinfo(f"{i}", tarfile.DIRTYPE) if form == "tar"
                                            else f"{i}", b"x") for i in range(2000))]
    data = (zipped if form == "zip" else tarred)(members)
    name = "cd.zip" if form == "zip" else "cd.tgz"
    message = refused(lambda: read_archive(data, name, limits=BotLimits(max_files=4)), tmp_path)
    assert message == f"{name}: more than 16 entries (4 times the limit on files)"
    assert inflated[0] <= (0 if form == "zip" else 20 * 512 + 10240)


@pytest.mark.parametrize(("data", "expected"), [
    # A member of 200 MB of zeros: its reading stops at the limit.
    (lambda: gzipped(tinfo("bot.py").tobuf(), tinfo("z", size=MB200).tobuf(), MB200),
     "bomb.tar.gz: unpacks past 16 MiB (the limit)"),
    # A 200 MB extended header, which tarfile would read whole: the stream stops at its bound.
    (lambda: gzipped(tinfo("p", tarfile.XHDTYPE, size=MB200).tobuf(), MB200),
     "bomb.tar.gz: unpacks past 18350080 bytes (the limit for the tar)"),
    (lambda: gzipped(MB200), "bomb.tar.gz: no bot.py at the top of the folder"),  # ends at once
], ids=["member", "pax-header", "zeros"])
def test_a_tar_bomb_is_refused_by_counting(tmp_path: Path, inflated: list[int],
                                           data: Callable[[], bytes], expected: str) -> None:
    bomb = data()
    assert len(bomb) < 1 << 20
    assert refused(lambda: read_archive(bomb, "bomb.tar.gz"), tmp_path) == expected
    assert inflated[0] <= (16 << 20) + 512 * 1024 + (1 << 20) + CHUNK


@pytest.mark.parametrize("form", ["folder", "zip", "tar"])
def test_limits_count_files_and_bytes_in_every_form(tmp_path: Path, form: str) -> None:
    limits = BotLimits(max_bytes=1000, max_files=3)
    many = made(form, tmp_path / "many", [("bot.py", BOT), ("a", b""), ("b/c", b""), ("d", b"")])
    big = made(form, tmp_path / "big", [("bot.py", BOT), ("x", bytes(1001 - len(BOT)))])
    too_big = "holds more than" if form == "folder" else "unpacks past"
    assert refused(lambda: read_bot(many, limits=limits), tmp_path).endswith(
        f"{many.name}: more than 3 files (the limit)")
    assert refused(lambda: read_bot(big, limits=limits), tmp_path).endswith(
        f"{big.name}: {too_big} 1000 bytes (the limit)")


@pytest.mark.parametrize(("name", "make", "expected"), [
    ("weird.txt", lambda p: p.write_bytes(b""), "weird.txt: not a bot: a bot is a .py file, a "
     "folder holding bot.py, or that folder as .zip, .tar.gz or .tgz"),
    ("big.py", lambda p: p.write_bytes(b"#" * 1001),
     "big.py: is larger than 1000 bytes (the limit)"),
    ("big.zip", lambda p: p.write_bytes(b"#" * (1001 + (1 << 20))),
     "big.zip: is larger than 1049576 bytes (the limit)"),
    ("pipe.py", os.mkfifo, "pipe.py: is a FIFO"),  # O_NONBLOCK: refused, not hanging
    ("bad.tgz", lambda p: p.write_bytes(b"junk"),
     "bad.tgz: is not a valid .tar.gz archive (\"Not a gzipped file (b'ju')\")"),
    ("missing.py", lambda p: None, "missing.py: no such file or directory"),
])
def test_inputs_that_are_no_bot(tmp_path: Path, name: str, make: Callable[[Path], object],
                                expected: str) -> None:
    make(tmp_path / name)
    message = refused(lambda: read_bot(tmp_path / name, limits=BotLimits(max_bytes=1000)), tmp_path)
    assert message == f"{tmp_path}/{expected}"


# -- names: shown as they are, each given once -----------------------------------------------

def member(form: str, name: str, content: bytes | None) -> tuple[str | zipfile.ZipInfo |
                                                                  tarfile.TarInfo, bytes]:
    """An archive member of ``form``: a file of ``content``, or a folder when it is None."""
    if content is not None:
        return name, content
    if form == "zip":
        return zinfo(f"{name}/", stat.S_IFDIR | 0o755), b""
    return tinfo(name, tarfile.DIRTYPE), b""


TWICE = " appears twice"
SAME = " before: one name to a case-insensitive filesystem or a reader)"


@pytest.mark.parametrize("form", ["zip", "tar"])
@pytest.mark.parametrize(("members", "expected"), [
    ([("bot.py", BOT), ("bot.py", None)], "'bot.py' appears twice (a file, then a folder)"),
    ([("bot.py", BOT), ("d", None), ("d", b"")], "'d' appears twice (a folder, then a file)"),
    ([("bot.py", BOT), ("d", None), ("./d", None)], "'d' appears twice"),
    ([("bot.py", BOT), ("d/x", b""), ("d", b"")], "'d' is both a file and a folder"),
    ([("bot.py", BOT), ("d", b""), ("d/x", None)], "'d' is both a file and a folder"),
    ([("bot.py", BOT), ("Bot.py", b"")], f"'Bot.py'{TWICE} ('bot.py'{SAME}"),
    ([("bot.py", BOT), ("BOT.PY", None)], f"'BOT.PY'{TWICE} ('bot.py'{SAME}"),
    ([("bot.py", BOT), ("\uff42ot.py", b"")], f"'\\uff42ot.py'{TWICE} ('bot.py'{SAME}"),
    ([("bot.py", BOT), ("bot.py.", b"")], f"'bot.py.'{TWICE} ('bot.py'{SAME}"),
    ([("bot.py", BOT), ("caf\u00e9", b""), ("cafe\u0301", b"")],
     f"'cafe\\u0301'{TWICE} ('caf\\xe9'{SAME}"),
    ([("bot.py", BOT), ("D/x", b""), ("d", b"")], "'d' is both a file and a folder"),
    ([("bot.py", BOT), ("evil\u202egnp.py", b"")],
     "'evil\\u202egnp.py' has a bidirectional or invisible formatting character"),
    ([("bot.py", BOT), ("\u2066d\u2069", None)],
     "'\\u2066d\\u2069' has a bidirectional or invisible formatting character"),
], ids=["folder-after-file", "file-after-folder", "folder-twice", "file-then-path-in-it",
        "path-in-a-file", "case", "case-folder", "width", "trailing-dot", "accents",
        "case-parent", "bidi-file", "bidi-folder"])
def test_names_given_twice_or_shown_otherwise_are_refused(
        tmp_path: Path, form: str, members: list[tuple[str, bytes | None]], expected: str) -> None:
    path = made(form, tmp_path, [member(form, name, content) for name, content in members])
    assert refused(lambda: read_bot(path), tmp_path) == f"{path}: {expected}"


@pytest.mark.parametrize("char", ["\x01", "\x1b", "\x7f", "\x85", "\x9b", "\u202a",
                                  "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067",
                                  "\u2068", "\u2069", "\u200e", "\u200f", "\u061c", "\u200b",
                                  "\ufeff", "\u2028", "\u2029"])
@pytest.mark.parametrize("form", ["folder", "zip", "tar"])
def test_control_and_bidi_characters_are_refused_in_every_form(tmp_path: Path, form: str,
                                                                char: str) -> None:
    # (A NUL ends a name in a folder and in tar headers; in a zip: test_zip_headers_patched.)
    path = made(form, tmp_path, [("bot.py", BOT), (f"data/a{char}b.txt", b"")])
    why = "a control character" if unicodedata.category(char) == "Cc" else \
        "a bidirectional or invisible formatting character"
    assert refused(lambda: read_bot(path), tmp_path) == f"{path}: {ascii(f'data/a{char}b.txt')} " \
                                                        f"has {why}"


@pytest.mark.parametrize("form", ["folder", "zip", "tar"])
def test_honest_names_and_folder_entries_are_accepted(tmp_path: Path, form: str) -> None:
    files = {"bot.py": BOT, "donn\u00e9es/\u00e9t\u00e9.txt": b"1", "data/Notes.txt": b"2",
             "data/notes-2.txt": b"3", "\u65e5\u672c/\U0001f363.json": b"{}"}
    expected = read_bot(folder(tmp_path / "ref", files))
    members = [member(form, name, content) for name, content in [
        ("data", None), *files.items(), ("donn\u00e9es", None), ("./\u65e5\u672c", None)]]
    bot = read_bot(made(form, tmp_path / "in", members if form != "folder" else files.items()))
    assert bot.files == expected.files and bot.digest == expected.digest
    # Wrapped in a top folder listed first, as tar and zip tools write it.
    wrapped = [member(form, "my_bot", None), *((f"my_bot/{name}", content)
                                             for name, content in files.items())]
    if form != "folder":
        assert read_bot(made(form, tmp_path / "top", wrapped)).digest == expected.digest


def test_the_console_script_refuses_a_hostile_archive_in_one_line(tmp_path: Path) -> None:
    """As a user types it: ``arena validate``, ``arena tournament``, ``arena league add``."""
    arena = Path(sys.executable).with_name("arena")
    bidi = made("tar", tmp_path, [("bot.py", BOT), ("evil\u202egnp.py", b"")], "bidi")
    twice = made("tar", tmp_path, [("bot.py", BOT), member("tar", "bot.py", None)], "twice")
    said = {bidi: "'evil\\u202egnp.py' has a bidirectional or invisible formatting character",
            twice: "'bot.py' appears twice (a file, then a folder)"}
    # This checkout's code, whichever the script was installed from.
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    subprocess.run([str(arena), "league", "new", "lg"], check=True, capture_output=True, env=env)
    for path, why in said.items():
        for command in (["validate", path], ["tournament", path, "greedy", "--out", "t"],
                        ["league", "add", "lg", path]):
            done = subprocess.run([str(arena), *map(str, command)], capture_output=True,
                                  text=True, timeout=120, env=env)
            assert (done.returncode, done.stdout, done.stderr) == (2, "", f"error: {path}: {why}\n")


def test_a_path_shows_as_it_is_exactly_when_safe_text_leaves_it_alone() -> None:
    """Every character :func:`arena.safe_text` escapes (but the backslash's own rule) is
    refused in a path, and no other is refused for what it is (the Basic Multilingual Plane)."""
    for code in range(0x10000):
        char = chr(code)
        if char in "\\/":
            continue
        problem = path_problem(f"ab{char}c", MAX_DEPTH)
        assert (problem is not None) == (safe_text(char) != char), (hex(code), problem)
