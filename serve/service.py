"""What the server does, apart from HTTP: submissions (checked, validated in the sandbox, entered
in the league), retirements, the organiser's housekeeping, the season, and the leaderboard.

A submission is read by :func:`serve.uploads.read_upload`, rate-limited, validated by
:class:`serve.validation.Validator`, and entered under the participant's name as author. The
games are the game process's (:mod:`serve.games`), watched by :mod:`serve.status`.
"""

from __future__ import annotations

import logging
import threading
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

__all__ = ["Competition", "Refused", "SUBMISSIONS_PER_WINDOW", "UPLOAD_HEADROOM",
           "WINDOW_SECONDS", "read_upload"]

log = logging.getLogger("serve")

#: At most this many submissions per participant in WINDOW_SECONDS.
SUBMISSIONS_PER_WINDOW = 10
WINDOW_SECONDS = 600.0
#: The leaderboard served is at most this old (seconds): a rebuild rates only the games since
#: the last round (the league stores its tally round by round), so it can be short.
RANKING_SECONDS = 0.25


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

    def close(self) -> None:
        self.validator.close()
        self.accounts.close()
        self.season.close()

    def authenticate(self, token: str | None) -> Who:
        who = self.accounts.who(token or "")
        if who is None:
            raise Refused(401, "a valid token is needed (Authorization: Bearer TOKEN)")
        return who

    # ------------------------------------------------------------------ submissions
    def submit(self, who: Who, data: bytes, *, name: str | None, filename: str | None
               ) -> Submitted:
        """Check, validate and enter one bot (a ``.py`` file or a folder's archive) for
        ``who``."""
        if who.organiser:
            raise Refused(403, "the organiser's token does not submit bots; create a "
                               "participant (POST /api/participants) and use theirs")
        self.season.check_open()
        bot, files = read_upload(data, filename, name, self.bot_limits)
        with self._lock:      # the rate limit counts attempts, concurrent ones included
            self._check_owner(who, bot)
            if (self.accounts.submissions_since(who.name, WINDOW_SECONDS)
                    >= SUBMISSIONS_PER_WINDOW):
                raise Refused(429, f"at most {SUBMISSIONS_PER_WINDOW} submissions in "
                                   f"{WINDOW_SECONDS / 60:.0f} minutes; try again later")
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
        return name

    def bot_log(self, who: Who, name: str) -> dict[str, object]:
        """What the bot ``name`` printed and its faults (its author's or the organiser's)."""
        return bot_log(self.directory, self.options.log_dir, who, name)

    # ------------------------------------------------------------------ the organiser
    def add_participant(self, who: Who, name: str) -> str:
        _organiser(who, "creates participants")
        try:
            return self.accounts.add_participant(name)
        except AccountError as err:
            raise Refused(409 if "exists" in str(err) else 400, str(err)) from None

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
        return mine

    def new_token(self, who: Who, name: str) -> str:
        _organiser(who, "issues tokens")
        try:
            return self.accounts.new_token(name)
        except AccountError as err:
            raise Refused(404 if "no participant" in str(err) else 409, str(err)) from None

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

    def _fingerprint(self) -> tuple[int, int]:
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


def _organiser(who: Who, does: str) -> None:
    if not who.organiser:
        raise Refused(403, f"only the organiser {does}")
