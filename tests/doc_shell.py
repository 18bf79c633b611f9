"""The commands a doc's shell block names, as tests/test_docs.py runs them: ``arena``,
``python`` and the rest are small scripts on PATH that call this file with the name typed.

``arena`` commands run for real, capped (a tournament is a dry run, or when a later command reads
its ``--out``, one random table in every rotation; a league batch plays a table, a comparison
one deal, a
validation gives 0.1 s a move); ``arena serve``, ``submit`` and ``bench``
only parse their options (a server, minutes of measuring), as does a command given a Ray
cluster's ``--address``. ``python benchmarks/X.py ...`` and
``python -m learn.train`` parse their options and stop (benchmarks take minutes), after checking
that the files under ``bots/`` and ``benchmarks/`` they name exist. Installing (``pip``), a Ray
cluster (``ray``), a server's client (``curl``) and ``git`` are never run; ``cp`` and ``patch``
are not run in a block marked parse-only. Each decision is appended to ``$DOC_LOG``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(os.environ["DOC_ROOT"])
PYTHON = os.environ["DOC_PYTHON"]
ARENA = str(Path(PYTHON).with_name("arena"))
PARSE_ONLY = os.environ.get("DOC_MODE") == "parse-only"
#: Commands that take minutes or a server: their options are parsed, nothing more.
ARENA_PARSED = {"serve", "submit", "bench"}
#: Caps: the most games of one run (the options are rewritten down to these).
TOURNAMENT_GAMES = "1"    # --schedule random --games 1: every bot at one table (rounded up)
LEAGUE_GAMES = 4
#: The longest move time a capped run plays at. The docs' bots think a fixed amount (mcts's
#: 300 iterations, ~25 ms a pick on a quiet core), not their move time: a cap far below their
#: need (0.05 s) made them time out on a busy machine, and every timeout restarts a process
#: (leagues.md's block took 200 s beside two spinning processes, 12 s without).
MOVE_TIME = 0.5
PARSER = """
import argparse, runpy, sys
original = argparse.ArgumentParser.parse_args
def parse_only(self, args=None, namespace=None):
    parsed = original(self, args, namespace)
    print("doc-test: parsed", parsed)
    raise SystemExit(0)
argparse.ArgumentParser.parse_args = parse_only
target = sys.argv[1]
sys.argv = sys.argv[1:]
if target == "-m":
    sys.argv = sys.argv[1:]
    runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
else:
    sys.path.insert(0, str(__import__("pathlib").Path(target).resolve().parent))
    runpy.run_path(target, run_name="__main__")
raise SystemExit("doc-test: the script never parsed its options")
"""


def log(what: str, words: list[str]) -> None:
    with open(os.environ["DOC_LOG"], "a") as out:
        out.write(f"{os.environ.get('DOC_BLOCK', '?')}\t{what}\t{' '.join(words)}\n")


def run(command: list[str]) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    os.execve(command[0], command, env)


def option(args: list[str], name: str, value: str) -> list[str]:
    """``args`` with option ``name`` set to ``value`` (replaced, or added)."""
    if name in args:
        at = args.index(name)
        return [*args[:at + 1], value, *args[at + 2:]]
    return [*args, name, value]


def capped(args: list[str]) -> list[str]:
    command = [a for a in args if not a.startswith("-")][:2]
    if command[:1] == ["tournament"] and "--dry-run" not in args:
        if "--out" not in args:   # nothing reads its results: the schedule is enough
            return [*args, "--dry-run"]
        args = option(option(option(args, "--schedule", "random"), "--games", TOURNAMENT_GAMES),
                      "--cycles", "1")
    elif command == ["league", "run"]:
        games = int(args[args.index("--games") + 1]) if "--games" in args else LEAGUE_GAMES
        args = option(args, "--games", str(min(games, LEAGUE_GAMES)))
    elif command[:1] == ["validate"]:    # a bot that thinks for half its move time
        args = option(args, "--move-time", "0.1")
    elif command[:1] == ["compare"]:
        players = next((int(args[i + 1]) for i, a in enumerate(args)
                        if a in ("-p", "--players")), 2)
        args = option(args, "--max-games", str(2 * players))
    if command[:1] in (["tournament"], ["compare"], ["play"]) or command == ["league", "new"]:
        given = float(args[args.index("--move-time") + 1]) if "--move-time" in args else 1.0
        if given > MOVE_TIME:
            args = option(args, "--move-time", str(MOVE_TIME))
    return args


def arena(args: list[str]) -> None:
    words = [a for a in args if not a.startswith("-")]
    if PARSE_ONLY or (words and words[0] in ARENA_PARSED) or "--address" in args:
        log("parsed", ["arena", *args])
        run([ARENA, *args, "--help"])
    new = capped(args)
    log("ran" if new == args else "capped", ["arena", *new])
    run([ARENA, *new])


def check_paths(args: list[str]) -> None:
    """Every ``bots/...`` or ``benchmarks/...`` path the command names exists."""
    for arg in args:
        for word in arg.split("="):
            path = word.split(":")[0]
            if path.startswith(("bots/", "benchmarks/")) and not Path(path).exists():
                raise SystemExit(f"doc-test: {path} does not exist")


def python(args: list[str]) -> None:
    if args[:3] == ["-m", "venv", ".venv"]:
        log("not run (a virtual environment: the test runs in one)", ["python", *args])
        raise SystemExit(0)
    script = args[1] if args[:1] == ["-m"] else args[0] if args else ""
    if script.startswith("benchmarks/") or script.startswith("learn."):
        check_paths(args)
        log("parsed", ["python", *args])
        run([PYTHON, "-c", PARSER, *args])
    if PARSE_ONLY:
        log("not run (parse-only)", ["python", *args])
        raise SystemExit(0)
    log("ran", ["python", *args])
    run([PYTHON, *args])


def main() -> None:
    name, args = Path(sys.argv[1]).name, sys.argv[2:]
    if name == "nice":  # the command at the suite's own priority: niced to 19 beside other
        if args[:1] == ["-n"]:  # load, each parse took seconds (leagues.md's: 165 s)
            args = args[2:]
        elif args[:1] and args[0].startswith(("-n", "--adjustment")):
            args = args[1:]
        log("ran without nice", [name, *args])
        name, args = Path(args[0]).name, args[1:]
    if name == "arena":
        arena(args)
    elif name.startswith("python"):
        python(args)
    elif name in ("cp", "patch") and (not PARSE_ONLY or name == "cp" and not any(
            a.startswith("/") for a in args)):  # parse-only: a copy within the doc's folder
        log("ran", [name, *args])
        run([f"/usr/bin/{name}" if Path(f"/usr/bin/{name}").exists() else f"/bin/{name}", *args])
    else:
        why = {"pip": "installs", "ray": "a Ray cluster", "curl": "needs a server",
               "git": "would change the checkout", "test": "the suite: this runs in it"}
        log(f"not run ({why.get(name, 'parse-only')})", [sys.argv[1], *args])


if __name__ == "__main__":
    main()
