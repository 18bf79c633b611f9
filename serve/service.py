"""What the server does, apart from HTTP: submissions (checked, validated in the sandbox, entered
in the league), retirements, the organiser's housekeeping, the season, and the leaderboard.

A submission is read by :func:`serve.uploads.read_upload`, rate-limited, validated by
:class:`serve.validation.Validator`, and entered under the participant's name as author. The
games are the game process's (:mod:`serve.games`), watched by :mod:`serve.status`.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from arena import ARCHIVE_SUFFIXES, ArenaOptions
from serve.accounts import AccountError, Accounts, Participant, Who
from serve.botlogs import bot_log
from serve.cache import Rebuilt
from serve.errors import Refused
from serve.season import Season, SeasonView
from serve.uploads import UPLOAD_HEADROOM, Submitted, read_upload
from serve.validation import Validator
from tournaments import AllowedPackage, FinalSchedule, LeagueStore, Ranking, final_ranking

__all__ = ["Competition", "RESERVED_NAMES", "Refused", "SUBMISSIONS_PER_WINDOW",
           "UPLOAD_HEADROOM", "WINDOW_SECONDS", "read_upload"]

log = logging.getLogger("serve")

#: At most this many submissions per participant in WINDOW_SECONDS.
SUBMISSIONS_PER_WINDOW = 10
WINDOW_SECONDS = 600.0
#: The leaderboard served is at most this old (seconds): a rebuild rates only the games since
#: the last round (the league stores its tally round by round), so it can be short.
RANKING_SECONDS = 0.25
#: Names no participant's bot may take: the built-in bots' (``arena tournament random greedy
#: ...``), so that a league's ``greedy`` is always the built-in one.
RESERVED_NAMES = frozenset({"random", "greedy", "heuristic", "mcts", "learned"})


class Competition:
    """One league served: accounts, submissions, the season and the leaderboard
    (thread-safe)."""

    def __init__(self, directory: Path, options: ArenaOptions) -> None:
        self.directory = directory
        self.options = options
        self.accounts = Accounts(directory)
        self.season = Season(directory)
        self.validator = Validator(options)
        #: How big a bot may be (its files), and an upload (an archive of them).
        self.bot_limits = options.bot_limits
        self.max_upload = self.bot_limits.max_bytes + UPLOAD_HEADROOM
        self._lock = threading.Lock()              # entries change one at a time
        self._ranking = Rebuilt(self._rank, self._fingerprint, min_age=RANKING_SECONDS)
        #: Called after the entries changed (a bot entered or retired): the status monitor's
        #: refresh, so that ``/api/status`` counts them at once.
        self.changed: Callable[[], None] | None = None

    def close(self) -> None:
        self.validator.close()
        self.accounts.close()
        self.season.close()

    def authenticate(self, token: str | None) -> Who:
        who = self.accounts.who(token or "")
        if who is None:
            revoked = self.accounts.revoked(token or "")
            if revoked is not None:
                name, why = revoked
                if why == "replaced":
                    raise Refused(401, f"this token of {name} was replaced by a newer one "
                                       "(ask the organiser for it)")
                # Still INTERFACES.md's 401 (a wrong token), told why.
                raise Refused(401, f"this participant ({name}) is {why}: their token no "
                                   "longer works")
            raise Refused(401, "a valid token is needed (Authorization: Bearer TOKEN)")
        return who

    def _changed(self) -> None:
        if self.changed is not None:
            try:
                self.changed()
            except Exception:            # the status is refreshed within a second anyway
                log.exception("cannot refresh the status")

    # ------------------------------------------------------------------ submissions
    def submit(self, who: Who, data: bytes, *, name: str | None, filename: str | None
               ) -> Submitted:
        """Check, validate and enter one bot (a ``.py`` file or a folder's archive) for
        ``who``; logged (entered, or refused and why)."""
        shown = name or filename or "?"
        try:
            result = self._submit(who, data, name=name, filename=filename)
        except Refused as err:
            log.info("submission by %s (%.60s) refused (%d): %s", who.name or "the organiser",
                     shown, err.status, err.message)
            raise
        if result.version is None:
            log.info("submission by %s of %s refused: it failed validation: %.300s",
                     who.name, result.name, _first_problem(result.validation.report))
        else:
            log.info("submission by %s accepted: %s version %d", who.name, result.name,
                     result.version)
            self._changed()
        return result

    def _submit(self, who: Who, data: bytes, *, name: str | None, filename: str | None
                ) -> Submitted:
        if who.organiser:
            raise Refused(403, "the organiser's token does not submit bots; create a "
                               "participant (POST /api/participants) and use theirs")
        self.season.check_open()
        bot, files = read_upload(data, filename, name, self.bot_limits, self.options.runtimes)
        if bot.lower() in RESERVED_NAMES:
            raise Refused(409, f"{bot} is the name of a built-in bot; choose another name")
        with self._lock:      # the rate limit counts attempts, concurrent ones included
            self._check_owner(who, bot)
            times = self.accounts.submission_times(who.name, WINDOW_SECONDS)
            if len(times) >= SUBMISSIONS_PER_WINDOW:
                # Another is allowed once enough of these have left the window.
                free = times[len(times) - SUBMISSIONS_PER_WINDOW] + timedelta(
                    seconds=WINDOW_SECONDS)
                wait = max(1, math.ceil((free - datetime.now(UTC)).total_seconds()))
                raise Refused(429, f"at most {SUBMISSIONS_PER_WINDOW} submissions in "
                                   f"{WINDOW_SECONDS / 60:.0f} minutes; try again in {wait} s",
                              headers={"Retry-After": str(wait)})
            attempt = self.accounts.record_submission(who.name, bot, files.digest, False)
        validation = self.validator.validate(bot, files)
        if not validation.ok:
            return Submitted(bot, None, validation)
        with self._lock:
            self._check_owner(who, bot)       # nobody took the name while it was validated
            self.season.check_open()          # nor did the deadline pass
            if self.accounts.status(who.name) != "active":
                raise Refused(401, f"{who.name}'s token was revoked meanwhile")
            with LeagueStore.open(self.directory) as store:
                entry, _ = store.entries.add(bot, files, who.name)
            self.accounts.mark_entered(attempt)
        return Submitted(bot, entry.version, validation)

    def _check_owner(self, who: Who, bot: str) -> None:
        with LeagueStore.open(self.directory) as store:
            owners = {e.author for e in store.entries.named(bot)}
        if owners and owners != {who.name}:
            raise Refused(403, f"the bot {bot} belongs to someone else; choose another name")

    def retire(self, who: Who, name: str) -> str:
        """Retire the bot ``name`` (a participant: only their own, and only while
        submissions are open)."""
        if not who.organiser:
            self.season.check_open()
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
        log.info("bot %s retired by %s", name,
                 "the organiser" if who.organiser else f"its author {who.name}")
        self._changed()
        return name

    def bot_log(self, who: Who, name: str) -> dict[str, object]:
        """What the bot ``name`` printed and its faults (its author's or the organiser's)."""
        return bot_log(self.directory, self.options.log_dir, who, name)

    # ------------------------------------------------------------------ the organiser
    def add_participant(self, who: Who, name: str) -> str:
        _organiser(who, "creates participants")
        try:
            made = self.accounts.add_participant(name)
        except AccountError as err:
            raise Refused(409 if "exists" in str(err) else 400, str(err)) from None
        log.info("participant %s created (a token was issued)", name)
        return made

    def participants(self, who: Who) -> list[Participant]:
        _organiser(who, "lists participants")
        return self.accounts.participants()

    def remove_participant(self, who: Who, name: str, status: str) -> list[str]:
        """Retire or ban (``status``) a participant: their token stops working and their bots
        leave the leaderboard; the bots retired."""
        _organiser(who, {"retired": "retires", "banned": "bans"}[status] + " participants")
        with self._lock:
            try:
                self.accounts.remove(name, status)
            except AccountError as err:
                raise Refused(404 if "no participant" in str(err) else 409, str(err)) from None
            with LeagueStore.open(self.directory) as store:
                mine = [e.name for e in store.entries.all() if e.author == name and e.active]
                for bot in mine:
                    store.entries.retire(bot)
        log.info("participant %s %s; bots retired: %s", name, status, ", ".join(mine) or "none")
        self._changed()
        return mine

    def new_token(self, who: Who, name: str) -> str:
        _organiser(who, "issues tokens")
        try:
            made = self.accounts.new_token(name)
        except AccountError as err:
            raise Refused(404 if "no participant" in str(err) else 409, str(err)) from None
        log.info("participant %s given a new token (the old one stops working)", name)
        return made

    def set_deadline(self, who: Who, when: datetime | None) -> SeasonView:
        """Set (or with None, remove) the season's deadline; logged."""
        _organiser(who, "sets the deadline")
        view = self.season.set_deadline(when)
        log.info("deadline %s by the organiser",
                 "removed" if when is None else f"set to {when.astimezone(UTC).isoformat()}")
        return view

    def start_final(self, who: Who, games: int, schedule: FinalSchedule) -> SeasonView:
        """Close submissions and make the final evaluation (the game process plays it)."""
        _organiser(who, "starts the final evaluation")
        with self._lock:                      # no submission enters meanwhile
            view = self.season.start_final(games, schedule)
        log.info("final evaluation started: %s, %s games", schedule.value,
                 view.final.games if view.final else "?")
        return view

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
        :data:`RANKING_SECONDS` (and no more than :data:`serve.cache.SHARE` of the time: a
        rebuild rates only the games since the last round); meanwhile the previous one."""
        return self._ranking.get()

    def _fingerprint(self) -> tuple[int, int, bool]:
        with LeagueStore.open(self.directory) as store:
            return store.fingerprint()

    def _rank(self) -> Ranking:
        with LeagueStore.open(self.directory) as store:
            return store.ranking()

    def final_ranking(self) -> Ranking:
        """The final leaderboard; :class:`Refused` (404) before the final is over."""
        ranking = final_ranking(self.directory)
        if ranking is None:
            final = self.season.view().final
            raise Refused(404, "no final leaderboard yet: " + (
                "the organiser has not started the final evaluation" if final is None else
                f"the final evaluation has played {final.played} of {final.games} games"))
        return ranking


def _first_problem(report: str) -> str:
    """The line of a failed validation's report that says what went wrong first."""
    lines = [line.strip() for line in report.splitlines() if line.strip()]
    for k, line in enumerate(lines):
        if "problem(s) found" in line and k + 1 < len(lines):
            return lines[k + 1]
    return next((line for line in lines if line.startswith("Not OK")),
                lines[-1] if lines else "no report")


def _organiser(who: Who, does: str) -> None:
    if not who.organiser:
        raise Refused(403, f"only the organiser {does}")
