"""Nothing a bot reads can carry a memory: the sandbox's files are a RAM image.

Every sandbox reads the same files. On the host's disk that is a channel: the page cache (which
files are warm) and the directory cache (which missing names were looked up) remember what one
sandbox did, and a later sandbox can time it. Each attack below is shown working on the host's
files (``FileView.HOST``, the sandbox as it was) and failing on the image (``FileView.IMAGE``,
what every bot gets), over many bits; the bit error rates are printed (``pytest -s``) and kept
in docs/security.md. Real sandboxed games, real runners, the real seccomp filter.
"""

from __future__ import annotations

import os
import random
import re
import statistics
import sysconfig
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena import BotPool, BotSpec, FileView, resolve_bots, unmarked
from tests.arena.conftest import options
from tests.arena.zoo import write_bot

HOSTILE = Path(__file__).resolve().parent / "hostile"
STDLIB = sysconfig.get_paths(vars={"base": os.sys.base_prefix,  # type: ignore[attr-defined]
                                   "platbase": os.sys.base_exec_prefix,  # type: ignore[attr-defined]
                                   "installed_base": os.sys.base_prefix,  # type: ignore[attr-defined]
                                   })["stdlib"]
#: Packages of the standard library no runner, zygote or built-in bot imports.
QUIET = ("email", "xml", "http", "wsgiref", "xmlrpc", "html", "urllib", "dbm", "asyncio")
BITS_PAGE = 48
BITS_DENTRY = 64
TRIALS = 4
#: A one-byte read slower than this came from the disk.
COLD_NS = 30_000


def _candidates() -> list[str]:
    found = []
    for package in QUIET:
        folder = Path(STDLIB, package)
        found += sorted(str(p) for p in folder.glob("*.py") if p.stat().st_size > 4096)
    random.Random(7).shuffle(found)
    return found[:BITS_PAGE]


def _evict(paths: list[str]) -> None:
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def _cold_read_ns(path: str) -> int:
    _evict([path])
    fd = os.open(path, os.O_RDONLY)
    try:
        start = time.perf_counter_ns()
        os.read(fd, 1)
        return time.perf_counter_ns() - start
    finally:
        os.close(fd)


def _lines(log: Path, key: str) -> list[str]:
    return [line.split(None, 1)[1] for line in unmarked(log.read_text()).splitlines()
            if line.startswith(key + " ")]


def _error_rate(sent: list[str], received: list[str]) -> float:
    pairs = [(a, b) for s, r in zip(sent, received, strict=True)
             for a, b in zip(s, r, strict=True)]
    assert pairs
    return sum(a != b for a, b in pairs) / len(pairs)


@pytest.fixture(scope="module", params=[FileView.HOST, FileView.IMAGE])
def view_pool(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
              ) -> Iterator[tuple[FileView, BotPool, Path]]:
    logs = tmp_path_factory.mktemp(f"logs-{request.param}")
    with BotPool(options(log_dir=logs, file_view=request.param, move_time=2.0)) as pool:
        yield request.param, pool, logs


def _page_note(pool: BotPool, logs: Path, folder: Path) -> tuple[list[str], list[str]]:
    candidates = _candidates()
    spy = write_bot(folder, "spy", f"CANDIDATES = {candidates!r}\nTHRESHOLD_NS = {COLD_NS}\n"
                    + (HOSTILE / "page_note.py").read_text())
    other = resolve_bots(["random"])[0]
    wrote, read = [], []
    warm_ns, cold_ns = [], []
    for trial in range(TRIALS):
        _evict(candidates)  # a quiet machine: nothing has read them lately
        seed = 1000 + trial
        pool.play([BotSpec("spy", spy), other], seed=seed)  # seat 0 writes at round 3
        pool.play([other, BotSpec("spy", spy)], seed=seed)  # the same deal, the next rotation
        log = logs / "spy.log"
        wrote.append(_lines(log, "WROTE")[-1])
        read.append(_lines(log, "NOTE")[-1])
        for bit, ns in zip(wrote[-1], _lines(log, "TIMES")[-1].split(), strict=True):
            (warm_ns if bit == "1" else cold_ns).append(int(ns))
    print(f"\none-byte reads after the note: written {statistics.median(warm_ns) / 1e3:.1f} us, "
          f"not written {statistics.median(cold_ns) / 1e3:.1f} us (medians)")
    return wrote, read


def test_a_page_cache_note_reaches_the_next_rotation_only_on_the_host_view(
        view_pool: tuple[FileView, BotPool, Path], tmp_path: Path) -> None:
    view, pool, logs = view_pool
    wrote, read = _page_note(pool, logs, tmp_path)
    rate = _error_rate(wrote, read)
    print(f"\npage-cache note, {view} view: {len(wrote) * BITS_PAGE} bits, "
          f"bit error rate {rate:.3f}")
    if view == FileView.HOST:
        cold = _cold_read_ns(_candidates()[0])
        if cold < COLD_NS:
            pytest.skip(f"this host's Python files are not on a disk ({cold} ns cold read): "
                        "there is no page cache channel to show on its own view")
        assert rate <= 0.05, (wrote, read)  # the channel is real: the test has teeth
    else:
        # Every file of the image is always in memory: the reader sees all of them warm and
        # decodes nothing (random bits: about half wrong).
        assert 0.25 <= rate <= 0.75, (wrote, read)
        decoded = "".join(read)
        assert decoded.count("1") >= 0.8 * len(decoded)  # all warm, but for a few slow reads


def _dentry_bits(pool: BotPool, logs: Path, folder: Path) -> tuple[list[str], list[str]]:
    rng = random.Random(11)
    other = resolve_bots(["random"])[0]
    sent, received = [], []
    for trial in range(TRIALS):
        bits = "".join(rng.choice("01") for _ in range(BITS_DENTRY))
        nonce = uuid.uuid4().hex[:12]
        bot = write_bot(folder, f"dentry{trial}",
                        f"FOLDER = {STDLIB!r}\nNONCE = {nonce!r}\nBITS = {bits!r}\n"
                        "REPEATS = 8\n" + (HOSTILE / "dentry_bits.py").read_text())
        name = f"dentry{trial}"
        pool.play([BotSpec(name, bot), other], seed=trial)  # another sandbox sends
        pool.play([other, BotSpec(name, bot)], seed=trial + 100)  # and this one receives
        sent.append(bits)
        received.append(_lines(logs / f"{name}.log", "RECEIVED")[-1])
        print("\nmissing-name lookups, cold and warm (ns, medians):",
              _lines(logs / f"{name}.log", "COLD")[-1])
    return sent, received


def test_missing_names_pass_bits_between_sandboxes_only_on_the_host_view(
        view_pool: tuple[FileView, BotPool, Path], tmp_path: Path) -> None:
    view, pool, logs = view_pool
    sent, received = _dentry_bits(pool, logs, tmp_path)
    rate = _error_rate(sent, received)
    print(f"\ndirectory-cache bits, {view} view: {len(sent) * BITS_DENTRY} bits, "
          f"bit error rate {rate:.3f}")
    if view == FileView.HOST:
        assert rate <= 0.1, (sent, received)
    else:
        assert 0.3 <= rate <= 0.7, (sent, received)


IMAGE_CHECK = r'''
import os, sys

def pick(obs):
    found = {}
    for path in ["/", "/usr", "/arena/lib", "/arena/packages", "/arena/bot", os.__file__,
                 sys.executable, "/dev/null"]:
        try:
            if os.path.isdir(path):
                open(os.path.join(path, "escaped"), "w").close()
            else:
                open(path, "r+b").close()
            found[path] = "writable"
        except OSError as err:
            found[path] = type(err).__name__ + str(err.errno)
    before = os.stat(os.__file__).st_atime_ns
    with open(os.__file__, "rb") as f:
        f.read()
    found["atime moved"] = os.stat(os.__file__).st_atime_ns != before
    found["root"] = sorted(os.listdir("/"))
    found["dev"] = sorted(os.listdir("/dev"))
    found["bot"] = sorted(os.listdir(os.path.dirname(__file__)))
    print("FOUND", found, flush=True)
    return obs.hand[0]
'''


def test_the_image_is_read_only_small_and_has_no_access_times(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    bot = write_bot(tmp_path, "checker", IMAGE_CHECK)
    with BotPool(options(log_dir=logs)) as pool:
        result = pool.play([BotSpec("checker", bot), *resolve_bots(["random"])], seed=3)
        size = pool.sandbox.image().size  # type: ignore[union-attr]
    assert result.faults == []
    found = eval(_lines(logs / "checker.log", "FOUND")[-1])  # noqa: S307 - our own bot's dict
    for path in ["/", "/usr", "/arena/lib", "/arena/packages", "/arena/bot", os.__file__,
                 os.path.realpath(os.sys.executable)]:  # type: ignore[attr-defined]
        if path in found:
            assert found[path] in ("OSError30", "PermissionError13"), (path, found[path])
    assert re.match(r"(OSError30|PermissionError13|writable)", found["/dev/null"])
    assert found["atime moved"] is False
    assert set(found["root"]) <= {"arena", "bin", "dev", "etc", "lib", "lib32", "lib64",
                                  "libx32", "sbin", "tmp", "usr", "root", "opt", "home",
                                  "work"}
    assert found["dev"] == ["full", "null", "random", "urandom", "zero"]
    assert found["bot"] == ["checker.py"]
    assert size < 256 << 20  # only what bots need: not the whole of /usr
