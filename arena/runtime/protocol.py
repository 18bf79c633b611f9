"""The pick protocol between the arena and the runner in a bot's sandbox, in one place.

Everything that leaves a sandbox is hostile input: the runner lives in the bot's own process,
so a bot can replace any function the runner uses and write anything on the reply channel.
:func:`parse_reply` is the one place where bytes from a sandbox become values; whatever does
not parse into exactly one of the reply types below is a :class:`ProtocolError`, which the
arena turns into a ``protocol`` fault of that bot and nothing more. Text inside a reply is
made safe for terminals, logs and pages here, once.

Wire format. Requests (arena -> runner, on the ``req`` pipe) are trusted data, framed as a
4-byte big-endian length and a :mod:`marshal` payload (no parser to import in the sandbox, so a
runner boots faster)::

    {"id": n, "op": "load", "entry": "bot.py", "files": [("bot.py", b"..."), ...],
     "folder": True, "seed": 123, "address_base": 110000000}
    {"id": n, "op": "begin", "resume": False, "seed": 123, "obs": {...}}
    {"id": n, "op": "pick", "obs": {...}}
    {"id": n, "op": "end", "result": {...}}

``load`` puts the bot's files in the sandbox (read-only, at ``/arena/bot``), then runs the
entry file's code (``random`` seeded first), ``begin`` seeds ``random`` for
the game and calls ``new_game(obs)`` (``resume_game(obs)`` when a fresh process joins a game
in progress after a crash), ``pick`` calls ``pick(obs)``, ``end`` calls ``end_game(result)``.
Replies (runner -> arena, on the ``rep`` pipe) are untrusted: one JSON object per line, each
echoing its request's id::

    {"id": 0, "hello": true}                      the runner is up, no bot code has run
    {"id": n, "ready": true, "hooks": [...]}      the bot loaded; its optional hooks
    {"id": n, "ok": true}                         begin / end done
    {"id": n, "pick": "tempura" | ["a", "b"]}     a pick (checked against the rules later)
    {"id": n, "bad": "<short description>"}       pick returned a value that is not sendable
    {"id": n, "error": "...", "where": "...", "tb": "..."}   the bot's code raised
"""

from __future__ import annotations

import json
import marshal
import struct
from collections.abc import Sequence
from dataclasses import dataclass

from arena.isolation.library import RUNNER_FACTS
from arena.textsafe import safe_text
from engine import Observation

__all__ = [
    "Done",
    "Hello",
    "HOOKS",
    "MAX_LINE",
    "Picked",
    "ProtocolError",
    "Raised",
    "Ready",
    "Reply",
    "Unsendable",
    "WHERE",
    "encode_begin",
    "encode_end",
    "encode_load",
    "encode_pick",
    "observation_message",
    "parse_reply",
]

#: Longest reply line accepted (the runner's replies are far shorter).
MAX_LINE = 64 << 10
#: Optional bot functions the runner may report.
HOOKS = ("new_game", "resume_game", "end_game")
#: Where a bot's code may have raised.
WHERE = ("load", "new_game", "resume_game", "pick", "end_game")
MAX_NAME = RUNNER_FACTS["max_name"]            # longest card name accepted in a pick
MAX_MESSAGE = 200       # characters of an error message kept
MAX_TRACEBACK = RUNNER_FACTS["max_traceback"]  # characters of a traceback kept


class ProtocolError(Exception):
    """Bytes from a sandbox that are not a valid reply; ``detail`` says what, briefly."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


@dataclass(frozen=True)
class Hello:
    """The runner started and holds no bot yet."""


@dataclass(frozen=True)
class Ready:
    """The bot file loaded; ``hooks`` are the optional functions it defines."""

    hooks: frozenset[str]


@dataclass(frozen=True)
class Done:
    """A hook call (``begin``/``end``) returned."""


@dataclass(frozen=True)
class Picked:
    """``pick`` returned a string or a short list of strings (not yet checked for legality)."""

    value: str | tuple[str, ...]


@dataclass(frozen=True)
class Unsendable:
    """``pick`` returned a value the runner could not send (``shown`` describes it)."""

    shown: str


@dataclass(frozen=True)
class Raised:
    """The bot's code raised during ``where``."""

    where: str
    message: str
    traceback: str


Reply = Hello | Ready | Done | Picked | Unsendable | Raised


#: Characters of a line that is not a valid reply a fault shows (a program bot's relay says
#: what its program wrote in fewer: arena/inside/program.py).
SHOWN = 100


def _show(line: bytes) -> str:
    """The start of a line that is not a valid reply, as a fault shows it (ending with ...
    when cut)."""
    return safe_text(line[:SHOWN + 1].decode("utf-8", "backslashreplace"), limit=SHOWN)


def _text(message: dict[str, object], key: str, limit: int, *, multiline: bool = False) -> str:
    value = message.get(key, "")
    if not isinstance(value, str):
        raise ProtocolError(f"field {key!r} is not a string")
    return safe_text(value[: limit * 2], limit=limit, multiline=multiline)


def _pick_value(value: object) -> str | tuple[str, ...]:
    if type(value) is str and len(value) <= MAX_NAME:
        return value
    if (type(value) is list and 1 <= len(value) <= 3
            and all(type(v) is str and len(v) <= MAX_NAME for v in value)):
        return tuple(value)
    raise ProtocolError("a pick that is not a card name or a short list of names")


def parse_reply(line: bytes) -> tuple[int, Reply]:
    """``(id, reply)`` for one line from a sandbox; :class:`ProtocolError` for anything else."""
    if len(line) > MAX_LINE:
        raise ProtocolError(f"a reply line longer than {MAX_LINE} bytes")
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        raise ProtocolError(f"garbage on the channel: {_show(line)}") from None
    if type(message) is not dict:
        raise ProtocolError(f"a reply that is not a JSON object: {_show(line)}")
    ident = message.get("id")
    if type(ident) is not int or not 0 <= ident < 1 << 53:
        raise ProtocolError(f"a reply without a valid id: {_show(line)}")
    keys = set(message) - {"id"}
    reply: Reply
    if keys == {"hello"} and message["hello"] is True:
        reply = Hello()
    elif keys == {"ready", "hooks"} and message["ready"] is True:
        hooks = message["hooks"]
        if (type(hooks) is not list or len(hooks) > len(HOOKS)
                or not all(type(h) is str and h in HOOKS for h in hooks)):
            raise ProtocolError("a ready message with bad hooks")
        reply = Ready(frozenset(hooks))
    elif keys == {"ok"} and message["ok"] is True:
        reply = Done()
    elif keys == {"pick"}:
        reply = Picked(_pick_value(message["pick"]))
    elif keys == {"bad"}:
        reply = Unsendable(_text(message, "bad", 100))
    elif keys == {"error", "where", "tb"}:
        where = message["where"]
        if type(where) is not str or where not in WHERE:
            raise ProtocolError("an error reply with a bad 'where'")
        reply = Raised(where, _text(message, "error", MAX_MESSAGE),
                       _text(message, "tb", MAX_TRACEBACK, multiline=True))
    else:
        raise ProtocolError(f"an unknown reply: {_show(line)}")
    return ident, reply


def _frame(message: dict[str, object]) -> bytes:
    data = marshal.dumps(message, 4)
    return struct.pack(">I", len(data)) + data


def encode_load(ident: int, *, entry: str, files: Sequence[tuple[str, bytes]], folder: bool,
                seed: int, address_base: int = 0) -> bytes:
    """The request that loads a bot: its ``files`` (relative path, content), the ``entry``
    file whose code runs, whether it is a folder bot, ``random`` seeded by ``seed``; the
    address space the runner had before it (``address_base`` bytes), which its limit adds to
    the bot's memory."""
    return _frame({"id": ident, "op": "load", "entry": entry, "files": list(files),
                   "folder": folder, "seed": seed, "address_base": address_base})


def encode_begin(ident: int, obs: dict[str, object], *, seed: int, resume: bool) -> bytes:
    """Seed ``random`` and call ``new_game(obs)`` (``resume_game`` with ``resume``)."""
    return _frame({"id": ident, "op": "begin", "resume": resume, "seed": seed, "obs": obs})


def encode_pick(ident: int, obs: dict[str, object]) -> bytes:
    """Ask for a pick; ``obs`` is the observation's plain form (:func:`observation_message`)."""
    return _frame({"id": ident, "op": "pick", "obs": obs})


def encode_end(ident: int, result: dict[str, object]) -> bytes:
    """Call ``end_game(result)``."""
    return _frame({"id": ident, "op": "end", "result": result})


def _names(cards: Sequence[str]) -> list[str]:
    return [str.__str__(c) for c in cards]


def observation_message(obs: Observation, public: dict[str, object]) -> dict[str, object]:
    """``obs`` in plain types, equal to ``obs.to_dict()``.

    The fields every seat shares this turn are built once and kept in ``public`` (empty at
    first) for the other seats' observations of the same turn.
    """
    if not public:
        public.update({
            "players": list(obs.players), "round": obs.round, "turn": obs.turn,
            "tableaux": [_names(t) for t in obs.tableaux], "puddings": list(obs.puddings),
            "scores": list(obs.scores), "pass_direction": obs.pass_direction,
            "time_limit": float(obs.time_limit), "variant": list(obs.variant),
            "hand_sizes": list(obs.hand_sizes), "discards": _names(obs.discards)})
    message = dict(public)
    message.update({
        "seat": obs.seat, "hand": _names(obs.hand),
        "known_hands": [None if k is None else _names(k) for k in obs.known_hands],
        "can_use_chopsticks": bool(obs.can_use_chopsticks), "for_dummy": bool(obs.for_dummy)})
    return message
