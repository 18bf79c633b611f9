"""What the server does, apart from HTTP: submissions (checked, validated in the sandbox, entered
in the league), retirements, the leaderboard, and the games played in the background.

A submission is a ``.py`` file, or a bot folder packed as ``.zip``, ``.tar.gz`` or ``.tgz``
(read by :func:`arena.botfiles.read_archive` within the league's limits: a hostile archive is
refused with its one-line reason before anything is written).

Games are played by a child process (:func:`play_forever`) that holds the league's writer lock
and runs :func:`tournaments.league.play_batch` batch after batch, each on the entries of the
moment. It dies with the server (``PR_SET_PDEATHSIG``), even after a SIGKILL; whatever it
stored stays, and the next start finishes its batch with the same games.
"""

from __future__ import annotations

import ctypes
import logging
import multiprocessing as mp
import signal
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from multiprocessing.context import SpawnProcess
from pathlib import Path

from arena import (
    ARCHIVE_SUFFIXES,
    ArenaOptions,
    BotFiles,
    BotFilesError,
    BotLimits,
    BotSpec,
    SandboxUnavailable,
    Validation,
    read_archive,
    validation_report,
    write_tree,
)
from serve.accounts import NAME_PATTERN, AccountError, Accounts, Who
from tournaments import (
    AllowedPackage,
    ExecutorKind,
    LeagueError,
    LeagueStore,
    Ranking,
    RunError,
    StoreError,
    make_executor,
    play_batch,
)

__all__ = ["Competition", "Refused", "SUBMISSIONS_PER_WINDOW", "UPLOAD_HEADROOM",
           "WINDOW_SECONDS", "play_forever", "read_upload"]

log = logging.getLogger("serve")

#: What an uploaded archive may weigh beyond the limit on a bot's files.
UPLOAD_HEADROOM = 1 << 20
ACCEPTED = ("a .py file, or a folder holding bot.py packed as .zip, .tar.gz or .tgz")
#: At most this many submissions per participant in WINDOW_SECONDS.
SUBMISSIONS_PER_WINDOW = 10
WINDOW_SECONDS = 600.0
#: Submissions validated at once, and waiting beyond those (then 503: try again later).
VALIDATORS = 1
VALIDATION_QUEUE = 4
#: The leaderboard served is at most this old (seconds).
RANKING_SECONDS = 3.0


class Refused(Exception):
    """A request the server turns down: the HTTP status and the message for the client."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True, slots=True)
class Submitted:
    """A submission's outcome: entered (with its version) or not, and the validation."""

    name: str
    version: int | None
    validation: Validation

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "version": self.version,
                "validation": {"ok": self.validation.ok, "report": self.validation.report}}


def _bot_name(name: str | None, stem: str) -> str:
    """The entry's name: the ``name`` field, else the uploaded file's name without its
    extension (``stem``)."""
    name = name or stem
    if not NAME_PATTERN.fullmatch(name):
        raise Refused(400, "a bot's name is 1-40 letters, digits, '_', '-' or '.', starting "
                           "with a letter or digit (send a name field, or name the file so)")
    return name


def read_upload(data: bytes, filename: str | None, name: str | None, limits: BotLimits
                ) -> tuple[str, BotFiles]:
    """An uploaded bot's name and files, checked within ``limits`` (nothing is written);
    :class:`Refused` if not."""
    max_upload = limits.max_bytes + UPLOAD_HEADROOM
    base = (filename or "").replace("\\", "/").rsplit("/", 1)[-1]
    if base.lower().endswith(ARCHIVE_SUFFIXES):
        if len(data) > max_upload:
            raise Refused(413, f"an archive may have at most {max_upload} bytes")
        try:
            files = read_archive(data, base, limits=limits)
        except BotFilesError as err:
            raise Refused(400, str(err)) from None
        bot = _bot_name(name, files.name)
    elif base.endswith(".py"):
        if len(data) > (most := limits.max_bytes):
            raise Refused(413, f"a bot file may have at most {most} bytes")
        if not data.strip():
            raise Refused(400, "the file is empty")
        bot = _bot_name(name, base[:-3])
        files = BotFiles(bot, "file", f"{bot}.py", ((f"{bot}.py", data),))
    else:
        raise Refused(415, f"not a bot: {base or 'a file without a name'!r}; send {ACCEPTED}")
    try:
        text = files.source()
    except BotFilesError:
        raise Refused(415, f"{files.entry} must be UTF-8 Python text") from None
    if "\x00" in text:
        raise Refused(415, f"{files.entry} must be UTF-8 Python text (it holds a NUL byte)")
    return bot, files


class Competition:
    """One league served: accounts, submissions and the leaderboard (thread-safe)."""

    def __init__(self, directory: Path, options: ArenaOptions) -> None:
        self.directory = directory
        self.options = options
        self.accounts = Accounts(directory)
        #: How big a bot may be (its files), and an upload (an archive of them).
        self.bot_limits = options.bot_limits
        self.max_upload = self.bot_limits.max_bytes + UPLOAD_HEADROOM
        self._validators = ThreadPoolExecutor(VALIDATORS, thread_name_prefix="validate")
        self._slots = threading.BoundedSemaphore(VALIDATORS + VALIDATION_QUEUE)
        self._lock = threading.Lock()              # entries change one at a time
        self._ranking_lock = threading.Lock()      # one leaderboard rebuilt at a time
        self._ranking: tuple[tuple[int, int], float, Ranking] | None = None

    def close(self) -> None:
        self._validators.shutdown(wait=False, cancel_futures=True)
        self.accounts.close()

    def authenticate(self, token: str | None) -> Who:
        who = self.accounts.who(token or "")
        if who is None:
            raise Refused(401, "a valid token is needed (Authorization: Bearer TOKEN)")
        return who

    def add_participant(self, who: Who, name: str) -> str:
        if not who.organiser:
            raise Refused(403, "only the organiser creates participants")
        try:
            return self.accounts.add_participant(name)
        except AccountError as err:
            raise Refused(409 if "exists" in str(err) else 400, str(err)) from None

    # ------------------------------------------------------------------ submissions
    def submit(self, who: Who, data: bytes, *, name: str | None, filename: str | None
               ) -> Submitted:
        """Check, validate and enter one bot (a ``.py`` file or a folder's archive) for
        ``who``."""
        if who.organiser:
            raise Refused(403, "the organiser's token does not submit bots; create a "
                               "participant (POST /api/participants) and use theirs")
        bot, files = read_upload(data, filename, name, self.bot_limits)
        with self._lock:      # the rate limit counts attempts, concurrent ones included
            self._check_owner(who, bot)
            if (self.accounts.submissions_since(who.name, WINDOW_SECONDS)
                    >= SUBMISSIONS_PER_WINDOW):
                raise Refused(429, f"at most {SUBMISSIONS_PER_WINDOW} submissions in "
                                   f"{WINDOW_SECONDS / 60:.0f} minutes; try again later")
            attempt = self.accounts.record_submission(who.name, bot, files.digest, False)
        validation = self._validate(bot, files)
        if not validation.ok:
            return Submitted(bot, None, validation)
        with self._lock:
            self._check_owner(who, bot)       # nobody took the name while it was validated
            with LeagueStore.open(self.directory) as store:
                entry, _ = store.entries.add(bot, files, who.name)
            self.accounts.mark_entered(attempt)
        return Submitted(bot, entry.version, validation)

    def _check_owner(self, who: Who, bot: str) -> None:
        with LeagueStore.open(self.directory) as store:
            owners = {e.author for e in store.entries.named(bot)}
        if owners and owners != {who.name}:
            raise Refused(403, f"the bot {bot} belongs to someone else; choose another name")

    def _validate(self, bot: str, files: BotFiles) -> Validation:
        """Validate in the sandbox, at most VALIDATORS at once (503 when too many wait)."""
        if not self._slots.acquire(blocking=False):
            raise Refused(503, "the validation queue is full; try again in a minute")
        try:
            return self._validators.submit(self._validate_now, bot, files).result()
        finally:
            self._slots.release()

    def _validate_now(self, bot: str, files: BotFiles) -> Validation:
        with tempfile.TemporaryDirectory(prefix="sushi-submission-") as scratch:
            # Named by content, never by anything the request chose.
            path = Path(scratch) / files.digest[:16]
            if files.kind == "file":
                path = path.with_suffix(".py")
                path.write_bytes(files.files[0][1])
            else:
                write_tree(files, path)
            try:
                result = validation_report(BotSpec(bot, path),
                                           replace(self.options, log_dir=None))
            except SandboxUnavailable as err:
                raise Refused(503, f"the sandbox cannot run on the server: {err}") from None
            shown = f"{bot}.py" if files.kind == "file" else bot
            return Validation(result.ok, result.report.replace(str(path), shown))

    def retire(self, who: Who, name: str) -> str:
        """Retire the bot ``name`` (a participant: only their own)."""
        with self._lock, LeagueStore.open(self.directory) as store:
            same = store.entries.named(name)
            if not same:
                raise Refused(404, f"no bot called {name}")
            if not who.organiser and same[-1].author != who.name:
                raise Refused(403, f"the bot {name} belongs to someone else")
            try:
                store.entries.retire(name)
            except ValueError as err:
                raise Refused(409, str(err)) from None
        return name

    # ------------------------------------------------------------------ reading
    def limits(self) -> dict[str, object]:
        """What a submission may be (``GET /api/limits``): the kinds of file, the most bytes
        and files of a bot, the largest upload, and the packages bots may import."""
        packages = self.packages()
        limits = self.bot_limits
        return {"accepts": [".py", *ARCHIVE_SUFFIXES], "max_bot_bytes": limits.max_bytes,
                "max_bot_files": limits.max_files, "max_upload_bytes": self.max_upload,
                "packages": None if packages is None else [p.to_json() for p in packages]}

    def packages(self) -> tuple[AllowedPackage, ...] | None:
        """What bots may import (as the server recorded when it started)."""
        with LeagueStore.open(self.directory) as store:
            return store.packages()

    def ranking(self) -> Ranking:
        """The leaderboard now: rebuilt when the league changed, at most every
        :data:`RANKING_SECONDS` (games arrive continuously; a rebuild rates every game)."""
        with self._ranking_lock:
            cached = self._ranking
            if cached is not None and time.monotonic() - cached[1] < RANKING_SECONDS:
                return cached[2]
            with LeagueStore.open(self.directory) as store:
                key = store.fingerprint()
                ranking = (cached[2] if cached is not None and cached[0] == key
                           else store.ranking())
            self._ranking = (key, time.monotonic(), ranking)
            return ranking


# ---------------------------------------------------------------------- the games
def _die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when its parent (the server) dies."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)           # PR_SET_PDEATHSIG
    except (OSError, AttributeError):           # pragma: no cover - not Linux
        pass


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def play_forever(directory: Path, options: ArenaOptions, kind: ExecutorKind, workers: int,
                 cores: int, log_file: Path | None, address: str | None = None) -> None:
    """The game process: batches of about one round each, for as long as the server lives;
    on this machine's worker processes, or as Ray tasks (a private local Ray, or the cluster
    at ``address``)."""
    _die_with_parent()
    signal.signal(signal.SIGTERM, _interrupt)
    executor = make_executor(kind, options, workers=workers, cores=cores, log_file=log_file,
                             address=address)
    try:
        store = LeagueStore.open(directory, write=True)
    except StoreError as err:
        log.error("games cannot be played: %s", err)
        return
    try:
        while True:
            sizes = store.config().players
            active = sum(1 for e in store.entries.all() if e.active)
            games = max(2 * max(sizes), active)
            try:
                report = play_batch(store, executor, games=games)
            except LeagueError:
                time.sleep(2.0)             # not enough entries yet
                continue
            except RunError as err:
                log.error("games stopped: %s; trying again", err)
                time.sleep(5.0)
                continue
            if report.played == 0:
                time.sleep(1.0)
    except KeyboardInterrupt:
        pass
    finally:
        store.close()


def start_games(directory: Path, options: ArenaOptions, kind: ExecutorKind, *, workers: int,
                cores: int, log_file: Path | None, address: str | None = None
                ) -> SpawnProcess:
    """Start the game process (a fresh interpreter: the server runs threads)."""
    ctx = mp.get_context("spawn")
    proc = ctx.Process(target=play_forever, name="league-games",
                       args=(directory, options, kind, workers, cores, log_file, address))
    proc.start()
    return proc
